//! A minimal pack a modder can start from: a manifest, one entity and its flight model, made from
//! the builtin jet trainer's own files (so it always loads with this build). The tests of both
//! programs and of `validate-pack` make their packs with it; docs/content.md shows the result.
//!
//! Owns: the text of those three files. Must not: write anywhere but the directory it is given.

use crate::builtin::{JET_TRAINER_FLIGHT_MODEL, JET_TRAINER_TOML};
use std::path::Path;

/// The builtin jet's entity definition (the source the example's entity is made from).
const JET_TRAINER_ENTITY: &str = include_str!("../../../assets/builtin/entities/jet-trainer.toml");

/// The pack's files, relative path and text: `manifest.toml`, `entities/<name>.toml` and
/// `aircraft/<name>/<name>.toml`. The type id is `<namespace>:<name>`.
pub fn example_pack_files(pack_id: &str, namespace: &str, name: &str) -> Vec<(String, String)> {
    let manifest = format!(
        "[mod]\nid = \"{pack_id}\"\nname = \"{pack_id}\"\nnamespace = \"{namespace}\"\n\
         version = \"0.1.0\"\nengine-api = \"1.0\"\npriority = 10\ndepends = []\n"
    );
    let entity = JET_TRAINER_ENTITY
        .replace(
            "id                 = \"builtin:jet-trainer\"",
            &format!("id                 = \"{namespace}:{name}\""),
        )
        .replace(
            &format!("flight_model       = \"{JET_TRAINER_FLIGHT_MODEL}\""),
            &format!("flight_model       = \"{name}/{name}\""),
        )
        .replace("Builtin Jet Trainer", &format!("{name} (example)"));
    vec![
        ("manifest.toml".to_owned(), manifest),
        (format!("entities/{name}.toml"), entity),
        (
            format!("aircraft/{name}/{name}.toml"),
            JET_TRAINER_TOML.to_owned(),
        ),
    ]
}

/// Writes [`example_pack_files`] under `dir` (created as needed).
pub fn write_example_pack(
    dir: &Path,
    pack_id: &str,
    namespace: &str,
    name: &str,
) -> std::io::Result<()> {
    for (rel, text) in example_pack_files(pack_id, namespace, name) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Content, LoadOptions};

    #[test]
    fn the_example_pack_loads_and_flies() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_example_pack(dir.path(), "my-pack", "my", "trainer").expect("written");
        let c = Content::load(&LoadOptions {
            pack_dirs: vec![dir.path().to_owned()],
            ..LoadOptions::default()
        })
        .expect("loads");
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
        let t = c.aircraft_type("my:trainer").expect("flies");
        assert_eq!(t.def.flight_model.as_deref(), Some("trainer/trainer"));
    }
}
