//! The status board: the latest published server metrics plus a short history for the page's
//! plots, rendered as the JSON document of `GET /api/status` and as the Prometheus text of
//! `GET /metrics`.
//!
//! Fed by the runtime's metrics sink (once a second), read by request handlers; it never touches
//! the server itself and never blocks the tick for longer than a copy.

use crate::runtime::{Metrics, PlayerMetrics};
use fl_protocol::enums::ChatChannel;
use fl_protocol::enums::ids::NO_OWNING_PEER;
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Samples kept for the plots (one per published metrics snapshot: ten minutes at 1 Hz).
pub const HISTORY_SAMPLES: usize = 600;
/// Recent chat lines and kills kept for the page.
pub const RECENT_LINES: usize = 50;

/// One chat line as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatStatus {
    pub tick: u64,
    pub from: String,
    /// `all`, `team` or `system`.
    pub channel: String,
    pub text: String,
}

/// One kill as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KillStatus {
    pub tick: u64,
    /// Empty: the environment (a crash).
    pub killer: String,
    pub victim: String,
    pub weapon: String,
    pub team_kill: bool,
}

/// The last [`RECENT_LINES`] of `items`.
fn recent<T>(items: &[T]) -> impl Iterator<Item = &T> {
    items.iter().skip(items.len().saturating_sub(RECENT_LINES))
}

/// One point of the plots.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the board started.
    pub t_s: f64,
    pub tick_hz: f64,
    pub tick_p99_ms: f64,
    pub players: usize,
    pub kbps: f64,
}

/// The `GET /api/status` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusDoc {
    pub name: String,
    pub tick_hz: f64,
    pub tick_p50_ms: f64,
    pub tick_p99_ms: f64,
    pub tick_max_ms: f64,
    pub ticks: u64,
    pub dropped_ticks: u64,
    pub load_factor: f64,
    pub entities: usize,
    pub paused: bool,
    pub world_tick: u64,
    /// Metrics snapshots published so far (the page counts its plot updates with it).
    pub updates: u64,
    pub players: Vec<PlayerMetrics>,
    pub chat: Vec<ChatStatus>,
    pub kills: Vec<KillStatus>,
    pub history: Vec<Sample>,
    /// Whether the admin actions can be unlocked (`[http] admin_token` set).
    pub admin_enabled: bool,
}

#[derive(Debug)]
struct Board {
    name: String,
    started: Instant,
    latest: Metrics,
    updates: u64,
    history: VecDeque<Sample>,
}

/// Shared between the runtime's metrics sink and the request handlers.
#[derive(Debug, Clone)]
pub struct StatusBoard {
    inner: Arc<Mutex<Board>>,
}

impl StatusBoard {
    pub fn new(name: &str) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Board {
                name: name.to_owned(),
                started: Instant::now(),
                latest: Metrics::default(),
                updates: 0,
                history: VecDeque::with_capacity(HISTORY_SAMPLES),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Board> {
        // A handler that panicked while holding the lock left plain data behind: keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a published metrics snapshot (the runtime's metrics sink calls this).
    pub fn publish(&self, m: &Metrics) {
        let mut b = self.lock();
        let t_s = b.started.elapsed().as_secs_f64();
        if b.history.len() == HISTORY_SAMPLES {
            b.history.pop_front();
        }
        b.history.push_back(Sample {
            t_s,
            tick_hz: m.tick_hz,
            tick_p99_ms: m.total.p99,
            players: m.players.len(),
            kbps: m.players.iter().map(|p| p.kbps).sum(),
        });
        b.latest = m.clone();
        b.updates += 1;
    }

    /// The JSON document's content.
    pub fn doc(&self, admin_enabled: bool) -> StatusDoc {
        let b = self.lock();
        let m = &b.latest;
        StatusDoc {
            name: b.name.clone(),
            tick_hz: m.tick_hz,
            tick_p50_ms: m.total.p50,
            tick_p99_ms: m.total.p99,
            tick_max_ms: m.total.max,
            ticks: m.ticks,
            dropped_ticks: m.dropped_ticks,
            load_factor: m.load_factor,
            entities: m.entities,
            paused: m.paused,
            world_tick: m.world_tick,
            updates: b.updates,
            players: m.players.clone(),
            chat: recent(&m.recent_chat)
                .map(|c| ChatStatus {
                    tick: c.tick,
                    from: c.callsign.clone(),
                    channel: if c.sender == NO_OWNING_PEER {
                        "system"
                    } else if c.channel == ChatChannel::Team {
                        "team"
                    } else {
                        "all"
                    }
                    .into(),
                    text: c.text.clone(),
                })
                .collect(),
            kills: recent(&m.recent_kills)
                .map(|k| KillStatus {
                    tick: k.tick,
                    killer: k.killer.clone(),
                    victim: k.victim.clone(),
                    weapon: k.weapon.clone(),
                    team_kill: k.team_kill,
                })
                .collect(),
            history: b.history.iter().copied().collect(),
            admin_enabled,
        }
    }

    /// The Prometheus text exposition (version 0.0.4) of the latest snapshot.
    pub fn prometheus(&self) -> String {
        let b = self.lock();
        prometheus_text(&b.latest)
    }
}

/// A label value with `\`, `"` and newlines escaped as the exposition format requires (callsigns
/// are chosen by players).
fn label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A sample value: Prometheus spells the non-finite ones `NaN` and `+Inf`/`-Inf`.
fn num(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        }
    } else {
        format!("{v}")
    }
}

fn metric(out: &mut String, name: &str, kind: &str, help: &str, value: f64) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
    let _ = writeln!(out, "{name} {}", num(value));
}

/// The exposition text of `m`.
pub fn prometheus_text(m: &Metrics) -> String {
    let mut out = String::with_capacity(2048 + m.players.len() * 300);
    metric(
        &mut out,
        "fl_ticks_total",
        "counter",
        "Ticks the runtime ran (paused ones included).",
        m.ticks as f64,
    );
    metric(
        &mut out,
        "fl_dropped_ticks_total",
        "counter",
        "Ticks dropped because the server fell too far behind.",
        m.dropped_ticks as f64,
    );
    metric(
        &mut out,
        "fl_tick_rate_hz",
        "gauge",
        "Ticks per second over the last minute.",
        m.tick_hz,
    );
    metric(
        &mut out,
        "fl_load_factor",
        "gauge",
        "The tick governor's load factor (1 = healthy).",
        m.load_factor,
    );
    metric(
        &mut out,
        "fl_entities",
        "gauge",
        "Entities in the world.",
        m.entities as f64,
    );
    metric(
        &mut out,
        "fl_players",
        "gauge",
        "Admitted participants.",
        m.players.len() as f64,
    );
    metric(
        &mut out,
        "fl_paused",
        "gauge",
        "1 while the world is paused.",
        if m.paused { 1.0 } else { 0.0 },
    );
    metric(
        &mut out,
        "fl_world_tick",
        "gauge",
        "The world's simulation tick.",
        m.world_tick as f64,
    );
    for (phase, p) in [
        ("total", &m.total),
        ("network", &m.network),
        ("world", &m.world),
        ("snapshots", &m.snapshots),
    ] {
        if phase == "total" {
            out.push_str(
                "# HELP fl_tick_phase_ms Wall time of a tick's phase over the last minute, ms.\n",
            );
            out.push_str("# TYPE fl_tick_phase_ms gauge\n");
        }
        for (q, v) in [
            ("0.5", p.p50),
            ("0.95", p.p95),
            ("0.99", p.p99),
            ("1", p.max),
        ] {
            let _ = writeln!(
                out,
                "fl_tick_phase_ms{{phase=\"{phase}\",quantile=\"{q}\"}} {}",
                num(v)
            );
        }
    }
    for (name, help, f) in [
        (
            "fl_player_ping_ms",
            "A player's smoothed round trip, ms.",
            (|p: &PlayerMetrics| p.ping_ms) as fn(&PlayerMetrics) -> f64,
        ),
        (
            "fl_player_loss_ratio",
            "A player's recent loss, the worse direction (0..1).",
            |p| p.loss,
        ),
        (
            "fl_player_kbps",
            "Kilobits per second sent to a player.",
            |p| p.kbps,
        ),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for p in &m.players {
            let _ = writeln!(
                out,
                "{name}{{peer=\"{}\",callsign=\"{}\",team=\"{}\"}} {}",
                p.peer,
                label(&p.callsign),
                label(&p.team),
                num(f(p))
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Percentiles;

    fn metrics() -> Metrics {
        Metrics {
            ticks: 600,
            tick_hz: 59.9,
            total: Percentiles {
                p50: 0.4,
                p95: 0.9,
                p99: 1.25,
                max: 3.0,
            },
            entities: 12,
            players: vec![PlayerMetrics {
                peer: 3,
                callsign: "Vi\"per\\\n".into(),
                team: "blue".into(),
                observer: false,
                ping_ms: 42.5,
                loss: 0.02,
                kbps: 96.0,
            }],
            ..Metrics::default()
        }
    }

    #[test]
    fn the_document_carries_the_fields_the_page_and_the_issue_name() {
        let board = StatusBoard::new("Test server");
        board.publish(&metrics());
        board.publish(&metrics());
        let doc = board.doc(true);
        let v = serde_json::to_value(&doc).expect("json");
        assert_eq!(v["tick_hz"], 59.9);
        assert_eq!(v["tick_p99_ms"], 1.25);
        assert_eq!(v["updates"], 2);
        assert_eq!(v["history"].as_array().map(Vec::len), Some(2));
        let p = &v["players"][0];
        assert_eq!(p["callsign"], "Vi\"per\\\n");
        assert_eq!(p["team"], "blue");
        assert_eq!(p["ping_ms"], 42.5);
        assert_eq!(p["loss"], 0.02);
        assert_eq!(p["kbps"], 96.0);
    }

    #[test]
    fn history_and_recent_lines_are_bounded() {
        let board = StatusBoard::new("x");
        for _ in 0..HISTORY_SAMPLES + 5 {
            board.publish(&metrics());
        }
        let mut m = metrics();
        m.recent_chat = (0..RECENT_LINES + 7)
            .map(|i| crate::social::ChatLine {
                tick: i as u64,
                sender: if i == 0 { NO_OWNING_PEER } else { 3 },
                callsign: "a".into(),
                channel: if i % 2 == 0 {
                    ChatChannel::Team
                } else {
                    ChatChannel::All
                },
                text: "hi".into(),
            })
            .collect();
        board.publish(&m);
        let doc = board.doc(false);
        assert_eq!(doc.history.len(), HISTORY_SAMPLES);
        assert_eq!(doc.chat.len(), RECENT_LINES);
        assert_eq!(doc.chat[0].tick, 7, "the oldest lines go first");
        assert_eq!(doc.chat[0].channel, "all");
        assert_eq!(doc.chat[1].channel, "team");
    }

    #[test]
    fn prometheus_text_is_well_formed_and_escapes_labels() {
        let text = prometheus_text(&metrics());
        assert!(text.contains("# TYPE fl_tick_rate_hz gauge\nfl_tick_rate_hz 59.9\n"));
        assert!(text.contains("fl_tick_phase_ms{phase=\"total\",quantile=\"0.99\"} 1.25\n"));
        assert!(text.contains(
            "fl_player_ping_ms{peer=\"3\",callsign=\"Vi\\\"per\\\\\\n\",team=\"blue\"} 42.5\n"
        ));
        for line in text.lines() {
            assert!(
                line.starts_with('#') || line.starts_with("fl_"),
                "stray line {line:?}"
            );
            if !line.starts_with('#') {
                let value = line.rsplit(' ').next().unwrap_or("");
                assert!(value.parse::<f64>().is_ok(), "bad value in {line:?}");
            }
        }
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(num(f64::INFINITY), "+Inf");
    }
}
