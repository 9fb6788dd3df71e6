//! decode → JSON text → encode is the identity on bytes for every message kind (uncompressed
//! forms), for random valid messages across each field's whole range.

use fl_protocol::testing::{random_extensions, random_message};
use fl_protocol::{MsgId, Packet};
use serde_json::Value;

fn through_json(bytes: &[u8]) -> Vec<u8> {
    let value = fl_wire::decode_to_json(bytes).unwrap_or_else(|e| panic!("decode: {e:?}"));
    // Through text, as the CLI does, so float formatting is part of the loop.
    let text = serde_json::to_string(&value).expect("serialises");
    let parsed: Value = serde_json::from_str(&text).expect("parses");
    fl_wire::encode_from_json(&parsed).unwrap_or_else(|e| panic!("encode: {e:?}\n{text}"))
}

#[test]
fn every_message_survives_json() {
    for &id in MsgId::ALL {
        for seed in 0..300u64 {
            let mut packet = Packet::new(random_message(id, seed));
            if let fl_protocol::Message::WorldSnapshot(s) = &mut packet.message {
                s.flags &= !fl_protocol::snapshot::FLAG_COMPRESSED;
            }
            if packet.message.accepts_extensions() {
                packet.ext = random_extensions(seed.wrapping_mul(31));
            }
            let bytes = packet.encode().expect("encodes");
            assert_eq!(through_json(&bytes), bytes, "{id:?} seed {seed}");
        }
    }
}

#[test]
fn compressed_snapshots_decode_and_re_encode_compressed() {
    for seed in 0..50u64 {
        let mut snap = fl_protocol::testing::random_snapshot(seed);
        snap.flags = fl_protocol::snapshot::FLAG_COMPRESSED;
        let packet = Packet::new(snap);
        let bytes = packet.encode().expect("encodes");
        let again = through_json(&bytes);
        assert_eq!(Packet::decode(&again).expect("decodes"), packet);
    }
}

#[test]
fn json_names_follow_the_spec() {
    let bytes = Packet::new(random_message(MsgId::ConnectAck, 7))
        .encode()
        .expect("encodes");
    let v = fl_wire::decode_to_json(&bytes).expect("decodes");
    assert_eq!(v["msg"], "ConnectAck");
    for key in [
        "tickRateHz",
        "typeCount",
        "assignedEntityIdx",
        "assignedEntityGen",
        "planetRadiusKm",
        "grantedRole",
        "peerId",
    ] {
        assert!(v["fields"].get(key).is_some(), "missing {key}: {v}");
    }
    assert!(
        v["fields"].get("reserved2").is_none(),
        "reserved fields are omitted"
    );
    let n = v["fields"]["typeCount"].as_u64().expect("a number") as usize;
    assert_eq!(v["records"].as_array().expect("array").len(), n);
}

#[test]
fn snapshot_records_are_in_si_units() {
    use fl_protocol::snapshot::{
        EntityState, RecordKind, SnapshotRecord, WorldSnapshot, origin_for,
    };
    let state = EntityState {
        idx: 12,
        generation: 3,
        type_index: 1,
        faction_index: 2,
        position: [70_000.5, 1_200.25, -3.0],
        orientation: [0.0, 0.0, 0.0, 1.0],
        velocity: [250.0, 0.0, -15.625],
        omega: [0.3125, 0.0, 0.0],
        throttle_pct: 90,
        fuel_pct: 40,
        ab_engaged: true,
        player_owned: true,
        ..EntityState::default()
    };
    let origin = origin_for(state.position);
    let snap = WorldSnapshot {
        protocol_version: 1,
        tick_index: 99,
        flags: 0,
        origins: vec![origin],
        records: vec![SnapshotRecord::quantize(
            &state,
            0,
            origin,
            RecordKind::FULL.with_omega(),
        )],
    };
    let bytes = Packet::new(snap).encode().expect("encodes");
    let v = fl_wire::decode_to_json(&bytes).expect("decodes");
    let r = &v["records"][0];
    assert_eq!(r["position"], serde_json::json!([70_000.5, 1_200.25, -3.0]));
    assert_eq!(r["velocity"], serde_json::json!([250.0, 0.0, -15.625]));
    assert_eq!(r["omega"], serde_json::json!([0.3125, 0.0, 0.0]));
    assert_eq!(r["orientation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(r["full"], true);
    assert_eq!(r["gen"], 3);
    assert_eq!(r["abEngaged"], true);
    assert!(r.get("wire").is_none(), "exact values need no wire hint");
    assert_eq!(v["origins"], serde_json::json!([[65536.0, 0.0, -65536.0]]));
}

#[test]
fn bad_json_is_a_clear_error() {
    let cases = [
        (r#"{"msg":"Nope"}"#, "unknown message"),
        (
            r#"{"msg":"Hello","fields":{"protocolVersion":70000}}"#,
            "protocolVersion",
        ),
        (r#"{"msg":"Hello","fields":{"bogus":1}}"#, "bogus"),
        (
            r#"{"msg":"AlertLevelChange","fields":{"level":9}}"#,
            "ordinal",
        ),
        (
            r#"{"msg":"ConnectAck","fields":{"typeCount":2},"records":[{}]}"#,
            "typeCount",
        ),
        (
            r#"{"msg":"FactionDef","records":[]}"#,
            "at least one record",
        ),
        (r#"{"msg":"Hello","ext":[{"tag":4660,"value":1}]}"#, "raw"),
        (
            r#"{"msg":"WorldSnapshot","records":[{"originIndex":0}]}"#,
            "origins",
        ),
    ];
    for (input, needle) in cases {
        let v: Value = serde_json::from_str(input).expect("json");
        // As the CLI prints it: the error and its cause.
        let err = format!(
            "{:#}",
            anyhow::Error::new(fl_wire::encode_from_json(&v).expect_err(input))
        );
        assert!(err.contains(needle), "{input}: {err}");
    }
}

#[test]
fn bracketed_spec_spellings_are_accepted_on_encode() {
    let v: Value = serde_json::from_str(
        r#"{"msg":"FactionDef","records":[{"factionIndex":2,"id[64]":"blue","name[64]":"Blue"}]}"#,
    )
    .expect("json");
    let bytes = fl_wire::encode_from_json(&v).expect("encodes");
    let back = fl_wire::decode_to_json(&bytes).expect("decodes");
    assert_eq!(back["records"][0]["id"], "blue");
    assert_eq!(back["records"][0]["name"], "Blue");
}

#[test]
fn weather_window_copies_are_typed_and_survive_json() {
    use fl_protocol::tlv::{Ext, WeatherWindowCopy, WindKnot};
    let mut packet = Packet::new(random_message(MsgId::WeatherState, 3));
    packet.ext.push(&Ext::WeatherEpoch(660)).expect("fits");
    let copy = |back_ticks: u16, knots: usize| WeatherWindowCopy {
        back_ticks,
        wind_x: 3.25,
        wind_z: -0.0,
        turbulence_amp: 0.2,
        profile: (0..knots)
            .map(|i| WindKnot {
                alt_m: i as f32 * 3000.0,
                wind_x: f32::MIN_POSITIVE,
                wind_z: 1.0 / 3.0,
            })
            .collect(),
    };
    packet
        .ext
        .push(&Ext::WeatherWindowCopies(vec![copy(10, 3), copy(20, 0)]))
        .expect("fits");
    let bytes = packet.encode().expect("encodes");
    let v = fl_wire::decode_to_json(&bytes).expect("decodes");
    let entry = &v["ext"][1];
    assert_eq!(entry["name"], "WeatherWindowCopies", "{v}");
    assert_eq!(entry["value"][0]["backTicks"], 10, "typed, not raw: {v}");
    assert_eq!(
        entry["value"][0]["profile"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(through_json(&bytes), bytes);
}
