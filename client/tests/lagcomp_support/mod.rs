//! The lag-compensation proof's shared parts (issue 13): the scripted shooter that aims every
//! input where the last drawn frame showed the target, the scoring of each shot against the
//! server's real history and rewind, and the statistics and assertions both harnesses use
//! (`lag_compensation.rs` on LinkSim in virtual time, `lag_compensation_quic.rs` on real QUIC
//! through the impairment relay in real time).
//!
//! The gun system itself is not here: a shot is one hitscan ray per applied input
//! (`Server::ray_hits_rewound` — the history, the rewind and the query are the server's real
//! code), from the shooter's server position through the point the client aimed at. The ray
//! passes through that point whatever the origin, so the own aircraft's prediction (proven
//! exact elsewhere) plays no part in what is measured.

#![allow(dead_code)]

use fighters_legacy::autopilot::Level;
use fighters_legacy::bridge::RenderFrame;
use fighters_legacy::client::{Pilot, PilotView};
use fighters_legacy::input_clock::PilotInput;
use fl_flight::math::Vec3;
use fl_server::lagcomp::{MAX_REWIND_TICKS, Ray};
use fl_server::pool::EntityId;
use fl_server::server::Server;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Aim pattern half-width across the line of sight, m (the jet's collision radius is 8 m).
pub const PATTERN_M: f64 = 4.0;
/// Aims kept for inputs the server has not applied yet (bounds the map: a few seconds of
/// inputs at any frame rate the harnesses use).
const MAX_PENDING_AIMS: usize = 2048;

/// One shot as the client aimed it.
#[derive(Debug, Clone, Copy)]
pub struct Aim {
    pub render_tick: f64,
    /// The point aimed at: the drawn target centre plus `offset`.
    pub point: Vec3,
    /// Across the line of sight: (right, up), m.
    pub offset: (f64, f64),
}

/// The target as the last frame drew it: its centre and the axes across the line of sight.
#[derive(Debug, Clone, Copy)]
pub struct Sight {
    pub render_tick: f64,
    pub centre: Vec3,
    pub right: Vec3,
    pub up: Vec3,
}

impl Sight {
    /// Where `frame` drew the target (pool index `target`), seen from the own aircraft.
    pub fn of(frame: &RenderFrame, target: u32) -> Option<Sight> {
        let me = frame.own()?.position;
        let it = frame.entity(target)?.position;
        let (right, up) = across(it - me);
        Some(Sight {
            render_tick: frame.render_tick.unwrap_or(f64::NAN),
            centre: it,
            right,
            up,
        })
    }
}

/// What the scripted shooter shares with the test: the sight of the last frame drawn, and which
/// input carried which aim.
#[derive(Debug, Default)]
pub struct Trigger {
    pub sight: Option<Sight>,
    pub fired: BTreeMap<u32, Aim>,
}

impl Trigger {
    /// The aim of input `seq`, forgetting it and every older one (they can no longer apply).
    pub fn take(&mut self, seq: u32) -> Option<Aim> {
        let aim = self.fired.remove(&seq);
        self.fired = self.fired.split_off(&seq);
        aim
    }
}

/// Flies level and pulls the trigger on every input, aiming at a point of the pattern (by the
/// input's sequence number, so every run covers the pattern evenly) around where the last frame
/// showed the target.
pub struct Shooter(pub Arc<Mutex<Trigger>>);

impl Pilot for Shooter {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        if let Ok(mut t) = self.0.lock()
            && let Some(s) = t.sight
        {
            let k = view.seq % 9;
            let offset = (
                f64::from(k % 3) * PATTERN_M - PATTERN_M,
                f64::from(k / 3) * PATTERN_M - PATTERN_M,
            );
            let point = s.centre + s.right * offset.0 + s.up * offset.1;
            if t.fired.len() >= MAX_PENDING_AIMS {
                t.fired.pop_first();
            }
            t.fired.insert(
                view.seq,
                Aim {
                    render_tick: s.render_tick,
                    point,
                    offset,
                },
            );
        }
        Level.command(view)
    }
}

/// (right, up) unit vectors across a line of sight.
pub fn across(los: Vec3) -> (Vec3, Vec3) {
    let d = los.normalize_or_zero();
    let right = d.cross(Vec3::new(0.0, 1.0, 0.0)).normalize_or_zero();
    (right, right.cross(d))
}

/// How the server rewinds the shots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rewind {
    /// What the server computes for the pilot (the real thing).
    Server,
    /// No lag compensation.
    Off,
}

/// Finds, after each server tick, the input that tick applied when it is a new one that aimed.
#[derive(Debug)]
pub struct ShotFinder {
    pub shooter: EntityId,
    last_applied: Option<u32>,
}

impl ShotFinder {
    pub fn new(shooter: EntityId) -> Self {
        ShotFinder {
            shooter,
            last_applied: None,
        }
    }

    /// The aim of the input the server's last tick applied, if it is new and aimed.
    pub fn new_shot(&mut self, server: &Server, trigger: &Mutex<Trigger>) -> Option<Aim> {
        let seq = server.shooter_view(self.shooter)?.applied_seq?;
        if self.last_applied == Some(seq) {
            return None;
        }
        self.last_applied = Some(seq);
        trigger.lock().ok()?.take(seq)
    }
}

#[derive(Debug, Default)]
pub struct Stats {
    pub shots: usize,
    pub hits: usize,
    /// Where each hit passed the target's centre: (right, up), m.
    pub offsets: Vec<(f64, f64)>,
    /// offset − aimed offset per hit: (right, up), m.
    pub error_xy: Vec<(f64, f64)>,
    /// |offset − aimed offset| per hit, m.
    pub errors: Vec<f64>,
    /// How far each missing ray passed the target's current centre, m.
    pub misses_by_m: Vec<f64>,
    pub rewinds: Vec<f64>,
    /// Rewind − the age of the frame the shot was aimed on (clamped to the window), ticks.
    pub view_misfit: Vec<f64>,
}

pub fn mean_sd(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = v.clone().count().max(1) as f64;
    let m = v.clone().sum::<f64>() / n;
    let var = v.map(|x| (x - m) * (x - m)).sum::<f64>() / n;
    (m, var.sqrt())
}

/// The `q` quantile of `v` (NaN when empty).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

impl Stats {
    /// Scores one shot aimed by `aim`, fired by the tick the server just ran, rewound the way
    /// `rewind` says, against `target` (the only other aircraft out there).
    pub fn score(
        &mut self,
        server: &Server,
        shooter: EntityId,
        target: EntityId,
        aim: &Aim,
        rewind: Rewind,
    ) {
        let Some(origin) = server.world().get(shooter).map(|e| e.position()) else {
            return;
        };
        let to = aim.point - origin;
        let ray = Ray {
            origin,
            dir: to,
            range_m: to.length() + 100.0,
        };
        let r = match rewind {
            Rewind::Server => server.rewind_ticks(shooter),
            Rewind::Off => 0.0,
        };
        self.shots += 1;
        self.rewinds.push(r);
        // How far back the screen that aimed was, against the rewind it got.
        let age = server.world().tick() as f64 - aim.render_tick;
        self.view_misfit.push(r - age.clamp(0.0, MAX_REWIND_TICKS));
        let d = to.normalize_or_zero();
        match server.ray_hits_rewound(&ray, shooter, r) {
            Some(hit) => {
                assert_eq!(hit.entity, target, "only the target is out there");
                let c = hit.centre - origin;
                let perp = c - d * c.dot(d);
                // The ray passes the centre at −perp from it.
                let (right, up) = across(to);
                let off = (-perp.dot(right), -perp.dot(up));
                let err = (off.0 - aim.offset.0, off.1 - aim.offset.1);
                self.hits += 1;
                self.offsets.push(off);
                self.error_xy.push(err);
                self.errors.push(err.0.hypot(err.1));
            }
            None => {
                if let Some(now) = server.world().get(target).map(|e| e.position()) {
                    let c = now - origin;
                    self.misses_by_m.push((c - d * c.dot(d)).length());
                }
            }
        }
    }

    pub fn hit_rate(&self) -> f64 {
        self.hits as f64 / self.shots.max(1) as f64
    }
    pub fn right(&self) -> (f64, f64) {
        mean_sd(self.offsets.iter().map(|o| o.0))
    }
    pub fn up(&self) -> (f64, f64) {
        mean_sd(self.offsets.iter().map(|o| o.1))
    }
    pub fn error_p(&self, q: f64) -> f64 {
        quantile(&self.errors, q)
    }
    pub fn mean_rewind(&self) -> f64 {
        mean_sd(self.rewinds.iter().copied()).0
    }
    pub fn misfit_max(&self) -> f64 {
        self.view_misfit.iter().fold(0.0, |m, v| m.max(v.abs()))
    }
    /// Shots whose rewind is off the aiming frame's age by more than `ticks`.
    pub fn misfits_over(&self, ticks: f64) -> usize {
        self.view_misfit.iter().filter(|v| v.abs() > ticks).count()
    }
    pub fn print(&self, name: &str) {
        let (rm, rs) = self.right();
        let (um, us) = self.up();
        let (erm, ers) = mean_sd(self.error_xy.iter().map(|e| e.0));
        let (eum, eus) = mean_sd(self.error_xy.iter().map(|e| e.1));
        let (wm, ws) = mean_sd(self.rewinds.iter().copied());
        let misfits: Vec<f64> = self.view_misfit.iter().map(|v| v.abs()).collect();
        println!(
            "{name}: {} shots, {} hits ({:.1} %), rewind {wm:.2} ± {ws:.2} ticks (off the aiming \
             frame's age: p50 {:.4} p99 {:.4} max {:.4})",
            self.shots,
            self.hits,
            100.0 * self.hit_rate(),
            quantile(&misfits, 0.5),
            quantile(&misfits, 0.99),
            self.misfit_max(),
        );
        if !self.misses_by_m.is_empty() {
            let (mm, ms) = mean_sd(self.misses_by_m.iter().copied());
            println!("    misses pass the target's centre at {mm:.1} ± {ms:.1} m");
        }
        if self.hits > 0 {
            println!(
                "    offset from the target's centre: right {rm:+.3} ± {rs:.3} m, up {um:+.3} ± \
                 {us:.3} m; against the aim: right {erm:+.4} ± {ers:.4} m, up {eum:+.4} ± \
                 {eus:.4} m, |error| p50 {:.3} p95 {:.3} max {:.3} m",
                self.error_p(0.5),
                self.error_p(0.95),
                self.error_p(1.0),
            );
        }
    }
}

/// The same distribution of places on the target: each axis's mean within `tol_m`.
pub fn same_places(a: &Stats, b: &Stats, tol_m: f64) {
    let close =
        |x: (f64, f64), y: (f64, f64)| (x.0 - y.0).abs() <= tol_m && (x.1 - y.1).abs() <= tol_m;
    assert!(
        close(a.right(), b.right()),
        "{:?} vs {:?}",
        a.right(),
        b.right()
    );
    assert!(close(a.up(), b.up()), "{:?} vs {:?}", a.up(), b.up());
}
