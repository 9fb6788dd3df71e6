//! The mix rendered offline into buffers, as the game drives it (parameters between renders of
//! a 60 Hz frame), and listened to by measurement: the engine's pitch follows its RPM, the wind
//! rises with dynamic pressure, a receding aircraft drops in pitch (Doppler), a bus at volume 0
//! is silent, losing the focus lowers the mix, and the voices stay within their bounds whatever
//! the game spawns. Set `FL_AUDIO_WAV_OUT` to a directory to keep the renders as WAV files.

use fl_audio::mixer::{BLOCK, DEFAULT_UNFOCUSED_GAIN, MAX_SOURCES, MAX_VOICES};
use fl_audio::spatial::SPEED_OF_SOUND_MPS;
use fl_audio::{
    Bus, Clip, Command, DQuat, DVec3, Emitter, EngineLoops, EngineParams, Falloff, Listener, Mixer,
    OwnAircraft, Positional, Sound, SourceId,
};

const RATE: u32 = 48_000;
const FRAME: usize = RATE as usize / 60;

fn sine(hz: f32, level: f32, rate: u32) -> Clip {
    let v = (0..rate)
        .map(|i| level * (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin())
        .collect();
    Clip::new(rate, v).unwrap_or_else(|| panic!("clip"))
}

/// Idle a 110 Hz tone, military a 200 Hz one (110 / 0.55): a single pitch that follows the RPM.
fn tones() -> EngineLoops {
    EngineLoops {
        idle: sine(110.0, 0.4, 44_100),
        mil: sine(200.0, 0.6, 44_100),
        afterburner: None,
    }
}

fn left(s: &[f32]) -> Vec<f32> {
    s.chunks(2).map(|c| c[0]).collect()
}

fn rms(s: &[f32]) -> f32 {
    (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
}

/// Zero crossings per second (twice the frequency of a pure tone).
fn zcr(s: &[f32]) -> f32 {
    let n = s
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    n as f32 * RATE as f32 / s.len() as f32
}

/// Renders `secs` of stereo, calling `each_frame` before every 60 Hz frame.
fn render(m: &mut Mixer, secs: f32, mut each_frame: impl FnMut(&mut Mixer, f32)) -> Vec<f32> {
    let frames = (secs * RATE as f32) as usize;
    let mut out = vec![0.0; 2 * frames];
    for (i, chunk) in out.chunks_mut(2 * FRAME).enumerate() {
        each_frame(m, (i * FRAME) as f32 / RATE as f32);
        m.render(chunk);
    }
    out
}

fn keep(name: &str, stereo: &[f32]) {
    if let Some(dir) = std::env::var_os("FL_AUDIO_WAV_OUT") {
        let path = std::path::Path::new(&dir).join(name);
        let mono = left(stereo);
        if let Err(e) = std::fs::write(&path, fl_audio::clip::wav_bytes(RATE, &mono)) {
            println!("{}: {e}", path.display());
        }
    }
}

fn own(rpm: f32, q: f32) -> OwnAircraft {
    OwnAircraft {
        present: true,
        engine: EngineParams {
            rpm,
            throttle: rpm,
            afterburner: 0.0,
        },
        dynamic_pressure_pa: q,
        ..OwnAircraft::default()
    }
}

#[test]
fn engine_pitch_rises_with_rpm() {
    let mut last = 0.0;
    for rpm in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let mut m = Mixer::new(RATE);
        m.apply(Command::EngineLoops(Some(tones())));
        m.set_own(own(rpm, 0.0));
        let out = left(&render(&mut m, 1.0, |_, _| {}));
        let z = zcr(&out[RATE as usize / 2..]);
        // N1 × 200 Hz, two crossings per cycle.
        let n1 = 0.55 + 0.45 * rpm;
        println!("rpm {rpm}: {z:.0} crossings/s (expected {:.0})", 400.0 * n1);
        assert!((z - 400.0 * n1).abs() < 8.0, "rpm {rpm}: {z}");
        assert!(z > last);
        last = z;
    }
}

#[test]
fn wind_rms_rises_with_dynamic_pressure() {
    let mut last = -1.0;
    let mut levels = Vec::new();
    for q in [0.0, 2_000.0, 8_000.0, 20_000.0, 40_000.0] {
        let mut m = Mixer::new(RATE);
        // No engine loops: the wind alone.
        m.set_own(own(0.0, q));
        let out = render(&mut m, 1.0, |_, _| {});
        let r = rms(&out[RATE as usize..]);
        levels.push((q, r));
        assert!(r > last, "q {q}: {r} after {last}");
        last = r;
    }
    println!("wind RMS by dynamic pressure (Pa): {levels:?}");
    assert_eq!(levels[0].1, 0.0);
    assert!(levels[4].1 > 5.0 * levels[1].1);
}

/// A 500 Hz loop on an aircraft starting `from` (listener at the origin looking along −Z) flying
/// at `v`; the tone's frequency heard over the second half second.
fn heard_frequency(from: DVec3, v: DVec3) -> (f32, f32) {
    let mut m = Mixer::new(RATE);
    m.apply(Command::Spawn(
        SourceId(1),
        Positional {
            sound: Sound::Clip(sine(500.0, 0.5, 44_100)),
            bus: Bus::Engine,
            looping: true,
            falloff: Falloff::AIRCRAFT,
            emitter: Emitter::at(from, v),
        },
    ));
    // The game updates the aircraft each frame with where it is; between frames the mix
    // extrapolates.
    let out = render(&mut m, 1.0, |m, t| {
        let at = from + v * f64::from(t);
        m.apply(Command::Update(SourceId(1), Emitter::at(at, v)));
    });
    keep("doppler.wav", &out);
    let l = left(&out);
    (
        zcr(&l[RATE as usize / 2..]) / 2.0,
        rms(&l[RATE as usize / 2..]),
    )
}

#[test]
fn a_receding_aircraft_behind_drops_in_pitch() {
    let c = SPEED_OF_SOUND_MPS as f32;
    let still = heard_frequency(DVec3::new(0.0, 0.0, 300.0), DVec3::ZERO);
    // Behind the listener (+Z is aft), flying away at 100 m/s.
    let away = heard_frequency(DVec3::new(0.0, 0.0, 300.0), DVec3::new(0.0, 0.0, 100.0));
    // Ahead, flying toward the listener at 100 m/s.
    let toward = heard_frequency(DVec3::new(0.0, 0.0, -2_000.0), DVec3::new(0.0, 0.0, 100.0));
    println!(
        "500 Hz source: still {:.1} Hz, receding {:.1} Hz (expected {:.1}), approaching {:.1} Hz (expected {:.1})",
        still.0,
        away.0,
        500.0 * c / (c + 100.0),
        toward.0,
        500.0 * c / (c - 100.0)
    );
    assert!((still.0 - 500.0).abs() < 3.0, "{still:?}");
    assert!((away.0 - 500.0 * c / (c + 100.0)).abs() < 4.0, "{away:?}");
    assert!(
        (toward.0 - 500.0 * c / (c - 100.0)).abs() < 5.0,
        "{toward:?}"
    );
    // And the receding one fades with distance.
    assert!(away.1 < still.1, "{away:?} vs {still:?}");
}

#[test]
fn a_flyby_pans_across_and_drops_in_pitch_as_it_passes() {
    let mut m = Mixer::new(RATE);
    let v = DVec3::new(150.0, 0.0, 0.0);
    let from = DVec3::new(-600.0, 0.0, -100.0);
    m.apply(Command::Spawn(
        SourceId(9),
        Positional {
            sound: Sound::Clip(sine(600.0, 0.5, 44_100)),
            bus: Bus::Engine,
            looping: true,
            falloff: Falloff::AIRCRAFT,
            emitter: Emitter::at(from, v),
        },
    ));
    let out = render(&mut m, 8.0, |m, t| {
        m.apply(Command::Update(
            SourceId(9),
            Emitter::at(from + v * f64::from(t), v),
        ));
    });
    keep("flyby.wav", &out);
    let second = |s: usize| &out[2 * s * RATE as usize..2 * (s + 1) * RATE as usize];
    let (l, r): (Vec<f32>, Vec<f32>) = second(0).chunks(2).map(|c| (c[0], c[1])).unzip();
    let (l7, r7): (Vec<f32>, Vec<f32>) = second(7).chunks(2).map(|c| (c[0], c[1])).unzip();
    // From the left, to the right.
    assert!(rms(&l) > 2.0 * rms(&r), "{} {}", rms(&l), rms(&r));
    assert!(rms(&r7) > 2.0 * rms(&l7), "{} {}", rms(&l7), rms(&r7));
    // Higher while it approaches than once it has passed.
    let (f0, f7) = (zcr(&l) / 2.0, zcr(&r7) / 2.0);
    println!("flyby: {f0:.0} Hz approaching, {f7:.0} Hz receding");
    assert!(f0 > 600.0 && f7 < 600.0 && f0 - f7 > 100.0);
}

#[test]
fn a_bus_at_zero_is_silent_and_the_master_silences_everything() {
    let script = |with_gun: bool, weapons: f32| {
        let mut m = Mixer::new(RATE);
        m.apply(Command::EngineLoops(Some(tones())));
        m.set_own(own(0.7, 10_000.0));
        if with_gun {
            m.apply(Command::Spawn(
                SourceId(2),
                Positional {
                    sound: Sound::Clip(sine(900.0, 0.8, 44_100)),
                    bus: Bus::Weapons,
                    looping: true,
                    falloff: Falloff::GUN,
                    emitter: Emitter::at(DVec3::new(5.0, 0.0, 0.0), DVec3::ZERO),
                },
            ));
        }
        m.set_bus_volume(Bus::Weapons, weapons);
        render(&mut m, 1.0, |_, _| {})
    };
    let without = script(false, 1.0);
    let muted = script(true, 0.0);
    let loud = script(true, 1.0);
    // Past the volume's glide, a weapons bus at 0 leaves exactly the rest of the mix.
    let tail = RATE as usize / 5 * 2;
    let diff = without[tail..]
        .iter()
        .zip(&muted[tail..])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(diff < 1e-6, "{diff}");
    let (l, w) = (rms(&loud[tail..]), rms(&without[tail..]));
    println!("with the gun: RMS {l:.3}; without it or with its bus at 0: {w:.3}");
    assert!(l > 1.2 * w, "{l} vs {w}");

    // Each bus alone: radio, music and UI too.
    for bus in [Bus::Radio, Bus::Music, Bus::Ui] {
        let run = |v: f32| {
            let mut m = Mixer::new(RATE);
            m.set_bus_volume(bus, v);
            match bus {
                Bus::Radio => m.apply(Command::Radio(sine(1_000.0, 0.5, 22_050))),
                Bus::Music => m.apply(Command::Music {
                    clip: Some(sine(300.0, 0.5, 44_100)),
                    looping: true,
                }),
                _ => m.apply(Command::Flat {
                    clip: sine(700.0, 0.5, 44_100),
                    bus,
                    gain: 1.0,
                    pitch: 1.0,
                }),
            }
            rms(&render(&mut m, 0.8, |_, _| {})[RATE as usize / 5..])
        };
        let (on, off) = (run(1.0), run(0.0));
        assert!(on > 0.05 && off < 1e-6, "{bus:?}: {on} vs {off}");
    }

    let mut m = Mixer::new(RATE);
    m.apply(Command::EngineLoops(Some(tones())));
    m.set_own(own(1.0, 30_000.0));
    m.set_bus_volume(Bus::Master, 0.0);
    let out = render(&mut m, 0.5, |_, _| {});
    assert!(out[RATE as usize / 5..].iter().all(|v| v.abs() < 1e-6));
}

#[test]
fn losing_the_focus_lowers_the_mix() {
    let run = |focused: bool, unfocused_gain: Option<f32>| {
        let mut m = Mixer::new(RATE);
        m.apply(Command::EngineLoops(Some(tones())));
        m.set_own(own(0.5, 0.0));
        if let Some(g) = unfocused_gain {
            m.set_unfocused_gain(g);
        }
        m.set_focus(focused);
        let out = render(&mut m, 1.0, |_, _| {});
        rms(&out[RATE as usize..])
    };
    let (on, off) = (run(true, None), run(false, None));
    println!("focused RMS {on:.4}, unfocused {off:.4}");
    assert!(
        (off / on - DEFAULT_UNFOCUSED_GAIN).abs() < 0.01,
        "{}",
        off / on
    );
    assert!(run(false, Some(0.0)) < 1e-6);
    // Back in focus: back to full.
    let mut m = Mixer::new(RATE);
    m.apply(Command::EngineLoops(Some(tones())));
    m.set_own(own(0.5, 0.0));
    m.set_focus(false);
    render(&mut m, 0.5, |_, _| {});
    m.set_focus(true);
    let back = rms(&render(&mut m, 1.0, |_, _| {})[RATE as usize..]);
    assert!((back / on - 1.0).abs() < 0.01);
}

#[test]
fn voices_stay_bounded_and_the_quietest_lose_theirs() {
    let mut m = Mixer::new(RATE);
    let tone = sine(400.0, 0.3, 44_100);
    // 200 aircraft in a line, nearest first: 50 m, 100 m, …
    let spawn = |m: &mut Mixer, id: u32, d: f64| {
        m.apply(Command::Spawn(
            SourceId(id),
            Positional {
                sound: if id.is_multiple_of(2) {
                    Sound::Clip(tone.clone())
                } else {
                    Sound::Jet
                },
                bus: Bus::Engine,
                looping: true,
                falloff: Falloff {
                    ref_distance_m: 10.0,
                    max_distance_m: 100_000.0,
                },
                emitter: Emitter::at(DVec3::new(d, 0.0, 0.0), DVec3::ZERO),
            },
        ));
    };
    for i in 0..200u32 {
        spawn(&mut m, i, 50.0 * f64::from(i + 1));
    }
    let s = m.stats();
    println!("after 200 spawns: {s:?}");
    assert_eq!(s.sources, MAX_SOURCES);
    assert_eq!(s.stolen + s.refused, 200 - MAX_SOURCES as u64);
    // They came nearest first: every later (farther) one was refused, none stolen.
    assert_eq!(s.refused, 200 - MAX_SOURCES as u64);
    let out = render(&mut m, 0.2, |_, _| {});
    assert!(out.iter().all(|v| v.is_finite() && v.abs() <= 1.0));
    assert_eq!(m.stats().sounding, MAX_VOICES);
    // A nearer one steals the quietest tracked source's place, and takes a voice.
    spawn(&mut m, 1_000, 20.0);
    let s = m.stats();
    assert_eq!((s.sources, s.stolen), (MAX_SOURCES, 1));
    render(&mut m, 0.1, |_, _| {});
    assert_eq!(m.stats().sounding, MAX_VOICES);
    // The nearest 32 sound: with all but the nearest stopped, the mix gets quieter but the
    // count of voices never exceeds the bound on the way.
    for i in 1..200u32 {
        m.apply(Command::Stop(SourceId(i)));
    }
    let mut most = 0;
    for _ in 0..20 {
        let mut buf = vec![0.0; 2 * BLOCK];
        m.render(&mut buf);
        most = most.max(m.stats().sounding);
    }
    assert!(most <= 2 * MAX_VOICES, "{most}");
    let s = m.stats();
    assert_eq!(s.sources, 2, "{s:?}");
    assert_eq!(s.sounding, 2);
}

#[test]
fn the_same_script_gives_the_same_samples() {
    let script = || {
        let mut m = Mixer::new(RATE);
        m.apply(Command::EngineLoops(Some(tones())));
        m.apply(Command::Listener(Listener {
            position: DVec3::new(0.0, 1_000.0, 0.0),
            velocity: DVec3::new(0.0, 0.0, -200.0),
            orientation: DQuat::from_rotation_y(0.3),
        }));
        for i in 0..40u32 {
            m.apply(Command::Spawn(
                SourceId(i),
                Positional {
                    sound: Sound::Jet,
                    bus: Bus::Engine,
                    looping: true,
                    falloff: Falloff::AIRCRAFT,
                    emitter: Emitter::at(
                        DVec3::new(f64::from(i) * 80.0 - 1_600.0, 1_000.0, -500.0),
                        DVec3::new(0.0, 0.0, 150.0),
                    ),
                },
            ));
        }
        render(&mut m, 1.0, |m, t| {
            m.set_own(OwnAircraft {
                stall: (t - 0.5).max(0.0),
                gear_moving: t < 0.3,
                ..own(t, 30_000.0 * t)
            });
        })
    };
    let a = script();
    assert_eq!(a, script());
    assert!(rms(&a) > 0.05);
    keep("script.wav", &a);
}
