//! Checking a read mission against the loaded [`Content`] and loading one by id: types, sensors,
//! scripts, loadouts. Must not: change the mission or read anything but its file and the content.

use super::yaml::Reader;
use super::*;
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
}

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

impl Content {
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
            Some(mission) if valid => Ok(CheckedMission {
                id: id.to_owned(),
                pack: pack_id.to_owned(),
                path,
                mission,
                warnings: check.findings,
            }),
            _ => Err(MissionRefused {
                id: id.to_owned(),
                findings: check.findings,
            }),
        }
    }
}
