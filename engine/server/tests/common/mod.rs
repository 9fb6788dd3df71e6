//! A deterministic test harness: a server and scripted clients over LinkSim in virtual time.

#![allow(dead_code)]

use fl_net::linksim::{LinkConfig, SimClient, SimEndpointConfig, SimNetwork};
use fl_net::{Channel, ClientEvent, ClientTransport};
use fl_protocol::ack::AckTracker;
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::msg::world::{ClientInput, Heartbeat};
use fl_protocol::snapshot::{SnapshotDecoder, WorldSnapshot};
use fl_protocol::tlv::Extensions;
use fl_protocol::{Message, PROTOCOL_VERSION, Packet};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

pub const TICK: Duration = Duration::from_nanos(16_666_667);

pub fn server_addr() -> SocketAddr {
    "127.0.0.1:4778".parse().expect("addr")
}

pub struct Harness {
    pub net: SimNetwork,
    pub server: Server,
}

impl Harness {
    pub fn new(seed: u64, cfg: ServerConfig) -> Self {
        Self::with_types(seed, cfg, TypeRegistry::builtin().expect("builtin types"))
    }

    /// A harness whose server has the entity types `types` (a pack's, say).
    pub fn with_types(seed: u64, cfg: ServerConfig, types: TypeRegistry) -> Self {
        let net = SimNetwork::new(seed);
        let endpoint = net
            .server(server_addr(), SimEndpointConfig::default())
            .expect("server endpoint");
        let server = Server::new(cfg, Box::new(endpoint), types);
        Self { net, server }
    }

    pub fn connect(&self, from: IpAddr, link: LinkConfig) -> TestClient {
        let t = self
            .net
            .connect_from(
                SocketAddr::new(from, 0),
                server_addr(),
                link,
                SimEndpointConfig::default(),
            )
            .expect("connect");
        TestClient::new(t)
    }

    /// Advances one tick: network time, then the server, then every client.
    pub fn step(&mut self, clients: &mut [&mut TestClient]) {
        self.net.advance(TICK);
        self.server.tick();
        for c in clients.iter_mut() {
            c.pump();
        }
    }

    pub fn run(&mut self, ticks: usize, clients: &mut [&mut TestClient]) {
        for _ in 0..ticks {
            self.step(clients);
        }
    }
}

/// A scripted client: joins, records what it hears, answers with inputs carrying the ack stamp.
pub struct TestClient {
    pub transport: SimClient,
    pub connected: bool,
    pub disconnected: Option<String>,
    pub messages: Vec<Packet>,
    pub snapshots: Vec<(WorldSnapshot, Extensions, usize)>,
    pub decode_errors: usize,
    pub acks: AckTracker,
    pub last_snapshot_tick: Option<u64>,
    pub seq: u32,
    /// Send one input per pump once admitted.
    pub send_inputs: bool,
    /// `MsgClientInput::buttons` of the inputs sent.
    pub buttons: u8,
    /// Throttle of the inputs sent.
    pub throttle: f32,
    /// Elevator of the inputs sent.
    pub elevator: f32,
    /// Aileron of the inputs sent (right roll positive).
    pub aileron: f32,
    /// `MsgClientInput::artButtons` of the inputs sent (gear, hook, canopy).
    pub art_buttons: u8,
    /// `MsgClientInput::selectedStation` of the inputs sent (255 = keep).
    pub selected_station: u8,
    /// `MsgClientInput::radarMode` of the inputs sent (255 = keep).
    pub radar_mode: u8,
    /// Snapshots to pretend were lost (not acked), by tick.
    pub ignore_ticks: std::collections::BTreeSet<u64>,
    /// Extension entries every input carries.
    pub input_ext: Extensions,
    /// The ack stamp's tick of every input sent, by sequence number.
    pub sent_ticks: std::collections::BTreeMap<u32, u64>,
    decoder: SnapshotDecoder,
    events: Vec<ClientEvent>,
}

impl TestClient {
    pub fn new(transport: SimClient) -> Self {
        Self {
            transport,
            connected: false,
            disconnected: None,
            messages: Vec::new(),
            snapshots: Vec::new(),
            decode_errors: 0,
            acks: AckTracker::new(),
            last_snapshot_tick: None,
            seq: 0,
            send_inputs: true,
            buttons: 0,
            throttle: 0.8,
            elevator: 0.0,
            aileron: 0.0,
            art_buttons: 0,
            selected_station: 255,
            radar_mode: 255,
            ignore_ticks: Default::default(),
            input_ext: Extensions::new(),
            sent_ticks: Default::default(),
            decoder: SnapshotDecoder::new(),
            events: Vec::new(),
        }
    }

    pub fn request(&mut self, role: PeerRole, ext: Extensions) {
        let req = ConnectRequest {
            requested_role: role,
            protocol_version: PROTOCOL_VERSION,
            callsign: "tester".into(),
            ..Default::default()
        };
        let bytes = Message::from(req).encode_with(&ext).expect("encodes");
        let _ = self.transport.send(Channel::Reliable, &bytes);
    }

    pub fn send_raw(&mut self, channel: Channel, bytes: &[u8]) {
        let _ = self.transport.send(channel, bytes);
    }

    pub fn admitted(&self) -> Option<&fl_protocol::msg::handshake::ConnectAck> {
        self.messages.iter().rev().find_map(|p| match &p.message {
            Message::ConnectAck(a) => Some(a),
            _ => None,
        })
    }

    pub fn refusal(&self) -> Option<&fl_protocol::msg::handshake::ConnectRefusal> {
        self.messages.iter().find_map(|p| match &p.message {
            Message::ConnectRefusal(r) => Some(r),
            _ => None,
        })
    }

    pub fn pump(&mut self) {
        let mut events = std::mem::take(&mut self.events);
        self.transport.poll(&mut events);
        for ev in events.drain(..) {
            match ev {
                ClientEvent::Connected => self.connected = true,
                ClientEvent::Disconnected { reason } => {
                    self.disconnected = Some(reason.to_string())
                }
                ClientEvent::Received { payload, .. } => {
                    if payload.first() == Some(&fl_protocol::MsgId::WorldSnapshot.to_u8()) {
                        match self.decoder.decode(&payload) {
                            Ok((_, snap, ext)) => {
                                let tick = snap.tick_index;
                                if !self.ignore_ticks.contains(&tick)
                                    && self.last_snapshot_tick.is_none_or(|t| tick > t)
                                {
                                    self.acks.record(tick);
                                    self.last_snapshot_tick = Some(tick);
                                }
                                self.snapshots.push((snap, ext, payload.len()));
                            }
                            Err(_) => self.decode_errors += 1,
                        }
                    } else {
                        match Packet::decode(&payload) {
                            Ok(p) => self.messages.push(p),
                            Err(_) => self.decode_errors += 1,
                        }
                    }
                }
            }
        }
        self.events = events;
        if self.send_inputs && self.admitted().is_some() {
            self.seq += 1;
            let stamp = self.acks.stamp().unwrap_or_default();
            let input = ClientInput {
                protocol_version: PROTOCOL_VERSION,
                seq_num: self.seq,
                tick_index: stamp.high,
                ack_mask: stamp.mask,
                buttons: self.buttons,
                throttle: self.throttle,
                elevator: self.elevator,
                aileron: self.aileron,
                art_buttons: self.art_buttons,
                view_axis: [0.0, 0.0, -1.0],
                selected_station: self.selected_station,
                radar_mode: self.radar_mode,
                ..Default::default()
            };
            self.sent_ticks.insert(self.seq, stamp.high);
            let _ = self.transport.send(
                Channel::Unreliable,
                &Message::from(input)
                    .encode_with(&self.input_ext)
                    .expect("encodes"),
            );
        }
    }

    pub fn heartbeat(&mut self) {
        let stamp = self.acks.stamp().unwrap_or_default();
        let hb = Heartbeat {
            ack_mask: stamp.mask,
            tick_index: stamp.high,
        };
        let _ = self.transport.send(
            Channel::Unreliable,
            &Message::from(hb).encode().expect("encodes"),
        );
    }
}

/// The fixture pack loaded as a server loads it; `None` (and the skip counted) without it.
pub fn fixture_content(why: &str) -> Option<fl_content::Content> {
    let pack = fl_fixtures::fixture_pack_or(why)?;
    Some(
        fl_content::Content::load(&fl_content::LoadOptions {
            pack_dirs: vec![pack],
            ..fl_content::LoadOptions::default()
        })
        .unwrap_or_else(|e| panic!("the fixture pack loads: {e}")),
    )
}

/// A client from 127.0.0.1 that joins as `role` under `callsign`, reporting the packs `packs`
/// (version 0.1.0, no hash); `prepare` sets its controls before it joins. Panics unless admitted.
pub fn join_reporting(
    h: &mut Harness,
    role: PeerRole,
    callsign: &str,
    packs: &[&str],
    prepare: impl FnOnce(&mut TestClient),
) -> TestClient {
    let mut c = h.connect(IpAddr::from([127, 0, 0, 1]), LinkConfig::default());
    prepare(&mut c);
    h.run(3, &mut [&mut c]);
    let req = ConnectRequest {
        requested_role: role,
        protocol_version: PROTOCOL_VERSION,
        callsign: callsign.into(),
        packs: packs
            .iter()
            .map(|id| fl_protocol::msg::handshake::PackManifestEntry {
                id: (*id).into(),
                version: "0.1.0".into(),
                content_hash: [0; 32],
            })
            .collect(),
        ..Default::default()
    };
    c.send_raw(
        Channel::Reliable,
        &Message::from(req).encode().expect("encodes"),
    );
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some(), "admitted: {:?}", c.refusal());
    c
}

/// Parked in the aircraft a join gives: gear down, idle, wheel brakes on.
pub fn parked_controls(c: &mut TestClient) {
    c.throttle = 0.0;
    c.art_buttons = fl_protocol::enums::art_buttons::GEAR_DOWN;
    c.buttons |= fl_protocol::enums::buttons::WHEEL_BRAKE;
}
