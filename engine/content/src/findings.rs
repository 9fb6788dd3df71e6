//! Findings: every error and warning of a content load in the one format people read,
//! `file:line: error|warning: `key`: message`, plus the summary line and the start-up log.
//!
//! Owns: the mapping of [`ContentError`] / [`ContentWarning`] to a [`Finding`] (the cause chain
//! always folded into the message), the format, the summary line (counts and loaded types), and
//! [`log_loaded`], which logs a loaded stack once (findings, types, assets nothing uses yet).
//! `fl-server --check`, `validate-pack` and both programs' logs use this and nothing else.
//! Must not: decide what is an error (the loader does) or print anywhere but the log.

use crate::content::Content;
use crate::error::{AssetError, ContentError, ContentWarning};
use crate::load::{LoadFailure, LoadReport};
use std::path::Path;

pub use fl_toml::{Finding, Severity};

impl From<&ContentWarning> for Finding {
    fn from(w: &ContentWarning) -> Self {
        Finding {
            severity: Severity::Warning,
            file: w.file.clone(),
            line: w.line,
            key: w.key.clone(),
            message: w.message.clone(),
        }
    }
}

/// The sources below `e`, joined with `: ` (empty when there is none).
fn causes(e: &dyn std::error::Error) -> String {
    let mut out = Vec::new();
    let mut src = e.source();
    while let Some(s) = src {
        out.push(s.to_string());
        src = s.source();
    }
    out.join(": ")
}

/// What to change for a TOML syntax error: the parser's words, and the usual fixes (also used
/// for `server.toml` by `fl-server --check`).
pub fn syntax_message(parser: &str) -> String {
    format!(
        "TOML syntax error: {parser}; fix this line (text values need quotes: key = \"value\"; \
         tables are written [name]; each key appears once)"
    )
}

fn err(file: &Path, line: usize, key: &str, message: String) -> Finding {
    Finding {
        severity: Severity::Error,
        file: file.to_owned(),
        line,
        key: key.to_owned(),
        message,
    }
}

fn asset_finding(e: &AssetError) -> Finding {
    let cause = causes(e);
    let with_cause = |m: &str| {
        if cause.is_empty() {
            m.to_owned()
        } else {
            format!("{m}: {cause}")
        }
    };
    match e {
        AssetError::BadName { name, problem } => err(
            Path::new(""),
            0,
            "",
            format!("asset name {name:?}: {problem}"),
        ),
        AssetError::NotFound { .. } => err(Path::new(""), 0, "", e.to_string()),
        AssetError::Escapes {
            path,
            resolved,
            root,
        } => err(
            path,
            0,
            "",
            format!(
                "resolves to {}, outside the pack root {}; refused",
                resolved.display(),
                root.display()
            ),
        ),
        AssetError::NotAFile { path } => err(path, 0, "", "not a regular file; refused".into()),
        AssetError::TooLarge {
            path,
            size,
            limit,
            kind,
        } => err(
            path,
            0,
            "",
            format!("file is {size} bytes; the limit for {kind} assets is {limit} bytes; refused"),
        ),
        AssetError::Io { path, .. } => err(path, 0, "", with_cause("cannot read")),
    }
}

impl From<&ContentError> for Finding {
    fn from(e: &ContentError) -> Self {
        use fl_flight::schema::SchemaError;
        let cause = causes(e);
        let with_cause = |m: String| {
            if cause.is_empty() {
                m
            } else {
                format!("{m}: {cause}")
            }
        };
        match e {
            ContentError::Io { path, .. } => err(path, 0, "", with_cause("cannot read".into())),
            ContentError::TooLarge { path, size, limit } => err(
                path,
                0,
                "",
                format!("file is {size} bytes; the limit for this kind of file is {limit} bytes"),
            ),
            ContentError::Syntax {
                file,
                line,
                message,
            } => err(file, *line, "", syntax_message(message)),
            ContentError::Invalid {
                file,
                line,
                key,
                problem,
            } => err(file, *line, key, problem.clone()),
            ContentError::BadName {
                file,
                line,
                key,
                value,
                problem,
            } => err(file, *line, key, format!("{value:?}: {problem}")),
            ContentError::EngineApi {
                file,
                line,
                found,
                supported,
            } => err(
                file,
                *line,
                "mod.engine-api",
                format!(
                    "{found:?}: this engine implements API major {supported}; the pack is not loaded"
                ),
            ),
            ContentError::DuplicatePack { id, first, second } => err(
                second,
                0,
                "mod.id",
                format!(
                    "pack id {id:?} is already declared by {}; this pack is not loaded",
                    first.display()
                ),
            ),
            ContentError::MissingDependency {
                file,
                pack,
                missing,
            } => err(
                file,
                0,
                "mod.depends",
                format!(
                    "pack {pack:?} needs {missing:?}, which is not loaded; {pack:?} is not loaded"
                ),
            ),
            ContentError::DependencyCycle { file, cycle } => err(
                file,
                0,
                "mod.depends",
                format!(
                    "dependency cycle {}; none of these packs is loaded",
                    cycle.join(" -> ")
                ),
            ),
            ContentError::DuplicateDef {
                kind,
                id,
                first,
                second,
            } => err(
                second,
                0,
                &format!("{kind}.id"),
                format!(
                    "{kind} id {id:?} is already declared by {} in the same pack; this one is not loaded",
                    first.display()
                ),
            ),
            ContentError::FlightModelMissing { file, line, asset } => err(
                file,
                *line,
                "entity.flight_model",
                format!(
                    "{asset:?}: no pack provides aircraft/{asset}.toml (asset names include their subdirectory, e.g. \"f16a/f16a\")"
                ),
            ),
            ContentError::FlightModelSchema { asset, source } => match source {
                SchemaError::Syntax {
                    file,
                    line,
                    message,
                } => err(file, *line, "", syntax_message(message)),
                SchemaError::Invalid {
                    file,
                    key,
                    line,
                    problem,
                } => err(file, *line, key, problem.clone()),
                SchemaError::Io { file, source } => {
                    err(file, 0, "", format!("cannot read: {source}"))
                }
                SchemaError::TooLarge { file, size, limit } => err(
                    file,
                    0,
                    "",
                    format!(
                        "file is {size} bytes; flight-model files are limited to {limit} bytes"
                    ),
                ),
                #[allow(unreachable_patterns)] // fl-flight may add variants
                other => err(
                    Path::new(""),
                    0,
                    "",
                    format!("flight model {asset:?}: {other}{}", {
                        let c = causes(other);
                        if c.is_empty() {
                            String::new()
                        } else {
                            format!(": {c}")
                        }
                    }),
                ),
            },
            ContentError::FlightModelInvalid {
                asset,
                file,
                line,
                key,
                problem,
            } => err(
                file,
                *line,
                key,
                format!("flight model {asset:?}: {problem}"),
            ),
            ContentError::UnknownDefaultWeapon {
                file,
                line,
                key,
                weapon,
            } => err(
                file,
                *line,
                key,
                format!(
                    "{weapon:?}: no loaded pack defines this weapon, so the default loadout's mass and drag are unknown"
                ),
            ),
            ContentError::TooManyFiles { dir, max } => {
                err(dir, 0, "", format!("more than {max} entries; refused"))
            }
            ContentError::Asset(a) => asset_finding(a),
            ContentError::Builtin(m) => err(Path::new(""), 0, "", format!("builtin content: {m}")),
        }
    }
}

/// Every finding of one load, errors first (each group in discovery order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// The findings.
    pub items: Vec<Finding>,
}

impl Findings {
    /// The findings of a load that returned content (errors of skipped packs and definitions,
    /// then warnings).
    pub fn from_report(r: &LoadReport) -> Self {
        Self::from_parts(&r.errors, &r.warnings)
    }

    /// The findings of a load that failed.
    pub fn from_failure(f: &LoadFailure) -> Self {
        Self::from_parts(&f.errors, &f.warnings)
    }

    fn from_parts(errors: &[ContentError], warnings: &[ContentWarning]) -> Self {
        let items = errors
            .iter()
            .map(Finding::from)
            .chain(warnings.iter().map(Finding::from))
            .collect();
        Self { items }
    }

    /// How many errors.
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// How many warnings.
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.items.iter().filter(|f| f.severity == s).count()
    }

    /// The summary line: counts, then the packs and the types loaded (`content` is `None` when
    /// nothing loaded).
    pub fn summary(&self, content: Option<&Content>) -> String {
        let mut s = format!("{} error(s), {} warning(s)", self.errors(), self.warnings());
        match content {
            Some(c) => {
                let packs: Vec<String> = c.packs().into_iter().map(|p| p.id).collect();
                let types: Vec<&str> = c.types().iter().map(|t| t.id()).collect();
                s.push_str(&format!(
                    "; {} pack(s) [{}]; {} type(s): {}",
                    packs.len(),
                    packs.join(", "),
                    types.len(),
                    types.join(", ")
                ));
            }
            None => s.push_str("; nothing loaded"),
        }
        s
    }
}

/// Logs a loaded stack once: every finding (errors at `error`, warnings at `warn`), the loaded
/// types, and per pack the assets nothing in this build reads yet.
pub fn log_loaded(content: &Content) {
    let findings = Findings::from_report(content.report());
    for f in &findings.items {
        match f.severity {
            Severity::Error => tracing::error!("{f}"),
            Severity::Warning => tracing::warn!("{f}"),
        }
    }
    tracing::info!("content: {}", findings.summary(Some(content)));
    for line in content.unused_assets_lines() {
        tracing::info!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_format() {
        let f = Finding {
            severity: Severity::Error,
            file: "p/entities/a.toml".into(),
            line: 3,
            key: "entity.id".into(),
            message: "bad".into(),
        };
        assert_eq!(
            f.to_string(),
            "p/entities/a.toml:3: error: `entity.id`: bad"
        );
        let w = Finding {
            severity: Severity::Warning,
            line: 0,
            key: String::new(),
            ..f.clone()
        };
        assert_eq!(w.to_string(), "p/entities/a.toml: warning: bad");
        let stack = Finding {
            file: std::path::PathBuf::new(),
            ..w
        };
        assert_eq!(stack.to_string(), "(content): warning: bad");
    }

    #[test]
    fn causes_are_kept_and_syntax_says_what_to_change() {
        let io = ContentError::Io {
            path: "x".into(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        };
        assert_eq!(
            Finding::from(&io).to_string(),
            "x: error: cannot read: denied"
        );
        let syn = ContentError::Syntax {
            file: "m.toml".into(),
            line: 2,
            message: "expected `=`".into(),
        };
        let s = Finding::from(&syn).to_string();
        assert!(
            s.starts_with("m.toml:2: error: TOML syntax error: expected `=`; fix this line"),
            "{s}"
        );
        assert!(s.contains("key = \"value\""), "{s}");
        let unreadable = ContentError::FlightModelSchema {
            asset: "a/a".into(),
            source: fl_flight::schema::SchemaError::Io {
                file: "a.toml".into(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
            },
        };
        assert_eq!(
            Finding::from(&unreadable).to_string(),
            "a.toml: error: cannot read: gone"
        );
    }
}
