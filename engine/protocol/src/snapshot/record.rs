//! One quantized entity record of a snapshot: its fields as wire codes
//! ([`SnapshotRecord`]), its encoding as a byte-aligned body ([`RecordBody`], everything after
//! `originIndex`, encoded once per tick and stitched into many peers' streams), and the
//! conversions from and to SI state ([`EntityState`]).
//!
//! Bit layout, after the byte-aligned `originIndex` varint: `idx` varint, `full`, `genPresent`,
//! `omegaPresent`, `gen` 16 (if genPresent), `typeIndex` varint and `factionIndex` 16 (if full),
//! position 3×22, orientation 2+3×10, velocity 3×18, omega 3×12 (if omegaPresent),
//! damageLevel 3, engineFailFlags 5, throttle 7, fuelPct 7, abEngaged 1, playerOwned 1, then
//! zero padding to the next byte.

use super::bits::{BitReader, BitWriter, Truncated, VarintError, varint_len};
use super::quant::{
    OMEGA_BITS, OMEGA_STEP, POS_BITS, POS_STEP_M, QUAT_BITS, QuatCode, VEL_BITS, VEL_STEP,
    dequantize, from_offset_binary, quantize, to_offset_binary,
};

/// Bits of the trailing byte fields.
const DAMAGE_BITS: u32 = 3;
const ENGINE_FAIL_BITS: u32 = 5;
const PERCENT_BITS: u32 = 7;

/// Largest encoded body (idx and typeIndex at 5 bytes, every optional part present).
pub const MAX_BODY_BYTES: usize = 48;
/// Smallest possible stitched record: 1-byte originIndex and idx, no optional parts
/// (8 + 8 + 3 + 66 + 32 + 54 + 24 = 195 bits → 25 bytes). Decoders bound record counts by it.
pub const MIN_RECORD_BYTES: usize = 25;

/// The type and faction a full record carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FullInfo {
    pub type_index: u32,
    pub faction_index: u16,
}

/// One entity record as wire codes. Converting to SI ([`SnapshotRecord::position_m`], …) is
/// exact arithmetic on the codes, so encoding a decoded record gives back the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SnapshotRecord {
    /// Index into the snapshot's origin table.
    pub origin_index: u32,
    /// Absolute entity pool index.
    pub idx: u32,
    /// Truncated generation, when on the wire (`genPresent`).
    pub generation: Option<u16>,
    /// Type and faction, on a full record.
    pub full: Option<FullInfo>,
    /// Offset from the origin in 0.125 m codes (each within ±2^21).
    pub position: [i32; 3],
    pub orientation: QuatCode,
    /// Velocity codes of 2000/2^17 m/s (each within ±2^17).
    pub velocity: [i32; 3],
    /// Body rates p, q, r in codes of 20/2^11 rad/s, on the receiving peer's own entity.
    pub omega: Option<[i32; 3]>,
    /// 0..=7.
    pub damage_level: u8,
    /// 5 bits of `enums::engine_fail`.
    pub engine_fail_flags: u8,
    /// 0..=100 (7 bits on the wire).
    pub throttle: u8,
    /// 0..=100 (7 bits on the wire).
    pub fuel_pct: u8,
    pub ab_engaged: bool,
    pub player_owned: bool,
}

/// What variant of a record to encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordKind {
    /// Carry type and faction (first sight, generation change, until acked).
    pub full: bool,
    /// Carry the generation.
    pub generation: bool,
    /// Carry body rates (the receiving peer's own entity).
    pub omega: bool,
}

impl RecordKind {
    /// A full record with its generation.
    pub const FULL: RecordKind = RecordKind {
        full: true,
        generation: true,
        omega: false,
    };
    /// A steady-state delta.
    pub const DELTA: RecordKind = RecordKind {
        full: false,
        generation: false,
        omega: false,
    };
    /// The same kind with body rates (for the receiver's own entity).
    pub const fn with_omega(self) -> RecordKind {
        RecordKind {
            omega: true,
            ..self
        }
    }
}

/// An entity's state in SI units, as the simulation holds it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EntityState {
    pub idx: u32,
    /// The full generation; the wire carries its low 16 bits.
    pub generation: u32,
    pub type_index: u32,
    pub faction_index: u16,
    /// World position (m).
    pub position: [f64; 3],
    /// Orientation `[x, y, z, w]`.
    pub orientation: [f64; 4],
    /// World velocity (m/s).
    pub velocity: [f64; 3],
    /// Body rates p, q, r (rad/s).
    pub omega: [f64; 3],
    pub damage_level: u8,
    pub engine_fail_flags: u8,
    /// Throttle in percent (clamped to 0..=100).
    pub throttle_pct: u8,
    /// Fuel in percent (clamped to 0..=100).
    pub fuel_pct: u8,
    pub ab_engaged: bool,
    pub player_owned: bool,
}

/// A malformed record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordError {
    Truncated,
    BadVarint(VarintError),
    OriginIndexOutOfRange {
        origin_index: u32,
        origin_count: usize,
    },
}

impl From<Truncated> for RecordError {
    fn from(_: Truncated) -> Self {
        RecordError::Truncated
    }
}

impl From<VarintError> for RecordError {
    fn from(e: VarintError) -> Self {
        match e {
            VarintError::Truncated => RecordError::Truncated,
            other => RecordError::BadVarint(other),
        }
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Truncated => f.write_str("record truncated"),
            RecordError::BadVarint(VarintError::Overflow) => f.write_str("varint overflows u32"),
            RecordError::BadVarint(VarintError::Overlong) => {
                f.write_str("varint is not minimally encoded")
            }
            RecordError::BadVarint(VarintError::Truncated) => f.write_str("varint truncated"),
            RecordError::OriginIndexOutOfRange {
                origin_index,
                origin_count,
            } => write!(
                f,
                "originIndex {origin_index} outside the table of {origin_count}"
            ),
        }
    }
}

impl SnapshotRecord {
    /// Quantizes an entity relative to `origin` (normally [`super::origin_for`] of its position).
    pub fn quantize(
        state: &EntityState,
        origin_index: u32,
        origin: [f64; 3],
        kind: RecordKind,
    ) -> SnapshotRecord {
        SnapshotRecord {
            origin_index,
            idx: state.idx,
            generation: kind.generation.then_some(state.generation as u16),
            full: kind.full.then_some(FullInfo {
                type_index: state.type_index,
                faction_index: state.faction_index,
            }),
            position: std::array::from_fn(|i| {
                quantize(state.position[i] - origin[i], POS_STEP_M, POS_BITS)
            }),
            orientation: QuatCode::encode(state.orientation),
            velocity: state.velocity.map(|v| quantize(v, VEL_STEP, VEL_BITS)),
            omega: kind
                .omega
                .then(|| state.omega.map(|w| quantize(w, OMEGA_STEP, OMEGA_BITS))),
            damage_level: state.damage_level.min(7),
            engine_fail_flags: state.engine_fail_flags & 0x1F,
            throttle: state.throttle_pct.min(100),
            fuel_pct: state.fuel_pct.min(100),
            ab_engaged: state.ab_engaged,
            player_owned: state.player_owned,
        }
    }

    /// Absolute position (m) given the record's origin.
    pub fn position_m(&self, origin: [f64; 3]) -> [f64; 3] {
        std::array::from_fn(|i| origin[i] + dequantize(self.position[i], POS_STEP_M))
    }

    /// Offset from the origin (m).
    pub fn offset_m(&self) -> [f64; 3] {
        self.position.map(|c| dequantize(c, POS_STEP_M))
    }

    /// Unit orientation `[x, y, z, w]`.
    pub fn orientation(&self) -> [f64; 4] {
        self.orientation.decode()
    }

    /// World velocity (m/s).
    pub fn velocity_mps(&self) -> [f64; 3] {
        self.velocity.map(|c| dequantize(c, VEL_STEP))
    }

    /// Body rates (rad/s), when present.
    pub fn omega_rad_s(&self) -> Option<[f64; 3]> {
        self.omega.map(|w| w.map(|c| dequantize(c, OMEGA_STEP)))
    }

    /// Bytes of the stitched record (originIndex varint + body).
    pub fn stitched_len(&self) -> usize {
        varint_len(self.origin_index) + self.body_len()
    }

    /// Bytes of the body.
    pub fn body_len(&self) -> usize {
        let mut bits = varint_len(self.idx) * 8 + 3;
        if self.generation.is_some() {
            bits += 16;
        }
        if let Some(full) = self.full {
            bits += varint_len(full.type_index) * 8 + 16;
        }
        bits += 3 * POS_BITS as usize + 2 + 3 * QUAT_BITS as usize + 3 * VEL_BITS as usize;
        if self.omega.is_some() {
            bits += 3 * OMEGA_BITS as usize;
        }
        bits += (DAMAGE_BITS + ENGINE_FAIL_BITS + 2 * PERCENT_BITS + 2) as usize;
        bits.div_ceil(8)
    }

    /// Writes the body bits (everything after originIndex), byte-aligned at the end.
    fn write_body(&self, w: &mut BitWriter<'_>) {
        w.varint(self.idx);
        w.flag(self.full.is_some());
        w.flag(self.generation.is_some());
        w.flag(self.omega.is_some());
        if let Some(generation) = self.generation {
            w.write(u32::from(generation), 16);
        }
        if let Some(full) = self.full {
            w.varint(full.type_index);
            w.write(u32::from(full.faction_index), 16);
        }
        for c in self.position {
            w.write(to_offset_binary(c, POS_BITS), POS_BITS);
        }
        w.write(u32::from(self.orientation.largest & 3), 2);
        for c in self.orientation.comps {
            w.write(to_offset_binary(i32::from(c), QUAT_BITS), QUAT_BITS);
        }
        for c in self.velocity {
            w.write(to_offset_binary(c, VEL_BITS), VEL_BITS);
        }
        if let Some(omega) = self.omega {
            for c in omega {
                w.write(to_offset_binary(c, OMEGA_BITS), OMEGA_BITS);
            }
        }
        w.write(u32::from(self.damage_level), DAMAGE_BITS);
        w.write(u32::from(self.engine_fail_flags), ENGINE_FAIL_BITS);
        w.write(u32::from(self.throttle), PERCENT_BITS);
        w.write(u32::from(self.fuel_pct), PERCENT_BITS);
        w.flag(self.ab_engaged);
        w.flag(self.player_owned);
        w.align();
    }

    /// Reads one stitched record (originIndex + body) and skips its padding.
    pub fn read(r: &mut BitReader<'_>, origin_count: usize) -> Result<SnapshotRecord, RecordError> {
        let origin_index = r.varint()?;
        if origin_index as usize >= origin_count {
            return Err(RecordError::OriginIndexOutOfRange {
                origin_index,
                origin_count,
            });
        }
        let idx = r.varint()?;
        let full = r.flag()?;
        let gen_present = r.flag()?;
        let omega_present = r.flag()?;
        let generation = if gen_present {
            Some(r.read(16)? as u16)
        } else {
            None
        };
        let full = if full {
            let type_index = r.varint()?;
            let faction_index = r.read(16)? as u16;
            Some(FullInfo {
                type_index,
                faction_index,
            })
        } else {
            None
        };
        let mut position = [0i32; 3];
        for c in &mut position {
            *c = from_offset_binary(r.read(POS_BITS)?, POS_BITS);
        }
        let largest = r.read(2)? as u8;
        let mut comps = [0i16; 3];
        for c in &mut comps {
            // A 10-bit field: −512..=511 fits i16.
            *c = from_offset_binary(r.read(QUAT_BITS)?, QUAT_BITS) as i16;
        }
        let mut velocity = [0i32; 3];
        for c in &mut velocity {
            *c = from_offset_binary(r.read(VEL_BITS)?, VEL_BITS);
        }
        let omega = if omega_present {
            let mut w = [0i32; 3];
            for c in &mut w {
                *c = from_offset_binary(r.read(OMEGA_BITS)?, OMEGA_BITS);
            }
            Some(w)
        } else {
            None
        };
        let damage_level = r.read(DAMAGE_BITS)? as u8;
        let engine_fail_flags = r.read(ENGINE_FAIL_BITS)? as u8;
        let throttle = r.read(PERCENT_BITS)? as u8;
        let fuel_pct = r.read(PERCENT_BITS)? as u8;
        let ab_engaged = r.flag()?;
        let player_owned = r.flag()?;
        r.align();
        Ok(SnapshotRecord {
            origin_index,
            idx,
            generation,
            full,
            position,
            orientation: QuatCode { largest, comps },
            velocity,
            omega,
            damage_level,
            engine_fail_flags,
            throttle,
            fuel_pct,
            ab_engaged,
            player_owned,
        })
    }
}

/// An encoded record body (everything after `originIndex`), held inline: encoding it does not
/// allocate, and stitching it is a copy.
#[derive(Clone, Copy)]
pub struct RecordBody {
    len: u8,
    bytes: [u8; MAX_BODY_BYTES],
}

impl std::fmt::Debug for RecordBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordBody")
            .field("bytes", &self.as_bytes())
            .finish()
    }
}

impl PartialEq for RecordBody {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for RecordBody {}

impl RecordBody {
    /// Encodes the body of `record` (its `origin_index` is not part of the body).
    pub fn encode(record: &SnapshotRecord) -> RecordBody {
        let mut bytes = [0u8; MAX_BODY_BYTES];
        let mut w = BitWriter::new(&mut bytes);
        record.write_body(&mut w);
        // MAX_BODY_BYTES covers the largest possible record (41 bytes), so this never fails.
        let len = w.finish().unwrap_or(MAX_BODY_BYTES);
        RecordBody {
            len: len as u8,
            bytes,
        }
    }

    /// The body bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// An entity encoded once per tick: its shared origin plus the full and delta bodies every peer's
/// snapshot stitches (the receiving peer's own entity is encoded separately, with omega).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncodedEntity {
    pub idx: u32,
    /// The shared grid origin the bodies are relative to.
    pub origin: [f64; 3],
    pub full: RecordBody,
    pub delta: RecordBody,
}

impl EncodedEntity {
    /// Encodes `state` relative to the origin of its grid cell.
    pub fn encode(state: &EntityState) -> EncodedEntity {
        let origin = super::quant::origin_for(state.position);
        // Quantize once; the delta is the full record without type, faction and generation.
        let full = SnapshotRecord::quantize(state, 0, origin, RecordKind::FULL);
        let delta = SnapshotRecord {
            generation: None,
            full: None,
            ..full
        };
        EncodedEntity {
            idx: state.idx,
            origin,
            full: RecordBody::encode(&full),
            delta: RecordBody::encode(&delta),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_state() -> EntityState {
        EntityState {
            idx: 7,
            generation: 0x1_0003,
            type_index: 2,
            faction_index: 1,
            position: [70_000.0, 1_500.0, -12.3],
            orientation: [0.0, 0.38268343236508984, 0.0, 0.9238795325112867],
            velocity: [250.0, -3.0, 12.5],
            omega: [0.5, -0.1, 0.02],
            damage_level: 1,
            engine_fail_flags: 0,
            throttle_pct: 85,
            fuel_pct: 60,
            ab_engaged: true,
            player_owned: true,
        }
    }

    fn round_trip(record: &SnapshotRecord) -> SnapshotRecord {
        let body = RecordBody::encode(record);
        let mut stitched = Vec::new();
        super::super::bits::push_varint(&mut stitched, record.origin_index);
        stitched.extend_from_slice(body.as_bytes());
        assert_eq!(stitched.len(), record.stitched_len());
        let mut r = BitReader::new(&stitched);
        let back = SnapshotRecord::read(&mut r, record.origin_index as usize + 1).expect("valid");
        assert_eq!(r.bytes_consumed(), stitched.len());
        back
    }

    #[test]
    fn record_sizes_match_the_protocol_document() {
        let s = sample_state();
        let o = super::super::quant::origin_for(s.position);
        let delta = SnapshotRecord::quantize(&s, 0, o, RecordKind::DELTA);
        let full = SnapshotRecord::quantize(&s, 0, o, RecordKind::FULL);
        let own_full = SnapshotRecord::quantize(&s, 0, o, RecordKind::FULL.with_omega());
        // 8 + 3 + 66 + 32 + 54 + 24 = 187 bits.
        assert_eq!(RecordBody::encode(&delta).as_bytes().len(), 24);
        // + gen 16 + type 8 + faction 16 = 227 bits.
        assert_eq!(RecordBody::encode(&full).as_bytes().len(), 29);
        // + omega 36 = 263 bits.
        assert_eq!(RecordBody::encode(&own_full).as_bytes().len(), 33);
        assert_eq!(delta.stitched_len(), 25);
    }

    #[test]
    fn every_optional_combination_round_trips() {
        let s = sample_state();
        let o = super::super::quant::origin_for(s.position);
        for full in [false, true] {
            for generation in [false, true] {
                for omega in [false, true] {
                    let kind = RecordKind {
                        full,
                        generation,
                        omega,
                    };
                    let rec = SnapshotRecord::quantize(&s, 3, o, kind);
                    assert_eq!(round_trip(&rec), rec, "{kind:?}");
                }
            }
        }
    }

    #[test]
    fn si_values_are_within_half_a_step() {
        let s = sample_state();
        let o = super::super::quant::origin_for(s.position);
        let rec = round_trip(&SnapshotRecord::quantize(
            &s,
            0,
            o,
            RecordKind::FULL.with_omega(),
        ));
        for i in 0..3 {
            assert!((rec.position_m(o)[i] - s.position[i]).abs() <= POS_STEP_M / 2.0);
            assert!((rec.velocity_mps()[i] - s.velocity[i]).abs() <= VEL_STEP / 2.0);
            let w = rec.omega_rad_s().expect("present");
            assert!((w[i] - s.omega[i]).abs() <= OMEGA_STEP / 2.0);
        }
        assert_eq!(rec.generation, Some(3), "the low 16 bits of the generation");
    }

    #[test]
    fn out_of_range_values_clamp() {
        let mut s = sample_state();
        s.velocity = [5000.0, -5000.0, f64::NAN];
        s.throttle_pct = 250;
        s.damage_level = 9;
        s.engine_fail_flags = 0xFF;
        let rec = SnapshotRecord::quantize(&s, 0, [0.0; 3], RecordKind::DELTA);
        assert_eq!(rec.velocity, [131_071, -131_072, 0]);
        assert_eq!(
            (rec.throttle, rec.damage_level, rec.engine_fail_flags),
            (100, 7, 0x1F)
        );
        // Position 70 km from a zero origin still fits (±262 km).
        assert_eq!(rec.position[0], 560_000);
    }

    #[test]
    fn truncated_and_bad_records_fail_closed() {
        let s = sample_state();
        let rec = SnapshotRecord::quantize(&s, 0, [0.0; 3], RecordKind::FULL);
        let mut stitched = vec![0u8];
        stitched.extend_from_slice(RecordBody::encode(&rec).as_bytes());
        for cut in 0..stitched.len() {
            let mut r = BitReader::new(&stitched[..cut]);
            assert_eq!(SnapshotRecord::read(&mut r, 1), Err(RecordError::Truncated));
        }
        let mut r = BitReader::new(&stitched);
        assert_eq!(
            SnapshotRecord::read(&mut r, 0),
            Err(RecordError::OriginIndexOutOfRange {
                origin_index: 0,
                origin_count: 0
            })
        );
    }
}
