//! `height_at` warm: heights over the fixture pack's NTTR tiles once the tiles are decoded (the
//! simulation's steady state), and over the base alone. `cargo bench -p fl-terrain`.

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
    let base = Terrain::default();
    let mut i = 0usize;
    c.bench_function("height_at base only", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(base.height_at(pts[i].0, pts[i].1))
        })
    });
    let Some(pack) = fl_fixtures::fixture_pack() else {
        eprintln!("fixture pack not found: NTTR bench skipped");
        return;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        on_error: ErrorPolicy::SkipAndReport,
        ..Default::default()
    })
    .expect("fixture pack loads");
    let t = Terrain::from_content(&content, TerrainConfig::default());
    for p in &pts {
        black_box(t.height_at(p.0, p.1)); // warm: every tile decoded once
    }
    c.bench_function("height_at NTTR warm", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(t.height_at(pts[i].0, pts[i].1))
        })
    });
    let planet = fl_flight::gravity::Planet::earth();
    let world: Vec<_> = pts
        .iter()
        .map(|p| fl_terrain::cube::latlon_to_world(planet.radius_m, p.0, p.1, 1500.0))
        .collect();
    c.bench_function("floor sample NTTR warm (height + normal)", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(fl_flight::env::Floor::sample(&t, &planet, world[i]))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
