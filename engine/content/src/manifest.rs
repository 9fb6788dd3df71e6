//! `manifest.toml`: what makes a directory a pack.
//!
//! Owns: the `[mod]` schema (name, id, namespace, version, engine-api, priority, depends) and
//! `[mod.trust]`, their validation (safe names, supported engine API major, integer priority), and
//! unknown-key warnings. Must not: look at other packs (duplicates, dependencies and ordering are
//! the stack's business) or read the file itself (callers pass text read through `PackRoot`).

use crate::error::{ContentError, ContentWarning};
use crate::names::{check_namespace, check_pack_id, check_pack_name};
use crate::toml_read::{Src, Tbl, bad_name};
use std::path::{Path, PathBuf};

/// The engine API major version this engine implements. Only the major is compared.
pub const ENGINE_API_MAJOR: u32 = 1;
/// Most entries in `depends`.
pub const MAX_DEPENDS: usize = 64;
/// Longest `version` string, characters.
pub const MAX_VERSION: usize = 64;

/// The trust tier a pack declares. Signatures are parsed and recorded, never verified (yet): a
/// declared tier is a claim, not a proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum TrustLevel {
    /// No `[mod.trust]`, or an unknown `signed-by`.
    #[default]
    Unsigned,
    /// `signed-by = "community"`.
    Community,
    /// `signed-by = "maintainer"`.
    Maintainer,
}

/// A parsed, validated manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The manifest file.
    pub file: PathBuf,
    /// Human-readable pack name.
    pub name: String,
    /// Pack id (unique across the stack; what `depends` names).
    pub id: String,
    /// Prefix of the definition ids this pack declares (defaults to `id`).
    pub namespace: String,
    /// Pack version, free-form.
    pub version: String,
    /// Declared engine API, e.g. `"1.0"`.
    pub engine_api: String,
    /// Load order: higher wins when two packs provide the same asset or definition id.
    pub priority: i32,
    /// Pack ids this pack needs.
    pub depends: Vec<String>,
    /// Declared trust tier.
    pub trust: TrustLevel,
    /// Declared signature (not verified).
    pub signature: Option<String>,
}

/// Parses a manifest's text. Warnings (unknown keys, an unknown `signed-by`, duplicate
/// dependencies) are returned beside it.
pub fn parse_manifest(
    file: &Path,
    text: &str,
) -> Result<(Manifest, Vec<ContentWarning>), ContentError> {
    let mut src = Src::new(file, text);
    let doc = src.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    let mut m = root.req_table(&src, "mod")?;

    let name = m.req_str(&src, "name")?;
    check_pack_name(&name.value)
        .map_err(|p| bad_name(&src, "mod.name", name.line, &name.value, p))?;

    let id = m.req_str(&src, "id")?;
    check_pack_id(&id.value).map_err(|p| bad_name(&src, "mod.id", id.line, &id.value, p))?;

    let namespace = match m.str(&src, "namespace")? {
        Some(ns) => {
            check_namespace(&ns.value)
                .map_err(|p| bad_name(&src, "mod.namespace", ns.line, &ns.value, p))?;
            ns.value
        }
        None => id.value.clone(),
    };

    let version = m.req_str(&src, "version")?;
    if version.value.trim().is_empty() {
        return Err(src.err("mod.version", version.line, "must not be empty"));
    }
    if version.value.chars().count() > MAX_VERSION || version.value.chars().any(char::is_control) {
        return Err(src.err(
            "mod.version",
            version.line,
            format!("must be at most {MAX_VERSION} characters without control characters"),
        ));
    }

    let api = m.req_str(&src, "engine-api")?;
    let major = api.value.split('.').next().unwrap_or("");
    let major: u32 = major.parse().map_err(|_| {
        src.err(
            "mod.engine-api",
            api.line,
            format!("{:?} is not a version like \"1.0\"", api.value),
        )
    })?;
    if major != ENGINE_API_MAJOR {
        return Err(ContentError::EngineApi {
            file: file.into(),
            line: api.line,
            found: api.value,
            supported: ENGINE_API_MAJOR,
        });
    }

    let priority = match m.int(&src, "priority")? {
        Some(p) => i32::try_from(p.value).map_err(|_| {
            src.err(
                "mod.priority",
                p.line,
                format!("{} is outside the 32-bit integer range", p.value),
            )
        })?,
        None => return Err(src.err("mod.priority", m.line(), "required key is missing")),
    };

    let mut depends: Vec<String> = Vec::new();
    if let Some(deps) = m.str_array(&src, "depends", MAX_DEPENDS)? {
        for (i, d) in deps.value.into_iter().enumerate() {
            let key = format!("mod.depends[{i}]");
            check_pack_id(&d.value).map_err(|p| bad_name(&src, &key, d.line, &d.value, p))?;
            if d.value == id.value {
                return Err(src.err(&key, d.line, "a pack cannot depend on itself"));
            }
            if depends.contains(&d.value) {
                src.warn(&key, d.line, format!("{:?} is listed twice", d.value));
                continue;
            }
            depends.push(d.value);
        }
    }

    let mut trust = TrustLevel::Unsigned;
    let mut signature = None;
    if let Some(mut t) = m.table(&src, "trust")? {
        if let Some(by) = t.str(&src, "signed-by")? {
            trust = match by.value.as_str() {
                "community" => TrustLevel::Community,
                "maintainer" => TrustLevel::Maintainer,
                other => {
                    src.warn(
                        "mod.trust.signed-by",
                        by.line,
                        format!("unknown value {other:?} (expected \"community\" or \"maintainer\"); the pack is treated as unsigned"),
                    );
                    TrustLevel::Unsigned
                }
            };
        }
        if let Some(sig) = t.str(&src, "signature")?
            && !sig.value.is_empty()
        {
            signature = Some(sig.value);
        }
        t.finish(&mut src);
    }
    m.finish(&mut src);
    root.finish(&mut src);

    Ok((
        Manifest {
            file: file.into(),
            name: name.value,
            id: id.value,
            namespace,
            version: version.value,
            engine_api: api.value,
            priority,
            depends,
            trust,
            signature,
        },
        src.warnings,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(Manifest, Vec<ContentWarning>), ContentError> {
        parse_manifest(Path::new("mods/x/manifest.toml"), text)
    }

    const GOOD: &str = r#"
[mod]
name       = "Example Content Pack"
id         = "example-content"
version    = "1.0.0"
engine-api = "1.3"
priority   = 100
depends    = ["fl-base-pack"]

[mod.trust]
signed-by = "community"
signature = "abc"
"#;

    #[test]
    fn reads_every_key() {
        let (m, w) = parse(GOOD).unwrap_or_else(|e| panic!("{e}"));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(m.name, "Example Content Pack");
        assert_eq!(m.id, "example-content");
        assert_eq!(
            m.namespace, "example-content",
            "namespace defaults to the id"
        );
        assert_eq!(m.version, "1.0.0");
        assert_eq!(m.priority, 100);
        assert_eq!(m.depends, ["fl-base-pack"]);
        assert_eq!(m.trust, TrustLevel::Community);
        assert_eq!(m.signature.as_deref(), Some("abc"));
    }

    fn err_of(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    fn with(key_line: &str) -> String {
        let base = "[mod]\nname = \"N\"\nid = \"p\"\nversion = \"1\"\nengine-api = \"1.0\"\npriority = 0\n";
        // Replace the line for the same key, or append.
        let k = key_line.split('=').next().unwrap_or("").trim();
        let mut out = String::new();
        let mut replaced = false;
        for l in base.lines() {
            if l.split('=').next().unwrap_or("").trim() == k {
                out.push_str(key_line);
                replaced = true;
            } else {
                out.push_str(l);
            }
            out.push('\n');
        }
        if !replaced {
            out.push_str(key_line);
            out.push('\n');
        }
        out
    }

    #[test]
    fn refuses_unsafe_ids_and_names_naming_file_key_and_line() {
        let e = err_of(&with("id = \"../../etc\""));
        assert!(e.starts_with("mods/x/manifest.toml:3: `mod.id`"), "{e}");
        assert!(e.contains("traversal"), "{e}");
        assert!(err_of(&with("id = \"a/b\"")).contains("separator"));
        assert!(err_of(&with("id = \"CON\"")).contains("device name"));
        assert!(err_of(&with("id = \".git\"")).contains("starts with a dot"));
        assert!(err_of(&with("id = \"a\\u0000b\"")).contains("control character"));
        assert!(err_of(&with("id = \"builtin\"")).contains("reserved"));
        assert!(err_of(&with(&format!("id = \"{}\"", "x".repeat(65)))).contains("at most 64"));
        assert!(err_of(&with("name = \"..\"")).contains("`mod.name`"));
        assert!(err_of(&with("name = \"a\\\\b\"")).contains("separator"));
        assert!(err_of(&with("namespace = \"fl/base\"")).contains("`mod.namespace`"));
        assert!(err_of(&with("namespace = \"builtin\"")).contains("reserved"));
        assert!(err_of(&with("depends = [\"ok\", \"../x\"]")).contains("`mod.depends[1]`"));
        assert!(err_of(&with("depends = [\"p\"]")).contains("itself"));
    }

    #[test]
    fn refuses_missing_and_mistyped_keys() {
        assert!(err_of("[other]\nx = 1\n").contains("`mod`: required table is missing"));
        let no_prio = "[mod]\nname = \"N\"\nid = \"p\"\nversion = \"1\"\nengine-api = \"1.0\"\n";
        assert!(err_of(no_prio).contains("`mod.priority`: required key is missing"));
        assert!(err_of(&with("priority = 1.5")).contains("expected an integer"));
        assert!(err_of(&with("priority = 99999999999")).contains("32-bit"));
        assert!(err_of(&with("version = \"\"")).contains("must not be empty"));
        assert!(err_of(&with("engine-api = \"banana\"")).contains("not a version"));
        let e = err_of(&with("engine-api = \"2.0\""));
        assert!(e.contains("API major 1"), "{e}");
        assert!(err_of(&with("depends = \"fl-base\"")).contains("expected an array"));
        assert!(err_of("[mod\nname=").contains("TOML syntax error"));
    }

    #[test]
    fn unknown_keys_and_signers_warn() {
        let (m, w) = parse(&with("colour = \"red\"")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.id, "p");
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].key, "mod.colour");
        assert_eq!(w[0].line, 7);
        let text = format!(
            "{}[mod.trust]\nsigned-by = \"me\"\n[extra]\nk = 1\n",
            with("priority = 3")
        );
        let (m, w) = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.trust, TrustLevel::Unsigned);
        let keys: Vec<_> = w.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(keys, ["mod.trust.signed-by", "extra"]);
        let (m, w) = parse(&with("depends = [\"a\", \"a\"]")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.depends, ["a"]);
        assert_eq!(w.len(), 1);
    }
}
