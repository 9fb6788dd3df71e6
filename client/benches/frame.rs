//! Client CPU per frame with 128 remote aircraft: decode one snapshot (zstd when it wins, as the
//! server sends it) and update the entity table, reconcile the own aircraft with a 12-input
//! replay from its exact state, feed the interpolation buffers and build the render list.
//! Also each part alone.
//!
//! Run: `cargo bench -p fighters-legacy --bench frame`

use criterion::{Criterion, criterion_group, criterion_main};
use fighters_legacy::bridge::{InterpolationConfig, RenderBridge};
use fighters_legacy::prediction::{ClientPrediction, PredictionConfig};
use fighters_legacy::session::{ClientSession, OwnEntity, SessionConfig, SessionEvent};
use fl_flight::math::Vec3;
use fl_flight::{AircraftState, Controls};
use fl_net::{Channel, ClientEvent, ClientTransport, LinkStats, SendError};
use fl_protocol::Message;
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::handshake::{ConnectAck, Hello};
use fl_protocol::snapshot::{
    Compression, DEFAULT_COMPRESSION_LEVEL, EncodedEntity, EntityState, RecordBody, RecordKind,
    SnapshotRecord, SnapshotWriter, origin_for,
};
use fl_protocol::tlv::{Ext, Extensions};
use std::hint::black_box;
use std::time::Duration;

const REMOTES: u32 = 128;
const FRAMES: usize = 240;
const ACKED: u32 = 128;
const INPUTS: u32 = ACKED + 12;

/// A transport that is always connected and swallows what is sent.
struct Null {
    connected: bool,
}

impl ClientTransport for Null {
    fn poll(&mut self, out: &mut Vec<ClientEvent>) {
        if !self.connected {
            self.connected = true;
            out.push(ClientEvent::Connected);
        }
    }
    fn send(&mut self, _: Channel, _: &[u8]) -> Result<(), SendError> {
        Ok(())
    }
    fn disconnect(&mut self, _: &str) {}
    fn link_stats(&self) -> LinkStats {
        LinkStats::default()
    }
}

fn remote(i: u32, t: f64) -> EntityState {
    let a = f64::from(i) * 0.7;
    let v = [220.0 * a.sin(), f64::from(i % 5) - 2.0, 220.0 * a.cos()];
    EntityState {
        idx: i + 2,
        generation: 1,
        type_index: 1,
        faction_index: (i % 2) as u16,
        position: [
            20_000.0 * a.cos() + v[0] * t,
            3_000.0 + f64::from(i % 17) * 250.0 + v[1] * t,
            20_000.0 * a.sin() + v[2] * t,
        ],
        orientation: {
            let (s, c) = (a * 0.5).sin_cos();
            let n = (0.01 + s * s * 0.81 + 0.0025 + c * c).sqrt();
            [0.1 * s / n, s * 0.9 / n, 0.05 / n, c / n]
        },
        velocity: v,
        throttle_pct: 80,
        fuel_pct: 70,
        ..EntityState::default()
    }
}

/// The world's snapshots for `FRAMES` ticks: the own aircraft (full state TLV, acked input
/// `ACKED`) and 128 remotes, full records on the first, deltas after.
fn snapshots(own: &AircraftState) -> Vec<Vec<u8>> {
    let mut writer = SnapshotWriter::new();
    (0..FRAMES)
        .map(|f| {
            let t = f as f64 / 60.0;
            let mut ext = Extensions::new();
            let _ = ext.push(&Ext::SnapshotPeerCount(64));
            let _ = ext.push(&Ext::SnapshotLastAckedSeqNum(ACKED));
            let _ = ext.push(&Ext::SnapshotPeerDelayTicks(6));
            let _ = ext.push(&Ext::SnapshotOwnState {
                entity_idx: 1,
                entity_gen: 1,
                format: 1,
                words: own.to_words().to_vec(),
            });
            writer.begin();
            let kind = if f == 0 {
                RecordKind::FULL
            } else {
                RecordKind::DELTA
            };
            let own_state = EntityState {
                idx: 1,
                generation: 1,
                type_index: 1,
                position: [own.position.x, own.position.y, own.position.z],
                orientation: fl_server::world::wire_orientation(own.orientation),
                velocity: [own.velocity.x, own.velocity.y, own.velocity.z],
                ..EntityState::default()
            };
            let origin = origin_for(own_state.position);
            let body = RecordBody::encode(&SnapshotRecord::quantize(
                &own_state,
                0,
                origin,
                kind.with_omega(),
            ));
            writer.push(origin, &body).expect("fits");
            for i in 0..REMOTES {
                let e = EncodedEntity::encode(&remote(i, t));
                let body = if f == 0 { &e.full } else { &e.delta };
                writer.push(e.origin, body).expect("fits");
            }
            let mut out = Vec::new();
            writer
                .finish(
                    1000 + f as u64,
                    &ext,
                    Compression::WhenSmaller {
                        level: DEFAULT_COMPRESSION_LEVEL,
                    },
                    &mut out,
                )
                .expect("encodes");
            out
        })
        .collect()
}

struct Rig {
    session: ClientSession,
    prediction: ClientPrediction,
    bridge: RenderBridge,
    snaps: Vec<Vec<u8>>,
    events: Vec<SessionEvent>,
    frame: u64,
}

impl Rig {
    fn new() -> Self {
        let own = AircraftState::flying(Vec3::new(100.0, 3000.0, 200.0), 0.4, 200.0, 1500.0);
        let mut session = ClientSession::new(
            Box::new(Null { connected: false }),
            SessionConfig::default(),
            Duration::ZERO,
        );
        let mut events = Vec::new();
        session.update(Duration::ZERO, &mut events);
        let hello = Message::from(Hello::current()).encode().expect("hello");
        session.receive(Channel::Reliable, &hello, Duration::ZERO);
        let ack = ConnectAck {
            tick_rate_hz: 60,
            assigned_entity_idx: 1,
            assigned_entity_gen: 1,
            planet_radius_km: 6371.0,
            granted_role: PeerRole::Pilot,
            peer_id: 1,
            types: fl_server::types::TypeRegistry::builtin()
                .expect("types")
                .wire_defs(),
        };
        let ack = Message::from(ack).encode().expect("ack");
        session.receive(Channel::Reliable, &ack, Duration::ZERO);
        let content = fl_content::Content::builtin().expect("builtin content");
        let (model, _) = content
            .load_flight_model(fl_content::builtin::JET_TRAINER_FLIGHT_MODEL)
            .expect("model");
        let mut prediction = ClientPrediction::new(PredictionConfig::default(), 6_371_000.0);
        prediction.set_model(Some(model));
        prediction.reset_entity(Some(OwnEntity {
            idx: 1,
            generation: 1,
        }));
        let weather = session.weather().clone();
        for seq in 1..=INPUTS {
            let c = Controls {
                throttle: 0.8,
                pitch: 0.1 * f64::from(seq % 7),
                ..Controls::default()
            };
            prediction.push_input(seq, c, &weather);
        }
        let snaps = snapshots(&own);
        let mut rig = Self {
            session,
            prediction,
            bridge: RenderBridge::new(InterpolationConfig::default()),
            snaps,
            events,
            frame: 0,
        };
        // Warm up: every entity known, buffers filled.
        for _ in 0..FRAMES {
            rig.frame(true, true, true);
        }
        rig
    }

    /// One frame: the next snapshot in, optionally reconcile and interpolate.
    fn frame(&mut self, decode: bool, reconcile: bool, interpolate: bool) -> usize {
        let i = (self.frame as usize) % FRAMES;
        let tick = 2000 + self.frame;
        self.frame += 1;
        let now = Duration::from_secs_f64(tick as f64 / 60.0);
        let mut n = 0;
        if decode {
            let bytes = &mut self.snaps[i];
            bytes[8..16].copy_from_slice(&tick.to_le_bytes());
            self.session.receive(Channel::Unreliable, bytes, now);
            self.events.clear();
            self.session.update(now, &mut self.events);
            for ev in &self.events {
                if let SessionEvent::Snapshot(u) = ev {
                    if reconcile && let Some(own) = &u.own {
                        let r = self
                            .prediction
                            .reconcile(u.tick, own, self.session.weather());
                        n += r.replayed;
                    }
                    if interpolate {
                        self.bridge.on_snapshot(u, self.session.entities());
                    }
                }
            }
        }
        if interpolate {
            let pose = self.prediction.render_pose(0.5);
            n += self
                .bridge
                .build_frame(now, pose.as_ref(), self.session.own_entity())
                .entities
                .len();
        }
        n
    }
}

fn bench(c: &mut Criterion) {
    let mut rig = Rig::new();
    let probe = rig.frame(true, true, true);
    assert_eq!(probe, 12 + 1 + REMOTES as usize, "12 replayed, 129 drawn");
    let bytes = rig.snaps[1].len();
    println!("snapshot: {bytes} bytes for {} records", REMOTES + 1);
    let mut g = c.benchmark_group("client_frame_128_remotes");
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("full_frame", |b| {
        b.iter(|| black_box(rig.frame(true, true, true)))
    });
    g.bench_function("decode_and_entity_table", |b| {
        b.iter(|| black_box(rig.frame(true, false, false)))
    });
    let mut reconcile_only = Rig::new();
    let own = {
        reconcile_only.frame(true, false, false);
        let mut own = None;
        for ev in &reconcile_only.events {
            if let SessionEvent::Snapshot(u) = ev {
                own = u.own.clone().map(|o| (u.tick, o));
            }
        }
        own.expect("own snapshot")
    };
    g.bench_function("reconcile_12_replay", |b| {
        b.iter(|| {
            let w = reconcile_only.session.weather();
            black_box(reconcile_only.prediction.reconcile(own.0, &own.1, w))
        })
    });
    // Drawing at a fixed moment inside the sample buffer: every remote is interpolated.
    let mut rig = Rig::new();
    let now = Duration::from_secs_f64((2000 + rig.frame) as f64 / 60.0);
    let own = rig.session.own_entity();
    let pose = rig.prediction.render_pose(0.5);
    let drawn = rig.bridge.build_frame(now, pose.as_ref(), own);
    let interpolated = drawn
        .entities
        .iter()
        .filter(|e| e.source == fighters_legacy::bridge::PoseSource::Interpolated)
        .count();
    assert_eq!(interpolated, REMOTES as usize, "every remote interpolated");
    g.bench_function("interpolate_and_render_list", |b| {
        b.iter(|| {
            black_box(
                rig.bridge
                    .build_frame(now, pose.as_ref(), own)
                    .entities
                    .len(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
