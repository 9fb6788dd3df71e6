//! Weapon and sensor definitions, and the definition-id rules every definition file shares.
//!
//! Owns: reading a definition id (namespace prefix, reserved `builtin:`, case folding, the wire's
//! length), reading definition-id references, the weapon subset the server needs now (identity,
//! type, and the `[load]` block that feeds the default loadout's mass and drag), and a sensor
//! index (id, name, type) so entity `sensors` lists can be checked. Must not: model seekers,
//! warheads or sensor lobes (tolerated as written; later issues own them).

use crate::error::ContentError;
use crate::names::{
    BUILTIN_NAMESPACE, NameProblem, check_asset_name, check_display_name, parse_def_id,
};
use crate::toml_read::{At, Src, Tbl, bad_name};
use std::path::{Path, PathBuf};

/// Pounds to kilograms (exact, by definition of the international pound).
pub const LB_TO_KG: f64 = 0.453_592_37;

/// Reads the id a definition declares. An id without a prefix is read in the pack's namespace
/// (with a warning); `builtin:` is refused (except in the builtin layer itself); a foreign namespace warns (it is how a pack overrides
/// another pack's definition, and also the commonest typo); upper case is folded (with a warning).
pub(crate) fn declared_id(
    src: &mut Src<'_>,
    at: &At<String>,
    key: &str,
    namespace: &str,
) -> Result<String, ContentError> {
    let id = reference(src, at, key, namespace)?;
    let ns = id.split(':').next().unwrap_or("");
    if ns == BUILTIN_NAMESPACE && namespace != BUILTIN_NAMESPACE {
        return Err(bad_name(
            src,
            key,
            at.line,
            &at.value,
            NameProblem::Reserved(BUILTIN_NAMESPACE),
        ));
    }
    if ns != namespace {
        src.warn(
            key,
            at.line,
            format!(
                "{id:?} is not in this pack's namespace {namespace:?}; it overrides or adds to another pack's vocabulary (usually a typo)"
            ),
        );
    }
    Ok(id)
}

/// Reads a reference to a definition (a sensor, a weapon). Same folding and prefix rule as
/// [`declared_id`]; `builtin:` references are allowed.
pub(crate) fn reference(
    src: &mut Src<'_>,
    at: &At<String>,
    key: &str,
    namespace: &str,
) -> Result<String, ContentError> {
    match parse_def_id(&at.value) {
        Ok(id) => {
            let full = id.full();
            if full != at.value {
                src.warn(
                    key,
                    at.line,
                    format!(
                        "definition ids are matched case-insensitively; {:?} is read as {full:?}",
                        at.value
                    ),
                );
            }
            Ok(full)
        }
        Err(NameProblem::NotNamespaced) => {
            let prefixed = format!("{namespace}:{}", at.value);
            let id =
                parse_def_id(&prefixed).map_err(|p| bad_name(src, key, at.line, &at.value, p))?;
            let full = id.full();
            src.warn(
                key,
                at.line,
                format!(
                    "{:?} has no namespace; read as {full:?} (write the prefix)",
                    at.value
                ),
            );
            Ok(full)
        }
        Err(p) => Err(bad_name(src, key, at.line, &at.value, p)),
    }
}

/// Reads an optional asset-name field; `""` means none. Names longer than the wire's 63 bytes are
/// refused when `wire` is set (the client could not resolve a truncated name).
pub(crate) fn asset_ref(
    src: &mut Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    wire: bool,
) -> Result<Option<At<String>>, ContentError> {
    let path = t.key_path(key);
    let Some(at) = t.str(src, key)? else {
        return Ok(None);
    };
    if at.value.is_empty() {
        return Ok(None);
    }
    check_asset_name(&at.value).map_err(|p| bad_name(src, &path, at.line, &at.value, p))?;
    if wire && at.value.len() > crate::names::MAX_WIRE_STR {
        return Err(bad_name(
            src,
            &path,
            at.line,
            &at.value,
            NameProblem::TooLong {
                len: at.value.len(),
                max: crate::names::MAX_WIRE_STR,
            },
        ));
    }
    let first = at.value.split('/').next().unwrap_or("");
    if [
        "aircraft", "textures", "audio", "ai", "entities", "weapons", "sensors",
    ]
    .contains(&first)
        && at.value.contains('/')
    {
        src.warn(
            &path,
            at.line,
            format!(
                "asset names do not include the kind's directory; {:?} will be looked up under {first}/{first}/...",
                at.value
            ),
        );
    }
    Ok(Some(at))
}

/// What a weapon is, from `[weapon].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WeaponType {
    /// Guided missile.
    Missile,
    /// Free-fall or guided bomb.
    Bomb,
    /// Unguided rocket (or rocket pod).
    Rocket,
    /// Gun (hitscan; its store is the ammunition).
    Gun,
    /// Inert pod (ECM, targeting).
    Pod,
    /// Drop tank.
    Fuel,
}

impl WeaponType {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "missile" => Self::Missile,
            "bomb" => Self::Bomb,
            "rocket" => Self::Rocket,
            "gun" => Self::Gun,
            "pod" => Self::Pod,
            "fuel" => Self::Fuel,
            _ => return None,
        })
    }
}

/// The parts of a weapon definition the content system and the server need now.
#[derive(Debug, Clone, PartialEq)]
pub struct WeaponDef {
    /// Namespaced id, lowercase.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Type.
    pub kind: WeaponType,
    /// `air-to-air`, `air-to-ground`, ... (free text; unknown values warn).
    pub category: String,
    /// Projectile mesh asset name (`None` = builtin placeholder).
    pub mesh: Option<String>,
    /// Store mass per station, kg (`[load].weight_lb`, converted).
    pub mass_kg: f64,
    /// Parasite-drag increment per station (`[load].drag_factor`).
    pub drag_cd0: f64,
    /// Shots per station (`[load].rounds`, default 1).
    pub rounds: u32,
    /// Source file.
    pub file: PathBuf,
    /// Pack id that provided it.
    pub pack: String,
}

/// Most rounds a station may declare.
pub const MAX_ROUNDS: i64 = 1_000_000;

/// Parses a weapon file.
pub(crate) fn parse_weapon(
    src: &mut Src<'_>,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<WeaponDef, ContentError> {
    let doc = src.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    let mut w = root.req_table(src, "weapon")?;
    let id_at = w.req_str(src, "id")?;
    let id = declared_id(src, &id_at, "weapon.id", namespace)?;
    let name = w.req_str(src, "name")?;
    check_display_name(&name.value)
        .map_err(|p| bad_name(src, "weapon.name", name.line, &name.value, p))?;
    let ty = w.req_str(src, "type")?;
    let kind = WeaponType::parse(&ty.value).ok_or_else(|| {
        src.err(
            "weapon.type",
            ty.line,
            format!(
                "{:?} is not one of missile, bomb, rocket, gun, pod, fuel",
                ty.value
            ),
        )
    })?;
    let category = match w.str(src, "category")? {
        Some(c) => {
            if ![
                "air-to-air",
                "air-to-ground",
                "air-to-sea",
                "anti-radiation",
            ]
            .contains(&c.value.as_str())
            {
                src.warn(
                    "weapon.category",
                    c.line,
                    format!("unknown category {:?}", c.value),
                );
            }
            c.value
        }
        None => String::new(),
    };
    let mesh = asset_ref(src, &mut w, "mesh", true)?.map(|a| a.value);
    w.finish(src);

    let mut load = root.req_table(src, "load")?;
    let weight = load.req_f64(src, "weight_lb")?;
    if weight.value <= 0.0 {
        return Err(src.err(
            "load.weight_lb",
            weight.line,
            format!("must be positive, is {}", weight.value),
        ));
    }
    let drag_cd0 = match load.f64(src, "drag_factor")? {
        Some(d) if !(0.0..1.0).contains(&d.value) => {
            return Err(src.err(
                "load.drag_factor",
                d.line,
                format!("{} is not a parasite-drag increment in [0, 1)", d.value),
            ));
        }
        Some(d) => d.value,
        None => 0.0,
    };
    let rounds = match load.int(src, "rounds")? {
        Some(r) if !(1..=MAX_ROUNDS).contains(&r.value) => {
            return Err(src.err(
                "load.rounds",
                r.line,
                format!("{} is not in 1..={MAX_ROUNDS}", r.value),
            ));
        }
        Some(r) => r.value as u32,
        None => 1,
    };
    load.finish(src);
    // The rest of the weapon vocabulary is documented and owned by later issues: tolerated.
    for k in [
        "seeker",
        "guidance",
        "performance",
        "warhead",
        "countermeasures",
    ] {
        root.tolerate(k);
    }
    root.finish(src);
    Ok(WeaponDef {
        id,
        name: name.value,
        kind,
        category,
        mesh,
        mass_kg: weight.value * LB_TO_KG,
        drag_cd0,
        rounds,
        file: src.file.into(),
        pack: pack.into(),
    })
}

/// A sensor definition's identity (the lobes are tolerated unread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensorRef {
    /// Namespaced id, lowercase.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `radar`, `ir`, `visual`, `laser` (as written).
    pub kind: String,
    /// Source file.
    pub file: PathBuf,
    /// Pack id that provided it.
    pub pack: String,
}

/// Parses a sensor file's `[sensor]` identity. Every other key is tolerated without warnings:
/// the sensor vocabulary belongs to a later issue.
pub(crate) fn parse_sensor(
    src: &mut Src<'_>,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<SensorRef, ContentError> {
    let doc = src.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    let mut s = root.req_table(src, "sensor")?;
    let id_at = s.req_str(src, "id")?;
    let id = declared_id(src, &id_at, "sensor.id", namespace)?;
    let name = s.req_str(src, "name")?;
    check_display_name(&name.value)
        .map_err(|p| bad_name(src, "sensor.name", name.line, &name.value, p))?;
    let kind = s.str(src, "type")?.map(|t| t.value).unwrap_or_default();
    Ok(SensorRef {
        id,
        name: name.value,
        kind,
        file: src.file.into(),
        pack: pack.into(),
    })
}

/// Parses a weapon from text (for tests and tools); `file` is only used in messages.
pub fn parse_weapon_text(
    file: &Path,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<(WeaponDef, Vec<crate::ContentWarning>), ContentError> {
    let mut src = Src::new(file, text);
    let w = parse_weapon(&mut src, text, pack, namespace)?;
    Ok((w, src.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(WeaponDef, Vec<crate::ContentWarning>), ContentError> {
        parse_weapon_text(Path::new("weapons/w.toml"), text, "p", "fl-base")
    }

    #[test]
    fn reads_load_and_converts_units() {
        let (w, warn) = parse(
            "[weapon]\nid = \"fl-base:aim9p\"\nname = \"AIM-9P\"\ntype = \"missile\"\ncategory = \"air-to-air\"\n\
             [seeker]\ntype = \"ir\"\n[performance]\nmax_range_nm = 9.0\n[load]\nweight_lb = 190.0\ndrag_factor = 0.00048\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(w.id, "fl-base:aim9p");
        assert_eq!(w.kind, WeaponType::Missile);
        assert!((w.mass_kg - 86.182_550_3).abs() < 1e-6);
        assert_eq!(w.drag_cd0, 0.00048);
        assert_eq!(w.rounds, 1);
    }

    #[test]
    fn refuses_bad_load_and_reserved_ids() {
        let base = "[weapon]\nid = \"fl-base:x\"\nname = \"X\"\ntype = \"gun\"\n";
        let e = |t: &str| match parse(t) {
            Ok(_) => panic!("accepted {t}"),
            Err(e) => e.to_string(),
        };
        assert!(e(base).contains("`load`: required table is missing"));
        assert!(e(&format!("{base}[load]\nweight_lb = 0\n")).contains("must be positive"));
        assert!(
            e(&format!(
                "{base}[load]\nweight_lb = 1\ndrag_factor = -0.1\n"
            ))
            .contains("drag_factor")
        );
        assert!(e(&format!("{base}[load]\nweight_lb = 1\nrounds = 0\n")).contains("rounds"));
        assert!(e(&format!("{base}[load]\nweight_lb = \"heavy\"\n")).contains("expected a number"));
        let builtin = base.replace("fl-base:x", "builtin:cannon");
        assert!(e(&format!("{builtin}[load]\nweight_lb = 1\n")).contains("reserved"));
        let trav = base.replace("fl-base:x", "fl-base:../../x");
        assert!(e(&format!("{trav}[load]\nweight_lb = 1\n")).contains("traversal"));
        let ty = base.replace("\"gun\"", "\"laser-sword\"");
        assert!(e(&format!("{ty}[load]\nweight_lb = 1\n")).contains("laser-sword"));
    }

    #[test]
    fn unprefixed_foreign_and_uppercase_ids_warn() {
        let (w, warn) = parse("[weapon]\nid = \"Gun\"\nname = \"G\"\ntype = \"gun\"\n[load]\nweight_lb = 1\nmystery = 2\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.id, "fl-base:gun");
        assert_eq!(warn.len(), 2, "{warn:?}");
        assert_eq!(warn[1].key, "load.mystery");
        let (w, warn) = parse(
            "[weapon]\nid = \"other:gun\"\nname = \"G\"\ntype = \"gun\"\n[load]\nweight_lb = 1\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.id, "other:gun");
        assert_eq!(warn.len(), 1);
        assert!(warn[0].message.contains("namespace"));
    }
}
