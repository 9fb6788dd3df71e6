//! `fighters-legacy` — the game client as a library (the `fighters-legacy` binary is a thin shell
//! over it, so tests drive the same code).
//!
//! The pieces, in the order a frame uses them (see `docs/client.md`):
//! - [`session`]: one connection to a server over any `fl_net::ClientTransport` (QUIC with trust
//!   on first use or a pinned fingerprint; LinkSim in tests) — the handshake state machine, the
//!   entity table fed by snapshots, weather, notices, heartbeats and acks;
//! - [`input_clock`]: a fixed 60 Hz input clock independent of the frame rate and the
//!   `MsgClientInput` it builds each tick;
//! - [`prediction`]: the own aircraft integrated locally with the server's own flight model,
//!   reset to the server's exact state on every snapshot and replayed from the exact input window;
//! - [`bridge`]: remote aircraft interpolated from a snapshot buffer a little in the past, and the
//!   one render list per frame;
//! - [`client`]: the frame loop composing the four;
//! - [`content`]: the client's content stack, loaded as the server loads its own (the user's
//!   mods folder, `--mods`, `--pack`) and the `--aircraft` choice;
//! - [`local_server`]: the embedded single-player server (fl-server on its own thread, QUIC on
//!   loopback — the same transport and handshake as multiplayer);
//! - [`headless`] and [`sim`]: the windowless client loop and its JSON summary, on a real network
//!   or on an in-process LinkSim world where the server's truth is known;
//! - [`instruments`] and [`hud`]: what the cockpit reads from the own aircraft, and the flight
//!   HUD drawn from it with an egui `Painter` (docs/hud.md);
//! - [`netgraph`]: the F3 net graph (ten seconds of RTT, snapshots, corrections, delay and
//!   bytes) and the HUD's network items (docs/netgraph.md);
//! - [`screens`], [`ui`], [`settings`] and [`address`]: the screen state machine, every screen
//!   drawn with egui, the player's settings file, and the server-address parser shared by
//!   `--connect` and the Join screen (docs/ui.md);
//! - [`browser`]: the server browser's networking (LAN beacons, server-info queries), polled by
//!   the Join screen while it is open.
//!
//! - [`app`]: the game window (winit, fl-render, egui): the frame loop, sessions started behind
//!   the Loading screen, the scene, the cameras and the default keys (docs/game.md).
//!
//! Only [`app`] opens a window or touches the GPU; everything else runs headless and in tests.

pub mod address;
pub mod app;
pub mod autopilot;
pub mod bridge;
pub mod browser;
pub mod client;
pub mod content;
pub mod effects;
pub mod entities;
pub mod geom;
pub mod headless;
pub mod hud;
pub mod input_clock;
pub mod instruments;
pub mod local_server;
pub mod messages;
pub mod netgraph;
pub mod objectives;
pub mod prediction;
pub mod screens;
pub mod session;
pub mod settings;
pub mod sim;
pub mod stats;
pub mod ui;
pub mod weather;

/// The server tick rate the client assumes (the spec's fixed 60 Hz).
pub const TICK_HZ: u64 = 60;

/// One tick in seconds.
pub const TICK_S: f64 = 1.0 / TICK_HZ as f64;

/// This client's build version (compared with the server's `HelloBuildVersion`).
pub const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");
