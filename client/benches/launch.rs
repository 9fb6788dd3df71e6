//! Launch to the first Flight frame in single player, the real binary in a real window under
//! Xvfb: `fighters-legacy --single-player --autopilot level --seconds 0.5` (straight into a
//! scripted flight, as a player's "Fly" does), timed by the game itself from its start to the
//! first presented frame of the Flight screen (content, embedded server, QUIC join, terrain
//! roots, first picture), plus the process's whole run from spawn to exit.
//!
//! Cold: empty caches — our pipeline cache (`XDG_CACHE_HOME`) and Mesa's shader cache
//! (`MESA_SHADER_CACHE_DIR`) — before every launch. Warm: both kept from the launch before.
//!
//! `cargo bench -p fighters-legacy --bench launch` (release build; ./dev installs Xvfb). Without
//! Xvfb or an adapter it says so and measures nothing. Under `cargo test --benches` each
//! routine runs once.

use std::cell::RefCell;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use fl_fixtures::{Xvfb, wait_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_fighters-legacy");

/// One launch: the game's own first-flight-frame time and the process's wall time.
#[derive(Debug, Clone, Copy)]
struct Launch {
    first_frame: Duration,
    process: Duration,
}

fn launch(x: &Xvfb, home: &Path) -> Result<Launch, String> {
    let t0 = Instant::now();
    let mut child = x
        .command(BIN)
        .args([
            "--single-player",
            "--autopilot",
            "level",
            "--seconds",
            "0.5",
            "--size",
            "1280x720",
            "--settings",
        ])
        .arg(home.join("user.toml"))
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("MESA_SHADER_CACHE_DIR", home.join("mesa"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {BIN}: {e}"))?;
    let status = wait_bounded(&mut child, Duration::from_secs(180));
    let process = t0.elapsed();
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    match status {
        Some(s) if s.success() => {}
        other => return Err(format!("the game ended with {other:?}: {stderr}")),
    }
    // "first flight frame 1.23 s after launch; …"
    let seconds = stdout
        .lines()
        .find_map(|l| l.strip_prefix("first flight frame "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| format!("no first flight frame in the output: {stdout}"))?;
    Ok(Launch {
        first_frame: Duration::from_secs_f64(seconds),
        process,
    })
}

fn bench(c: &mut Criterion) {
    let Some(x) = Xvfb::start() else {
        eprintln!("no Xvfb: launch bench skipped");
        return;
    };
    let warm_home = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no temporary directory ({e}): launch bench skipped");
            return;
        }
    };
    // One launch fills the warm caches (and says whether this machine can run the game).
    if let Err(e) = launch(&x, warm_home.path()) {
        eprintln!("the game does not start here ({e}): launch bench skipped");
        return;
    }
    let runs: [RefCell<Vec<Launch>>; 2] = Default::default();
    let mut group = c.benchmark_group("launch to first flight frame");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(30));
    for (k, name) in ["cold caches", "warm caches"].into_iter().enumerate() {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut sum = Duration::ZERO;
                for _ in 0..iters {
                    let cold = tempfile::tempdir().ok();
                    let home = match (k, &cold) {
                        (0, Some(d)) => d.path(),
                        _ => warm_home.path(),
                    };
                    match launch(&x, home) {
                        Ok(l) => {
                            sum += l.first_frame;
                            runs[k].borrow_mut().push(l);
                        }
                        Err(e) => eprintln!("{name}: {e}"),
                    }
                }
                sum
            })
        });
    }
    group.finish();
    eprintln!("\nlaunch summary (release binary, 1280x720, single player, scripted):");
    for (k, name) in ["cold caches", "warm caches"].into_iter().enumerate() {
        let mut v = runs[k].borrow().clone();
        if v.is_empty() {
            continue;
        }
        v.sort_by_key(|l| l.first_frame);
        let med = v[v.len() / 2];
        let (lo, hi) = (v[0], v[v.len() - 1]);
        eprintln!(
            "  {name:<12} first flight frame median {:.2} s (min {:.2}, max {:.2}); process start to exit median {:.2} s; {} launches",
            med.first_frame.as_secs_f64(),
            lo.first_frame.as_secs_f64(),
            hi.first_frame.as_secs_f64(),
            med.process.as_secs_f64(),
            v.len()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
