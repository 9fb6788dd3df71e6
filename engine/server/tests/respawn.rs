//! `MsgClientInput` buttons bit 7 is the respawn request (the C++ original's
//! `kInputButtonRespawn`, edge-detected: a held key is one request). The server honours it for a
//! pilot whose aircraft stands still on the ground (landed, belly-landed, parked): a new aircraft
//! at the next spawn point at once. A press while flying or rolling is ignored (no escaping a
//! fight), and a crashed pilot gets the new aircraft when `respawn_delay` has passed, pressed or
//! not (a press never cuts the delay short). Bit 6 is the wheel brake (level).

mod common;

use common::{Harness, TestClient};
use fl_flight::spawn::parked;
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::{PeerRole, art_buttons, buttons};
use fl_protocol::msg::handshake::ConnectAck;
use fl_protocol::tlv::Extensions;
use fl_protocol::{Message, Packet};
use fl_server::pool::EntityId;
use fl_server::server::ServerConfig;
use fl_server::world::{Body, Pilot};
use std::net::IpAddr;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn pilot(h: &mut Harness) -> TestClient {
    let mut c = h.connect(ip(1), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Pilot, Extensions::new());
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some(), "admitted");
    c
}

fn acks(c: &TestClient) -> Vec<&ConnectAck> {
    c.messages
        .iter()
        .filter_map(|p: &Packet| match &p.message {
            Message::ConnectAck(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// The aircraft the client was last told it flies.
fn own(c: &TestClient) -> EntityId {
    let a = c.admitted().expect("admitted");
    EntityId {
        index: a.assigned_entity_idx,
        generation: a.assigned_entity_gen,
    }
}

/// Puts the aircraft at rest on its wheels on the ground, gear down, engine idle, brakes on.
fn park(h: &mut Harness, c: &mut TestClient, id: EntityId) {
    let planet = *h.server.world().planet();
    let floor = h.server.world().floor().clone();
    let e = h.server.world_mut().get_mut(id).expect("aircraft");
    let Body::Aircraft { model, state, .. } = &mut e.body else {
        panic!("not an aircraft");
    };
    let fuel = state.fuel_kg;
    *state = parked(
        model,
        &planet,
        &floor,
        state.position.x,
        state.position.z,
        0.0,
        fuel,
    );
    c.throttle = 0.0;
    c.art_buttons = art_buttons::GEAR_DOWN;
    c.buttons |= buttons::WHEEL_BRAKE;
}

#[test]
fn a_pilot_standing_on_the_ground_respawns_on_request() {
    let mut h = Harness::new(21, ServerConfig::default());
    let mut c = pilot(&mut h);
    let first = own(&c);
    park(&mut h, &mut c, first);
    h.run(30, &mut [&mut c]);
    let s = h
        .server
        .world()
        .get(first)
        .and_then(|e| e.aircraft_state())
        .expect("alive");
    assert!(
        s.velocity.length() < 1.0 && s.wheels_on_ground != 0,
        "parked: {s:?}"
    );
    assert_eq!(acks(&c).len(), 1, "no respawn without a request");

    c.buttons |= buttons::RESPAWN;
    h.run(20, &mut [&mut c]);
    let second = own(&c);
    assert_ne!(second, first, "a new aircraft");
    assert!(
        h.server.world().get(first).is_none(),
        "the parked one is gone"
    );
    let s = h
        .server
        .world()
        .get(second)
        .and_then(|e| e.aircraft_state())
        .expect("new");
    assert!(
        s.position.y > 1000.0,
        "at a spawn point in the air: {:?}",
        s.position
    );
    assert_eq!(acks(&c).len(), 2, "announced with a fresh MsgConnectAck");

    // Holding the key is one request: parking the new aircraft while still holding does not
    // respawn it again; releasing and pressing again does.
    park(&mut h, &mut c, second);
    c.buttons |= buttons::RESPAWN;
    h.run(30, &mut [&mut c]);
    assert_eq!(own(&c), second, "a held key is one request");
    c.buttons &= !buttons::RESPAWN;
    h.run(5, &mut [&mut c]);
    c.buttons |= buttons::RESPAWN;
    h.run(20, &mut [&mut c]);
    assert_ne!(own(&c), second, "a new press is a new request");
    assert_eq!(acks(&c).len(), 3);
}

#[test]
fn a_respawn_press_in_flight_is_ignored() {
    let mut h = Harness::new(22, ServerConfig::default());
    let mut c = pilot(&mut h);
    let first = own(&c);
    for _ in 0..5 {
        c.buttons |= buttons::RESPAWN;
        h.run(10, &mut [&mut c]);
        c.buttons &= !buttons::RESPAWN;
        h.run(10, &mut [&mut c]);
    }
    assert_eq!(own(&c), first);
    assert_eq!(acks(&c).len(), 1);
    let e = h.server.world().get(first).expect("still flying");
    assert!(e.crashed_at.is_none() && matches!(e.pilot, Pilot::Peer(_)));
}

#[test]
fn a_crashed_pilot_respawns_after_the_delay_pressed_or_not() {
    let cfg = ServerConfig {
        respawn_delay_ticks: 120,
        ..ServerConfig::default()
    };
    let delay = cfg.respawn_delay_ticks;
    let mut h = Harness::new(23, cfg);
    let mut c = pilot(&mut h);
    let first = own(&c);
    let crash_tick = h.server.world().tick();
    h.server
        .world_mut()
        .get_mut(first)
        .expect("aircraft")
        .crashed_at = Some(crash_tick);
    // Pressing during the wait does not cut it short.
    c.buttons |= buttons::RESPAWN;
    let mut respawned_at = None;
    for _ in 0..(delay + 30) {
        h.step(&mut [&mut c]);
        if own(&c) != first {
            respawned_at = Some(h.server.world().tick());
            break;
        }
        if h.server.world().tick() == crash_tick + delay / 2 {
            // Release and press again: still the same single wait.
            c.buttons &= !buttons::RESPAWN;
            h.step(&mut [&mut c]);
            c.buttons |= buttons::RESPAWN;
        }
    }
    let at = respawned_at.expect("respawned");
    assert!(
        at >= crash_tick + delay,
        "respawned at {at}, before the delay ended at {}",
        crash_tick + delay
    );
    assert!(at <= crash_tick + delay + 5, "respawned late at {at}");
    assert_eq!(acks(&c).len(), 2);

    // Without any press at all the crash respawns too (clients that never send bit 7).
    c.buttons = 0;
    let second = own(&c);
    let crash_tick = h.server.world().tick();
    h.server
        .world_mut()
        .get_mut(second)
        .expect("aircraft")
        .crashed_at = Some(crash_tick);
    h.run((delay + 10) as usize, &mut [&mut c]);
    assert_ne!(own(&c), second);
}
