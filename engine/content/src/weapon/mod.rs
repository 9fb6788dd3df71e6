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
mod tests;
