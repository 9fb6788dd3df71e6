//! fl-content's parsed sensor and signature defs as this crate's [`SensorSpec`] and
//! [`Signatures`]: the one conversion the server loads with and the tests check against the
//! pack's files (docs/sensing.md, "For the integrator").
//!
//! Owns: the field-for-field mapping and the pack's three documented exceptions by id. Must not:
//! read files (fl-content did; this takes its defs), validate (the caller runs
//! [`SensorSpec::validate`] and drops what it refuses).

use super::{Doppler, Lobe, LowAltitudeClutter, SensorKind, SensorSpec, Signatures};
use fl_content::SensorDef;

/// The part of a sensor id after its pack namespace (`fl-base:apq159` → `apq159`).
pub fn bare_id(id: &str) -> &str {
    id.rsplit(':').next().unwrap_or(id)
}

/// fl-content's sensor def as a spec: the lobes field for field (fl-content already converts
/// to SI; an omnidirectional lobe's 180°/90° "full sphere" is kept as is), the def's
/// `lock_hold_s` on the track lobe (the search lobe holds nothing), `doppler` `Some(true)` →
/// pulse-doppler, `Some(false)` → no look-down, absent → the kind's default; then the pack's
/// three documented exceptions by id: `apq159` and `rp22` have no look-down (unless the def
/// says otherwise), `rpk2` suffers ground clutter under 60 m.
pub fn spec_from_def(d: &SensorDef) -> SensorSpec {
    let kind = match d.kind {
        fl_content::SensorType::Radar => SensorKind::Radar,
        fl_content::SensorType::Ir => SensorKind::Ir,
        fl_content::SensorType::Visual => SensorKind::Visual,
        fl_content::SensorType::Laser => SensorKind::Laser,
    };
    let lobe = |l: &fl_content::Lobe, hold: f64| Lobe {
        az_half_rad: l.az_half_angle_rad,
        el_half_rad: l.el_half_angle_rad,
        min_range_m: l.min_range_m,
        max_range_m: l.max_range_m,
        pod: l.pod,
        lock_hold_s: hold,
    };
    let mut spec = SensorSpec::new(
        kind,
        d.emitter,
        d.omnidirectional,
        lobe(&d.search, 0.0),
        d.track.as_ref().map(|t| lobe(t, d.lock_hold_s)),
    );
    match d.doppler {
        Some(true) => spec.doppler = Doppler::default_for(SensorKind::Radar),
        Some(false) => spec.doppler = Doppler::NO_LOOK_DOWN,
        None => {}
    }
    // The pack writes no key for these yet; its comments ask for them.
    match bare_id(&d.id) {
        "apq159" | "rp22" if d.doppler.is_none() => spec.doppler = Doppler::NO_LOOK_DOWN,
        "rpk2" => spec.low_clutter = Some(LowAltitudeClutter::UNDER_60_M),
        _ => {}
    }
    spec
}

/// An entity def's `[signatures]` as this crate's.
pub fn signatures_from_def(s: &fl_content::entity::Signatures) -> Signatures {
    Signatures {
        rcs: s.rcs,
        ir: s.ir,
        visual: s.visual,
        laser: s.laser,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_ids_drop_the_namespace() {
        assert_eq!(bare_id("fl-base:apq159"), "apq159");
        assert_eq!(bare_id("rpk2"), "rpk2");
    }
}
