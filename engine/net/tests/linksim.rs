//! LinkSim behaviour: handshake timing, every impairment (loss, duplication, reordering,
//! bandwidth, fragmentation, blackouts), reliability, idle timeouts, disconnect reasons,
//! bounded queues, statistics and determinism. All in virtual time: nothing here sleeps.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use fl_net::linksim::{
    DirectionConfig, LinkConfig, SimClient, SimEndpointConfig, SimError, SimNetwork, SimServer,
};
use fl_net::{
    Channel, ClientEvent, ClientTransport, DisconnectReason, MAX_RELIABLE_MESSAGE, PeerId,
    SendError, ServerEvent, ServerTransport,
};

const MS: Duration = Duration::from_millis(1);

fn server_addr() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 4778)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn lat(one_way_ms: u64) -> DirectionConfig {
    DirectionConfig::with_latency(ms(one_way_ms))
}

fn server(net: &SimNetwork) -> SimServer {
    net.server(server_addr(), SimEndpointConfig::default())
        .expect("server address is free")
}

fn client(net: &SimNetwork, link: LinkConfig) -> SimClient {
    net.connect(server_addr(), link, SimEndpointConfig::default())
        .expect("client address is free")
}

fn poll_s(s: &mut SimServer) -> Vec<ServerEvent> {
    let mut v = Vec::new();
    s.poll(&mut v);
    v
}

fn poll_c(c: &mut SimClient) -> Vec<ClientEvent> {
    let mut v = Vec::new();
    c.poll(&mut v);
    v
}

/// Advances in 1 ms steps until both ends report Connected; returns the server's peer id and
/// the virtual times of the two events.
fn establish(
    net: &SimNetwork,
    s: &mut SimServer,
    c: &mut SimClient,
) -> (PeerId, Duration, Duration) {
    let (mut peer, mut t_server, mut t_client) = (None, None, None);
    for _ in 0..20_000 {
        for ev in poll_s(s) {
            if let ServerEvent::Connected { peer: p, .. } = ev {
                peer = Some(p);
                t_server = Some(net.now());
            }
        }
        for ev in poll_c(c) {
            if ev == ClientEvent::Connected {
                t_client = Some(net.now());
            }
        }
        if let (Some(p), Some(a), Some(b)) = (peer, t_server, t_client) {
            return (p, a, b);
        }
        net.advance(MS);
    }
    panic!("no connection within 20 s of virtual time");
}

fn received_payloads_s(events: &[ServerEvent], want: Channel) -> Vec<Vec<u8>> {
    events
        .iter()
        .filter_map(|e| match e {
            ServerEvent::Received {
                channel, payload, ..
            } if *channel == want => Some(payload.clone()),
            _ => None,
        })
        .collect()
}

fn numbered(i: u32, len: usize) -> Vec<u8> {
    let mut v = i.to_le_bytes().to_vec();
    v.resize(len.max(4), 0xAB);
    v
}

fn number(p: &[u8]) -> u32 {
    u32::from_le_bytes([p[0], p[1], p[2], p[3]])
}

#[test]
fn handshake_takes_one_round_trip() {
    let net = SimNetwork::new(1);
    let mut s = server(&net);
    let mut c = client(&net, LinkConfig::symmetric(lat(40)));
    assert_eq!(
        c.send(Channel::Reliable, b"early"),
        Err(SendError::NotConnected)
    );
    let (peer, t_server, t_client) = establish(&net, &mut s, &mut c);
    assert_eq!(
        t_server,
        ms(40),
        "the server hears the hello after one one-way delay"
    );
    assert_eq!(
        t_client,
        ms(80),
        "the client is connected after one round trip"
    );
    assert_eq!(peer, 1);
    // The server sees the client's configured address.
    let net2 = SimNetwork::new(1);
    let mut s2 = server(&net2);
    let from = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9)), 5000);
    let _c2 = net2
        .connect_from(
            from,
            server_addr(),
            LinkConfig::default(),
            SimEndpointConfig::default(),
        )
        .expect("free address");
    assert_eq!(
        poll_s(&mut s2),
        vec![ServerEvent::Connected {
            peer: 1,
            addr: from
        }]
    );
}

#[test]
fn several_client_ips_and_address_conflicts() {
    let net = SimNetwork::new(2);
    let mut s = server(&net);
    let mut addrs = Vec::new();
    let mut clients = Vec::new();
    for last in 1..=3u8 {
        for _ in 0..2 {
            let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, last));
            let c = net
                .connect_from(
                    SocketAddr::new(ip, 0),
                    server_addr(),
                    LinkConfig::default(),
                    SimEndpointConfig::default(),
                )
                .expect("ephemeral port");
            addrs.push(c.local_addr());
            clients.push(c);
        }
    }
    let seen: Vec<SocketAddr> = poll_s(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            ServerEvent::Connected { addr, .. } => Some(addr),
            _ => None,
        })
        .collect();
    assert_eq!(seen, addrs);
    assert_eq!(
        net.connect_from(
            addrs[0],
            server_addr(),
            LinkConfig::default(),
            SimEndpointConfig::default()
        )
        .err(),
        Some(SimError::AddressInUse(addrs[0]))
    );
    assert_eq!(
        net.server(server_addr(), SimEndpointConfig::default())
            .err(),
        Some(SimError::AddressInUse(server_addr()))
    );
    // Peer ids are never reused.
    drop(clients);
    net.advance(ms(10));
    poll_s(&mut s);
    let mut c = client(&net, LinkConfig::default());
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    assert_eq!(peer, 7);
}

#[test]
fn reliable_is_ordered_and_complete_under_heavy_loss() {
    let net = SimNetwork::new(3);
    let mut s = server(&net);
    let dir = DirectionConfig {
        latency: ms(30),
        jitter: ms(10),
        loss: 0.2,
        ..Default::default()
    };
    let mut c = client(&net, LinkConfig::symmetric(dir));
    let (_, _, _) = establish(&net, &mut s, &mut c);
    let n = 500u32;
    let mut got = Vec::new();
    let mut latest_arrival = Duration::ZERO;
    let start = net.now();
    for i in 0..n {
        c.send(Channel::Reliable, &numbered(i, 100))
            .expect("queued");
        net.advance(MS);
        got.extend(received_payloads_s(&poll_s(&mut s), Channel::Reliable));
    }
    for _ in 0..30_000 {
        if got.len() == n as usize {
            break;
        }
        net.advance(MS);
        let new = received_payloads_s(&poll_s(&mut s), Channel::Reliable);
        if !new.is_empty() {
            latest_arrival = net.now();
        }
        got.extend(new);
    }
    let order: Vec<u32> = got.iter().map(|p| number(p)).collect();
    assert_eq!(
        order,
        (0..n).collect::<Vec<_>>(),
        "every message, once, in order"
    );
    // A 20 % loss costs retransmissions: the tail arrives well after latency + jitter.
    assert!(
        latest_arrival > start + ms(u64::from(n)) + ms(40),
        "loss must delay some messages (last at {latest_arrival:?})"
    );
}

#[test]
fn unreliable_loss_matches_the_configured_rate_and_is_reported() {
    let net = SimNetwork::new(4);
    let mut s = server(&net);
    let dir = DirectionConfig {
        latency: ms(20),
        loss: 0.1,
        ..Default::default()
    };
    let mut c = client(
        &net,
        LinkConfig {
            to_server: dir,
            to_client: lat(20),
        },
    );
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    let n = 10_000;
    let mut received = 0usize;
    for i in 0..n {
        c.send(Channel::Unreliable, &numbered(i, 200))
            .expect("queued");
        if i % 10 == 0 {
            net.advance(MS);
            received += received_payloads_s(&poll_s(&mut s), Channel::Unreliable).len();
        }
    }
    net.advance(ms(100));
    received += received_payloads_s(&poll_s(&mut s), Channel::Unreliable).len();
    let rate = received as f64 / f64::from(n);
    assert!((0.88..=0.92).contains(&rate), "delivered {rate}");
    let stats = c.link_stats();
    assert!(
        (0.04..=0.16).contains(&stats.loss),
        "client-reported loss {}",
        stats.loss
    );
    assert_eq!(stats.messages_sent, u64::from(n));
    assert_eq!(stats.bytes_sent, u64::from(n) * 200);
    let srv = s.link_stats(peer).expect("peer stats");
    assert_eq!(srv.messages_received, received as u64);
    assert_eq!(srv.loss, 0.0, "nothing the server sent was lost");
}

#[test]
fn duplication_delivers_copies() {
    let net = SimNetwork::new(5);
    let mut s = server(&net);
    let dir = DirectionConfig {
        latency: ms(10),
        jitter: ms(2),
        duplicate: 0.25,
        ..Default::default()
    };
    let mut c = client(&net, LinkConfig::symmetric(dir));
    establish(&net, &mut s, &mut c);
    let n = 4000u32;
    let mut got = Vec::new();
    for i in 0..n {
        c.send(Channel::Unreliable, &numbered(i, 50))
            .expect("queued");
        if i % 4 == 0 {
            net.advance(MS);
            got.extend(received_payloads_s(&poll_s(&mut s), Channel::Unreliable));
        }
    }
    net.advance(ms(100));
    got.extend(received_payloads_s(&poll_s(&mut s), Channel::Unreliable));
    let extra = got.len() as f64 / f64::from(n) - 1.0;
    assert!((0.22..=0.28).contains(&extra), "duplicate fraction {extra}");
    let mut unique: Vec<u32> = got.iter().map(|p| number(p)).collect();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        n as usize,
        "no loss configured: every message arrives"
    );
}

/// Counts messages that arrive after a message sent later than them.
fn overtaken(order: &[u32]) -> usize {
    let mut max_seen = None;
    let mut count = 0;
    for &x in order {
        match max_seen {
            Some(m) if x < m => count += 1,
            _ => max_seen = Some(x),
        }
    }
    count
}

#[test]
fn reordering_only_when_configured_and_lanes_are_independent() {
    for (reorder, expect_some) in [(0.0, false), (0.2, true)] {
        let net = SimNetwork::new(6);
        let mut s = server(&net);
        let dir = DirectionConfig {
            latency: ms(30),
            jitter: ms(20),
            reorder,
            reorder_delay: ms(20),
            ..Default::default()
        };
        let mut c = client(&net, LinkConfig::symmetric(dir));
        establish(&net, &mut s, &mut c);
        let n = 2000u32;
        for i in 0..n {
            c.send(Channel::Unreliable, &numbered(i, 40))
                .expect("queued");
            c.send(Channel::Voice, &numbered(i, 40)).expect("queued");
            net.advance(MS);
        }
        net.advance(ms(200));
        let events = poll_s(&mut s);
        for lane in [Channel::Unreliable, Channel::Voice] {
            let order: Vec<u32> = received_payloads_s(&events, lane)
                .iter()
                .map(|p| number(p))
                .collect();
            assert_eq!(order.len(), n as usize);
            let late = overtaken(&order);
            if expect_some {
                // Held-back messages are overtaken by the ones sent in the next ~10–30 ms.
                let frac = late as f64 / f64::from(n);
                assert!((0.15..=0.25).contains(&frac), "{lane:?}: {frac}");
            } else {
                assert_eq!(late, 0, "{lane:?}: jitter alone must not reorder a lane");
            }
        }
    }
}

#[test]
fn bandwidth_cap_queues_and_then_refuses() {
    let net = SimNetwork::new(7);
    let mut s = server(&net);
    let dir = DirectionConfig {
        latency: ms(10),
        bandwidth: 100_000,
        max_queue_delay: ms(300),
        ..Default::default()
    };
    let mut c = client(&net, LinkConfig::symmetric(dir));
    establish(&net, &mut s, &mut c);
    // Each message is 952 + 48 overhead = 1000 bytes = 10 ms on a 100 kB/s wire.
    let mut accepted = 0;
    let mut refused = 0;
    for i in 0..60 {
        match c.send(Channel::Unreliable, &numbered(i, 952)) {
            Ok(()) => accepted += 1,
            Err(SendError::QueueFull) => refused += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    // The queue admits about 300 ms of data (plus the one in service).
    assert!((30..=32).contains(&accepted), "accepted {accepted}");
    assert_eq!(accepted + refused, 60);
    let t0 = net.now();
    let mut arrivals = Vec::new();
    for _ in 0..1000 {
        net.advance(MS);
        for _ in received_payloads_s(&poll_s(&mut s), Channel::Unreliable) {
            arrivals.push(net.now() - t0);
        }
        if arrivals.len() == accepted {
            break;
        }
    }
    assert_eq!(arrivals.len(), accepted);
    assert_eq!(arrivals[0], ms(20), "10 ms on the wire + 10 ms latency");
    let last = *arrivals.last().expect("some");
    assert_eq!(
        last,
        ms(10 * accepted as u64 + 10),
        "serialized one after another"
    );
}

#[test]
fn fragmented_messages_are_lost_whole() {
    let net = SimNetwork::new(8);
    let mut s = server(&net);
    let dir = DirectionConfig {
        latency: ms(10),
        loss: 0.1,
        max_datagram: 1000,
        ..Default::default()
    };
    let mut c = client(&net, LinkConfig::symmetric(dir));
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    assert_eq!(c.link_stats().max_datagram_size, 1000);
    assert_eq!(s.link_stats(peer).map(|l| l.max_datagram_size), Some(1000));
    let n = 4000u32;
    let (mut small, mut big) = (0usize, 0usize);
    for i in 0..n {
        c.send(Channel::Unreliable, &numbered(i, 900))
            .expect("one datagram");
        c.send(Channel::Voice, &numbered(i, 4500))
            .expect("five fragments");
        net.advance(MS);
        let ev = poll_s(&mut s);
        small += received_payloads_s(&ev, Channel::Unreliable).len();
        for p in received_payloads_s(&ev, Channel::Voice) {
            assert_eq!(p.len(), 4500, "delivered whole");
            big += 1;
        }
    }
    net.advance(ms(50));
    let ev = poll_s(&mut s);
    small += received_payloads_s(&ev, Channel::Unreliable).len();
    big += received_payloads_s(&ev, Channel::Voice).len();
    let (fs, fb) = (small as f64 / f64::from(n), big as f64 / f64::from(n));
    assert!((0.88..=0.92).contains(&fs), "single-datagram delivery {fs}");
    // 0.9^5 = 0.59
    assert!((0.55..=0.63).contains(&fb), "five-fragment delivery {fb}");
}

#[test]
fn blackout_then_recovery_keeps_the_connection() {
    let net = SimNetwork::new(9);
    let mut s = server(&net);
    let mut c = client(&net, LinkConfig::symmetric(lat(20)));
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    let link = c.link_id();
    assert_eq!(s.link_of(peer), Some(link));
    net.advance(ms(500)); // let the RTT estimate settle
    c.send(Channel::Reliable, b"warm-up").expect("queued");
    net.advance(ms(100));
    poll_s(&mut s);
    let blackout_start = net.now();
    net.blackout(link, Duration::from_secs(2))
        .expect("link exists");
    let mut lost_unreliable = 0;
    for i in 0..100u32 {
        c.send(Channel::Unreliable, &numbered(i, 10))
            .expect("queued");
        net.advance(ms(10));
        lost_unreliable += 1;
    }
    c.send(Channel::Reliable, b"sent in the dark")
        .expect("queued");
    let mut reliable_at = None;
    let mut unreliable_during = 0;
    for _ in 0..5000 {
        net.advance(MS);
        for ev in poll_s(&mut s) {
            match ev {
                ServerEvent::Received {
                    channel: Channel::Reliable,
                    ..
                } => reliable_at = Some(net.now()),
                ServerEvent::Received { .. } => unreliable_during += 1,
                ServerEvent::Disconnected { reason, .. } => panic!("dropped: {reason}"),
                ServerEvent::Connected { .. } => {}
            }
        }
        if reliable_at.is_some() {
            break;
        }
    }
    assert_eq!(
        unreliable_during, 0,
        "{lost_unreliable} datagrams sent in the blackout are gone"
    );
    let at = reliable_at.expect("the reliable message gets through after the blackout");
    let blackout_end = blackout_start + Duration::from_secs(2);
    assert!(at >= blackout_end, "not before the blackout ends: {at:?}");
    assert!(
        at <= blackout_end + Duration::from_millis(2100),
        "within one capped backoff: {at:?}"
    );
    // Unreliable traffic flows again.
    c.send(Channel::Unreliable, b"back").expect("queued");
    net.advance(ms(25));
    assert_eq!(
        received_payloads_s(&poll_s(&mut s), Channel::Unreliable),
        vec![b"back".to_vec()]
    );
    assert!(poll_c(&mut c).is_empty(), "the client saw no disconnect");
}

#[test]
fn idle_timeout_fires_on_both_sides() {
    let net = SimNetwork::new(10);
    let cfg = SimEndpointConfig {
        idle_timeout: Duration::from_secs(5),
        ..Default::default()
    };
    let mut s = net.server(server_addr(), cfg).expect("free");
    let mut c = net
        .connect(server_addr(), LinkConfig::symmetric(lat(15)), cfg)
        .expect("free");
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    // A quiet but healthy link never times out.
    net.advance(Duration::from_secs(30));
    assert!(poll_s(&mut s).is_empty());
    assert!(poll_c(&mut c).is_empty());
    let t0 = net.now();
    net.blackout(c.link_id(), Duration::from_secs(60))
        .expect("link");
    let (mut ts, mut tc) = (None, None);
    for _ in 0..7000 {
        net.advance(MS);
        for ev in poll_s(&mut s) {
            assert_eq!(
                ev,
                ServerEvent::Disconnected {
                    peer,
                    reason: DisconnectReason::TimedOut
                }
            );
            ts = Some(net.now() - t0);
        }
        for ev in poll_c(&mut c) {
            assert_eq!(
                ev,
                ClientEvent::Disconnected {
                    reason: DisconnectReason::TimedOut
                }
            );
            tc = Some(net.now() - t0);
        }
    }
    assert_eq!(ts, Some(Duration::from_secs(5)));
    assert_eq!(tc, Some(Duration::from_secs(5)));
    assert_eq!(
        c.send(Channel::Unreliable, b"x"),
        Err(SendError::NotConnected)
    );
    assert_eq!(
        s.send(peer, Channel::Unreliable, b"x"),
        Err(SendError::UnknownPeer)
    );
}

#[test]
fn connecting_to_nothing_times_out() {
    let net = SimNetwork::new(11);
    let cfg = SimEndpointConfig {
        idle_timeout: Duration::from_secs(3),
        ..Default::default()
    };
    let mut c = net
        .connect(server_addr(), LinkConfig::symmetric(lat(5)), cfg)
        .expect("free");
    net.advance(Duration::from_millis(2999));
    assert!(poll_c(&mut c).is_empty());
    net.advance(MS);
    assert_eq!(
        poll_c(&mut c),
        vec![ClientEvent::Disconnected {
            reason: DisconnectReason::TimedOut
        }]
    );
}

#[test]
fn disconnect_reasons_reach_the_other_side_after_queued_reliable_data() {
    let net = SimNetwork::new(12);
    let mut s = server(&net);
    let lossy = DirectionConfig {
        latency: ms(25),
        loss: 0.3,
        ..Default::default()
    };
    let mut c = client(&net, LinkConfig::symmetric(lossy));
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    for i in 0..50u32 {
        s.send(peer, Channel::Reliable, &numbered(i, 64))
            .expect("queued");
    }
    s.disconnect(peer, "kicked: test");
    assert_eq!(
        poll_s(&mut s),
        vec![ServerEvent::Disconnected {
            peer,
            reason: DisconnectReason::Local("kicked: test".into())
        }]
    );
    assert_eq!(
        s.send(peer, Channel::Reliable, b"x"),
        Err(SendError::UnknownPeer)
    );
    let mut events = Vec::new();
    for _ in 0..20_000 {
        net.advance(MS);
        events.extend(poll_c(&mut c));
        if matches!(events.last(), Some(ClientEvent::Disconnected { .. })) {
            break;
        }
    }
    let (last, msgs) = events.split_last().expect("events");
    assert_eq!(
        *last,
        ClientEvent::Disconnected {
            reason: DisconnectReason::Remote("kicked: test".into())
        }
    );
    let order: Vec<u32> = msgs
        .iter()
        .map(|e| match e {
            ClientEvent::Received { payload, .. } => number(payload),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        order,
        (0..50).collect::<Vec<_>>(),
        "flushed before the close"
    );

    // Client-side disconnect.
    let mut c2 = client(&net, LinkConfig::symmetric(lat(10)));
    let (peer2, _, _) = establish(&net, &mut s, &mut c2);
    c2.disconnect("bye");
    assert_eq!(
        poll_c(&mut c2),
        vec![ClientEvent::Disconnected {
            reason: DisconnectReason::Local("bye".into())
        }]
    );
    assert_eq!(
        c2.send(Channel::Reliable, b"x"),
        Err(SendError::NotConnected)
    );
    net.advance(ms(10));
    assert_eq!(
        poll_s(&mut s),
        vec![ServerEvent::Disconnected {
            peer: peer2,
            reason: DisconnectReason::Remote("bye".into())
        }]
    );

    // A dropped client says goodbye; a vanished one is noticed by the idle timeout.
    let c3 = client(&net, LinkConfig::symmetric(lat(10)));
    let c4 = client(&net, LinkConfig::symmetric(lat(10)));
    net.advance(ms(30));
    let connected: Vec<PeerId> = poll_s(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            ServerEvent::Connected { peer, .. } => Some(peer),
            _ => None,
        })
        .collect();
    assert_eq!(connected.len(), 2);
    drop(c3);
    c4.vanish();
    net.advance(ms(10));
    assert_eq!(
        poll_s(&mut s),
        vec![ServerEvent::Disconnected {
            peer: connected[0],
            reason: DisconnectReason::Remote("client shut down".into())
        }]
    );
    net.advance(Duration::from_secs(10));
    assert_eq!(
        poll_s(&mut s),
        vec![ServerEvent::Disconnected {
            peer: connected[1],
            reason: DisconnectReason::TimedOut
        }]
    );

    // A server that goes away tells its clients.
    let mut c5 = client(&net, LinkConfig::symmetric(lat(10)));
    establish(&net, &mut s, &mut c5);
    drop(s);
    net.advance(ms(10));
    assert_eq!(
        poll_c(&mut c5),
        vec![ClientEvent::Disconnected {
            reason: DisconnectReason::Remote("server shut down".into())
        }]
    );
}

#[test]
fn a_full_server_refuses() {
    let net = SimNetwork::new(13);
    let cfg = SimEndpointConfig {
        max_connections: 1,
        ..Default::default()
    };
    let mut s = net.server(server_addr(), cfg).expect("free");
    let mut c1 = client(&net, LinkConfig::symmetric(lat(5)));
    establish(&net, &mut s, &mut c1);
    let mut c2 = client(&net, LinkConfig::symmetric(lat(5)));
    net.advance(ms(10));
    assert_eq!(
        poll_c(&mut c2),
        vec![ClientEvent::Disconnected {
            reason: DisconnectReason::Remote("server full".into())
        }]
    );
    assert!(
        poll_s(&mut s).is_empty(),
        "a refused client never becomes a peer"
    );
}

#[test]
fn send_limits() {
    let net = SimNetwork::new(14);
    let mut s = server(&net);
    let mut c = client(&net, LinkConfig::default());
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    let big = vec![0u8; MAX_RELIABLE_MESSAGE + 1];
    assert_eq!(
        c.send(Channel::Reliable, &big),
        Err(SendError::TooLarge {
            size: MAX_RELIABLE_MESSAGE + 1,
            max: MAX_RELIABLE_MESSAGE
        })
    );
    let max_u = SimEndpointConfig::default().max_unreliable_message;
    assert!(matches!(
        s.send(peer, Channel::Voice, &vec![0u8; max_u + 1]),
        Err(SendError::TooLarge { .. })
    ));
    assert_eq!(
        s.send(peer + 100, Channel::Voice, b"x"),
        Err(SendError::UnknownPeer)
    );
    // The largest allowed messages go through whole.
    c.send(Channel::Reliable, &vec![7u8; MAX_RELIABLE_MESSAGE])
        .expect("max reliable");
    s.send(peer, Channel::Unreliable, &vec![9u8; max_u])
        .expect("max unreliable");
    net.advance(MS);
    let got = received_payloads_s(&poll_s(&mut s), Channel::Reliable);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].len(), MAX_RELIABLE_MESSAGE);
    let got_c: Vec<usize> = poll_c(&mut c)
        .into_iter()
        .filter_map(|e| match e {
            ClientEvent::Received { payload, .. } => Some(payload.len()),
            _ => None,
        })
        .collect();
    assert_eq!(got_c, vec![max_u]);
}

#[test]
fn a_peer_that_never_polls_cannot_grow_memory() {
    let net = SimNetwork::new(15);
    let scfg = SimEndpointConfig {
        max_inbox_unreliable: 100,
        ..Default::default()
    };
    let ccfg = SimEndpointConfig {
        max_reliable_backlog: 64 << 10,
        ..Default::default()
    };
    let mut s = net.server(server_addr(), scfg).expect("free");
    let mut c = net
        .connect(server_addr(), LinkConfig::symmetric(lat(5)), ccfg)
        .expect("free");
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    // The server stops polling. Unreliable beyond its inbox cap is dropped.
    for i in 0..1000u32 {
        c.send(Channel::Unreliable, &numbered(i, 100))
            .expect("queued");
    }
    net.advance(ms(10));
    assert_eq!(net.inbox_drops(c.link_id()), Some([0, 900]));
    // Reliable beyond the flow-control window fails and closes the link.
    let mut sent = 0u32;
    let err = loop {
        match c.send(Channel::Reliable, &numbered(sent, 1000)) {
            Ok(()) => sent += 1,
            Err(e) => break e,
        }
        assert!(sent < 1000, "the window must fill");
    };
    assert_eq!(err, SendError::QueueFull);
    assert_eq!(sent, 65, "64 KiB window / 1000-byte messages");
    assert!(matches!(
        poll_c(&mut c).as_slice(),
        [ClientEvent::Disconnected { reason: DisconnectReason::Local(r) }] if r.contains("overflow")
    ));
    assert!(c.link_stats().reliable_backlog_bytes <= 64 << 10);
    // When the server finally polls: 100 unreliable, every reliable, then the close.
    net.advance(ms(100));
    let events = poll_s(&mut s);
    assert_eq!(received_payloads_s(&events, Channel::Unreliable).len(), 100);
    assert_eq!(
        received_payloads_s(&events, Channel::Reliable).len(),
        sent as usize
    );
    assert!(matches!(
        events.last(),
        Some(ServerEvent::Disconnected { peer: p, reason: DisconnectReason::Remote(_) }) if *p == peer
    ));
}

#[test]
fn stats_reflect_the_link() {
    let net = SimNetwork::new(16);
    let mut s = server(&net);
    let mut c = client(
        &net,
        LinkConfig {
            to_server: lat(30),
            to_client: lat(50),
        },
    );
    let (peer, _, _) = establish(&net, &mut s, &mut c);
    for i in 0..200u32 {
        c.send(Channel::Unreliable, &numbered(i, 100))
            .expect("queued");
        s.send(peer, Channel::Reliable, &numbered(i, 100))
            .expect("queued");
        net.advance(ms(5));
        poll_c(&mut c);
    }
    let cs = c.link_stats();
    let ss = s.link_stats(peer).expect("connected");
    assert_eq!(cs.rtt, ms(80));
    assert_eq!(ss.rtt, ms(80));
    assert_eq!(cs.bytes_sent, 200 * 100);
    assert_eq!(ss.bytes_sent, 200 * 100);
    // Reliable data sent in the last ~80 ms is not yet acknowledged.
    assert!(ss.reliable_backlog_bytes > 0 && ss.reliable_backlog_bytes <= 17 * 100);
    net.advance(ms(200));
    poll_s(&mut s);
    let ss = s.link_stats(peer).expect("connected");
    assert!(
        ss.reliable_backlog_bytes > 0,
        "delivered but not yet polled still counts"
    );
    poll_c(&mut c);
    let ss = s.link_stats(peer).expect("connected");
    assert_eq!(ss.reliable_backlog_bytes, 0);
    assert_eq!(c.link_stats().messages_received, 200);
    assert_eq!(ss.messages_received, 200);
}

#[test]
fn runtime_reconfiguration_applies_to_new_datagrams() {
    let net = SimNetwork::new(17);
    let mut s = server(&net);
    let mut c = client(&net, LinkConfig::symmetric(lat(10)));
    establish(&net, &mut s, &mut c);
    let link = c.link_id();
    net.set_link(link, LinkConfig::symmetric(lat(100)))
        .expect("link");
    assert_eq!(
        net.link_config(link).map(|l| l.to_server.latency),
        Some(ms(100))
    );
    c.send(Channel::Unreliable, b"slow").expect("queued");
    net.advance(ms(99));
    assert!(poll_s(&mut s).is_empty());
    net.advance(MS);
    assert_eq!(
        received_payloads_s(&poll_s(&mut s), Channel::Unreliable).len(),
        1
    );
    // Total loss for longer than the idle timeout disconnects.
    let mut dead = LinkConfig::symmetric(lat(10));
    dead.to_server.loss = 1.0;
    net.set_link(link, dead).expect("link");
    net.advance(Duration::from_secs(10));
    assert!(matches!(
        poll_s(&mut s).as_slice(),
        [ServerEvent::Disconnected {
            reason: DisconnectReason::TimedOut,
            ..
        }]
    ));
}

/// A busy scenario over a nasty network; returns everything observed, with virtual times.
fn scenario(seed: u64) -> Vec<String> {
    let net = SimNetwork::new(seed);
    let mut s = server(&net);
    let nasty = DirectionConfig {
        latency: ms(40),
        jitter: ms(30),
        loss: 0.15,
        duplicate: 0.05,
        reorder: 0.1,
        reorder_delay: ms(25),
        bandwidth: 200_000,
        max_queue_delay: ms(200),
        max_datagram: 600,
    };
    let mut clients: Vec<SimClient> = (0..3)
        .map(|_| client(&net, LinkConfig::symmetric(nasty)))
        .collect();
    let mut log = Vec::new();
    let mut peers = Vec::new();
    for tick in 0..600u32 {
        let mut ev = Vec::new();
        s.poll(&mut ev);
        for e in ev {
            if let ServerEvent::Connected { peer, .. } = e {
                peers.push(peer);
            }
            log.push(format!("{:?} S {e:?}", net.now()));
        }
        for &p in &peers {
            let r = s.send(
                p,
                Channel::Unreliable,
                &numbered(tick, 300 + (tick as usize % 900)),
            );
            log.push(format!("send {p} {r:?}"));
            if tick % 20 == 0 {
                let r = s.send(p, Channel::Reliable, &numbered(tick, 2000));
                log.push(format!("rsend {p} {r:?}"));
            }
        }
        for (i, c) in clients.iter_mut().enumerate() {
            let mut ev = Vec::new();
            c.poll(&mut ev);
            for e in ev {
                let short = match e {
                    ClientEvent::Received { channel, payload } => {
                        format!("{channel:?} {} {}", number(&payload), payload.len())
                    }
                    other => format!("{other:?}"),
                };
                log.push(format!("{:?} C{i} {short}", net.now()));
            }
            let _ = c.send(Channel::Voice, &numbered(tick, 80));
            log.push(format!("C{i} stats {:?}", c.link_stats()));
        }
        if tick == 300 {
            net.blackout(clients[1].link_id(), ms(500)).expect("link");
        }
        net.advance(Duration::from_micros(16_667));
    }
    log
}

#[test]
fn same_seed_same_schedule_bit_for_bit() {
    let a = scenario(42);
    let b = scenario(42);
    assert!(
        a.len() > 3000,
        "the scenario exercises the network ({} lines)",
        a.len()
    );
    assert_eq!(a, b);
    let c = scenario(43);
    assert_ne!(a, c, "another seed gives another schedule");
}
