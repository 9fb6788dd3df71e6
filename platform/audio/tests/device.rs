//! The output against a device that is absent, appears, vanishes and stalls — a test opener
//! stands in for the sound card ([`fl_audio::DeviceOpener`]), and the log is captured. The game
//! runs silently with no device and logs it once however often it looks again; it looks every
//! two seconds of *its* time (the time it hands to `tick`); a device that appears plays the
//! mix the game has been steering all along; one that vanishes or stops pulling samples is one
//! more line, and is picked up again.
//!
//! One test in this file: the log capture is process-wide.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fl_audio::{
    AudioDevice, AudioOutput, Bus, Clip, DeviceErrorCallback, DeviceInfo, DeviceOpener,
    EngineLoops, EngineParams, MixSource, OutputStatus, OwnAircraft,
};

#[derive(Default)]
struct Card {
    present: bool,
    attempts: u32,
    playing: Option<MixSource>,
    on_error: Option<DeviceErrorCallback>,
}

#[derive(Clone, Default)]
struct TestOpener(Arc<Mutex<Card>>);

struct TestDevice(Arc<Mutex<Card>>);

impl DeviceOpener for TestOpener {
    fn open(&mut self, on_error: DeviceErrorCallback) -> Result<Box<dyn AudioDevice>, String> {
        let mut card = self.0.lock().unwrap_or_else(|e| e.into_inner());
        card.attempts += 1;
        if !card.present {
            return Err("no card in the test machine".into());
        }
        card.on_error = Some(on_error);
        Ok(Box::new(TestDevice(self.0.clone())))
    }
}

impl AudioDevice for TestDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: "test card".into(),
            sample_rate: 44_100,
            channels: 2,
            period_frames: Some(256),
        }
    }

    fn play(&mut self, source: MixSource) -> Result<(), String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).playing = Some(source);
        Ok(())
    }
}

impl Drop for TestDevice {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).playing = None;
    }
}

impl TestOpener {
    fn card(&self) -> std::sync::MutexGuard<'_, Card> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the card plays next (stereo), as its callback would pull it.
    fn pull(&self, frames: usize) -> Option<Vec<f32>> {
        let mut card = self.card();
        let src = card.playing.as_mut()?;
        Some(src.by_ref().take(2 * frames).collect())
    }
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn lines(&self, level: &str) -> Vec<String> {
        let text =
            String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
        text.lines()
            .filter(|l| l.contains(level) && l.contains("fl_audio"))
            .map(str::to_owned)
            .collect()
    }
}

/// Waits (bounded, not a timing assertion) for the device thread to get somewhere.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..1_000 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the device thread never got to: {what}");
}

fn rms(s: &[f32]) -> f32 {
    (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
}

fn tone(hz: f32) -> Clip {
    let v = (0..44_100)
        .map(|i| 0.5 * (std::f32::consts::TAU * hz * i as f32 / 44_100.0).sin())
        .collect();
    Clip::new(44_100, v).unwrap_or_else(|| panic!("clip"))
}

/// The game's frames from `from` for `secs` seconds at 60 Hz, each ending in a `tick`; a
/// playing card pulls a frame's worth of samples in between, unless it is `stuck`.
fn frames(
    out: &AudioOutput,
    card: &TestOpener,
    from: Duration,
    secs: f64,
    stuck: bool,
) -> Duration {
    let n = (secs * 60.0) as u32;
    let mut t = from;
    for _ in 0..n {
        t += Duration::from_secs_f64(1.0 / 60.0);
        if !stuck {
            card.pull(735);
        }
        out.tick(t);
    }
    t
}

#[test]
fn no_device_is_silent_logs_once_and_a_device_is_picked_up_when_it_appears() {
    let log = Log::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap_or_else(|e| panic!("{e}"));

    let card = TestOpener::default();
    let out = AudioOutput::with_opener(card.clone());
    wait_for("the first attempt", || {
        out.status() != OutputStatus::Opening
    });
    assert!(matches!(out.status(), OutputStatus::Silent(ref r) if r.contains("no card")));

    // The game steers its sound as usual meanwhile: nothing fails, nothing blocks.
    out.set_own_engine(Some(EngineLoops {
        idle: tone(110.0),
        mil: tone(200.0),
        afterburner: None,
    }));
    out.set_own(OwnAircraft {
        present: true,
        engine: EngineParams {
            rpm: 0.8,
            throttle: 0.8,
            afterburner: 0.0,
        },
        dynamic_pressure_pa: 15_000.0,
        ..OwnAircraft::default()
    });
    out.set_bus_volume(Bus::Music, 0.5);
    out.play_music(Some(&tone(300.0)), true);
    out.play_radio_clip(&tone(1_000.0));
    assert!(!out.play_radio("wingman.copy"), "no bank set");

    // 20 s of the game's time: a retry every 2 s from the first frame — 10 retries after the
    // first attempt — and still one warning.
    let t = frames(&out, &card, Duration::ZERO, 20.0, false);
    wait_for("eleven attempts", || card.card().attempts == 11);
    assert_eq!(out.open_attempts(), 11);
    assert_eq!(out.warnings_logged(), 1);
    let warnings = log.lines("WARN");
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(warnings[0].contains("no audio output") && warnings[0].contains("runs silently"));
    // The retries say so only at debug level.
    assert!(
        log.lines("DEBUG")
            .iter()
            .any(|l| l.contains("still no audio output"))
    );

    // A card is plugged in: within one retry period it plays the mix the game set up.
    card.card().present = true;
    let t = frames(&out, &card, t, 2.1, false);
    wait_for("the card to open", || {
        matches!(out.status(), OutputStatus::Playing(_))
    });
    let sound = card
        .pull(44_100)
        .unwrap_or_else(|| panic!("the card plays nothing"));
    assert_eq!(sound.len(), 2 * 44_100);
    println!("after the card appeared: RMS {:.3}", rms(&sound[44_100..]));
    assert!(rms(&sound[44_100..]) > 0.05);
    assert!(sound.iter().all(|v| v.is_finite() && v.abs() <= 1.0));
    assert!(
        log.lines("INFO")
            .iter()
            .any(|l| l.contains("audio output resumed") && l.contains("test card"))
    );

    // The card is pulled out mid-flight: one more line, silence, and later back again.
    let fail = card
        .card()
        .on_error
        .clone()
        .unwrap_or_else(|| panic!("no error callback"));
    fail("the device was unplugged".into());
    wait_for("the loss", || {
        matches!(out.status(), OutputStatus::Silent(_))
    });
    assert!(card.card().playing.is_none(), "the stream was not closed");
    assert_eq!(out.warnings_logged(), 2, "{:#?}", log.lines("WARN"));
    let warnings = log.lines("WARN");
    assert!(warnings[1].contains("lost") && warnings[1].contains("unplugged"));
    // A late error from the old stream changes nothing.
    fail("a stale error".into());
    let t = frames(&out, &card, t, 2.1, false);
    wait_for("the card to reopen", || {
        matches!(out.status(), OutputStatus::Playing(_))
    });
    assert!(card.pull(4_410).is_some_and(|s| rms(&s) > 0.01));

    // A card that stops pulling samples without a word: taken as gone after STALL_AFTER, and
    // (the card still being there) opened afresh at the next retry.
    let opened = card.card().attempts;
    frames(&out, &card, t, 3.0, true);
    wait_for("the stall", || out.warnings_logged() == 3);
    assert!(log.lines("WARN")[2].contains("stopped asking for samples"));
    // The game's next frames look again.
    frames(&out, &card, t + Duration::from_secs(3), 0.1, false);
    wait_for("the fresh open", || {
        card.card().attempts > opened && matches!(out.status(), OutputStatus::Playing(_))
    });
    assert_eq!(log.lines("WARN").len(), 3);
    drop(out);
}
