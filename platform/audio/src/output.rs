//! The sound card, through rodio: [`AudioOutput::open`] opens the default output device on a
//! thread of its own (the game never waits for it), asking for a short buffer — two periods of
//! [`TARGET_PERIOD`] (about 23 ms at 44.1 kHz) instead of rodio's ~100 ms — and falling back to
//! the device's own buffer when it refuses. No device, a device that cannot be opened, or one
//! that fails later: the game runs silently, says so once in the log, and never fails for it.
//!
//! The audio callback pulls samples from [`EngineSource`], which renders the engine mixer a
//! block at a time and reads the game's parameters (atomics) between blocks: the game thread
//! never blocks the audio thread and the reverse.
//!
//! Owns the device, its thread and the sources playing on it. Must not: decide what plays or
//! how loud the engine is (`engine`), or retry a missing device in a loop (issue 12 picks a
//! device up again when one appears).

use std::num::NonZero;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rodio::cpal::traits::{DeviceTrait, HostTrait};
use rodio::cpal::{BufferSize, SupportedBufferSize};
use rodio::{DeviceSinkBuilder, MixerDeviceSink, Source};

use crate::control::{AtomicF32, EngineControl, EngineShared};
use crate::engine::{EngineLoops, EngineSound, unit};

/// The period asked of the device; the buffer is two periods.
pub const TARGET_PERIOD: Duration = Duration::from_millis(10);
/// The master volume before the game sets one.
pub const DEFAULT_MASTER_VOLUME: f32 = 0.8;
/// Samples rendered between two reads of the game's parameters (≈ 3 ms at 44.1 kHz).
const BLOCK: usize = 128;

/// The output device a sound plays on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name.
    pub name: String,
    /// Samples per second.
    pub sample_rate: u32,
    /// Channels (the engine is mono, played on all of them).
    pub channels: u16,
    /// Frames per period when a fixed one was granted; `None`: the device's default.
    pub period_frames: Option<u32>,
}

impl DeviceInfo {
    /// The output buffer's length (two periods), when known.
    pub fn latency(&self) -> Option<Duration> {
        self.period_frames
            .map(|p| Duration::from_secs_f64(2.0 * f64::from(p) / f64::from(self.sample_rate)))
    }
}

/// Where the output stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputStatus {
    /// The device is being opened.
    Opening,
    /// Sound plays on this device.
    Playing(DeviceInfo),
    /// No sound, and why (no device, it failed): the game runs silently.
    Silent(String),
}

#[derive(Debug)]
struct Shared {
    status: Mutex<OutputStatus>,
    master: AtomicF32,
    /// Set once the device has failed (so that is said once).
    failed: AtomicBool,
}

impl Shared {
    fn set_status(&self, s: OutputStatus) {
        if let Ok(mut g) = self.status.lock() {
            *g = s;
        }
    }

    /// The device failed while playing: log once, go silent.
    fn device_failed(&self, reason: String) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            tracing::warn!("audio output failed ({reason}); the game continues silently");
            self.set_status(OutputStatus::Silent(reason));
        }
    }
}

enum Command {
    Engine {
        loops: EngineLoops,
        control: Arc<EngineShared>,
    },
}

/// The game's sound output. Dropping it closes the device.
#[derive(Debug)]
pub struct AudioOutput {
    tx: Option<Sender<Command>>,
    shared: Arc<Shared>,
}

impl AudioOutput {
    /// Opens the default output device on the `fl-audio` thread; returns at once.
    pub fn open() -> AudioOutput {
        let shared = Arc::new(Shared {
            status: Mutex::new(OutputStatus::Opening),
            master: AtomicF32::new(DEFAULT_MASTER_VOLUME),
            failed: AtomicBool::new(false),
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("fl-audio".into()).spawn({
            let shared = shared.clone();
            move || run(&shared, &rx)
        });
        match spawned {
            Ok(_) => AudioOutput {
                tx: Some(tx),
                shared,
            },
            Err(e) => AudioOutput::silent(&format!("cannot start the audio thread: {e}")),
        }
    }

    /// An output that plays nothing (no device wanted, or none to be had), logging why once.
    pub fn silent(reason: &str) -> AudioOutput {
        tracing::warn!("no audio output ({reason}); the game runs silently");
        AudioOutput {
            tx: None,
            shared: Arc::new(Shared {
                status: Mutex::new(OutputStatus::Silent(reason.to_owned())),
                master: AtomicF32::new(DEFAULT_MASTER_VOLUME),
                failed: AtomicBool::new(false),
            }),
        }
    }

    /// Where the output stands.
    pub fn status(&self) -> OutputStatus {
        self.shared.status.lock().map_or_else(
            |_| OutputStatus::Silent("status lost".into()),
            |s| s.clone(),
        )
    }

    /// The master volume, 0 … 1 (glides; applies to every sound).
    pub fn set_master_volume(&self, v: f32) {
        self.shared.master.set(unit(v));
    }

    /// The master volume.
    pub fn master_volume(&self) -> f32 {
        self.shared.master.get()
    }

    /// Starts an engine sound (idle, gain fading in) and returns the game's handle on it. With no
    /// device the handle works and nothing is heard.
    pub fn play_engine(&self, loops: EngineLoops) -> EngineControl {
        let control = EngineControl::new();
        if let Some(tx) = &self.tx {
            // A closed channel means the audio thread is gone: silence, as documented.
            let _ = tx.send(Command::Engine {
                loops,
                control: control.shared.clone(),
            });
        }
        control
    }
}

/// The `fl-audio` thread: opens the device, then adds the sources the game asks for until the
/// output is dropped.
fn run(shared: &Arc<Shared>, rx: &Receiver<Command>) {
    // alsa-lib writes what it finds wrong (no card, …) to stderr; on this thread it goes to a
    // buffer instead, and into the log at debug level.
    #[cfg(target_os = "linux")]
    let alsa_said = alsa::Output::local_error_handler().ok();
    let opened = open_device(shared);
    #[cfg(target_os = "linux")]
    if let Some(out) = alsa_said {
        let text = out.borrow().to_string();
        if !text.trim().is_empty() {
            tracing::debug!("alsa-lib: {}", text.trim().replace('\n', "; "));
        }
    }
    let sink = match opened {
        Ok((sink, info)) => {
            tracing::info!(
                device = %info.name,
                rate = info.sample_rate,
                channels = info.channels,
                latency_ms = info.latency().map(|d| d.as_secs_f64() * 1e3),
                "audio output opened"
            );
            shared.set_status(OutputStatus::Playing(info));
            Some(sink)
        }
        Err(reason) => {
            tracing::warn!("no audio output ({reason}); the game runs silently");
            shared.set_status(OutputStatus::Silent(reason));
            None
        }
    };
    while let Ok(cmd) = rx.recv() {
        let Some(sink) = &sink else { continue };
        match cmd {
            Command::Engine { loops, control } => {
                let rate = sink.config().sample_rate();
                let sound = EngineSound::new(loops, rate.get());
                sink.mixer()
                    .add(EngineSource::new(sound, control, shared.clone()));
            }
        }
    }
}

/// Frames per period for [`TARGET_PERIOD`] at `rate`: a power of two, within what the device
/// supports.
pub fn period_frames(rate: u32, supported: &SupportedBufferSize) -> u32 {
    let want = (f64::from(rate) * TARGET_PERIOD.as_secs_f64()).max(16.0);
    let pow2 = 2f64.powf(want.log2().round()) as u32;
    match *supported {
        SupportedBufferSize::Range { min, max } if min <= max => pow2.clamp(min.max(1), max),
        _ => pow2,
    }
}

fn open_device(shared: &Arc<Shared>) -> Result<(MixerDeviceSink, DeviceInfo), String> {
    let host = rodio::cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or_else(|| "no output device".to_owned())?;
    let (name, driver) = match device.description() {
        Ok(d) => (d.name().to_owned(), d.driver().map(str::to_owned)),
        Err(_) => ("unnamed device".to_owned(), None),
    };
    if driver.as_deref() == Some("null") {
        // ALSA's null device swallows samples as fast as they come: a core burnt for nothing.
        return Err(format!("the default output {name:?} is a null device"));
    }
    let config = device
        .default_output_config()
        .map_err(|e| format!("{name}: {e}"))?;
    let period = period_frames(config.sample_rate(), config.buffer_size());
    let on_error = {
        let shared = shared.clone();
        move |e: rodio::cpal::Error| shared.device_failed(e.to_string())
    };
    let short = DeviceSinkBuilder::from_device(device.clone())
        .map_err(|e| format!("{name}: {e}"))?
        .with_buffer_size(BufferSize::Fixed(period))
        .with_error_callback(on_error.clone())
        .open_stream();
    let mut sink = match short {
        Ok(s) => s,
        Err(first) => {
            tracing::debug!(
                "{name}: a {period}-frame period was refused ({first}); trying the device's own"
            );
            DeviceSinkBuilder::from_device(device)
                .map_err(|e| format!("{name}: {e}"))?
                .with_error_callback(on_error)
                .open_stream()
                .map_err(|e| format!("{name}: {e}"))?
        }
    };
    sink.log_on_drop(false);
    let c = sink.config();
    let info = DeviceInfo {
        name,
        sample_rate: c.sample_rate().get(),
        channels: c.channel_count().get(),
        period_frames: match c.buffer_size() {
            BufferSize::Fixed(n) => Some(*n),
            BufferSize::Default => None,
        },
    };
    Ok((sink, info))
}

/// The engine mixer as a rodio source: mono at the output rate, rendered [`BLOCK`] samples at
/// a time; the game's parameters are read between blocks. Ends (and leaves rodio's mixer) once
/// its control is stopped and it has faded out.
pub struct EngineSource {
    sound: EngineSound,
    control: Arc<EngineShared>,
    shared: Arc<Shared>,
    block: [f32; BLOCK],
    at: usize,
}

impl std::fmt::Debug for EngineSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSource")
            .field("rate", &self.sound.out_rate())
            .finish_non_exhaustive()
    }
}

impl EngineSource {
    fn new(sound: EngineSound, control: Arc<EngineShared>, shared: Arc<Shared>) -> EngineSource {
        EngineSource {
            sound,
            control,
            shared,
            block: [0.0; BLOCK],
            at: BLOCK,
        }
    }

    /// Renders the next block; `false` once stopped and silent.
    fn refill(&mut self) -> bool {
        let c = &self.control;
        if c.stopped() {
            if self.sound.is_silent() {
                return false;
            }
            self.sound.set_gain(0.0);
        } else {
            self.sound.set(c.params());
            let gain = if c.muted() {
                0.0
            } else {
                self.shared.master.get()
            };
            self.sound.set_gain(gain);
        }
        self.sound.render(&mut self.block);
        self.at = 0;
        true
    }
}

impl Iterator for EngineSource {
    type Item = f32;

    fn next(&mut self) -> Option<f32> {
        if self.at == BLOCK && !self.refill() {
            return None;
        }
        let v = self.block[self.at];
        self.at += 1;
        Some(v)
    }
}

impl Source for EngineSource {
    fn current_span_len(&self) -> Option<usize> {
        None
    }

    fn channels(&self) -> rodio::ChannelCount {
        NonZero::<u16>::MIN
    }

    fn sample_rate(&self) -> rodio::SampleRate {
        NonZero::new(self.sound.out_rate()).unwrap_or(NonZero::<u32>::MIN)
    }

    fn total_duration(&self) -> Option<Duration> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineParams;
    use crate::engine::tests::{RATE, rms, tones};

    fn source(control: &EngineControl, master: f32) -> EngineSource {
        let shared = Arc::new(Shared {
            status: Mutex::new(OutputStatus::Opening),
            master: AtomicF32::new(master),
            failed: AtomicBool::new(false),
        });
        EngineSource::new(
            EngineSound::new(tones(), RATE),
            control.shared.clone(),
            shared,
        )
    }

    fn pull(s: &mut EngineSource, n: usize) -> Vec<f32> {
        s.by_ref().take(n).collect()
    }

    #[test]
    fn the_source_follows_the_control_and_ends_after_a_stop() {
        let control = EngineControl::new();
        let mut src = source(&control, 1.0);
        assert_eq!(src.channels().get(), 1);
        assert_eq!(src.sample_rate().get(), RATE);
        control.set(EngineParams {
            rpm: 1.0,
            throttle: 1.0,
            afterburner: 0.0,
        });
        let loud = pull(&mut src, RATE as usize);
        assert_eq!(loud.len(), RATE as usize);
        assert!(rms(&loud[RATE as usize / 2..]) > 0.3);
        // Muted: silent after the glide, and still running.
        control.set_muted(true);
        let muted = pull(&mut src, RATE as usize / 2);
        assert!(rms(&muted[RATE as usize / 4..]) < 1e-4);
        control.set_muted(false);
        let back = pull(&mut src, RATE as usize / 2);
        assert!(rms(&back[RATE as usize / 4..]) > 0.3);
        // Dropped: fades out and ends.
        drop(control);
        let tail = pull(&mut src, 10 * RATE as usize);
        assert!(tail.len() < RATE as usize / 2, "{}", tail.len());
        assert!(tail.last().is_some_and(|v| v.abs() < 1e-3));
        assert!(src.next().is_none());
    }

    #[test]
    fn the_master_volume_scales_the_engine() {
        let (a, b) = (EngineControl::new(), EngineControl::new());
        for c in [&a, &b] {
            c.set(EngineParams {
                rpm: 0.5,
                throttle: 0.5,
                afterburner: 0.0,
            });
        }
        let full = pull(&mut source(&a, 1.0), RATE as usize);
        let half = pull(&mut source(&b, 0.5), RATE as usize);
        let r = rms(&half[RATE as usize / 2..]) / rms(&full[RATE as usize / 2..]);
        assert!((r - 0.5).abs() < 0.01, "{r}");
    }

    #[test]
    fn a_silent_output_takes_every_call() {
        let out = AudioOutput::silent("tests");
        assert_eq!(out.status(), OutputStatus::Silent("tests".into()));
        out.set_master_volume(f32::NAN);
        assert_eq!(out.master_volume(), 0.0);
        out.set_master_volume(2.0);
        assert_eq!(out.master_volume(), 1.0);
        let engine = out.play_engine(tones());
        engine.set(EngineParams {
            rpm: f32::INFINITY,
            throttle: -1.0,
            afterburner: f32::NAN,
        });
        assert_eq!(
            engine.params(),
            EngineParams {
                rpm: 1.0,
                throttle: 0.0,
                afterburner: 0.0
            }
        );
        engine.set_muted(true);
        assert!(engine.is_muted());
    }

    #[test]
    fn periods_are_short_powers_of_two_the_device_allows() {
        assert_eq!(period_frames(44_100, &SupportedBufferSize::Unknown), 512);
        assert_eq!(period_frames(48_000, &SupportedBufferSize::Unknown), 512);
        assert_eq!(period_frames(96_000, &SupportedBufferSize::Unknown), 1024);
        let r = SupportedBufferSize::Range {
            min: 1024,
            max: 4096,
        };
        assert_eq!(period_frames(48_000, &r), 1024);
        let r = SupportedBufferSize::Range { min: 16, max: 256 };
        assert_eq!(period_frames(48_000, &r), 256);
        let info = DeviceInfo {
            name: "x".into(),
            sample_rate: 48_000,
            channels: 2,
            period_frames: Some(512),
        };
        let ms = info.latency().map(|d| d.as_secs_f64() * 1e3);
        assert!(ms.is_some_and(|ms| (ms - 21.33).abs() < 0.01), "{ms:?}");
    }

    /// The real default device: on a machine without a sound card (CI, this test's usual home)
    /// the output goes silent with a reason and every call still works; with one, it plays.
    #[test]
    fn opening_the_real_device_never_fails_the_game() {
        let out = AudioOutput::open();
        let mut status = out.status();
        // Bounded wait for the audio thread (not a timing assertion).
        for _ in 0..600 {
            if status != OutputStatus::Opening {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            status = out.status();
        }
        println!("audio output: {status:?}");
        match &status {
            OutputStatus::Playing(info) => {
                assert!(info.sample_rate > 0 && info.channels > 0);
            }
            OutputStatus::Silent(reason) => assert!(!reason.is_empty()),
            OutputStatus::Opening => panic!("the audio thread never answered"),
        }
        let engine = out.play_engine(tones());
        engine.set(EngineParams {
            rpm: 0.3,
            throttle: 0.5,
            afterburner: 0.0,
        });
        engine.set_muted(true);
        drop(engine);
        drop(out);
    }
}
