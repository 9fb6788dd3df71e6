//! The endpoint's routes: the page and its script, the status JSON, the Prometheus text, the
//! login and the admin command. Every POST takes JSON only (a cross-site form cannot send it
//! without a preflight this server never answers) and the session cookie is `SameSite=Strict`.
//!
//! Owns request parsing and response shapes; the login rules live in `auth`, the data in
//! `status`, the commands behind [`AdminExec`].

use super::auth::{Auth, LoginError};
use super::status::StatusBoard;
use super::{AdminExec, HttpConfig, MAX_BODY_BYTES};
use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("page.js");
/// The session cookie's name.
pub const COOKIE: &str = "fl_session";
/// Longest command line taken (the wire's `MsgAdminCommand` carries 93 bytes; the page allows a
/// little more for `say` lines, and the grammar refuses what it does not know).
const MAX_COMMAND_BYTES: usize = 256;

#[derive(Clone)]
pub(super) struct AppState {
    board: StatusBoard,
    auth: Arc<Mutex<Auth>>,
    admin: Option<AdminExec>,
    command_timeout: Duration,
}

impl AppState {
    pub(super) fn new(cfg: &HttpConfig, board: StatusBoard, admin: Option<AdminExec>) -> Self {
        // Without a way to run commands a token would unlock nothing: the page stays read-only.
        let token = admin.as_ref().and(cfg.admin_token.clone());
        Self {
            board,
            auth: Arc::new(Mutex::new(Auth::new(token, cfg.auth))),
            admin,
            command_timeout: cfg.command_timeout,
        }
    }

    fn auth(&self) -> std::sync::MutexGuard<'_, Auth> {
        self.auth.lock().unwrap_or_else(|p| p.into_inner())
    }
}

pub(super) fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/page.js", get(script))
        .route("/api/status", get(status))
        .route("/metrics", get(metrics))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/admin", post(admin))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

fn with_headers(mut r: Response, content_type: &'static str) -> Response {
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
        ),
    );
    r
}

async fn page() -> Response {
    with_headers(PAGE.into_response(), "text/html; charset=utf-8")
}

async fn script() -> Response {
    with_headers(SCRIPT.into_response(), "text/javascript; charset=utf-8")
}

async fn status(State(s): State<AppState>) -> Response {
    let enabled = s.auth().enabled();
    with_headers(
        Json(s.board.doc(enabled)).into_response(),
        "application/json",
    )
}

async fn metrics(State(s): State<AppState>) -> Response {
    with_headers(
        s.board.prometheus().into_response(),
        "text/plain; version=0.0.4; charset=utf-8",
    )
}

fn error(code: StatusCode, text: &str) -> Response {
    with_headers(
        (code, Json(json!({ "error": text }))).into_response(),
        "application/json",
    )
}

/// The session id from the request's cookie, if any.
fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_owned())
}

#[derive(Deserialize)]
struct LoginBody {
    token: String,
}

async fn login(
    State(s): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(body): Json<LoginBody>,
) -> Response {
    let verdict = s.auth().login(peer.ip(), &body.token, Instant::now());
    match verdict {
        Ok(session) => {
            let mut r = with_headers(
                Json(json!({ "ok": true })).into_response(),
                "application/json",
            );
            let cookie = format!("{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            r
        }
        Err(e @ LoginError::Disabled) => error(StatusCode::FORBIDDEN, &e.to_string()),
        Err(e @ LoginError::WrongToken) => error(StatusCode::UNAUTHORIZED, &e.to_string()),
        Err(e @ LoginError::LockedOut(_)) => error(StatusCode::TOO_MANY_REQUESTS, &e.to_string()),
        Err(e @ LoginError::Random) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

async fn logout(State(s): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(id) = session_of(&headers) {
        s.auth().logout(&id);
    }
    let mut r = with_headers(
        Json(json!({ "ok": true })).into_response(),
        "application/json",
    );
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("fl_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"),
    );
    r
}

#[derive(Deserialize)]
struct CommandBody {
    command: String,
}

async fn admin(
    State(s): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Json(body): Json<CommandBody>,
) -> Response {
    let authorised = session_of(&headers).is_some_and(|id| s.auth().check(&id, Instant::now()));
    if !authorised {
        return error(StatusCode::UNAUTHORIZED, "log in first");
    }
    let Some(exec) = s.admin.clone() else {
        return error(
            StatusCode::FORBIDDEN,
            "admin commands are off on this server",
        );
    };
    let line = body.command.trim().to_owned();
    if line.is_empty() || line.len() > MAX_COMMAND_BYTES || line.chars().any(char::is_control) {
        return error(
            StatusCode::BAD_REQUEST,
            "a command is one line of at most 256 bytes",
        );
    }
    tracing::info!(ip = %peer.ip(), command = %line, "admin command from the status page");
    let run = tokio::task::spawn_blocking(move || exec(&line));
    match tokio::time::timeout(s.command_timeout, run).await {
        Ok(Ok(Ok(output))) => with_headers(
            Json(json!({ "ok": true, "output": output })).into_response(),
            "application/json",
        ),
        Ok(Ok(Err(refusal))) => error(StatusCode::BAD_REQUEST, &refusal),
        Ok(Err(_)) => error(StatusCode::INTERNAL_SERVER_ERROR, "the command failed"),
        Err(_) => error(
            StatusCode::GATEWAY_TIMEOUT,
            "the server did not answer in time",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; fl_session=abc; b=2"),
        );
        assert_eq!(session_of(&h).as_deref(), Some("abc"));
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("xfl_session=abc"));
        assert_eq!(session_of(&h), None);
    }
}
