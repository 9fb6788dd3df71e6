//! A pilot flying a pack's type needs that pack: a client whose manifest lacks it is refused
//! with `MissingRequiredPack` naming the pack (and the server logs the refusal); a client that
//! reports it is admitted into that type. LinkSim in virtual time.

mod common;

use common::{TICK, TestClient, server_addr};
use fl_content::{Content, LoadOptions};
use fl_net::Channel;
use fl_net::linksim::{LinkConfig, SimEndpointConfig, SimNetwork};
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_protocol::msg::handshake::{ConnectRequest, PackManifestEntry};
use fl_protocol::{Message, PROTOCOL_VERSION};
use fl_server::server::{Server, ServerConfig};
use fl_server::types::TypeRegistry;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// A `MakeWriter` collecting the log in memory.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Joins a server flying `my:trainer` from pack `my-pack`, reporting `packs`; returns the client
/// after two simulated seconds and the server's log.
fn join(packs: &[&str]) -> (TestClient, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    fl_content::example::write_example_pack(dir.path(), "my-pack", "my", "trainer").expect("pack");
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![dir.path().to_owned()],
        ..LoadOptions::default()
    })
    .expect("loads");
    let types = TypeRegistry::from_content(&content, 1);
    let cfg = ServerConfig {
        player_entity_type: "my:trainer".into(),
        ..ServerConfig::default()
    };
    let log = Log::default();
    let sub = tracing_subscriber::fmt()
        .with_writer({
            let log = log.clone();
            move || log.clone()
        })
        .with_ansi(false)
        .finish();
    let client = tracing::subscriber::with_default(sub, || {
        let net = SimNetwork::new(7);
        let ep = net
            .server(server_addr(), SimEndpointConfig::default())
            .expect("endpoint");
        let mut server = Server::new(cfg, Box::new(ep), types);
        let t = net
            .connect_from(
                SocketAddr::from(([127, 0, 0, 2], 0)),
                server_addr(),
                LinkConfig::default(),
                SimEndpointConfig::default(),
            )
            .expect("connect");
        let mut c = TestClient::new(t);
        let mut sent = false;
        for _ in 0..120 {
            net.advance(TICK);
            server.tick();
            c.pump();
            if c.connected && !sent {
                sent = true;
                let req = ConnectRequest {
                    requested_role: PeerRole::Pilot,
                    protocol_version: PROTOCOL_VERSION,
                    callsign: "modder".into(),
                    packs: packs
                        .iter()
                        .map(|id| PackManifestEntry {
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
            }
        }
        c
    });
    let text = String::from_utf8_lossy(&log.0.lock().expect("log")).into_owned();
    (client, text)
}

#[test]
fn a_client_without_the_pack_is_refused_naming_it_and_the_server_logs_it() {
    let (c, log) = join(&[]);
    let r = c.refusal().expect("refused");
    assert_eq!(r.code, ConnectRefusalCode::MissingRequiredPack);
    assert_eq!(
        r.reason.as_str(),
        "Missing required pack(s): my-pack (for my:trainer)"
    );
    assert!(c.admitted().is_none());
    assert!(
        log.contains("join refused") && log.contains("my-pack"),
        "the server logs the refusal: {log}"
    );
}

#[test]
fn a_client_with_the_pack_flies_its_type() {
    let (c, _) = join(&["my-pack"]);
    assert!(c.refusal().is_none(), "{:?}", c.refusal());
    let ack = c.admitted().expect("admitted");
    let own = ack
        .types
        .iter()
        .find(|t| t.id.as_str() == "my:trainer")
        .expect("type sent");
    assert_eq!(own.flight_model.as_str(), "trainer/trainer");
    assert_ne!(ack.assigned_entity_gen, 0, "a pilot gets an aircraft");
}
