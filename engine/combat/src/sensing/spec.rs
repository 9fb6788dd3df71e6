//! What a sensor is, as plain data in SI units: its kind, its search and track lobes, how it
//! copes with ground clutter, and what a target presents to it (signatures).
//!
//! The pack's sensor files (nm, degrees, per-check PoD at 10 Hz) and entity `[signatures]` are
//! converted into these by the caller, once, at load; this module never reads a file. A spec
//! built from corrupt numbers is caught by [`SensorSpec::validate`]; one that slips through
//! unvalidated still never detects anything (every evaluation re-checks [`Lobe::usable`]).

/// 1 nautical mile, m (the pack's range unit).
pub const NM_TO_M: f64 = 1852.0;

/// The cadence a lobe's `pod` is quoted against, Hz (the pack's "per check at 10 Hz").
pub const REFERENCE_CHECK_HZ: f64 = 10.0;

/// Longest coast a lobe may ask for, s (the pack validator's `[0, 60]`).
pub const MAX_LOCK_HOLD_S: f64 = 60.0;

/// Longest lobe range accepted, m. Far beyond any sensor (the pack's longest is 61 km); it keeps
/// a corrupt `1e300` from turning every check into a terrain march across the planet.
pub const MAX_LOBE_RANGE_M: f64 = 1_000_000.0;

/// Default half-width of a pulse-doppler radar's main-lobe-clutter notch, in target radial
/// speed over the ground, m/s (≈ 50 kt). An estimate: wide enough that beaming works when
/// flown, narrow enough (±6° off the perpendicular at 250 m/s) that it takes deliberate flying.
pub const DEFAULT_NOTCH_HALF_WIDTH_MPS: f64 = 25.0;

/// Default share of its range a radar without doppler processing keeps against a target seen
/// against the ground (the pack's "no look-down" sets: APQ-159, RP-22); an estimate.
pub const DEFAULT_LOOK_DOWN_RANGE_FACTOR: f64 = 0.25;

/// Default range factor of an IR sensor against a target seen nose-on (the tailpipe hidden),
/// against 1.0 from the beam and behind. The pack's IR ranges are "a rear/beam-quarter figure"
/// and "a cold head-on aspect is a fraction of it" (sensors/oeps29.toml). An estimate.
pub const DEFAULT_IR_HEAD_ON_FACTOR: f64 = 0.4;

/// What a sensor senses. The discriminants are the wire's `SensorType` ordinals (the datalink's
/// `sensorTypeMask` bit is `1 << ordinal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum SensorKind {
    /// The eye. Degraded at night.
    Visual = 0,
    /// Infra-red (IRST, IR seekers). Passive.
    Ir = 1,
    /// Radar (search/fire-control sets, SARH seekers).
    Radar = 2,
    /// Laser (designators, spot trackers).
    Laser = 3,
}

impl SensorKind {
    /// Every kind, in wire order.
    pub const ALL: [SensorKind; 4] = [Self::Visual, Self::Ir, Self::Radar, Self::Laser];

    /// This kind's bit in a kind mask (`1 << ordinal`).
    #[inline]
    pub fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The kind a pack's `type = "..."` names (`radar`, `ir`, `visual`, `laser`; case-insensitive).
    pub fn from_pack_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "radar" => Some(Self::Radar),
            "ir" => Some(Self::Ir),
            "visual" => Some(Self::Visual),
            "laser" => Some(Self::Laser),
            _ => None,
        }
    }

    /// The wire ordinal back to a kind.
    pub fn from_wire(v: u8) -> Option<Self> {
        Self::ALL.get(usize::from(v)).copied()
    }
}

/// One lobe (search or track): a cone about the observer's nose and a range band, with the
/// probability of detection per check at [`REFERENCE_CHECK_HZ`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lobe {
    /// Half-angle off the nose in the body's horizontal plane, rad, in (0, π].
    pub az_half_rad: f64,
    /// Half-angle above/below the body's horizontal plane, rad, in (0, π] (π/2 and above: no
    /// elevation limit, as fl-content writes a full sphere).
    pub el_half_rad: f64,
    /// Dead zone: nothing nearer is seen, m (not scaled by signatures).
    pub min_range_m: f64,
    /// Range against a baseline (signature 1.0) target, m.
    pub max_range_m: f64,
    /// Probability of detection per check at the reference cadence, [0, 1].
    pub pod: f64,
    /// How long a held contact coasts on its last-known state once unseen, s (0: dropped at
    /// once). The pack authors it on the track lobe; a search lobe's is normally 0.
    pub lock_hold_s: f64,
}

impl Lobe {
    /// A lobe from the pack's units (degrees, nautical miles). `lock_hold_s` is taken as is.
    pub fn from_pack_units(
        az_half_deg: f64,
        el_half_deg: f64,
        min_range_nm: f64,
        max_range_nm: f64,
        pod: f64,
        lock_hold_s: f64,
    ) -> Self {
        Self {
            az_half_rad: az_half_deg.to_radians(),
            el_half_rad: el_half_deg.to_radians(),
            min_range_m: min_range_nm * NM_TO_M,
            max_range_m: max_range_nm * NM_TO_M,
            pod,
            lock_hold_s,
        }
    }

    /// Why this lobe is unusable, or `None` when every number is in range.
    pub fn problem(&self) -> Option<String> {
        let Lobe {
            az_half_rad: az,
            el_half_rad: el,
            min_range_m: min,
            max_range_m: max,
            pod,
            lock_hold_s: hold,
        } = *self;
        let pi = core::f64::consts::PI;
        if !(az > 0.0 && az <= pi + 1e-12) {
            return Some(format!("azimuth half-angle {az} rad is not in (0, π]"));
        }
        if !(el > 0.0 && el <= pi + 1e-12) {
            return Some(format!("elevation half-angle {el} rad is not in (0, π]"));
        }
        if !(min >= 0.0 && min.is_finite()) {
            return Some(format!("minimum range {min} m is not a finite value >= 0"));
        }
        if !(max > min && max <= MAX_LOBE_RANGE_M) {
            return Some(format!(
                "maximum range {max} m is not above the minimum ({min} m) and at most {MAX_LOBE_RANGE_M} m"
            ));
        }
        if !(0.0..=1.0).contains(&pod) {
            return Some(format!("probability of detection {pod} is not in [0, 1]"));
        }
        if !(0.0..=MAX_LOCK_HOLD_S).contains(&hold) {
            return Some(format!(
                "lock hold {hold} s is not in [0, {MAX_LOCK_HOLD_S}]"
            ));
        }
        None
    }

    /// True when every number is in range (the evaluation's guard: an unusable lobe sees nothing).
    #[inline]
    pub fn usable(&self) -> bool {
        let pi = core::f64::consts::PI;
        self.az_half_rad > 0.0
            && self.az_half_rad <= pi + 1e-12
            && self.el_half_rad > 0.0
            && self.el_half_rad <= pi + 1e-12
            && self.min_range_m >= 0.0
            && self.max_range_m > self.min_range_m
            && self.max_range_m <= MAX_LOBE_RANGE_M
            && (0.0..=1.0).contains(&self.pod)
            && (0.0..=MAX_LOCK_HOLD_S).contains(&self.lock_hold_s)
    }
}

/// How a radar copes with the ground behind a target it looks down at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Doppler {
    /// No clutter model: passive sensors, and a radar whose def asks for none.
    None,
    /// Pulse-doppler (or CW) processing: sees down into the ground return, except for a target
    /// whose radial speed over the ground is inside the main-lobe-clutter notch — that target is
    /// filtered out with the ground. Looking up (sky behind the target) there is no notch.
    PulseDoppler {
        /// Half-width of the notch, m/s of the target's radial speed over the ground.
        notch_half_width_mps: f64,
    },
    /// Plain pulse radar with no doppler processing ("no look-down"): against the ground it keeps
    /// only this share of its range; looking up it is unaffected.
    Pulse {
        /// Range factor when looking down, [0, 1].
        look_down_range_factor: f64,
    },
}

impl Doppler {
    /// A plain pulse radar with the default look-down range factor (the pack's APQ-159 and
    /// RP-22: "no look-down").
    pub const NO_LOOK_DOWN: Doppler = Doppler::Pulse {
        look_down_range_factor: DEFAULT_LOOK_DOWN_RANGE_FACTOR,
    };

    /// The default for a sensor kind: every radar is pulse-doppler with the default notch (the
    /// pack's fire-control radars are pulse-doppler or CW, its SARH seekers ride CW/PD
    /// illumination and carry a notch susceptibility, and sensors/3m9m.toml says the defence
    /// against the 1S91 is to beam it); IR, visual and laser do not notch.
    pub fn default_for(kind: SensorKind) -> Self {
        match kind {
            SensorKind::Radar => Self::PulseDoppler {
                notch_half_width_mps: DEFAULT_NOTCH_HALF_WIDTH_MPS,
            },
            _ => Self::None,
        }
    }
}

/// Ground clutter near the surface (sensors/rpk2.toml: "many false returns under 60 m"): a target
/// lower than `below_agl_m` above the ground is harder to acquire. Geometry still maintains a
/// contact once held; only the acquisition die is scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowAltitudeClutter {
    /// Height above the ground below which the clutter bites, m.
    pub below_agl_m: f64,
    /// Factor on the acquisition probability there, [0, 1].
    pub pod_factor: f64,
}

impl LowAltitudeClutter {
    /// sensors/rpk2.toml's "many false returns (ground clutter) under 60 m (200 ft)": a quarter
    /// of the acquisition probability below 60 m (the factor is an estimate).
    pub const UNDER_60_M: LowAltitudeClutter = LowAltitudeClutter {
        below_agl_m: 60.0,
        pod_factor: 0.25,
    };
}

/// One sensor, in SI units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorSpec {
    /// What it senses.
    pub kind: SensorKind,
    /// It radiates (radars and lasers that illuminate; RWR hears it; radar modes govern it).
    /// A non-emitting radar is a receiver (a SARH seeker): radar modes do not govern it.
    pub emitter: bool,
    /// Covers every azimuth (ground radars): the azimuth limit is ignored and the elevation limit
    /// is measured from the local horizontal, not the body (see `geometry`).
    pub omnidirectional: bool,
    /// How it finds things.
    pub search: Lobe,
    /// How it holds a firing-quality track; `None` for search-only sensors (the eyeball).
    pub track: Option<Lobe>,
    /// Ground clutter handling when looking down.
    pub doppler: Doppler,
    /// Clutter near the surface (`None`: none).
    pub low_clutter: Option<LowAltitudeClutter>,
    /// Range factor against a target seen nose-on, rising to 1 at the beam and behind (see
    /// `geometry::aspect_factor`); 1.0 = no aspect dependence.
    pub head_on_factor: f64,
}

impl SensorSpec {
    /// A sensor with this kind's defaults for clutter ([`Doppler::default_for`]) and aspect
    /// ([`DEFAULT_IR_HEAD_ON_FACTOR`] for IR, none otherwise).
    pub fn new(
        kind: SensorKind,
        emitter: bool,
        omnidirectional: bool,
        search: Lobe,
        track: Option<Lobe>,
    ) -> Self {
        Self {
            kind,
            emitter,
            omnidirectional,
            search,
            track,
            doppler: Doppler::default_for(kind),
            low_clutter: None,
            head_on_factor: if kind == SensorKind::Ir {
                DEFAULT_IR_HEAD_ON_FACTOR
            } else {
                1.0
            },
        }
    }

    /// Checks every number; the first problem found, with which part it is in.
    pub fn validate(&self) -> Result<(), SpecError> {
        if let Some(what) = self.search.problem() {
            return Err(SpecError::Lobe {
                lobe: "search",
                what,
            });
        }
        if let Some(what) = self.track.as_ref().and_then(Lobe::problem) {
            return Err(SpecError::Lobe {
                lobe: "track",
                what,
            });
        }
        match self.doppler {
            Doppler::None => {}
            Doppler::PulseDoppler {
                notch_half_width_mps: w,
            } => {
                if !(0.0..=1000.0).contains(&w) {
                    return Err(SpecError::Clutter(format!(
                        "notch half-width {w} m/s is not in [0, 1000]"
                    )));
                }
            }
            Doppler::Pulse {
                look_down_range_factor: f,
            } => {
                if !(0.0..=1.0).contains(&f) {
                    return Err(SpecError::Clutter(format!(
                        "look-down range factor {f} is not in [0, 1]"
                    )));
                }
            }
        }
        if let Some(c) = self.low_clutter
            && !((0.0..=10_000.0).contains(&c.below_agl_m) && (0.0..=1.0).contains(&c.pod_factor))
        {
            return Err(SpecError::Clutter(format!(
                "low-altitude clutter below {} m with factor {} is out of range",
                c.below_agl_m, c.pod_factor
            )));
        }
        if !(0.0..=1.0).contains(&self.head_on_factor) {
            return Err(SpecError::Aspect(self.head_on_factor));
        }
        Ok(())
    }

    /// True when [`SensorSpec::validate`] would pass (the evaluation's cheap guard).
    pub fn usable(&self) -> bool {
        self.validate().is_ok()
    }

    /// How long a contact this sensor held coasts once unseen, s: the track lobe's hold when it
    /// has one (the pack authors it there), else the search lobe's (0 for the eyeball: "you have
    /// simply stopped seeing it").
    pub fn coast_s(&self) -> f64 {
        self.track
            .map_or(self.search.lock_hold_s, |t| t.lock_hold_s)
    }

    /// Whether radar modes govern this sensor (an emitting radar).
    #[inline]
    pub fn mode_governed(&self) -> bool {
        self.emitter && self.kind == SensorKind::Radar
    }
}

/// A sensor spec that cannot be used, with a message naming the part and the number.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A lobe's number is out of range.
    #[error("{lobe} lobe: {what}")]
    Lobe {
        /// `search` or `track`.
        lobe: &'static str,
        /// What is wrong.
        what: String,
    },
    /// A clutter parameter is out of range.
    #[error("clutter: {0}")]
    Clutter(String),
    /// The aspect factor is out of range.
    #[error("head-on factor {0} is not in [0, 1]")]
    Aspect(f64),
}

/// What a target presents to each kind of sensor: unitless multipliers against a baseline
/// fighter (1.0). Radar range scales by √rcs; IR, visual and laser linearly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signatures {
    /// Radar cross-section multiplier.
    pub rcs: f64,
    /// Infra-red multiplier (a caller may raise it in afterburner).
    pub ir: f64,
    /// Visual multiplier.
    pub visual: f64,
    /// Laser multiplier.
    pub laser: f64,
}

impl Default for Signatures {
    fn default() -> Self {
        Self::BASELINE
    }
}

impl Signatures {
    /// The baseline fighter every range is quoted against.
    pub const BASELINE: Signatures = Signatures {
        rcs: 1.0,
        ir: 1.0,
        visual: 1.0,
        laser: 1.0,
    };

    /// The multiplier a kind of sensor sees.
    #[inline]
    pub fn for_kind(&self, kind: SensorKind) -> f64 {
        match kind {
            SensorKind::Radar => self.rcs,
            SensorKind::Ir => self.ir,
            SensorKind::Visual => self.visual,
            SensorKind::Laser => self.laser,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apg66() -> SensorSpec {
        SensorSpec::new(
            SensorKind::Radar,
            true,
            false,
            Lobe::from_pack_units(60.0, 30.0, 0.5, 30.0, 0.35, 0.0),
            Some(Lobe::from_pack_units(55.0, 25.0, 0.3, 22.0, 0.70, 4.0)),
        )
    }

    #[test]
    fn pack_units_convert_and_a_pack_radar_validates() {
        let s = apg66();
        assert_eq!(s.search.max_range_m, 30.0 * 1852.0);
        assert!((s.search.az_half_rad - core::f64::consts::PI / 3.0).abs() < 1e-15);
        assert_eq!(s.validate(), Ok(()));
        assert_eq!(s.coast_s(), 4.0);
        assert!(s.mode_governed());
        assert!(matches!(s.doppler, Doppler::PulseDoppler { .. }));
        // IR gets the aspect default and no notch.
        let ir = SensorSpec::new(SensorKind::Ir, false, false, s.search, None);
        assert_eq!(ir.head_on_factor, DEFAULT_IR_HEAD_ON_FACTOR);
        assert_eq!(ir.doppler, Doppler::None);
        assert_eq!(ir.coast_s(), 0.0);
    }

    #[test]
    fn corrupt_numbers_are_refused_with_the_part_named() {
        let mut s = apg66();
        s.search.pod = 1.5;
        let e = s.validate().expect_err("pod > 1");
        assert!(e.to_string().contains("search lobe"), "{e}");
        assert!(!s.search.usable());
        for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY] {
            let mut s = apg66();
            s.search.max_range_m = bad;
            assert!(s.validate().is_err(), "max {bad}");
            assert!(!s.search.usable());
            let mut s = apg66();
            s.track = Some(Lobe {
                az_half_rad: bad,
                ..s.search
            });
            assert!(s.validate().expect_err("az").to_string().contains("track"));
        }
        let mut s = apg66();
        s.search.min_range_m = s.search.max_range_m;
        assert!(s.validate().is_err());
        let mut s = apg66();
        s.head_on_factor = f64::NAN;
        assert!(s.validate().is_err());
        let mut s = apg66();
        s.doppler = Doppler::Pulse {
            look_down_range_factor: 2.0,
        };
        assert!(s.validate().is_err());
    }

    #[test]
    fn kinds_round_trip_the_wire_and_the_pack() {
        for k in SensorKind::ALL {
            assert_eq!(SensorKind::from_wire(k as u8), Some(k));
        }
        assert_eq!(SensorKind::from_wire(4), None);
        assert_eq!(SensorKind::from_pack_name(" IR "), Some(SensorKind::Ir));
        assert_eq!(SensorKind::from_pack_name("sonar"), None);
        assert_eq!(SensorKind::Radar.bit(), 4);
    }
}
