//! Writes throw-away packs into a temporary `mods/` directory for the hostile-input tests.
#![allow(dead_code)]

use fl_content::{Content, ErrorPolicy, LoadFailure, LoadOptions};
use std::path::{Path, PathBuf};

/// A temporary mods directory.
pub struct Mods {
    pub tmp: tempfile::TempDir,
}

impl Mods {
    pub fn new() -> Self {
        Self {
            tmp: tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}")),
        }
    }

    /// The mods directory.
    pub fn dir(&self) -> PathBuf {
        self.tmp.path().join("mods")
    }

    /// A directory beside `mods/` (for files that packs must not reach).
    pub fn outside(&self) -> PathBuf {
        let p = self.tmp.path().join("outside");
        std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("{e}"));
        p
    }

    /// Writes `mods/<rel>`, creating directories.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.dir().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("{e}"));
        p
    }

    /// Writes a pack directory with a manifest.
    pub fn pack(&self, dir: &str, id: &str, priority: i32, depends: &[&str]) -> PathBuf {
        self.write(
            &format!("{dir}/manifest.toml"),
            &manifest(id, priority, depends),
        );
        self.dir().join(dir)
    }

    pub fn load(&self, on_error: ErrorPolicy) -> Result<Content, LoadFailure> {
        Content::load(&LoadOptions {
            mods_dirs: vec![self.dir()],
            on_error,
            ..Default::default()
        })
    }

    /// Loads with [`ErrorPolicy::Fail`] and returns the failure (panics when it loads).
    pub fn fail(&self) -> LoadFailure {
        match self.load(ErrorPolicy::Fail) {
            Ok(c) => panic!(
                "loaded, with types {:?}",
                c.types().iter().map(|t| t.id()).collect::<Vec<_>>()
            ),
            Err(e) => e,
        }
    }

    /// Loads with [`ErrorPolicy::Fail`], panicking on failure.
    pub fn ok(&self) -> Content {
        self.load(ErrorPolicy::Fail)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

pub fn manifest(id: &str, priority: i32, depends: &[&str]) -> String {
    let deps: Vec<String> = depends.iter().map(|d| format!("{d:?}")).collect();
    format!(
        "[mod]\nname = \"Pack {id}\"\nid = \"{id}\"\nversion = \"1.0.0\"\nengine-api = \"1.0\"\npriority = {priority}\ndepends = [{}]\n",
        deps.join(", ")
    )
}

/// The smallest weapon that fires: a missile with a reach, a warhead and a load.
pub fn weapon(id: &str, lb: f64, drag: f64) -> String {
    format!(
        "[weapon]\nid = \"{id}\"\nname = \"W {id}\"\ntype = \"missile\"\n[performance]\nmax_range_nm = 5\n\
         [warhead]\nblast_radius_ft = 20\ndamage = 50\n[load]\nweight_lb = {lb:?}\ndrag_factor = {drag:?}\n"
    )
}

/// An entity definition; `extra` is appended inside `[entity]` (further tables may follow it).
pub fn entity(id: &str, name: &str, extra: &str) -> String {
    format!(
        "[entity]\nid = \"{id}\"\nname = \"{name}\"\ncategory = \"air_vehicle\"\nmax_hp = 100\n{extra}\n"
    )
}

/// The canonical form of a path (what error messages carry).
pub fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
