//! The lag-compensation history allocates nothing per tick once warm: recording 320 entities
//! and querying rewound rays, counted by a global allocator (this binary holds one test so that
//! no other test's allocations are counted).

// The counting allocator forwards to the system allocator; `unsafe` is required by the
// `GlobalAlloc` trait itself and confined to this test binary.
#![allow(unsafe_code)]

use fl_flight::math::{Vec3, cos, sin};
use fl_server::lagcomp::{Ray, Transform, TransformHistory};
use fl_server::pool::EntityId;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const N: u32 = 320;

/// Entity `i` circles its own centre on a 10 km grid at 250 m/s.
fn transform(i: u32, tick: u64) -> Transform {
    let c = Vec3::new(
        f64::from(i % 20) * 3000.0,
        3000.0,
        f64::from(i / 20) * 3000.0,
    );
    let a = tick as f64 * 250.0 / 60.0 / 1000.0 + f64::from(i);
    Transform {
        position: c + Vec3::new(1000.0 * cos(a), 0.0, 1000.0 * sin(a)),
        velocity: Vec3::new(-250.0 * sin(a), 0.0, 250.0 * cos(a)),
        ..Transform::default()
    }
}

#[test]
fn recording_and_querying_allocate_nothing_once_warm() {
    let ids: Vec<EntityId> = (1..=N)
        .map(|index| EntityId {
            index,
            generation: 1,
        })
        .collect();
    let mut h = TransformHistory::new(5000);
    let mut positions = vec![Vec3::ZERO; N as usize + 1];
    let run = |h: &mut TransformHistory, tick: u64, positions: &mut [Vec3]| {
        for id in &ids {
            positions[id.index as usize] = transform(id.index, tick).position;
        }
        h.record(tick, ids.iter().map(|&id| (id, transform(id.index, tick))));
        let target = transform(7, tick.saturating_sub(10)).position;
        let ray = Ray {
            origin: target + Vec3::new(0.0, 0.0, 800.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
            range_m: 1500.0,
        };
        let shooter = ids[0];
        h.ray_hits(
            &ray,
            10.0,
            shooter,
            8.0,
            |i| positions.get(i as usize).map(|&p| (ids[i as usize - 1], p)),
            |_| 8.0,
        )
    };
    // Warm-up: every ring, every grid cell touched.
    for tick in 0..200 {
        run(&mut h, tick, &mut positions);
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut hits = 0;
    for tick in 200..400 {
        hits += usize::from(run(&mut h, tick, &mut positions).is_some());
    }
    let allocated = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!("200 ticks of 320 records and a rewound ray: {allocated} allocations, {hits} hits");
    assert_eq!(
        hits, 200,
        "each ray is aimed where entity 7 was 10 ticks before"
    );
    assert_eq!(allocated, 0);
}
