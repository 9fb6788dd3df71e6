//! `height_at` warm: heights over the fixture pack's NTTR tiles once the tiles are decoded (the
//! simulation's steady state) — at random points of a 20 km square (every call another tile:
//! the worst case) and along aircraft tracks (what the simulation asks), around the builtin
//! `home` airfield, and over the base alone. `cargo bench -p fl-terrain`.

use criterion::{Criterion, criterion_group, criterion_main};
use fl_content::{Content, ErrorPolicy, LoadOptions};
use fl_terrain::{Terrain, TerrainConfig};
use std::hint::black_box;

fn points() -> Vec<(f64, f64)> {
    // 4096 points spread over a 20 km square in the middle of NTTR (an airfield's surroundings).
    let mut v = Vec::new();
    let mut z = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..4096 {
        z ^= z << 13;
        z ^= z >> 7;
        z ^= z << 17;
        let a = (z >> 11) as f64 / (1u64 << 53) as f64;
        let b = ((z >> 3) & 0xffff) as f64 / 65536.0;
        v.push((37.0 + a * 0.18, -115.6 + b * 0.22));
    }
    v
}

fn bench(c: &mut Criterion) {
    let pts = points();
    count_mode(&pts);
    let base = Terrain::default();
    let mut i = 0usize;
    c.bench_function("height_at base only", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(base.height_at(pts[i].0, pts[i].1))
        })
    });
    let Some(t) = nttr_warm(&pts) else {
        return;
    };
    c.bench_function("height_at NTTR warm", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(t.height_at(pts[i].0, pts[i].1))
        })
    });
    cpu_time_per_call("height_at NTTR warm", || {
        i = (i + 1) & 4095;
        black_box(t.height_at(pts[i].0, pts[i].1));
    });
    // The simulation's own pattern: each aircraft asks for the ground under itself once a tick,
    // so successive calls for one aircraft are metres apart. One aircraft at 250 m/s and 60 Hz
    // (4.2 m steps, 17 km of track), and 32 aircraft on parallel tracks 600 m apart, asked in
    // turn as a server's tick does.
    let track = |k: usize, step: usize| {
        let s = step as f64 * 250.0 / 60.0;
        (
            37.02 + s / 111_000.0 * 0.6,
            -115.58 + s / 89_000.0 * 0.8 + k as f64 * 0.0067,
        )
    };
    let one: Vec<(f64, f64)> = (0..4096).map(|n| track(0, n)).collect();
    let many: Vec<(f64, f64)> = (0..4096).map(|n| track(n % 32, n / 32)).collect();
    for p in one.iter().chain(&many) {
        black_box(t.height_at(p.0, p.1));
    }
    for (name, path) in [
        ("height_at NTTR warm, one aircraft's track", &one),
        ("height_at NTTR warm, 32 aircraft's tracks in turn", &many),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) & 4095;
                black_box(t.height_at(path[i].0, path[i].1))
            })
        });
        cpu_time_per_call(name, || {
            i = (i + 1) & 4095;
            black_box(t.height_at(path[i].0, path[i].1));
        });
    }
    // Around the builtin `home` airfield: a 4 km square centred on it (the runway and its apron
    // are flat, the ring blends into the pack's heights, the corners are untouched): the
    // airfield's own path, every point near it.
    let home: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| {
            (
                36.24917 + ((p.0 - 37.0) / 0.18 - 0.5) * 0.036,
                -114.99611 + ((p.1 + 115.6) / 0.22 - 0.5) * 0.045,
            )
        })
        .collect();
    for p in &home {
        black_box(t.height_at(p.0, p.1));
    }
    c.bench_function("height_at home airfield warm", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(t.height_at(home[i].0, home[i].1))
        })
    });
    // Outside NTTR, within the skirt (the land the theater continues into): a 2° square
    // south-east of the theater, 0–300 km from its bounds.
    let around: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| {
            (
                33.0 + (p.0 - 37.0) / 0.18 * 2.0,
                -113.5 + (p.1 + 115.6) / 0.22 * 2.0,
            )
        })
        .collect();
    c.bench_function("height_at around NTTR (the skirt)", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(t.height_at(around[i].0, around[i].1))
        })
    });
    let planet = fl_flight::gravity::Planet::earth();
    let world: Vec<_> = pts
        .iter()
        .map(|p| fl_terrain::cube::latlon_to_world(planet.radius_m, p.0, p.1, 1500.0))
        .collect();
    c.bench_function("height_at_world NTTR warm (the simulation's path)", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(t.height_at_world(planet.radius_m, world[i]))
        })
    });
    c.bench_function("floor sample NTTR warm (height + normal)", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(fl_flight::env::Floor::sample(&t, &planet, world[i]))
        })
    });
}

/// The fixture pack's terrain with every tile under `pts` decoded (`None`: no fixture).
fn nttr_warm(pts: &[(f64, f64)]) -> Option<Terrain> {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        eprintln!("fixture pack not found: NTTR bench skipped");
        return None;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        on_error: ErrorPolicy::SkipAndReport,
        ..Default::default()
    })
    .expect("fixture pack loads");
    let t = Terrain::from_content(&content, TerrainConfig::default());
    for p in pts {
        black_box(t.height_at(p.0, p.1)); // warm: every tile decoded once
    }
    Some(t)
}

/// Instruction counting (load-independent, unlike any timing on a shared machine): with
/// `FL_TERRAIN_CALLS=N` the bench makes N warm `height_at` calls over the NTTR points (after
/// the same setup and warm-up) and exits, without criterion. Run it twice under
/// `valgrind --tool=callgrind` (N = 0 and N = 1,000,000, say): the difference of the totals
/// divided by N is the instructions per call. `FL_TERRAIN_PATH=world` asks `height_at_world`
/// instead.
fn count_mode(pts: &[(f64, f64)]) {
    let Some(n) = std::env::var("FL_TERRAIN_CALLS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let Some(t) = nttr_warm(pts) else {
        return;
    };
    let world = std::env::var("FL_TERRAIN_PATH").is_ok_and(|v| v == "world");
    let r = fl_flight::gravity::Planet::earth().radius_m;
    let w: Vec<_> = pts
        .iter()
        .map(|p| fl_terrain::cube::latlon_to_world(r, p.0, p.1, 1500.0))
        .collect();
    let mut sum = 0.0;
    for k in 0..n {
        let i = k & 4095;
        sum += if world {
            t.height_at_world(r, black_box(w[i]))
        } else {
            t.height_at(black_box(pts[i].0), black_box(pts[i].1))
        };
    }
    println!("{n} calls, sum {sum}");
    std::process::exit(0);
}

/// This thread's CPU time (user + system), seconds, from /proc (Linux); `None` elsewhere.
fn thread_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name's closing parenthesis: utime and stime are the 12th and
    // 13th, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Nanoseconds of this thread's CPU per call over ~3 s of calls: on a machine shared with other
/// work, wall-clock numbers include the time other processes held the core; this does not.
/// Skipped in criterion's test mode (`cargo test --benches`: no `--bench` argument), where each
/// routine runs once.
fn cpu_time_per_call(name: &str, mut f: impl FnMut()) {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let Some(start) = thread_cpu_s() else {
        return;
    };
    let n = 20_000_000u64;
    for _ in 0..n {
        f();
    }
    if let Some(end) = thread_cpu_s() {
        println!(
            "{name}: {:.1} ns of thread CPU time per call ({n} calls)",
            (end - start) * 1e9 / n as f64
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
