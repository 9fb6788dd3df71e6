//! The impairment relay on loopback: it refuses anything but loopback, its random decisions
//! repeat with the seed, its ground truth adds up, the bottleneck queue stays bounded, and a
//! real fl-net QUIC client and server talk through it under 50 ms ± 20 ms / 2 % loss.
//! Every wait is bounded; assertions are on counts, never on speed.

mod common;
use common::{any_port, connect_through};

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::thread::sleep;
use std::time::{Duration, Instant};

use fl_net::impair::{
    Blackout, DirectionConfig, ImpairConfig, Relay, RelayError, RelayHandle, RelayStats,
};
use fl_net::quic::{QuicServer, ServerConfig};
use fl_net::{Channel, ClientEvent, ClientTransport, ServerEvent, ServerTransport};

/// Generous: the machine may be a loaded 2-core box.
const PATIENCE: Duration = Duration::from_secs(30);

/// Waits (bounded) until nothing is scheduled in the relay, then returns its stats.
fn settled(relay: &RelayHandle) -> RelayStats {
    let end = Instant::now() + PATIENCE;
    loop {
        let s = relay.stats();
        if s.to_server.in_flight == 0 && s.to_client.in_flight == 0 {
            return s;
        }
        assert!(Instant::now() < end, "relay never drained: {s:?}");
        sleep(Duration::from_millis(5));
    }
}

fn assert_accounts(s: &fl_net::impair::DirectionStats) {
    assert_eq!(
        s.packets_in + s.duplicated,
        s.packets_out
            + s.dropped_loss
            + s.dropped_blackout
            + s.dropped_queue
            + s.dropped_overflow
            + s.send_errors
            + s.in_flight,
        "{s:?}"
    );
}

/// Receives every datagram that arrives within `quiet` of the previous one (bounded).
fn collect(sock: &UdpSocket, expect_at_most: usize, quiet: Duration) -> Vec<Vec<u8>> {
    sock.set_read_timeout(Some(quiet)).expect("timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while got.len() < expect_at_most * 2 {
        match sock.recv(&mut buf) {
            Ok(n) => got.push(buf[..n].to_vec()),
            Err(_) => break,
        }
    }
    got
}

#[test]
fn only_loopback_is_accepted() {
    let lo = any_port();
    let outside = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 4778);
    let cfg = ImpairConfig::default();
    assert!(matches!(
        Relay::start(lo, outside, &cfg, 1),
        Err(RelayError::NotLoopback(a)) if a == outside
    ));
    let unspecified = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);
    assert!(matches!(
        Relay::start(unspecified, lo, &cfg, 1),
        Err(RelayError::NotLoopback(_))
    ));
    let v6 = SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 4778);
    assert!(matches!(
        Relay::start(lo, v6, &cfg, 1),
        Err(RelayError::MixedFamilies { .. })
    ));
    let bad = ImpairConfig::symmetric(DirectionConfig {
        loss: f64::NAN,
        ..DirectionConfig::default()
    });
    assert!(matches!(
        Relay::start(lo, lo, &bad, 1),
        Err(RelayError::Config(_))
    ));
}

/// Sends `n` numbered datagrams one by one through a fresh relay and returns how many copies
/// of each arrived, and the relay's stats.
fn send_through(cfg: &ImpairConfig, seed: u64, n: u32) -> (BTreeMap<u32, usize>, RelayStats) {
    let server = UdpSocket::bind(any_port()).expect("bind");
    let relay = Relay::start(any_port(), server.local_addr().expect("addr"), cfg, seed)
        .expect("relay starts");
    let client = UdpSocket::bind(any_port()).expect("bind");
    client.connect(relay.local_addr()).expect("connect");
    // Paced and read as we go so no socket buffer of the kernel overflows (that would be a
    // loss the relay did not decide).
    server.set_nonblocking(true).expect("nonblocking");
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    for i in 0..n {
        client.send(&i.to_le_bytes()).expect("send");
        sleep(Duration::from_micros(200));
        while let Ok(len) = server.recv(&mut buf) {
            got.push(buf[..len].to_vec());
        }
    }
    server.set_nonblocking(false).expect("blocking");
    got.extend(collect(&server, n as usize, Duration::from_millis(500)));
    let stats = settled(&relay);
    let mut copies = BTreeMap::new();
    for p in got {
        let i = u32::from_le_bytes(p[..4].try_into().expect("4 bytes"));
        *copies.entry(i).or_insert(0) += 1;
    }
    (copies, stats)
}

#[test]
fn the_same_seed_repeats_the_same_losses_and_duplicates() {
    let cfg = ImpairConfig {
        to_server: DirectionConfig {
            loss: 0.3,
            duplicate: 0.1,
            ..DirectionConfig::default()
        },
        ..ImpairConfig::default()
    };
    let (a, sa) = send_through(&cfg, 99, 300);
    let (b, sb) = send_through(&cfg, 99, 300);
    let (c, _) = send_through(&cfg, 100, 300);
    assert_eq!(sa.to_server.packets_in, 300);
    assert_accounts(&sa.to_server);
    assert_accounts(&sb.to_server);
    // The receiver saw exactly what the relay says it sent.
    assert_eq!(
        a.values().sum::<usize>() as u64,
        sa.to_server.packets_out,
        "{sa:?}"
    );
    let lost = 300 - a.len() as u64;
    assert_eq!(lost, sa.to_server.dropped_loss);
    assert!((50..=130).contains(&lost), "30 % of 300 lost: {lost}");
    assert!(sa.to_server.duplicated > 0);
    assert_eq!(a, b, "same seed, same decisions");
    assert_ne!(a, c, "another seed, other decisions");
}

#[test]
fn a_blackout_drops_what_arrives_inside_it_and_nothing_else() {
    // The whole first 200 ms, then open: packets sent well inside and well after.
    let cfg = ImpairConfig {
        blackouts: vec![Blackout {
            start_ms: 0,
            duration_ms: 200,
        }],
        ..ImpairConfig::default()
    };
    let server = UdpSocket::bind(any_port()).expect("bind");
    let relay =
        Relay::start(any_port(), server.local_addr().expect("addr"), &cfg, 5).expect("relay");
    let start = Instant::now();
    let client = UdpSocket::bind(any_port()).expect("bind");
    client.connect(relay.local_addr()).expect("connect");
    for i in 0..20u32 {
        client.send(&i.to_le_bytes()).expect("send");
    }
    // Only meaningful if the burst left well inside the window (a loaded box may stall).
    let inside = start.elapsed() < Duration::from_millis(150);
    sleep(Duration::from_millis(300));
    for i in 20..40u32 {
        client.send(&i.to_le_bytes()).expect("send");
    }
    let got = collect(&server, 40, Duration::from_millis(500));
    let s = settled(&relay).to_server;
    assert_accounts(&s);
    assert_eq!(s.packets_in, 40);
    let ids: Vec<u32> = got
        .iter()
        .map(|p| u32::from_le_bytes(p[..4].try_into().expect("4 bytes")))
        .collect();
    assert_eq!(
        ids,
        (20..40).collect::<Vec<_>>(),
        "after the blackout all pass"
    );
    if inside {
        assert_eq!(s.dropped_blackout, 20);
    }
}

#[test]
fn the_bottleneck_queue_stays_bounded_and_counts_tail_drops() {
    let cfg = ImpairConfig {
        to_server: DirectionConfig {
            rate_bps: Some(1_000_000),
            queue_bytes: 10_000,
            ..DirectionConfig::default()
        },
        ..ImpairConfig::default()
    };
    let server = UdpSocket::bind(any_port()).expect("bind");
    let relay =
        Relay::start(any_port(), server.local_addr().expect("addr"), &cfg, 5).expect("relay");
    let client = UdpSocket::bind(any_port()).expect("bind");
    client.connect(relay.local_addr()).expect("connect");
    // 200 kB offered in a burst to a 10 kB queue draining at 125 kB/s.
    let payload = vec![7u8; 1_000];
    for _ in 0..200 {
        client.send(&payload).expect("send");
    }
    let got = collect(&server, 200, Duration::from_millis(500));
    let s = settled(&relay).to_server;
    assert_accounts(&s);
    assert!(s.max_queue_bytes <= 10_000, "{s:?}");
    assert!(s.dropped_queue > 0, "{s:?}");
    assert!(s.packets_out >= 10, "{s:?}");
    assert_eq!(got.len() as u64, s.packets_out);
    // The queue delay a packet can see is bounded by the queue: 10 kB at 1 Mbit/s = 80 ms.
    assert!(s.queue_delay.max_ms <= 80.0 + 1e-6, "{s:?}");
}

#[test]
fn quic_through_the_relay_under_50ms_20ms_2pct() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server =
        QuicServer::bind(any_port(), dir.path(), ServerConfig::default()).expect("bind loopback");
    let cfg = ImpairConfig::profile("50ms-20ms-2pct").expect("profile");
    let relay = Relay::start(any_port(), server.local_addr(), &cfg, 2024).expect("relay starts");
    let (mut client, peer) = connect_through(
        &mut server,
        relay.local_addr(),
        &dir.path().join("known_hosts"),
        PATIENCE,
    );
    let mut s_events = Vec::new();
    let mut c_events = Vec::new();

    const RELIABLE: u32 = 30;
    const DATAGRAMS: u32 = 100;
    for i in 0..RELIABLE {
        client
            .send(Channel::Reliable, &i.to_le_bytes())
            .expect("reliable send");
        server
            .send(peer, Channel::Reliable, &(1000 + i).to_le_bytes())
            .expect("reliable send");
    }
    // Datagrams paced a little so they are not all one burst.
    let mut c_got = Vec::new();
    let mut s_got = Vec::new();
    let mut sent = 0;
    let end = Instant::now() + PATIENCE;
    loop {
        if sent < DATAGRAMS {
            let _ = client.send(Channel::Unreliable, &sent.to_le_bytes());
            let _ = server.send(peer, Channel::Unreliable, &sent.to_le_bytes());
            sent += 1;
        }
        server.poll(&mut s_events);
        client.poll(&mut c_events);
        for e in s_events.drain(..) {
            if let ServerEvent::Received {
                channel, payload, ..
            } = e
            {
                s_got.push((channel, payload));
            }
        }
        for e in c_events.drain(..) {
            match e {
                ClientEvent::Received { channel, payload } => c_got.push((channel, payload)),
                ClientEvent::Disconnected { reason } => panic!("client disconnected: {reason}"),
                ClientEvent::Connected => {}
            }
        }
        let reliable = |v: &[(Channel, Vec<u8>)]| {
            v.iter().filter(|(c, _)| *c == Channel::Reliable).count() as u32
        };
        let unreliable = |v: &[(Channel, Vec<u8>)]| {
            v.iter().filter(|(c, _)| *c == Channel::Unreliable).count() as u32
        };
        if sent == DATAGRAMS
            && reliable(&s_got) == RELIABLE
            && reliable(&c_got) == RELIABLE
            && unreliable(&s_got) > 0
            && unreliable(&c_got) > 0
        {
            break;
        }
        assert!(
            Instant::now() < end,
            "timed out: server got {} client got {}; relay {:?}",
            s_got.len(),
            c_got.len(),
            relay.stats()
        );
        sleep(Duration::from_millis(5));
    }
    // Reliable messages complete, once and in order, both ways.
    let numbers = |v: &[(Channel, Vec<u8>)]| -> Vec<u32> {
        v.iter()
            .filter(|(c, _)| *c == Channel::Reliable)
            .map(|(_, p)| u32::from_le_bytes(p[..4].try_into().expect("4 bytes")))
            .collect()
    };
    assert_eq!(numbers(&s_got), (0..RELIABLE).collect::<Vec<_>>());
    assert_eq!(numbers(&c_got), (1000..1000 + RELIABLE).collect::<Vec<_>>());
    // Datagrams: each at most once (QUIC drops relay duplicates), never more than sent.
    for v in [&s_got, &c_got] {
        let mut ids: Vec<u32> = v
            .iter()
            .filter(|(c, _)| *c == Channel::Unreliable)
            .map(|(_, p)| u32::from_le_bytes(p[..4].try_into().expect("4 bytes")))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert!(ids.iter().all(|i| *i < DATAGRAMS));
    }

    // The relay saw the traffic, both ways, and its books balance.
    let s = relay.stats();
    for d in [&s.to_server, &s.to_client] {
        assert!(d.packets_in > 0 && d.packets_out > 0, "{s:?}");
        assert_accounts(d);
        // Every delivered packet was held for at least the profile's minimum (30 ms).
        assert!(d.delay.count > 0 && d.delay.mean_ms >= 30.0, "{s:?}");
    }
    assert_eq!(s.flows, 1);
}

#[test]
fn any_datagram_passes_the_flow_table_is_bounded_and_drop_stops_the_relay() {
    let server = UdpSocket::bind(any_port()).expect("bind");
    let relay = Relay::start(
        any_port(),
        server.local_addr().expect("addr"),
        &ImpairConfig::default(),
        3,
    )
    .expect("relay");
    let listen = relay.local_addr();
    // Empty, tiny and the largest UDP payload loopback carries: all forwarded unchanged.
    let client = UdpSocket::bind(any_port()).expect("bind");
    client.connect(listen).expect("connect");
    let big: Vec<u8> = (0..65_507u32).map(|i| (i * 7) as u8).collect();
    for p in [&[][..], &[0xff][..], &big[..]] {
        client.send(p).expect("send");
        server
            .set_read_timeout(Some(PATIENCE))
            .expect("read timeout");
        let mut buf = vec![0u8; 65_536];
        let n = server.recv(&mut buf).expect("forwarded");
        assert_eq!(&buf[..n], p);
    }
    // More client addresses than the flow table holds: the rest are counted, not served.
    let extra = 20;
    let others: Vec<UdpSocket> = (0..fl_net::impair::MAX_FLOWS - 1 + extra)
        .map(|_| UdpSocket::bind(any_port()).expect("bind"))
        .collect();
    for (i, s) in others.iter().enumerate() {
        s.send_to(b"x", listen).expect("send");
        // Paced so the relay's kernel receive buffer cannot overflow on a stalled machine.
        if i % 32 == 31 {
            sleep(Duration::from_millis(5));
        }
    }
    let end = Instant::now() + PATIENCE;
    let s = loop {
        let s = relay.stats();
        // Every address sent once: the first client's flow plus one per other socket.
        if s.flows as usize + s.refused_flow_packets as usize > others.len() {
            break s;
        }
        assert!(Instant::now() < end, "{s:?}");
        sleep(Duration::from_millis(5));
    };
    assert_eq!(s.flows as usize, fl_net::impair::MAX_FLOWS);
    assert_eq!(s.refused_flow_packets as usize, extra);
    // Dropping the handle stops the thread and frees the port.
    drop(relay);
    UdpSocket::bind(listen).expect("the relay's port is free again");
}
