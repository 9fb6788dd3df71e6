//! The audio thread's CPU share: the mixer rendering 1 s of 48 kHz stereo with the own aircraft
//! (engine loops, wind, stall buffet) and 32 positional sources moving past the listener, the
//! game updating every source and the listener at 60 Hz. Twice: the mixer alone, and through
//! the path a device pulls (`MixSource`: one sample per call, atomics and the command channel
//! between blocks). The time per iteration *is* the share of one core: 10 ms per 1 s rendered is
//! 1 %. Also printed as a percentage after the run.
//!
//! Run: `cargo bench -p fl-audio --bench mixer`.

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fl_audio::{
    AudioDevice, AudioOutput, Bus, Clip, Command, DVec3, DeviceErrorCallback, DeviceInfo,
    DeviceOpener, Emitter, EngineLoops, EngineParams, Falloff, Listener, MixSource, Mixer,
    OutputStatus, OwnAircraft, Positional, Sound, SourceId,
};

const RATE: u32 = 48_000;
const SOURCES: u32 = 32;
const FRAMES_PER_UPDATE: usize = RATE as usize / 60;

fn tone(hz: f32, level: f32) -> Clip {
    let v = (0..44_100)
        .map(|i| level * (std::f32::consts::TAU * hz * i as f32 / 44_100.0).sin())
        .collect();
    Clip::new(44_100, v).unwrap_or_else(|| panic!("clip"))
}

fn loops() -> EngineLoops {
    EngineLoops {
        idle: tone(110.0, 0.4),
        mil: tone(200.0, 0.6),
        afterburner: None,
    }
}

fn own() -> OwnAircraft {
    OwnAircraft {
        present: true,
        engine: EngineParams {
            rpm: 0.8,
            throttle: 1.0,
            afterburner: 1.0,
        },
        dynamic_pressure_pa: 30_000.0,
        stall: 0.3,
        ..OwnAircraft::default()
    }
}

/// Source `i` at time `t`: in a ring 200 m … 3.3 km out, each flying at 150 m/s.
fn emitter(i: u32, t: f64) -> Emitter {
    let a = f64::from(i) * 0.196;
    let r = 200.0 + 100.0 * f64::from(i);
    let v = DVec3::new(-a.sin(), 0.0, a.cos()) * 150.0;
    let p = DVec3::new(a.cos() * r, 50.0, a.sin() * r) + v * t;
    Emitter {
        pitch: 0.8 + 0.01 * i as f32,
        ..Emitter::at(p, v)
    }
}

/// Half of them clip loops, half synthesized jets.
fn sound(i: u32) -> Sound {
    if i.is_multiple_of(2) {
        Sound::Clip(tone(180.0 + 7.0 * i as f32, 0.5))
    } else {
        Sound::Jet
    }
}

fn spawn_all(apply: &mut impl FnMut(Command)) {
    apply(Command::EngineLoops(Some(loops())));
    for i in 0..SOURCES {
        apply(Command::Spawn(
            SourceId(i),
            Positional {
                sound: sound(i),
                bus: Bus::Engine,
                looping: true,
                falloff: Falloff::AIRCRAFT,
                emitter: emitter(i, 0.0),
            },
        ));
    }
}

fn updates(t: f64, apply: &mut impl FnMut(Command)) {
    apply(Command::Listener(Listener {
        position: DVec3::new(0.0, 0.0, -200.0 * t),
        velocity: DVec3::new(0.0, 0.0, -200.0),
        ..Listener::default()
    }));
    for i in 0..SOURCES {
        apply(Command::Update(SourceId(i), emitter(i, t)));
    }
}

/// One second as the game and the device would produce it, through the mixer directly.
fn one_second(m: &mut Mixer, t0: f64, buf: &mut [f32]) {
    for f in 0..60 {
        let t = t0 + f64::from(f) / 60.0;
        updates(t, &mut |c| m.apply(c));
        m.render(&mut buf[..2 * FRAMES_PER_UPDATE]);
        black_box(&buf);
    }
}

#[derive(Clone, Default)]
struct Card(Arc<Mutex<Option<MixSource>>>);

struct CardDevice(Arc<Mutex<Option<MixSource>>>);

impl DeviceOpener for Card {
    fn open(&mut self, _: DeviceErrorCallback) -> Result<Box<dyn AudioDevice>, String> {
        Ok(Box::new(CardDevice(self.0.clone())))
    }
}

impl AudioDevice for CardDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: "bench".into(),
            sample_rate: RATE,
            channels: 2,
            period_frames: Some(512),
        }
    }

    fn play(&mut self, source: MixSource) -> Result<(), String> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(source);
        Ok(())
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("mixer");
    g.measurement_time(Duration::from_secs(10));
    g.sample_size(20);

    let mut m = Mixer::new(RATE);
    m.set_own(own());
    spawn_all(&mut |c| m.apply(c));
    let mut buf = vec![0.0f32; 2 * FRAMES_PER_UPDATE];
    let mut t = 0.0;
    g.bench_function("1 s at 48 kHz, engine + wind + 32 positional", |b| {
        b.iter(|| {
            one_second(&mut m, t, &mut buf);
            // The same ten seconds over and over: every source stays in earshot.
            t = (t + 1.0) % 10.0;
        });
    });
    let s = m.stats();
    assert!(
        s.sounding == SOURCES as usize && s.sources == SOURCES as usize,
        "{s:?}"
    );

    // Through the device's path.
    let card = Card::default();
    let out = AudioOutput::with_opener(card.clone());
    while !matches!(out.status(), OutputStatus::Playing(_)) {
        std::thread::sleep(Duration::from_millis(5));
    }
    out.set_own(own());
    out.set_own_engine(Some(loops()));
    let ids: Vec<SourceId> = (0..SOURCES)
        .map(|i| {
            out.spawn(Positional {
                sound: sound(i),
                bus: Bus::Engine,
                looping: true,
                falloff: Falloff::AIRCRAFT,
                emitter: emitter(i, 0.0),
            })
        })
        .collect();
    let mut t = 0.0;
    let pull = |t0: f64| {
        let mut guard = card.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(src) = guard.as_mut() else {
            panic!("not playing")
        };
        for f in 0..60 {
            let t = t0 + f64::from(f) / 60.0;
            out.set_listener(Listener {
                position: DVec3::new(0.0, 0.0, -200.0 * t),
                velocity: DVec3::new(0.0, 0.0, -200.0),
                ..Listener::default()
            });
            for (i, id) in ids.iter().enumerate() {
                out.update(*id, emitter(i as u32, t));
            }
            out.tick(Duration::from_secs_f64(t));
            let mut acc = 0.0f32;
            for s in src.by_ref().take(2 * FRAMES_PER_UPDATE) {
                acc += s;
            }
            black_box(acc);
        }
    };
    g.bench_function("1 s at 48 kHz through MixSource (device path)", |b| {
        b.iter(|| {
            pull(t);
            t = (t + 1.0) % 10.0;
        });
    });
    g.finish();

    // The same, as a share of real time (one line each, for the closing note): wall time, and
    // the thread's own CPU time where Linux tells it (a loaded machine inflates the first).
    let mut m = Mixer::new(RATE);
    m.set_own(own());
    spawn_all(&mut |c| m.apply(c));
    let share = |f: &mut dyn FnMut(f64)| {
        let (start, cpu) = (Instant::now(), thread_cpu());
        for s in 0..10 {
            f(f64::from(s));
        }
        let wall = start.elapsed().as_secs_f64() / 10.0;
        let cpu = cpu.zip(thread_cpu()).map(|(a, b)| (b - a) / 10.0);
        (wall, cpu)
    };
    let mixer = share(&mut |t| one_second(&mut m, t, &mut buf));
    let path = share(&mut |t| pull(t));
    let pct = |(wall, cpu): (f64, Option<f64>)| {
        format!(
            "{:.2} % wall, {} on-CPU",
            wall * 100.0,
            cpu.map_or("?".into(), |c| format!("{:.2} %", c * 100.0))
        )
    };
    println!(
        "audio thread share of one core (engine + wind + buffet + {SOURCES} positional, 48 kHz stereo, 10 s): mixer {}; through MixSource {}",
        pct(mixer),
        pct(path)
    );
    println!(
        "dropped commands: {}; mixer stats after the run: {:?}",
        out.dropped_commands(),
        out.stats()
    );
}

/// This thread's time on a CPU so far, seconds (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

criterion_group!(benches, bench);
criterion_main!(benches);
