//! Quantization of snapshot fields: signed fixed-point codes (clamped to the code range before
//! rounding half away from zero, stored offset-binary), the shared-origin grid, and
//! smallest-three quaternions. Pure arithmetic on f64: no bit casts reach the wire.

/// Position resolution (m per code).
pub const POS_STEP_M: f64 = 0.125;
/// Bits per position axis (±262 km at 0.125 m).
pub const POS_BITS: u32 = 22;
/// Bits per velocity axis.
pub const VEL_BITS: u32 = 18;
/// Velocity range (± m/s).
pub const VEL_MAX_MPS: f64 = 2000.0;
/// Bits per angular-rate axis.
pub const OMEGA_BITS: u32 = 12;
/// Angular-rate range (± rad/s).
pub const OMEGA_MAX_RAD_S: f64 = 20.0;
/// Bits per transmitted quaternion component.
pub const QUAT_BITS: u32 = 10;
/// Bound of the three smallest components of a unit quaternion.
pub const INV_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// Size of the shared origin grid cells (m). A power of two, so `origin + code × 0.125` is
/// exact in f64 for every origin the server produces.
pub const ORIGIN_GRID_M: f64 = 65536.0;

/// Velocity step (m/s per code): 2000 / 2^17.
pub const VEL_STEP: f64 = VEL_MAX_MPS / (1u32 << (VEL_BITS - 1)) as f64;
/// Angular-rate step (rad/s per code): 20 / 2^11.
pub const OMEGA_STEP: f64 = OMEGA_MAX_RAD_S / (1u32 << (OMEGA_BITS - 1)) as f64;
/// Quaternion component step: (1/√2) / 2^9.
pub const QUAT_STEP: f64 = INV_SQRT_2 / (1u32 << (QUAT_BITS - 1)) as f64;

/// Smallest code of a signed `bits`-wide field.
pub const fn code_min(bits: u32) -> i32 {
    -(1i32 << (bits - 1))
}

/// Largest code of a signed `bits`-wide field.
pub const fn code_max(bits: u32) -> i32 {
    (1i32 << (bits - 1)) - 1
}

/// Quantizes `value` to a signed code of `bits` bits at resolution `step`: the scaled value is
/// clamped to the code range first, then rounded half away from zero. NaN maps to 0.
pub fn quantize(value: f64, step: f64, bits: u32) -> i32 {
    let scaled = value / step;
    if scaled.is_nan() {
        return 0;
    }
    let clamped = scaled.clamp(f64::from(code_min(bits)), f64::from(code_max(bits)));
    // In range by the clamp.
    clamped.round() as i32
}

/// The value a signed code stands for.
pub fn dequantize(code: i32, step: f64) -> f64 {
    f64::from(code) * step
}

/// Signed code → unsigned wire field.
pub const fn to_offset_binary(code: i32, bits: u32) -> u32 {
    (code.wrapping_add(1 << (bits - 1)) as u32) & ((1u32 << bits) - 1)
}

/// Unsigned wire field → signed code.
pub const fn from_offset_binary(wire: u32, bits: u32) -> i32 {
    wire as i32 - (1 << (bits - 1))
}

/// The shared origin of the grid cell holding `pos`: `floor(pos / grid) × grid` per axis.
/// Non-finite coordinates map to 0 so a broken entity still encodes (clamped) instead of
/// poisoning the origin table.
pub fn origin_for(pos: [f64; 3]) -> [f64; 3] {
    pos.map(|p| {
        if p.is_finite() {
            (p / ORIGIN_GRID_M).floor() * ORIGIN_GRID_M
        } else {
            0.0
        }
    })
}

/// A smallest-three quaternion code: the dropped (largest) component's index and the other
/// three as signed codes, in ascending index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuatCode {
    /// Index of the dropped component in `[x, y, z, w]`.
    pub largest: u8,
    /// The other three components, each `round(c / QUAT_STEP)` in `−512..=511`.
    pub comps: [i16; 3],
}

impl QuatCode {
    /// The identity rotation.
    pub const IDENTITY: QuatCode = QuatCode {
        largest: 3,
        comps: [0, 0, 0],
    };

    /// Encodes `q = [x, y, z, w]`. The input is normalised first; a zero or non-finite
    /// quaternion encodes as the identity. The largest |component| is dropped (ties go to the
    /// lowest index) and all four are negated when it is negative.
    pub fn encode(q: [f64; 4]) -> QuatCode {
        let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        if !(norm.is_finite() && norm > 1e-12) {
            return QuatCode::IDENTITY;
        }
        let q = q.map(|c| c / norm);
        let mut largest = 0;
        for i in 1..4 {
            if q[i].abs() > q[largest].abs() {
                largest = i;
            }
        }
        let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
        let mut comps = [0i16; 3];
        let mut k = 0;
        for (i, c) in q.iter().enumerate() {
            if i != largest {
                // Within ±512 after the clamp inside `quantize`.
                comps[k] = quantize(sign * c, QUAT_STEP, QUAT_BITS) as i16;
                k += 1;
            }
        }
        QuatCode {
            largest: largest as u8,
            comps,
        }
    }

    /// Decodes to a unit `[x, y, z, w]`: the dropped component is rebuilt from the other three
    /// and the result renormalised (identity if degenerate).
    pub fn decode(self) -> [f64; 4] {
        let c = self.comps.map(|v| dequantize(i32::from(v), QUAT_STEP));
        let sum_sq = c.iter().map(|v| v * v).sum::<f64>();
        let largest = (1.0 - sum_sq).max(0.0).sqrt();
        let mut q = [0.0; 4];
        let mut k = 0;
        for (i, slot) in q.iter_mut().enumerate() {
            if i == usize::from(self.largest & 3) {
                *slot = largest;
            } else {
                *slot = c[k];
                k += 1;
            }
        }
        let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > 1e-9 {
            q.map(|v| v / norm)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_clamps_before_rounding_and_rounds_half_away_from_zero() {
        // 0.0625 m = half a step: rounds away from zero.
        assert_eq!(quantize(0.0625, POS_STEP_M, POS_BITS), 1);
        assert_eq!(quantize(-0.0625, POS_STEP_M, POS_BITS), -1);
        // Beyond the range: the largest code, not an overflow.
        assert_eq!(quantize(1e9, POS_STEP_M, POS_BITS), code_max(POS_BITS));
        assert_eq!(quantize(-1e9, POS_STEP_M, POS_BITS), code_min(POS_BITS));
        assert_eq!(quantize(2000.0, VEL_STEP, VEL_BITS), 131_071);
        assert_eq!(quantize(-2000.0, VEL_STEP, VEL_BITS), -131_072);
        assert_eq!(quantize(f64::NAN, VEL_STEP, VEL_BITS), 0);
        assert_eq!(quantize(f64::INFINITY, OMEGA_STEP, OMEGA_BITS), 2047);
    }

    #[test]
    fn offset_binary_round_trips_the_code_range() {
        for bits in [10u32, 12, 18, 22] {
            for code in [code_min(bits), -1, 0, 1, code_max(bits)] {
                let wire = to_offset_binary(code, bits);
                assert!(wire < (1 << bits));
                assert_eq!(from_offset_binary(wire, bits), code);
            }
        }
        assert_eq!(to_offset_binary(0, 22), 1 << 21);
        assert_eq!(to_offset_binary(code_min(18), 18), 0);
    }

    #[test]
    fn origins_are_grid_floors() {
        assert_eq!(origin_for([1.0, -1.0, 65536.0]), [0.0, -65536.0, 65536.0]);
        assert_eq!(origin_for([f64::NAN, 0.0, 0.0]), [0.0, 0.0, 0.0]);
    }

    #[test]
    fn smallest_three_drops_the_largest_with_ties_to_the_lowest_index() {
        let q = QuatCode::encode([0.5, 0.5, 0.5, 0.5]);
        assert_eq!(q.largest, 0);
        // Negative largest: all four are negated.
        let q = QuatCode::encode([0.1, -0.9, 0.2, 0.3]);
        assert_eq!(q.largest, 1);
        assert!(q.comps[0] < 0 && q.comps[1] < 0 && q.comps[2] < 0);
        assert_eq!(QuatCode::encode([0.0; 4]), QuatCode::IDENTITY);
        assert_eq!(
            QuatCode::encode([f64::NAN, 0.0, 0.0, 1.0]),
            QuatCode::IDENTITY
        );
    }

    #[test]
    fn smallest_three_round_trips_within_a_step() {
        let samples = [
            [0.0, 0.0, 0.0, 1.0],
            [0.3, -0.4, 0.5, 0.7],
            [-0.7, 0.1, 0.1, -0.7],
            [0.9, 0.1, -0.3, 0.2],
        ];
        for s in samples {
            let n = s.iter().map(|v| v * v).sum::<f64>().sqrt();
            let unit = s.map(|v| v / n);
            let d = QuatCode::encode(unit).decode();
            // q and −q are the same rotation.
            let dot: f64 = unit.iter().zip(d).map(|(a, b)| a * b).sum();
            assert!(dot.abs() > 1.0 - 1e-5, "{s:?} → {d:?}");
        }
    }

    #[test]
    fn hostile_codes_decode_to_a_unit_quaternion() {
        let d = QuatCode {
            largest: 2,
            comps: [511, 511, 511],
        }
        .decode();
        let n = d.iter().map(|v| v * v).sum::<f64>();
        assert!((n - 1.0).abs() < 1e-12);
    }
}
