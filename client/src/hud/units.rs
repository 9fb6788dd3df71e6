//! The HUD's units and number formats: knots, feet, feet per minute and pounds, or kilometres
//! per hour, metres, metres per second and kilograms (the Settings choice), and the AoA colour
//! band from the stall margin.
//!
//! Owns: conversions and rounding of every number the HUD prints. Must not: draw.

/// Metres per second in one knot.
pub const MPS_PER_KNOT: f64 = 1852.0 / 3600.0;
/// Metres in one foot.
pub const M_PER_FOOT: f64 = 0.3048;
/// Kilograms in one pound.
pub const KG_PER_POUND: f64 = 0.453_592_37;

/// Which units the HUD shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    /// Knots, feet, feet per minute, pounds (the usual fighter cockpit).
    #[default]
    Imperial,
    /// Kilometres per hour, metres, metres per second, kilograms.
    Metric,
}

/// Rounds to the nearest multiple of `step`, without a negative zero; `None` for a non-number.
fn round_to(v: f64, step: f64) -> Option<i64> {
    if !v.is_finite() {
        return None;
    }
    let r = (v / step).round() * step;
    // Saturating cast: an absurd value prints as the largest number, never a panic.
    Some(r as i64)
}

fn or_dashes(v: Option<i64>) -> String {
    v.map_or_else(|| "---".to_string(), |v| v.to_string())
}

impl Units {
    /// The speed unit's label.
    pub fn speed_label(self) -> &'static str {
        match self {
            Units::Imperial => "KT",
            Units::Metric => "KM/H",
        }
    }

    /// The altitude unit's label.
    pub fn altitude_label(self) -> &'static str {
        match self {
            Units::Imperial => "FT",
            Units::Metric => "M",
        }
    }

    /// The fuel unit's label.
    pub fn fuel_label(self) -> &'static str {
        match self {
            Units::Imperial => "LB",
            Units::Metric => "KG",
        }
    }

    /// An airspeed in whole knots or km/h.
    pub fn speed(self, mps: f64) -> Option<i64> {
        match self {
            Units::Imperial => round_to(mps / MPS_PER_KNOT, 1.0),
            Units::Metric => round_to(mps * 3.6, 1.0),
        }
    }

    /// An altitude: feet to the nearest 10, or whole metres.
    pub fn altitude(self, m: f64) -> Option<i64> {
        match self {
            Units::Imperial => round_to(m / M_PER_FOOT, 10.0),
            Units::Metric => round_to(m, 1.0),
        }
    }

    /// A fuel mass: pounds or kilograms, to the nearest 10.
    pub fn fuel(self, kg: f64) -> Option<i64> {
        match self {
            Units::Imperial => round_to(kg / KG_PER_POUND, 10.0),
            Units::Metric => round_to(kg, 10.0),
        }
    }

    /// The speed as printed.
    pub fn speed_text(self, mps: f64) -> String {
        or_dashes(self.speed(mps))
    }

    /// The altitude as printed.
    pub fn altitude_text(self, m: f64) -> String {
        or_dashes(self.altitude(m))
    }

    /// The fuel as printed, with its unit.
    pub fn fuel_text(self, kg: f64) -> String {
        format!("{} {}", or_dashes(self.fuel(kg)), self.fuel_label())
    }

    /// A vertical speed with its sign and unit: feet per minute to the nearest 10, or metres per
    /// second to one decimal.
    pub fn vertical_speed_text(self, mps: f64) -> String {
        if !mps.is_finite() {
            return "VS ---".to_string();
        }
        match self {
            Units::Imperial => {
                let v = round_to(mps / M_PER_FOOT * 60.0, 10.0).unwrap_or(0);
                format!("VS {v:+}")
            }
            Units::Metric => {
                let tenths = round_to(mps * 10.0, 1.0).unwrap_or(0);
                let sign = if tenths < 0 { '-' } else { '+' };
                let a = tenths.unsigned_abs();
                format!("VS {sign}{}.{}", a / 10, a % 10)
            }
        }
    }
}

/// A number with `decimals` places, or dashes for a non-number (no negative zero).
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "---".to_string();
    }
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// How close the angle of attack is to the stall, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AoaBand {
    /// Below 80 % of the stall angle: HUD green.
    Normal,
    /// 80 % to 90 %: amber.
    Caution,
    /// 90 % and above (the stall warning's own threshold): red.
    Warning,
}

/// Stall fraction from which the AoA turns amber.
pub const AOA_CAUTION_FRACTION: f64 = 0.8;

/// The band of `stall_fraction` (AoA / stall AoA). A non-number is a warning: the HUD must not
/// show green when it does not know.
pub fn aoa_band(stall_fraction: f64) -> AoaBand {
    if stall_fraction < AOA_CAUTION_FRACTION {
        AoaBand::Normal
    } else if stall_fraction < crate::instruments::STALL_WARNING_FRACTION {
        AoaBand::Caution
    } else {
        AoaBand::Warning
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imperial_and_metric_read_the_same_state() {
        // 100 m/s = 194.4 kt = 360 km/h.
        assert_eq!(Units::Imperial.speed(100.0), Some(194));
        assert_eq!(Units::Metric.speed(100.0), Some(360));
        // 3,000 m = 9,842.5 ft: printed to the nearest 10 ft.
        assert_eq!(Units::Imperial.altitude_text(3_000.0), "9840");
        assert_eq!(Units::Metric.altitude_text(3_000.0), "3000");
        // 5 m/s = 984 ft/min.
        assert_eq!(Units::Imperial.vertical_speed_text(5.0), "VS +980");
        assert_eq!(Units::Metric.vertical_speed_text(5.0), "VS +5.0");
        assert_eq!(Units::Metric.vertical_speed_text(-0.04), "VS +0.0");
        assert_eq!(Units::Metric.vertical_speed_text(-12.36), "VS -12.4");
        assert_eq!(Units::Imperial.vertical_speed_text(-0.01), "VS +0");
        // 1,000 kg = 2,204.6 lb.
        assert_eq!(Units::Imperial.fuel_text(1_000.0), "2200 LB");
        assert_eq!(Units::Metric.fuel_text(1_000.0), "1000 KG");
        assert_eq!(Units::Imperial.speed_label(), "KT");
        assert_eq!(Units::Metric.altitude_label(), "M");
    }

    #[test]
    fn non_numbers_print_dashes_and_absurd_ones_do_not_panic() {
        assert_eq!(Units::Imperial.speed_text(f64::NAN), "---");
        assert_eq!(Units::Metric.vertical_speed_text(f64::INFINITY), "VS ---");
        assert_eq!(fixed(f64::NAN, 2), "---");
        assert_eq!(fixed(-0.001, 2), "0.00");
        assert_eq!(fixed(0.851, 2), "0.85");
        let _ = Units::Imperial.altitude_text(1e300);
        let _ = Units::Metric.vertical_speed_text(-1e300);
    }

    #[test]
    fn aoa_colour_thresholds() {
        assert_eq!(aoa_band(0.0), AoaBand::Normal);
        assert_eq!(aoa_band(0.79), AoaBand::Normal);
        assert_eq!(aoa_band(0.8), AoaBand::Caution);
        assert_eq!(aoa_band(0.89), AoaBand::Caution);
        assert_eq!(aoa_band(0.9), AoaBand::Warning);
        assert_eq!(aoa_band(1.3), AoaBand::Warning);
        assert_eq!(
            aoa_band(-0.5),
            AoaBand::Normal,
            "negative AoA is far from a stall"
        );
        assert_eq!(aoa_band(f64::NAN), AoaBand::Warning);
    }
}
