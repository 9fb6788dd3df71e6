//! Lag-compensation cost: recording the transform history of 320 entities (64 pilots + 256 AI,
//! the load) for one tick, and one rewound hitscan ray among them.
//!
//! Run: `cargo bench -p fl-server --bench lagcomp`. The entities fly 1 km circles at 250 m/s on
//! a 1 km grid (20 × 16 km), so a 1,800 m gun ray's broadphase sees a few dozen of them.

use criterion::{Criterion, criterion_group, criterion_main};
use fl_flight::math::{Vec3, cos, sin};
use fl_server::lagcomp::{Ray, Transform, TransformHistory};
use fl_server::pool::EntityId;
use std::hint::black_box;

const N: u32 = 320;

fn transform(i: u32, tick: u64) -> Transform {
    let c = Vec3::new(
        f64::from(i % 20) * 1000.0,
        3000.0,
        f64::from(i / 20) * 1000.0,
    );
    let a = tick as f64 * 250.0 / 60.0 / 1000.0 + f64::from(i);
    Transform {
        position: c + Vec3::new(1000.0 * cos(a), 0.0, 1000.0 * sin(a)),
        velocity: Vec3::new(-250.0 * sin(a), 0.0, 250.0 * cos(a)),
        ..Transform::default()
    }
}

fn ids() -> Vec<EntityId> {
    (1..=N)
        .map(|index| EntityId {
            index,
            generation: 1,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let ids = ids();
    let mut h = TransformHistory::new(5000);
    let mut tick = 0u64;
    // Tick-by-tick transforms precomputed, so the bench measures the record, not the trig.
    let frames: Vec<Vec<(EntityId, Transform)>> = (0..64)
        .map(|t| ids.iter().map(|&id| (id, transform(id.index, t))).collect())
        .collect();
    for t in 0..64 {
        h.record(t, frames[t as usize].iter().copied());
    }
    tick = tick.max(64);
    c.bench_function("record 320 entities (one tick)", |b| {
        b.iter(|| {
            h.record(tick, frames[(tick % 64) as usize].iter().copied());
            tick += 1;
        })
    });

    // A settled history at tick 100; the current positions are its newest record.
    let mut h = TransformHistory::new(5000);
    for t in 0..=100 {
        h.record(t, ids.iter().map(|&id| (id, transform(id.index, t))));
    }
    let now: Vec<Vec3> = std::iter::once(Vec3::ZERO)
        .chain(ids.iter().map(|id| transform(id.index, 100).position))
        .collect();
    let current = |i: u32| {
        now.get(i as usize)
            .filter(|_| i >= 1)
            .map(|&p| (ids[i as usize - 1], p))
    };
    for rewind in [10u64, 31] {
        // Aimed where entity 150 was `rewind` ticks ago, from 900 m away.
        let seen = transform(150, 100 - rewind).position;
        let ray = Ray {
            origin: seen + Vec3::new(0.0, 0.0, 900.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
            range_m: 1800.0,
        };
        let shooter = ids[0];
        assert!(
            h.ray_hits(&ray, rewind as f64, shooter, 8.0, current, |_| 8.0)
                .is_some_and(|hit| hit.entity.index == 150),
            "the bench ray hits"
        );
        c.bench_function(
            &format!("rewound ray among 320 entities ({rewind} ticks)"),
            |b| {
                b.iter(|| {
                    h.ray_hits(
                        black_box(&ray),
                        black_box(rewind as f64),
                        shooter,
                        8.0,
                        current,
                        |_| 8.0,
                    )
                })
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
