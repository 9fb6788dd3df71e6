//! Our trainer's engine rendered offline, as the game drives it: 4 s at 44.1 kHz, idle for
//! 0.5 s, the spool then rising to military power by 3 s (parameters set at 60 Hz, like the
//! game's frames), written as a WAV into a temp dir (kept at `$FL_AUDIO_WAV_OUT` when set, to
//! listen to or to run `sox FILE -n stat`). The sound gets louder and higher as the engine
//! spools up and never jumps between two samples more than the loops themselves do. Also the
//! fixture pack's Ogg Vorbis effects decode through the same bounded decoder.

use std::path::Path;

use fl_audio::clip::{self, Clip};
use fl_audio::engine::{EngineParams, EngineSound};
use fl_content::{StackSources, load_stack};

const RATE: u32 = 44_100;
const FRAME: usize = RATE as usize / 60;

fn rms(s: &[f32]) -> f32 {
    (s.iter().map(|v| v * v).sum::<f32>() / s.len() as f32).sqrt()
}

fn zcr(s: &[f32]) -> f32 {
    let n = s
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    n as f32 * RATE as f32 / s.len() as f32
}

/// Power of `s` within ±15 Hz of `hz` (Goertzel at 2.5 Hz steps): where the compressor's whine is.
fn band_power(s: &[f32], hz: f32) -> f32 {
    (-6..=6)
        .map(|k| {
            let w = 2.0 * std::f32::consts::PI * (hz + 2.5 * k as f32) / RATE as f32;
            let c = 2.0 * w.cos();
            let (mut s1, mut s2) = (0.0f32, 0.0f32);
            for &x in s {
                let s0 = x + c * s1 - s2;
                s2 = s1;
                s1 = s0;
            }
            (s1 * s1 + s2 * s2 - c * s1 * s2) / (s.len() as f32).powi(2)
        })
        .sum()
}

fn max_step(s: &[f32]) -> f32 {
    s.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max)
}

/// The spool at `t` s: idle until 0.5 s, then a linear rise to 1 at 3 s.
fn spool_at(t: f32) -> f32 {
    ((t - 0.5) / 2.5).clamp(0.0, 1.0)
}

#[test]
fn the_trainer_spools_up_louder_and_higher_without_a_click() {
    let pack = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/fl-trainer");
    let content = load_stack(&StackSources {
        mods_dirs: Vec::new(),
        pack_dirs: vec![pack],
    })
    .content
    .unwrap_or_else(|| panic!("our pack did not load"));
    let loops = fl_audio::load_engine_loops(&content, "fl-trainer:jet-trainer")
        .unwrap_or_else(|e| panic!("{e}"));
    let loop_step = max_step(loops.idle.samples()).max(max_step(loops.mil.samples()));
    let mut engine = EngineSound::new(loops, RATE);
    engine.set_gain(1.0);
    let mut out = vec![0.0f32; 4 * RATE as usize];
    for (i, frame) in out.chunks_mut(FRAME).enumerate() {
        let t = (i * FRAME) as f32 / RATE as f32;
        engine.set(EngineParams {
            rpm: spool_at(t),
            // The pilot slams the throttle forward at 0.5 s.
            throttle: if t >= 0.5 { 1.0 } else { 0.0 },
            afterburner: 0.0,
        });
        engine.render(frame);
    }
    let half = RATE as usize / 2;
    // Past the initial fade-in: idle (0.1 … 0.5 s) against military (3.5 … 4 s).
    let idle = &out[half / 5..half];
    let mil = &out[7 * half..];
    let (ri, rm, zi, zm) = (rms(idle), rms(mil), zcr(idle), zcr(mil));
    println!("idle: RMS {ri:.3}, {zi:.0} zero crossings/s; military: RMS {rm:.3}, {zm:.0}/s");
    let windows: Vec<(f32, f32)> = out.chunks(half).map(|w| (rms(w), zcr(w))).collect();
    println!("per 0.5 s (RMS, crossings/s): {windows:.3?}");
    assert!(rm > 1.5 * ri, "military {rm} vs idle {ri}");
    assert!(zm > 1.2 * zi, "military {zm}/s vs idle {zi}/s");
    // The compressor's whine (fl-modgen: 2210 Hz at idle, 4020 Hz at military) moved up.
    let (idle_lo, idle_hi) = (band_power(idle, 2210.0), band_power(idle, 4020.0));
    let (mil_lo, mil_hi) = (band_power(mil, 2210.0), band_power(mil, 4020.0));
    println!(
        "whine power at 2210 / 4020 Hz: idle {idle_lo:.2e} / {idle_hi:.2e}, military {mil_lo:.2e} / {mil_hi:.2e}"
    );
    assert!(idle_lo > 10.0 * idle_hi && mil_hi > 10.0 * mil_lo);
    // Louder as it spools (windows 1 … 5 cover the rise), allowing the loops' own swell.
    for w in windows[1..6].windows(2) {
        assert!(w[1].0 > 0.97 * w[0].0, "{windows:?}");
    }
    let step = max_step(&out);
    println!("largest sample-to-sample step {step:.3} (the loops' own: {loop_step:.3})");
    assert!(step <= loop_step * 1.2, "{step} vs {loop_step}");
    assert!(out.iter().all(|v| v.is_finite() && v.abs() <= 1.0));

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = std::env::var_os("FL_AUDIO_WAV_OUT")
        .map_or_else(|| dir.path().join("trainer_spool_up.wav"), Into::into);
    std::fs::write(&path, clip::wav_bytes(RATE, &out)).unwrap_or_else(|e| panic!("{e}"));
    // What was written reads back as what was rendered.
    let back = clip::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.samples().len(), out.len());
    println!("written to {}", path.display());
}

#[test]
fn the_fixture_packs_ogg_effects_decode() {
    let Some(pack) = fl_fixtures::fixture_pack_or("no Ogg Vorbis file to decode") else {
        return;
    };
    let sfx = pack.join("audio/sfx");
    let mut names: Vec<_> = std::fs::read_dir(&sfx)
        .unwrap_or_else(|e| panic!("{}: {e}", sfx.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ogg"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for p in names {
        let c: Clip = clip::read_file(&p).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{}: {} Hz, {:.3} s, RMS {:.3}",
            p.display(),
            c.rate(),
            c.seconds(),
            rms(c.samples())
        );
        // The pack's contract: 44.1 kHz, under a second, not silent.
        assert_eq!(c.rate(), 44_100);
        assert!(c.seconds() > 0.05 && c.seconds() < 1.0, "{}", c.seconds());
        assert!(rms(c.samples()) > 0.005);
    }
}
