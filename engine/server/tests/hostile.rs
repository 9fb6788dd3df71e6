//! Garbage, truncated, oversized and flooding clients neither crash the server nor delay the
//! snapshots of a well-behaved peer.

mod common;

use common::{Harness, TestClient};
use fl_net::Channel;
use fl_net::linksim::LinkConfig;
use fl_protocol::PROTOCOL_VERSION;
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::world::ClientInput;
use fl_protocol::testing::{Rng, random_message};
use fl_protocol::tlv::Extensions;
use fl_protocol::{Message, MsgId};
use fl_server::server::ServerConfig;
use std::net::IpAddr;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn admitted(h: &mut Harness, from: IpAddr) -> TestClient {
    let mut c = h.connect(from, LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Pilot, Extensions::new());
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some());
    c
}

#[test]
fn hostile_peers_do_not_hurt_a_good_one() {
    let mut h = Harness::new(20, ServerConfig::default());
    let mut good = admitted(&mut h, ip(1));
    let mut garbage = admitted(&mut h, ip(2));
    let mut flooder = admitted(&mut h, ip(3));
    let mut liar = admitted(&mut h, ip(4));
    flooder.send_inputs = false;
    garbage.send_inputs = false;
    liar.send_inputs = false;
    let mut rng = Rng::new(99);
    good.snapshots.clear();
    let start_tick = h.server.world().tick();
    for t in 0..300u32 {
        // Random bytes, truncated and oversized messages on every lane.
        for _ in 0..5 {
            let n = rng.upto(600) as usize;
            let mut bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            if let Some(b) = bytes.first_mut() {
                *b = (rng.upto(0x43)) as u8;
            }
            garbage.send_raw(Channel::Unreliable, &bytes);
        }
        let valid = Message::from(ClientInput {
            protocol_version: PROTOCOL_VERSION,
            seq_num: t,
            ..Default::default()
        })
        .encode()
        .expect("encodes");
        garbage.send_raw(Channel::Unreliable, &valid[..valid.len() / 2]);
        garbage.send_raw(Channel::Reliable, &vec![0x11; 60_000]);
        // Well-formed inputs far faster than 60 Hz, with absurd values.
        for k in 0..40u32 {
            let input = ClientInput {
                protocol_version: PROTOCOL_VERSION,
                seq_num: t * 40 + k,
                tick_index: u64::MAX,
                throttle: f32::NAN,
                elevator: 1e30,
                view_axis: [0.0; 3],
                camera_eye: [f64::INFINITY; 3],
                ..Default::default()
            };
            flooder.send_raw(
                Channel::Unreliable,
                &Message::from(input).encode().expect("encodes"),
            );
        }
        // Every other message kind, valid but out of place.
        let id = MsgId::ALL[(t as usize) % MsgId::ALL.len()];
        if let Ok(bytes) = random_message(id, u64::from(t)).encode() {
            liar.send_raw(Channel::Reliable, &bytes);
        }
        h.step(&mut [&mut good, &mut garbage, &mut flooder, &mut liar]);
    }
    // The good peer got a snapshot every tick and its aircraft is fine.
    let ticks: Vec<u64> = good
        .snapshots
        .iter()
        .map(|(s, _, _)| s.tick_index)
        .collect();
    assert!(
        ticks.len() >= 295,
        "only {} snapshots in 300 ticks",
        ticks.len()
    );
    assert!(
        ticks.windows(2).all(|w| w[1] == w[0] + 1),
        "gaps in the good peer's stream"
    );
    assert!(ticks[0] <= start_tick + 2);
    for (_, e) in h.server.world().iter() {
        if let Some(s) = e.aircraft_state() {
            assert!(s.is_finite(), "a hostile input poisoned an aircraft");
        }
    }
    assert!(h.server.malformed_packets() > 0);
    assert!(
        garbage.disconnected.is_some(),
        "the garbage sender is dropped"
    );
    assert!(good.disconnected.is_none());
}
