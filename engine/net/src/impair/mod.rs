//! The impairment relay: a loopback-only UDP relay that sits between real QUIC endpoints and
//! delays, jitters, drops (random and Gilbert–Elliott), duplicates, rate-limits (bounded
//! queue, tail drop) and blacks out packets per direction, seeded and reproducible, and
//! reports the ground truth of what it did. LinkSim stays for deterministic unit tests; this
//! is how the real transport is proved (see `docs/transport.md`, "Impairment relay").

use std::net::SocketAddr;

mod config;
pub mod model;
mod relay;
mod stats;

pub use config::{
    Blackout, DirectionConfig, GilbertElliott, ImpairConfig, JitterModel, MAX_QUEUE_BYTES,
    PROFILE_BLACKOUT_START_MS, PROFILES,
};
pub use relay::{MAX_FLOWS, MAX_IN_FLIGHT, Relay, RelayHandle, WindowQueueDelay};
pub use stats::{DelaySummary, DirectionStats, RelayStats};

/// Why a relay could not start.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The relay only ever talks to this machine.
    #[error("{0} is not a loopback address (the relay binds and forwards on loopback only)")]
    NotLoopback(SocketAddr),
    /// The listen and upstream addresses are of different IP families.
    #[error("listen {listen} and upstream {upstream} are of different IP families")]
    MixedFamilies {
        listen: SocketAddr,
        upstream: SocketAddr,
    },
    #[error("unknown impairment profile {0:?} (known: {known})", known = PROFILES.join(", "))]
    UnknownProfile(String),
    #[error("invalid impairment setting: {0}")]
    Config(String),
    #[error("cannot bind UDP {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the relay thread")]
    Thread(#[source] std::io::Error),
}
