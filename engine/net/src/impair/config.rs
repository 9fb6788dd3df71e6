//! What the impairment relay does to each direction: the serde-readable settings, their
//! validation, and the named profiles of issue 9's link matrix.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::RelayError;

/// How jitter is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JitterModel {
    /// Each packet's offset is uniform in ±jitter, independently: reorders a lot.
    Uniform,
    /// A bounded random walk (each packet moves the offset by at most a quarter of the
    /// jitter, clamped to ±jitter) and FIFO delivery (a packet never overtakes the one
    /// before it, as in a real path's queues): the same spread of delays, no reordering.
    #[default]
    Correlated,
}

/// Gilbert–Elliott bursty loss: a two-state Markov chain advanced once per packet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliott {
    /// Chance per packet to go from the good to the bad state.
    pub p_good_to_bad: f64,
    /// Chance per packet to go from the bad to the good state (1 / mean burst length).
    pub p_bad_to_good: f64,
    /// Loss probability in the good state.
    #[serde(default)]
    pub loss_good: f64,
    /// Loss probability in the bad state.
    #[serde(default = "one")]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

impl GilbertElliott {
    /// A chain that loses every packet in the bad state, none in the good one, with the
    /// given long-run mean loss and mean burst length (packets).
    pub fn with_mean(mean_loss: f64, mean_burst: f64) -> Self {
        let r = 1.0 / mean_burst.max(1.0);
        let m = mean_loss.clamp(0.0, 0.99);
        // Stationary bad share p / (p + r) = m.
        GilbertElliott {
            p_good_to_bad: m * r / (1.0 - m),
            p_bad_to_good: r,
            loss_good: 0.0,
            loss_bad: 1.0,
        }
    }

    /// The long-run loss fraction.
    pub fn mean_loss(&self) -> f64 {
        let (p, r) = (self.p_good_to_bad, self.p_bad_to_good);
        if p + r <= 0.0 {
            return self.loss_good;
        }
        let bad = p / (p + r);
        bad * self.loss_bad + (1.0 - bad) * self.loss_good
    }
}

/// One direction's impairments (all off by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DirectionConfig {
    /// Fixed one-way delay.
    pub delay_ms: f64,
    /// Jitter bound: the delay varies within `delay_ms ± jitter_ms` (never below zero).
    pub jitter_ms: f64,
    pub jitter_model: JitterModel,
    /// Independent (Bernoulli) loss probability per packet.
    pub loss: f64,
    /// Bursty loss, applied in addition to `loss`.
    pub gilbert_elliott: Option<GilbertElliott>,
    /// Probability that a delivered packet is delivered twice.
    pub duplicate: f64,
    /// Bottleneck rate in bits per second (shared by every flow through the relay in this
    /// direction); `None` for no bottleneck.
    pub rate_bps: Option<u64>,
    /// The bottleneck queue's bound in bytes (tail drop beyond it).
    pub queue_bytes: usize,
}

impl Default for DirectionConfig {
    fn default() -> Self {
        DirectionConfig {
            delay_ms: 0.0,
            jitter_ms: 0.0,
            jitter_model: JitterModel::default(),
            loss: 0.0,
            gilbert_elliott: None,
            duplicate: 0.0,
            rate_bps: None,
            queue_bytes: 64 * 1024,
        }
    }
}

/// A scripted outage of both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blackout {
    /// Offset from the relay's start.
    pub start_ms: u64,
    pub duration_ms: u64,
}

impl Blackout {
    pub fn start(&self) -> Duration {
        Duration::from_millis(self.start_ms)
    }
    pub fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms)
    }
}

/// The whole relay's impairments.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImpairConfig {
    /// Client → server.
    pub to_server: DirectionConfig,
    /// Server → client.
    pub to_client: DirectionConfig,
    /// Outages of both directions.
    pub blackouts: Vec<Blackout>,
}

/// The largest delay or jitter accepted (a minute: anything longer is a typo).
const MAX_DELAY_MS: f64 = 60_000.0;
/// The largest bottleneck queue accepted.
pub const MAX_QUEUE_BYTES: usize = 64 << 20;
/// The most blackouts in one script.
const MAX_BLACKOUTS: usize = 1024;

/// The names [`ImpairConfig::profile`] knows, in the order of the issue's link matrix.
pub const PROFILES: &[&str] = &[
    "lan",
    "50ms-20ms-2pct",
    "150ms-30ms-3pct",
    "bursty-3pct",
    "bottleneck-1mbit",
    "blackout-1s",
    "blackout-3s",
    "blackout-8s",
];

/// When the scripted blackout of the `blackout-*` profiles starts (time to connect and settle).
pub const PROFILE_BLACKOUT_START_MS: u64 = 5_000;

impl ImpairConfig {
    /// The same impairments both ways.
    pub fn symmetric(d: DirectionConfig) -> Self {
        ImpairConfig {
            to_server: d.clone(),
            to_client: d,
            blackouts: Vec::new(),
        }
    }

    /// A named profile (see [`PROFILES`]).
    pub fn profile(name: &str) -> Result<Self, RelayError> {
        let path = |delay_ms: f64, jitter_ms: f64, loss: f64| DirectionConfig {
            delay_ms,
            jitter_ms,
            loss,
            ..DirectionConfig::default()
        };
        let blackout = |secs: u64| {
            let mut c = Self::symmetric(path(25.0, 5.0, 0.0));
            c.blackouts.push(Blackout {
                start_ms: PROFILE_BLACKOUT_START_MS,
                duration_ms: secs * 1000,
            });
            c
        };
        Ok(match name {
            "lan" => Self::default(),
            "50ms-20ms-2pct" => Self::symmetric(path(50.0, 20.0, 0.02)),
            "150ms-30ms-3pct" => Self::symmetric(path(150.0, 30.0, 0.03)),
            "bursty-3pct" => Self::symmetric(DirectionConfig {
                gilbert_elliott: Some(GilbertElliott::with_mean(0.03, 4.0)),
                ..path(50.0, 10.0, 0.0)
            }),
            "bottleneck-1mbit" => Self::symmetric(DirectionConfig {
                rate_bps: Some(1_000_000),
                // 200 ms of queue at the rate: a typical home router's buffer.
                queue_bytes: 25_000,
                ..path(20.0, 2.0, 0.0)
            }),
            "blackout-1s" => blackout(1),
            "blackout-3s" => blackout(3),
            "blackout-8s" => blackout(8),
            other => return Err(RelayError::UnknownProfile(other.to_owned())),
        })
    }

    /// Refuses settings the models cannot honour (NaN, negative, probabilities above 1,
    /// absurd sizes).
    pub fn validate(&self) -> Result<(), RelayError> {
        for (dir, d) in [
            ("to_server", &self.to_server),
            ("to_client", &self.to_client),
        ] {
            let bad = |what: &str| Err(RelayError::Config(format!("{dir}.{what}")));
            let ms_ok = |v: f64| v.is_finite() && (0.0..=MAX_DELAY_MS).contains(&v);
            let p_ok = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
            if !ms_ok(d.delay_ms) {
                return bad("delay_ms must be within 0..=60000");
            }
            if !ms_ok(d.jitter_ms) {
                return bad("jitter_ms must be within 0..=60000");
            }
            if !p_ok(d.loss) {
                return bad("loss must be within 0..=1");
            }
            if !p_ok(d.duplicate) {
                return bad("duplicate must be within 0..=1");
            }
            if let Some(ge) = &d.gilbert_elliott
                && ![
                    ge.p_good_to_bad,
                    ge.p_bad_to_good,
                    ge.loss_good,
                    ge.loss_bad,
                ]
                .into_iter()
                .all(p_ok)
            {
                return bad("gilbert_elliott probabilities must be within 0..=1");
            }
            if d.rate_bps == Some(0) {
                return bad("rate_bps must be positive (omit it for no bottleneck)");
            }
            if d.queue_bytes > MAX_QUEUE_BYTES {
                return bad("queue_bytes must be at most 64 MiB");
            }
        }
        if self.blackouts.len() > MAX_BLACKOUTS {
            return Err(RelayError::Config(format!(
                "at most {MAX_BLACKOUTS} blackouts"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_exists_and_is_valid() {
        for name in PROFILES {
            let c = ImpairConfig::profile(name).expect(name);
            c.validate().expect(name);
        }
        assert!(matches!(
            ImpairConfig::profile("moon"),
            Err(RelayError::UnknownProfile(_))
        ));
        let ge = ImpairConfig::profile("bursty-3pct").expect("profile");
        let mean = ge.to_server.gilbert_elliott.expect("ge").mean_loss();
        assert!((mean - 0.03).abs() < 1e-9, "{mean}");
    }

    #[test]
    fn config_reads_from_json_and_refuses_nonsense() {
        let c: ImpairConfig = serde_json::from_str(
            r#"{"to_server": {"delay_ms": 50, "jitter_ms": 20, "loss": 0.02,
                "jitter_model": "uniform"},
                "blackouts": [{"start_ms": 1000, "duration_ms": 3000}]}"#,
        )
        .expect("parses");
        assert_eq!(c.to_server.jitter_model, JitterModel::Uniform);
        assert_eq!(c.to_client, DirectionConfig::default());
        c.validate().expect("valid");
        assert!(serde_json::from_str::<ImpairConfig>(r#"{"to_srv": {}}"#).is_err());
        for bad in [
            r#"{"to_server": {"loss": 1.5}}"#,
            r#"{"to_client": {"delay_ms": -1}}"#,
            r#"{"to_client": {"rate_bps": 0}}"#,
            r#"{"to_client": {"queue_bytes": 1000000000}}"#,
            r#"{"to_server": {"gilbert_elliott": {"p_good_to_bad": 2, "p_bad_to_good": 0.1}}}"#,
        ] {
            let c: ImpairConfig = serde_json::from_str(bad).expect("parses");
            assert!(matches!(c.validate(), Err(RelayError::Config(_))), "{bad}");
        }
    }
}
