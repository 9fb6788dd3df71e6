//! The malformed-packet budget is a real token bucket (burst 50, one token back every 10 ticks
//! on the service clock, so it refills while paused too), and a message id this server does not
//! know is an additive message from a newer peer: discarded silently, never counted as malformed.
//! Long sessions are simulated tick by tick over LinkSim in virtual time.

mod common;

use common::{Harness, TestClient};
use fl_net::Channel;
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::world::ClientInput;
use fl_protocol::tlv::Extensions;
use fl_protocol::{Message, MsgId, PROTOCOL_VERSION};
use fl_server::server::ServerConfig;
use std::net::IpAddr;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

/// An observer (no aircraft to integrate: ten simulated minutes stay quick in debug builds).
fn observer(h: &mut Harness, from: IpAddr) -> TestClient {
    let mut c = h.connect(from, LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Observer, Extensions::new());
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some(), "admitted");
    c.send_inputs = false;
    c
}

/// A packet whose first byte names no message of this protocol (an additive id of a newer
/// build): ids 0x27–0x3F are unassigned.
fn unknown_id_packet() -> Vec<u8> {
    let id = 0x3Au8;
    assert!(MsgId::from_u8(id).is_none(), "0x3A must stay unassigned");
    let mut bytes = vec![id, 0, 1, 0];
    bytes.extend_from_slice(&[0xAB; 60]);
    bytes
}

/// A really malformed packet: a `MsgClientInput` cut in half.
fn truncated_input() -> Vec<u8> {
    let bytes = Message::from(ClientInput {
        protocol_version: PROTOCOL_VERSION,
        seq_num: 1,
        ..Default::default()
    })
    .encode()
    .expect("encodes");
    bytes[..bytes.len() / 2].to_vec()
}

#[test]
fn one_unknown_id_a_second_for_ten_minutes_is_not_malformed() {
    let mut h = Harness::new(7, ServerConfig::default());
    let mut c = observer(&mut h, ip(1));
    let packet = unknown_id_packet();
    for t in 0..36_000u32 {
        if t % 60 == 0 {
            c.send_raw(Channel::Reliable, &packet);
        }
        h.step(&mut [&mut c]);
        if c.disconnected.is_some() {
            break;
        }
        if t % 300 == 0 {
            c.heartbeat();
        }
    }
    assert_eq!(
        c.disconnected, None,
        "still connected after 600 unknown ids"
    );
    assert_eq!(h.server.peer_count(), 1);
    assert_eq!(
        h.server.malformed_packets(),
        0,
        "an unknown id is not malformed"
    );
}

#[test]
fn malformed_packets_spaced_out_never_empty_the_bucket() {
    let mut h = Harness::new(8, ServerConfig::default());
    let mut c = observer(&mut h, ip(1));
    let bad = truncated_input();
    // One every 20 ticks for 10 simulated minutes (1800 packets, 36× the burst): the bucket
    // regains a token every 10 ticks, so it never runs dry. The middle third runs paused: the
    // budget refills on the service clock, not the world's.
    for t in 0..36_000u32 {
        if t == 12_000 {
            h.server.pause();
        }
        if t == 24_000 {
            h.server.resume();
        }
        if t % 20 == 0 {
            c.send_raw(Channel::Unreliable, &bad);
        }
        h.step(&mut [&mut c]);
        if c.disconnected.is_some() {
            break;
        }
        if t % 300 == 0 {
            c.heartbeat();
        }
    }
    assert_eq!(
        c.disconnected, None,
        "kicked by a budget that never refills"
    );
    assert_eq!(h.server.malformed_packets(), 1800);
}

#[test]
fn a_flood_of_malformed_packets_is_still_kicked() {
    let mut h = Harness::new(9, ServerConfig::default());
    let mut flooder = observer(&mut h, ip(1));
    let mut bystander = observer(&mut h, ip(2));
    let bad = truncated_input();
    for _ in 0..60 {
        flooder.send_raw(Channel::Unreliable, &bad);
    }
    h.run(5, &mut [&mut flooder, &mut bystander]);
    assert!(flooder.disconnected.is_some(), "the flooder is dropped");
    assert_eq!(bystander.disconnected, None);
    assert_eq!(h.server.peer_count(), 1);
}

#[test]
fn a_steady_excess_over_the_refill_rate_is_kicked_eventually() {
    let mut h = Harness::new(10, ServerConfig::default());
    let mut c = observer(&mut h, ip(1));
    let bad = truncated_input();
    // Two per 10 ticks against one token back per 10 ticks: the bucket drains by one token per
    // 10 ticks, so the 50-token burst lasts about 500 ticks.
    let mut kicked_at = None;
    for t in 0..2_000u32 {
        if t % 5 == 0 {
            c.send_raw(Channel::Unreliable, &bad);
        }
        h.step(&mut [&mut c]);
        if c.disconnected.is_some() {
            kicked_at = Some(t);
            break;
        }
    }
    let t = kicked_at.expect("kicked");
    assert!((400..=700).contains(&t), "kicked at tick {t}");
}

#[test]
fn unknown_ids_flooded_are_discarded_without_a_kick() {
    let mut h = Harness::new(11, ServerConfig::default());
    let mut c = observer(&mut h, ip(1));
    let packet = unknown_id_packet();
    for _ in 0..200 {
        c.send_raw(Channel::Reliable, &packet);
    }
    h.run(20, &mut [&mut c]);
    assert_eq!(c.disconnected, None);
    assert_eq!(h.server.malformed_packets(), 0);
}
