//! Weapon specs for the flyout, in SI units: what a missile, a gun round, a rocket or a bomb
//! *is* (speeds, burn, G, ranges, warhead, seeker lobes, countermeasure susceptibility).
//!
//! Owns: the plain parameter structs the integrator fills from fl-content's defs, their
//! validation into specs the flyout can trust, and the pack-unit conversion constants.
//! Must not: parse files or know fl-content's types (the integrator converts once, at the
//! boundary), or clamp silently: a hostile number is refused with a typed [`SpecError`] that
//! names the field, so a corrupt weapon def is reported rather than flown.

use crate::flyout::aero;
use thiserror::Error;

/// One nautical mile, m.
pub const NM_M: f64 = 1852.0;
/// One knot, m/s.
pub const KT_MPS: f64 = 1852.0 / 3600.0;
/// One foot, m.
pub const FT_M: f64 = 0.3048;
/// One pound, kg.
pub const LB_KG: f64 = 0.453_592_37;
/// One degree, rad (the sensor files author lobes in degrees).
pub const DEG_RAD: f64 = core::f64::consts::PI / 180.0;

/// Self-destruct time when a def authors none (the pack's weapon files do not): the C++
/// original's `kMaxFlightTimeS`.
pub const DEFAULT_TIME_OF_FLIGHT_S: f64 = 90.0;
/// Gun cone half-angle when a def authors none: the C++ original's `kGunDispersionRad`
/// (~0.7°).
pub const DEFAULT_GUN_DISPERSION_RAD: f64 = 0.012;
/// Muzzle speed when a gun def authors none, m/s (a typical 20 mm round; the C++ original's
/// guns were hitscan and had no muzzle speed at all).
pub const DEFAULT_MUZZLE_SPEED_MPS: f64 = 1000.0;
/// Drag of a gun round, Cd·A/m in m²/kg: a 20 mm round keeps ~70 % of 1,050 m/s over 1 km at
/// sea level (PGU-class published retained velocity), which this reproduces.
pub const DEFAULT_GUN_DRAG_K: f64 = 6.0e-4;
/// How long a gun round flies before it is dropped, s (covers ~2 km, past every gun's reach).
pub const DEFAULT_GUN_TTL_S: f64 = 3.0;
/// Drag of a 70 mm rocket after burnout, m²/kg (Cd 0.4 on a 70 mm body of ~8 kg).
pub const DEFAULT_ROCKET_DRAG_K: f64 = 1.9e-4;
/// Rocket cone half-angle when the def has no CEP, rad (~6 mil, unguided FFAR class).
pub const DEFAULT_ROCKET_DISPERSION_RAD: f64 = 0.006;
/// Drag of a low-drag general-purpose bomb, m²/kg (Mk 82: Cd ≈ 0.25 on 0.273 m, 227 kg).
pub const DEFAULT_BOMB_DRAG_K: f64 = 6.4e-5;
/// Downward ejector push of a bomb off the rack, m/s: the C++ original's `kBombEjectSpeedMps`.
pub const DEFAULT_BOMB_EJECT_SPEED_MPS: f64 = 4.0;
/// Rockets and bombs fly until they hit something; this only bounds a store lost in space, s.
pub const DEFAULT_STORE_TTL_S: f64 = 300.0;

/// A spec field that cannot be flown.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SpecError {
    /// NaN or ±infinity.
    #[error("{field} is not a finite number ({value})")]
    NotFinite {
        /// The field's name.
        field: &'static str,
        /// What it held.
        value: f64,
    },
    /// Outside what any real weapon has.
    #[error("{field} = {value} is outside [{min}, {max}]")]
    OutOfRange {
        /// The field's name.
        field: &'static str,
        /// What it held.
        value: f64,
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// Must be strictly positive (a zero here means nothing could fly).
    #[error("{field} must be greater than zero (got {value})")]
    NotPositive {
        /// The field's name.
        field: &'static str,
        /// What it held.
        value: f64,
    },
    /// A lobe whose minimum range lies past its maximum.
    #[error("seeker {lobe} lobe: min range {min_m} m is beyond its max range {max_m} m")]
    LobeRanges {
        /// "search" or "track".
        lobe: &'static str,
        /// Its minimum range, m.
        min_m: f64,
        /// Its maximum range, m.
        max_m: f64,
    },
    /// The arming distance lies past the missile's reach.
    #[error("min range (arming) {min_m} m is beyond max range {max_m} m")]
    ArmingBeyondRange {
        /// Arming distance, m.
        min_m: f64,
        /// Max range, m.
        max_m: f64,
    },
    /// With no drag given, drag is calibrated from max range; this range ends inside the boost.
    #[error(
        "max range {range_m} m ends inside the boost phase ({boost_m} m flown under power): \
         no drag can be calibrated from it; give drag_k_m2_per_kg explicitly"
    )]
    RangeInsideBoost {
        /// Max range, m.
        range_m: f64,
        /// Distance flown while the motor burns in the calibration shot, m.
        boost_m: f64,
    },
}

fn finite(field: &'static str, value: f64) -> Result<f64, SpecError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(SpecError::NotFinite { field, value })
    }
}

fn within(field: &'static str, value: f64, min: f64, max: f64) -> Result<f64, SpecError> {
    let v = finite(field, value)?;
    if v < min || v > max {
        return Err(SpecError::OutOfRange {
            field,
            value: v,
            min,
            max,
        });
    }
    Ok(v)
}

fn positive(field: &'static str, value: f64, max: f64) -> Result<f64, SpecError> {
    let v = within(field, value, 0.0, max)?;
    if v <= 0.0 {
        return Err(SpecError::NotPositive { field, value: v });
    }
    Ok(v)
}

/// What a missile's seeker homes on, which decides which expendable fools it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekerKind {
    /// Passive infra-red: flares decoy it; it needs nobody after launch.
    Infrared,
    /// Semi-active radar: rides the launcher's illumination, so it sees the target only while
    /// the launcher holds a single-target-track lock; chaff and the doppler notch defeat it.
    SemiActiveRadar,
    /// Active radar: its own transmitter; chaff and the notch defeat it. (No pack weapon has one.)
    ActiveRadar,
}

impl SeekerKind {
    /// True for the radar seekers (chaff and notching apply).
    pub fn is_radar(self) -> bool {
        !matches!(self, SeekerKind::Infrared)
    }
}

/// One seeker lobe (a sensor file's `[search]` or `[track]`), converted to SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekerLobe {
    /// Half-angle off the boresight in azimuth, rad.
    pub az_half_angle_rad: f64,
    /// Half-angle off the boresight in elevation, rad.
    pub el_half_angle_rad: f64,
    /// Nearest range it sees, m.
    pub min_range_m: f64,
    /// Farthest range it sees against a baseline (signature 1.0) target, m.
    pub max_range_m: f64,
    /// Probability of detection per check at the 10 Hz reference cadence.
    pub pod: f64,
}

impl SeekerLobe {
    fn validate(&self, lobe: &'static str) -> Result<(), SpecError> {
        let pi = core::f64::consts::PI;
        positive("seeker lobe az_half_angle_rad", self.az_half_angle_rad, pi)?;
        positive("seeker lobe el_half_angle_rad", self.el_half_angle_rad, pi)?;
        within("seeker lobe min_range_m", self.min_range_m, 0.0, 1.0e7)?;
        within("seeker lobe max_range_m", self.max_range_m, 0.0, 1.0e7)?;
        within("seeker lobe pod", self.pod, 0.0, 1.0)?;
        if self.min_range_m > self.max_range_m {
            return Err(SpecError::LobeRanges {
                lobe,
                min_m: self.min_range_m,
                max_m: self.max_range_m,
            });
        }
        Ok(())
    }
}

/// A missile's seeker head: the weapon file's `[seeker]` with its sensor file's lobes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekerParams {
    /// What it homes on.
    pub kind: SeekerKind,
    /// The weapon file's `fire_and_forget`. False means the shot needs the launcher's lock for
    /// its whole flight (always so for semi-active radar, whatever this says).
    pub fire_and_forget: bool,
    /// Acquisition lobe: where the seeker can *find* a target.
    pub search: SeekerLobe,
    /// Track lobe: where it can *hold* one.
    pub track: SeekerLobe,
    /// How long a lock coasts on the last known track after the target drops out, s.
    pub lock_hold_s: f64,
}

impl SeekerParams {
    /// True when the seeker sees its target only while the launcher holds a lock.
    pub fn needs_support(&self) -> bool {
        self.kind == SeekerKind::SemiActiveRadar || !self.fire_and_forget
    }
}

/// A missile as the weapon def describes it, in SI units. Fill it, then validate it with
/// [`MissileSpec::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissileParams {
    /// Motor burn time, s (`motor_burn_time_s`; 0 = unpowered).
    pub motor_burn_s: f64,
    /// Speed at burnout in level flight, m/s (`max_speed_kts`).
    pub max_speed_mps: f64,
    /// Structural lateral-acceleration limit, in standard g (`max_g`; 0 = cannot steer).
    pub max_g: f64,
    /// Kinematic max range, m (`max_range_nm`). Calibrates drag when `drag_k_m2_per_kg` is
    /// `None` and bounds the flight at 1.5× (the C++ original's overrange self-destruct).
    pub max_range_m: f64,
    /// Arming distance from the launch point, m (`min_range_nm`): the fuze is safe until then.
    pub min_range_m: f64,
    /// Self-destruct time, s (the pack has none: use [`DEFAULT_TIME_OF_FLIGHT_S`]).
    pub time_of_flight_s: f64,
    /// Warhead radius, m (`blast_radius_ft`): the proximity fuze's reach and the damage falloff's.
    pub blast_radius_m: f64,
    /// Damage at zero miss distance (`damage`).
    pub damage: f64,
    /// Chance that one flare in the seeker's view takes the lock, [0, 1].
    pub flare_susceptibility: f64,
    /// Chance that one chaff cloud in the seeker's view takes the lock, [0, 1].
    pub chaff_susceptibility: f64,
    /// Width of the doppler notch as a fraction of [`aero::NOTCH_GATE_MPS`], [0, 1].
    pub notch_susceptibility: f64,
    /// The seeker head.
    pub seeker: SeekerParams,
    /// Drag, Cd·A/m in m²/kg; `None` calibrates it from `max_range_m` (see [`aero`]).
    pub drag_k_m2_per_kg: Option<f64>,
}

/// A validated missile spec: every number finite and within what a real missile has, drag
/// resolved. The flyout trusts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissileSpec {
    params: MissileParams,
    drag_k: f64,
    energy_floor_mps: f64,
}

impl MissileSpec {
    /// Validates `params`; refuses (never clamps) a NaN, an infinity, a negative, a zero where
    /// nothing could fly, or a number beyond any real weapon's.
    pub fn new(params: MissileParams) -> Result<Self, SpecError> {
        let p = &params;
        within("motor_burn_s", p.motor_burn_s, 0.0, 600.0)?;
        within("max_speed_mps", p.max_speed_mps, 0.0, 5000.0)?;
        within("max_g", p.max_g, 0.0, 100.0)?;
        positive("max_range_m", p.max_range_m, 2.0e6)?;
        within("min_range_m", p.min_range_m, 0.0, 2.0e6)?;
        if p.min_range_m > p.max_range_m {
            return Err(SpecError::ArmingBeyondRange {
                min_m: p.min_range_m,
                max_m: p.max_range_m,
            });
        }
        positive("time_of_flight_s", p.time_of_flight_s, 3600.0)?;
        within("blast_radius_m", p.blast_radius_m, 0.0, 10_000.0)?;
        within("damage", p.damage, 0.0, 1.0e6)?;
        within("flare_susceptibility", p.flare_susceptibility, 0.0, 1.0)?;
        within("chaff_susceptibility", p.chaff_susceptibility, 0.0, 1.0)?;
        within("notch_susceptibility", p.notch_susceptibility, 0.0, 1.0)?;
        p.seeker.search.validate("search")?;
        p.seeker.track.validate("track")?;
        within("seeker lock_hold_s", p.seeker.lock_hold_s, 0.0, 60.0)?;
        let drag_k = match p.drag_k_m2_per_kg {
            Some(k) => within("drag_k_m2_per_kg", k, 0.0, 1.0)?,
            None => aero::calibrate_drag_k(p.motor_burn_s, p.max_speed_mps, p.max_range_m)?,
        };
        Ok(MissileSpec {
            params,
            drag_k,
            energy_floor_mps: aero::energy_floor_mps(p.max_speed_mps),
        })
    }

    /// The validated parameters.
    pub fn params(&self) -> &MissileParams {
        &self.params
    }

    /// Drag, Cd·A/m in m²/kg (given or calibrated).
    pub fn drag_k(&self) -> f64 {
        self.drag_k
    }

    /// Below this speed after burnout the missile has run out of energy and self-destructs, m/s.
    pub fn energy_floor_mps(&self) -> f64 {
        self.energy_floor_mps
    }
}

/// What kind of unguided store a [`BallisticSpec`] describes (the flight is the same; the server
/// treats them differently: guns hit-test every round, rockets and bombs detonate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BallisticKind {
    /// A gun round.
    GunRound,
    /// An unguided rocket: a short burn, then ballistic.
    Rocket,
    /// A free-fall bomb.
    Bomb,
}

/// An unguided store as its def describes it, in SI units. Validate with [`BallisticSpec::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallisticParams {
    /// Which store.
    pub kind: BallisticKind,
    /// Speed added along the launch direction at release, m/s: a gun's muzzle velocity
    /// (`max_speed_kts` on the pack's guns), a rocket's exit speed, a bomb's ejector push.
    pub muzzle_speed_mps: f64,
    /// Rocket motor burn, s (0 for guns and bombs).
    pub motor_burn_s: f64,
    /// A rocket's speed at burnout in level flight, m/s (ignored when `motor_burn_s` is 0).
    pub max_speed_mps: f64,
    /// Drag, Cd·A/m in m²/kg.
    pub drag_k_m2_per_kg: f64,
    /// Half-angle of the seeded dispersion cone applied to the initial velocity, rad.
    pub dispersion_half_angle_rad: f64,
    /// How long the store flies before it is dropped, s.
    pub time_to_live_s: f64,
    /// Distance from the launch point before the warhead is live, m (`min_range_nm`).
    pub arming_distance_m: f64,
    /// Warhead radius, m.
    pub blast_radius_m: f64,
    /// Damage per round (guns) or at zero distance (rockets, bombs).
    pub damage: f64,
}

impl BallisticParams {
    /// A gun round from a gun def's muzzle speed, warhead and damage, with the documented
    /// defaults for what the pack does not author (drag, dispersion, time to live).
    pub fn gun(muzzle_speed_mps: f64, blast_radius_m: f64, damage: f64) -> Self {
        BallisticParams {
            kind: BallisticKind::GunRound,
            muzzle_speed_mps,
            motor_burn_s: 0.0,
            max_speed_mps: 0.0,
            drag_k_m2_per_kg: DEFAULT_GUN_DRAG_K,
            dispersion_half_angle_rad: DEFAULT_GUN_DISPERSION_RAD,
            time_to_live_s: DEFAULT_GUN_TTL_S,
            arming_distance_m: 0.0,
            blast_radius_m,
            damage,
        }
    }

    /// A rocket from a rocket def's burn, burnout speed, arming distance, warhead and damage.
    pub fn rocket(
        motor_burn_s: f64,
        max_speed_mps: f64,
        arming_distance_m: f64,
        blast_radius_m: f64,
        damage: f64,
    ) -> Self {
        BallisticParams {
            kind: BallisticKind::Rocket,
            muzzle_speed_mps: 0.0,
            motor_burn_s,
            max_speed_mps,
            drag_k_m2_per_kg: DEFAULT_ROCKET_DRAG_K,
            dispersion_half_angle_rad: DEFAULT_ROCKET_DISPERSION_RAD,
            time_to_live_s: DEFAULT_STORE_TTL_S,
            arming_distance_m,
            blast_radius_m,
            damage,
        }
    }

    /// A free-fall bomb from a bomb def's warhead and damage; no dispersion (give one from the
    /// def's CEP over its range when wanted).
    pub fn bomb(blast_radius_m: f64, damage: f64) -> Self {
        BallisticParams {
            kind: BallisticKind::Bomb,
            muzzle_speed_mps: DEFAULT_BOMB_EJECT_SPEED_MPS,
            motor_burn_s: 0.0,
            max_speed_mps: 0.0,
            drag_k_m2_per_kg: DEFAULT_BOMB_DRAG_K,
            dispersion_half_angle_rad: 0.0,
            time_to_live_s: DEFAULT_STORE_TTL_S,
            arming_distance_m: 0.0,
            blast_radius_m,
            damage,
        }
    }
}

/// A validated unguided-store spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallisticSpec {
    params: BallisticParams,
}

impl BallisticSpec {
    /// Validates `params`; refuses (never clamps) anything non-finite, negative or beyond any
    /// real store's.
    pub fn new(params: BallisticParams) -> Result<Self, SpecError> {
        let p = &params;
        within("muzzle_speed_mps", p.muzzle_speed_mps, 0.0, 5000.0)?;
        within("motor_burn_s", p.motor_burn_s, 0.0, 600.0)?;
        within("max_speed_mps", p.max_speed_mps, 0.0, 5000.0)?;
        within("drag_k_m2_per_kg", p.drag_k_m2_per_kg, 0.0, 1.0)?;
        within(
            "dispersion_half_angle_rad",
            p.dispersion_half_angle_rad,
            0.0,
            0.5,
        )?;
        positive("time_to_live_s", p.time_to_live_s, 3600.0)?;
        within("arming_distance_m", p.arming_distance_m, 0.0, 1.0e6)?;
        within("blast_radius_m", p.blast_radius_m, 0.0, 10_000.0)?;
        within("damage", p.damage, 0.0, 1.0e6)?;
        Ok(BallisticSpec { params })
    }

    /// The validated parameters.
    pub fn params(&self) -> &BallisticParams {
        &self.params
    }
}
