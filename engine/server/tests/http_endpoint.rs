//! The status page's HTTP endpoint over real TCP on loopback: the JSON API and Prometheus text,
//! the login and its lockout, admin commands with and without a session, and hostile clients
//! (oversized headers and bodies, slow headers, a connection flood) that must not stop others
//! from being served.

use fl_server::http::{AdminExec, AuthPolicy, HttpConfig, HttpServer, StatusBoard};
use fl_server::runtime::{Metrics, PlayerMetrics};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

struct Reply {
    status: u16,
    headers: String,
    body: String,
}

/// One request on a fresh connection; the reply read to its end (the server closes after
/// `Connection: close`).
fn request(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &str) -> Reply {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n{extra}\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("write head");
    s.write_all(body.as_bytes()).expect("write body");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Reply {
        status,
        headers: headers.to_owned(),
        body: body.to_owned(),
    }
}

fn post_json(addr: SocketAddr, path: &str, cookie: Option<&str>, body: &str) -> Reply {
    let mut extra = String::from("Content-Type: application/json\r\n");
    if let Some(c) = cookie {
        extra.push_str(&format!("Cookie: {c}\r\n"));
    }
    request(addr, "POST", path, &extra, body)
}

fn cookie_of(r: &Reply) -> Option<String> {
    r.headers
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|v| v.split(';').next())
        .map(str::to_owned)
}

fn metrics() -> Metrics {
    Metrics {
        ticks: 120,
        tick_hz: 60.0,
        entities: 3,
        players: vec![PlayerMetrics {
            peer: 7,
            callsign: "<b>Viper</b>".into(),
            team: "blue".into(),
            observer: false,
            ping_ms: 31.0,
            loss: 0.0,
            kbps: 80.0,
        }],
        ..Metrics::default()
    }
}

struct Fixture {
    http: HttpServer,
    ran: Arc<Mutex<Vec<String>>>,
}

fn start(cfg: HttpConfig) -> Fixture {
    let board = StatusBoard::new("Loopback test");
    board.publish(&metrics());
    let ran = Arc::new(Mutex::new(Vec::new()));
    let log = ran.clone();
    let exec: AdminExec = Arc::new(move |line: &str| {
        log.lock().expect("log").push(line.to_owned());
        match line {
            "status" => Ok("tick 120 peers 1".into()),
            _ => Err(format!("unknown command: {line}")),
        }
    });
    let http = HttpServer::start(
        HttpConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_token: Some("letmein".into()),
            ..cfg
        },
        board,
        Some(exec),
    )
    .expect("start");
    Fixture { http, ran }
}

#[test]
fn the_json_api_and_the_metrics_carry_the_published_snapshot() {
    let f = start(HttpConfig::default());
    let addr = f.http.local_addr();
    let r = request(addr, "GET", "/api/status", "", "");
    assert_eq!(r.status, 200, "{}", r.headers);
    let v: serde_json::Value = serde_json::from_str(&r.body).expect("json");
    assert_eq!(v["tick_hz"], 60.0);
    assert!(v["tick_p99_ms"].is_number());
    assert_eq!(v["players"][0]["callsign"], "<b>Viper</b>");
    assert_eq!(v["players"][0]["team"], "blue");
    assert_eq!(v["players"][0]["ping_ms"], 31.0);
    assert_eq!(v["players"][0]["loss"], 0.0);
    assert_eq!(v["players"][0]["kbps"], 80.0);
    assert_eq!(v["admin_enabled"], true);

    let r = request(addr, "GET", "/metrics", "", "");
    assert_eq!(r.status, 200);
    assert!(
        r.headers.contains("text/plain; version=0.0.4"),
        "{}",
        r.headers
    );
    assert!(r.body.contains("fl_tick_rate_hz 60\n"), "{}", r.body);
    assert!(
        r.body
            .contains("fl_player_ping_ms{peer=\"7\",callsign=\"<b>Viper</b>\",team=\"blue\"} 31\n")
    );

    let r = request(addr, "GET", "/", "", "");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<canvas id=\"plot-tick\""));
    assert!(r.headers.contains("content-security-policy"));
    assert_eq!(request(addr, "GET", "/nope", "", "").status, 404);
}

#[test]
fn admin_commands_need_a_login_and_the_right_token() {
    let f = start(HttpConfig::default());
    let addr = f.http.local_addr();
    let r = post_json(addr, "/api/admin", None, r#"{"command":"status"}"#);
    assert_eq!(r.status, 401);
    let r = post_json(
        addr,
        "/api/admin",
        Some("fl_session=forged"),
        r#"{"command":"status"}"#,
    );
    assert_eq!(r.status, 401);
    assert!(
        f.ran.lock().expect("log").is_empty(),
        "nothing ran without a session"
    );

    let r = post_json(addr, "/api/login", None, r#"{"token":"wrong"}"#);
    assert_eq!(r.status, 401);
    let r = post_json(addr, "/api/login", None, r#"{"token":"letmein"}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    let cookie = cookie_of(&r).expect("a session cookie");
    assert!(r.headers.to_lowercase().contains("httponly"));
    assert!(r.headers.contains("SameSite=Strict"));

    let r = post_json(addr, "/api/admin", Some(&cookie), r#"{"command":"status"}"#);
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).expect("json");
    assert_eq!(v["output"], "tick 120 peers 1");
    let r = post_json(
        addr,
        "/api/admin",
        Some(&cookie),
        r#"{"command":"frobnicate"}"#,
    );
    assert_eq!(r.status, 400);
    assert!(r.body.contains("unknown command: frobnicate"));

    // A form post (not JSON) is refused before anything runs: no cross-site form can act.
    let r = request(
        addr,
        "POST",
        "/api/admin",
        &format!("Content-Type: application/x-www-form-urlencoded\r\nCookie: {cookie}\r\n"),
        "command=status",
    );
    assert_eq!(r.status, 415);
    assert_eq!(f.ran.lock().expect("log").len(), 2);

    let r = post_json(addr, "/api/logout", Some(&cookie), "{}");
    assert_eq!(r.status, 200);
    let r = post_json(addr, "/api/admin", Some(&cookie), r#"{"command":"status"}"#);
    assert_eq!(r.status, 401, "the session ended at logout");
}

#[test]
fn brute_force_locks_the_address_out_even_for_the_right_token() {
    let f = start(HttpConfig {
        auth: AuthPolicy {
            max_failures: 3,
            ..AuthPolicy::default()
        },
        ..HttpConfig::default()
    });
    let addr = f.http.local_addr();
    for i in 0..3 {
        let r = post_json(
            addr,
            "/api/login",
            None,
            &format!(r#"{{"token":"guess{i}"}}"#),
        );
        assert!(matches!(r.status, 401 | 429), "{}", r.status);
    }
    let r = post_json(addr, "/api/login", None, r#"{"token":"letmein"}"#);
    assert_eq!(r.status, 429, "locked out: {}", r.body);
    // The read-only page keeps working for everyone.
    assert_eq!(request(addr, "GET", "/api/status", "", "").status, 200);
}

#[test]
fn oversized_requests_are_refused_and_slow_clients_do_not_block_others() {
    let f = start(HttpConfig {
        header_timeout: Duration::from_millis(500),
        max_connections: 8,
        ..HttpConfig::default()
    });
    let addr = f.http.local_addr();

    // 64 KiB of headers: refused (431) or cut off, never served.
    let big = format!("X-Filler: {}\r\n", "a".repeat(64 * 1024));
    let r = request(addr, "GET", "/api/status", &big, "");
    assert_ne!(r.status, 200, "a 64 KiB header was served");

    // A 64 KiB body to a JSON route: 413.
    let body = format!(r#"{{"token":"{}"}}"#, "x".repeat(64 * 1024));
    let r = post_json(addr, "/api/login", None, &body);
    assert_eq!(r.status, 413, "{}", r.headers);

    // Slow clients take every connection slot with half a request line...
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connect");
            s.write_all(b"GET /api/status HTTP/1.1\r\nHost: x\r\n")
                .expect("write");
            s
        })
        .collect();
    // ...and the header timeout closes them, so a legitimate request is served again.
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
    }
    let r = request(addr, "GET", "/api/status", "", "");
    assert_eq!(r.status, 200);
}
