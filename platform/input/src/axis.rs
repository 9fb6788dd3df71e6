//! The binding maths of one device axis: which part of its travel a binding reads
//! ([`AxisPart`]), and how that travel becomes a control ([`AxisSettings`]: inversion,
//! deadzone, saturation, response curve and the throttle's afterburner detent).
//!
//! Owns the numbers and their sanitising (a hostile `bindings.toml` cannot make NaN, a division
//! by zero or an output outside the control's range). Must not know devices or actions: callers
//! say whether they want a centred value (stick, pedals) or a lever (throttle, a button's
//! pressure).

/// Default deadzone of a gamepad stick or trigger (a worn stick does not creep the aircraft).
pub const PAD_DEADZONE: f32 = 0.1;
/// Default deadzone of a joystick, throttle or pedal axis bound by capture (they are more
/// precise than a gamepad's thumbsticks).
pub const DEVICE_DEADZONE: f32 = 0.03;
/// Largest deadzone accepted.
pub const MAX_DEADZONE: f32 = 0.5;
/// Smallest saturation accepted (full output at half travel).
pub const MIN_SATURATION: f32 = 0.5;

/// The part of an axis's travel a binding reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum AxisPart {
    /// All of it.
    #[default]
    Whole,
    /// Only the positive half (centre → +1 reads 0 → 1).
    Plus,
    /// Only the negative half (centre → −1 reads 0 → 1).
    Minus,
}

impl AxisPart {
    pub fn name(self) -> &'static str {
        match self {
            AxisPart::Whole => "whole",
            AxisPart::Plus => "plus",
            AxisPart::Minus => "minus",
        }
    }

    pub fn parse(s: &str) -> Option<AxisPart> {
        Some(match s {
            "whole" => AxisPart::Whole,
            "plus" => AxisPart::Plus,
            "minus" => AxisPart::Minus,
            _ => return None,
        })
    }

    /// Two bindings on one axis read some travel in common.
    pub fn overlaps(self, other: AxisPart) -> bool {
        self == other || self == AxisPart::Whole || other == AxisPart::Whole
    }
}

/// An axis value as a binding reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Travel {
    /// A centred axis, −1 … 1.
    Bipolar(f32),
    /// One-sided, 0 (rest) … 1 (a trigger, half of a centred axis).
    Unipolar(f32),
}

impl Travel {
    /// Reads `part` of an axis reporting `value` (`unipolar`: the axis rests at 0 and reports
    /// 0 … 1, a trigger). Values that are not finite read as rest.
    pub fn read(value: f32, unipolar: bool, part: AxisPart) -> Travel {
        let v = if value.is_finite() { value } else { 0.0 };
        if unipolar {
            let u = v.clamp(0.0, 1.0);
            return Travel::Unipolar(if part == AxisPart::Minus { 0.0 } else { u });
        }
        let v = v.clamp(-1.0, 1.0);
        match part {
            AxisPart::Whole => Travel::Bipolar(v),
            AxisPart::Plus => Travel::Unipolar(v.max(0.0)),
            AxisPart::Minus => Travel::Unipolar((-v).max(0.0)),
        }
    }

    /// As a lever, 0 … 1: a centred axis's whole travel end to end.
    pub fn as_lever(self) -> f32 {
        match self {
            Travel::Bipolar(v) => (v + 1.0) * 0.5,
            Travel::Unipolar(u) => u,
        }
    }

    /// As a centred value, −1 … 1 (one-sided travel reads 0 … 1).
    pub fn as_centred(self) -> f32 {
        match self {
            Travel::Bipolar(v) => v,
            Travel::Unipolar(u) => u,
        }
    }
}

/// How a bound axis's travel becomes a control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisSettings {
    /// Reverses the axis (a lever reads 1 − travel).
    pub invert: bool,
    /// Travel ignored around the centre (a lever: at rest), 0 … [`MAX_DEADZONE`]. The output
    /// starts from 0 at its edge (no jump).
    pub deadzone: f32,
    /// The fraction of travel at which the output is full, [`MIN_SATURATION`] … 1.
    pub saturation: f32,
    /// Response curve, 0 (linear) … 1 (cubic): finer control near the centre.
    pub expo: f32,
    /// The throttle's afterburner detent: lever travel (0.5 … 1) past which the afterburner
    /// lights; below it the lever spans idle … military. `None`: the lever leaves the
    /// afterburner alone.
    pub detent: Option<f32>,
}

impl Default for AxisSettings {
    fn default() -> Self {
        AxisSettings {
            invert: false,
            deadzone: 0.0,
            saturation: 1.0,
            expo: 0.0,
            detent: None,
        }
    }
}

/// `v` if finite, else `fallback`, clamped to `lo..=hi`.
fn finite_in(v: f32, fallback: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() {
        v.clamp(lo, hi)
    } else {
        fallback
    }
}

impl AxisSettings {
    /// A gamepad stick or trigger's settings (deadzone [`PAD_DEADZONE`]).
    pub fn pad() -> Self {
        AxisSettings {
            deadzone: PAD_DEADZONE,
            ..AxisSettings::default()
        }
    }

    /// Every field made valid: not finite → default, then clamped (the saturation stays a
    /// little above the deadzone so the slope between them is finite).
    pub fn sanitized(self) -> Self {
        let deadzone = finite_in(self.deadzone, 0.0, 0.0, MAX_DEADZONE);
        let saturation = finite_in(self.saturation, 1.0, MIN_SATURATION, 1.0);
        AxisSettings {
            invert: self.invert,
            deadzone,
            saturation,
            expo: finite_in(self.expo, 0.0, 0.0, 1.0),
            detent: self
                .detent
                .filter(|d| d.is_finite())
                .map(|d| d.clamp(0.5, 1.0)),
        }
    }

    /// A magnitude 0 … 1 through deadzone, saturation and curve.
    fn shape(&self, m: f32) -> f32 {
        let s = self.sanitized();
        let m = if m.is_finite() {
            m.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if m <= s.deadzone {
            return 0.0;
        }
        let x = ((m - s.deadzone) / (s.saturation - s.deadzone)).min(1.0);
        (1.0 - s.expo) * x + s.expo * x * x * x
    }

    /// The travel as a centred control, −1 … 1 (stick, pedals).
    pub fn centred(&self, t: Travel) -> f32 {
        let v = t.as_centred();
        if !v.is_finite() {
            return 0.0;
        }
        let v = if self.invert { -v } else { v };
        v.signum() * self.shape(v.abs())
    }

    /// The travel as a lever, 0 … 1 (a button's pressure; the throttle without its detent).
    pub fn lever(&self, t: Travel) -> f32 {
        self.shape(self.lever_travel(t))
    }

    /// The lever's raw position after inversion, 0 … 1.
    fn lever_travel(&self, t: Travel) -> f32 {
        let u = t.as_lever().clamp(0.0, 1.0);
        if self.invert { 1.0 - u } else { u }
    }

    /// The travel as a throttle: (throttle 0 … 1, afterburner). With a detent the lever below
    /// it spans idle … military (shaped) and past it is full military with the afterburner lit;
    /// without one the afterburner is `None` (left alone).
    pub fn throttle(&self, t: Travel) -> (f32, Option<bool>) {
        match self.sanitized().detent {
            None => (self.lever(t), None),
            Some(d) => {
                let u = self.lever_travel(t);
                if u >= d {
                    (1.0, Some(true))
                } else {
                    (self.shape(u / d), Some(false))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn deadzone_removes_rest_and_rescales_without_a_jump() {
        let s = AxisSettings {
            deadzone: 0.1,
            ..AxisSettings::default()
        };
        let c = |v| s.centred(Travel::Bipolar(v));
        assert_eq!(c(0.05), 0.0);
        assert_eq!(c(-0.1), 0.0);
        assert!(c(0.11) > 0.0 && c(0.11) < 0.02);
        assert!(close(c(0.55), 0.5));
        assert!(close(c(-0.55), -0.5));
        assert_eq!(c(1.0), 1.0);
        assert_eq!(c(-1.0), -1.0);
        assert_eq!(c(f32::NAN), 0.0);
    }

    #[test]
    fn saturation_reaches_full_output_early() {
        let s = AxisSettings {
            saturation: 0.8,
            ..AxisSettings::default()
        };
        assert!(close(s.centred(Travel::Bipolar(0.4)), 0.5));
        assert_eq!(s.centred(Travel::Bipolar(0.8)), 1.0);
        assert_eq!(s.centred(Travel::Bipolar(0.95)), 1.0);
        // With a deadzone the span between them is what is rescaled.
        let s = AxisSettings {
            deadzone: 0.2,
            saturation: 0.6,
            ..AxisSettings::default()
        };
        assert!(close(s.centred(Travel::Bipolar(0.4)), 0.5));
    }

    #[test]
    fn expo_softens_the_centre_and_keeps_the_ends() {
        let s = AxisSettings {
            expo: 1.0,
            ..AxisSettings::default()
        };
        assert!(close(s.centred(Travel::Bipolar(0.5)), 0.125));
        let half = AxisSettings {
            expo: 0.5,
            ..AxisSettings::default()
        };
        assert!(close(
            half.centred(Travel::Bipolar(0.5)),
            0.5 * 0.5 + 0.5 * 0.125
        ));
        assert!(close(
            half.centred(Travel::Bipolar(-0.5)),
            -(0.5 * 0.5 + 0.5 * 0.125)
        ));
        assert_eq!(s.centred(Travel::Bipolar(1.0)), 1.0);
        assert_eq!(s.centred(Travel::Bipolar(0.0)), 0.0);
        // Monotonic: a bigger deflection never gives less.
        let mut last = -1.0;
        for i in 0..=100 {
            let v = s.centred(Travel::Bipolar(i as f32 / 50.0 - 1.0));
            assert!(v >= last, "{v} < {last}");
            last = v;
        }
    }

    #[test]
    fn inversion_flips_a_centred_axis_and_reverses_a_lever() {
        let s = AxisSettings {
            invert: true,
            ..AxisSettings::default()
        };
        assert!(close(s.centred(Travel::Bipolar(0.3)), -0.3));
        // A lever reporting −1 at its forward stop: inverted, forward is full.
        assert_eq!(s.lever(Travel::Bipolar(-1.0)), 1.0);
        assert_eq!(s.lever(Travel::Bipolar(1.0)), 0.0);
        assert!(close(s.lever(Travel::Unipolar(0.25)), 0.75));
    }

    #[test]
    fn a_lever_spans_the_whole_travel_and_its_deadzone_is_at_rest() {
        let s = AxisSettings {
            deadzone: 0.1,
            ..AxisSettings::default()
        };
        assert_eq!(s.lever(Travel::Bipolar(-1.0)), 0.0);
        assert!(close(s.lever(Travel::Bipolar(0.0)), (0.5 - 0.1) / 0.9));
        assert_eq!(s.lever(Travel::Bipolar(1.0)), 1.0);
        // The pad default on a trigger pulled to 0.55: half (what the keyboard rate halves).
        assert!(close(
            AxisSettings::pad().lever(Travel::Unipolar(0.55)),
            0.5
        ));
    }

    #[test]
    fn the_detent_splits_military_and_afterburner() {
        let s = AxisSettings {
            detent: Some(0.8),
            ..AxisSettings::default()
        };
        assert_eq!(s.throttle(Travel::Unipolar(0.0)), (0.0, Some(false)));
        let (t, ab) = s.throttle(Travel::Unipolar(0.4));
        assert!(close(t, 0.5) && ab == Some(false));
        let (t, ab) = s.throttle(Travel::Unipolar(0.79));
        assert!(t < 1.0 && t > 0.98 && ab == Some(false));
        assert_eq!(s.throttle(Travel::Unipolar(0.8)), (1.0, Some(true)));
        assert_eq!(s.throttle(Travel::Unipolar(1.0)), (1.0, Some(true)));
        // No detent: the afterburner is left alone.
        assert_eq!(
            AxisSettings::default().throttle(Travel::Unipolar(1.0)),
            (1.0, None)
        );
    }

    #[test]
    fn hostile_settings_are_made_valid() {
        let s = AxisSettings {
            invert: false,
            deadzone: f32::NAN,
            saturation: 0.0,
            expo: 9.0,
            detent: Some(f32::INFINITY),
        }
        .sanitized();
        assert_eq!(s.deadzone, 0.0);
        assert_eq!(s.saturation, MIN_SATURATION);
        assert_eq!(s.expo, 1.0);
        assert_eq!(s.detent, None);
        // Deadzone at its maximum and saturation at its minimum: still finite, still reaches 1.
        let edge = AxisSettings {
            deadzone: 5.0,
            saturation: -1.0,
            ..AxisSettings::default()
        };
        for i in 0..=20 {
            let v = edge.centred(Travel::Bipolar(i as f32 / 10.0 - 1.0));
            assert!(v.is_finite() && (-1.0..=1.0).contains(&v), "{v}");
        }
        assert_eq!(edge.centred(Travel::Bipolar(1.0)), 1.0);
    }

    #[test]
    fn parts_read_halves_and_triggers_have_no_minus() {
        assert_eq!(
            Travel::read(0.6, false, AxisPart::Plus),
            Travel::Unipolar(0.6)
        );
        assert_eq!(
            Travel::read(0.6, false, AxisPart::Minus),
            Travel::Unipolar(0.0)
        );
        assert_eq!(
            Travel::read(-0.6, false, AxisPart::Minus),
            Travel::Unipolar(0.6)
        );
        assert_eq!(
            Travel::read(3.0, false, AxisPart::Whole),
            Travel::Bipolar(1.0)
        );
        assert_eq!(
            Travel::read(0.7, true, AxisPart::Minus),
            Travel::Unipolar(0.0)
        );
        assert_eq!(
            Travel::read(f32::NAN, true, AxisPart::Whole),
            Travel::Unipolar(0.0)
        );
        assert!(AxisPart::Whole.overlaps(AxisPart::Minus));
        assert!(!AxisPart::Plus.overlaps(AxisPart::Minus));
        for p in [AxisPart::Whole, AxisPart::Plus, AxisPart::Minus] {
            assert_eq!(AxisPart::parse(p.name()), Some(p));
        }
    }
}
