//! Decoding hostile bytes never allocates beyond a bound the input justifies: at most
//! `16 × (packet length + claimed decompressed length) + 64 KiB`, where a snapshot's claim is
//! itself capped at 4 MiB before anything is allocated.
//!
//! A counting global allocator measures the peak heap growth during each decode. This binary
//! holds a single test so no other test thread allocates concurrently.

// The counting allocator forwards to the system allocator; `unsafe` is required by the
// `GlobalAlloc` trait itself and confined to this test binary.
#![allow(unsafe_code)]

use fl_protocol::snapshot::{FLAG_COMPRESSED, MAX_PAYLOAD_BYTES};
use fl_protocol::testing::{Rng, random_message};
use fl_protocol::{MsgId, Packet};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's layout unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                let grow = new_size - layout.size();
                let now = CURRENT.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap growth while decoding `bytes`.
fn peak_during_decode(bytes: &[u8]) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let result = Packet::decode(bytes);
    let peak = PEAK.load(Ordering::Relaxed) - base;
    drop(result);
    peak
}

fn bound(bytes: &[u8]) -> usize {
    let claim = if bytes.len() >= 24 && bytes[0] == MsgId::WorldSnapshot.to_u8() {
        let flags = u16::from_le_bytes([bytes[18], bytes[19]]);
        let claim = u32::from_le_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]) as usize;
        if flags & FLAG_COMPRESSED != 0 {
            claim.min(MAX_PAYLOAD_BYTES)
        } else {
            0
        }
    } else {
        0
    };
    16 * (bytes.len() + claim) + 64 * 1024
}

#[test]
fn decoding_hostile_bytes_is_bounded() {
    let mut rng = Rng::new(0xA110C);
    let mut worst = (0.0f64, String::new());
    let mut check = |bytes: &[u8], what: &str| {
        let peak = peak_during_decode(bytes);
        let limit = bound(bytes);
        assert!(
            peak <= limit,
            "{what}: {peak} bytes allocated for a {}-byte packet (bound {limit})",
            bytes.len()
        );
        let ratio = peak as f64 / limit as f64;
        if ratio > worst.0 {
            worst = (ratio, what.to_owned());
        }
    };

    // Random bytes behind every id.
    for &id in MsgId::ALL {
        for _ in 0..200 {
            let len = rng.upto(700) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            bytes.insert(0, id.to_u8());
            check(&bytes, &format!("random {id:?}"));
        }
    }

    // Valid packets with their counts and lengths inflated to the maximum.
    for &id in MsgId::ALL {
        for seed in 0..20 {
            let Ok(mut bytes) = Packet::new(random_message(id, seed)).encode() else {
                continue;
            };
            check(&bytes, &format!("valid {id:?}"));
            for at in 1..bytes.len().min(24) {
                let saved = bytes[at];
                bytes[at] = 0xFF;
                check(&bytes, &format!("{id:?} with byte {at} = 0xff"));
                bytes[at] = saved;
            }
        }
    }

    // A tiny snapshot claiming a 4 MiB compressed body, and one claiming more.
    for claim in [
        MAX_PAYLOAD_BYTES as u32,
        MAX_PAYLOAD_BYTES as u32 + 1,
        u32::MAX,
    ] {
        let mut bytes = vec![0u8; 40];
        bytes[0] = MsgId::WorldSnapshot.to_u8();
        bytes[18..20].copy_from_slice(&FLAG_COMPRESSED.to_le_bytes());
        bytes[20..24].copy_from_slice(&claim.to_le_bytes());
        bytes[24..28].copy_from_slice(&[0x28, 0xB5, 0x2F, 0xFD]); // zstd magic, then junk
        check(&bytes, &format!("snapshot claiming {claim}"));
    }
    println!(
        "worst case used {:.1}% of its bound ({})",
        worst.0 * 100.0,
        worst.1
    );
}
