//! Admission and handshake end to end over LinkSim: accept, every refusal the gauntlet and the
//! request checks produce, and a peer that never asks to join.

mod common;

use common::{Harness, TestClient};
use fl_net::linksim::LinkConfig;
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_protocol::tlv::{Ext, Extensions, tag};
use fl_protocol::{Message, PROTOCOL_VERSION};
use fl_server::server::ServerConfig;
use std::net::IpAddr;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

#[test]
fn a_pilot_is_admitted_and_receives_its_world() {
    let mut h = Harness::new(1, ServerConfig::default());
    let mut c = h.connect(ip(1), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    assert!(c.connected);
    let hello = c
        .messages
        .iter()
        .find_map(|p| match &p.message {
            Message::Hello(hello) => Some((hello.clone(), p.ext.clone())),
            _ => None,
        })
        .expect("hello first");
    assert_eq!(hello.0.protocol_version, PROTOCOL_VERSION);
    assert!(matches!(
        hello.1.get(tag::HELLO_BUILD_VERSION),
        Some(Ext::HelloBuildVersion(_))
    ));
    assert!(c.admitted().is_none(), "no admission before a request");
    assert!(c.snapshots.is_empty(), "no snapshots before admission");

    c.request(PeerRole::Pilot, Extensions::new());
    h.run(30, &mut [&mut c]);
    let ack = c.admitted().expect("ConnectAck").clone();
    assert_eq!(ack.granted_role, PeerRole::Pilot);
    assert_ne!(ack.assigned_entity_gen, 0);
    assert_eq!(ack.types.len(), h.server.types().len());
    assert!(
        c.messages
            .iter()
            .any(|p| matches!(p.message, Message::FactionDef(_)))
    );
    assert!(
        c.messages
            .iter()
            .any(|p| matches!(p.message, Message::AlertLevelChange(_)))
    );
    assert!(c.snapshots.len() > 20);
    let (snap, ext, _) = c.snapshots.last().expect("snapshots");
    let own = snap
        .records
        .iter()
        .find(|r| r.idx == ack.assigned_entity_idx)
        .expect("own entity in every snapshot");
    assert!(own.omega.is_some(), "the own record carries body rates");
    assert!(ext.find(tag::SNAPSHOT_OWN_STATE).is_some());
    assert!(ext.find(tag::SNAPSHOT_LAST_ACKED_SEQ_NUM).is_some());
    assert_eq!(c.decode_errors, 0);
}

fn refused_with(cfg: ServerConfig, setup: impl Fn(&mut TestClient)) -> Option<ConnectRefusalCode> {
    let mut h = Harness::new(2, cfg);
    let mut c = h.connect(ip(1), LinkConfig::default());
    h.run(2, &mut [&mut c]);
    setup(&mut c);
    h.run(10, &mut [&mut c]);
    c.refusal().map(|r| r.code)
}

#[test]
fn join_requests_are_checked() {
    let pilot = |c: &mut TestClient| c.request(PeerRole::Pilot, Extensions::new());
    let mut cfg = ServerConfig::default();
    cfg.admission.password = Some("secret".into());
    assert_eq!(
        refused_with(cfg.clone(), pilot),
        Some(ConnectRefusalCode::BadPassword)
    );
    assert_eq!(
        refused_with(cfg, |c| {
            let mut ext = Extensions::new();
            ext.push(&Ext::ConnectJoinPassword("secret".into()))
                .expect("fits");
            c.request(PeerRole::Pilot, ext);
        }),
        None
    );
    let mut cfg = ServerConfig::default();
    cfg.admission.required_packs = vec!["fl-base-pack".into()];
    assert_eq!(
        refused_with(cfg, pilot),
        Some(ConnectRefusalCode::MissingRequiredPack)
    );
    let mut cfg = ServerConfig::default();
    cfg.admission.allow_observers = false;
    assert_eq!(
        refused_with(cfg, |c| c.request(PeerRole::Observer, Extensions::new())),
        Some(ConnectRefusalCode::RoleDenied)
    );
    let mut cfg = ServerConfig::default();
    cfg.world.entity_cap = 0;
    assert_eq!(
        refused_with(cfg, pilot),
        Some(ConnectRefusalCode::ServerFull)
    );
    let cfg = ServerConfig {
        player_entity_type: "builtin:debug-entity".into(),
        ..ServerConfig::default()
    };
    assert_eq!(
        refused_with(cfg, pilot),
        None,
        "an unflyable default falls back to a flyable type"
    );
}

#[test]
fn the_gauntlet_refuses_with_codes() {
    let mut cfg = ServerConfig::default();
    cfg.admission.bans.insert(ip(9));
    cfg.admission.max_per_ip = 2;
    cfg.admission.connect_burst = 3;
    cfg.admission.connect_rate = 3;
    let mut h = Harness::new(3, cfg);
    let mut banned = h.connect(ip(9), LinkConfig::default());
    let mut a = h.connect(ip(1), LinkConfig::default());
    let mut b = h.connect(ip(1), LinkConfig::default());
    let mut c = h.connect(ip(1), LinkConfig::default());
    h.run(5, &mut [&mut banned, &mut a, &mut b, &mut c]);
    assert_eq!(
        banned.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::Banned)
    );
    assert_eq!(
        banned
            .refusal()
            .map(|r| r.reason.as_str().to_owned())
            .as_deref(),
        Some("You are banned from this server.")
    );
    assert!(a.refusal().is_none() && b.refusal().is_none());
    assert_eq!(
        c.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::TooManyConnections)
    );
    let mut d = h.connect(ip(1), LinkConfig::default());
    h.run(5, &mut [&mut d]);
    assert_eq!(
        d.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::RateLimited)
    );
    h.run(30, &mut [&mut banned, &mut c, &mut d]);
    for x in [&banned, &c, &d] {
        assert!(x.disconnected.is_some(), "a refused peer is disconnected");
    }
}

/// A LAN party (or one NAT): sixteen players on one address start their clients within the
/// same second and all fly within a few seconds, with the default settings.
#[test]
fn sixteen_players_behind_one_address_all_join() {
    let mut h = Harness::new(5, ServerConfig::default());
    let mut players: Vec<TestClient> = Vec::new();
    for n in 0..16 {
        players.push(h.connect(ip(1), LinkConfig::default()));
        // One every few ticks: all sixteen inside 50 ticks.
        if n % 2 == 1 {
            h.run(6, &mut players.iter_mut().collect::<Vec<_>>());
        }
    }
    h.run(2, &mut players.iter_mut().collect::<Vec<_>>());
    for p in &mut players {
        p.request(PeerRole::Pilot, Extensions::new());
    }
    // At most three simulated seconds for everyone.
    for _ in 0..180 {
        h.step(&mut players.iter_mut().collect::<Vec<_>>());
        if players.iter().all(|p| p.admitted().is_some()) {
            break;
        }
    }
    for (n, p) in players.iter().enumerate() {
        assert_eq!(
            p.refusal().map(|r| (r.code, r.reason.as_str().to_owned())),
            None,
            "player {n}"
        );
        assert!(p.admitted().is_some(), "player {n} admitted");
    }
    assert_eq!(h.server.peer_count(), 16);
}

/// Two hundred connection attempts from one address within a second: the burst gets in, every
/// other attempt is refused `RateLimited` with the bucket's real wait, and a player on another
/// address joins as if nothing happened.
#[test]
fn a_flood_from_one_address_is_refused_beyond_the_burst() {
    let mut cfg = ServerConfig::default();
    // A slow sustained rate, so the wait the text names is unmistakable: one token back every
    // 30 s, the first spent in the flood's first second.
    cfg.admission.connect_burst = 16;
    cfg.admission.connect_rate = 1;
    cfg.admission.connect_window_ticks = 30 * 60;
    cfg.admission.max_per_ip = 1024;
    let mut h = Harness::new(6, cfg);
    let mut flood: Vec<TestClient> = Vec::new();
    for _ in 0..20 {
        for _ in 0..10 {
            flood.push(h.connect(ip(2), LinkConfig::default()));
        }
        h.run(2, &mut flood.iter_mut().collect::<Vec<_>>());
    }
    let mut bystander = h.connect(ip(3), LinkConfig::default());
    h.run(2, &mut [&mut bystander]);
    bystander.request(PeerRole::Pilot, Extensions::new());
    let mut all: Vec<&mut TestClient> = flood.iter_mut().collect();
    all.push(&mut bystander);
    h.run(20, &mut all);

    let refused: Vec<_> = flood.iter().filter_map(|c| c.refusal()).collect();
    assert_eq!(flood.len() - refused.len(), 16, "the burst is admitted");
    for r in &refused {
        assert_eq!(r.code, ConnectRefusalCode::RateLimited);
        assert_eq!(
            r.reason.as_str(),
            "Too many connection attempts; try again in 30 s."
        );
    }
    assert!(
        flood
            .iter()
            .filter(|c| c.refusal().is_some())
            .all(|c| c.disconnected.is_some()),
        "every refused attempt is disconnected"
    );
    assert!(bystander.refusal().is_none());
    assert!(
        bystander.admitted().is_some(),
        "another address is unaffected"
    );
}

#[test]
fn a_peer_that_never_asks_is_never_admitted() {
    let mut cfg = ServerConfig::default();
    cfg.admission.request_timeout_ticks = 60;
    let mut h = Harness::new(4, cfg);
    let mut c = h.connect(ip(1), LinkConfig::default());
    h.run(120, &mut [&mut c]);
    assert!(c.snapshots.is_empty());
    assert_eq!(h.server.world().len(), 0, "no entity spawned");
    assert!(c.disconnected.is_some());
    assert_eq!(h.server.peer_count(), 0);
}

#[test]
fn allowlist_admin_lockout_version_and_no_airframe_refusals() {
    // Allowlist.
    let mut cfg = ServerConfig::default();
    cfg.admission.allowlist = Some([ip(2)].into_iter().collect());
    let mut h = Harness::new(5, cfg);
    let mut outsider = h.connect(ip(1), LinkConfig::default());
    h.run(5, &mut [&mut outsider]);
    assert_eq!(
        outsider.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::AccessDenied)
    );

    // Admin-auth lockout: five bad passwords lock the address out of reconnecting.
    let cfg = ServerConfig {
        operator_password: Some("op".into()),
        ..ServerConfig::default()
    };
    let mut h = Harness::new(6, cfg);
    let mut admin = h.connect(ip(3), LinkConfig::default());
    h.run(3, &mut [&mut admin]);
    for req in 0..5u16 {
        let cmd = fl_protocol::msg::admin::AdminCommand {
            req_id: req,
            token: "wrong".into(),
            command: "status".into(),
        };
        admin.send_raw(
            fl_net::Channel::Reliable,
            &Message::from(cmd).encode().expect("encodes"),
        );
        h.run(2, &mut [&mut admin]);
    }
    h.run(10, &mut [&mut admin]);
    assert!(
        admin.disconnected.is_some(),
        "kicked after the last failure"
    );
    let mut again = h.connect(ip(3), LinkConfig::default());
    h.run(5, &mut [&mut again]);
    assert_eq!(
        again.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::AdminLockout)
    );

    // A request speaking another protocol version.
    let mut h = Harness::new(7, ServerConfig::default());
    let mut old = h.connect(ip(4), LinkConfig::default());
    h.run(3, &mut [&mut old]);
    let req = fl_protocol::msg::handshake::ConnectRequest {
        protocol_version: PROTOCOL_VERSION + 1,
        ..Default::default()
    };
    old.send_raw(
        fl_net::Channel::Reliable,
        &Message::from(req).encode().expect("encodes"),
    );
    h.run(10, &mut [&mut old]);
    let refusal = old.refusal().expect("refused");
    assert_eq!(refusal.code, ConnectRefusalCode::Generic);
    assert!(refusal.reason.as_str().contains("Protocol version"));
}

#[test]
fn a_server_without_aircraft_refuses_pilots_but_admits_observers() {
    use fl_net::linksim::{SimEndpointConfig, SimNetwork};
    let net = SimNetwork::new(8);
    let endpoint = net
        .server(common::server_addr(), SimEndpointConfig::default())
        .expect("endpoint");
    // Only the debug entity, which cannot fly.
    let content = fl_content::Content::builtin().expect("builtin");
    let reg = fl_server::types::TypeRegistry::from_content(&content, 1);
    let only_debug = reg.index_of("builtin:debug-entity").expect("debug");
    assert!(reg.get(only_debug).is_some());
    let mut server = fl_server::server::Server::new(
        ServerConfig {
            player_entity_type: "builtin:debug-entity".into(),
            ..ServerConfig::default()
        },
        Box::new(endpoint),
        reg.without_flight_models(),
    );
    let mut pilot = TestClient::new(
        net.connect_from(
            std::net::SocketAddr::new(ip(1), 0),
            common::server_addr(),
            LinkConfig::default(),
            SimEndpointConfig::default(),
        )
        .expect("connect"),
    );
    let mut observer = TestClient::new(
        net.connect_from(
            std::net::SocketAddr::new(ip(2), 0),
            common::server_addr(),
            LinkConfig::default(),
            SimEndpointConfig::default(),
        )
        .expect("connect"),
    );
    let step = |server: &mut fl_server::server::Server, cs: &mut [&mut TestClient]| {
        net.advance(common::TICK);
        server.tick();
        for c in cs.iter_mut() {
            c.pump();
        }
    };
    for _ in 0..3 {
        step(&mut server, &mut [&mut pilot, &mut observer]);
    }
    pilot.request(PeerRole::Pilot, Extensions::new());
    observer.request(PeerRole::Observer, Extensions::new());
    for _ in 0..10 {
        step(&mut server, &mut [&mut pilot, &mut observer]);
    }
    assert_eq!(
        pilot.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::NoAirframe)
    );
    let ack = observer.admitted().expect("observers need no aircraft");
    assert_eq!(
        (ack.granted_role, ack.assigned_entity_gen),
        (PeerRole::Observer, 0)
    );
}
