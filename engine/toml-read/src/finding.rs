//! The one finding format every loader, validator and tool prints:
//! `file:line: error|warning: `key`: message`.
//!
//! Owns: [`Finding`], [`Severity`] and their text. Must not: decide what is an error (each
//! loader does) or print anywhere (callers log or print the text).

use std::fmt;
use std::path::PathBuf;

/// How bad a finding is; errors order before warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Stops a file (a pack, a definition, a model) from being used.
    Error,
    /// Used anyway; worth a look.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// One finding, located as precisely as the reader knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The file (empty for findings about a whole content stack).
    pub file: PathBuf,
    /// 1-based line (0 when the finding is about the whole file).
    pub line: usize,
    /// Dotted key path (may be empty).
    pub key: String,
    /// What is wrong and, where the reader knows it, what to change; the cause included.
    pub message: String,
}

/// Written as `file:line: severity: `key`: message`. Without a line the `:line` is left out,
/// without a key the `` `key`: `` part; a finding about no file names `(content)`.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.as_os_str().is_empty() {
            f.write_str("(content)")?;
        } else {
            write!(f, "{}", self.file.display())?;
        }
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        write!(f, ": {}: ", self.severity.label())?;
        if !self.key.is_empty() {
            write!(f, "`{}`: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: &str, line: usize, key: &str) -> Finding {
        Finding {
            severity: Severity::Warning,
            file: file.into(),
            line,
            key: key.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn the_format_leaves_out_what_is_not_known() {
        assert_eq!(
            finding("a.toml", 3, "aero.cl").to_string(),
            "a.toml:3: warning: `aero.cl`: m"
        );
        assert_eq!(finding("a.toml", 0, "").to_string(), "a.toml: warning: m");
        assert_eq!(
            finding("", 0, "k").to_string(),
            "(content): warning: `k`: m"
        );
        assert!(Severity::Error < Severity::Warning);
    }
}
