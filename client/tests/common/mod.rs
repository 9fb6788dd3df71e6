//! Test harnesses over LinkSim in virtual time: a real fl-server with bare sessions, and a
//! scripted fake server that sends exactly the bytes a test wants.

#![allow(dead_code)]

use fighters_legacy::session::{ClientSession, SessionConfig, SessionEvent, SessionState};
use fl_net::linksim::{LinkConfig, SimEndpointConfig, SimNetwork, SimServer};
use fl_net::{Channel, ServerEvent, ServerTransport};
use fl_protocol::snapshot::{EntityState, RecordKind, SnapshotRecord, WorldSnapshot, origin_for};
use fl_protocol::tlv::Extensions;
use fl_protocol::{Message, PROTOCOL_VERSION, Packet};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

pub const TICK: Duration = Duration::from_nanos(16_666_667);

pub fn server_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 4778))
}

/// A real server and any number of sessions, stepped tick by tick.
pub struct RealWorld {
    pub net: SimNetwork,
    pub server: Server,
    pub now: Duration,
}

impl RealWorld {
    pub fn new(seed: u64, cfg: ServerConfig) -> Self {
        let net = SimNetwork::new(seed);
        let ep = net
            .server(server_addr(), SimEndpointConfig::default())
            .expect("server endpoint");
        let server = Server::new(
            cfg,
            Box::new(ep),
            TypeRegistry::builtin().expect("builtin types"),
        );
        Self {
            net,
            server,
            now: Duration::ZERO,
        }
    }

    pub fn session_from(&self, ip: IpAddr, cfg: SessionConfig) -> ClientSession {
        let t = self
            .net
            .connect_from(
                SocketAddr::new(ip, 0),
                server_addr(),
                LinkConfig::default(),
                SimEndpointConfig::default(),
            )
            .expect("connect");
        ClientSession::new(Box::new(t), cfg, self.now)
    }

    /// One tick: time, the server, then every session.
    pub fn step(&mut self, sessions: &mut [&mut ClientSession], events: &mut Vec<SessionEvent>) {
        self.now += TICK;
        self.net.set_now(self.now);
        self.server.tick();
        for s in sessions.iter_mut() {
            s.update(self.now, events);
        }
    }

    /// Steps until the session is in the world or ended (at most `ticks`).
    pub fn settle(&mut self, s: &mut ClientSession, ticks: usize) -> Vec<SessionEvent> {
        let mut ev = Vec::new();
        for _ in 0..ticks {
            self.step(&mut [&mut *s], &mut ev);
            if s.state() == SessionState::Ended {
                break;
            }
        }
        ev
    }
}

/// A scripted server endpoint.
pub struct FakeServer {
    pub net: SimNetwork,
    pub ep: SimServer,
    pub peer: Option<u32>,
    pub received: Vec<(Channel, Packet)>,
    pub disconnected: bool,
    pub now: Duration,
}

impl FakeServer {
    pub fn new(seed: u64) -> Self {
        let net = SimNetwork::new(seed);
        let ep = net
            .server(server_addr(), SimEndpointConfig::default())
            .expect("server endpoint");
        Self {
            net,
            ep,
            peer: None,
            received: Vec::new(),
            disconnected: false,
            now: Duration::ZERO,
        }
    }

    pub fn session(&self, cfg: SessionConfig) -> ClientSession {
        let t = self
            .net
            .connect(
                server_addr(),
                LinkConfig::default(),
                SimEndpointConfig::default(),
            )
            .expect("connect");
        ClientSession::new(Box::new(t), cfg, self.now)
    }

    /// Advances one tick and services the endpoint, then the session.
    pub fn step(&mut self, s: &mut ClientSession, events: &mut Vec<SessionEvent>) {
        self.now += TICK;
        self.net.set_now(self.now);
        self.service();
        s.update(self.now, events);
    }

    pub fn run(&mut self, s: &mut ClientSession, ticks: usize) -> Vec<SessionEvent> {
        let mut ev = Vec::new();
        for _ in 0..ticks {
            self.step(s, &mut ev);
        }
        ev
    }

    pub fn service(&mut self) {
        let mut evs = Vec::new();
        self.ep.poll(&mut evs);
        for e in evs {
            match e {
                ServerEvent::Connected { peer, .. } => self.peer = Some(peer),
                ServerEvent::Received {
                    channel, payload, ..
                } => {
                    if let Ok(p) = Packet::decode(&payload) {
                        self.received.push((channel, p));
                    }
                }
                ServerEvent::Disconnected { .. } => self.disconnected = true,
            }
        }
    }

    pub fn send(&mut self, channel: Channel, msg: impl Into<Message>, ext: &Extensions) {
        let bytes = msg.into().encode_with(ext).expect("encodes");
        self.send_raw(channel, &bytes);
    }

    pub fn send_raw(&mut self, channel: Channel, bytes: &[u8]) {
        let peer = self.peer.expect("a connected peer");
        self.ep.send(peer, channel, bytes).expect("queued");
    }

    pub fn close(&mut self, reason: &str) {
        if let Some(p) = self.peer {
            self.ep.disconnect(p, reason);
        }
    }

    /// Messages of one kind received so far.
    pub fn count(&self, pred: impl Fn(&Message) -> bool) -> usize {
        self.received
            .iter()
            .filter(|(_, p)| pred(&p.message))
            .count()
    }
}

/// An entity in a crafted snapshot.
pub fn entity(idx: u32, generation: u32, x: f64) -> EntityState {
    EntityState {
        idx,
        generation,
        type_index: 1,
        faction_index: 1,
        position: [x, 2000.0, -500.0],
        orientation: [0.0, 0.0, 0.0, 1.0],
        velocity: [200.0, 0.0, 0.0],
        throttle_pct: 80,
        fuel_pct: 50,
        ..EntityState::default()
    }
}

/// A snapshot of `tick` with the given records (each quantized against its own origin).
pub fn snapshot(tick: u64, records: &[(EntityState, RecordKind)], ext: &Extensions) -> Vec<u8> {
    let mut snap = WorldSnapshot {
        protocol_version: PROTOCOL_VERSION as u8,
        tick_index: tick,
        ..WorldSnapshot::default()
    };
    for (state, kind) in records {
        let origin = origin_for(state.position);
        let index = match snap.origins.iter().position(|o| *o == origin) {
            Some(i) => i,
            None => {
                snap.origins.push(origin);
                snap.origins.len() - 1
            }
        };
        snap.records
            .push(SnapshotRecord::quantize(state, index as u32, origin, *kind));
    }
    snap.encode(ext).expect("snapshot encodes")
}
