//! From a type id to a model on disk through the content stack: the pack loads as the game
//! loads it (`fl_content::load_stack`), the entity definition names the mesh asset, and the
//! stack's path-safe lookup finds `aircraft/<mesh>.glb` in the highest pack that has it.

use std::path::{Path, PathBuf};

use fl_content::{AssetKind, Content, ResolvedAsset, Severity, StackSources};
use fl_render::Category;
use fl_render::model::texture::ImageCache;
use fl_render::model::{ModelFamily, load_gltf_cached, pack_body_from_mesh};

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

/// A type's model as found on disk.
#[derive(Debug, Clone)]
pub struct ModelSource {
    /// The type id (lower case, as registered).
    pub id: String,
    /// The type's display name.
    pub name: String,
    /// The category, for the silhouette drawn when there is no mesh.
    pub category: Category,
    /// The mesh asset name and its resolved file, `None` for a type without a mesh (builtin
    /// types): drawn as its category's silhouette.
    pub mesh: Option<(String, PathBuf)>,
    /// The root of the pack the mesh comes from: every file the model reads must stay inside.
    pub pack_root: Option<PathBuf>,
}

/// Maps a content category onto the renderer's silhouettes.
pub fn render_category(c: fl_content::Category) -> Category {
    use fl_content::Category as C;
    match c {
        C::AirVehicle | C::Player => Category::Aircraft,
        C::GroundVehicle => Category::GroundVehicle,
        C::NavalVehicle => Category::Ship,
        C::Projectile | C::Effect => Category::Missile,
        C::Structure => Category::Structure,
    }
}

/// Finds the type `id` and its mesh file.
pub fn resolve_model(content: &Content, id: &str) -> Result<ModelSource, ViewError> {
    let Some(t) = content.entity_type(id) else {
        let packs: Vec<String> = content
            .packs()
            .into_iter()
            .map(|p| format!("{} ({})", p.id, p.root.display()))
            .collect();
        let known: Vec<&str> = content.types().iter().map(|t| t.id()).collect();
        return Err(ViewError::UnknownModel {
            id: id.to_owned(),
            packs: if packs.is_empty() {
                "none".to_owned()
            } else {
                packs.join(", ")
            },
            known: known.join(", "),
        });
    };
    let mut pack_root = None;
    let mesh = match &t.def.mesh {
        None => None,
        Some(name) => match content.resolve_asset(AssetKind::Mesh, name) {
            Ok(ResolvedAsset::File { pack, path }) => {
                pack_root = content
                    .packs()
                    .into_iter()
                    .find(|p| p.id == pack)
                    .map(|p| p.root);
                Some((name.clone(), path))
            }
            Ok(ResolvedAsset::Builtin(_)) => None,
            Err(e) => {
                return Err(ViewError::Mesh {
                    id: t.id().to_owned(),
                    mesh: name.clone(),
                    reason: e.to_string(),
                });
            }
        },
    };
    Ok(ModelSource {
        id: t.id().to_owned(),
        name: t.def.name.clone(),
        category: render_category(t.def.category),
        mesh,
        pack_root,
    })
}

/// Loads the model family of a resolved mesh file: `<stem>.glb` with its `_lodN`, `_shadow` and
/// `_cockpit` siblings; a `.gltf` file alone.
pub fn load_family(src: &ModelSource, file: &Path) -> Result<ModelFamily, ViewError> {
    let wrap = |source| ViewError::Model {
        id: src.id.clone(),
        source,
    };
    let stem = file.file_stem().and_then(|s| s.to_str());
    let dir = file.parent();
    match (dir, stem, file.extension().and_then(|e| e.to_str())) {
        (Some(dir), Some(stem), Some("glb")) => match &src.pack_root {
            Some(root) => ModelFamily::load_within(root, dir, stem),
            None => ModelFamily::load(dir, stem),
        }
        .map_err(wrap),
        _ => {
            let mut scope = match &src.pack_root {
                Some(root) => ImageCache::within(root),
                None => ImageCache::default(),
            };
            let base = load_gltf_cached(file, &mut scope).map_err(wrap)?;
            Ok(ModelFamily {
                warnings: base.warnings.clone(),
                base,
                lods: Vec::new(),
                shadow: None,
                camera_anchor: None,
                body_from_mesh: pack_body_from_mesh(),
            })
        }
    }
}
