//! Starting a session behind the Loading screen: the content stack, the embedded server (single
//! player) and the QUIC connection are set up on a thread of their own, which reports progress
//! lines and finally the ready [`Client`] (or why it could not start) over a channel, so the
//! window keeps drawing while they load.
//!
//! Owns that thread and the messages. Must not touch the window or the GPU.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use fl_content::Content;
use fl_net::quic::{Fingerprint, TrustPolicy};

use crate::client::{Client, ClientConfig};
use crate::content::ContentOptions;
use crate::local_server::{LocalServer, LocalServerConfig};
use crate::session::{ClientSession, SessionConfig};

/// Where the session goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Destination {
    /// The embedded server on loopback.
    SinglePlayer,
    /// A server by host and port.
    Server {
        host: String,
        port: u16,
        /// Accept only this identity (else trust on first use through `known_hosts`).
        pin: Option<Fingerprint>,
        known_hosts: PathBuf,
    },
}

/// Everything a launch needs.
#[derive(Debug, Clone)]
pub struct LaunchRequest {
    pub destination: Destination,
    /// The content stack when already loaded (else `content_options` is loaded here).
    pub content: Option<Arc<Content>>,
    pub content_options: ContentOptions,
    /// The aircraft type to fly (checked against the content; `None`: the server's default).
    pub aircraft: Option<String>,
    pub local: LocalServerConfig,
    pub session: SessionConfig,
    pub client: ClientConfig,
}

/// A session that is up (its join may still be under way: the window keeps servicing it).
#[derive(Debug)]
pub struct Launched {
    pub client: Client,
    /// The embedded server (single player), stopped when dropped.
    pub server: Option<LocalServer>,
    pub content: Arc<Content>,
    /// The session clock's zero (pass `started.elapsed()` to `Client::frame`).
    pub started: Instant,
}

/// What the launch thread reports.
#[derive(Debug)]
pub enum LaunchMsg {
    Progress(String),
    Ready(Box<Launched>),
    Failed(String),
}

/// Most time the embedded server may take to start.
const SERVER_START_TIMEOUT: Duration = Duration::from_secs(20);

/// Starts the launch thread; its messages arrive on the returned channel.
pub fn start(req: LaunchRequest) -> Receiver<LaunchMsg> {
    let (tx, rx) = mpsc::channel();
    let fail_tx = tx.clone();
    let spawned = std::thread::Builder::new()
        .name("fl-launch".into())
        .spawn(move || {
            let msg = match launch(req, &tx) {
                Ok(l) => LaunchMsg::Ready(Box::new(l)),
                Err(e) => LaunchMsg::Failed(e),
            };
            let _ = tx.send(msg);
        });
    if let Err(e) = spawned {
        let _ = fail_tx.send(LaunchMsg::Failed(format!(
            "cannot start the loading thread: {e}"
        )));
    }
    rx
}

fn progress(tx: &Sender<LaunchMsg>, line: impl Into<String>) {
    let _ = tx.send(LaunchMsg::Progress(line.into()));
}

fn launch(req: LaunchRequest, tx: &Sender<LaunchMsg>) -> Result<Launched, String> {
    let content = match req.content {
        Some(c) => c,
        None => {
            progress(tx, "loading content packs…");
            crate::content::load(&req.content_options, req.aircraft.as_deref())
                .map_err(|e| format!("the content could not be loaded: {e}"))?
        }
    };
    progress(
        tx,
        format!(
            "content: {} pack(s), {} entity type(s)",
            content.packs().len(),
            content.types().len()
        ),
    );
    let mut session = req.session.clone();
    session.packs = crate::content::manifest(&content);
    session.pack_hashes = crate::content::pack_hashes(&content);
    let mut local = req.local.clone();
    local.content = Some(content.clone());
    if let Some(id) = &req.aircraft {
        session.requested_entity_type = id.clone();
        local.server.player_entity_type = id.clone();
    }
    let (addr, server_name, trust, server) = match &req.destination {
        Destination::SinglePlayer => {
            progress(tx, "starting the embedded server on 127.0.0.1…");
            let server = LocalServer::start(local, SERVER_START_TIMEOUT).map_err(|e| {
                format!(
                    "the embedded server did not start: {}",
                    fl_net::error_chain(&e)
                )
            })?;
            let info = server
                .info()
                .ok_or_else(|| "the embedded server stopped while starting".to_owned())?;
            progress(tx, format!("embedded server listening on {}", info.addr));
            (
                info.addr,
                "localhost".to_owned(),
                TrustPolicy::Pinned(info.fingerprint),
                Some(server),
            )
        }
        Destination::Server {
            host,
            port,
            pin,
            known_hosts,
        } => {
            progress(tx, format!("resolving {host}:{port}…"));
            let addr = resolve(host, *port)?;
            let trust = match pin {
                Some(fp) => TrustPolicy::Pinned(*fp),
                None => {
                    if let Some(dir) = known_hosts.parent().filter(|d| !d.as_os_str().is_empty()) {
                        std::fs::create_dir_all(dir).map_err(|e| {
                            format!("cannot create {} for known servers: {e}", dir.display())
                        })?;
                    }
                    TrustPolicy::KnownHosts(known_hosts.clone())
                }
            };
            (addr, host.clone(), trust, None)
        }
    };
    progress(tx, format!("connecting to {addr}…"));
    let started = Instant::now();
    let session = ClientSession::connect_quic(addr, &server_name, trust, session, Duration::ZERO)
        .map_err(|e| format!("cannot connect to {addr}: {}", fl_net::error_chain(&e)))?;
    progress(
        tx,
        "joining: waiting for the server's welcome and the aircraft…",
    );
    let client = Client::new(session, req.client, Some(content.clone()));
    Ok(Launched {
        client,
        server,
        content,
        started,
    })
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, String> {
    (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}:{port}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}:{port} resolves to no address"))
}
