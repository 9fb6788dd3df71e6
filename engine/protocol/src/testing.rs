//! Test support (feature `testing`): seeded generators of random *valid* messages, built
//! through the same [`Source`] path the JSON tools use, so every field is exercised across its
//! whole range. Deterministic for a seed; not for production use.

use crate::Message;
use crate::field::{FieldError, Source};
use crate::ids::MsgId;
use crate::msg::RecordSource;
use crate::snapshot::quant::{QuatCode, code_max, code_min};
use crate::snapshot::{FullInfo, SnapshotRecord, WorldSnapshot};
use crate::tlv::{Ext, Extensions};

/// A small deterministic generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..=max`.
    pub fn upto(&mut self, max: u64) -> u64 {
        if max == u64::MAX {
            self.next_u64()
        } else {
            self.next_u64() % (max + 1)
        }
    }
    /// Edge values as often as the middle: 0, max, or uniform.
    pub fn edgy(&mut self, max: u64) -> u64 {
        match self.upto(3) {
            0 => 0,
            1 => max,
            _ => self.upto(max),
        }
    }
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
    /// A finite float of varied magnitude and sign.
    pub fn float(&mut self) -> f64 {
        let mantissa = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let exp = self.upto(40) as i32 - 20;
        let sign = if self.bool() { -1.0 } else { 1.0 };
        match self.upto(5) {
            0 => 0.0,
            _ => sign * mantissa * 2f64.powi(exp),
        }
    }
    /// Text of mixed ASCII and multi-byte characters, up to `max_chars` characters.
    pub fn text(&mut self, max_chars: usize) -> String {
        const CHARS: &[char] = &['a', 'Z', '0', ' ', '-', 'é', 'ß', 'Ж', '中', '🛩', '\u{7f}'];
        let n = self.upto(max_chars as u64) as usize;
        (0..n)
            .map(|_| CHARS[self.upto(CHARS.len() as u64 - 1) as usize])
            .collect()
    }
}

/// A [`Source`] and [`RecordSource`] that invents valid values.
#[derive(Debug)]
pub struct RandomSource {
    pub rng: Rng,
    records: usize,
    /// Index of the first datalink threat among the records.
    threat_split: usize,
}

impl RandomSource {
    /// A source with a random number (`min_records..=max_records`) of records.
    pub fn new(seed: u64, min_records: usize, max_records: usize) -> Self {
        let mut rng = Rng::new(seed);
        let records = min_records + rng.upto((max_records - min_records) as u64) as usize;
        let threat_split = rng.upto(records as u64) as usize;
        Self {
            rng,
            records,
            threat_split,
        }
    }
}

impl Source for RandomSource {
    fn uint(&mut self, _name: &'static str, max: u64) -> Result<u64, FieldError> {
        Ok(self.rng.edgy(max))
    }
    fn int(&mut self, _name: &'static str, min: i64, max: i64) -> Result<i64, FieldError> {
        let span = (max as i128 - min as i128) as u64;
        Ok((min as i128 + self.rng.edgy(span) as i128) as i64)
    }
    fn ordinal(&mut self, _name: &'static str, valid: &[u8]) -> Result<u64, FieldError> {
        Ok(u64::from(
            valid[self.rng.upto(valid.len() as u64 - 1) as usize],
        ))
    }
    fn float64(&mut self, _name: &'static str) -> Result<f64, FieldError> {
        Ok(self.rng.float())
    }
    fn float32(&mut self, _name: &'static str) -> Result<f32, FieldError> {
        Ok(self.rng.float() as f32)
    }
    fn floats64(&mut self, _name: &'static str, out: &mut [f64]) -> Result<(), FieldError> {
        for v in out {
            *v = self.rng.float();
        }
        Ok(())
    }
    fn floats32(&mut self, _name: &'static str, out: &mut [f32]) -> Result<(), FieldError> {
        for v in out {
            *v = self.rng.float() as f32;
        }
        Ok(())
    }
    fn text(&mut self, _name: &'static str) -> Result<String, FieldError> {
        Ok(self.rng.text(80))
    }
    fn optional_text(&mut self, _name: &'static str) -> Result<Option<String>, FieldError> {
        Ok(if self.rng.bool() {
            Some(self.rng.text(30))
        } else {
            None
        })
    }
    fn bytes(&mut self, _name: &'static str, out: &mut [u8]) -> Result<(), FieldError> {
        for b in out {
            *b = self.rng.next_u64() as u8;
        }
        Ok(())
    }
    fn blob(&mut self, _name: &'static str, max: usize) -> Result<Vec<u8>, FieldError> {
        let n = self.rng.upto(max as u64) as usize;
        Ok((0..n).map(|_| self.rng.next_u64() as u8).collect())
    }
    fn flag(&mut self, _name: &'static str) -> Result<bool, FieldError> {
        Ok(self.rng.bool())
    }
    fn count(&mut self, _name: &'static str) -> Result<Option<u64>, FieldError> {
        Ok(None)
    }
}

impl RecordSource for RandomSource {
    fn len(&self) -> usize {
        self.records
    }
    fn record(&mut self, _i: usize) -> &mut dyn Source {
        self
    }
    fn record_has(&self, i: usize, name: &str) -> bool {
        name == "emitterIdx" && i >= self.threat_split
    }
}

/// A random valid message of kind `id` (snapshots included).
pub fn random_message(id: MsgId, seed: u64) -> Message {
    if id == MsgId::WorldSnapshot {
        return Message::WorldSnapshot(random_snapshot(seed));
    }
    let mut fields = RandomSource::new(seed, 0, 0);
    // A concatenated-record message is its records: it needs at least one.
    let min = usize::from(matches!(id, MsgId::FactionDef | MsgId::MissionRoster));
    let mut records = RandomSource::new(seed ^ 0x5555, min, 6);
    match Message::build(id, &mut fields, &mut records) {
        Ok(m) => m,
        // Every builder accepts in-range values; reaching here is a bug in a builder.
        Err(e) => panic!("random {id:?} did not build: {e}"),
    }
}

/// A random valid snapshot (any codes, a few origins).
pub fn random_snapshot(seed: u64) -> WorldSnapshot {
    let mut rng = Rng::new(seed);
    let origins: Vec<[f64; 3]> = (0..=rng.upto(3))
        .map(|_| [rng.float(), rng.float(), rng.float()])
        .collect();
    let n = rng.upto(40) as usize;
    let code = |rng: &mut Rng, bits: u32| {
        let span = (code_max(bits) - code_min(bits)) as u64;
        (i64::from(code_min(bits)) + rng.edgy(span) as i64) as i32
    };
    let records = (0..n)
        .map(|_| SnapshotRecord {
            origin_index: rng.upto(origins.len() as u64 - 1) as u32,
            idx: rng.edgy(u64::from(u32::MAX)) as u32,
            generation: rng.bool().then(|| rng.next_u64() as u16),
            full: rng.bool().then(|| FullInfo {
                type_index: rng.edgy(u64::from(u32::MAX)) as u32,
                faction_index: rng.next_u64() as u16,
            }),
            position: [code(&mut rng, 22), code(&mut rng, 22), code(&mut rng, 22)],
            orientation: QuatCode {
                largest: rng.upto(3) as u8,
                comps: [
                    code(&mut rng, 10) as i16,
                    code(&mut rng, 10) as i16,
                    code(&mut rng, 10) as i16,
                ],
            },
            velocity: [code(&mut rng, 18), code(&mut rng, 18), code(&mut rng, 18)],
            omega: rng
                .bool()
                .then(|| [code(&mut rng, 12), code(&mut rng, 12), code(&mut rng, 12)]),
            damage_level: rng.upto(7) as u8,
            engine_fail_flags: rng.upto(31) as u8,
            throttle: rng.upto(127) as u8,
            fuel_pct: rng.upto(127) as u8,
            ab_engaged: rng.bool(),
            player_owned: rng.bool(),
        })
        .collect();
    WorldSnapshot {
        protocol_version: rng.next_u64() as u8,
        tick_index: rng.next_u64(),
        flags: if rng.upto(3) == 0 { 1 } else { 0 },
        origins,
        records,
    }
}

/// A random extension block of typed and unknown entries.
pub fn random_extensions(seed: u64) -> Extensions {
    let mut rng = Rng::new(seed);
    let mut ext = Extensions::new();
    for _ in 0..rng.upto(4) {
        let entry = match rng.upto(5) {
            0 => Ext::SnapshotPeerCount(rng.next_u64() as u16),
            1 => Ext::SnapshotDespawn((0..rng.upto(5)).map(|_| rng.next_u64() as u32).collect()),
            2 => Ext::SnapshotLastAckedSeqNum(rng.next_u64() as u32),
            3 => Ext::SnapshotOwnState {
                entity_idx: rng.next_u64() as u32,
                entity_gen: rng.next_u64() as u32,
                format: 1,
                words: (0..rng.upto(32)).map(|_| rng.float()).collect(),
            },
            4 => Ext::ConnectAckAuthority {
                caps: rng.next_u64(),
                faction_index: rng.next_u64() as u16,
            },
            _ => {
                // An unknown tag outside every reserved range.
                let data: Vec<u8> = (0..rng.upto(8)).map(|_| rng.next_u64() as u8).collect();
                let _ = ext.push_raw(0x7F00 | rng.upto(0xFF) as u16, &data);
                continue;
            }
        };
        let _ = ext.push(&entry);
    }
    ext
}
