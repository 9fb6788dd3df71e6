//! The `ext` array: every TLV entry as `{"tag", "name", "value"}` with a typed value, or
//! `{"tag", "name", "raw": "<hex>"}` for a tag this build does not define or a payload that
//! does not have its defined shape (so re-encoding keeps the bytes).

use crate::json::{f32_value, f64_value, hex, parse_f32, parse_f64, unhex};
use crate::{WireError, check_keys, jerr};
use fl_protocol::tlv::{
    ArticulationEntry, CrewPose, EffectRecord, InputCopy, WeatherWindowCopy, WindKnot, tag,
};
use fl_protocol::{Ext, Extensions};
use serde_json::{Map, Value, json};

/// The block as JSON.
pub fn to_json(ext: &Extensions) -> Value {
    Value::Array(
        ext.iter()
            .map(|e| {
                let name = tag::name(e.tag).map_or(Value::Null, |n| Value::String(n.into()));
                // Typed only when the typed value encodes back to these very bytes (not, say,
                // invalid UTF-8 that a string would replace), so JSON never changes a packet.
                match Ext::parse(e.tag, e.data) {
                    Ok(typed) if canonical(&typed, e.data) => {
                        json!({"tag": e.tag, "name": name, "value": value_of(&typed)})
                    }
                    _ => json!({"tag": e.tag, "name": name, "raw": hex(e.data)}),
                }
            })
            .collect(),
    )
}

fn canonical(ext: &Ext, data: &[u8]) -> bool {
    let mut again = Vec::with_capacity(data.len());
    ext.encode_payload(&mut again);
    again == data
}

fn knot_json(k: &WindKnot) -> Value {
    json!({
        "altM": f32_value(k.alt_m),
        "windX": f32_value(k.wind_x),
        "windZ": f32_value(k.wind_z),
    })
}

fn knots_from_json(v: &Value, what: &str) -> Result<Vec<WindKnot>, String> {
    array(v, what)?
        .iter()
        .map(|k| {
            let o = object(k, what)?;
            Ok(WindKnot {
                alt_m: f32_of(field(o, "altM"), "altM")?,
                wind_x: f32_of(field(o, "windX"), "windX")?,
                wind_z: f32_of(field(o, "windZ"), "windZ")?,
            })
        })
        .collect()
}

fn value_of(ext: &Ext) -> Value {
    match ext {
        Ext::SnapshotPeerCount(v) | Ext::SnapshotPeerLatency(v) | Ext::SnapshotPeerDelayTicks(v) => {
            json!(v)
        }
        Ext::SnapshotLastAckedSeqNum(v) => json!(v),
        Ext::WeatherEpoch(v) => json!(v),
        Ext::SnapshotDespawn(ids) => json!(ids),
        Ext::SnapshotEffects(records) => Value::Array(
            records
                .iter()
                .map(|r| {
                    json!({
                        "type": r.kind,
                        "weaponClass": r.weapon_class,
                        "srcIdx": r.src_idx,
                        "tgtIdx": r.tgt_idx,
                        "pos": r.pos.iter().map(|&p| f32_value(p)).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        ),
        Ext::SnapshotCrew(entries) => Value::Array(
            entries
                .iter()
                .map(|e| {
                    json!({
                        "entityIdx": e.entity_idx,
                        "turrets": e.turrets.iter().map(|(az, el)| json!([az, el])).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        ),
        Ext::SnapshotArticulation(entries) => Value::Array(
            entries
                .iter()
                .map(|e| {
                    json!({"entityIdx": e.entity_idx, "channelMask": e.channel_mask, "values": e.values})
                })
                .collect(),
        ),
        Ext::SnapshotServerThrottle {
            load_pct,
            interval_ticks,
        } => json!({"loadPct": load_pct, "intervalTicks": interval_ticks}),
        Ext::SnapshotOwnState {
            entity_idx,
            entity_gen,
            format,
            words,
        } => json!({
            "entityIdx": entity_idx,
            "entityGen": entity_gen,
            "format": format,
            "words": words.iter().map(|&w| f64_value(w)).collect::<Vec<_>>(),
        }),
        Ext::ConnectAckAuthority {
            caps,
            faction_index,
        } => json!({"caps": caps, "factionIndex": faction_index}),
        Ext::ConnectAckTypesUnchanged => Value::Null,
        Ext::SnapshotInputTiming {
            target_lead,
            depth_ticks,
            queued,
        } => json!({"targetLead": target_lead, "depthTicks": depth_ticks, "queued": queued}),
        Ext::InputClockLead(v) => json!(v),
        Ext::InputViewDelay(v) => json!(v),
        Ext::InputDesignate(v) => json!(v),
        // `null` = the same as the entry before it.
        Ext::InputRedundancy(copies) => Value::Array(
            copies
                .iter()
                .map(|c| match c {
                    None => Value::Null,
                    Some(c) => json!({
                        "buttons": c.buttons,
                        "artButtons": c.art_buttons,
                        "selectedStation": c.selected_station,
                        "radarMode": c.radar_mode,
                        "flaps": c.flaps,
                        "speedbrake": c.speedbrake,
                        "throttle": f32_value(c.throttle),
                        "elevator": f32_value(c.elevator),
                        "aileron": f32_value(c.aileron),
                        "rudder": f32_value(c.rudder),
                    }),
                })
                .collect(),
        ),
        Ext::WeatherWindProfile(knots) => Value::Array(knots.iter().map(knot_json).collect()),
        Ext::WeatherWindowCopies(copies) => Value::Array(
            copies
                .iter()
                .map(|w| {
                    json!({
                        "backTicks": w.back_ticks,
                        "windX": f32_value(w.wind_x),
                        "windZ": f32_value(w.wind_z),
                        "turbulenceAmp": f32_value(w.turbulence_amp),
                        "profile": w.profile.iter().map(knot_json).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        ),
        Ext::ConnectSeatClaim {
            entity_idx,
            entity_gen,
            seat_index,
        } => json!({"entityIdx": entity_idx, "entityGen": entity_gen, "seatIndex": seat_index}),
        Ext::ConnectIdentity(s) | Ext::ConnectJoinPassword(s) | Ext::HelloBuildVersion(s) => {
            json!(s)
        }
    }
}

/// Reads the `ext` array back into a block.
pub fn from_json(value: Option<&Value>) -> Result<Extensions, WireError> {
    let items: &[Value] = match value {
        None | Some(Value::Null) => &[],
        Some(Value::Array(a)) => a,
        Some(_) => return Err(jerr("\"ext\" must be an array")),
    };
    let mut out = Extensions::new();
    for (i, item) in items.iter().enumerate() {
        let what = format!("ext[{i}]");
        let obj = item
            .as_object()
            .ok_or_else(|| jerr(format!("{what} must be an object")))?;
        check_keys(obj, &["tag", "name", "value", "raw"], &what)?;
        let tag_value = match (obj.get("tag"), obj.get("name").and_then(Value::as_str)) {
            (Some(t), _) => t
                .as_u64()
                .and_then(|t| u16::try_from(t).ok())
                .ok_or_else(|| jerr(format!("{what}.tag must be a number 0..=65535")))?,
            (None, Some(name)) => tag::from_name(name)
                .ok_or_else(|| jerr(format!("{what}: unknown tag name \"{name}\"")))?,
            (None, None) => return Err(jerr(format!("{what} needs a \"tag\" or a \"name\""))),
        };
        if let Some(raw) = obj.get("raw") {
            let text = raw
                .as_str()
                .ok_or_else(|| jerr(format!("{what}.raw must be a hex string")))?;
            let data = unhex(text).map_err(|e| jerr(format!("{what}.raw: {e}")))?;
            out.push_raw(tag_value, &data).map_err(jerr)?;
            continue;
        }
        let value = obj.get("value").unwrap_or(&Value::Null);
        let typed = typed_from_json(tag_value, value).map_err(|e| jerr(format!("{what}: {e}")))?;
        out.push(&typed).map_err(jerr)?;
    }
    Ok(out)
}

fn num<T: TryFrom<u64>>(v: &Value, what: &str) -> Result<T, String> {
    v.as_u64()
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| format!("{what}: expected an unsigned integer in range, got {v}"))
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a Value {
    obj.get(key).unwrap_or(&Value::Null)
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what}: expected an object"))
}

fn array<'a>(v: &'a Value, what: &str) -> Result<&'a [Value], String> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| format!("{what}: expected an array"))
}

fn f32_of(v: &Value, what: &str) -> Result<f32, String> {
    parse_f32(what, v).map_err(|e| e.to_string())
}

fn i32_of(v: &Value, what: &str) -> Result<i32, String> {
    v.as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| format!("{what}: expected an i32"))
}

fn string(v: &Value, what: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{what}: expected a string"))
}

fn typed_from_json(tag_value: u16, v: &Value) -> Result<Ext, String> {
    let name = tag::name(tag_value).ok_or_else(|| {
        format!("tag 0x{tag_value:04x} is not defined; give its bytes as \"raw\"")
    })?;
    Ok(match tag_value {
        tag::SNAPSHOT_PEER_COUNT => Ext::SnapshotPeerCount(num(v, name)?),
        tag::SNAPSHOT_PEER_LATENCY => Ext::SnapshotPeerLatency(num(v, name)?),
        tag::SNAPSHOT_PEER_DELAY_TICKS => Ext::SnapshotPeerDelayTicks(num(v, name)?),
        tag::SNAPSHOT_LAST_ACKED_SEQ_NUM => Ext::SnapshotLastAckedSeqNum(num(v, name)?),
        tag::WEATHER_EPOCH => Ext::WeatherEpoch(num(v, name)?),
        tag::SNAPSHOT_DESPAWN => Ext::SnapshotDespawn(
            array(v, name)?
                .iter()
                .map(|x| num(x, name))
                .collect::<Result<_, _>>()?,
        ),
        tag::SNAPSHOT_EFFECTS => Ext::SnapshotEffects(
            array(v, name)?
                .iter()
                .map(|r| {
                    let o = object(r, name)?;
                    let pos = array(field(o, "pos"), "pos")?;
                    if pos.len() != 3 {
                        return Err("pos: expected 3 numbers".to_owned());
                    }
                    Ok(EffectRecord {
                        kind: num(field(o, "type"), "type")?,
                        weapon_class: num(field(o, "weaponClass"), "weaponClass")?,
                        src_idx: num(field(o, "srcIdx"), "srcIdx")?,
                        tgt_idx: num(field(o, "tgtIdx"), "tgtIdx")?,
                        pos: [
                            f32_of(&pos[0], "pos")?,
                            f32_of(&pos[1], "pos")?,
                            f32_of(&pos[2], "pos")?,
                        ],
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        tag::SNAPSHOT_CREW => Ext::SnapshotCrew(
            array(v, name)?
                .iter()
                .map(|e| {
                    let o = object(e, name)?;
                    let turrets = array(field(o, "turrets"), "turrets")?
                        .iter()
                        .map(|t| {
                            let pair = array(t, "turret")?;
                            let code = |x: &Value| {
                                x.as_i64()
                                    .and_then(|n| i16::try_from(n).ok())
                                    .ok_or_else(|| format!("turret code {x} is not an i16"))
                            };
                            match pair {
                                [az, el] => Ok((code(az)?, code(el)?)),
                                _ => Err("turret: expected [az, el]".to_owned()),
                            }
                        })
                        .collect::<Result<_, String>>()?;
                    Ok(CrewPose {
                        entity_idx: num(field(o, "entityIdx"), "entityIdx")?,
                        turrets,
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        tag::SNAPSHOT_ARTICULATION => Ext::SnapshotArticulation(
            array(v, name)?
                .iter()
                .map(|e| {
                    let o = object(e, name)?;
                    let channel_mask: u16 = num(field(o, "channelMask"), "channelMask")?;
                    let values: Vec<u8> = array(field(o, "values"), "values")?
                        .iter()
                        .map(|x| num(x, "values"))
                        .collect::<Result<_, _>>()?;
                    if values.len() != channel_mask.count_ones() as usize {
                        return Err(format!(
                            "values: {} given for a mask of {} channels",
                            values.len(),
                            channel_mask.count_ones()
                        ));
                    }
                    Ok(ArticulationEntry {
                        entity_idx: num(field(o, "entityIdx"), "entityIdx")?,
                        channel_mask,
                        values,
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        tag::SNAPSHOT_SERVER_THROTTLE => {
            let o = object(v, name)?;
            Ext::SnapshotServerThrottle {
                load_pct: num(field(o, "loadPct"), "loadPct")?,
                interval_ticks: num(field(o, "intervalTicks"), "intervalTicks")?,
            }
        }
        tag::SNAPSHOT_OWN_STATE => {
            let o = object(v, name)?;
            Ext::SnapshotOwnState {
                entity_idx: num(field(o, "entityIdx"), "entityIdx")?,
                entity_gen: num(field(o, "entityGen"), "entityGen")?,
                format: num(field(o, "format"), "format")?,
                words: array(field(o, "words"), "words")?
                    .iter()
                    .map(|w| parse_f64("words", w).map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?,
            }
        }
        tag::CONNECT_ACK_AUTHORITY => {
            let o = object(v, name)?;
            Ext::ConnectAckAuthority {
                caps: num(field(o, "caps"), "caps")?,
                faction_index: num(field(o, "factionIndex"), "factionIndex")?,
            }
        }
        tag::CONNECT_ACK_TYPES_UNCHANGED => Ext::ConnectAckTypesUnchanged,
        tag::SNAPSHOT_INPUT_TIMING => {
            let o = object(v, name)?;
            Ext::SnapshotInputTiming {
                target_lead: i32_of(field(o, "targetLead"), "targetLead")?,
                depth_ticks: num(field(o, "depthTicks"), "depthTicks")?,
                queued: num(field(o, "queued"), "queued")?,
            }
        }
        tag::INPUT_CLOCK_LEAD => Ext::InputClockLead(i32_of(v, name)?),
        tag::INPUT_DESIGNATE => Ext::InputDesignate(num(v, name)?),
        tag::INPUT_VIEW_DELAY => Ext::InputViewDelay(
            array(v, name)?
                .iter()
                .map(|e| num(e, name))
                .collect::<Result<_, _>>()?,
        ),
        tag::INPUT_REDUNDANCY => Ext::InputRedundancy(
            array(v, name)?
                .iter()
                .map(|e| {
                    if e.is_null() {
                        return Ok(None);
                    }
                    let o = object(e, name)?;
                    Ok(Some(InputCopy {
                        buttons: num(field(o, "buttons"), "buttons")?,
                        art_buttons: num(field(o, "artButtons"), "artButtons")?,
                        selected_station: num(field(o, "selectedStation"), "selectedStation")?,
                        radar_mode: num(field(o, "radarMode"), "radarMode")?,
                        flaps: num(field(o, "flaps"), "flaps")?,
                        speedbrake: num(field(o, "speedbrake"), "speedbrake")?,
                        throttle: f32_of(field(o, "throttle"), "throttle")?,
                        elevator: f32_of(field(o, "elevator"), "elevator")?,
                        aileron: f32_of(field(o, "aileron"), "aileron")?,
                        rudder: f32_of(field(o, "rudder"), "rudder")?,
                    }))
                })
                .collect::<Result<_, String>>()?,
        ),
        tag::WEATHER_WIND_PROFILE => Ext::WeatherWindProfile(knots_from_json(v, name)?),
        tag::WEATHER_WINDOW_COPIES => Ext::WeatherWindowCopies(
            array(v, name)?
                .iter()
                .map(|w| {
                    let o = object(w, name)?;
                    Ok(WeatherWindowCopy {
                        back_ticks: num(field(o, "backTicks"), "backTicks")?,
                        wind_x: f32_of(field(o, "windX"), "windX")?,
                        wind_z: f32_of(field(o, "windZ"), "windZ")?,
                        turbulence_amp: f32_of(field(o, "turbulenceAmp"), "turbulenceAmp")?,
                        profile: knots_from_json(field(o, "profile"), "profile")?,
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        tag::CONNECT_SEAT_CLAIM => {
            let o = object(v, name)?;
            Ext::ConnectSeatClaim {
                entity_idx: num(field(o, "entityIdx"), "entityIdx")?,
                entity_gen: num(field(o, "entityGen"), "entityGen")?,
                seat_index: num(field(o, "seatIndex"), "seatIndex")?,
            }
        }
        tag::CONNECT_IDENTITY => Ext::ConnectIdentity(string(v, name)?),
        tag::CONNECT_JOIN_PASSWORD => Ext::ConnectJoinPassword(string(v, name)?),
        tag::HELLO_BUILD_VERSION => Ext::HelloBuildVersion(string(v, name)?),
        _ => return Err(format!("tag 0x{tag_value:04x} has no typed form")),
    })
}
