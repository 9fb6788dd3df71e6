//! The log setup every fighters-legacy binary shares: `tracing` to stderr, filtered by
//! `RUST_LOG` (else the binary's default level), with colour codes only when stderr is a
//! terminal, so a log redirected to a file or a pipe is plain text.
//!
//! Owns nothing but the subscriber's construction; must not be called twice in one process (the
//! second call is ignored).

use std::io::IsTerminal;

/// Installs the subscriber; `default_filter` applies when `RUST_LOG` is unset or invalid.
pub fn init(default_filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
