//! The operator's HTTP endpoint (`[http] bind`, `--http ADDR`; off unless set): a status page
//! with live plots, its JSON API (`GET /api/status`), Prometheus metrics (`GET /metrics`) and
//! the admin commands behind a login (`POST /api/login`, `POST /api/admin`).
//!
//! Served by axum over hyper on a small tokio runtime of its own thread, so nothing here can
//! stall the 60 Hz tick. Hostile clients are bounded: a connection cap, a header read timeout
//! (slow headers), a lifetime per connection (slow bodies, idle keep-alive), 16 KiB of headers
//! and 4 KiB of body.
//!
//! Owns the listener, its thread and the login state. Must not: touch the server (it reads the
//! [`StatusBoard`] the runtime fills and runs commands through the [`AdminExec`] it is handed).

pub mod auth;
mod routes;
pub mod status;

pub use auth::{AuthPolicy, LoginError};
pub use status::{ChatStatus, KillStatus, StatusBoard, StatusDoc};

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::sync::{Semaphore, oneshot};
use tower::ServiceExt as _;

/// Runs one admin command line (the same grammar as every other admin frontend) and returns
/// its output, or the refusal's text. Called on a blocking thread, never on the tick.
pub type AdminExec = Arc<dyn Fn(&str) -> Result<String, String> + Send + Sync>;

/// Smallest header buffer hyper accepts; requests with more header bytes are answered 431.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Largest request body (a login or a command line is a few dozen bytes).
pub const MAX_BODY_BYTES: usize = 4 * 1024;

/// `[http]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// Where to listen; loopback unless the operator says otherwise.
    pub bind: SocketAddr,
    /// The admin login token (`None`: the page is read-only).
    pub admin_token: Option<String>,
    pub auth: AuthPolicy,
    /// Connections served at once; more are closed on accept.
    pub max_connections: usize,
    /// A request's headers must arrive within this.
    pub header_timeout: Duration,
    /// A connection is closed this long after it was accepted, whatever it is doing.
    pub connection_lifetime: Duration,
    /// An admin command must answer within this.
    pub command_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
            admin_token: None,
            auth: AuthPolicy::default(),
            max_connections: 64,
            header_timeout: Duration::from_secs(5),
            connection_lifetime: Duration::from_secs(30),
            command_timeout: Duration::from_secs(5),
        }
    }
}

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot listen for HTTP on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the HTTP thread: {0}")]
    Thread(std::io::Error),
}

/// A running endpoint; dropping it stops the listener and joins its thread.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `cfg.bind` (a port of 0 picks a free one) and serves on a thread of its own.
    pub fn start(
        cfg: HttpConfig,
        board: StatusBoard,
        admin: Option<AdminExec>,
    ) -> Result<Self, HttpError> {
        let bind_err = |source| HttpError::Bind {
            addr: cfg.bind,
            source,
        };
        let listener = std::net::TcpListener::bind(cfg.bind).map_err(bind_err)?;
        listener.set_nonblocking(true).map_err(bind_err)?;
        let addr = listener.local_addr().map_err(bind_err)?;
        if !addr.ip().is_loopback() {
            tracing::warn!(%addr, "the status page listens beyond this machine; keep its admin token secret");
        }
        let (tx, rx) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("fl-server-http".into())
            .spawn(move || serve(listener, cfg, board, admin, rx))
            .map_err(HttpError::Thread)?;
        tracing::info!(%addr, "serving the status page");
        Ok(Self {
            addr,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    listener: std::net::TcpListener,
    cfg: HttpConfig,
    board: StatusBoard,
    admin: Option<AdminExec>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the HTTP runtime: {e}");
            return;
        }
    };
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("cannot serve HTTP: {e}");
                return;
            }
        };
        let app = routes::router(routes::AppState::new(&cfg, board, admin));
        let slots = Arc::new(Semaphore::new(cfg.max_connections.max(1)));
        loop {
            let (stream, peer) = tokio::select! {
                _ = &mut shutdown => break,
                r = listener.accept() => match r {
                    Ok(x) => x,
                    Err(e) => {
                        // Out of descriptors and the like: wait rather than spin.
                        tracing::warn!("HTTP accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let Ok(permit) = slots.clone().try_acquire_owned() else {
                tracing::debug!(%peer, "HTTP connection refused: too many open");
                drop(stream);
                continue;
            };
            let app =
                app.clone()
                    .map_request(move |mut req: hyper::Request<hyper::body::Incoming>| {
                        req.extensions_mut()
                            .insert(axum::extract::ConnectInfo(peer));
                        req
                    });
            let header_timeout = cfg.header_timeout;
            let lifetime = cfg.connection_lifetime;
            tokio::spawn(async move {
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(header_timeout)
                    .max_buf_size(MAX_HEADER_BYTES)
                    .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
                if tokio::time::timeout(lifetime, conn).await.is_err() {
                    tracing::debug!(%peer, "HTTP connection closed at the end of its lifetime");
                }
                drop(permit);
            });
        }
    });
}
