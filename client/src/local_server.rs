//! `LocalServer`: the embedded single-player server. fl-server's library and wall-clock runtime
//! on their own threads, bound to 127.0.0.1 on a free port over QUIC — single player uses the
//! same transport and handshake as multiplayer (the client pins the fingerprint it is told).
//!
//! Start-up (content, QUIC bind, world) runs on a setup thread that reports readiness or the
//! failure over a channel, so a loading screen can poll it. Pause and resume go to the runtime
//! as commands. Dropping the handle stops the server (peers get the shutdown notice) and joins
//! its threads within two seconds.
//!
//! Owns the server threads and, when none was given, a temporary directory for the server's TLS
//! identity (removed on drop). Binds loopback only. Must not start fl-server's discovery: the
//! single-player server neither beacons nor answers server-info queries.

use fl_content::{Content, StackSources};
use fl_net::quic::{Fingerprint, QuicServer, ServerConfig as QuicConfig};
use fl_server::mission_director::MissionDirector;
use fl_server::runtime::{Command, Metrics, RuntimeConfig, ServerHandle, spawn_hooked};
use fl_server::server::mission::MissionStatus;
use fl_server::server::{Server, ServerConfig, SpawnPoint};
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How the embedded server is set up.
#[derive(Debug, Clone)]
pub struct LocalServerConfig {
    pub server: ServerConfig,
    /// Where the server keeps its TLS identity (`None`: a temporary directory).
    pub data_dir: Option<PathBuf>,
    /// The content stack the client loaded (the same packs fly on both sides). `None`: load
    /// `mods_dirs` and `pack_dirs` here (besides the builtin content).
    pub content: Option<Arc<Content>>,
    /// Content packs to load when `content` is `None`.
    pub pack_dirs: Vec<PathBuf>,
    pub mods_dirs: Vec<PathBuf>,
    /// AI aircraft to spawn (an `fl-ai` factory line each flies).
    pub ai_aircraft: usize,
    pub ai_behaviour: String,
    /// A mission to run: started before anyone joins (the pilot binds its first free player
    /// slot) and driven after every tick; its status is published ([`LocalServer::mission_status`]).
    pub mission: Option<MissionDirector>,
}

impl Default for LocalServerConfig {
    fn default() -> Self {
        Self {
            server: ServerConfig {
                motd: String::new(),
                ..ServerConfig::default()
            },
            data_dir: None,
            content: None,
            pack_dirs: Vec::new(),
            mods_dirs: Vec::new(),
            ai_aircraft: 0,
            ai_behaviour: "loiter".to_owned(),
            mission: None,
        }
    }
}

/// Where to connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalServerInfo {
    pub addr: SocketAddr,
    /// The identity to pin.
    pub fingerprint: Fingerprint,
}

/// Why the embedded server did not start. Each variant says what failed and carries the cause
/// as its `source` (print the chain: anyhow's `{:#}` or `fl_net::error_chain`).
#[derive(Debug, thiserror::Error)]
pub enum LocalServerError {
    #[error("cannot create a directory for the server identity")]
    DataDir(#[source] std::io::Error),
    #[error("cannot start the server thread")]
    Thread(#[source] std::io::Error),
    #[error("cannot load the server's content")]
    Content(#[source] crate::content::ContentLoadError),
    #[error("[world] player_entity_type")]
    Aircraft(#[source] fl_content::AircraftChoiceError),
    #[error("cannot listen on loopback")]
    Bind(#[source] fl_net::quic::QuicError),
    #[error("the server did not become ready within {0:?}")]
    Timeout(Duration),
    #[error("the server setup thread ended without reporting")]
    Vanished,
    #[error("the mission did not start")]
    Mission(#[source] fl_server::server::mission::MissionStartError),
}

type Ready = Result<(LocalServerInfo, ServerHandle), LocalServerError>;

/// The running (or starting) embedded server.
#[derive(Debug)]
pub struct LocalServer {
    ready: Option<Receiver<Ready>>,
    setup: Option<JoinHandle<()>>,
    handle: Option<ServerHandle>,
    info: Option<LocalServerInfo>,
    mission: Arc<Mutex<Option<MissionStatus>>>,
    _data_dir: Option<tempfile::TempDir>,
}

impl LocalServer {
    /// Starts the server in the background; poll [`LocalServer::poll_ready`] or block in
    /// [`LocalServer::wait_ready`].
    pub fn spawn(cfg: LocalServerConfig) -> Result<Self, LocalServerError> {
        let (temp, dir) = match cfg.data_dir.clone() {
            Some(d) => (None, d),
            None => {
                let t = tempfile::Builder::new()
                    .prefix("fl-local-server")
                    .tempdir()
                    .map_err(LocalServerError::DataDir)?;
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
        let (tx, rx) = channel();
        let mission = Arc::new(Mutex::new(None));
        let published = mission.clone();
        let setup = std::thread::Builder::new()
            .name("fl-local-server-setup".into())
            .spawn(move || {
                let _ = tx.send(start(&cfg, dir, published));
            })
            .map_err(LocalServerError::Thread)?;
        Ok(Self {
            ready: Some(rx),
            setup: Some(setup),
            handle: None,
            info: None,
            mission,
            _data_dir: temp,
        })
    }

    /// Starts the server and waits until it is ready (or failed).
    pub fn start(cfg: LocalServerConfig, timeout: Duration) -> Result<Self, LocalServerError> {
        let mut s = Self::spawn(cfg)?;
        s.wait_ready(timeout)?;
        Ok(s)
    }

    /// `Some` once the setup finished: where to connect, or why it failed (reported once;
    /// later calls return the info again on success).
    pub fn poll_ready(&mut self) -> Option<Result<LocalServerInfo, LocalServerError>> {
        if let Some(info) = self.info {
            return Some(Ok(info));
        }
        let rx = self.ready.as_ref()?;
        match rx.try_recv() {
            Ok(r) => Some(self.take_ready(r)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.ready = None;
                Some(Err(LocalServerError::Vanished))
            }
        }
    }

    /// Blocks until ready or failed, at most `timeout`.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<LocalServerInfo, LocalServerError> {
        if let Some(info) = self.info {
            return Ok(info);
        }
        let Some(rx) = self.ready.as_ref() else {
            return Err(LocalServerError::Vanished);
        };
        match rx.recv_timeout(timeout) {
            Ok(r) => self.take_ready(r),
            Err(RecvTimeoutError::Timeout) => Err(LocalServerError::Timeout(timeout)),
            Err(RecvTimeoutError::Disconnected) => {
                self.ready = None;
                Err(LocalServerError::Vanished)
            }
        }
    }

    fn take_ready(&mut self, r: Ready) -> Result<LocalServerInfo, LocalServerError> {
        self.ready = None;
        if let Some(t) = self.setup.take() {
            let _ = t.join();
        }
        let (info, handle) = r?;
        self.info = Some(info);
        self.handle = Some(handle);
        Ok(info)
    }

    /// Where to connect, once ready.
    pub fn info(&self) -> Option<LocalServerInfo> {
        self.info
    }

    /// Stops the world (the network keeps being served).
    pub fn pause(&self) {
        if let Some(h) = &self.handle {
            h.command(Command::Pause);
        }
    }

    pub fn resume(&self) {
        if let Some(h) = &self.handle {
            h.command(Command::Resume);
        }
    }

    /// The runtime's latest published metrics.
    pub fn metrics(&self) -> Option<Metrics> {
        self.handle.as_ref().map(ServerHandle::metrics)
    }

    /// The mission's status after the latest tick (`None` without a mission).
    pub fn mission_status(&self) -> Option<MissionStatus> {
        self.mission
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// A handle reading the mission's status after the latest tick.
    pub fn mission_status_source(&self) -> Arc<Mutex<Option<MissionStatus>>> {
        self.mission.clone()
    }

    /// Whether the server thread is running.
    pub fn is_running(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Stops the server and joins its threads.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        // A setup still in progress finishes quickly (content and a bind); take its handle so
        // the server it started is stopped too.
        if let Some(rx) = self.ready.take()
            && let Ok(Ok((_, handle))) = rx.recv_timeout(Duration::from_millis(1500))
        {
            self.handle = Some(handle);
        }
        if let Some(t) = self.setup.take() {
            let _ = t.join();
        }
        if let Some(h) = self.handle.take() {
            let started = Instant::now();
            drop(h);
            tracing::debug!("local server stopped in {:?}", started.elapsed());
        }
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.shut_down();
    }
}

fn start(
    cfg: &LocalServerConfig,
    data_dir: PathBuf,
    published: Arc<Mutex<Option<MissionStatus>>>,
) -> Ready {
    std::fs::create_dir_all(&data_dir).map_err(LocalServerError::DataDir)?;
    let content = match &cfg.content {
        Some(c) => c.clone(),
        // The same loading path as fl-server and the client.
        None => crate::content::load_sources(&StackSources {
            mods_dirs: cfg.mods_dirs.clone(),
            pack_dirs: cfg.pack_dirs.clone(),
        })
        .map_err(LocalServerError::Content)?,
    };
    content
        .aircraft_type(&cfg.server.player_entity_type)
        .map_err(LocalServerError::Aircraft)?;
    let types = TypeRegistry::from_content(&content, 1);
    let quic = QuicServer::bind(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        &data_dir,
        QuicConfig::default(),
    )
    .map_err(LocalServerError::Bind)?;
    let info = LocalServerInfo {
        addr: fl_net::ServerTransport::local_addr(&quic),
        fingerprint: quic.fingerprint(),
    };
    let mut server = Server::new(cfg.server.clone(), Box::new(quic), types);
    server.set_terrain(crate::content::terrain_of(&content));
    let mut director = cfg.mission.clone();
    if let Some(d) = director.as_mut() {
        d.start(&mut server).map_err(LocalServerError::Mission)?;
        publish(&published, server.mission_status());
    }
    spawn_ai(&mut server, cfg);
    let hook: Option<fl_server::runtime::TickHook> = director.map(|mut d| {
        Box::new(move |s: &mut Server| {
            d.after_tick(s);
            publish(&published, s.mission_status());
        }) as fl_server::runtime::TickHook
    });
    let handle = spawn_hooked(server, RuntimeConfig::default(), None, hook)
        .map_err(LocalServerError::Thread)?;
    tracing::info!(addr = %info.addr, "local server ready");
    Ok((info, handle))
}

fn publish(slot: &Mutex<Option<MissionStatus>>, status: Option<MissionStatus>) {
    *slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = status;
}

fn spawn_ai(server: &mut Server, cfg: &LocalServerConfig) {
    let Some(t) = server
        .types()
        .pilot_type(&cfg.server.player_entity_type, "builtin:jet-trainer")
    else {
        return;
    };
    let anchor = cfg.server.spawn_points.first().and_then(|p| p.anchor);
    // The behaviour line's coordinates are measured from the spawn anchor, like the spawns.
    let ctx = fl_ai::FactoryContext {
        anchor: anchor
            .map(|a| fl_ai::CoordinateAnchor::new(server.world().planet(), a.lat_deg, a.lon_deg)),
        ..fl_ai::FactoryContext::default()
    };
    for i in 0..cfg.ai_aircraft {
        let ctrl = match fl_ai::build_from_line(&cfg.ai_behaviour, &ctx) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("AI behaviour {:?}: {e}", cfg.ai_behaviour);
                return;
            }
        };
        let at = SpawnPoint {
            x: i as f64 * 800.0 - 2000.0,
            z: -8000.0 - (i / 6) as f64 * 600.0,
            altitude_m: 3000.0 + (i % 3) as f64 * 200.0,
            heading_deg: 180.0,
            speed_mps: 220.0,
            // 8 km north of the pilots' anchor (the world origin unless the spawn points name
            // a latitude/longitude), heading south towards them.
            anchor,
        };
        if server.spawn_aircraft(t, 2, Pilot::Ai(ctrl), at).is_none() {
            break;
        }
    }
}
