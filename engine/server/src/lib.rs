//! fl-server — the authoritative fighters-legacy world as a library (the `fl-server` binary and
//! the client's embedded single-player server are thin shells over it).

pub mod admin;
pub mod admission;
pub mod ai_glue;
pub mod combat;
pub mod config_file;
pub mod discovery;
pub mod http;
pub mod input;
pub mod jitter;
pub mod lagcomp;
pub mod logging;
pub mod lua_controller;
pub mod mission_director;
pub mod pool;
pub mod runtime;
pub mod server;
pub mod snapshot;
pub mod social;
pub mod spatial;
pub mod stats;
pub mod terrain_match;
pub mod types;
pub mod weather;
pub mod world;
