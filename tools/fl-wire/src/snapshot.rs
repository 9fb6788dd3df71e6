//! `WorldSnapshot` as JSON: header fields, the origin table, records in SI units.
//!
//! A record shows absolute position (m), orientation `[x, y, z, w]`, velocity (m/s) and omega
//! (rad/s). Encoding quantizes them. Where re-quantizing the shown values would not give back
//! the original codes (an origin far from the grid, a degenerate quaternion code), the record
//! also carries `"wire": {"position": [codes], "orientation": [largest, c0, c1, c2]}`; encoding
//! uses those codes only while the SI values still equal what the codes decode to, so an edited
//! value always wins.

use crate::json::{JsonFields, f64_value, parse_f64};
use crate::{WireError, check_keys, jerr, tlv};
use fl_protocol::Extensions;
use fl_protocol::layout::Fixed;
use fl_protocol::snapshot::quant::{
    OMEGA_BITS, OMEGA_STEP, POS_BITS, POS_STEP_M, VEL_BITS, VEL_STEP, quantize,
};
use fl_protocol::snapshot::{FullInfo, QuatCode, SnapshotDecoder, SnapshotRecord, WorldSnapshot};
use serde_json::{Map, Value, json};

fn floats(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| f64_value(v)).collect())
}

fn requantize_position(offset: [f64; 3]) -> [i32; 3] {
    offset.map(|o| quantize(o, POS_STEP_M, POS_BITS))
}

/// Decodes a snapshot packet to JSON.
pub fn decode(bytes: &[u8]) -> Result<Value, WireError> {
    let (header, snap, ext) = SnapshotDecoder::new().decode(bytes)?;
    let mut fields = JsonFields::default();
    header.visit_fixed(&mut fields, &Default::default());
    let records: Vec<Value> = snap
        .records
        .iter()
        .map(|r| record_to_json(r, snap.origins[r.origin_index as usize]))
        .collect();
    Ok(json!({
        "msg": "WorldSnapshot",
        "fields": Value::Object(fields.0),
        "origins": snap.origins.iter().map(|o| floats(o)).collect::<Vec<_>>(),
        "records": records,
        "ext": tlv::to_json(&ext),
    }))
}

fn record_to_json(r: &SnapshotRecord, origin: [f64; 3]) -> Value {
    let mut m = Map::new();
    m.insert("originIndex".into(), json!(r.origin_index));
    m.insert("idx".into(), json!(r.idx));
    m.insert("full".into(), json!(r.full.is_some()));
    m.insert("genPresent".into(), json!(r.generation.is_some()));
    m.insert("omegaPresent".into(), json!(r.omega.is_some()));
    if let Some(g) = r.generation {
        m.insert("gen".into(), json!(g));
    }
    if let Some(full) = r.full {
        m.insert("typeIndex".into(), json!(full.type_index));
        m.insert("factionIndex".into(), json!(full.faction_index));
    }
    let position = r.position_m(origin);
    let orientation = r.orientation();
    m.insert("position".into(), floats(&position));
    m.insert("orientation".into(), floats(&orientation));
    m.insert("velocity".into(), floats(&r.velocity_mps()));
    if let Some(w) = r.omega_rad_s() {
        m.insert("omega".into(), floats(&w));
    }
    m.insert("damageLevel".into(), json!(r.damage_level));
    m.insert("engineFailFlags".into(), json!(r.engine_fail_flags));
    m.insert("throttle".into(), json!(r.throttle));
    m.insert("fuelPct".into(), json!(r.fuel_pct));
    m.insert("abEngaged".into(), json!(r.ab_engaged));
    m.insert("playerOwned".into(), json!(r.player_owned));

    let mut wire = Map::new();
    let offset: [f64; 3] = std::array::from_fn(|i| position[i] - origin[i]);
    if requantize_position(offset) != r.position {
        wire.insert("position".into(), json!(r.position));
    }
    if QuatCode::encode(orientation) != r.orientation {
        let q = r.orientation;
        wire.insert(
            "orientation".into(),
            json!([q.largest, q.comps[0], q.comps[1], q.comps[2]]),
        );
    }
    if !wire.is_empty() {
        m.insert("wire".into(), Value::Object(wire));
    }
    Value::Object(m)
}

const RECORD_KEYS: &[&str] = &[
    "originIndex",
    "idx",
    "full",
    "genPresent",
    "omegaPresent",
    "gen",
    "typeIndex",
    "factionIndex",
    "position",
    "orientation",
    "velocity",
    "omega",
    "damageLevel",
    "engineFailFlags",
    "throttle",
    "fuelPct",
    "abEngaged",
    "playerOwned",
    "wire",
];

/// Header fields that are derived from the contents (accepted, then recomputed).
const HEADER_KEYS: &[&str] = &[
    "protocolVersion",
    "recordCount",
    "bitstreamBytes",
    "tickIndex",
    "originCount",
    "flags",
    "uncompressedBytes",
];

fn uint<T: TryFrom<u64>>(obj: &Map<String, Value>, key: &str, what: &str) -> Result<T, WireError> {
    match obj.get(key) {
        None | Some(Value::Null) => T::try_from(0).map_err(|_| jerr("zero does not fit")),
        Some(v) => v.as_u64().and_then(|n| T::try_from(n).ok()).ok_or_else(|| {
            jerr(format!(
                "{what}.{key}: expected an unsigned integer in range, got {v}"
            ))
        }),
    }
}

fn flag(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<bool>, WireError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(jerr(format!(
            "{what}.{key}: expected true or false, got {v}"
        ))),
    }
}

fn vector<const N: usize>(
    obj: &Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<Option<[f64; N]>, WireError> {
    let Some(v) = obj.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let arr = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| jerr(format!("{what}.{key}: expected an array of {N} numbers")))?;
    let mut out = [0.0; N];
    for (slot, item) in out.iter_mut().zip(arr) {
        *slot = parse_f64(key, item).map_err(|e| jerr(format!("{what}: {e}")))?;
    }
    Ok(Some(out))
}

fn ints<const N: usize>(v: &Value, what: &str) -> Result<[i64; N], WireError> {
    let arr = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| jerr(format!("{what}: expected an array of {N} integers")))?;
    let mut out = [0i64; N];
    for (slot, item) in out.iter_mut().zip(arr) {
        *slot = item
            .as_i64()
            .ok_or_else(|| jerr(format!("{what}: {item} is not an integer")))?;
    }
    Ok(out)
}

/// Encodes a snapshot from JSON.
pub fn encode(obj: &Map<String, Value>, ext: &Extensions) -> Result<Vec<u8>, WireError> {
    let empty = Map::new();
    let fields = match obj.get("fields") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(jerr("fields must be an object")),
    };
    check_keys(fields, HEADER_KEYS, "WorldSnapshot.fields")?;
    let mut snap = WorldSnapshot {
        protocol_version: uint(fields, "protocolVersion", "fields")?,
        tick_index: uint(fields, "tickIndex", "fields")?,
        flags: uint(fields, "flags", "fields")?,
        ..Default::default()
    };
    if let Some(origins) = obj.get("origins").filter(|v| !v.is_null()) {
        let arr = origins
            .as_array()
            .ok_or_else(|| jerr("origins must be an array of [x, y, z]"))?;
        for (i, o) in arr.iter().enumerate() {
            let what = format!("origins[{i}]");
            let mut wrap = Map::new();
            wrap.insert("o".into(), o.clone());
            let v = vector::<3>(&wrap, "o", &what)?.unwrap_or([0.0; 3]);
            snap.origins.push(v);
        }
    }
    let records: &[Value] = match obj.get("records") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(a)) => a,
        Some(_) => return Err(jerr("records must be an array")),
    };
    for (i, r) in records.iter().enumerate() {
        let what = format!("records[{i}]");
        let o = r
            .as_object()
            .ok_or_else(|| jerr(format!("{what} must be an object")))?;
        snap.records
            .push(record_from_json(o, &snap.origins, &what)?);
    }
    Ok(snap.encode(ext)?)
}

fn record_from_json(
    o: &Map<String, Value>,
    origins: &[[f64; 3]],
    what: &str,
) -> Result<SnapshotRecord, WireError> {
    check_keys(o, RECORD_KEYS, what)?;
    let origin_index: u32 = uint(o, "originIndex", what)?;
    let origin = *origins.get(origin_index as usize).ok_or_else(|| {
        jerr(format!(
            "{what}.originIndex {origin_index} is outside the {} origins",
            origins.len()
        ))
    })?;
    let full = flag(o, "full", what)?
        .unwrap_or_else(|| o.contains_key("typeIndex") || o.contains_key("factionIndex"));
    let gen_present = flag(o, "genPresent", what)?.unwrap_or_else(|| o.contains_key("gen"));
    let omega = vector::<3>(o, "omega", what)?;
    let omega_present = flag(o, "omegaPresent", what)?.unwrap_or(omega.is_some());
    let position = vector::<3>(o, "position", what)?.unwrap_or(origin);
    let orientation = vector::<4>(o, "orientation", what)?.unwrap_or([0.0, 0.0, 0.0, 1.0]);
    let velocity = vector::<3>(o, "velocity", what)?.unwrap_or([0.0; 3]);

    let offset: [f64; 3] = std::array::from_fn(|i| position[i] - origin[i]);
    let mut record = SnapshotRecord {
        origin_index,
        idx: uint(o, "idx", what)?,
        generation: if gen_present {
            Some(uint(o, "gen", what)?)
        } else {
            None
        },
        full: if full {
            Some(FullInfo {
                type_index: uint(o, "typeIndex", what)?,
                faction_index: uint(o, "factionIndex", what)?,
            })
        } else {
            None
        },
        position: requantize_position(offset),
        orientation: QuatCode::encode(orientation),
        velocity: velocity.map(|v| quantize(v, VEL_STEP, VEL_BITS)),
        omega: if omega_present {
            Some(
                omega
                    .unwrap_or([0.0; 3])
                    .map(|w| quantize(w, OMEGA_STEP, OMEGA_BITS)),
            )
        } else {
            None
        },
        damage_level: bounded(o, "damageLevel", 7, what)?,
        engine_fail_flags: bounded(o, "engineFailFlags", 0x1F, what)?,
        throttle: bounded(o, "throttle", 127, what)?,
        fuel_pct: bounded(o, "fuelPct", 127, what)?,
        ab_engaged: flag(o, "abEngaged", what)?.unwrap_or(false),
        player_owned: flag(o, "playerOwned", what)?.unwrap_or(false),
    };
    apply_wire_hints(o, &mut record, origin, position, orientation, what)?;
    Ok(record)
}

fn bounded(o: &Map<String, Value>, key: &str, max: u8, what: &str) -> Result<u8, WireError> {
    let v: u8 = uint(o, key, what)?;
    if v > max {
        return Err(jerr(format!(
            "{what}.{key}: {v} does not fit its field (max {max})"
        )));
    }
    Ok(v)
}

/// Uses exact codes from a `wire` hint while the SI values still match what they decode to.
fn apply_wire_hints(
    o: &Map<String, Value>,
    record: &mut SnapshotRecord,
    origin: [f64; 3],
    position: [f64; 3],
    orientation: [f64; 4],
    what: &str,
) -> Result<(), WireError> {
    let Some(wire) = o.get("wire").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let wire = wire
        .as_object()
        .ok_or_else(|| jerr(format!("{what}.wire must be an object")))?;
    check_keys(wire, &["position", "orientation"], &format!("{what}.wire"))?;
    if let Some(p) = wire.get("position") {
        let codes = ints::<3>(p, &format!("{what}.wire.position"))?;
        let lim = 1i64 << (POS_BITS - 1);
        if codes.iter().all(|c| (-lim..lim).contains(c)) {
            let candidate = SnapshotRecord {
                position: codes.map(|c| c as i32),
                ..*record
            };
            if candidate.position_m(origin).map(f64::to_bits) == position.map(f64::to_bits) {
                record.position = candidate.position;
            }
        }
    }
    if let Some(q) = wire.get("orientation") {
        let [largest, c0, c1, c2] = ints::<4>(q, &format!("{what}.wire.orientation"))?;
        let ok = (0..4).contains(&largest) && [c0, c1, c2].iter().all(|c| (-512..512).contains(c));
        if ok {
            let code = QuatCode {
                largest: largest as u8,
                comps: [c0 as i16, c1 as i16, c2 as i16],
            };
            if code.decode().map(f64::to_bits) == orientation.map(f64::to_bits) {
                record.orientation = code;
            }
        }
    }
    Ok(())
}
