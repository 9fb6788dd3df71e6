//! Weapon definitions (`weapons/*.toml`): everything a weapon file says, in SI.
//!
//! Owns: `[weapon]` (identity, type, category, mesh), `[seeker]` / `[guidance]` (employment
//! doctrine and the seeker head's sensor id), `[performance]`, `[warhead]`, `[countermeasures]`,
//! `[load]`, the gun parameters and their defaults (the C++ original's, see `docs/weapons.md`),
//! the conversion of the pack's aviation units into SI and the bounds of every number. Must not:
//! resolve the seeker's sensor id (that is `load`, which sees the whole sensor index), or fly,
//! fuze, hit or score anything (combat owns the behaviour; this is its data).

use crate::defs::{
    DEG_TO_RAD, FT_TO_M, KT_TO_MPS, LB_TO_KG, NM_TO_M, Span, asset_ref, bounded, declared_id,
    reference, req_bounded,
};
use crate::error::ContentError;
use crate::names::check_display_name;
use crate::toml_read::{Src, Tbl, bad_name};
use std::path::{Path, PathBuf};

/// Most rounds a station may declare.
pub const MAX_ROUNDS: i64 = 1_000_000;

/// Rounds in a gun's magazine when its def writes no `rounds`: the C++ original's parser default
/// for guns (`WeaponDefParser.cpp`, `WeaponLoad::rounds` in `WeaponDef.h`). Other stores get 1.
pub const DEFAULT_GUN_ROUNDS: u32 = 500;
/// Rate of fire when a gun writes no `rate_of_fire_rpm` (or 0): the original's `kDefaultGunRpm`
/// (`engine/weapon/FireControl.h`).
pub const DEFAULT_GUN_RATE_OF_FIRE_RPM: f64 = 1200.0;
/// Muzzle velocity when a gun writes no `max_speed_kts` (or 0), m/s: the original's default for
/// its gun-employment controller (`guns` behaviour, `AiControllerFactory.cpp`). The original (and
/// the pack) write a gun's muzzle velocity as its `max_speed_kts`; its HUD reads it so.
pub const DEFAULT_GUN_MUZZLE_VELOCITY_MPS: f64 = 1030.0;
/// Dispersion (cone half-angle, rad) when a gun writes no `dispersion_mrad`: 0, because the
/// original resolves every round as an exact ray and has no dispersion field at all.
pub const DEFAULT_GUN_DISPERSION_RAD: f64 = 0.0;

/// What a weapon is, from `[weapon].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WeaponType {
    /// Guided missile.
    Missile,
    /// Free-fall or guided bomb.
    Bomb,
    /// Unguided rocket (or rocket pod).
    Rocket,
    /// Gun (its store is the ammunition).
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

    /// An inert store (pod, drop tank): carried for its mass and drag, never fired.
    pub fn is_inert(self) -> bool {
        matches!(self, Self::Pod | Self::Fuel)
    }
}

/// How a guided weapon finds its target (`[seeker].type` or `[guidance].type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SeekerType {
    /// `active-radar`: supported by the launcher until pitbull, then its own radar.
    ActiveRadar,
    /// `semi-active-radar`: rides the launcher's illumination (an STT lock) all the way.
    SemiActiveRadar,
    /// `ir` (or `infrared`).
    Infrared,
    /// `laser`: someone holds a spot.
    Laser,
    /// `gps`: flies to coordinates.
    Gps,
    /// `anti-radiation`: homes on an emitter.
    AntiRadiation,
    /// `unguided`.
    Unguided,
}

impl SeekerType {
    /// The spelling and, when the file wrote a variant (`infrared`, underscores), the canonical one.
    fn parse(s: &str) -> Option<Self> {
        Some(match s.replace('_', "-").as_str() {
            "active-radar" => Self::ActiveRadar,
            "semi-active-radar" => Self::SemiActiveRadar,
            "ir" | "infrared" => Self::Infrared,
            "laser" => Self::Laser,
            "gps" => Self::Gps,
            "anti-radiation" => Self::AntiRadiation,
            "unguided" => Self::Unguided,
            _ => return None,
        })
    }

    /// The sensor type a seeker head of this kind must be (`None`: no head to check).
    pub fn sensor_type(self) -> Option<crate::sensor::SensorType> {
        use crate::sensor::SensorType;
        match self {
            Self::ActiveRadar | Self::SemiActiveRadar | Self::AntiRadiation => {
                Some(SensorType::Radar)
            }
            Self::Infrared => Some(SensorType::Ir),
            Self::Laser => Some(SensorType::Laser),
            Self::Gps | Self::Unguided => None,
        }
    }

    /// Whether a head (a sensor def) is how this kind sees at all: a missing `sensor_id` on one of
    /// these leaves the weapon with nothing to look through.
    fn needs_head(self) -> bool {
        matches!(
            self,
            Self::ActiveRadar | Self::SemiActiveRadar | Self::Infrared | Self::AntiRadiation
        )
    }
}

/// Which table the guidance was written in (both read into [`Seeker`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuidanceTable {
    /// `[seeker]`: the weapon looks itself.
    Seeker,
    /// `[guidance]`: someone else looks (a designator, coordinates).
    Guidance,
}

/// `[seeker]` / `[guidance]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Seeker {
    /// How it finds its target.
    pub kind: SeekerType,
    /// Which table it was written in.
    pub table: GuidanceTable,
    /// The seeker head's sensor definition (namespaced, lowercase). After a load it is always a
    /// sensor of the stack: an unknown id warns and is cleared (the weapon then has no head).
    pub sensor_id: Option<String>,
    /// `false`: the launcher must keep supporting the shot (SARH: an STT lock through flight).
    pub fire_and_forget: bool,
    /// Laser/GPS: someone must hold the spot.
    pub requires_designator: bool,
    /// Active radar: range-to-go at which its own radar goes active (and emits), m; 0 = off the
    /// rail (`pitbull_nm`).
    pub pitbull_range_m: f64,
    /// Climb bias flown while range-to-go exceeds `loft_range_m`, rad; 0 = no loft.
    pub loft_bias_rad: f64,
    /// Where the loft ends and pure proportional navigation begins, m (range-to-go).
    pub loft_range_m: f64,
}

/// How a weapon states its reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// `max_range_nm`: a powered (or gun) weapon's maximum engagement range.
    Powered,
    /// `standoff_range_ft`: a dropped weapon's glide range from release.
    Standoff,
}

/// `[performance]`, in SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Performance {
    /// Maximum range, m (from `max_range_nm` or `standoff_range_ft`, see `reach`).
    pub max_range_m: f64,
    /// Which key stated it.
    pub reach: Reach,
    /// Minimum arming/engagement range, m (`min_range_nm`, default 0; never above the max).
    pub min_range_m: f64,
    /// Terminal/maximum speed, m/s (`max_speed_kts`, default 0). For a gun it is the muzzle
    /// velocity (see [`GunParams::muzzle_velocity_mps`]).
    pub max_speed_mps: f64,
    /// Motor burn time, s (`motor_burn_time_s`, default 0 = unpowered).
    pub motor_burn_s: f64,
    /// Manoeuvre limit, g (`max_g`, default 0 = does not manoeuvre).
    pub max_g: f64,
    /// Circular error probable, m (`CEP_ft`, default 0 = unspecified). The original scales a
    /// rocket salvo's dispersion by it.
    pub cep_m: f64,
}

/// `[warhead]`, in SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Warhead {
    /// Lethal radius, m (`blast_radius_ft`).
    pub blast_radius_m: f64,
    /// Damage at the centre of the blast (hit points; per round for a gun).
    pub damage: f64,
    /// Nuclear yield, kt (`nuclear = true` with `yield_kt`); `None` for a conventional warhead.
    pub nuclear_yield_kt: Option<f64>,
}

/// `[countermeasures]`: fractions in [0, 1]; 0 = immune (the default), 1 = always defeated.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Susceptibility {
    /// Defeated by chaff (radar seekers).
    pub chaff: f64,
    /// Defeated by flares (IR seekers).
    pub flare: f64,
    /// Defeated by a beam/notch manoeuvre (doppler seekers).
    pub notch: f64,
}

/// Which gun parameters came from the defaults rather than the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GunDefaulted {
    /// `rate_of_fire_rpm` absent or 0.
    pub rate_of_fire: bool,
    /// `max_speed_kts` absent or 0.
    pub muzzle_velocity: bool,
    /// `dispersion_mrad` absent.
    pub dispersion: bool,
    /// `[load].rounds` absent (or 0).
    pub rounds: bool,
}

/// A gun's firing parameters (only on `type = "gun"`), defaults applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GunParams {
    /// Cyclic rate, rounds per minute (`[performance].rate_of_fire_rpm`).
    pub rate_of_fire_rpm: f64,
    /// Muzzle velocity, m/s (`[performance].max_speed_kts`).
    pub muzzle_velocity_mps: f64,
    /// Dispersion, cone half-angle in rad (`[performance].dispersion_mrad`, our key).
    pub dispersion_rad: f64,
    /// What was defaulted.
    pub defaulted: GunDefaulted,
}

impl GunParams {
    /// Seconds between rounds.
    pub fn interval_s(&self) -> f64 {
        60.0 / self.rate_of_fire_rpm
    }
}

/// Where reference keys were written, for messages after resolution.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeaponLines {
    /// `sensor_id` of the seeker.
    pub seeker_sensor: usize,
}

/// A weapon definition, every number in SI.
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
    /// Store mass per station, kg (`[load].weight_lb`). A gun's is its ammunition.
    pub mass_kg: f64,
    /// Parasite-drag increment per station (`[load].drag_factor`).
    pub drag_cd0: f64,
    /// Shots per station (`[load].rounds`; default [`DEFAULT_GUN_ROUNDS`] for a gun, else 1).
    pub rounds: u32,
    /// Guidance (`None` = unguided).
    pub seeker: Option<Seeker>,
    /// `[performance]`: always `Some` for a weapon that fires; an inert store may omit it.
    pub performance: Option<Performance>,
    /// `[warhead]`: always `Some` for a weapon that fires; an inert store may omit it.
    pub warhead: Option<Warhead>,
    /// `[countermeasures]` (all 0 when absent: immune).
    pub countermeasures: Susceptibility,
    /// Gun parameters, `Some` exactly when `kind` is [`WeaponType::Gun`].
    pub gun: Option<GunParams>,
    /// Source file.
    pub file: PathBuf,
    /// Pack id that provided it.
    pub pack: String,
    /// Lines of reference keys.
    pub lines: WeaponLines,
}

fn seeker(
    src: &mut Src<'_>,
    mut t: Tbl<'_>,
    table: GuidanceTable,
    namespace: &str,
    lines: &mut WeaponLines,
) -> Result<Seeker, ContentError> {
    let ty = t.req_str(src, "type")?;
    let ty_path = t.key_path("type");
    let kind = SeekerType::parse(&ty.value).ok_or_else(|| {
        src.err(
            &ty_path,
            ty.line,
            format!(
                "{:?} is not one of active-radar, semi-active-radar, ir, laser, gps, anti-radiation, unguided",
                ty.value
            ),
        )
    })?;
    if ty.value.contains('_') {
        src.warn(
            &ty_path,
            ty.line,
            format!(
                "{:?} is read as {:?} (the format spells it with hyphens)",
                ty.value,
                ty.value.replace('_', "-")
            ),
        );
    }
    let sensor_path = t.key_path("sensor_id");
    let sensor_id = match t.str(src, "sensor_id")? {
        Some(s) if s.value.is_empty() => None,
        Some(s) => {
            lines.seeker_sensor = s.line;
            Some(reference(src, &s, &sensor_path, namespace)?)
        }
        None => None,
    };
    if sensor_id.is_none() && kind.needs_head() && table == GuidanceTable::Seeker {
        let line = t.line();
        src.warn(
            &sensor_path,
            line,
            "no seeker head: name the sensor def it looks through (`sensor_id`), or the weapon flies unguided",
        );
    }
    // The pre-#583 ad-hoc lobe of the original: deprecated there, not read here. Say so rather
    // than warn "unknown key": the fix is to move the lobe into a sensor def.
    for legacy in ["fov_deg", "acquisition_nm"] {
        if t.keys().iter().any(|k| k == legacy) {
            t.tolerate(legacy);
            let line = t.key_line(src, legacy);
            src.warn(
                &t.key_path(legacy),
                line,
                "the deprecated ad-hoc seeker lobe is not read; put the lobe in a sensor def and name it with `sensor_id`",
            );
        }
    }
    if t.keys().iter().any(|k| k == "pitbull_range_m") {
        let line = t.key_line(src, "pitbull_range_m");
        return Err(src.err(
            &t.key_path("pitbull_range_m"),
            line,
            "there is no such key: the pitbull range is `pitbull_nm`, in nautical miles (range-to-go)",
        ));
    }
    let fire_and_forget = t.bool(src, "fire_and_forget")?.is_some_and(|b| b.value);
    let requires_designator = t.bool(src, "requires_designator")?.is_some_and(|b| b.value);
    let pitbull = bounded(src, &mut t, "pitbull_nm", Span::closed(0.0, 1000.0), "nm")?;
    if let Some(p) = &pitbull
        && p.value > 0.0
        && kind != SeekerType::ActiveRadar
    {
        return Err(src.err(
            &t.key_path("pitbull_nm"),
            p.line,
            "only an active-radar seeker goes pitbull (going active is what pitbull means)",
        ));
    }
    let loft_bias = bounded(src, &mut t, "loft_bias_deg", Span::closed(0.0, 45.0), "deg")?;
    let loft_range = bounded(
        src,
        &mut t,
        "loft_range_nm",
        Span::closed(0.0, 1000.0),
        "nm",
    )?;
    let bias = loft_bias.as_ref().map_or(0.0, |a| a.value);
    let range = loft_range.as_ref().map_or(0.0, |a| a.value);
    if (bias > 0.0) != (range > 0.0) {
        let line = loft_bias
            .as_ref()
            .or(loft_range.as_ref())
            .map_or(t.line(), |a| a.line);
        return Err(src.err(
            t.path(),
            line,
            "loft_bias_deg and loft_range_nm come as a pair (how steep, and until when)",
        ));
    }
    t.finish(src);
    Ok(Seeker {
        kind,
        table,
        sensor_id,
        fire_and_forget,
        requires_designator,
        pitbull_range_m: pitbull.map_or(0.0, |p| p.value * NM_TO_M),
        loft_bias_rad: bias * DEG_TO_RAD,
        loft_range_m: range * NM_TO_M,
    })
}

/// What `[performance]` says, plus the gun keys it carries.
struct PerfRead {
    perf: Performance,
    rate_of_fire_rpm: Option<f64>,
    dispersion_mrad: Option<f64>,
}

fn performance(
    src: &mut Src<'_>,
    mut t: Tbl<'_>,
    kind: WeaponType,
) -> Result<PerfRead, ContentError> {
    let powered = bounded(src, &mut t, "max_range_nm", Span::above(0.0, 1000.0), "nm")?;
    let standoff = bounded(
        src,
        &mut t,
        "standoff_range_ft",
        Span::above(0.0, 1_000_000.0),
        "ft",
    )?;
    let (max_range_m, reach, range_line) = match (powered, standoff) {
        (Some(p), None) => (p.value * NM_TO_M, Reach::Powered, p.line),
        (None, Some(s)) => (s.value * FT_TO_M, Reach::Standoff, s.line),
        (Some(_), Some(s)) => {
            return Err(src.err(
                &t.key_path("standoff_range_ft"),
                s.line,
                "max_range_nm and standoff_range_ft are exclusive: a weapon has one range",
            ));
        }
        (None, None) => {
            return Err(src.err(
                t.path(),
                t.line(),
                "one of max_range_nm (powered weapons, guns) or standoff_range_ft (dropped weapons) is required",
            ));
        }
    };
    let min = bounded(src, &mut t, "min_range_nm", Span::closed(0.0, 1000.0), "nm")?;
    let min_range_m = min.as_ref().map_or(0.0, |m| m.value * NM_TO_M);
    if min_range_m > max_range_m {
        return Err(src.err(
            &t.key_path("min_range_nm"),
            min.map_or(range_line, |m| m.line),
            format!("the minimum range ({min_range_m} m) exceeds the maximum ({max_range_m} m)"),
        ));
    }
    let num = |src: &Src<'_>, t: &mut Tbl<'_>, key: &str, span: Span, unit: &str| {
        bounded(src, t, key, span, unit).map(|a| a.map(|a| a.value))
    };
    let max_speed_kts = num(
        src,
        &mut t,
        "max_speed_kts",
        Span::closed(0.0, 20_000.0),
        "kts",
    )?;
    let motor_burn_s = num(
        src,
        &mut t,
        "motor_burn_time_s",
        Span::closed(0.0, 600.0),
        "s",
    )?;
    let max_g = num(src, &mut t, "max_g", Span::closed(0.0, 100.0), "g")?;
    let cep_ft = num(src, &mut t, "CEP_ft", Span::closed(0.0, 100_000.0), "ft")?;
    let gun_key = |src: &mut Src<'_>, t: &mut Tbl<'_>, key: &str, span: Span, unit: &str| {
        let at = bounded(src, t, key, span, unit)?;
        if let Some(a) = &at
            && kind != WeaponType::Gun
        {
            src.warn(&t.key_path(key), a.line, "only a gun reads this (ignored)");
            return Ok(None);
        }
        Ok::<_, ContentError>(at.map(|a| a.value))
    };
    let rate_of_fire_rpm = gun_key(
        src,
        &mut t,
        "rate_of_fire_rpm",
        Span::closed(0.0, 30_000.0),
        "rpm",
    )?;
    let dispersion_mrad = gun_key(
        src,
        &mut t,
        "dispersion_mrad",
        Span::closed(0.0, 100.0),
        "mrad",
    )?;
    t.finish(src);
    Ok(PerfRead {
        perf: Performance {
            max_range_m,
            reach,
            min_range_m,
            max_speed_mps: max_speed_kts.unwrap_or(0.0) * KT_TO_MPS,
            motor_burn_s: motor_burn_s.unwrap_or(0.0),
            max_g: max_g.unwrap_or(0.0),
            cep_m: cep_ft.unwrap_or(0.0) * FT_TO_M,
        },
        rate_of_fire_rpm,
        dispersion_mrad,
    })
}

fn warhead(src: &mut Src<'_>, mut t: Tbl<'_>) -> Result<Warhead, ContentError> {
    let radius = req_bounded(
        src,
        &mut t,
        "blast_radius_ft",
        Span::closed(0.0, 50_000.0),
        "ft",
    )?;
    let damage = req_bounded(src, &mut t, "damage", Span::closed(0.0, 1e6), "")?;
    let nuclear = t.bool(src, "nuclear")?;
    let yield_kt = bounded(src, &mut t, "yield_kt", Span::above(0.0, 100_000.0), "kt")?;
    let nuclear_yield_kt = match (nuclear.as_ref().is_some_and(|n| n.value), yield_kt) {
        (true, Some(y)) => Some(y.value),
        (false, None) => None,
        (true, None) => {
            return Err(src.err(
                &t.key_path("nuclear"),
                nuclear.map_or(t.line(), |n| n.line),
                "nuclear = true needs a yield_kt > 0 (the effect radii scale from it)",
            ));
        }
        (false, Some(y)) => {
            return Err(src.err(
                &t.key_path("yield_kt"),
                y.line,
                "a yield without nuclear = true; say which you mean",
            ));
        }
    };
    t.finish(src);
    Ok(Warhead {
        blast_radius_m: radius.value * FT_TO_M,
        damage: damage.value,
        nuclear_yield_kt,
    })
}

fn susceptibility(src: &mut Src<'_>, mut t: Tbl<'_>) -> Result<Susceptibility, ContentError> {
    let mut read = |key: &str| {
        bounded(src, &mut t, key, Span::closed(0.0, 1.0), "").map(|a| a.map_or(0.0, |a| a.value))
    };
    let s = Susceptibility {
        chaff: read("chaff_susceptibility")?,
        flare: read("flare_susceptibility")?,
        notch: read("notch_susceptibility")?,
    };
    t.finish(src);
    Ok(s)
}

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

    let mut lines = WeaponLines::default();
    let seeker_table = root.table(src, "seeker")?;
    let guidance_table = root.table(src, "guidance")?;
    let seeker = match (seeker_table, guidance_table) {
        (Some(_), Some(g)) => {
            return Err(src.err(
                "guidance",
                g.line(),
                "[seeker] and [guidance] are exclusive: a weapon has one way of finding its target",
            ));
        }
        (Some(t), None) => Some(seeker(
            src,
            t,
            GuidanceTable::Seeker,
            namespace,
            &mut lines,
        )?),
        (None, Some(t)) => Some(seeker(
            src,
            t,
            GuidanceTable::Guidance,
            namespace,
            &mut lines,
        )?),
        (None, None) => None,
    };

    // An inert store has no reach and no warhead; everything that fires needs both.
    let required = |src: &Src<'_>, what: &str| {
        src.err(
            what,
            1,
            format!(
                "required table is missing (only an inert pod or fuel store may omit [{what}])"
            ),
        )
    };
    let perf = match root.table(src, "performance")? {
        Some(t) => Some(performance(src, t, kind)?),
        None if kind.is_inert() => None,
        None => return Err(required(src, "performance")),
    };
    let warhead = match root.table(src, "warhead")? {
        Some(t) => Some(warhead(src, t)?),
        None if kind.is_inert() => None,
        None => return Err(required(src, "warhead")),
    };
    let countermeasures = match root.table(src, "countermeasures")? {
        Some(t) => susceptibility(src, t)?,
        None => Susceptibility::default(),
    };

    let mut load = root.req_table(src, "load")?;
    let weight = req_bounded(src, &mut load, "weight_lb", Span::above(0.0, 1e6), "lb")?;
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
    let default_rounds = if kind == WeaponType::Gun {
        DEFAULT_GUN_ROUNDS
    } else {
        1
    };
    let (rounds, rounds_defaulted) = match load.int(src, "rounds")? {
        Some(r) if r.value == 0 => {
            // The original reads 0 as "the engine default"; say what that is.
            src.warn(
                "load.rounds",
                r.line,
                format!("0 means the default ({default_rounds} for this store); omit the key"),
            );
            (default_rounds, true)
        }
        Some(r) if !(1..=MAX_ROUNDS).contains(&r.value) => {
            return Err(src.err(
                "load.rounds",
                r.line,
                format!("{} is not in 1..={MAX_ROUNDS}", r.value),
            ));
        }
        Some(r) => (r.value as u32, false),
        None => (default_rounds, true),
    };
    load.finish(src);
    root.finish(src);

    let gun = (kind == WeaponType::Gun).then(|| {
        let rate = perf
            .as_ref()
            .and_then(|p| p.rate_of_fire_rpm)
            .filter(|r| *r > 0.0);
        let muzzle = perf
            .as_ref()
            .map(|p| p.perf.max_speed_mps)
            .filter(|v| *v > 0.0);
        let dispersion = perf.as_ref().and_then(|p| p.dispersion_mrad);
        GunParams {
            rate_of_fire_rpm: rate.unwrap_or(DEFAULT_GUN_RATE_OF_FIRE_RPM),
            muzzle_velocity_mps: muzzle.unwrap_or(DEFAULT_GUN_MUZZLE_VELOCITY_MPS),
            dispersion_rad: dispersion.map_or(DEFAULT_GUN_DISPERSION_RAD, |d| d * 1e-3),
            defaulted: GunDefaulted {
                rate_of_fire: rate.is_none(),
                muzzle_velocity: muzzle.is_none(),
                dispersion: dispersion.is_none(),
                rounds: rounds_defaulted,
            },
        }
    });
    Ok(WeaponDef {
        id,
        name: name.value,
        kind,
        category,
        mesh,
        mass_kg: weight.value * LB_TO_KG,
        drag_cd0,
        rounds,
        seeker,
        performance: perf.map(|p| p.perf),
        warhead,
        countermeasures,
        gun,
        file: src.file.into(),
        pack: pack.into(),
        lines,
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

    fn ok(text: &str) -> (WeaponDef, Vec<crate::ContentWarning>) {
        parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok((w, _)) => panic!("accepted {w:?}\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    fn keys(w: &[crate::ContentWarning]) -> Vec<&str> {
        w.iter().map(|w| w.key.as_str()).collect()
    }

    /// A full missile, one key per line (so a key's line is its index + 1).
    const MISSILE: &str = "[weapon]\nid = \"fl-base:aim9p\"\nname = \"AIM-9P\"\ntype = \"missile\"\ncategory = \"air-to-air\"\n\
        [seeker]\ntype = \"ir\"\nsensor_id = \"fl-base:aim9p_seeker\"\nfire_and_forget = true\n\
        [performance]\nmax_range_nm = 9.0\nmin_range_nm = 0.3\nmax_speed_kts = 1500.0\nmotor_burn_time_s = 5.0\nmax_g = 20.0\n\
        [warhead]\nblast_radius_ft = 30.0\ndamage = 60.0\n\
        [countermeasures]\nflare_susceptibility = 0.6\nchaff_susceptibility = 0.0\nnotch_susceptibility = 0.25\n\
        [load]\nweight_lb = 190.0\ndrag_factor = 0.00048\n";

    /// A gun with nothing but what the pack's M39A2 writes.
    const GUN: &str = "[weapon]\nid = \"fl-base:g\"\nname = \"G\"\ntype = \"gun\"\n\
        [performance]\nmax_range_nm = 0.6\n[warhead]\nblast_radius_ft = 3.0\ndamage = 8.0\n[load]\nweight_lb = 300.0\n";

    /// The 1-based line of the first `key =` in `text`.
    fn line_of(text: &str, key: &str) -> usize {
        let prefix = format!("{key} =");
        text.lines()
            .position(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("{key} not in text"))
            + 1
    }

    /// `text` with `key`'s value replaced (the key must be present).
    fn set(text: &str, key: &str, value: &str) -> String {
        let prefix = format!("{key} =");
        text.lines()
            .map(|l| {
                if l.starts_with(&prefix) {
                    format!("{key} = {value}")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    #[test]
    fn reads_a_missile_in_si() {
        let (w, warn) = ok(MISSILE);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(
            (w.id.as_str(), w.kind),
            ("fl-base:aim9p", WeaponType::Missile)
        );
        assert!((w.mass_kg - 86.182_550_3).abs() < 1e-6);
        assert_eq!((w.drag_cd0, w.rounds), (0.00048, 1));
        assert!(w.gun.is_none());
        let s = w.seeker.as_ref().unwrap_or_else(|| panic!("no seeker"));
        assert_eq!(s.kind, SeekerType::Infrared);
        assert_eq!(s.table, GuidanceTable::Seeker);
        assert_eq!(s.sensor_id.as_deref(), Some("fl-base:aim9p_seeker"));
        assert!(s.fire_and_forget && !s.requires_designator);
        assert_eq!(
            (s.pitbull_range_m, s.loft_bias_rad, s.loft_range_m),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(w.lines.seeker_sensor, line_of(MISSILE, "sensor_id"));
        let p = w.performance.unwrap_or_else(|| panic!("no performance"));
        assert_eq!(p.reach, Reach::Powered);
        assert!((p.max_range_m - 9.0 * 1852.0).abs() < 1e-9);
        assert!((p.min_range_m - 0.3 * 1852.0).abs() < 1e-9);
        assert!((p.max_speed_mps - 1500.0 * 1852.0 / 3600.0).abs() < 1e-9);
        assert_eq!((p.motor_burn_s, p.max_g, p.cep_m), (5.0, 20.0, 0.0));
        let h = w.warhead.unwrap_or_else(|| panic!("no warhead"));
        assert!((h.blast_radius_m - 30.0 * 0.3048).abs() < 1e-12);
        assert_eq!((h.damage, h.nuclear_yield_kt), (60.0, None));
        assert_eq!(
            w.countermeasures,
            Susceptibility {
                chaff: 0.0,
                flare: 0.6,
                notch: 0.25
            }
        );
    }

    #[test]
    fn a_gun_that_omits_them_gets_the_originals_defaults() {
        let (w, warn) = ok(GUN);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(w.rounds, DEFAULT_GUN_ROUNDS);
        assert_eq!(DEFAULT_GUN_ROUNDS, 500);
        let g = w.gun.unwrap_or_else(|| panic!("a gun has gun parameters"));
        assert_eq!(g.rate_of_fire_rpm, 1200.0);
        assert_eq!(g.muzzle_velocity_mps, 1030.0);
        assert_eq!(g.dispersion_rad, 0.0);
        assert_eq!(
            g.defaulted,
            GunDefaulted {
                rate_of_fire: true,
                muzzle_velocity: true,
                dispersion: true,
                rounds: true
            }
        );
        assert!((g.interval_s() - 0.05).abs() < 1e-12);
        // 0 is the original's spelling of "the default" for the rate and the speed.
        let zeros = GUN.replace(
            "max_range_nm = 0.6\n",
            "max_range_nm = 0.6\nmax_speed_kts = 0\nrate_of_fire_rpm = 0\n",
        );
        let (z, warn) = ok(&zeros);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(z.gun, w.gun);
    }

    #[test]
    fn a_gun_that_writes_them_gets_its_own() {
        let text = GUN.replace(
            "max_range_nm = 0.6\n",
            "max_range_nm = 0.6\nmax_speed_kts = 2000.0\nrate_of_fire_rpm = 6000.0\ndispersion_mrad = 4.5\n",
        ) + "rounds = 511\n";
        let (w, warn) = ok(&text);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(w.rounds, 511);
        let g = w.gun.unwrap_or_else(|| panic!("gun"));
        assert_eq!(g.rate_of_fire_rpm, 6000.0);
        assert!((g.muzzle_velocity_mps - 2000.0 * 1852.0 / 3600.0).abs() < 1e-9);
        assert!((g.dispersion_rad - 0.0045).abs() < 1e-15);
        assert_eq!(g.defaulted, GunDefaulted::default());
        assert!((g.interval_s() - 0.01).abs() < 1e-12);
    }

    #[test]
    fn rounds_zero_means_the_default_and_says_so() {
        let (g, warn) = ok(&format!("{GUN}rounds = 0\n"));
        assert_eq!(g.rounds, 500);
        assert_eq!(keys(&warn), ["load.rounds"]);
        assert!(warn[0].message.contains("500"), "{}", warn[0]);
        assert!(g.gun.is_some_and(|g| g.defaulted.rounds));
        let (m, warn) = ok(&format!("{MISSILE}rounds = 0\n"));
        assert_eq!(m.rounds, 1);
        assert_eq!(keys(&warn), ["load.rounds"]);
    }

    #[test]
    fn gun_keys_on_other_stores_warn_and_are_ignored() {
        let text = MISSILE.replace(
            "max_g = 20.0\n",
            "max_g = 20.0\nrate_of_fire_rpm = 100\ndispersion_mrad = 2\n",
        );
        let (w, warn) = ok(&text);
        assert!(w.gun.is_none());
        assert_eq!(
            keys(&warn),
            [
                "performance.rate_of_fire_rpm",
                "performance.dispersion_mrad"
            ]
        );
    }

    #[test]
    fn absurd_numbers_are_errors_naming_file_line_and_key() {
        let gun = GUN.replace(
            "max_range_nm = 0.6\n",
            "max_range_nm = 0.6\nrate_of_fire_rpm = 1000\ndispersion_mrad = 1\n",
        ) + "rounds = 10\n";
        let ir = MISSILE.replace(
            "fire_and_forget = true\n",
            "fire_and_forget = true\nloft_bias_deg = 10\nloft_range_nm = 5\n",
        );
        let cases: &[(&str, &str, &str, &str)] = &[
            (MISSILE, "max_range_nm", "-1", "performance.max_range_nm"),
            (MISSILE, "max_range_nm", "0", "performance.max_range_nm"),
            (MISSILE, "max_range_nm", "1e9", "performance.max_range_nm"),
            (MISSILE, "max_range_nm", "nan", "performance.max_range_nm"),
            (MISSILE, "max_range_nm", "inf", "performance.max_range_nm"),
            (
                MISSILE,
                "max_range_nm",
                "\"far\"",
                "performance.max_range_nm",
            ),
            (MISSILE, "min_range_nm", "-0.1", "performance.min_range_nm"),
            (MISSILE, "min_range_nm", "10", "performance.min_range_nm"),
            (MISSILE, "max_speed_kts", "-5", "performance.max_speed_kts"),
            (MISSILE, "max_speed_kts", "1e7", "performance.max_speed_kts"),
            (
                MISSILE,
                "motor_burn_time_s",
                "-1",
                "performance.motor_burn_time_s",
            ),
            (
                MISSILE,
                "motor_burn_time_s",
                "1e6",
                "performance.motor_burn_time_s",
            ),
            (MISSILE, "max_g", "-1", "performance.max_g"),
            (MISSILE, "max_g", "1000", "performance.max_g"),
            (MISSILE, "blast_radius_ft", "-1", "warhead.blast_radius_ft"),
            (
                MISSILE,
                "blast_radius_ft",
                "1e12",
                "warhead.blast_radius_ft",
            ),
            (MISSILE, "damage", "-nan", "warhead.damage"),
            (MISSILE, "damage", "-3", "warhead.damage"),
            (
                MISSILE,
                "flare_susceptibility",
                "1.5",
                "countermeasures.flare_susceptibility",
            ),
            (
                MISSILE,
                "chaff_susceptibility",
                "-0.1",
                "countermeasures.chaff_susceptibility",
            ),
            (
                MISSILE,
                "notch_susceptibility",
                "2",
                "countermeasures.notch_susceptibility",
            ),
            (MISSILE, "weight_lb", "0", "load.weight_lb"),
            (MISSILE, "weight_lb", "1e12", "load.weight_lb"),
            (MISSILE, "drag_factor", "-0.1", "load.drag_factor"),
            (MISSILE, "fire_and_forget", "1", "seeker.fire_and_forget"),
            (&ir, "loft_bias_deg", "90", "seeker.loft_bias_deg"),
            (&ir, "loft_range_nm", "-5", "seeker.loft_range_nm"),
            (
                &gun,
                "rate_of_fire_rpm",
                "-1",
                "performance.rate_of_fire_rpm",
            ),
            (
                &gun,
                "rate_of_fire_rpm",
                "1e9",
                "performance.rate_of_fire_rpm",
            ),
            (&gun, "dispersion_mrad", "-1", "performance.dispersion_mrad"),
            (
                &gun,
                "dispersion_mrad",
                "1000",
                "performance.dispersion_mrad",
            ),
            (&gun, "rounds", "-1", "load.rounds"),
            (&gun, "rounds", "2000000", "load.rounds"),
            (&gun, "rounds", "1.5", "load.rounds"),
        ];
        for (base, key, value, path) in cases {
            let text = set(base, key, value);
            let e = err(&text);
            let want = format!("weapons/w.toml:{}: `{path}`", line_of(&text, key));
            assert!(e.starts_with(&want), "{key} = {value}: {e}\nwanted {want}");
        }
    }

    #[test]
    fn reach_is_one_key_and_inert_stores_need_no_performance() {
        let both = MISSILE.replace("max_g = 20.0\n", "max_g = 20.0\nstandoff_range_ft = 100\n");
        assert!(err(&both).contains("exclusive"));
        let neither = set(MISSILE, "max_range_nm", "1").replace("max_range_nm = 1\n", "");
        assert!(
            err(&neither).contains("one of max_range_nm"),
            "{}",
            err(&neither)
        );
        let bomb = "[weapon]\nid = \"fl-base:b\"\nname = \"B\"\ntype = \"bomb\"\n\
            [performance]\nstandoff_range_ft = 2000.0\nCEP_ft = 150.0\n[warhead]\nblast_radius_ft = 120\ndamage = 200\n[load]\nweight_lb = 500\n";
        let (b, warn) = ok(bomb);
        assert!(warn.is_empty(), "{warn:?}");
        let p = b.performance.unwrap_or_else(|| panic!("perf"));
        assert_eq!(p.reach, Reach::Standoff);
        assert!((p.max_range_m - 609.6).abs() < 1e-9);
        assert!((p.cep_m - 45.72).abs() < 1e-9);
        assert!(b.seeker.is_none() && b.gun.is_none());
        // Everything that fires needs a reach and a warhead; a pod or a tank needs neither.
        assert!(
            err(&GUN.replace("[performance]\nmax_range_nm = 0.6\n", "")).contains("`performance`")
        );
        assert!(
            err(&GUN.replace("[warhead]\nblast_radius_ft = 3.0\ndamage = 8.0\n", ""))
                .contains("`warhead`")
        );
        for inert in ["pod", "fuel"] {
            let (t, warn) = ok(&format!(
                "[weapon]\nid = \"fl-base:t\"\nname = \"T\"\ntype = \"{inert}\"\n[load]\nweight_lb = 2000\ndrag_factor = 0.003\n"
            ));
            assert!(warn.is_empty() && t.kind.is_inert());
            assert!(t.performance.is_none() && t.warhead.is_none() && t.gun.is_none());
            assert_eq!(t.rounds, 1);
        }
    }

    #[test]
    fn seeker_and_guidance_rules() {
        let both = format!("{MISSILE}[guidance]\ntype = \"laser\"\n");
        assert!(err(&both).contains("exclusive"));
        let lgb = "[weapon]\nid = \"fl-base:gbu12\"\nname = \"GBU-12\"\ntype = \"bomb\"\n\
            [guidance]\ntype = \"laser\"\nrequires_designator = true\n\
            [performance]\nstandoff_range_ft = 15000\n[warhead]\nblast_radius_ft = 100\ndamage = 180\n[load]\nweight_lb = 500\n";
        let (g, warn) = ok(lgb);
        assert!(warn.is_empty(), "{warn:?}");
        let s = g.seeker.unwrap_or_else(|| panic!("guidance"));
        assert_eq!(
            (s.kind, s.table),
            (SeekerType::Laser, GuidanceTable::Guidance)
        );
        assert!(s.requires_designator && s.sensor_id.is_none());

        let arh = MISSILE
            .replace("type = \"ir\"", "type = \"active-radar\"")
            .replace(
                "fire_and_forget = true\n",
                "fire_and_forget = true\npitbull_nm = 10\nloft_bias_deg = 20\nloft_range_nm = 15\n",
            );
        let (a, _) = ok(&arh);
        let s = a.seeker.unwrap_or_else(|| panic!("seeker"));
        assert_eq!(s.kind, SeekerType::ActiveRadar);
        assert!((s.pitbull_range_m - 18_520.0).abs() < 1e-9);
        assert!((s.loft_bias_rad - 20.0_f64.to_radians()).abs() < 1e-12);
        assert!((s.loft_range_m - 27_780.0).abs() < 1e-9);
        // Pitbull belongs to active radar; the misspelt key is named; the loft comes as a pair.
        let e = err(&arh.replace("active-radar", "semi-active-radar"));
        assert!(
            e.contains("seeker.pitbull_nm") && e.contains("active-radar"),
            "{e}"
        );
        let e = err(&arh.replace("pitbull_nm = 10", "pitbull_range_m = 18520"));
        assert!(
            e.contains("`seeker.pitbull_range_m`") && e.contains("pitbull_nm"),
            "{e}"
        );
        assert!(err(&arh.replace("loft_range_nm = 15\n", "")).contains("pair"));
        assert!(err(&MISSILE.replace("\"ir\"", "\"telepathy\"")).contains("telepathy"));
        assert!(err(&MISSILE.replace("type = \"ir\"\n", "")).contains("`seeker.type`"));

        // Variant spellings: `infrared` silently, underscores with a warning.
        let (i, warn) = ok(&MISSILE.replace("\"ir\"", "\"infrared\""));
        assert!(warn.is_empty());
        assert_eq!(i.seeker.map(|s| s.kind), Some(SeekerType::Infrared));
        let (_, warn) = ok(&MISSILE.replace("\"ir\"", "\"semi_active_radar\""));
        assert_eq!(keys(&warn), ["seeker.type"]);
        // A looking seeker without a head, and the deprecated ad-hoc lobe, warn.
        let (_, warn) = ok(&MISSILE.replace("sensor_id = \"fl-base:aim9p_seeker\"\n", ""));
        assert_eq!(keys(&warn), ["seeker.sensor_id"]);
        let (_, warn) = ok(&MISSILE.replace(
            "fire_and_forget = true\n",
            "fire_and_forget = true\nfov_deg = 30\nacquisition_nm = 5\n",
        ));
        assert_eq!(keys(&warn), ["seeker.fov_deg", "seeker.acquisition_nm"]);
        // A sensor id is a reference: prefix and case rules apply.
        let (r, warn) = ok(&MISSILE.replace("fl-base:aim9p_seeker", "AIM9P_Seeker"));
        assert_eq!(
            r.seeker.and_then(|s| s.sensor_id).as_deref(),
            Some("fl-base:aim9p_seeker")
        );
        assert_eq!(keys(&warn), ["seeker.sensor_id"]);
        assert!(
            err(&MISSILE.replace("fl-base:aim9p_seeker", "fl-base:../x")).contains("traversal")
        );
    }

    #[test]
    fn nuclear_warheads_come_with_a_yield() {
        let nuke = MISSILE.replace(
            "damage = 60.0\n",
            "damage = 60.0\nnuclear = true\nyield_kt = 10\n",
        );
        let (n, _) = ok(&nuke);
        assert_eq!(n.warhead.and_then(|w| w.nuclear_yield_kt), Some(10.0));
        assert!(err(&nuke.replace("yield_kt = 10\n", "")).contains("yield_kt"));
        assert!(err(&nuke.replace("nuclear = true\n", "")).contains("nuclear = true"));
        assert!(err(&nuke.replace("yield_kt = 10", "yield_kt = 0")).contains("warhead.yield_kt"));
    }

    #[test]
    fn unknown_keys_warn_where_they_are() {
        let text = MISSILE
            .replace("max_g = 20.0\n", "max_g = 20.0\nmach = 3\n")
            .replace("damage = 60.0\n", "damage = 60.0\nshrapnel = 2\n")
            + "[future]\nx = 1\n";
        let (_, warn) = ok(&text);
        assert_eq!(
            keys(&warn),
            ["performance.mach", "warhead.shrapnel", "future"]
        );
        assert_eq!(warn[0].line, line_of(&text, "mach"));
    }

    #[test]
    fn refuses_bad_load_and_reserved_ids() {
        let base = "[weapon]\nid = \"fl-base:x\"\nname = \"X\"\ntype = \"pod\"\n";
        let e = |t: &str| match parse(t) {
            Ok(_) => panic!("accepted {t}"),
            Err(e) => e.to_string(),
        };
        assert!(e(base).contains("`load`: required table is missing"));
        assert!(e(&format!("{base}[load]\nweight_lb = 0\n")).contains("load.weight_lb"));
        assert!(e(&format!("{base}[load]\nweight_lb = \"heavy\"\n")).contains("expected a number"));
        let builtin = base.replace("fl-base:x", "builtin:cannon");
        assert!(e(&format!("{builtin}[load]\nweight_lb = 1\n")).contains("reserved"));
        let trav = base.replace("fl-base:x", "fl-base:../../x");
        assert!(e(&format!("{trav}[load]\nweight_lb = 1\n")).contains("traversal"));
        let ty = base.replace("\"pod\"", "\"laser-sword\"");
        assert!(e(&format!("{ty}[load]\nweight_lb = 1\n")).contains("laser-sword"));
    }

    #[test]
    fn unprefixed_foreign_and_uppercase_ids_warn() {
        let (w, warn) = ok(
            "[weapon]\nid = \"Tank\"\nname = \"T\"\ntype = \"fuel\"\n[load]\nweight_lb = 1\nmystery = 2\n",
        );
        assert_eq!(w.id, "fl-base:tank");
        assert_eq!(keys(&warn), ["weapon.id", "load.mystery"]);
        let (w, warn) = ok(
            "[weapon]\nid = \"other:tank\"\nname = \"T\"\ntype = \"fuel\"\n[load]\nweight_lb = 1\n",
        );
        assert_eq!(w.id, "other:tank");
        assert_eq!(warn.len(), 1);
        assert!(warn[0].message.contains("namespace"));
    }

    #[test]
    fn every_prefix_parses_or_fails_cleanly() {
        for text in [MISSILE, GUN] {
            for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
                let _ = parse(&text[..end]);
            }
        }
    }
}
