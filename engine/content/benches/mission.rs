//! Mission load time: the fixture pack's largest mission (`f5e_intercept`, ~5 KiB, most of it
//! comments) read through its pack, parsed and validated against the loaded content — what the
//! server pays once when a mission starts — and the parse alone from text in memory.
//!
//! Run: `cargo bench -p fl-content --bench mission`. Without the fixture pack it records an
//! `FL-SKIP` and measures nothing.

use criterion::{Criterion, criterion_group, criterion_main};
use fl_content::{Content, LoadOptions};
use std::hint::black_box;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let content = match Content::load(&LoadOptions {
        pack_dirs: vec![pack.clone()],
        ..Default::default()
    }) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("the fixture pack did not load: {e}");
            return;
        }
    };
    // The largest mission file of the pack.
    let Some((stem, text)) = content
        .missions()
        .into_iter()
        .filter(|l| l.pack == "fl-base-pack")
        .filter_map(|l| Some((l.stem, std::fs::read_to_string(&l.path).ok()?)))
        .max_by_key(|(_, t)| t.len())
    else {
        eprintln!("no mission to measure");
        return;
    };
    let id = format!("fl-base-pack:{stem}");
    eprintln!("largest mission: {id} ({} bytes)", text.len());
    if let Err(e) = content.load_mission(&id) {
        eprintln!("{e}");
        return;
    }
    c.bench_function("mission/load_and_validate (largest pack mission)", |b| {
        b.iter(|| black_box(content.load_mission(black_box(&id)).is_ok()))
    });
    c.bench_function("mission/parse only (from memory)", |b| {
        b.iter(|| {
            black_box(
                fl_content::mission::parse_mission(black_box(&text), Path::new("m.yaml"))
                    .is_valid(),
            )
        })
    });
    // For scale: the mission list's header read of the same text (serde-derived structs, no
    // line-numbered tree, no validation).
    c.bench_function("mission/header only (from memory, for scale)", |b| {
        b.iter(|| black_box(fl_content::mission_header::parse_header(black_box(&text)).is_ok()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
