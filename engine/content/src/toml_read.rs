//! Binds the shared TOML reader (`fl-toml`) to the content system's error and warning types.
//!
//! Owns: the mapping of reading problems (and refused names) to [`ContentError`] /
//! [`ContentWarning`]. Must not: know
//! any schema (each definition module names its own keys) or read files.

use crate::error::{ContentError, ContentWarning};
use crate::names::NameProblem;
use std::path::Path;

pub(crate) use fl_toml::At;

/// How content files report reading problems.
#[derive(Debug)]
pub(crate) enum ContentDiagnostics {}

impl fl_toml::Diagnostics for ContentDiagnostics {
    type Error = ContentError;
    type Warning = ContentWarning;
    fn syntax(file: &Path, line: usize, message: String) -> ContentError {
        ContentError::Syntax {
            file: file.into(),
            line,
            message,
        }
    }
    fn invalid(file: &Path, line: usize, key: &str, problem: String) -> ContentError {
        ContentError::Invalid {
            file: file.into(),
            line,
            key: key.into(),
            problem,
        }
    }
    fn warning(file: &Path, line: usize, key: &str, message: String) -> ContentWarning {
        ContentWarning::new(file, line, key, message)
    }
}

/// One file being read: its name, line index and the warnings collected so far.
pub(crate) type Src<'f> = fl_toml::Source<'f, ContentDiagnostics>;
/// One table being read; remembers which keys were consumed.
pub(crate) type Tbl<'a> = fl_toml::Table<'a>;

/// Refuses an invalid name at `key`.
pub(crate) fn bad_name(
    src: &Src<'_>,
    key: &str,
    line: usize,
    value: &str,
    problem: NameProblem,
) -> ContentError {
    ContentError::BadName {
        file: src.file.into(),
        line: line.max(1),
        key: key.into(),
        value: value.into(),
        problem,
    }
}
