//! Golden bytes: worked examples whose bytes were computed by hand (with an independent script
//! that packs the spec's layouts and quantization rules directly — never with this crate), each
//! checked both ways: `encode(value) == bytes` and `decode(bytes) == value`.
//!
//! The same examples, annotated field by field and bit by bit, are in `docs/protocol.md`.

use fl_protocol::enums::{ChatChannel, ConnectRefusalCode, PeerRole, WeatherPreset, buttons};
use fl_protocol::msg::combat::{CombatEvent, CombatEventRecord};
use fl_protocol::msg::discovery::LanBeacon;
use fl_protocol::msg::handshake::{ConnectRefusal, ConnectRequest, Hello, Motd, PackManifestEntry};
use fl_protocol::msg::social::{Chat, ChatEvent};
use fl_protocol::msg::world::{ClientInput, WeatherState};
use fl_protocol::snapshot::quant::{OMEGA_STEP, POS_STEP_M, VEL_STEP};
use fl_protocol::snapshot::{
    Compression, EncodedEntity, EntityState, FullInfo, QuatCode, RecordBody, RecordKind,
    SnapshotRecord, SnapshotWriter, WorldSnapshot, origin_for,
};
use fl_protocol::tlv::{WindKnot, tag};
use fl_protocol::{Ext, Extensions, FixedStr, Message, Packet};

/// Concatenates byte pieces (to write long, mostly-zero packets legibly).
fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn zeros(n: usize) -> Vec<u8> {
    vec![0; n]
}

/// The two-way golden check.
fn golden(packet: &Packet, bytes: &[u8]) {
    let encoded = packet.encode().expect("golden value encodes");
    assert_eq!(hex(&encoded), hex(bytes), "encode(value) != golden bytes");
    let decoded = Packet::decode(bytes).expect("golden bytes decode");
    assert_eq!(&decoded, packet, "decode(bytes) != golden value");
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .map(|c| {
            c.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ext(entries: &[Ext]) -> Extensions {
    let mut e = Extensions::new();
    for x in entries {
        e.push(x).expect("extension fits");
    }
    e
}

// ---------------------------------------------------------------------------------------------
// MsgHello
// ---------------------------------------------------------------------------------------------

#[test]
fn hello() {
    let bytes = [
        0x00, // msgId Hello
        0x00, // reserved
        0x01, 0x00, // protocolVersion 1
    ];
    golden(
        &Packet::new(Hello {
            protocol_version: 1,
        }),
        &bytes,
    );

    // With the HelloBuildVersion TLV: tag 0x0600, len 5, "0.1.0" (no NUL).
    let with_build = [
        0x00, 0x00, 0x01, 0x00, // MsgHello
        0x00, 0x06, 0x05, 0x00, // tag 0x0600, len 5
        0x30, 0x2e, 0x31, 0x2e, 0x30, // "0.1.0"
    ];
    let packet = Packet {
        message: Hello {
            protocol_version: 1,
        }
        .into(),
        ext: ext(&[Ext::HelloBuildVersion("0.1.0".into())]),
    };
    golden(&packet, &with_build);
    let decoded = Packet::decode(&with_build).expect("decodes");
    assert_eq!(
        decoded.ext.get(tag::HELLO_BUILD_VERSION),
        Some(Ext::HelloBuildVersion("0.1.0".into()))
    );
}

// ---------------------------------------------------------------------------------------------
// MsgClientInput
// ---------------------------------------------------------------------------------------------

#[test]
fn client_input() {
    let bytes = [
        0x03, // msgId ClientInput
        0x03, // buttons: gun | afterburner
        0x01, 0x00, // protocolVersion 1
        0xe8, 0x03, 0x00, 0x00, // seqNum 1000
        0x14, 0x1a, 0x99, 0xbe, 0x1c, 0x00, 0x00, 0x00, // tickIndex 123456789012
        0x00, 0x00, 0x40, 0x3f, // throttle 0.75f
        0x00, 0x00, 0x80, 0xbe, // elevator -0.25f
        0xcd, 0xcc, 0xcc, 0x3d, // aileron 0.1f (0x3dcccccd)
        0x00, 0x00, 0x80, 0xbf, // rudder -1.0f
        0x9a, 0x99, 0x19, 0x3f, // viewAxis[0] 0.6f (0x3f19999a)
        0x00, 0x00, 0x00, 0x00, // viewAxis[1] 0.0f
        0xcd, 0xcc, 0x4c, 0xbf, // viewAxis[2] -0.8f (0xbf4ccccd)
        0x05, 0x00, 0x00, 0x80, // ackMask 0x80000005
        0x02, // selectedStation 2
        0x02, // radarMode 2 (TWS)
        0x80, // flaps 128
        0x00, // speedbrake 0
        0x01, // artButtons: gear down
        0x00, 0x00, 0x00, // reservedC
        0x00, 0x00, 0x00, 0x00, 0x00, 0x4a, 0x93, 0x40, // cameraEye[0] 1234.5
        0x00, 0x00, 0x00, 0x10, 0xae, 0x4d, 0x58, 0xc1, // cameraEye[1] -6371000.25
        0xfc, 0xa9, 0xf1, 0xd2, 0x4d, 0x62, 0x50, 0x3f, // cameraEye[2] 0.001
    ];
    let input = ClientInput {
        buttons: buttons::GUN | buttons::AFTERBURNER,
        protocol_version: 1,
        seq_num: 1000,
        tick_index: 123_456_789_012,
        throttle: 0.75,
        elevator: -0.25,
        aileron: 0.1,
        rudder: -1.0,
        view_axis: [0.6, 0.0, -0.8],
        ack_mask: 0x8000_0005,
        selected_station: 2,
        radar_mode: 2,
        flaps: 128,
        speedbrake: 0,
        art_buttons: 0x01,
        camera_eye: [1234.5, -6_371_000.25, 0.001],
    };
    golden(&Packet::new(input), &bytes);
}

// ---------------------------------------------------------------------------------------------
// MsgConnectRefusal: char[62] padding and UTF-8 truncation at the 61-byte boundary
// ---------------------------------------------------------------------------------------------

#[test]
fn connect_refusal_truncates_on_a_char_boundary() {
    // 60 × 'A' then 'é' (C3 A9) is 62 bytes; 61 fit, but byte 61 would split 'é', so the
    // reason keeps 60 bytes and the field ends with two NULs.
    let long = format!("{}é", "A".repeat(60));
    let bytes = cat(&[&[0x09, 0x0a], &[b'A'; 60], &[0x00, 0x00]]);
    assert_eq!(bytes.len(), 64);
    let value = ConnectRefusal {
        code: ConnectRefusalCode::BadPassword,
        reason: FixedStr::new(&long),
    };
    assert_eq!(value.reason.as_str(), "A".repeat(60));
    golden(&Packet::new(value), &bytes);
}

#[test]
fn connect_refusal_uses_all_61_bytes() {
    // 59 × 'B' + 'é' is exactly 61 bytes: it fits, and byte 63 is the terminator.
    let exact = format!("{}é", "B".repeat(59));
    let bytes = cat(&[&[0x09, 0x01], &[b'B'; 59], &[0xc3, 0xa9, 0x00]]);
    assert_eq!(bytes.len(), 64);
    let value = ConnectRefusal {
        code: ConnectRefusalCode::Banned,
        reason: FixedStr::new(&exact),
    };
    assert_eq!(value.reason.as_str(), exact);
    golden(&Packet::new(value), &bytes);
}

#[test]
fn connect_refusal_decoding_is_tolerant() {
    // Unknown code → Generic (documented fallback); invalid UTF-8 → U+FFFD; no NUL at all →
    // the whole field is read, then held to 61 bytes.
    let mut bytes = cat(&[&[0x09, 0xc8, b'o', b'k', 0xff, b'!', 0x00], &zeros(57)]);
    let p = Packet::decode(&bytes).expect("decodes");
    assert_eq!(
        p.message,
        Message::ConnectRefusal(ConnectRefusal {
            code: ConnectRefusalCode::Generic,
            reason: FixedStr::new("ok\u{fffd}!"),
        })
    );
    bytes[2..].fill(b'z');
    let Message::ConnectRefusal(r) = Packet::decode(&bytes).expect("decodes").message else {
        panic!("wrong message");
    };
    assert_eq!(r.reason.len(), 61);
}

// ---------------------------------------------------------------------------------------------
// MsgConnectRequest + one PackManifestEntry + ConnectJoinPassword TLV
// ---------------------------------------------------------------------------------------------

#[test]
fn connect_request_with_a_pack_and_a_password() {
    let bytes = cat(&[
        &[0x11],         // msgId ConnectRequest
        &[0x00],         // requestedRole Pilot
        &[0x01, 0x00],   // protocolVersion 1
        &[0x01, 0x00],   // packCount 1
        &[0x00, 0x00],   // reserved
        b"fl-base:f16c", // requestedEntityType[64]: 12 bytes …
        &zeros(52),      // … then NUL padding
        b"Viper",        // callsign[32]
        &zeros(27),
        // PackManifestEntry at 104
        b"fl-base", // id[64]
        &zeros(57),
        b"1.2.0", // version[32]
        &zeros(27),
        &zeros(32), // contentHash: all zero = not computed
        // TLV block at 232
        &[0x02, 0x05, 0x07, 0x00], // tag 0x0502 ConnectJoinPassword, len 7
        b"hunter2",
    ]);
    assert_eq!(bytes.len(), 104 + 128 + 4 + 7);
    let request = ConnectRequest {
        requested_role: PeerRole::Pilot,
        protocol_version: 1,
        requested_entity_type: FixedStr::new("fl-base:f16c"),
        callsign: FixedStr::new("Viper"),
        packs: vec![PackManifestEntry {
            id: FixedStr::new("fl-base"),
            version: FixedStr::new("1.2.0"),
            content_hash: [0; 32],
        }],
    };
    let packet = Packet {
        message: request.into(),
        ext: ext(&[Ext::ConnectJoinPassword("hunter2".into())]),
    };
    golden(&packet, &bytes);
    assert_eq!(
        Packet::decode(&bytes)
            .expect("decodes")
            .ext
            .get(tag::CONNECT_JOIN_PASSWORD),
        Some(Ext::ConnectJoinPassword("hunter2".into()))
    );
}

// ---------------------------------------------------------------------------------------------
// MsgWeatherState + WeatherWindProfile TLV
// ---------------------------------------------------------------------------------------------

#[test]
fn weather_state_with_a_wind_profile() {
    let bytes = [
        0x04, // msgId WeatherState
        0x03, // preset Rain
        0x91, 0x00, // timeOfDayTenths 145 (14.5 h)
        0x6f, 0x12, 0x03, 0x3a, // fogDensity 0.0005f (0x3a03126f)
        0x00, 0x80, 0xbb, 0x44, // fogStartDist 1500.0f
        0x00, 0x00, 0xb0, 0x40, // windX 5.5f
        0x00, 0x00, 0x10, 0xc0, // windZ -2.25f
        0x00, 0x00, 0xc0, 0x3f, // turbulenceAmp 1.5f
        0x00, 0x00, 0x00, 0x20, 0x02, 0xc6, 0x42, 0x41, // utcJulianDay 2460676.25
        0x00, 0x04, 0x19, 0x00, // tag 0x0400 WeatherWindProfile, len 25
        0x02, // count 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0x40, 0x00, 0x00, 0x10,
        0xc0, // knot 0: altM 0, windX 5.5, windZ -2.25
        0x00, 0x80, 0x3b, 0x45, 0x00, 0x00, 0x40, 0x41, 0x00, 0x00, 0x80,
        0xc0, // knot 1: altM 3000, windX 12, windZ -4
    ];
    let weather = WeatherState {
        preset: WeatherPreset::Rain,
        time_of_day_tenths: 145,
        fog_density: 0.0005,
        fog_start_dist: 1500.0,
        wind_x: 5.5,
        wind_z: -2.25,
        turbulence_amp: 1.5,
        utc_julian_day: 2_460_676.25,
    };
    let knots = vec![
        WindKnot {
            alt_m: 0.0,
            wind_x: 5.5,
            wind_z: -2.25,
        },
        WindKnot {
            alt_m: 3000.0,
            wind_x: 12.0,
            wind_z: -4.0,
        },
    ];
    let packet = Packet {
        message: weather.into(),
        ext: ext(&[Ext::WeatherWindProfile(knots.clone())]),
    };
    golden(&packet, &bytes);
    assert_eq!(
        Packet::decode(&bytes)
            .expect("decodes")
            .ext
            .get(tag::WEATHER_WIND_PROFILE),
        Some(Ext::WeatherWindProfile(knots))
    );
}

// ---------------------------------------------------------------------------------------------
// MsgCombatEvent with two records
// ---------------------------------------------------------------------------------------------

#[test]
fn combat_event_with_a_kill_and_stats() {
    let bytes = [
        0x0f, 0x02, 0x00, 0x00, // msgId CombatEvent, count 2, reserved
        // Kill: type 0, weaponClass Gun (3)
        0x00, 0x03, 0x00, 0x00, // type, weaponClass, reserved
        0x2a, 0x00, 0x00, 0x00, // subjectIdx 42
        0x07, 0x00, 0x00, 0x00, // subjectGen 7, pad0
        0x11, 0x00, 0x00, 0x00, // instigatorIdx 17
        0x03, 0x00, 0x00, 0x00, // instigatorGen 3, pad1
        0x05, 0x00, 0x00, 0x00, // a: instigator's peer 5
        0xff, 0xff, 0xff, 0xff, // b: subject's peer = none (AI)
        0x00, 0x00, 0x00, 0x00, // c: 0
        // Stats: type 1, weaponClass none
        0x01, 0xff, 0x00, 0x00, // type, weaponClass 0xFF, reserved
        0x11, 0x00, 0x00, 0x00, // subjectIdx 17
        0x03, 0x00, 0x00, 0x00, // subjectGen 3, pad0
        0x00, 0x00, 0x00, 0x00, // instigatorIdx 0
        0x00, 0x00, 0x00, 0x00, // instigatorGen 0, pad1
        0x04, 0x00, 0x00, 0x00, // a: kills 4
        0x02, 0x00, 0x00, 0x00, // b: losses 2
        0xce, 0xff, 0xff, 0xff, // c: score -50
    ];
    let event = CombatEvent {
        records: vec![
            CombatEventRecord {
                kind: 0,
                weapon_class: 3,
                subject_idx: 42,
                subject_gen: 7,
                instigator_idx: 17,
                instigator_gen: 3,
                a: 5,
                b: 0xFFFF_FFFF,
                c: 0,
            },
            CombatEventRecord {
                kind: 1,
                weapon_class: 0xFF,
                subject_idx: 17,
                subject_gen: 3,
                instigator_idx: 0,
                instigator_gen: 0,
                a: 4,
                b: 2,
                c: -50,
            },
        ],
    };
    golden(&Packet::new(event), &bytes);
}

// ---------------------------------------------------------------------------------------------
// MsgWorldSnapshot: one origin, an own-entity full record and a delta, SnapshotPeerCount TLV
// ---------------------------------------------------------------------------------------------

/// The shared origin of both entities: floor(p / 65536) × 65536 per axis.
const ORIGIN: [f64; 3] = [65536.0, 0.0, -65536.0];

/// Entity A: the receiving peer's own aircraft (full record with generation and omega).
fn state_a() -> EntityState {
    EntityState {
        idx: 300,
        generation: 0x0001_0005, // the wire carries the low 16 bits: 5
        type_index: 200,
        faction_index: 1,
        position: [70_000.0, 1500.0, -12.3],
        orientation: [-0.5, 0.5, -0.5, 0.5],
        velocity: [250.0, -3.0, 2100.0],
        omega: [0.5, -0.1, 20.5],
        damage_level: 1,
        engine_fail_flags: 0x02,
        throttle_pct: 85,
        fuel_pct: 60,
        ab_engaged: true,
        player_owned: true,
    }
}

/// Entity B: an AI aircraft in steady state (delta record).
fn state_b() -> EntityState {
    EntityState {
        idx: 5,
        generation: 9,
        type_index: 0,
        faction_index: 0,
        position: [66_000.5, 2000.0625, -100.0],
        orientation: [0.0, 0.382_683_432_365_089_8, 0.0, 0.923_879_532_511_286_7],
        velocity: [-250.007_629_394_531_25, 0.0, 10.0],
        omega: [0.0; 3],
        damage_level: 0,
        engine_fail_flags: 0,
        throttle_pct: 70,
        fuel_pct: 45,
        ab_engaged: false,
        player_owned: false,
    }
}

/// A's codes, worked by hand:
/// - position − origin = (4464, 1500, 65523.7) m → /0.125 → 35712, 12000, 524189.6 → 524190;
/// - q = (−0.5, 0.5, −0.5, 0.5): all |c| tie, index 0 wins; it is negative, so all four are
///   negated to (0.5, −0.5, 0.5, −0.5); y, z, w go out as ±0.5 / ((1/√2)/512) = ±362.04 → ±362;
/// - velocity /(2000/2^17): 16384, −196.6 → −197, 137625.6 clamped to 131071 before rounding;
/// - omega /(20/2^11): 51.2 → 51, −10.24 → −10, 2099.2 clamped to 2047.
fn record_a() -> SnapshotRecord {
    SnapshotRecord {
        origin_index: 0,
        idx: 300,
        generation: Some(5),
        full: Some(FullInfo {
            type_index: 200,
            faction_index: 1,
        }),
        position: [35712, 12000, 524_190],
        orientation: QuatCode {
            largest: 0,
            comps: [-362, 362, -362],
        },
        velocity: [16384, -197, 131_071],
        omega: Some([51, -10, 2047]),
        damage_level: 1,
        engine_fail_flags: 0x02,
        throttle: 85,
        fuel_pct: 60,
        ab_engaged: true,
        player_owned: true,
    }
}

/// B's codes: position − origin = (464.5, 2000.0625, 65436) → 3716, 16000.5 → 16001 (half away
/// from zero), 523488; q = (0, sin 22.5°, 0, cos 22.5°): w is largest and positive, x, y, z go
/// out as 0, 277.09 → 277, 0; velocity −16384.5 → −16385 (half away from zero), 0, 655.36 → 655.
fn record_b() -> SnapshotRecord {
    SnapshotRecord {
        origin_index: 0,
        idx: 5,
        generation: None,
        full: None,
        position: [3716, 16001, 523_488],
        orientation: QuatCode {
            largest: 3,
            comps: [0, 277, 0],
        },
        velocity: [-16385, 0, 655],
        omega: None,
        damage_level: 0,
        engine_fail_flags: 0,
        throttle: 70,
        fuel_pct: 45,
        ab_engaged: false,
        player_owned: false,
    }
}

/// A's body (after originIndex): 279 bits + 1 pad bit = 35 bytes. See docs/protocol.md for the
/// bit-by-bit table.
const BODY_A: [u8; 35] = [
    0xac, 0x02, // idx 300 = groups 0xAC (0x2C | more), 0x02
    0xe0, 0x00, 0xb9, 0x00, 0x20, 0x00, 0x30, 0x45, 0xc0, 0x40, 0x5d, 0xc1, 0x3f, 0xfc, 0xf0, 0x4b,
    0x6d, 0x44, 0xb4, 0x80, 0x00, 0xff, 0x9d, 0xff, 0xff, 0xf0, 0x66, 0xfe, 0xdf, 0xfe, 0x45, 0x55,
    0xe6,
];

/// B's body: 187 bits + 5 pad bits = 24 bytes.
const BODY_B: [u8; 24] = [
    0x05, // idx 5
    0x10, 0x07, 0x42, 0x40, 0x7d, 0x03, 0x3f, 0xe7, 0x07, 0x00, 0x62, 0xb0, 0x03, 0x7f, 0xff, 0x00,
    0x00, 0x40, 0x51, 0xe0, 0x11, 0x96, 0x80,
];

fn snapshot_bytes() -> Vec<u8> {
    cat(&[
        // Header (24 bytes)
        &[0x02],                                           // msgId WorldSnapshot
        &[0x01],                                           // protocolVersion 1
        &[0x02, 0x00],                                     // recordCount 2
        &[0x3d, 0x00, 0x00, 0x00], // bitstreamBytes 61 = (1 + 35) + (1 + 24)
        &[0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], // tickIndex 1000
        &[0x01, 0x00],             // originCount 1
        &[0x00, 0x00],             // flags 0 (raw body)
        &[0x00, 0x00, 0x00, 0x00], // uncompressedBytes 0
        // Origin table (1 × double[3])
        &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x40], // 65536.0
        &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], // 0.0
        &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0xc0], // -65536.0
        // Record stream (61 bytes)
        &[0x00], // originIndex 0
        &BODY_A,
        &[0x00], // originIndex 0
        &BODY_B,
        // TLV block
        &[0x00, 0x01, 0x02, 0x00, 0x03, 0x00], // SnapshotPeerCount (0x0100), len 2, value 3
    ])
}

fn snapshot_packet() -> Packet {
    Packet {
        message: WorldSnapshot {
            protocol_version: 1,
            tick_index: 1000,
            flags: 0,
            origins: vec![ORIGIN],
            records: vec![record_a(), record_b()],
        }
        .into(),
        ext: ext(&[Ext::SnapshotPeerCount(3)]),
    }
}

#[test]
fn world_snapshot_golden_bytes() {
    let bytes = snapshot_bytes();
    assert_eq!(bytes.len(), 24 + 24 + 61 + 6);
    golden(&snapshot_packet(), &bytes);
}

#[test]
fn world_snapshot_quantization_gives_the_hand_computed_codes() {
    assert_eq!(origin_for(state_a().position), ORIGIN);
    assert_eq!(origin_for(state_b().position), ORIGIN);
    let own = RecordKind::FULL.with_omega();
    assert_eq!(
        SnapshotRecord::quantize(&state_a(), 0, ORIGIN, own),
        record_a()
    );
    assert_eq!(
        SnapshotRecord::quantize(&state_b(), 0, ORIGIN, RecordKind::DELTA),
        record_b()
    );
    assert_eq!(RecordBody::encode(&record_a()).as_bytes(), BODY_A);
    assert_eq!(RecordBody::encode(&record_b()).as_bytes(), BODY_B);
}

#[test]
fn world_snapshot_encode_once_and_stitch_gives_the_same_packet() {
    // B is encoded once per tick (full + delta bodies shared by every peer); A is the receiving
    // peer's own entity, re-encoded for that peer with omega.
    let b = EncodedEntity::encode(&state_b());
    assert_eq!(b.origin, ORIGIN);
    assert_eq!(b.delta.as_bytes(), BODY_B);
    let own = RecordBody::encode(&SnapshotRecord::quantize(
        &state_a(),
        0,
        ORIGIN,
        RecordKind::FULL.with_omega(),
    ));

    let mut writer = SnapshotWriter::new();
    writer.begin();
    writer.push(ORIGIN, &own).expect("fits");
    writer.push(b.origin, &b.delta).expect("fits");
    let mut out = Vec::new();
    let size = writer
        .finish(
            1000,
            &ext(&[Ext::SnapshotPeerCount(3)]),
            Compression::WhenSmaller { level: 1 },
            &mut out,
        )
        .expect("finishes");
    // A 91-byte body is under the 128-byte floor: sent raw.
    assert!(!size.compressed);
    assert_eq!(size.raw_body, 91);
    assert_eq!(hex(&out), hex(&snapshot_bytes()));
}

#[test]
fn world_snapshot_decodes_to_si_values() {
    let Message::WorldSnapshot(snap) = Packet::decode(&snapshot_bytes()).expect("decodes").message
    else {
        panic!("not a snapshot");
    };
    let (a, b) = (&snap.records[0], &snap.records[1]);
    let o = snap.origins[0];
    // Exact: origin + code × 0.125 with a power-of-two origin.
    assert_eq!(a.position_m(o), [70_000.0, 1500.0, -12.25]);
    assert_eq!(b.position_m(o), [66_000.5, 2000.125, -100.0]);
    for (got, sent) in a.position_m(o).iter().zip(state_a().position) {
        assert!((got - sent).abs() <= POS_STEP_M / 2.0);
    }
    assert_eq!(a.velocity_mps()[0], 250.0);
    assert_eq!(
        a.velocity_mps()[2],
        131_071.0 * VEL_STEP,
        "clamped to the top code"
    );
    assert_eq!(b.velocity_mps()[0], -16385.0 * VEL_STEP);
    let w = a.omega_rad_s().expect("own record has omega");
    assert_eq!(
        w,
        [51.0 * OMEGA_STEP, -10.0 * OMEGA_STEP, 2047.0 * OMEGA_STEP]
    );
    assert_eq!(b.omega_rad_s(), None);
    // Same rotation as sent (q and −q are equal rotations).
    for (rec, state) in [(a, state_a()), (b, state_b())] {
        let q = rec.orientation();
        let dot: f64 = q.iter().zip(state.orientation).map(|(x, y)| x * y).sum();
        assert!(dot.abs() > 1.0 - 1e-5, "{q:?}");
    }
}

#[test]
fn world_snapshot_decoder_decisions() {
    let good = snapshot_bytes();
    // A record stream with bytes after the last record is rejected.
    let mut trailing = good.clone();
    trailing[4] = 62; // bitstreamBytes 62
    trailing.insert(24 + 24 + 61, 0x00);
    assert!(Packet::decode(&trailing).is_err());
    // uncompressedBytes must be 0 on a raw body.
    let mut claim = good.clone();
    claim[20] = 1;
    assert!(Packet::decode(&claim).is_err());
    // A non-minimal varint (idx 5 as 0x85 0x00) is rejected.
    let mut overlong = good.clone();
    let b_start = 24 + 24 + 1 + 35 + 1;
    assert_eq!(overlong[b_start], 0x05);
    overlong[b_start] = 0x85;
    overlong.insert(b_start + 1, 0x00);
    overlong[4] = 62;
    assert!(Packet::decode(&overlong).is_err());
    // originIndex outside the table.
    let mut origin = good;
    origin[48] = 1;
    assert!(Packet::decode(&origin).is_err());
}

// ---------------------------------------------------------------------------------------------
// Variable-length text messages and the LAN beacon
// ---------------------------------------------------------------------------------------------

#[test]
fn motd() {
    let bytes = cat(&[&[0x08, 0x00, 0x14, 0x00], b"Welcome\nFly safe", &[0x00]]);
    golden(
        &Packet::new(Motd {
            display_seconds: 20,
            text: "Welcome\nFly safe".into(),
        }),
        &bytes,
    );
}

#[test]
fn chat_and_chat_event() {
    let chat = cat(&[&[0x20, 0x01, 0x00, 0x00], b"Bandit, nose hot", &[0x00]]);
    golden(
        &Packet::new(Chat {
            channel: ChatChannel::Team,
            text: "Bandit, nose hot".into(),
        }),
        &chat,
    );
    let event = cat(&[
        &[0x21, 0x00, 0x00, 0x00],
        &[0xff, 0xff, 0xff, 0xff], // senderPeerId: none = a system line
        b"Server restarting",
        &[0x00],
    ]);
    golden(
        &Packet::new(ChatEvent {
            channel: ChatChannel::All,
            sender_peer_id: 0xFFFF_FFFF,
            text: "Server restarting".into(),
        }),
        &event,
    );
}

#[test]
fn lan_beacon_full_and_legacy() {
    let full = cat(&[
        &[0x40, 0x00],    // msgId LanBeacon, reserved
        &[0x01, 0x00],    // protocolVersion 1
        &[0xaa, 0x12],    // gamePort 4778
        &[0x03, 0x10],    // playerCount 3, maxPlayers 16
        &[0x14, 0x00],    // gameModeFlags sandbox | passworded, reserved2
        &[0x00, 0x00],    // shutdownSeconds 0
        &[0xab, 0x12],    // queryPort 4779
        b"Riverside LAN", // name[64]
        &zeros(51),
        b"0.3.14", // build[24] at 78
        &zeros(18),
    ]);
    assert_eq!(full.len(), 102);
    let beacon = LanBeacon {
        protocol_version: 1,
        game_port: 4778,
        player_count: 3,
        max_players: 16,
        game_mode_flags: 0x14,
        shutdown_seconds: 0,
        query_port: 4779,
        name: FixedStr::new("Riverside LAN"),
        build: Some(FixedStr::new("0.3.14")),
    };
    golden(&Packet::new(beacon.clone()), &full);
    // The 78-byte legacy prefix: no build.
    golden(
        &Packet::new(LanBeacon {
            build: None,
            ..beacon
        }),
        &full[..78],
    );
}
