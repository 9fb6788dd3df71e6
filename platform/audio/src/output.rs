//! The game's sound output: [`AudioOutput`] is the game thread's handle, the mixer runs wherever
//! the device pulls samples, and a device thread (`fl-audio`) opens and re-opens the device.
//!
//! - **Game thread → mix.** Continuous values (bus volumes, focus, the own aircraft) go into
//!   atomics (`control`); events (sources, one-shots, music, radio, the listener) go into a
//!   bounded channel the mix drains once per block. Nothing the game calls blocks or waits for
//!   the audio thread. When the channel is full, moves (source updates, the listener — the next
//!   frame sends newer ones) are dropped and everything else waits in a bounded queue on the
//!   game side, sent first on the next call.
//! - **Audio thread.** [`MixSource`] renders the mixer 128 frames at a time; it takes the
//!   mixer's lock with `try_lock` only (never waits: if it were held it would play a block of
//!   silence — and nothing holds it while a device plays). Clips the mix lets go of go back
//!   over a channel and are freed on the game thread.
//! - **No device, or one that vanishes.** The output goes silent and logs one warning line for
//!   it. [`AudioOutput::tick`], which the game calls every frame with its own time, asks the
//!   device thread to try again every [`RETRY_EVERY`]; it also drives the silent mix forward
//!   (one-shots end, music moves on) and notices a device that stopped pulling samples
//!   without saying so ([`STALL_AFTER`]). A device that comes back resumes the very same mix.
//!   Never fatal.
//!
//! Owns the threads, the channels and the retry policy. Must not: open devices itself (`device`),
//! mix (`mixer`), or block the game thread or the audio thread.

use std::collections::VecDeque;
use std::num::NonZero;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;

use rodio::Source;

use crate::bank::SoundBank;
use crate::clip::Clip;
use crate::control::Shared;
use crate::device::{AudioDevice, DeviceErrorCallback, DeviceInfo, DeviceOpener, RodioOpener};
use crate::engine::EngineLoops;
use crate::mixer::{Bus, Command, Mixer, MixerStats, OwnAircraft, Positional, SourceId};
use crate::spatial::{Emitter, Falloff, Listener};

/// How often a missing device is looked for again (game time).
pub const RETRY_EVERY: Duration = Duration::from_secs(2);
/// A device that has pulled no samples for this long (game time) is taken as gone.
pub const STALL_AFTER: Duration = Duration::from_secs(2);
/// Commands in flight to the mix.
pub const COMMAND_CAPACITY: usize = 1024;
/// Commands waiting on the game side while the channel is full; beyond, they are dropped.
pub const PENDING_CAPACITY: usize = 4096;
/// The rate the mix runs at before a device says its own.
pub const DEFAULT_RATE: u32 = 48_000;
/// Frames rendered per pull of the device.
const PULL_FRAMES: usize = 128;
/// Commands applied per pull at most (bounds the audio callback's time).
const COMMANDS_PER_PULL: usize = 256;
/// Clips on their way back to be freed.
const TRASH_CAPACITY: usize = 256;

/// Where the output stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputStatus {
    /// The device is being opened.
    Opening,
    /// Sound plays on this device.
    Playing(DeviceInfo),
    /// No sound, and why (no device, it failed, it vanished): the game runs silently.
    Silent(String),
}

/// The audio side: the mixer and the end of the command channel.
#[derive(Debug)]
pub(crate) struct Rt {
    mixer: Mixer,
    rx: Receiver<Command>,
    shared: Arc<Shared>,
    trash: SyncSender<Clip>,
}

impl Rt {
    fn sync(&mut self, limit: usize) {
        self.shared.apply_to(&mut self.mixer);
        for _ in 0..limit {
            match self.rx.try_recv() {
                Ok(c) => self.mixer.apply(c),
                Err(_) => break,
            }
        }
    }

    fn retire(&mut self) {
        let trash = &self.trash;
        // A full trash channel frees the clip here: bounded beats elsewhere.
        self.mixer.take_retired(|c| {
            let _ = trash.try_send(c);
        });
    }

    /// Renders `out` (interleaved stereo): the audio callback's work.
    fn pull(&mut self, out: &mut [f32]) {
        self.sync(COMMANDS_PER_PULL);
        self.mixer.render(out);
        self.retire();
        self.shared
            .rendered
            .fetch_add(out.len() as u64 / 2, Ordering::Relaxed);
    }

    /// No device: applies what the game asked and moves on by `frames` in silence.
    fn idle(&mut self, frames: u64) {
        self.sync(COMMAND_CAPACITY);
        self.mixer.skip(frames);
        self.retire();
    }
}

/// The mix as a rodio source: stereo at the device's rate, never ending.
pub struct MixSource {
    rt: Arc<Mutex<Rt>>,
    rate: u32,
    buf: [f32; 2 * PULL_FRAMES],
    at: usize,
}

impl std::fmt::Debug for MixSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MixSource")
            .field("rate", &self.rate)
            .finish_non_exhaustive()
    }
}

impl MixSource {
    fn new(rt: Arc<Mutex<Rt>>, rate: u32) -> MixSource {
        MixSource {
            rt,
            rate,
            buf: [0.0; 2 * PULL_FRAMES],
            at: 2 * PULL_FRAMES,
        }
    }

    fn refill(&mut self) {
        match self.rt.try_lock() {
            Ok(mut rt) => rt.pull(&mut self.buf),
            // Held (a device being swapped) or poisoned: a block of silence, never a wait.
            Err(TryLockError::WouldBlock | TryLockError::Poisoned(_)) => self.buf.fill(0.0),
        }
        self.at = 0;
    }
}

impl Iterator for MixSource {
    type Item = f32;

    fn next(&mut self) -> Option<f32> {
        if self.at == self.buf.len() {
            self.refill();
        }
        let v = self.buf[self.at];
        self.at += 1;
        Some(v)
    }
}

impl Source for MixSource {
    fn current_span_len(&self) -> Option<usize> {
        None
    }

    fn channels(&self) -> rodio::ChannelCount {
        NonZero::new(2).unwrap_or(NonZero::<u16>::MIN)
    }

    fn sample_rate(&self) -> rodio::SampleRate {
        NonZero::new(self.rate).unwrap_or(NonZero::<u32>::MIN)
    }

    fn total_duration(&self) -> Option<Duration> {
        None
    }
}

/// The device thread's state, shared with the game side.
#[derive(Debug)]
struct DeviceState {
    status: Mutex<OutputStatus>,
    /// Warning lines logged (the tests count them).
    warnings: AtomicU32,
    /// Devices opened.
    opens: AtomicU32,
    /// Attempts to open one.
    attempts: AtomicU32,
}

impl DeviceState {
    fn new(status: OutputStatus) -> DeviceState {
        DeviceState {
            status: Mutex::new(status),
            warnings: AtomicU32::new(0),
            opens: AtomicU32::new(0),
            attempts: AtomicU32::new(0),
        }
    }

    fn status(&self) -> OutputStatus {
        self.status.lock().map_or_else(
            |_| OutputStatus::Silent("status lost".into()),
            |s| s.clone(),
        )
    }

    fn set(&self, s: OutputStatus) {
        if let Ok(mut g) = self.status.lock() {
            *g = s;
        }
    }

    /// No sound now: one warning when this is news, debug lines for the retries after it.
    fn went_silent(&self, reason: String, lost: bool) {
        let already = matches!(self.status(), OutputStatus::Silent(_));
        if already {
            tracing::debug!("still no audio output ({reason})");
        } else {
            self.warnings.fetch_add(1, Ordering::Relaxed);
            if lost {
                tracing::warn!(
                    "audio output lost ({reason}); the game continues silently and picks a device up when one appears"
                );
            } else {
                tracing::warn!("no audio output ({reason}); the game runs silently");
            }
        }
        self.set(OutputStatus::Silent(reason));
    }

    fn playing(&self, info: DeviceInfo) {
        let again = self.opens.fetch_add(1, Ordering::Relaxed) > 0
            || self.warnings.load(Ordering::Relaxed) > 0;
        tracing::info!(
            device = %info.name,
            rate = info.sample_rate,
            channels = info.channels,
            latency_ms = info.latency().map(|d| d.as_secs_f64() * 1e3),
            "{}",
            if again { "audio output resumed" } else { "audio output opened" }
        );
        self.set(OutputStatus::Playing(info));
    }
}

enum DeviceMsg {
    Retry,
    Failed { generation: u64, reason: String },
    Stalled,
    Shutdown,
}

/// The game thread's side of the output.
#[derive(Debug, Default)]
struct GameSide {
    pending: VecDeque<Command>,
    last_tick: Option<Duration>,
    last_retry: Option<Duration>,
    /// Frames rendered when last seen to move, and when.
    progress: Option<(u64, Duration)>,
    dropped: u64,
    bank: Option<Arc<SoundBank>>,
}

/// The game's sound output. Dropping it closes the device.
#[derive(Debug)]
pub struct AudioOutput {
    shared: Arc<Shared>,
    state: Arc<DeviceState>,
    rt: Arc<Mutex<Rt>>,
    tx: SyncSender<Command>,
    trash: Receiver<Clip>,
    device: Option<Sender<DeviceMsg>>,
    next_id: AtomicU32,
    game: Mutex<GameSide>,
}

impl std::fmt::Debug for DeviceMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DeviceMsg::Retry => "Retry",
            DeviceMsg::Failed { .. } => "Failed",
            DeviceMsg::Stalled => "Stalled",
            DeviceMsg::Shutdown => "Shutdown",
        })
    }
}

impl AudioOutput {
    /// Opens the default output device on the `fl-audio` thread; returns at once.
    pub fn open() -> AudioOutput {
        AudioOutput::with_opener(RodioOpener)
    }

    /// Opens devices with `opener` (tests inject absent and failing devices here).
    pub fn with_opener(opener: impl DeviceOpener) -> AudioOutput {
        let mut out = AudioOutput::new(OutputStatus::Opening);
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new().name("fl-audio".into()).spawn({
            let (rt, state, tx) = (out.rt.clone(), out.state.clone(), tx.clone());
            move || device_thread(Box::new(opener), &rt, &state, &rx, &tx)
        });
        match spawned {
            Ok(_) => out.device = Some(tx),
            Err(e) => out
                .state
                .went_silent(format!("cannot start the audio thread: {e}"), false),
        }
        out
    }

    /// An output that plays nothing and never looks for a device (none wanted), logging why
    /// once. Every call works.
    pub fn silent(reason: &str) -> AudioOutput {
        let out = AudioOutput::new(OutputStatus::Opening);
        out.state.went_silent(reason.to_owned(), false);
        out
    }

    fn new(status: OutputStatus) -> AudioOutput {
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::sync_channel(COMMAND_CAPACITY);
        let (trash_tx, trash) = mpsc::sync_channel(TRASH_CAPACITY);
        AudioOutput {
            rt: Arc::new(Mutex::new(Rt {
                mixer: Mixer::new(DEFAULT_RATE),
                rx,
                shared: shared.clone(),
                trash: trash_tx,
            })),
            shared,
            state: Arc::new(DeviceState::new(status)),
            tx,
            trash,
            device: None,
            next_id: AtomicU32::new(1),
            game: Mutex::new(GameSide::default()),
        }
    }

    /// Where the output stands.
    pub fn status(&self) -> OutputStatus {
        self.state.status()
    }

    /// Warning lines logged about the device (no device, lost): one per outage.
    pub fn warnings_logged(&self) -> u32 {
        self.state.warnings.load(Ordering::Relaxed)
    }

    /// Attempts made to open a device.
    pub fn open_attempts(&self) -> u32 {
        self.state.attempts.load(Ordering::Relaxed)
    }

    /// Commands dropped because the mix could not keep up (moves, or a full queue).
    pub fn dropped_commands(&self) -> u64 {
        self.game.lock().map_or(0, |g| g.dropped)
    }

    /// The mixer's voice counters, when its lock is free this instant (it is, unless the audio
    /// thread is rendering).
    pub fn stats(&self) -> Option<MixerStats> {
        self.rt.try_lock().ok().map(|rt| rt.mixer.stats())
    }

    /// Once a frame, with the game's own time: sends what waited, frees what the mix let go
    /// of, and without a device looks for one every [`RETRY_EVERY`] while moving the silent
    /// mix on. Cheap; never blocks.
    pub fn tick(&self, now: Duration) {
        let Ok(mut g) = self.game.lock() else { return };
        let dt = g
            .last_tick
            .map_or(Duration::ZERO, |t| now.saturating_sub(t));
        g.last_tick = Some(now);
        self.flush(&mut g);
        match self.status() {
            OutputStatus::Playing(_) => {
                let rendered = self.shared.rendered.load(Ordering::Relaxed);
                match g.progress {
                    Some((n, at)) if n == rendered => {
                        if now.saturating_sub(at) >= STALL_AFTER {
                            if let Some(d) = &self.device {
                                let _ = d.send(DeviceMsg::Stalled);
                            }
                            g.progress = None;
                        }
                    }
                    _ => g.progress = Some((rendered, now)),
                }
            }
            status => {
                g.progress = None;
                let due = g
                    .last_retry
                    .is_none_or(|t| now.saturating_sub(t) >= RETRY_EVERY);
                if matches!(status, OutputStatus::Silent(_))
                    && due
                    && let Some(d) = &self.device
                {
                    g.last_retry = Some(now);
                    let _ = d.send(DeviceMsg::Retry);
                }
                // Nobody pulls the mix: keep it current (and its one-shots ending) here.
                if let Ok(mut rt) = self.rt.try_lock() {
                    let frames = dt.as_secs_f64() * f64::from(rt.mixer.rate());
                    rt.idle(frames as u64);
                }
            }
        }
        while self.trash.try_recv().is_ok() {}
    }

    fn flush(&self, g: &mut GameSide) {
        while let Some(c) = g.pending.pop_front() {
            match self.tx.try_send(c) {
                Ok(()) => {}
                Err(TrySendError::Full(c)) => {
                    g.pending.push_front(c);
                    return;
                }
                Err(TrySendError::Disconnected(_)) => {
                    g.pending.clear();
                    return;
                }
            }
        }
    }

    /// Sends `cmd`; a `lossy` one (superseded next frame) is dropped when the channel is full.
    fn send(&self, cmd: Command, lossy: bool) {
        let Ok(mut g) = self.game.lock() else { return };
        self.flush(&mut g);
        let cmd = if g.pending.is_empty() {
            match self.tx.try_send(cmd) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => return,
                Err(TrySendError::Full(c)) => c,
            }
        } else {
            cmd
        };
        if lossy || g.pending.len() >= PENDING_CAPACITY {
            if g.dropped == 0 {
                tracing::debug!("the mix is not keeping up: dropping sound commands");
            }
            g.dropped += 1;
        } else {
            g.pending.push_back(cmd);
        }
    }

    /// A bus's volume, 0 … 1 (glides; the master's multiplies everything).
    pub fn set_bus_volume(&self, bus: Bus, v: f32) {
        self.shared.set_bus(bus, v);
    }

    /// A bus's volume.
    pub fn bus_volume(&self, bus: Bus) -> f32 {
        self.shared.bus(bus)
    }

    /// The master volume (the master bus's).
    pub fn set_master_volume(&self, v: f32) {
        self.set_bus_volume(Bus::Master, v);
    }

    /// The master volume.
    pub fn master_volume(&self) -> f32 {
        self.bus_volume(Bus::Master)
    }

    /// Whether the window has the focus: without it the whole mix drops to the unfocused gain
    /// ([`crate::mixer::DEFAULT_UNFOCUSED_GAIN`] unless set).
    pub fn set_focus(&self, focused: bool) {
        self.shared.set_focus(focused);
    }

    /// Whether the window has the focus, as last set.
    pub fn focused(&self) -> bool {
        self.shared.focused()
    }

    /// The whole mix's gain while the window lacks the focus: 0 mutes, 1 changes nothing.
    pub fn set_unfocused_gain(&self, g: f32) {
        self.shared.set_unfocused_gain(g);
    }

    /// Whether the world (own aircraft, positional sources) is heard: off while paused or
    /// loading; music, radio and UI go on.
    pub fn set_world_audible(&self, on: bool) {
        self.shared.set_world(on);
    }

    /// The own aircraft's state (every frame).
    pub fn set_own(&self, own: OwnAircraft) {
        self.shared.set_own(own);
    }

    /// The own aircraft's engine loops (`None`: its engine is silent).
    pub fn set_own_engine(&self, loops: Option<EngineLoops>) {
        self.send(Command::EngineLoops(loops), false);
    }

    /// Where the ears are (every frame).
    pub fn set_listener(&self, listener: Listener) {
        self.send(Command::Listener(listener), true);
    }

    /// Starts a positional source; the id names it to [`AudioOutput::update`] and
    /// [`AudioOutput::stop`]. A one-shot (`looping: false`) ends by itself.
    pub fn spawn(&self, p: Positional) -> SourceId {
        let id = SourceId(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.send(Command::Spawn(id, p), false);
        id
    }

    /// Moves a positional source (every frame for a moving one).
    pub fn update(&self, id: SourceId, emitter: Emitter) {
        self.send(Command::Update(id, emitter), true);
    }

    /// Fades a positional source out and ends it.
    pub fn stop(&self, id: SourceId) {
        self.send(Command::Stop(id), false);
    }

    /// Stops every positional source.
    pub fn stop_all(&self) {
        self.send(Command::StopAll, false);
    }

    /// A positional one-shot of `clip` on `bus`.
    pub fn play_at(&self, clip: &Clip, bus: Bus, falloff: Falloff, emitter: Emitter) {
        self.spawn(Positional {
            sound: crate::mixer::Sound::Clip(clip.clone()),
            bus,
            looping: false,
            falloff,
            emitter,
        });
    }

    /// A centred one-shot of `clip` on `bus` (UI sounds, the own gun).
    pub fn play_flat(&self, clip: &Clip, bus: Bus, gain: f32, pitch: f32) {
        self.send(
            Command::Flat {
                clip: clip.clone(),
                bus,
                gain,
                pitch,
            },
            false,
        );
    }

    /// Crossfades to `clip` on the music bus (`None` fades the music out). Asking again for the
    /// track that plays changes nothing.
    pub fn play_music(&self, clip: Option<&Clip>, looping: bool) {
        self.send(
            Command::Music {
                clip: clip.cloned(),
                looping,
            },
            false,
        );
    }

    /// Queues `clip` as a radio call.
    pub fn play_radio_clip(&self, clip: &Clip) {
        self.send(Command::Radio(clip.clone()), false);
    }

    /// The sounds [`AudioOutput::play_radio`] finds its calls in.
    pub fn set_bank(&self, bank: Arc<SoundBank>) {
        if let Ok(mut g) = self.game.lock() {
            g.bank = Some(bank);
        }
    }

    /// The bank set, if any.
    pub fn bank(&self) -> Option<Arc<SoundBank>> {
        self.game.lock().ok().and_then(|g| g.bank.clone())
    }

    /// Queues the radio call `name` (`atc.cleared_takeoff`, `wingman.copy`, … — the pack's
    /// `audio/radio/<name>.ogg`) on the radio bus. False when no bank is set or it has no such
    /// call (the game shows its subtitle anyway).
    pub fn play_radio(&self, name: &str) -> bool {
        let clip = self.bank().and_then(|b| b.radio(name).cloned());
        match clip {
            Some(c) => {
                self.play_radio_clip(&c);
                true
            }
            None => {
                tracing::debug!("no radio call {name:?}");
                false
            }
        }
    }
}

impl Drop for AudioOutput {
    fn drop(&mut self) {
        if let Some(d) = &self.device {
            let _ = d.send(DeviceMsg::Shutdown);
        }
    }
}

/// The `fl-audio` thread: opens a device at once, then on request (retries, failures) until
/// the output is dropped.
fn device_thread(
    mut opener: Box<dyn DeviceOpener>,
    rt: &Arc<Mutex<Rt>>,
    state: &DeviceState,
    rx: &Receiver<DeviceMsg>,
    tx: &Sender<DeviceMsg>,
) {
    let mut device: Option<Box<dyn AudioDevice>> = None;
    let mut generation = 0u64;
    let mut next = Some(DeviceMsg::Retry);
    loop {
        let msg = match next.take() {
            Some(m) => m,
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => break,
            },
        };
        match msg {
            DeviceMsg::Retry if device.is_none() => {
                generation += 1;
                device = try_open(opener.as_mut(), rt, state, tx, generation);
            }
            DeviceMsg::Failed {
                generation: g,
                reason,
            } if g == generation && device.is_some() => {
                device = None;
                state.went_silent(reason, true);
            }
            DeviceMsg::Stalled if device.is_some() => {
                device = None;
                state.went_silent("the device stopped asking for samples".into(), true);
            }
            DeviceMsg::Shutdown => break,
            _ => {}
        }
    }
}

fn try_open(
    opener: &mut dyn DeviceOpener,
    rt: &Arc<Mutex<Rt>>,
    state: &DeviceState,
    tx: &Sender<DeviceMsg>,
    generation: u64,
) -> Option<Box<dyn AudioDevice>> {
    state.attempts.fetch_add(1, Ordering::Relaxed);
    let on_error: DeviceErrorCallback = {
        let tx = tx.clone();
        Arc::new(move |reason| {
            let _ = tx.send(DeviceMsg::Failed { generation, reason });
        })
    };
    let mut dev = match opener.open(on_error) {
        Ok(d) => d,
        Err(reason) => {
            state.went_silent(reason, false);
            return None;
        }
    };
    let info = dev.info();
    match rt.lock() {
        Ok(mut r) => r.mixer.set_rate(info.sample_rate),
        Err(p) => p.into_inner().mixer.set_rate(info.sample_rate),
    }
    if let Err(reason) = dev.play(MixSource::new(rt.clone(), info.sample_rate)) {
        state.went_silent(reason, false);
        return None;
    }
    state.playing(info);
    Some(dev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixer::{MAX_SOURCES, Sound};

    fn jet(i: u32) -> Positional {
        Positional {
            sound: Sound::Jet,
            bus: Bus::Engine,
            looping: true,
            falloff: Falloff::AIRCRAFT,
            emitter: Emitter::at(
                crate::DVec3::new(f64::from(i), 0.0, 0.0),
                crate::DVec3::ZERO,
            ),
        }
    }

    #[test]
    fn a_flood_of_commands_waits_bounded_and_moves_are_dropped_first() {
        let out = AudioOutput::silent("tests");
        let ids: Vec<SourceId> = (0..(COMMAND_CAPACITY as u32 + 500))
            .map(|i| out.spawn(jet(i)))
            .collect();
        // The channel took what it holds; the rest wait on the game side, none lost.
        assert_eq!(out.dropped_commands(), 0);
        assert_eq!(out.game.lock().map(|g| g.pending.len()).unwrap_or(0), 500);
        // Moves while the queue waits are dropped (newer ones come next frame).
        out.update(ids[0], Emitter::default());
        out.set_listener(Listener::default());
        assert_eq!(out.dropped_commands(), 2);
        // Ticks drain it into the (silent) mix, which keeps its bound.
        for i in 0..4 {
            out.tick(Duration::from_millis(16 * i));
        }
        assert_eq!(out.game.lock().map(|g| g.pending.len()).unwrap_or(1), 0);
        let s = out.stats().unwrap_or_default();
        assert_eq!(s.sources, MAX_SOURCES);
        assert_eq!(s.refused as usize, ids.len() - MAX_SOURCES);
        // Beyond the game-side bound, commands are dropped and counted, never an unbounded queue.
        for i in 0..(COMMAND_CAPACITY + PENDING_CAPACITY + 10) {
            out.spawn(jet(i as u32));
        }
        assert_eq!(out.dropped_commands(), 2 + 10);
    }

    #[test]
    fn the_silent_mix_moves_on_one_shots_end_and_clips_are_freed_here() {
        let out = AudioOutput::silent("tests");
        let clip = Clip::new(48_000, vec![0.5; 4_800]).unwrap_or_else(|| panic!("clip"));
        let samples = clip.shared();
        out.play_at(&clip, Bus::Weapons, Falloff::GUN, Emitter::default());
        out.play_flat(&clip, Bus::Ui, 1.0, 1.0);
        out.tick(Duration::ZERO);
        let s = out.stats().unwrap_or_default();
        assert_eq!((s.sources, s.flat), (1, 1));
        // 0.1 s of clip: gone after 0.2 s of game time, and the clips came back to be freed.
        out.tick(Duration::from_millis(200));
        let s = out.stats().unwrap_or_default();
        assert_eq!((s.sources, s.flat), (0, 0));
        out.tick(Duration::from_millis(216));
        // Only `clip` and `samples` hold them now.
        assert_eq!(Arc::strong_count(&samples), 2);
    }
}
