//! fl-view, the modder's viewer: one model of a content pack from an orbit camera (offscreen to
//! a PNG, or in a window), or the world from a geodetic camera. The binary (`src/main.rs`) only
//! parses the command line and prints; everything it does lives here so tests drive the same
//! code. See docs/fl-view.md.

pub mod args;
pub mod cli;
pub mod error;
pub mod pack;
pub mod scene;
pub mod shot;
pub mod window;
pub mod world;
pub mod world_window;

pub use cli::{Cli, Report, run};
pub use error::{EXIT_FAILURE, ViewError};
