//! Aircraft thumbnails drawn offscreen: our own FL-1 trainer (`mods/fl-trainer`, in the
//! repository, so never skipped for want of the fixture pack) comes out as a white airframe
//! with red trim filling a good part of the picture, and the worker draws it once, then reads
//! it back from its cache. GPU runs record an `FL-SKIP` without an adapter (`FL_REQUIRE_GPU=1`
//! fails instead). `FL_THUMB_OUT=DIR` saves the pictures as PNGs to look at.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fighters_legacy::app::thumbnails::{
    BACKGROUND, THUMB_SIZE, Thumbnail, render_thumbnail, start_worker,
};
use fl_content::{Content, LoadOptions};
use fl_render::{Gpu, Renderer};

const TRAINER: &str = "fl-trainer:jet-trainer";

fn own_content() -> Content {
    Content::load(&LoadOptions {
        pack_dirs: vec![fl_fixtures::workspace_root().join("mods/fl-trainer")],
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// (share of pixels not the background, share white-ish, share red-ish).
fn colours(t: &Thumbnail) -> (f64, f64, f64) {
    let n = f64::from(t.width * t.height);
    let (mut white, mut red) = (0u32, 0u32);
    for p in t.rgba.chunks_exact(4) {
        let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
        if r > 150 && g > 150 && b > 140 && (r - b).abs() < 50 {
            white += 1;
        }
        if r > 90 && r > 2 * g && r > 2 * b {
            red += 1;
        }
    }
    (t.coverage(), f64::from(white) / n, f64::from(red) / n)
}

fn save(t: &Thumbnail, name: &str) {
    let Some(dir) = std::env::var_os("FL_THUMB_OUT") else {
        return;
    };
    let path = PathBuf::from(dir).join(name);
    image::RgbaImage::from_raw(t.width, t.height, t.rgba.clone())
        .expect("sized")
        .save(&path)
        .expect("PNG written");
    println!("saved {}", path.display());
}

#[test]
fn the_trainer_thumbnail_shows_white_paint_and_red_trim() {
    let Some(gpu) = fl_fixtures::adapter_or_skip(Gpu::new()) else {
        return;
    };
    let content = own_content();
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let t = render_thumbnail(&gpu, &mut renderer, &content, TRAINER).expect("drawn");
    save(&t, "fl-trainer-thumbnail.png");
    assert_eq!((t.width, t.height), (THUMB_SIZE, THUMB_SIZE));
    assert_eq!(t.rgba.len(), (THUMB_SIZE * THUMB_SIZE * 4) as usize);
    let (lit, white, red) = colours(&t);
    println!("thumbnail: aircraft {lit:.3}, white {white:.3}, red {red:.3}");
    assert!(
        (0.10..0.85).contains(&lit),
        "the aircraft fills the picture: {lit}"
    );
    assert!(white > 0.25 * lit, "mostly white paint: {white} of {lit}");
    assert!(red > 0.003, "red trim seen: {red}");
    // The corners are the neutral background, not black.
    for (x, y) in [(0, 0), (THUMB_SIZE - 1, 0), (0, THUMB_SIZE - 1)] {
        let i = ((y * THUMB_SIZE + x) * 4) as usize;
        assert_eq!(t.rgba[i..i + 3], BACKGROUND, "corner {x},{y}");
    }
    // A type without a model of its own has none.
    assert!(render_thumbnail(&gpu, &mut renderer, &content, "builtin:jet-trainer").is_err());
}

#[test]
fn the_worker_draws_once_then_reads_the_cache() {
    let Some(gpu) = fl_fixtures::adapter_or_skip(Gpu::new()) else {
        return;
    };
    let content = Arc::new(own_content());
    let cache = tempfile::tempdir().expect("temp dir");
    let ids = vec![
        TRAINER.to_owned(),
        "builtin:jet-trainer".to_owned(),
        "nope:nope".to_owned(),
    ];
    let run = || {
        let rx = start_worker(
            &gpu,
            content.clone(),
            ids.clone(),
            Some(cache.path().to_owned()),
        )
        .expect("thread");
        (0..ids.len())
            .map(|_| rx.recv_timeout(Duration::from_secs(300)).expect("a result"))
            .collect::<Vec<_>>()
    };
    let first = run();
    assert_eq!(first[0].type_id, TRAINER);
    assert!(!first[0].cached, "drawn the first time");
    let drawn = first[0].result.as_ref().expect("drawn").clone();
    assert!(first[1].result.is_err() && first[2].result.is_err());
    let entries = std::fs::read_dir(cache.path()).expect("cache dir").count();
    assert_eq!(entries, 1, "one entry: the trainer's");
    let second = run();
    assert!(second[0].cached, "read from the cache the second time");
    assert_eq!(second[0].result.as_ref().expect("cached"), &drawn);
    // A corrupt entry is drawn again and rewritten.
    let entry = std::fs::read_dir(cache.path())
        .expect("cache dir")
        .next()
        .expect("entry")
        .expect("entry")
        .path();
    std::fs::write(&entry, b"garbage").expect("corrupt it");
    let third = run();
    assert!(!third[0].cached, "a corrupt entry is not trusted");
    assert_eq!(third[0].result.as_ref().expect("redrawn"), &drawn);
    assert!(std::fs::metadata(&entry).expect("rewritten").len() > 1000);
}

/// Every aircraft of the fixture pack that flies gets a picture that is not blank.
#[test]
fn every_fixture_aircraft_has_a_thumbnail() {
    let Some(pack) = fl_fixtures::fixture_pack() else {
        return;
    };
    let Some(gpu) = fl_fixtures::adapter_or_skip(Gpu::new()) else {
        return;
    };
    let content = Content::load(&LoadOptions {
        pack_dirs: vec![pack],
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let ids: Vec<String> = content
        .flyable_type_ids()
        .into_iter()
        .filter(|id| id.starts_with("fl-base:"))
        .collect();
    assert_eq!(ids.len(), fl_fixtures::PACK_AIRCRAFT.len(), "{ids:?}");
    for id in ids {
        let t = render_thumbnail(&gpu, &mut renderer, &content, &id).expect("drawn");
        save(&t, &format!("{}.png", id.replace(':', "-")));
        let lit = t.coverage();
        println!("{id}: aircraft {lit:.3}");
        assert!((0.04..0.85).contains(&lit), "{id}: {lit}");
    }
}
