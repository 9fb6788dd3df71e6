//! A fight over LinkSim in virtual time: a server with the fixture pack's types and pilots
//! flying its F-5E, with helpers to place aircraft and read what the clients heard.

#![allow(dead_code)]

use crate::common::{Harness, TestClient};
use fl_combat::sensing::RadarMode;
use fl_content::{Content, LoadOptions};
use fl_net::Channel;
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::{CombatEventType, PeerRole};
use fl_protocol::msg::combat::CombatEventRecord;
use fl_protocol::msg::handshake::{ConnectRequest, PackManifestEntry};
use fl_protocol::snapshot::{SnapshotRecord, WorldSnapshot};
use fl_protocol::tlv::{EffectRecord, Ext, tag};
use fl_protocol::{Message, PROTOCOL_VERSION};
use fl_server::combat::PilotInput;
use fl_server::pool::EntityId;
use fl_server::server::{ServerConfig, SpawnPoint};
use fl_server::types::TypeRegistry;
use fl_server::world::Body;
use std::net::IpAddr;

pub const F5E: &str = "fl-base:f5e";

/// The fixture pack's types, or `None` (a recorded skip) without the pack.
pub fn pack_types(why: &str) -> Option<TypeRegistry> {
    let pack = fl_fixtures::fixture_pack_or(why)?;
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        ..LoadOptions::default()
    })
    .unwrap_or_else(|e| panic!("the fixture pack loads: {e}"));
    Some(TypeRegistry::from_content(&content, 1))
}

/// Pilots spawn level at 3,000 m heading north at 200 m/s, 2 km apart.
pub fn config() -> ServerConfig {
    ServerConfig {
        player_entity_type: F5E.into(),
        spawn_points: (0..4)
            .map(|i| SpawnPoint {
                x: f64::from(i) * 2000.0,
                z: 0.0,
                altitude_m: 3000.0,
                heading_deg: 0.0,
                speed_mps: 200.0,
                anchor: None,
            })
            .collect(),
        ..ServerConfig::default()
    }
}

pub struct Fight {
    pub h: Harness,
    pub clients: Vec<TestClient>,
}

impl Fight {
    /// A server with the pack's types and `pilots` clients flying F-5Es (`None` without the
    /// pack).
    pub fn new(seed: u64, pilots: usize, cfg: ServerConfig, why: &str) -> Option<Fight> {
        Self::with_link(seed, pilots, cfg, LinkConfig::default(), why)
    }

    /// [`Fight::new`] with every client on `link`.
    pub fn with_link(
        seed: u64,
        pilots: usize,
        cfg: ServerConfig,
        link: LinkConfig,
        why: &str,
    ) -> Option<Fight> {
        let types = pack_types(why)?;
        let mut f = Fight {
            h: Harness::with_types(seed, cfg, types),
            clients: Vec::new(),
        };
        for i in 0..pilots {
            let mut c = f.h.connect(IpAddr::from([127, 0, 0, 1 + i as u8]), link);
            c.send_inputs = true;
            f.clients.push(c);
        }
        // The hello's round trip (three ticks on a perfect link).
        let trip = (2 * link.to_server.latency.as_millis() as usize).div_ceil(16);
        f.run(3 + trip);
        for c in &mut f.clients {
            let req = ConnectRequest {
                requested_role: PeerRole::Pilot,
                protocol_version: PROTOCOL_VERSION,
                callsign: "gunner".into(),
                packs: vec![PackManifestEntry {
                    id: "fl-base-pack".into(),
                    version: "1".into(),
                    content_hash: [0; 32],
                }],
                ..Default::default()
            };
            c.send_raw(
                Channel::Reliable,
                &Message::from(req).encode().expect("encodes"),
            );
        }
        // Long enough for the handshake over a slow link too.
        f.run(10 + 2 * trip);
        for c in &f.clients {
            assert!(c.refusal().is_none(), "{:?}", c.refusal());
            assert!(c.admitted().is_some(), "admitted");
        }
        Some(f)
    }

    pub fn run(&mut self, ticks: usize) {
        let mut refs: Vec<&mut TestClient> = self.clients.iter_mut().collect();
        self.h.run(ticks, &mut refs);
    }

    /// The aircraft client `i` was last told it flies.
    pub fn own(&self, i: usize) -> EntityId {
        let a = self.clients[i].admitted().expect("admitted");
        EntityId {
            index: a.assigned_entity_idx,
            generation: a.assigned_entity_gen,
        }
    }

    /// Every pilot's aircraft trimmed for level flight at its spawn altitude and speed, and its
    /// client sending the trim's elevator and throttle: steady aircraft that stay where they are
    /// put relative to each other.
    pub fn trim_all(&mut self) {
        let at = config().spawn_points[0];
        for i in 0..self.clients.len() {
            let id = self.own(i);
            let world = self.h.server.world_mut();
            let planet = *world.planet();
            let e = world.get_mut(id).expect("aircraft");
            let Body::Aircraft { model, state, .. } = &mut e.body else {
                panic!("an aircraft");
            };
            let frame = fl_flight::geodetic::Enu::at(&planet, state.position);
            let trim = fl_flight::spawn::trim_level_placed(
                model,
                &planet,
                state.position,
                &frame,
                at.altitude_m,
                at.speed_mps,
                state.fuel_kg,
                0.0,
            )
            .expect("trims");
            let (payload, cd0) = (state.payload_kg, state.payload_cd0);
            *state = trim.state;
            state.payload_kg = payload;
            state.payload_cd0 = cd0;
            self.clients[i].elevator = trim.controls.pitch as f32;
            self.clients[i].throttle = trim.controls.throttle as f32;
        }
    }

    /// Puts `target` exactly where `shooter` is, `distance_m` along its nose, with the same
    /// attitude, velocity and engine: two identical aircraft in trail.
    pub fn place_ahead(&mut self, shooter: EntityId, target: EntityId, distance_m: f64) {
        let world = self.h.server.world_mut();
        let Some(Body::Aircraft { state: s, .. }) = world.get(shooter).map(|e| e.body.clone())
        else {
            panic!("shooter is an aircraft");
        };
        let e = world.get_mut(target).expect("target");
        let Body::Aircraft { state, .. } = &mut e.body else {
            panic!("target is an aircraft");
        };
        let mut placed = s;
        placed.position = s.position + s.forward() * distance_m;
        *state = placed;
    }

    /// Spawns an F-5E nobody flies, `distance_m` ahead of `shooter` (faction 2).
    pub fn drone_ahead(&mut self, shooter: EntityId, distance_m: f64) -> EntityId {
        let t = self.h.server.types().index_of(F5E).expect("f5e");
        let id = self
            .h
            .server
            .spawn_aircraft(
                t,
                2,
                fl_server::world::Pilot::None,
                config().spawn_points[0],
            )
            .expect("room");
        self.place_ahead(shooter, id, distance_m);
        id
    }

    pub fn hp(&self, id: EntityId) -> f64 {
        self.h.server.world().get(id).expect("alive").combat.hp
    }

    /// Hands `id`'s fire control this tick's input directly (an aircraft nobody flies).
    pub fn set_input(&mut self, id: EntityId, input: PilotInput) {
        self.h
            .server
            .world_mut()
            .get_mut(id)
            .expect("entity")
            .combat
            .input = Some(input);
    }

    /// The first station of `id` carrying a weapon whose id ends with `weapon`.
    pub fn station_of(&self, id: EntityId, weapon: &str) -> u8 {
        let e = self.h.server.world().get(id).expect("entity");
        e.combat
            .loadout
            .stations
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.weapon.id.ends_with(weapon)))
            .expect("a station with the weapon") as u8
    }

    /// `id`'s radar mode.
    pub fn mode_of(&self, id: EntityId) -> RadarMode {
        self.h
            .server
            .world()
            .get(id)
            .and_then(|e| e.combat.sensing.as_deref())
            .expect("sensing")
            .mode()
    }

    /// Sets `id`'s radar mode directly (an aircraft nobody flies).
    pub fn set_mode(&mut self, id: EntityId, mode: RadarMode) {
        self.h
            .server
            .world_mut()
            .get_mut(id)
            .and_then(|e| e.combat.sensing.as_deref_mut())
            .expect("sensing")
            .set_mode(mode);
    }
}

/// A pilot input pressing `buttons` with `station` selected and radar mode byte `radar_mode`
/// (255 keeps), designating nothing.
pub fn station_input(station: u8, buttons: u8, radar_mode: u8) -> PilotInput {
    PilotInput {
        buttons,
        selected_station: station,
        radar_mode,
        designate: None,
        designate_retry: false,
    }
}

/// Every combat-event record client `c` heard, in order.
pub fn combat_records(c: &TestClient) -> Vec<CombatEventRecord> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::CombatEvent(e) => Some(e.records.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

pub fn kills(c: &TestClient) -> Vec<CombatEventRecord> {
    combat_records(c)
        .into_iter()
        .filter(|r| r.event_type() == Some(CombatEventType::Kill))
        .collect()
}

/// The last record of `kind` client `c` heard.
pub fn last_of(c: &TestClient, kind: CombatEventType) -> Option<CombatEventRecord> {
    combat_records(c)
        .into_iter()
        .rev()
        .find(|r| r.event_type() == Some(kind))
}

/// Every effect client `c`'s snapshots carried.
pub fn effects(c: &TestClient) -> Vec<EffectRecord> {
    c.snapshots
        .iter()
        .filter_map(|(_, ext, _)| match ext.get(tag::SNAPSHOT_EFFECTS) {
            Some(Ext::SnapshotEffects(v)) => Some(v),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The records of entity `idx` in client `c`'s snapshots, in order.
pub fn records_of(c: &TestClient, idx: u32) -> Vec<SnapshotRecord> {
    c.snapshots
        .iter()
        .flat_map(|(s, _, _): &(WorldSnapshot, _, _)| s.records.iter())
        .filter(|r| r.idx == idx)
        .cloned()
        .collect()
}
