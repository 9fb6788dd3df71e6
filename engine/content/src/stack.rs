//! The content stack as both programs load it, and the inventory of pack files this build does
//! not read yet.
//!
//! Owns: [`load_stack`] (builtin layer + mods directories + explicit packs, skipping and
//! reporting a broken pack or definition — the one loading path of `fl-server`, `--check`,
//! `validate-pack` and the client) and [`Content::unused_assets`] (a bounded walk of each pack
//! root counting the files of kinds nothing consumes yet: glTF models, textures, audio,
//! missions, Lua, manuals, terrain, data files, and directories of no known kind). Must not:
//! read file contents, follow symlinks out of a pack, or walk without bounds.

use crate::assets::AssetKind;
use crate::content::{Content, EntityType};
use crate::findings::Findings;
use crate::load::{ErrorPolicy, LoadOptions};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Most directory entries looked at per pack by the inventory.
const MAX_WALK_ENTRIES: usize = 200_000;
/// Deepest directory level walked by the inventory.
const MAX_WALK_DEPTH: usize = 16;

/// Where the stack comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackSources {
    /// Directories whose subdirectories are packs (missing ones are fine).
    pub mods_dirs: Vec<PathBuf>,
    /// Pack directories given directly.
    pub pack_dirs: Vec<PathBuf>,
}

/// A loaded (or failed) stack and everything found on the way.
#[derive(Debug)]
pub struct StackLoad {
    /// The content (`None` when even the builtin layer failed).
    pub content: Option<Content>,
    /// Every error and warning.
    pub findings: Findings,
}

/// Loads the builtin layer and every pack of `sources`. A broken pack or definition is skipped
/// and reported; the rest loads.
pub fn load_stack(sources: &StackSources) -> StackLoad {
    let opts = LoadOptions {
        mods_dirs: sources.mods_dirs.clone(),
        pack_dirs: sources.pack_dirs.clone(),
        on_error: ErrorPolicy::SkipAndReport,
        ..LoadOptions::default()
    };
    match Content::load(&opts) {
        Ok(c) => StackLoad {
            findings: Findings::from_report(c.report()),
            content: Some(c),
        },
        Err(f) => StackLoad {
            findings: Findings::from_failure(&f),
            content: None,
        },
    }
}

/// Files of one kind in one pack that nothing in this build reads yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusedAssets {
    /// The pack id.
    pub pack: String,
    /// What they are (`glTF models`, `missions`, `files in theaters/`, ...).
    pub what: String,
    /// How many.
    pub count: usize,
}

/// The label of a pack file nothing consumes yet, or `None` for files this build reads (or
/// that are documentation: top-level files).
fn unused_label(rel: &Path) -> Option<String> {
    let mut comps = rel.components();
    let top = comps.next()?.as_os_str().to_str()?.to_owned();
    comps.next()?; // a top-level file (manifest, README): not an asset
    if top == "theaters" {
        // Read by fl-terrain (the theaters that place the pack's terrain tiles).
        return None;
    }
    let ext = rel
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let kind = AssetKind::ALL
        .into_iter()
        .filter(|k| k.dir() == top)
        .find(|k| k.extensions().contains(&ext.as_str()));
    let label = match kind {
        // Read: definitions and flight models (tools also read `*.expect.toml`).
        // Drawn by the renderer (models, their textures), played by fl-audio, or the ground
        // fl-terrain builds.
        Some(
            AssetKind::EntityDef
            | AssetKind::WeaponDef
            | AssetKind::SensorDef
            | AssetKind::FlightModel
            | AssetKind::Mesh
            | AssetKind::Texture
            | AssetKind::Audio
            | AssetKind::Terrain
            // Missions are listed, briefed and run; their Lua scripts run in the sandbox.
            | AssetKind::Mission
            | AssetKind::AiScript,
        ) => return None,
        Some(AssetKind::Manual) => "manual pages",
        Some(AssetKind::Config) => "data files",
        None if AssetKind::ALL.iter().any(|k| k.dir() == top) => return None,
        None => {
            return Some(format!(
                "files in {top}/ (not a content kind this build knows)"
            ));
        }
    };
    Some(label.to_owned())
}

/// Walks `root` (no symlinks followed, bounded) and counts files by unused label.
fn walk(root: &Path) -> BTreeMap<String, usize> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut stack: Vec<(PathBuf, usize)> = vec![(root.to_owned(), 0)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for entry in rd.flatten() {
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                tracing::debug!(root = %root.display(), "inventory stopped at {MAX_WALK_ENTRIES} entries");
                return counts;
            }
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            if ft.is_dir() {
                if depth < MAX_WALK_DEPTH {
                    stack.push((path, depth + 1));
                }
            } else if ft.is_file()
                && let Ok(rel) = path.strip_prefix(root)
                && let Some(label) = unused_label(rel)
            {
                *counts.entry(label).or_default() += 1;
            }
        }
    }
    counts
}

impl Content {
    /// Per pack (stack order), the files of kinds nothing in this build reads yet.
    pub fn unused_assets(&self) -> Vec<UnusedAssets> {
        let mut out = Vec::new();
        for p in self.packs() {
            for (what, count) in walk(&p.root) {
                out.push(UnusedAssets {
                    pack: p.id.clone(),
                    what,
                    count,
                });
            }
        }
        out
    }

    /// [`Content::unused_assets`] as one line per pack, for logs and reports.
    pub fn unused_assets_lines(&self) -> Vec<String> {
        let mut by_pack: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let order: Vec<String> = self.packs().into_iter().map(|p| p.id).collect();
        for u in self.unused_assets() {
            by_pack
                .entry(u.pack)
                .or_default()
                .push(format!("{} {}", u.count, u.what));
        }
        order
            .into_iter()
            .filter_map(|id| {
                let parts = by_pack.remove(&id)?;
                Some(format!(
                    "pack {id}: not used by this build yet: {}",
                    parts.join(", ")
                ))
            })
            .collect()
    }
}

/// An aircraft type that cannot be flown: unknown, or a type without a flight model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AircraftChoiceError {
    /// No loaded type has this id.
    #[error("unknown aircraft type {id:?}; the loaded types that fly are: {}", flyable.join(", "))]
    Unknown {
        /// The id asked for.
        id: String,
        /// Every loaded type id that flies, in registry order.
        flyable: Vec<String>,
    },
    /// The type exists but has no flight model.
    #[error("type {id:?} does not fly (it has no flight model); the loaded types that fly are: {}", flyable.join(", "))]
    DoesNotFly {
        /// The id asked for.
        id: String,
        /// Every loaded type id that flies, in registry order.
        flyable: Vec<String>,
    },
}

impl Content {
    /// The ids of every loaded type that flies (has a flight model), in registry order.
    pub fn flyable_type_ids(&self) -> Vec<String> {
        self.types()
            .iter()
            .filter(|t| t.flight_model.is_some())
            .map(|t| t.id().to_owned())
            .collect()
    }

    /// The type `id` names, when it exists and flies: the check behind the client's
    /// `--aircraft` and the server's `[world] player_entity_type`.
    pub fn aircraft_type(&self, id: &str) -> Result<&EntityType, AircraftChoiceError> {
        match self.entity_type(id) {
            Some(t) if t.flight_model.is_some() => Ok(t),
            Some(_) => Err(AircraftChoiceError::DoesNotFly {
                id: id.to_owned(),
                flyable: self.flyable_type_ids(),
            }),
            None => Err(AircraftChoiceError::Unknown {
                id: id.to_owned(),
                flyable: self.flyable_type_ids(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aircraft_choice_lists_what_flies() {
        let c = Content::builtin().expect("builtin");
        assert_eq!(
            c.aircraft_type("builtin:jet-trainer")
                .map(|t| t.id().to_owned()),
            Ok("builtin:jet-trainer".to_owned())
        );
        let e = c.aircraft_type("fl-base:nope").map(|_| ());
        assert_eq!(
            e.map_err(|e| e.to_string()).expect_err("unknown"),
            "unknown aircraft type \"fl-base:nope\"; the loaded types that fly are: builtin:jet-trainer"
        );
        assert!(matches!(
            c.aircraft_type("builtin:debug-entity"),
            Err(AircraftChoiceError::DoesNotFly { .. })
        ));
    }

    #[test]
    fn labels_of_pack_files() {
        let l = |p: &str| unused_label(Path::new(p));
        assert_eq!(l("manifest.toml"), None);
        assert_eq!(l("entities/f5e.toml"), None);
        assert_eq!(l("aircraft/f5e/f5e.toml"), None);
        assert_eq!(l("aircraft/f5e/f5e.glb"), None);
        assert_eq!(l("terrain/tile.flt"), None);
        assert_eq!(l("missions/a.yaml"), None);
        assert_eq!(l("ai/fighter.lua"), None);
        assert_eq!(l("theaters/nttr.toml"), None);
        assert_eq!(
            l("frontlines/nttr.toml").as_deref(),
            Some("files in frontlines/ (not a content kind this build knows)")
        );
        // A known directory's stray file (e.g. a source note) is not an asset.
        assert_eq!(l("aircraft/f5e/SOURCES.md"), None);
    }
}
