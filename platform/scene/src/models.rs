//! From an entity type to a model on disk through the content stack: the entity definition names
//! the mesh asset, the stack's path-safe lookup finds the file in the highest pack that has it,
//! and the family (base, LODs, shadow, cockpit) loads confined to that pack. Shared by fl-view and
//! the game client. Owns no GPU state: uploading is the caller's.

use std::path::{Path, PathBuf};

use fl_content::{AssetKind, Content, ResolvedAsset};
use fl_render::Category;
use fl_render::model::texture::ImageCache;
use fl_render::model::{ModelError, ModelFamily, load_gltf_cached, pack_body_from_mesh};

/// Why a type's model could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum ModelLoadError {
    /// No loaded type has this id.
    #[error("unknown model id {id:?} (packs loaded: {packs}); the loaded types are: {known}")]
    UnknownType {
        /// The id asked for.
        id: String,
        /// The packs searched.
        packs: String,
        /// Every loaded type id.
        known: String,
    },
    /// The type's mesh asset could not be found or is not a file inside its pack.
    #[error("model {id}: mesh asset {mesh:?} (entity definition of {id}): {reason}")]
    Mesh {
        /// The type id.
        id: String,
        /// The mesh asset name.
        mesh: String,
        /// Why (not found in any pack, escapes its pack, ...).
        reason: String,
    },
    /// The glTF file could not be read (the message names the file).
    #[error("model {id}: {source}")]
    Model {
        /// The type id.
        id: String,
        /// The loader's error, naming the file.
        #[source]
        source: ModelError,
    },
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
pub fn resolve_model(content: &Content, id: &str) -> Result<ModelSource, ModelLoadError> {
    let Some(t) = content.entity_type(id) else {
        let packs: Vec<String> = content
            .packs()
            .into_iter()
            .map(|p| format!("{} ({})", p.id, p.root.display()))
            .collect();
        let known: Vec<&str> = content.types().iter().map(|t| t.id()).collect();
        return Err(ModelLoadError::UnknownType {
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
                return Err(ModelLoadError::Mesh {
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
pub fn load_family(src: &ModelSource, file: &Path) -> Result<ModelFamily, ModelLoadError> {
    let wrap = |source| ModelLoadError::Model {
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
                cockpit: None,
                camera_anchor: None,
                body_from_mesh: pack_body_from_mesh(),
            })
        }
    }
}
