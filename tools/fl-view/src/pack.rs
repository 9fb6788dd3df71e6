//! From a type id to a model on disk through the content stack: the pack loads as the game
//! loads it (`fl_content::load_stack`), the entity definition names the mesh asset, and the
//! stack's path-safe lookup finds `aircraft/<mesh>.glb` in the highest pack that has it.

use std::path::Path;

use fl_content::{Content, Severity, StackSources};
use fl_render::model::ModelFamily;
pub use fl_scene::models::{ModelSource, render_category};

use crate::error::ViewError;

/// Loads the builtin layer and the pack at `dir`. Findings are logged; the pack not being in
/// the loaded stack afterwards (a broken manifest, a missing dependency) is an error carrying
/// every finding.
pub fn load_pack(dir: &Path) -> Result<Content, ViewError> {
    let load = fl_content::load_stack(&StackSources {
        mods_dirs: Vec::new(),
        pack_dirs: vec![dir.to_path_buf()],
    });
    let lines = || -> String {
        let v: Vec<String> = load
            .findings
            .items
            .iter()
            .map(|f| format!("  {f}"))
            .collect();
        if v.is_empty() {
            "  (no findings)".to_owned()
        } else {
            v.join("\n")
        }
    };
    let Some(content) = load.content.as_ref() else {
        return Err(ViewError::Pack {
            path: dir.to_path_buf(),
            findings: lines(),
        });
    };
    let root = std::fs::canonicalize(dir).ok();
    let loaded = content
        .packs()
        .iter()
        .any(|p| root.as_deref() == Some(p.root.as_path()));
    if !loaded {
        return Err(ViewError::Pack {
            path: dir.to_path_buf(),
            findings: lines(),
        });
    }
    for f in &load.findings.items {
        match f.severity {
            Severity::Error => tracing::warn!("{f} (skipped; the rest of the pack loaded)"),
            Severity::Warning => tracing::warn!("{f}"),
        }
    }
    match load.content {
        Some(c) => Ok(c),
        None => Err(ViewError::Pack {
            path: dir.to_path_buf(),
            findings: "  (nothing loaded)".to_owned(),
        }),
    }
}

/// Finds the type `id` and its mesh file ([`fl_scene::models::resolve_model`]).
pub fn resolve_model(content: &Content, id: &str) -> Result<ModelSource, ViewError> {
    Ok(fl_scene::models::resolve_model(content, id)?)
}

/// Loads the model family of a resolved mesh file ([`fl_scene::models::load_family`]).
pub fn load_family(src: &ModelSource, file: &Path) -> Result<ModelFamily, ViewError> {
    Ok(fl_scene::models::load_family(src, file)?)
}
