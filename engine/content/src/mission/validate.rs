//! Checking a read mission against the loaded [`Content`] and loading one by id: types, sensors,
//! scripts, loadouts. Must not: change the mission or read anything but its file and the content.

use super::yaml::Reader;
use super::*;
use crate::error::ContentError;
// ---------------------------------------------------------------------------------------------
// Validation against the content.

impl Mission {
    /// Checks the mission against the loaded content: every object's type exists (ids match
    /// case-insensitively, as the registry does), with its sensors and its own `ai_script`;
    /// every `lua <script>` is `ai/<script>.lua` of the pack `pack` (the mission's own pack;
    /// `None` = any loaded pack); every loadout store is a known weapon its station allows, on
    /// a station the type has. Findings name `file`, the object's line and the key.
    pub fn validate(&self, content: &Content, pack: Option<&str>, file: &Path) -> Vec<Finding> {
        let mut r = Reader {
            file,
            findings: Vec::new(),
            errors: 0,
        };
        let script_exists = |name: &str| -> bool {
            content.packs.iter().any(|p| {
                pack.is_none_or(|id| p.manifest.id == id)
                    && matches!(p.root.find(AssetKind::AiScript, name), Ok(Some(_)))
            })
        };
        let pack_label = pack.unwrap_or("any loaded pack");
        for (i, o) in self.objects.iter().enumerate() {
            let k = |s: &str| format!("objects[{i}].{s}");
            if let Some(AiSpec::Lua { script }) = &o.ai
                && (crate::names::check_asset_name(script).is_err() || !script_exists(script))
            {
                r.error(
                    o.line,
                    &k("ai"),
                    format!(
                        "script {script:?} does not exist (no ai/{script}.lua in {pack_label})"
                    ),
                );
            }
            let Some(t) = content.entity_type(&o.type_id) else {
                r.error(
                    o.line,
                    &k("type"),
                    format!("type {:?} does not exist in the loaded content", o.type_id),
                );
                continue;
            };
            for s in &t.def.sensors {
                if content.sensor(s).is_none() {
                    r.error(
                        o.line,
                        &k("type"),
                        format!(
                            "type {:?} names sensor {s:?}, which does not exist",
                            o.type_id
                        ),
                    );
                }
            }
            // The type's own script flies the object whenever no `ai:` and no pilot does (a
            // world object, a player slot nobody holds): a mission only runs complete types.
            if let Some(s) = &t.def.ai_script {
                let found = crate::names::check_asset_name(s).is_ok()
                    && content
                        .packs
                        .iter()
                        .any(|p| matches!(p.root.find(AssetKind::AiScript, s), Ok(Some(_))));
                if !found && o.ai.is_none() {
                    r.error(
                        o.line,
                        &k("type"),
                        format!(
                            "type {:?} names script {s:?}, which does not exist (no ai/{s}.lua in the loaded packs)",
                            o.type_id
                        ),
                    );
                }
            }
            if let Some(l) = &o.loadout {
                if l.len() > t.def.hardpoints.len() {
                    r.error(
                        o.line,
                        &k("loadout"),
                        format!(
                            "{} stations given; type {:?} has {}",
                            l.len(),
                            o.type_id,
                            t.def.hardpoints.len()
                        ),
                    );
                }
                for (j, (store, hp)) in l.iter().zip(&t.def.hardpoints).enumerate() {
                    let Some(w) = store else { continue };
                    if content.weapon(w).is_none() {
                        r.error(
                            o.line,
                            &format!("{}[{j}]", k("loadout")),
                            format!("weapon {w:?} does not exist in the loaded content"),
                        );
                    } else if !hp.allowed.iter().any(|a| a.eq_ignore_ascii_case(w)) {
                        r.error(
                            o.line,
                            &format!("{}[{j}]", k("loadout")),
                            format!(
                                "station {} of {:?} does not take {w:?} (allowed: {})",
                                hp.slot,
                                o.type_id,
                                hp.allowed.join(", ")
                            ),
                        );
                    }
                }
            }
        }
        r.findings
    }
}

/// A mission that read and validated: what the server runs.
#[derive(Debug, Clone)]
pub struct CheckedMission {
    /// `<pack id>:<file stem>`.
    pub id: String,
    /// The pack it came from.
    pub pack: String,
    /// Its file.
    pub path: PathBuf,
    /// The mission.
    pub mission: Mission,
    /// Warnings (keys ignored and the like); never errors.
    pub warnings: Vec<Finding>,
    /// The Lua the run needs, read at load ([`Content::mission_scripts`]): pack id → that pack's
    /// whole `ai/` folder (script name → source; the whole folder, because `require` reaches
    /// any script of it). Holds the mission's own pack (`ai: "lua <name>"`) and the packs that
    /// hold the default `ai_script` of a type an object without `ai:` uses. Empty when the
    /// mission runs no Lua.
    pub scripts: BTreeMap<String, BTreeMap<String, String>>,
}

/// The largest script [`Content::mission_scripts`] reads, bytes (fl-script's own bound).
pub const MAX_SCRIPT_BYTES: u64 = 256 * 1024;
/// The most scripts read from one pack's `ai/` folder.
pub const MAX_SCRIPTS_PER_PACK: usize = 512;
/// The most script text one mission carries, all packs together, bytes.
pub const MAX_MISSION_SCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// Why a mission was refused: every finding, errors first in file order.
#[derive(Debug, Clone, thiserror::Error)]
#[error("mission {id} refused: {}", summary(findings))]
pub struct MissionRefused {
    /// The id asked for.
    pub id: String,
    /// Errors and warnings.
    pub findings: Vec<Finding>,
}

fn summary(findings: &[Finding]) -> String {
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(ToString::to_string)
        .collect();
    match errors.as_slice() {
        [] => "no mission".into(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
    }
}

/// Why a mission's scripts could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MissionScriptError {
    /// Reading the folder or a file failed (escape, size, I/O).
    #[error("pack {pack}: {source}")]
    Content {
        /// The pack.
        pack: String,
        /// Why.
        source: Box<ContentError>,
    },
    /// A script that is not UTF-8 text (bytecode included).
    #[error("pack {pack}: ai/{name}.lua is not UTF-8 Lua source")]
    NotText {
        /// The pack.
        pack: String,
        /// The script.
        name: String,
    },
    /// Over [`MAX_SCRIPTS_PER_PACK`] scripts or [`MAX_MISSION_SCRIPT_BYTES`] in all.
    #[error("pack {pack}: the ai/ folder holds too much ({what})")]
    TooMuch {
        /// The pack.
        pack: String,
        /// Which bound.
        what: String,
    },
}

impl Content {
    /// The scripts `mission` (of pack `pack`) needs, read bounded through each pack's root:
    /// the `ai/` folder of `pack` when an object names `lua <script>`, and for each non-player
    /// object without `ai:` whose type has an `ai_script`, the `ai/` folder of the pack that
    /// holds it — the type's own pack when it has the script, else the highest-priority pack
    /// that does (as the registry resolves the asset). A default script no pack holds is
    /// skipped (validation reports it). Deterministic: sorted maps, no wall clock.
    pub fn mission_scripts(
        &self,
        mission: &Mission,
        pack: &str,
    ) -> Result<BTreeMap<String, BTreeMap<String, String>>, MissionScriptError> {
        let mut wanted: BTreeSet<String> = BTreeSet::new();
        for o in mission.objects.iter().filter(|o| !o.player) {
            match &o.ai {
                Some(AiSpec::Lua { .. }) => {
                    wanted.insert(pack.to_owned());
                }
                Some(AiSpec::Builtin { .. }) => {}
                None => {
                    let Some(t) = self.entity_type(&o.type_id) else {
                        continue;
                    };
                    let Some(s) = &t.def.ai_script else { continue };
                    if crate::names::check_asset_name(s).is_err() {
                        continue;
                    }
                    let holds = |p: &crate::content::Pack| {
                        matches!(p.root.find(AssetKind::AiScript, s), Ok(Some(_)))
                    };
                    let own = match &t.source {
                        crate::content::TypeSource::Pack(id) => {
                            self.packs.iter().find(|p| &p.manifest.id == id)
                        }
                        crate::content::TypeSource::Builtin => None,
                    };
                    let holder = own
                        .filter(|p| holds(p))
                        .or_else(|| self.packs.iter().find(|p| holds(p)));
                    if let Some(p) = holder {
                        wanted.insert(p.manifest.id.clone());
                    }
                }
            }
        }
        let mut total: u64 = 0;
        let mut out = BTreeMap::new();
        for id in wanted {
            let Some(p) = self.packs.iter().find(|p| p.manifest.id == id) else {
                continue;
            };
            let err = |source: ContentError| MissionScriptError::Content {
                pack: id.clone(),
                source: Box::new(source),
            };
            let listing = p.root.list(AssetKind::AiScript.dir(), "lua").map_err(err)?;
            if listing.files.len() > MAX_SCRIPTS_PER_PACK {
                return Err(MissionScriptError::TooMuch {
                    pack: id,
                    what: format!("more than {MAX_SCRIPTS_PER_PACK} scripts"),
                });
            }
            let mut folder = BTreeMap::new();
            for (stem, rel) in listing.files {
                let (_, text) = p
                    .root
                    .read_text(&rel, AssetKind::AiScript, MAX_SCRIPT_BYTES)
                    .map_err(|e| match e {
                        ContentError::Syntax { .. } => MissionScriptError::NotText {
                            pack: id.clone(),
                            name: stem.clone(),
                        },
                        other => err(other),
                    })?;
                total = total.saturating_add(text.len() as u64);
                if total > MAX_MISSION_SCRIPT_BYTES {
                    return Err(MissionScriptError::TooMuch {
                        pack: id,
                        what: format!("over {MAX_MISSION_SCRIPT_BYTES} bytes of scripts"),
                    });
                }
                folder.insert(stem, text);
            }
            out.insert(id, folder);
        }
        Ok(out)
    }

    /// Reads and validates one mission file of the pack `pack` (its id): structure, then the
    /// content checks of [`Mission::validate`].
    pub fn check_mission_file(&self, pack: Option<&str>, path: &Path) -> MissionCheck {
        let mut check = read_mission_file(path);
        if let Some(m) = &check.mission {
            check.findings.extend(m.validate(self, pack, path));
        }
        check
    }

    /// Loads the mission `<pack id>:<file stem>` through its pack (bounded, path-safe), reads
    /// and validates it. The server's entry point.
    pub fn load_mission(&self, id: &str) -> Result<CheckedMission, MissionRefused> {
        let refuse = |message: String| MissionRefused {
            id: id.to_owned(),
            findings: vec![Finding {
                severity: Severity::Error,
                file: PathBuf::new(),
                line: 0,
                key: String::new(),
                message,
            }],
        };
        let Some((pack_id, stem)) = id.split_once(':') else {
            return Err(refuse(format!(
                "{id:?} is not a mission id (write <pack id>:<file stem>)"
            )));
        };
        let Some(p) = self.packs.iter().find(|p| p.manifest.id == pack_id) else {
            return Err(refuse(format!("no loaded pack has the id {pack_id:?}")));
        };
        let path = match p.root.find(AssetKind::Mission, stem) {
            Ok(Some(path)) => path,
            Ok(None) => {
                return Err(refuse(format!(
                    "pack {pack_id} has no missions/{stem}.yaml"
                )));
            }
            Err(e) => return Err(refuse(e.to_string())),
        };
        let limit = MAX_MISSION_BYTES.min(AssetKind::Mission.default_limit());
        let bytes = p
            .root
            .read(&path, AssetKind::Mission, limit)
            .map_err(|e| refuse(e.to_string()))?;
        let mut check = parse_mission_bytes(&bytes, &path);
        if let Some(m) = &check.mission {
            check
                .findings
                .extend(m.validate(self, Some(pack_id), &path));
        }
        let valid = check.is_valid();
        match check.mission {
            Some(mission) if valid => {
                let scripts = self
                    .mission_scripts(&mission, pack_id)
                    .map_err(|e| refuse(e.to_string()))?;
                Ok(CheckedMission {
                    id: id.to_owned(),
                    pack: pack_id.to_owned(),
                    path,
                    mission,
                    warnings: check.findings,
                    scripts,
                })
            }
            _ => Err(MissionRefused {
                id: id.to_owned(),
                findings: check.findings,
            }),
        }
    }
}
