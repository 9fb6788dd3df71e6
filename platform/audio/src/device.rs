//! Opening a sound card, behind a seam: [`DeviceOpener`] opens a device that then plays one
//! source; [`RodioOpener`] is the real one (the default output device through rodio and cpal),
//! and tests put in their own to make the device absent, fail, vanish and come back.
//!
//! The real opener asks for a short buffer — two periods of [`TARGET_PERIOD`] (about 21 ms at
//! 48 kHz) instead of rodio's ~100 ms — and falls back to the device's own when it refuses. It
//! refuses ALSA's null device (it swallows samples unpaced, burning a core), and keeps
//! alsa-lib's complaints (no card, …) off stderr: a retry every two seconds must not fill the
//! terminal.
//!
//! Owns the device opening and its buffer size. Must not: mix (`mixer`), retry (`output`
//! decides when), or log above debug level (`output` says what the player needs to know once).

use std::sync::Arc;
use std::time::Duration;

use rodio::cpal::traits::{DeviceTrait, HostTrait};
use rodio::cpal::{BufferSize, SupportedBufferSize};
use rodio::{DeviceSinkBuilder, MixerDeviceSink};

use crate::output::MixSource;

/// The period asked of the device; the buffer is two periods.
pub const TARGET_PERIOD: Duration = Duration::from_millis(10);

/// The output device sound plays on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name.
    pub name: String,
    /// Samples per second.
    pub sample_rate: u32,
    /// Channels (the mix is stereo; rodio spreads it over more).
    pub channels: u16,
    /// Frames per period when a fixed one was granted; `None`: the device's default.
    pub period_frames: Option<u32>,
}

impl DeviceInfo {
    /// The output buffer's length (two periods), when known.
    pub fn latency(&self) -> Option<Duration> {
        self.period_frames.map(|p| {
            Duration::from_secs_f64(2.0 * f64::from(p) / f64::from(self.sample_rate.max(1)))
        })
    }
}

/// Called (from any thread) when an open device fails while playing; the text says why.
pub type DeviceErrorCallback = Arc<dyn Fn(String) + Send + Sync>;

/// An open device. Dropping it stops the sound.
pub trait AudioDevice {
    /// What was opened.
    fn info(&self) -> DeviceInfo;
    /// Plays `source` (stereo at `info().sample_rate`) until dropped.
    fn play(&mut self, source: MixSource) -> Result<(), String>;
}

/// Opens devices; lives on the output's device thread.
pub trait DeviceOpener: Send + 'static {
    /// Opens one; `on_error` is for a failure while it plays. `Err` says why there is none.
    fn open(&mut self, on_error: DeviceErrorCallback) -> Result<Box<dyn AudioDevice>, String>;
}

/// The default output device, through rodio.
#[derive(Debug, Default, Clone, Copy)]
pub struct RodioOpener;

struct RodioDevice {
    sink: MixerDeviceSink,
    info: DeviceInfo,
}

impl AudioDevice for RodioDevice {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn play(&mut self, source: MixSource) -> Result<(), String> {
        self.sink.mixer().add(source);
        Ok(())
    }
}

impl DeviceOpener for RodioOpener {
    fn open(&mut self, on_error: DeviceErrorCallback) -> Result<Box<dyn AudioDevice>, String> {
        // alsa-lib writes what it finds wrong to stderr; on this thread, for this attempt, it goes
        // to a buffer instead, and into the log at debug level.
        #[cfg(target_os = "linux")]
        let alsa_said = alsa::Output::local_error_handler().ok();
        let opened = open_default(on_error);
        #[cfg(target_os = "linux")]
        if let Some(out) = alsa_said {
            let text = out.borrow().to_string();
            if !text.trim().is_empty() {
                tracing::debug!("alsa-lib: {}", text.trim().replace('\n', "; "));
            }
        }
        opened.map(|d| Box::new(d) as Box<dyn AudioDevice>)
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

fn open_default(on_error: DeviceErrorCallback) -> Result<RodioDevice, String> {
    let host = rodio::cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or_else(|| "no output device".to_owned())?;
    let (name, driver) = match device.description() {
        Ok(d) => (d.name().to_owned(), d.driver().map(str::to_owned)),
        Err(_) => ("unnamed device".to_owned(), None),
    };
    if driver.as_deref() == Some("null") {
        return Err(format!("the default output {name:?} is a null device"));
    }
    let config = device
        .default_output_config()
        .map_err(|e| format!("{name}: {e}"))?;
    let period = period_frames(config.sample_rate(), config.buffer_size());
    let callback = {
        let on_error = on_error.clone();
        move |e: rodio::cpal::Error| on_error(e.to_string())
    };
    let short = DeviceSinkBuilder::from_device(device.clone())
        .map_err(|e| format!("{name}: {e}"))?
        .with_buffer_size(BufferSize::Fixed(period))
        .with_error_callback(callback.clone())
        .open_stream();
    let mut sink = match short {
        Ok(s) => s,
        Err(first) => {
            tracing::debug!(
                "{name}: a {period}-frame period was refused ({first}); trying the device's own"
            );
            DeviceSinkBuilder::from_device(device)
                .map_err(|e| format!("{name}: {e}"))?
                .with_error_callback(callback)
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
    Ok(RodioDevice { sink, info })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
