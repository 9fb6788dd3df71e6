//! The log setup every fighters-legacy binary shares: `tracing` to stderr, filtered by
//! `RUST_LOG` (else the binary's default level), with colour codes only when stderr is a
//! terminal, so a log redirected to a file or a pipe is plain text. A server operator who feeds
//! a log collector asks for one JSON object per line instead ([`LogFormat::Json`]: `fl-server
//! --log-format json`, or `FL_LOG_FORMAT=json` for any binary), every event's fields as keys.
//!
//! Owns nothing but the subscriber's construction; must not be called twice in one process (the
//! second call is ignored).

use std::io::IsTerminal;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `fields`).
    Json,
}

impl LogFormat {
    /// `text` or `json` (any case).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "text" => Some(Self::Text),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// `FL_LOG_FORMAT`, else text (an unknown value is text, with a warning once logging runs).
    fn from_env() -> (Self, Option<String>) {
        match std::env::var("FL_LOG_FORMAT") {
            Ok(v) => match Self::parse(&v) {
                Some(f) => (f, None),
                None => (Self::Text, Some(v)),
            },
            Err(_) => (Self::Text, None),
        }
    }
}

/// Installs the subscriber; `default_filter` applies when `RUST_LOG` is unset or invalid; the
/// format comes from `FL_LOG_FORMAT` (text unless it says `json`).
pub fn init(default_filter: &str) {
    let (format, unknown) = LogFormat::from_env();
    init_with(default_filter, format);
    if let Some(v) = unknown {
        tracing::warn!("FL_LOG_FORMAT={v:?} is neither \"text\" nor \"json\"; logging text");
    }
}

/// [`init`] with an explicit format (a binary's `--log-format` flag).
pub fn init_with(default_filter: &str, format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder.json().with_ansi(false).try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::LogFormat;

    #[test]
    fn formats_parse_by_name() {
        assert_eq!(LogFormat::parse("JSON"), Some(LogFormat::Json));
        assert_eq!(LogFormat::parse(" text "), Some(LogFormat::Text));
        assert_eq!(LogFormat::parse("xml"), None);
    }
}
