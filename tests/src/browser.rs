//! A real headless Chromium driven over the DevTools protocol: open a page, evaluate script in
//! it (reading the DOM, clicking buttons as a user's click would), wait for a condition, take
//! a screenshot. Chromium runs in a scratch profile, on loopback only, and is killed (by its
//! pid, through our handle) when the [`Browser`] is dropped.
//!
//! Must not: wait without a bound, or reach beyond 127.0.0.1.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

/// The browser binaries tried, in order (`$FL_CHROMIUM` first when set).
const CANDIDATES: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

/// The Chromium binary on this machine, if any.
pub fn chromium_binary() -> Option<String> {
    if let Ok(p) = std::env::var("FL_CHROMIUM") {
        return Some(p);
    }
    CANDIDATES.iter().find_map(|name| {
        let found = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {name}"))
            .output()
            .ok()?;
        let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
        (found.status.success() && !path.is_empty()).then_some(path)
    })
}

/// A headless Chromium with one page attached.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("pid", &self.child.id())
            .finish()
    }
}

impl Browser {
    /// Starts Chromium (`binary`) headless and attaches to its first page. Panics with what
    /// Chromium printed when it does not come up within `limit`.
    pub fn start(binary: &str, limit: Duration) -> Browser {
        let profile = tempfile::tempdir().expect("a browser profile directory");
        let mut child = Command::new(binary)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // Chromium prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID".
        let stderr = child.stderr.take().expect("chromium's stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut printed = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.split("DevTools listening on ").nth(1) {
                    let _ = tx.send(Ok(url.trim().to_owned()));
                }
                printed.push_str(&line);
                printed.push('\n');
            }
            let _ = tx.send(Err(printed));
        });
        let browser_url = match rx.recv_timeout(limit) {
            Ok(Ok(url)) => url,
            Ok(Err(printed)) => {
                let _ = child.kill();
                panic!("chromium exited before its DevTools came up:\n{printed}")
            }
            Err(_) => {
                let _ = child.kill();
                panic!("chromium's DevTools did not come up within {limit:?}")
            }
        };
        let port = browser_url
            .trim_start_matches("ws://127.0.0.1:")
            .split('/')
            .next()
            .and_then(|p| p.parse::<u16>().ok())
            .expect("the DevTools port");
        let page_url = first_page(port, limit);
        let (ws, _) = tungstenite::connect(page_url.as_str()).expect("the page's DevTools socket");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(30)))
                .expect("a read timeout");
        }
        let mut b = Browser {
            child,
            _profile: profile,
            ws,
            next_id: 1,
        };
        b.call("Page.enable", json!({}));
        b.call("Runtime.enable", json!({}));
        b
    }

    /// Sends one DevTools command and returns its result (events in between are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({ "id": id, "method": method, "params": params });
        self.ws
            .send(Message::Text(msg.to_string().into()))
            .expect("send a DevTools command");
        loop {
            let m = self.ws.read().expect("a DevTools reply");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("DevTools JSON");
            if v["id"] == id {
                if let Some(err) = v.get("error") {
                    panic!("{method} failed: {err}");
                }
                return v["result"].clone();
            }
        }
    }

    /// Opens `url` in the page.
    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
        );
        if let Some(ex) = r.get("exceptionDetails") {
            panic!("the page threw evaluating {expression:?}: {ex}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until `expression` evaluates to `true`; `false` when `limit` passes first.
    pub fn wait_until(&mut self, expression: &str, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            if self.eval(expression) == Value::Bool(true) {
                return true;
            }
            if Instant::now() > until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A PNG screenshot of the page.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        decode_base64(r["data"].as_str().unwrap_or_default())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The DevTools socket of the browser's first page (`GET /json/list` on `port`).
fn first_page(port: u16, limit: Duration) -> String {
    let until = Instant::now() + limit;
    loop {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = s.write_all(
                format!(
                    "GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            );
            let mut raw = String::new();
            let _ = s.read_to_string(&mut raw);
            if let Some((_, body)) = raw.split_once("\r\n\r\n")
                && let Ok(Value::Array(targets)) = serde_json::from_str::<Value>(body)
                && let Some(url) = targets
                    .iter()
                    .find(|t| t["type"] == "page")
                    .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            {
                return url.to_owned();
            }
        }
        assert!(
            Instant::now() < until,
            "chromium listed no page within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Standard base64 (the screenshot's encoding), ignoring padding and anything unexpected.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for v in text.bytes().filter_map(value) {
        acc = ((acc << 6) | v) & 0x00FF_FFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(super::decode_base64("aGVsbG8="), b"hello");
        assert_eq!(super::decode_base64("aGk"), b"hi");
        assert_eq!(super::decode_base64(""), b"");
    }
}
