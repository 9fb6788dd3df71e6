//! A mock world for fl-script's tests and bench: a scripted aircraft at the pack's sandbox home,
//! a few contacts and ground-truth entities, events recorded.
#![allow(dead_code)]

use fl_flight::geodetic::{Geodetic, to_world};
use fl_flight::gravity::Planet;
use fl_flight::math::{Quat, Vec3};
use fl_script::{
    AircraftView, Contact, ContactState, EntityInfo, NearbyEntity, ScriptEvent, ScriptHost,
};

/// The pack's `home` anchor.
pub const HOME_LAT: f64 = 36.24917;
/// The pack's `home` anchor.
pub const HOME_LON: f64 = -114.99611;

/// A world position `alt_m` above the home anchor, moved `east`/`north` metres (small offsets).
pub fn at_home(east: f64, north: f64, alt_m: f64) -> Vec3 {
    let lat = HOME_LAT + (north / 6_371_000.0).to_degrees();
    let lon = HOME_LON + (east / (6_371_000.0 * HOME_LAT.to_radians().cos())).to_degrees();
    to_world(&Planet::earth(), Geodetic::from_degrees(lat, lon, alt_m))
}

#[derive(Debug, Default)]
pub struct MockHost {
    pub elapsed_s: f64,
    pub contacts: Vec<Contact>,
    pub entities: Vec<EntityInfo>,
    pub events: Vec<ScriptEvent>,
}

impl MockHost {
    /// A busy sky: a hostile locked contact 6 km out, a stale one, a friendly; ground truth
    /// with a player-owned friendly jet and hostile trucks.
    pub fn busy() -> Self {
        let vel = Vec3::new(200.0, 0.0, 0.0);
        MockHost {
            contacts: vec![
                Contact {
                    idx: 7,
                    pos: at_home(6000.0, 1000.0, 3200.0),
                    vel,
                    faction: 2,
                    age_s: 0.0,
                    reacted: true,
                    state: ContactState::Locked,
                },
                Contact {
                    idx: 8,
                    pos: at_home(-3000.0, 500.0, 2000.0),
                    vel,
                    faction: 2,
                    age_s: 12.0,
                    reacted: true,
                    state: ContactState::Coasting,
                },
                Contact {
                    idx: 9,
                    pos: at_home(800.0, 0.0, 3000.0),
                    vel,
                    faction: 1,
                    age_s: 0.0,
                    reacted: false,
                    state: ContactState::Detected,
                },
            ],
            entities: vec![
                EntityInfo {
                    idx: 1,
                    pos: at_home(0.0, 0.0, 3000.0),
                    vel: Vec3::new(120.0, 0.0, 0.0),
                    quat: Quat::IDENTITY,
                    faction: 1,
                    dead: false,
                    player_owned: true,
                },
                EntityInfo {
                    idx: 20,
                    pos: at_home(9000.0, 10000.0, 600.0),
                    vel: Vec3::ZERO,
                    quat: Quat::IDENTITY,
                    faction: 2,
                    dead: false,
                    player_owned: false,
                },
                EntityInfo {
                    idx: 21,
                    pos: at_home(9200.0, 10260.0, 600.0),
                    vel: Vec3::ZERO,
                    quat: Quat::IDENTITY,
                    faction: 2,
                    dead: true,
                    player_owned: false,
                },
            ],
            ..MockHost::default()
        }
    }

    /// A furball: the busy sky plus `n` more contacts, alternating hostile and friendly, spread
    /// 1-10 km around home (what a radar holds when dozens of aircraft fight close together).
    pub fn crowded(n: u32) -> Self {
        let mut h = MockHost::busy();
        for i in 0..n {
            let f = f64::from(i);
            h.contacts.push(Contact {
                idx: 100 + i,
                pos: at_home(1000.0 + 230.0 * f, -4000.0 + 190.0 * f, 2500.0 + 20.0 * f),
                vel: Vec3::new(-150.0, 0.0, 80.0),
                faction: if i % 2 == 0 { 2 } else { 1 },
                age_s: f64::from(i % 5) * 0.4,
                reacted: true,
                state: if i % 3 == 0 {
                    ContactState::Locked
                } else {
                    ContactState::Detected
                },
            });
        }
        h
    }

    /// Moves everything on by `dt` and advances the clock.
    pub fn advance(&mut self, dt: f64) {
        self.elapsed_s += dt;
        for c in &mut self.contacts {
            c.pos += c.vel * dt;
        }
        for e in &mut self.entities {
            e.pos += e.vel * dt;
        }
    }
}

impl ScriptHost for MockHost {
    fn detected_contacts(&self) -> Vec<Contact> {
        self.contacts.clone()
    }
    fn nearby_entities(&self, x: f64, z: f64, r: f64) -> Vec<NearbyEntity> {
        self.entities
            .iter()
            .filter(|e| (e.pos.x - x).hypot(e.pos.z - z) <= r)
            .map(|e| NearbyEntity {
                idx: e.idx,
                pos: e.pos,
            })
            .collect()
    }
    fn get_entity(&self, idx: u32) -> Option<EntityInfo> {
        self.entities.iter().find(|e| e.idx == idx).copied()
    }
    fn elapsed_s(&self) -> f64 {
        self.elapsed_s
    }
    fn event(&mut self, event: ScriptEvent) {
        self.events.push(event);
    }
}

/// The scripted aircraft: 3 km over home, flying east at 200 m/s, wings level.
pub fn own_aircraft() -> AircraftView {
    let p = at_home(0.0, 0.0, 3000.0);
    let enu = fl_flight::geodetic::Enu::at(&Planet::earth(), p);
    let q = fl_flight::geodetic::orientation(&enu, std::f64::consts::FRAC_PI_2, 0.0, 0.0);
    AircraftView {
        idx: 3,
        pos: p,
        vel: q.rotate(Vec3::new(200.0, 0.0, 0.0)),
        quat: q,
        faction: 1,
        hp: 100.0,
        max_hp: 100.0,
        ..AircraftView::default()
    }
}

/// Flies `own` crudely along its velocity (no flight model: scripts only need a moving state).
pub fn drift(own: &mut AircraftView, dt: f64) {
    own.pos += own.vel * dt;
}
