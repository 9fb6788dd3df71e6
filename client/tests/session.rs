//! `ClientSession` against a scripted server over LinkSim: every refusal code, a version
//! mismatch, handshake timeouts, the build warning, the type registry across acks, the own
//! entity's 32-bit generation, the snapshot intake rules (stale and duplicate ticks, despawn
//! before upsert, unknown deltas, retention, every TLV, compression, hostile bytes), the ack
//! stamp on inputs and heartbeats, and MOTD/notices/factions/weather.

mod common;

use common::{FakeServer, TICK, entity, snapshot};
use fighters_legacy::entities::Upsert;
use fighters_legacy::messages::{EndReason, refusal_message};
use fighters_legacy::session::{ClientSession, SessionConfig, SessionEvent, SessionState};
use fl_flight::AircraftState;
use fl_flight::math::Vec3;
use fl_net::Channel;
use fl_protocol::enums::{AlertLevel, ArtChannel, ConnectRefusalCode, PeerRole, WeatherPreset};
use fl_protocol::msg::handshake::{ConnectAck, ConnectRefusal, Hello, Motd};
use fl_protocol::msg::world::{
    AlertLevelChange, ClientInput, FactionDef, FactionDefRecord, PeerDelay, ServerNotice,
    WeatherState,
};
use fl_protocol::snapshot::{
    FLAG_COMPRESSED, RecordKind, SnapshotRecord, WorldSnapshot, origin_for,
};
use fl_protocol::tlv::{ArticulationEntry, CrewPose, EffectRecord, Ext, Extensions, WindKnot};
use fl_protocol::{FixedStr, Message, PROTOCOL_VERSION};
use fl_server::types::TypeRegistry;
use std::time::Duration;

fn ext(items: &[Ext]) -> Extensions {
    let mut e = Extensions::new();
    for i in items {
        e.push(i).expect("fits");
    }
    e
}

fn ack(idx: u32, generation: u32, with_types: bool) -> ConnectAck {
    ConnectAck {
        tick_rate_hz: 60,
        assigned_entity_idx: idx,
        assigned_entity_gen: generation,
        planet_radius_km: 6371.0,
        granted_role: PeerRole::Pilot,
        peer_id: 1,
        types: if with_types {
            TypeRegistry::builtin().expect("types").wire_defs()
        } else {
            Vec::new()
        },
    }
}

/// A fake server and a session that has sent its join request.
fn joining(seed: u64) -> (FakeServer, ClientSession) {
    let mut f = FakeServer::new(seed);
    let mut s = f.session(SessionConfig {
        callsign: "Tester".into(),
        password: Some("hunter2".into()),
        ..SessionConfig::default()
    });
    let ev = f.run(&mut s, 3);
    assert!(ev.contains(&SessionEvent::TransportConnected), "{ev:?}");
    assert_eq!(s.state(), SessionState::Handshaking);
    assert_eq!(
        f.count(|m| matches!(m, Message::ConnectRequest(r) if r.callsign.as_str() == "Tester")),
        1
    );
    let (_, req) = f
        .received
        .iter()
        .find(|(_, p)| matches!(p.message, Message::ConnectRequest(_)))
        .expect("request");
    assert_eq!(
        req.ext.get(fl_protocol::tlv::tag::CONNECT_JOIN_PASSWORD),
        Some(Ext::ConnectJoinPassword("hunter2".into()))
    );
    (f, s)
}

/// A fake server and an admitted session whose own entity is `(idx, generation)`.
fn admitted(seed: u64, idx: u32, generation: u32) -> (FakeServer, ClientSession) {
    let (mut f, mut s) = joining(seed);
    f.send(Channel::Reliable, Hello::current(), &Extensions::new());
    f.send(
        Channel::Reliable,
        ack(idx, generation, true),
        &Extensions::new(),
    );
    let ev = f.run(&mut s, 2);
    assert!(ev.contains(&SessionEvent::Admitted), "{ev:?}");
    assert_eq!(s.state(), SessionState::InWorld);
    (f, s)
}

fn snapshots(ev: &[SessionEvent]) -> Vec<&fighters_legacy::session::SnapshotUpdate> {
    ev.iter()
        .filter_map(|e| match e {
            SessionEvent::Snapshot(u) => Some(u.as_ref()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_refusal_code_ends_the_session_with_its_message() {
    for (i, &code) in ConnectRefusalCode::ALL.iter().enumerate() {
        let (mut f, mut s) = joining(100 + i as u64);
        f.send(Channel::Reliable, Hello::current(), &Extensions::new());
        f.send(
            Channel::Reliable,
            ConnectRefusal {
                code,
                reason: FixedStr::new("because"),
            },
            &Extensions::new(),
        );
        f.close("because");
        let ev = f.run(&mut s, 5);
        assert_eq!(s.state(), SessionState::Ended, "{code:?}");
        let want = EndReason::Refused {
            code,
            reason: "because".into(),
        };
        assert_eq!(s.end_reason(), Some(&want), "{code:?}");
        assert_eq!(want.message(), refusal_message(code, "because"));
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, SessionEvent::Ended(_)))
                .count(),
            1,
            "one end event for {code:?}"
        );
    }
}

#[test]
fn a_protocol_version_mismatch_disconnects_with_a_message() {
    let (mut f, mut s) = joining(1);
    f.send(
        Channel::Reliable,
        Hello {
            protocol_version: PROTOCOL_VERSION + 1,
        },
        &Extensions::new(),
    );
    f.run(&mut s, 3);
    let end = s.end_reason().expect("ended").clone();
    assert_eq!(
        end,
        EndReason::VersionMismatch {
            server: PROTOCOL_VERSION + 1,
            client: PROTOCOL_VERSION
        }
    );
    assert!(end.message().contains("protocol version 2"), "{end}");
    assert!(!end.is_retryable());
    f.run(&mut s, 5);
    assert!(f.disconnected, "the client hung up");
}

#[test]
fn silent_servers_time_out_with_the_stage_named() {
    let (mut f, mut s) = joining(2);
    let ticks = (SessionConfig::default().handshake_timeout.as_secs_f64() * 60.0) as usize + 2;
    f.run(&mut s, ticks);
    match s.end_reason() {
        Some(EndReason::HandshakeTimeout { stage, .. }) => {
            assert_eq!(*stage, "waiting for the server's hello")
        }
        other => panic!("expected a handshake timeout, got {other:?}"),
    }

    let (mut f, mut s) = joining(3);
    f.send(Channel::Reliable, Hello::current(), &Extensions::new());
    f.run(&mut s, ticks);
    let end = s.end_reason().expect("ended");
    assert!(
        matches!(
            end,
            EndReason::HandshakeTimeout {
                stage: "waiting to be admitted",
                ..
            }
        ),
        "{end:?}"
    );
    assert!(end.message().contains("did not answer in time"));
}

#[test]
fn another_build_is_a_warning_not_a_refusal() {
    let (mut f, mut s) = joining(4);
    f.send(
        Channel::Reliable,
        Hello::current(),
        &ext(&[Ext::HelloBuildVersion("9.9.9".into())]),
    );
    let ev = f.run(&mut s, 2);
    let warning = ev.iter().find_map(|e| match e {
        SessionEvent::Hello { build_warning } => Some(build_warning.clone()),
        _ => None,
    });
    let w = warning.flatten().expect("a build warning");
    assert!(
        w.contains("9.9.9") && w.contains(fighters_legacy::BUILD_VERSION),
        "{w}"
    );
    f.send(Channel::Reliable, ack(5, 1, true), &Extensions::new());
    f.run(&mut s, 2);
    assert_eq!(s.state(), SessionState::InWorld);
    assert_eq!(s.hello(), Some((PROTOCOL_VERSION, Some("9.9.9"))));
}

#[test]
fn the_registry_survives_types_unchanged_and_a_new_ack_moves_the_own_entity() {
    let (mut f, mut s) = admitted(5, 5, 1);
    let n = s.types().len();
    assert!(n >= 2, "builtin types");
    assert_eq!(s.admission().map(|a| a.planet_radius_m), Some(6_371_000.0));
    f.send(
        Channel::Reliable,
        ack(9, 2, false),
        &ext(&[Ext::ConnectAckTypesUnchanged]),
    );
    let ev = f.run(&mut s, 2);
    assert_eq!(s.types().len(), n, "kept on ConnectAckTypesUnchanged");
    assert!(!ev.contains(&SessionEvent::TypesUpdated));
    assert!(ev.iter().any(|e| matches!(
        e,
        SessionEvent::OwnEntityChanged {
            previous: Some(p),
            current: Some(c),
        } if p.idx == 5 && c.idx == 9 && c.generation == 2
    )));
}

#[test]
fn the_own_entity_is_matched_on_its_full_generation() {
    // A generation beyond 16 bits: the record carries 5, the own-state TLV all 32 bits.
    let generation = 0x0001_0005;
    let (mut f, mut s) = admitted(6, 3, generation);
    let own = entity(3, generation, 1000.0);
    let exact = AircraftState::flying(Vec3::new(1000.0, 2000.0, -500.0), 0.3, 200.0, 900.0);
    let own_state = |g: u32| Ext::SnapshotOwnState {
        entity_idx: 3,
        entity_gen: g,
        format: 1,
        words: exact.to_words().to_vec(),
    };
    let bytes = snapshot(
        10,
        &[(own, RecordKind::FULL.with_omega())],
        &ext(&[own_state(generation), Ext::SnapshotLastAckedSeqNum(4)]),
    );
    f.send_raw(Channel::Unreliable, &bytes);
    let ev = f.run(&mut s, 1);
    let u = snapshots(&ev);
    let o = u[0]
        .own
        .as_ref()
        .expect("own record recognised by its low 16 bits");
    assert_eq!(o.entity.generation, generation);
    assert_eq!(
        o.exact,
        Some(exact),
        "the exact state, not the quantized one"
    );
    assert_eq!(o.acked_seq, Some(4));

    // The same low bits but another full generation in the TLV: refused, record still used.
    let bytes = snapshot(
        11,
        &[(own, RecordKind::DELTA.with_omega())],
        &ext(&[own_state(0x0002_0005)]),
    );
    f.send_raw(Channel::Unreliable, &bytes);
    let ev = f.run(&mut s, 1);
    let o = snapshots(&ev)[0].own.clone().expect("own record");
    assert!(o.exact.is_none() && o.own_state_refused);

    // A record of the same slot with other low bits is somebody else.
    let other = entity(3, 6, 1000.0);
    f.send_raw(
        Channel::Unreliable,
        &snapshot(12, &[(other, RecordKind::FULL)], &Extensions::new()),
    );
    let ev = f.run(&mut s, 1);
    assert!(snapshots(&ev)[0].own.is_none());
}

#[test]
fn format_2_own_state_carries_the_combat_words_and_hostile_ones_are_refused_alone() {
    use fl_combat::own::{DamageFactors, OwnCombat, OwnStore, StoreKind};
    let (mut f, mut s) = admitted(6, 3, 1);
    let own = entity(3, 1, 1000.0);
    let exact = AircraftState::flying(Vec3::new(1000.0, 2000.0, -500.0), 0.3, 200.0, 900.0);
    let combat = OwnCombat {
        factors: Some(DamageFactors {
            thrust: 0.7,
            control: 0.8,
            leak_kg_s: 2.0,
        }),
        station_count: 2,
        selected: Some(1),
        chaff: 3,
        flares: 4,
        stores: vec![OwnStore {
            station: 1,
            kind: StoreKind::Releasable,
            weapon_key: 1,
            rounds: 2,
            full_rounds: 2,
            gun_units: 0,
            rate_milli_rpm: 0,
            mass_kg: 180.0,
            drag_cd0: 0.003,
        }],
        ..OwnCombat::default()
    };
    let own_state = |combat_words: Vec<f64>| {
        let mut words = exact.to_words().to_vec();
        words.extend(combat_words);
        Ext::SnapshotOwnState {
            entity_idx: 3,
            entity_gen: 1,
            format: fl_protocol::tlv::OWN_STATE_FORMAT,
            words,
        }
    };
    let mut tick = 10;
    let mut send = |words: Vec<f64>| {
        let bytes = snapshot(
            tick,
            &[(own, RecordKind::FULL.with_omega())],
            &ext(&[own_state(words), Ext::SnapshotLastAckedSeqNum(4)]),
        );
        tick += 1;
        f.send_raw(Channel::Unreliable, &bytes);
        let ev = f.run(&mut s, 1);
        snapshots(&ev)[0].own.clone().expect("own record")
    };
    let o = send(combat.to_words());
    assert_eq!(o.exact, Some(exact));
    assert_eq!(o.combat, Some(combat.clone()));
    // Hostile combat words (a factor above 1, a negative leak, a store beyond the stations, a
    // short list): the combat state is refused, the flight state still used.
    for (i, x) in [(1, 1.5), (10, -1.0), (11, 7.0), (9, 3.0)] {
        let mut w = combat.to_words();
        w[i] = x;
        let o = send(w);
        assert_eq!(o.exact, Some(exact), "word {i}");
        assert!(o.combat.is_none() && !o.own_state_refused, "word {i}");
    }
}

#[test]
fn snapshot_intake_follows_the_rules() {
    let (mut f, mut s) = admitted(7, 1, 1);
    let full = RecordKind::FULL;
    let delta = RecordKind::DELTA;
    f.send_raw(
        Channel::Unreliable,
        &snapshot(
            10,
            &[(entity(7, 1, 0.0), full), (entity(8, 1, 50.0), full)],
            &Extensions::new(),
        ),
    );
    f.run(&mut s, 1);
    assert_eq!(s.entities().len(), 2);

    // Duplicate and older ticks are dropped before decoding and never acknowledged.
    for t in [10, 9] {
        f.send_raw(
            Channel::Unreliable,
            &snapshot(t, &[(entity(7, 1, 999.0), full)], &Extensions::new()),
        );
    }
    f.run(&mut s, 1);
    assert_eq!(s.stats().snapshots_stale, 2);
    assert_eq!(s.entities().get(7).map(|e| e.position.x), Some(0.0));
    assert_eq!(s.ack_stamp().map(|a| (a.high, a.mask)), Some((10, 0)));

    // Despawns come before upserts: slot 7 dies and is reused in the same packet. A delta for
    // an entity never seen is ignored.
    f.send_raw(
        Channel::Unreliable,
        &snapshot(
            12,
            &[(entity(7, 2, 10.0), full), (entity(9, 1, 0.0), delta)],
            &ext(&[Ext::SnapshotDespawn(vec![7])]),
        ),
    );
    let ev = f.run(&mut s, 1);
    let u = snapshots(&ev)[0];
    assert_eq!(u.removed, vec![7]);
    assert_eq!(u.changes, vec![(7, Upsert::New)]);
    assert_eq!(s.entities().get(7).map(|e| e.generation), Some(2));
    assert!(s.entities().get(9).is_none());
    assert_eq!(s.entities().stats.unknown_deltas, 1);
    assert_eq!(
        s.ack_stamp().map(|a| (a.high, a.mask)),
        Some((12, 0b10)),
        "tick 10 acknowledged two below the high-water mark, 11 missing"
    );

    // Every TLV the server sends.
    let effects = vec![
        EffectRecord {
            kind: 1,
            weapon_class: 0,
            src_idx: 7,
            tgt_idx: 0xFFFF_FFFF,
            pos: [1.0, 2.0, 3.0],
        },
        EffectRecord {
            kind: 200,
            ..EffectRecord::default()
        },
    ];
    f.send_raw(
        Channel::Unreliable,
        &snapshot(
            13,
            &[(entity(7, 2, 20.0), delta)],
            &ext(&[
                Ext::SnapshotPeerCount(3),
                Ext::SnapshotPeerLatency(42),
                Ext::SnapshotPeerDelayTicks(3),
                Ext::SnapshotServerThrottle {
                    load_pct: 50,
                    interval_ticks: 3,
                },
                Ext::SnapshotEffects(effects),
                Ext::SnapshotArticulation(vec![ArticulationEntry {
                    entity_idx: 7,
                    channel_mask: 1,
                    values: vec![255],
                }]),
                Ext::SnapshotCrew(vec![CrewPose {
                    entity_idx: 7,
                    turrets: vec![(100, -50)],
                }]),
                Ext::SnapshotLastAckedSeqNum(5),
            ]),
        ),
    );
    let ev = f.run(&mut s, 1);
    let u = snapshots(&ev)[0];
    assert_eq!(u.effects.len(), 1, "the unknown effect type is skipped");
    assert_eq!(s.server_peer_count(), Some(3));
    assert_eq!(s.snapshot_latency_ms(), Some(42));
    assert_eq!(s.server_throttle(), Some((50, 3)));
    let e7 = s.entities().get(7).expect("entity 7");
    assert_eq!(e7.articulation.value(ArtChannel::Gear), Some(1.0));
    assert_eq!(e7.turrets, vec![(100, -50)]);

    // Retention: entity 8 was last heard of at tick 10; a snapshot 181 ticks later evicts it.
    // The throttle indicator stays latched for 180 ticks only.
    f.send_raw(
        Channel::Unreliable,
        &snapshot(191, &[(entity(7, 2, 30.0), delta)], &Extensions::new()),
    );
    let ev = f.run(&mut s, 1);
    assert_eq!(snapshots(&ev)[0].removed, vec![8]);
    assert!(s.entities().get(7).is_some());
    assert_eq!(s.server_throttle(), Some((50, 3)));
    f.send_raw(
        Channel::Unreliable,
        &snapshot(194, &[(entity(7, 2, 30.0), delta)], &Extensions::new()),
    );
    f.run(&mut s, 1);
    assert_eq!(s.server_throttle(), None);

    // A compressed body decodes the same.
    let mut snap = WorldSnapshot {
        protocol_version: PROTOCOL_VERSION as u8,
        tick_index: 200,
        flags: FLAG_COMPRESSED,
        ..WorldSnapshot::default()
    };
    let st = entity(7, 2, 40.0);
    let origin = origin_for(st.position);
    snap.origins.push(origin);
    for _ in 0..8 {
        snap.records
            .push(SnapshotRecord::quantize(&st, 0, origin, RecordKind::DELTA));
    }
    let bytes = snap.encode(&Extensions::new()).expect("encodes");
    f.send_raw(Channel::Unreliable, &bytes);
    f.run(&mut s, 1);
    assert_eq!(s.last_snapshot_tick(), Some(200));
    assert_eq!(s.entities().get(7).map(|e| e.position.x), Some(40.0));

    // Hostile bytes: an oversized decompression claim and garbage are refused, counted, and
    // change nothing; a client-bound-only message from the server is dropped.
    let mut bad = bytes.clone();
    bad[8..16].copy_from_slice(&300u64.to_le_bytes());
    bad[20..24].copy_from_slice(&(5u32 << 20).to_le_bytes());
    f.send_raw(Channel::Unreliable, &bad);
    f.send_raw(Channel::Unreliable, &[2, 1, 0, 0, 9]);
    f.send(
        Channel::Unreliable,
        ClientInput::default(),
        &Extensions::new(),
    );
    // An id this build does not know is an additive message of a newer server: discarded
    // silently, never counted as an error.
    f.send_raw(Channel::Reliable, &[0xEE, 1, 2, 3]);
    f.run(&mut s, 1);
    assert_eq!(s.stats().decode_errors, 2);
    assert_eq!(s.stats().unknown_messages, 1);
    assert_eq!(s.stats().wrong_direction, 1);
    assert_eq!(s.last_snapshot_tick(), Some(200));
    assert_eq!(s.state(), SessionState::InWorld);
}

#[test]
fn inputs_and_heartbeats_carry_the_ack_stamp() {
    let (mut f, mut s) = admitted(8, 1, 1);
    for t in [100, 101, 103] {
        f.send_raw(
            Channel::Unreliable,
            &snapshot(
                t,
                &[(entity(1, 1, 0.0), RecordKind::FULL)],
                &Extensions::new(),
            ),
        );
    }
    f.run(&mut s, 1);
    let mut input = ClientInput {
        seq_num: 77,
        ..ClientInput::default()
    };
    s.send_input(&mut input).expect("sent");
    // Three seconds of virtual time: a heartbeat a second.
    f.run(&mut s, 180);
    f.service();
    let inputs: Vec<&ClientInput> = f
        .received
        .iter()
        .filter_map(|(_, p)| match &p.message {
            Message::ClientInput(i) => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(inputs.len(), 1);
    assert_eq!(
        (inputs[0].seq_num, inputs[0].tick_index, inputs[0].ack_mask),
        (77, 103, 0b110),
        "103 high; 102 missing (bit 0); 101 and 100 decoded (bits 1, 2)"
    );
    assert_eq!(inputs[0].protocol_version, PROTOCOL_VERSION);
    let beats: Vec<(u64, u32)> = f
        .received
        .iter()
        .filter_map(|(ch, p)| match &p.message {
            Message::Heartbeat(h) => {
                assert_eq!(*ch, Channel::Unreliable);
                Some((h.tick_index, h.ack_mask))
            }
            _ => None,
        })
        .collect();
    assert!((3..=4).contains(&beats.len()), "{beats:?}");
    assert!(beats.iter().all(|&b| b == (103, 0b110)));
    assert_eq!(s.stats().heartbeats_sent as usize, beats.len());

    // The reply: a zero delay is ignored, a real one kept.
    f.send(
        Channel::Unreliable,
        PeerDelay { delay_ticks: 0 },
        &Extensions::new(),
    );
    f.run(&mut s, 1);
    assert_eq!(s.peer_delay_ticks(), None);
    f.send(
        Channel::Unreliable,
        PeerDelay { delay_ticks: 7 },
        &Extensions::new(),
    );
    f.run(&mut s, 1);
    assert_eq!(s.peer_delay_ticks(), Some(7));
}

#[test]
fn motd_factions_weather_notices_and_a_shutdown() {
    let (mut f, mut s) = admitted(9, 1, 1);
    f.send(
        Channel::Reliable,
        FactionDef {
            records: vec![
                FactionDefRecord {
                    faction_index: 1,
                    id: "blue".into(),
                    name: "Blue Coalition".into(),
                },
                FactionDefRecord {
                    faction_index: 2,
                    id: "red".into(),
                    name: "".into(),
                },
            ],
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        AlertLevelChange {
            level: AlertLevel::Conflict,
            faction_index: 2,
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        Motd {
            display_seconds: 0,
            text: "Welcome\r\n\nFly safe".into(),
        },
        &Extensions::new(),
    );
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
    f.send(
        Channel::Unreliable,
        weather.clone(),
        &ext(&[
            Ext::WeatherWindProfile(knots.clone()),
            Ext::WeatherEpoch(600),
        ]),
    );
    f.send(
        Channel::Reliable,
        ServerNotice {
            seconds_remaining: 30,
            text: "Patch 1.2 -- shutting down in 30 seconds.".into(),
        },
        &Extensions::new(),
    );
    f.run(&mut s, 2);
    let factions = s.factions();
    assert_eq!(factions[&1].name, "Blue Coalition");
    assert_eq!(factions[&2].name, "red", "falls back to the id");
    assert_eq!(factions[&2].alert, Some(AlertLevel::Conflict));
    let motd = s.motd().expect("motd");
    assert_eq!(motd.lines, vec!["Welcome", "Fly safe"]);
    assert_eq!(
        motd.display,
        Duration::from_secs(15),
        "the client's default"
    );
    let w = s.weather().window_at(605).expect("window");
    assert_eq!((w.epoch, w.epoch_known), (600, true));
    assert_eq!(w.profile, knots);
    assert_eq!(w.wind.profile.len(), 2);
    assert!(s.weather().window_at(599).is_none());
    assert_eq!(s.notices().len(), 1);

    f.send(
        Channel::Reliable,
        ServerNotice {
            seconds_remaining: 0,
            text: "Patch 1.2 -- shutting down now.".into(),
        },
        &Extensions::new(),
    );
    f.run(&mut s, 1);
    f.close("Server shutting down.");
    f.run(&mut s, 2);
    let end = s.end_reason().expect("ended");
    assert_eq!(
        end,
        &EndReason::ServerShutdown {
            notice: "Patch 1.2 -- shutting down now.".into()
        }
    );
    assert_eq!(
        end.message(),
        "The server shut down: Patch 1.2 -- shutting down now."
    );
    assert!(end.is_retryable());
}

#[test]
fn a_server_process_that_disappears_ends_the_session_cleanly() {
    let (f, mut s) = admitted(10, 1, 1);
    let net = f.net.clone();
    drop(f);
    let mut ev = Vec::new();
    let mut now = Duration::from_secs(1);
    for _ in 0..5 {
        now += TICK;
        net.set_now(now);
        s.update(now, &mut ev);
    }
    assert_eq!(
        s.end_reason(),
        Some(&EndReason::ServerShutdown {
            notice: String::new()
        })
    );
    assert_eq!(
        s.end_reason().map(|e| e.message()).as_deref(),
        Some("The server shut down.")
    );
}

#[test]
fn combat_events_fill_the_kill_feed_and_own_tallies_on_the_reliable_lane_only() {
    use fl_protocol::msg::combat::{CombatEvent, CombatEventRecord};
    let (mut f, mut s) = admitted(77, 3, 1);
    let rec = |kind: u8, a: u32, b: u32, c: i32| CombatEventRecord {
        kind,
        weapon_class: 3,
        subject_idx: 9,
        subject_gen: 4,
        instigator_idx: 3,
        instigator_gen: 1,
        a,
        b,
        c,
    };
    let ev = CombatEvent {
        records: vec![
            rec(0, 1, 0xFFFF_FFFF, 0),
            rec(1, 1, 0, 10),
            rec(2, 40, 13, 104),
            rec(200, 0, 0, 0),
        ],
    };
    // On the unreliable lane a combat event is not trusted (kills must arrive, reliably).
    f.send(Channel::Unreliable, ev.clone(), &Extensions::new());
    f.run(&mut s, 2);
    assert!(s.combat().kills.is_empty());
    f.send(Channel::Reliable, ev, &Extensions::new());
    f.run(&mut s, 2);
    let log = s.combat();
    assert_eq!(log.kills.len(), 1);
    let k = log.kills[0];
    assert_eq!((k.subject, k.instigator), ((9, 4), Some((3, 1))));
    assert_eq!(k.weapon, Some(fl_protocol::enums::WeaponType::Gun));
    assert_eq!((k.instigator_peer, k.subject_peer), (Some(1), None));
    assert_eq!(
        (log.tallies.kills, log.tallies.losses, log.tallies.score),
        (1, 0, 10)
    );
    assert_eq!((log.tallies.shots, log.tallies.hits), (40, 13));
    assert_eq!(log.unknown_records, 1, "an unknown record type is skipped");
    assert_eq!(s.state(), SessionState::InWorld);
}

#[test]
fn roster_chat_scores_match_and_admin_replies_reach_the_social_state() {
    use fl_protocol::enums::{ChatChannel, MatchPhase};
    use fl_protocol::msg::admin::{AdminResponse, AdminResponseChunk, CHUNK_FLAG_END};
    use fl_protocol::msg::social::{
        ChatEvent, MatchState, PlayerRoster, PlayerRosterEntry, Scoreboard, ScoreboardRow,
    };
    let (mut f, mut s) = admitted(91, 3, 1);
    assert_eq!(s.social().own_id(), Some(1), "the ack's peer id");
    let entry = |id: u32, callsign: &str| PlayerRosterEntry {
        participant_id: id,
        faction_index: 0,
        role: PeerRole::Pilot,
        flags: 0,
        callsign: FixedStr::new(callsign),
    };
    let roster = PlayerRoster {
        entries: vec![entry(1, "Tester"), entry(2, "Goose")],
    };
    // Reliable-only messages on the unreliable lane are not trusted.
    f.send(Channel::Unreliable, roster.clone(), &Extensions::new());
    f.run(&mut s, 2);
    assert!(s.social().roster().is_empty());
    f.send(Channel::Reliable, roster, &Extensions::new());
    f.send(
        Channel::Reliable,
        ChatEvent {
            channel: ChatChannel::Team,
            sender_peer_id: 2,
            text: "on your six".into(),
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Unreliable,
        Scoreboard {
            rows: vec![ScoreboardRow {
                participant_id: 2,
                score: 4,
                kills: 2,
                deaths: 1,
                ping_ms: 320,
                faction_index: 0,
            }],
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        MatchState {
            phase: MatchPhase::Warmup,
            score_limit: 10,
            phase_end_tick: 600,
            mode_id: FixedStr::new("tdm"),
            mode_name: FixedStr::new("Team Deathmatch"),
            teams: Vec::new(),
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        AdminResponseChunk {
            flags: 0,
            req_id: 7,
            seq_num: 0,
            body: FixedStr::new("players: 2\nuptime"),
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        AdminResponseChunk {
            flags: CHUNK_FLAG_END,
            req_id: 7,
            seq_num: 1,
            body: FixedStr::new(": 5 min\n"),
        },
        &Extensions::new(),
    );
    f.send(
        Channel::Reliable,
        AdminResponse {
            req_id: 8,
            text: FixedStr::new("ok"),
        },
        &Extensions::new(),
    );
    let ev = f.run(&mut s, 2);
    assert!(ev.contains(&SessionEvent::Chat), "{ev:?}");
    let social = s.social();
    assert_eq!(social.display_name(2), "Goose");
    let line = social.chat().next().expect("a chat line");
    assert_eq!(
        (line.channel, line.sender_name.as_str(), line.text.as_str()),
        (ChatChannel::Team, "Goose", "on your six")
    );
    assert!(social.scoreboard()[0].lagging());
    assert_eq!(
        social.match_info().map(|m| m.phase),
        Some(MatchPhase::Warmup)
    );
    let console: Vec<&str> = social.console().lines().map(|l| l.text.as_str()).collect();
    assert_eq!(console, ["players: 2", "uptime: 5 min", "ok"]);
    assert_eq!(
        s.stats().unexpected_messages,
        1,
        "only the roster on the wrong lane"
    );

    // Chat and team requests go out reliably; overlong chat is cut to 240 bytes.
    s.send_chat(ChatChannel::All, &"x".repeat(300))
        .expect("chat sent");
    s.send_team_request(1).expect("team request sent");
    f.run(&mut s, 2);
    assert_eq!(
        f.count(|m| matches!(m, Message::Chat(c) if c.channel == ChatChannel::All && c.text.len() == 240)),
        1
    );
    assert_eq!(
        f.count(|m| matches!(m, Message::TeamRequest(t) if t.faction_index == 1)),
        1
    );
    // No local echo: the server's echo is the one line.
    assert_eq!(s.social().chat().count(), 1);
}
