//! The mix: a pure, deterministic graph rendering interleaved stereo at one output rate.
//!
//! ```text
//!  own aircraft (engine, wind, gear and flap motors, stall buffet, afterburner thump) ─┐
//!  positional sources (other aircraft, guns, explosions: ≤ MAX_VOICES sounding) ───────┼─ world gain
//!                                                                                       │
//!  flat one-shots (UI, the own gun) ─┬─ buses: engine, weapons, radio, music, UI ────────┴─ × bus volume
//!  music (crossfaded), radio (queued, radio treatment) ┘                                 └─ × master × focus duck → soft clip
//! ```
//!
//! Everything is set between calls to [`Mixer::render`] and takes effect at the next internal
//! block ([`BLOCK`] frames); gains, pitches and pans glide across a block, so nothing clicks.
//! Positional sources ([`Positional`]) are tracked up to [`MAX_SOURCES`]; every block the
//! [`MAX_VOICES`] most audible are rendered and the rest are *virtual* (followed, not heard) —
//! the quietest always lose their voice first, and a source that comes near again gets it back.
//! When the table itself is full, a new source steals the quietest tracked one, or is dropped
//! when it would be the quietest itself.
//!
//! Same commands, same samples, whatever the sizes of the buffers `render` fills. After
//! construction nothing allocates; clips the mix lets go of are kept in a bounded list for the
//! caller to free elsewhere ([`Mixer::take_retired`]).
//!
//! Owns the mixing graph, the voices and their limits. Must not: touch a device, a thread, a
//! clock or a file.
//!
//! About a thousand lines before its tests, on purpose: the graph, its voice table and the
//! ranking that bounds it are one piece of state; what could stand apart already does
//! (synthesizers in `synth`, spatial maths in `spatial`, music and radio in `radio`).

use crate::clip::Clip;
use crate::engine::{EngineLoops, EngineParams, EngineSound, unit};
use crate::radio::{MusicPlayer, Radio};
use crate::spatial::{Emitter, Falloff, Heard, Listener, hear};
use crate::synth::{Buffet, JetNoise, Motor, Thump, Wind, glide_k};

/// Frames per internal block: parameters are applied and gains glide per block (1.3 ms at
/// 48 kHz).
pub const BLOCK: usize = 64;
/// Positional sources rendered at once; the rest are virtual.
pub const MAX_VOICES: usize = 32;
/// Positional sources tracked (sounding or virtual).
pub const MAX_SOURCES: usize = 128;
/// Flat (non-positional) one-shots at once: UI sounds and the own gun.
pub const MAX_FLAT: usize = 8;
/// Clips kept for the caller to free before further ones are freed in place.
pub const MAX_RETIRED: usize = 64;
/// The master volume before the game sets one.
pub const DEFAULT_MASTER_VOLUME: f32 = 0.8;
/// The whole mix's gain while the window has lost the focus (0 mutes).
pub const DEFAULT_UNFOCUSED_GAIN: f32 = 0.25;
/// Time constant of volume, focus and world-mute glides, seconds.
pub const VOLUME_GLIDE_S: f32 = 0.02;
/// Time constant of a voice's pitch glide (Doppler, spool), seconds.
const PITCH_GLIDE_S: f32 = 0.03;
/// A stopped positional source fades out over this long, seconds.
const STOP_FADE_S: f32 = 0.02;
/// A sounding source keeps its voice against one up to this much louder (no flapping).
const KEEP_VOICE_BONUS: f32 = 1.1;
/// Level of the soft clip's knee.
const KNEE: f32 = 0.9;

/// A mixing bus. Every sound plays on one; its volume multiplies all of them, and the master's
/// multiplies the whole mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bus {
    Master,
    /// The own aircraft (engine, wind, motors, buffet) and other aircraft's engines.
    Engine,
    /// Guns, launches, impacts, explosions.
    Weapons,
    Radio,
    Music,
    Ui,
}

impl Bus {
    /// Every bus, master first.
    pub const ALL: [Bus; 6] = [
        Bus::Master,
        Bus::Engine,
        Bus::Weapons,
        Bus::Radio,
        Bus::Music,
        Bus::Ui,
    ];

    /// Its index in [`Bus::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name in settings files (`master`, `engine`, …).
    pub fn name(self) -> &'static str {
        match self {
            Bus::Master => "master",
            Bus::Engine => "engine",
            Bus::Weapons => "weapons",
            Bus::Radio => "radio",
            Bus::Music => "music",
            Bus::Ui => "ui",
        }
    }

    /// The bus named `name` (as [`Bus::name`] writes it, any case).
    pub fn from_name(name: &str) -> Option<Bus> {
        Bus::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// The volume a bus starts at.
    pub fn default_volume(self) -> f32 {
        match self {
            Bus::Master => DEFAULT_MASTER_VOLUME,
            _ => 1.0,
        }
    }
}

/// The aircraft the player flies, as heard from its cockpit.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OwnAircraft {
    /// There is one (false while respawning or between flights: its sounds fade out).
    pub present: bool,
    /// Engine spool, commanded throttle and afterburner.
    pub engine: EngineParams,
    /// Dynamic pressure `½ρv²`, Pa: the wind noise rises with it.
    pub dynamic_pressure_pa: f32,
    /// The gear is travelling (its motor whines; it thumps when it stops).
    pub gear_moving: bool,
    /// The flaps are travelling.
    pub flaps_moving: bool,
    /// Stall buffet 0 … 1.
    pub stall: f32,
}

impl OwnAircraft {
    /// Every value in range (NaN → 0).
    pub fn sanitized(self) -> OwnAircraft {
        OwnAircraft {
            engine: self.engine.sanitized(),
            dynamic_pressure_pa: if self.dynamic_pressure_pa.is_finite() {
                self.dynamic_pressure_pa.max(0.0)
            } else if self.dynamic_pressure_pa == f32::INFINITY {
                f32::MAX
            } else {
                0.0
            },
            stall: unit(self.stall),
            ..self
        }
    }
}

/// The game's name for a positional source (any number it likes; unique among live ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub u32);

/// What a positional source plays.
#[derive(Debug, Clone)]
pub enum Sound {
    /// A clip (played at `Emitter::pitch` × Doppler).
    Clip(Clip),
    /// A synthesized jet (for aircraft whose pack has no engine loop).
    Jet,
}

/// A positional source: what it plays, on which bus, how it falls off, and where it is.
#[derive(Debug, Clone)]
pub struct Positional {
    pub sound: Sound,
    pub bus: Bus,
    /// Loops until stopped; else plays once and ends.
    pub looping: bool,
    pub falloff: Falloff,
    pub emitter: Emitter,
}

/// What the game asks of the mix (through [`Mixer::apply`]; the realtime output carries these
/// over a channel). Continuous values (volumes, focus, the own aircraft) have setters instead.
#[derive(Debug, Clone)]
pub enum Command {
    /// The own aircraft's engine loops (`None`: no engine sound).
    EngineLoops(Option<EngineLoops>),
    /// Where the ears are.
    Listener(Listener),
    /// Starts a positional source (replacing a live one with the same id).
    Spawn(SourceId, Positional),
    /// Moves a positional source (and sets its gain and pitch). Unknown ids are ignored.
    Update(SourceId, Emitter),
    /// Fades a positional source out and ends it.
    Stop(SourceId),
    /// Stops every positional source.
    StopAll,
    /// A non-positional one-shot (UI, the own gun), centred.
    Flat {
        clip: Clip,
        bus: Bus,
        gain: f32,
        pitch: f32,
    },
    /// Crossfades to a music track (`None`: fades the music out).
    Music { clip: Option<Clip>, looping: bool },
    /// Queues a radio call.
    Radio(Clip),
}

/// Counters of the voice limits, for tests and the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MixerStats {
    /// Positional sources tracked.
    pub sources: usize,
    /// Positional voices rendered in the last block (≤ [`MAX_VOICES`], plus for one block the
    /// fade-out of a voice that just lost its place).
    pub sounding: usize,
    /// Flat one-shots playing.
    pub flat: usize,
    /// Sources dropped for a louder one while the table was full.
    pub stolen: u64,
    /// Sources refused because the table was full of louder ones.
    pub refused: u64,
    /// Blocks rendered.
    pub blocks: u64,
    /// Music plays (or fades).
    pub music: bool,
    /// Radio calls on the air or waiting.
    pub radio: usize,
}

/// A gain gliding per block toward its target.
#[derive(Debug, Clone, Copy)]
struct Ramp {
    cur: f32,
    target: f32,
}

impl Ramp {
    fn new(v: f32) -> Ramp {
        Ramp { cur: v, target: v }
    }

    /// This block's start and end.
    fn step(&mut self, k: f32) -> (f32, f32) {
        let start = self.cur;
        let d = self.target - self.cur;
        self.cur = if d.abs() < 1e-5 {
            self.target
        } else {
            self.cur + d * k
        };
        (start, self.cur)
    }
}

/// The own aircraft's sounds.
#[derive(Debug, Clone)]
struct OwnSounds {
    engine: Option<EngineSound>,
    wind: Wind,
    buffet: Buffet,
    gear: Motor,
    flaps: Motor,
    ab_thump: Thump,
    gear_clunk: Thump,
    params: OwnAircraft,
}

impl OwnSounds {
    fn new(rate: u32, engine: Option<EngineSound>, params: OwnAircraft) -> OwnSounds {
        let mut own = OwnSounds {
            engine,
            wind: Wind::new(rate, 0x57_1d),
            buffet: Buffet::new(rate, 0xb0ff),
            gear: Motor::new(rate, 95.0, 0.12, 0x6ea2),
            flaps: Motor::new(rate, 150.0, 0.08, 0xf1a9),
            ab_thump: Thump::new(rate, (90.0, 40.0), 0.09, 0.7, 0xab11),
            gear_clunk: Thump::new(rate, (160.0, 90.0), 0.035, 0.35, 0xc1c2),
            params: OwnAircraft::default(),
        };
        own.set(params, false);
        own
    }

    /// New parameters; `edges`: trigger the thumps on the afterburner lighting and the gear
    /// stopping (off when merely rebuilding).
    fn set(&mut self, p: OwnAircraft, edges: bool) {
        let was = self.params;
        self.params = p;
        let on = p.present;
        if let Some(e) = &mut self.engine {
            e.set(p.engine);
            e.set_gain(if on { 1.0 } else { 0.0 });
        }
        self.wind
            .set_pressure(if on { p.dynamic_pressure_pa } else { 0.0 });
        self.buffet.set_intensity(if on { p.stall } else { 0.0 });
        self.gear.set_running(on && p.gear_moving);
        self.flaps.set_running(on && p.flaps_moving);
        if edges && on && was.present {
            if was.engine.afterburner < 0.5 && p.engine.afterburner >= 0.5 {
                self.ab_thump.trigger();
            }
            if was.gear_moving && !p.gear_moving {
                self.gear_clunk.trigger();
            }
        }
    }

    fn render(&mut self, out: &mut [f32]) {
        match &mut self.engine {
            Some(e) => e.render(out),
            None => out.fill(0.0),
        }
        self.wind.render_add(out);
        self.buffet.render_add(out);
        self.gear.render_add(out);
        self.flaps.render_add(out);
        self.ab_thump.render_add(out);
        self.gear_clunk.render_add(out);
    }
}

/// What a voice plays, with its state.
#[derive(Debug, Clone)]
enum Gen {
    Clip { clip: Clip, pos: f64 },
    Jet(JetNoise),
}

/// A tracked positional source.
#[derive(Debug, Clone)]
struct Source {
    id: SourceId,
    player: Gen,
    bus: Bus,
    looping: bool,
    falloff: Falloff,
    emitter: Emitter,
    /// Left and right gains reached at the end of the last block.
    gains: (f32, f32),
    /// Playback rate (pitch × Doppler) reached.
    rate: f32,
    /// What the listener hears of it this block.
    heard: Heard,
    /// Heard gain × bus volume, this block: the ranking key.
    audibility: f32,
    /// Rendered this block / last block.
    voiced: bool,
    was_voiced: bool,
    /// 1 … 0 while stopping.
    fade: f32,
    stopping: bool,
}

/// A flat one-shot.
#[derive(Debug, Clone)]
struct Flat {
    clip: Clip,
    pos: f64,
    bus: Bus,
    gain: f32,
    pitch: f32,
}

/// The mix. See the module's documentation.
#[derive(Debug)]
pub struct Mixer {
    rate: u32,
    buses: [Ramp; 6],
    focus: Ramp,
    focused: bool,
    unfocused_gain: f32,
    world: Ramp,
    k_volume: f32,
    k_pitch: f32,
    stop_step: f32,
    own: OwnSounds,
    listener: Listener,
    sources: Vec<Option<Source>>,
    /// Scratch for ranking sources (indices into `sources`).
    order: Vec<u16>,
    flat: Vec<Option<Flat>>,
    music: MusicPlayer,
    radio: Radio,
    retired: Vec<Clip>,
    stats: MixerStats,
    mono: [f32; BLOCK],
    voice: [f32; BLOCK],
    bus_buf: [[f32; 2 * BLOCK]; 6],
    out: [f32; 2 * BLOCK],
    /// Samples of `out` already handed out.
    at: usize,
}

impl Mixer {
    /// A silent mix at `rate` samples per second (0 is taken as 1): buses at their default
    /// volumes, focused, no own aircraft, no sources.
    pub fn new(rate: u32) -> Mixer {
        let rate = rate.max(1);
        let mut m = Mixer {
            rate,
            buses: Bus::ALL.map(|b| Ramp::new(b.default_volume())),
            focus: Ramp::new(1.0),
            focused: true,
            unfocused_gain: DEFAULT_UNFOCUSED_GAIN,
            world: Ramp::new(1.0),
            k_volume: 0.0,
            k_pitch: 0.0,
            stop_step: 0.0,
            own: OwnSounds::new(rate, None, OwnAircraft::default()),
            listener: Listener::default(),
            sources: vec![None; MAX_SOURCES],
            order: Vec::with_capacity(MAX_SOURCES),
            flat: vec![None; MAX_FLAT],
            music: MusicPlayer::new(rate),
            radio: Radio::new(rate),
            retired: Vec::with_capacity(MAX_RETIRED),
            stats: MixerStats::default(),
            mono: [0.0; BLOCK],
            voice: [0.0; BLOCK],
            bus_buf: [[0.0; 2 * BLOCK]; 6],
            out: [0.0; 2 * BLOCK],
            at: 2 * BLOCK,
        };
        m.set_constants();
        m
    }

    fn set_constants(&mut self) {
        let block_k = |s: f32| {
            let per_sample = glide_k(s, self.rate);
            1.0 - (1.0 - per_sample).powi(BLOCK as i32)
        };
        self.k_volume = block_k(VOLUME_GLIDE_S);
        self.k_pitch = block_k(PITCH_GLIDE_S);
        self.stop_step = (BLOCK as f32 / (STOP_FADE_S * self.rate as f32)).min(1.0);
    }

    /// The output rate.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Moves to another output rate (a device re-opened at another rate): every synthesizer is
    /// rebuilt; the engine, sources, music and the radio carry on where they were. Allocates a little: not for the audio
    /// thread.
    pub fn set_rate(&mut self, rate: u32) {
        let rate = rate.max(1);
        if rate == self.rate {
            return;
        }
        self.rate = rate;
        self.set_constants();
        let engine = self.own.engine.take().map(|e| {
            let target = e.target();
            let mut e = EngineSound::new(e.into_loops(), rate);
            e.set(target);
            e
        });
        self.own = OwnSounds::new(rate, engine, self.own.params);
        for s in self.sources.iter_mut().flatten() {
            if let Gen::Jet(_) = s.player {
                s.player = Gen::Jet(JetNoise::new(rate, s.id.0));
            }
        }
        self.music.set_rate(rate);
        self.radio.set_rate(rate);
    }

    /// A bus's volume 0 … 1 (glides over [`VOLUME_GLIDE_S`]).
    pub fn set_bus_volume(&mut self, bus: Bus, v: f32) {
        let r = &mut self.buses[bus.index()];
        r.target = unit(v);
        self.snap_before_start();
    }

    /// Before the first block, a setting is where the mix starts, not a glide from the default.
    fn snap_before_start(&mut self) {
        if self.stats.blocks == 0 {
            for r in self
                .buses
                .iter_mut()
                .chain([&mut self.focus, &mut self.world])
            {
                r.cur = r.target;
            }
        }
    }

    /// A bus's volume (the target of its glide).
    pub fn bus_volume(&self, bus: Bus) -> f32 {
        self.buses[bus.index()].target
    }

    /// Whether the window has the focus; without it the whole mix drops to the unfocused gain.
    pub fn set_focus(&mut self, focused: bool) {
        self.focused = focused;
        self.focus.target = if focused { 1.0 } else { self.unfocused_gain };
        self.snap_before_start();
    }

    /// The whole mix's gain without the focus, 0 (mute) … 1 (no change).
    pub fn set_unfocused_gain(&mut self, g: f32) {
        self.unfocused_gain = unit(g);
        self.set_focus(self.focused);
    }

    /// Whether the world is heard (the own aircraft and positional sources): off while paused
    /// or loading, when music, radio and UI go on.
    pub fn set_world_audible(&mut self, on: bool) {
        self.world.target = if on { 1.0 } else { 0.0 };
        self.snap_before_start();
    }

    /// The own aircraft's state.
    pub fn set_own(&mut self, p: OwnAircraft) {
        self.own.set(p.sanitized(), true);
    }

    /// The own aircraft's state last set.
    pub fn own(&self) -> OwnAircraft {
        self.own.params
    }

    /// The voice counters.
    pub fn stats(&self) -> MixerStats {
        let mut s = self.stats;
        s.sources = self.sources.iter().flatten().count();
        s.flat = self.flat.iter().flatten().count();
        s.music = self.music.is_playing();
        s.radio = self.radio.pending();
        s
    }

    /// Whether music plays (or fades).
    pub fn music_playing(&self) -> bool {
        self.music.is_playing()
    }

    /// Radio calls on the air or waiting.
    pub fn radio_pending(&self) -> usize {
        self.radio.pending()
    }

    /// Hands every clip the mix has let go of to `f` (to free them off the audio thread).
    pub fn take_retired(&mut self, mut f: impl FnMut(Clip)) {
        for c in self.retired.drain(..) {
            f(c);
        }
    }

    fn retire(retired: &mut Vec<Clip>, c: Clip) {
        if retired.len() < MAX_RETIRED {
            retired.push(c);
        }
        // Else it is freed here: the bound matters more than where (the game keeps its clips in
        // a bank, so this is only a reference count going down).
    }

    /// Applies a command.
    pub fn apply(&mut self, cmd: Command) {
        match cmd {
            Command::EngineLoops(loops) => {
                if let Some(old) = self.own.engine.take() {
                    let l = old.into_loops();
                    for c in [Some(l.idle), Some(l.mil), l.afterburner]
                        .into_iter()
                        .flatten()
                    {
                        Self::retire(&mut self.retired, c);
                    }
                }
                self.own.engine = loops.map(|l| EngineSound::new(l, self.rate));
                let p = self.own.params;
                self.own.set(p, false);
            }
            Command::Listener(l) => self.listener = l.sanitized(),
            Command::Spawn(id, p) => self.spawn(id, p),
            Command::Update(id, e) => {
                if let Some(s) = self.source_mut(id) {
                    s.emitter = e.sanitized();
                }
            }
            Command::Stop(id) => {
                if let Some(s) = self.source_mut(id) {
                    s.stopping = true;
                }
            }
            Command::StopAll => {
                for s in self.sources.iter_mut().flatten() {
                    s.stopping = true;
                }
            }
            Command::Flat {
                clip,
                bus,
                gain,
                pitch,
            } => self.play_flat(clip, bus, gain, pitch),
            Command::Music { clip, looping } => {
                let retired = &mut self.retired;
                self.music
                    .play(clip, looping, &mut |c| Self::retire(retired, c));
            }
            Command::Radio(clip) => {
                let retired = &mut self.retired;
                self.radio.push(clip, &mut |c| Self::retire(retired, c));
            }
        }
    }

    fn source_mut(&mut self, id: SourceId) -> Option<&mut Source> {
        self.sources
            .iter_mut()
            .flatten()
            .find(|s| s.id == id && !s.stopping)
    }

    fn spawn(&mut self, id: SourceId, p: Positional) {
        let emitter = p.emitter.sanitized();
        let falloff = p.falloff.sanitized();
        let player = match p.sound {
            Sound::Clip(clip) => Gen::Clip { clip, pos: 0.0 },
            Sound::Jet => Gen::Jet(JetNoise::new(self.rate, id.0)),
        };
        let heard = hear(&self.listener, &emitter, falloff);
        let audibility = heard.gain * self.buses[p.bus.index()].target;
        let new = Source {
            id,
            player,
            bus: p.bus,
            looping: p.looping,
            falloff,
            emitter,
            gains: (0.0, 0.0),
            rate: emitter.pitch * heard.doppler,
            heard,
            audibility,
            voiced: false,
            was_voiced: false,
            fade: 1.0,
            stopping: false,
        };
        // The same id again replaces the live one (a restarted sound).
        let slot = self
            .sources
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.id == id && !s.stopping))
            .or_else(|| self.sources.iter().position(Option::is_none));
        let slot = match slot {
            Some(i) => i,
            None => {
                // Full: the quietest tracked source (a stopping one counts as silent) goes, unless
                // the newcomer would be quieter still.
                let key = |s: &Source| if s.stopping { 0.0 } else { s.audibility };
                let Some((i, quietest)) = self
                    .sources
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.as_ref().map(|s| (i, key(s))))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                else {
                    return;
                };
                if quietest >= audibility {
                    self.stats.refused += 1;
                    Self::retire_gen(&mut self.retired, new.player);
                    return;
                }
                self.stats.stolen += 1;
                i
            }
        };
        if let Some(old) = self.sources[slot].replace(new) {
            Self::retire_gen(&mut self.retired, old.player);
        }
    }

    fn retire_gen(retired: &mut Vec<Clip>, g: Gen) {
        if let Gen::Clip { clip, .. } = g {
            Self::retire(retired, clip);
        }
    }

    fn play_flat(&mut self, clip: Clip, bus: Bus, gain: f32, pitch: f32) {
        let gain = unit(gain);
        let pitch = if pitch.is_finite() {
            pitch.clamp(0.1, 4.0)
        } else {
            1.0
        };
        let slot = match self.flat.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                // Full: the quietest goes (the oldest of equals: the first found), unless the new
                // one is quieter.
                let Some((i, g)) = self
                    .flat
                    .iter()
                    .enumerate()
                    .filter_map(|(i, f)| f.as_ref().map(|f| (i, f.gain)))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                else {
                    return;
                };
                if g > gain {
                    Self::retire(&mut self.retired, clip);
                    return;
                }
                i
            }
        };
        let new = Flat {
            clip,
            pos: 0.0,
            bus,
            gain,
            pitch,
        };
        if let Some(old) = self.flat[slot].replace(new) {
            Self::retire(&mut self.retired, old.clip);
        }
    }

    /// Fills `out` with interleaved stereo (left, right, …; an odd last sample gets the left
    /// channel). Output is −1 … 1.
    pub fn render(&mut self, out: &mut [f32]) {
        let mut i = 0;
        while i < out.len() {
            if self.at == self.out.len() {
                self.render_block();
                self.at = 0;
            }
            let n = (out.len() - i).min(self.out.len() - self.at);
            out[i..i + n].copy_from_slice(&self.out[self.at..self.at + n]);
            i += n;
            self.at += n;
        }
    }

    /// Moves on by `frames` without rendering (no device to play to): one-shots run their
    /// course and end, music advances, radio calls are dropped, glides arrive. Cheap.
    pub fn skip(&mut self, frames: u64) {
        let dt = frames as f64 / f64::from(self.rate);
        for b in &mut self.buses {
            b.cur = b.target;
        }
        self.focus.cur = self.focus.target;
        self.world.cur = self.world.target;
        self.listener.position += self.listener.velocity * dt;
        let rate = self.rate;
        for slot in &mut self.sources {
            let Some(s) = slot else { continue };
            s.emitter.position += s.emitter.velocity * dt;
            let ended = s.stopping
                || match &mut s.player {
                    Gen::Clip { clip, pos } => {
                        let len = clip.samples().len() as f64;
                        *pos += frames as f64 * f64::from(s.rate) * f64::from(clip.rate())
                            / f64::from(rate);
                        if s.looping {
                            *pos = pos.rem_euclid(len);
                            false
                        } else {
                            *pos >= len
                        }
                    }
                    Gen::Jet(_) => false,
                };
            if ended && let Some(s) = slot.take() {
                Self::retire_gen(&mut self.retired, s.player);
            }
        }
        for slot in &mut self.flat {
            let Some(f) = slot else { continue };
            f.pos +=
                frames as f64 * f64::from(f.pitch) * f64::from(f.clip.rate()) / f64::from(rate);
            if f.pos >= f.clip.samples().len() as f64
                && let Some(f) = slot.take()
            {
                Self::retire(&mut self.retired, f.clip);
            }
        }
        let retired = &mut self.retired;
        self.music.skip(frames, &mut |c| Self::retire(retired, c));
        self.radio.clear(&mut |c| Self::retire(retired, c));
        self.at = self.out.len();
    }

    fn render_block(&mut self) {
        self.stats.blocks += 1;
        for b in &mut self.bus_buf {
            b.fill(0.0);
        }
        let (w0, w1) = self.world.step(self.k_volume);
        let ramp = |a: f32, b: f32, i: usize| a + (b - a) * (i as f32 + 1.0) / BLOCK as f32;

        // The own aircraft: mono, centred, on the engine bus.
        self.own.render(&mut self.mono);
        let eng = &mut self.bus_buf[Bus::Engine.index()];
        for (i, &m) in self.mono.iter().enumerate() {
            let v = m * ramp(w0, w1, i);
            eng[2 * i] += v;
            eng[2 * i + 1] += v;
        }

        self.render_sources(w0, w1);
        self.render_flat();

        let retired = &mut self.retired;
        let mut retire = |c: Clip| Self::retire(retired, c);
        self.mono.fill(0.0);
        self.music.render_add(&mut self.mono, &mut retire);
        let mus = &mut self.bus_buf[Bus::Music.index()];
        for (i, &m) in self.mono.iter().enumerate() {
            mus[2 * i] += m;
            mus[2 * i + 1] += m;
        }
        self.mono.fill(0.0);
        self.radio.render_add(&mut self.mono, &mut retire);
        let rad = &mut self.bus_buf[Bus::Radio.index()];
        for (i, &m) in self.mono.iter().enumerate() {
            rad[2 * i] += m;
            rad[2 * i + 1] += m;
        }

        // Buses × volumes, master × focus, soft clip.
        let k = self.k_volume;
        let ramps: [(f32, f32); 6] = std::array::from_fn(|b| self.buses[b].step(k));
        let (f0, f1) = self.focus.step(k);
        for i in 0..BLOCK {
            let mut l = self.bus_buf[0][2 * i];
            let mut r = self.bus_buf[0][2 * i + 1];
            for (&(g0, g1), buf) in ramps.iter().zip(&self.bus_buf).skip(1) {
                let g = ramp(g0, g1, i);
                l += g * buf[2 * i];
                r += g * buf[2 * i + 1];
            }
            let g = ramp(ramps[0].0, ramps[0].1, i) * ramp(f0, f1, i);
            self.out[2 * i] = soft_clip(l * g);
            self.out[2 * i + 1] = soft_clip(r * g);
        }
    }

    fn render_sources(&mut self, w0: f32, w1: f32) {
        let dt = BLOCK as f64 / f64::from(self.rate);
        self.listener.position += self.listener.velocity * dt;
        // Move every source on by its velocity (the game updates at its frame rate; in between
        // the mix extrapolates) and rank them by what the listener hears.
        self.order.clear();
        for (i, slot) in self.sources.iter_mut().enumerate() {
            let Some(s) = slot else { continue };
            s.emitter.position += s.emitter.velocity * dt;
            s.was_voiced = s.voiced;
            s.heard = hear(&self.listener, &s.emitter, s.falloff);
            s.audibility = s.heard.gain * self.buses[s.bus.index()].target;
            if s.stopping {
                s.fade = (s.fade - self.stop_step).max(0.0);
            }
            self.order.push(i as u16);
        }
        let sources = &self.sources;
        let rank = |i: &u16| {
            sources[usize::from(*i)].as_ref().map_or(0.0, |s| {
                let bonus = if s.was_voiced { KEEP_VOICE_BONUS } else { 1.0 };
                s.audibility * s.fade * bonus
            })
        };
        if self.order.len() > MAX_VOICES {
            // The loudest first; ties by slot, so the choice is deterministic.
            self.order.select_nth_unstable_by(MAX_VOICES - 1, |a, b| {
                rank(b).total_cmp(&rank(a)).then(a.cmp(b))
            });
        }
        for (n, &i) in self.order.iter().enumerate() {
            let heard_voiced = n < MAX_VOICES;
            if let Some(s) = &mut self.sources[usize::from(i)] {
                s.voiced = heard_voiced && s.audibility > 0.0;
            }
        }
        let mut sounding = 0;
        for slot in &mut self.sources {
            let Some(s) = slot else { continue };
            let heard = s.heard;
            let g = if s.voiced { heard.gain * s.fade } else { 0.0 };
            let target = (g * heard.left, g * heard.right);
            let rate_target = s.emitter.pitch * heard.doppler;
            s.rate += (rate_target - s.rate) * self.k_pitch;
            let step_rate = s.rate;
            let silent = s.gains.0 < 1e-6 && s.gains.1 < 1e-6 && target.0 < 1e-6 && target.1 < 1e-6;
            let ended = if silent {
                advance(&mut s.player, s.looping, step_rate, self.rate, BLOCK)
            } else {
                sounding += 1;
                let ended = synth(
                    &mut s.player,
                    s.looping,
                    step_rate,
                    self.rate,
                    &mut self.voice,
                );
                let buf = &mut self.bus_buf[s.bus.index()];
                let (l0, r0) = s.gains;
                for (i, &v) in self.voice.iter().enumerate() {
                    let t = (i as f32 + 1.0) / BLOCK as f32;
                    let w = w0 + (w1 - w0) * t;
                    buf[2 * i] += v * w * (l0 + (target.0 - l0) * t);
                    buf[2 * i + 1] += v * w * (r0 + (target.1 - r0) * t);
                }
                ended
            };
            s.gains = target;
            if (ended || (s.stopping && s.fade == 0.0))
                && let Some(s) = slot.take()
            {
                Self::retire_gen(&mut self.retired, s.player);
            }
        }
        self.stats.sounding = sounding;
    }

    fn render_flat(&mut self) {
        for slot in &mut self.flat {
            let Some(f) = slot else { continue };
            let step = f64::from(f.pitch) * f64::from(f.clip.rate()) / f64::from(self.rate);
            let len = f.clip.samples().len() as f64;
            let buf = &mut self.bus_buf[f.bus.index()];
            let mut ended = false;
            for i in 0..BLOCK {
                if f.pos >= len {
                    ended = true;
                    break;
                }
                let v = f.gain * f.clip.at(f.pos, false);
                buf[2 * i] += v;
                buf[2 * i + 1] += v;
                f.pos += step;
            }
            if ended && let Some(f) = slot.take() {
                Self::retire(&mut self.retired, f.clip);
            }
        }
    }
}

/// Renders a block of `g` at `rate` (× the clip's own rate over `out_rate`) into `out`; true
/// when a one-shot has ended.
fn synth(g: &mut Gen, looping: bool, rate: f32, out_rate: u32, out: &mut [f32; BLOCK]) -> bool {
    match g {
        Gen::Clip { clip, pos } => {
            let step = f64::from(rate) * f64::from(clip.rate()) / f64::from(out_rate);
            let len = clip.samples().len() as f64;
            for (i, o) in out.iter_mut().enumerate() {
                if *pos >= len {
                    if looping {
                        *pos = pos.rem_euclid(len);
                    } else {
                        out[i..].fill(0.0);
                        return true;
                    }
                }
                *o = clip.at(*pos, looping);
                *pos += step;
            }
            false
        }
        Gen::Jet(j) => {
            for o in out.iter_mut() {
                *o = j.next(rate);
            }
            false
        }
    }
}

/// Moves `g` on by `frames` without rendering; true when a one-shot has ended.
fn advance(g: &mut Gen, looping: bool, rate: f32, out_rate: u32, frames: usize) -> bool {
    match g {
        Gen::Clip { clip, pos } => {
            let len = clip.samples().len() as f64;
            *pos += frames as f64 * f64::from(rate) * f64::from(clip.rate()) / f64::from(out_rate);
            if looping {
                *pos = pos.rem_euclid(len);
                false
            } else {
                *pos >= len
            }
        }
        Gen::Jet(_) => false,
    }
}

/// Identity below the knee, then a tanh curve that approaches 1: loud sums never wrap or clip
/// hard.
pub fn soft_clip(x: f32) -> f32 {
    if x.is_nan() {
        return 0.0;
    }
    let a = x.abs();
    if a <= KNEE {
        x
    } else {
        let y = KNEE + (1.0 - KNEE) * ((a - KNEE) / (1.0 - KNEE)).tanh();
        y.copysign(x)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::tests::{sine, tones};
    use glam::DVec3;

    pub(crate) const RATE: u32 = 48_000;

    pub(crate) fn rms(s: &[f32]) -> f32 {
        (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
    }

    fn secs(m: &mut Mixer, s: f32) -> Vec<f32> {
        let mut out = vec![0.0; 2 * (s * RATE as f32) as usize];
        m.render(&mut out);
        out
    }

    fn looping(clip: Clip, bus: Bus, at: DVec3, v: DVec3) -> Positional {
        Positional {
            sound: Sound::Clip(clip),
            bus,
            looping: true,
            falloff: Falloff::AIRCRAFT,
            emitter: Emitter::at(at, v),
        }
    }

    #[test]
    fn silence_by_default_and_everything_is_finite() {
        let mut m = Mixer::new(RATE);
        let out = secs(&mut m, 0.1);
        assert!(out.iter().all(|&v| v == 0.0));
        m.apply(Command::EngineLoops(Some(tones())));
        // No own aircraft yet: still silent.
        assert!(secs(&mut m, 0.1).iter().all(|&v| v == 0.0));
        m.set_own(OwnAircraft {
            present: true,
            engine: EngineParams {
                rpm: f32::NAN,
                throttle: 9.0,
                afterburner: 1.0,
            },
            dynamic_pressure_pa: f32::INFINITY,
            gear_moving: true,
            flaps_moving: true,
            stall: f32::NAN,
        });
        let out = secs(&mut m, 0.5);
        assert!(out.iter().all(|v| v.is_finite() && v.abs() <= 1.0));
        assert!(rms(&out) > 0.05);
    }

    #[test]
    fn block_sizes_do_not_change_the_samples() {
        let run = |chunk: usize| {
            let mut m = Mixer::new(RATE);
            m.apply(Command::EngineLoops(Some(tones())));
            m.set_own(OwnAircraft {
                present: true,
                engine: EngineParams {
                    rpm: 0.6,
                    throttle: 1.0,
                    afterburner: 1.0,
                },
                dynamic_pressure_pa: 20_000.0,
                stall: 0.5,
                ..OwnAircraft::default()
            });
            m.apply(Command::Spawn(
                SourceId(1),
                looping(
                    sine(300.0, 0.5),
                    Bus::Engine,
                    DVec3::new(100.0, 0.0, 0.0),
                    DVec3::new(0.0, 0.0, 50.0),
                ),
            ));
            m.apply(Command::Music {
                clip: Some(sine(200.0, 0.3)),
                looping: true,
            });
            m.apply(Command::Radio(sine(900.0, 0.3)));
            let mut out = vec![0.0; 2 * 9_600];
            for c in out.chunks_mut(chunk) {
                m.render(c);
            }
            out
        };
        let whole = run(2 * 9_600);
        assert_eq!(whole, run(2));
        assert_eq!(whole, run(331));
        assert!(rms(&whole) > 0.05);
    }

    #[test]
    fn the_afterburner_light_and_the_gear_lock_thump() {
        let base = OwnAircraft {
            present: true,
            engine: EngineParams {
                rpm: 1.0,
                throttle: 1.0,
                afterburner: 0.0,
            },
            ..OwnAircraft::default()
        };
        let mut m = Mixer::new(RATE);
        m.set_own(base);
        secs(&mut m, 0.2);
        assert!(!m.own.ab_thump.is_playing());
        m.set_own(OwnAircraft {
            engine: EngineParams {
                afterburner: 1.0,
                ..base.engine
            },
            ..base
        });
        assert!(m.own.ab_thump.is_playing());
        let thump = secs(&mut m, 0.3);
        assert!(rms(&thump) > 0.05, "{}", rms(&thump));
        // Gear travelling, then stopping: the motor, then a clunk.
        m.set_own(OwnAircraft {
            gear_moving: true,
            ..base
        });
        let motor = secs(&mut m, 0.5);
        assert!(rms(&motor[RATE as usize / 2..]) > 0.01);
        m.set_own(base);
        assert!(m.own.gear_clunk.is_playing());
    }

    #[test]
    fn flat_one_shots_are_bounded_and_end() {
        let mut m = Mixer::new(RATE);
        let click = sine(1_000.0, 0.5);
        let short =
            Clip::new(RATE, click.samples()[..4_800].to_vec()).unwrap_or_else(|| panic!("clip"));
        for i in 0..(MAX_FLAT + 5) {
            m.apply(Command::Flat {
                clip: short.clone(),
                bus: Bus::Ui,
                gain: 0.1 + 0.01 * i as f32,
                pitch: 1.0,
            });
        }
        assert_eq!(m.stats().flat, MAX_FLAT);
        // A quieter one than all is refused.
        m.apply(Command::Flat {
            clip: short.clone(),
            bus: Bus::Ui,
            gain: 0.01,
            pitch: 1.0,
        });
        assert!(m.flat.iter().flatten().all(|f| f.gain > 0.05));
        let out = secs(&mut m, 0.2);
        assert!(rms(&out[..4_000]) > 0.05);
        assert_eq!(m.stats().flat, 0);
        let mut n = 0;
        m.take_retired(|_| n += 1);
        assert!(n >= MAX_FLAT, "{n}");
    }

    #[test]
    fn a_new_rate_keeps_the_sources() {
        let mut m = Mixer::new(44_100);
        m.apply(Command::EngineLoops(Some(tones())));
        m.apply(Command::Spawn(
            SourceId(3),
            Positional {
                sound: Sound::Jet,
                ..looping(sine(1.0, 0.1), Bus::Engine, DVec3::X * 50.0, DVec3::ZERO)
            },
        ));
        secs(&mut m, 0.1);
        m.set_rate(RATE);
        assert_eq!(m.rate(), RATE);
        assert_eq!(m.stats().sources, 1);
        assert!(m.own.engine.as_ref().is_some_and(|e| e.out_rate() == RATE));
        m.apply(Command::Music {
            clip: Some(sine(220.0, 0.3)),
            looping: true,
        });
        m.apply(Command::Radio(sine(900.0, 0.3)));
        secs(&mut m, 0.1);
        m.set_rate(44_100);
        assert!(m.music_playing() && m.radio_pending() == 1);
        let out = secs(&mut m, 0.2);
        assert!(rms(&out) > 0.01);
    }

    #[test]
    fn soft_clip_is_bounded_and_transparent_below_the_knee() {
        assert_eq!(soft_clip(0.5), 0.5);
        assert_eq!(soft_clip(-0.9), -0.9);
        assert!(soft_clip(100.0) <= 1.0 && soft_clip(100.0) > 0.99);
        assert!(soft_clip(-3.0) >= -1.0);
        assert_eq!(soft_clip(f32::NAN), 0.0);
        assert!(soft_clip(0.95) > soft_clip(0.92));
    }

    #[test]
    fn bus_names_round_trip() {
        for b in Bus::ALL {
            assert_eq!(Bus::from_name(b.name()), Some(b));
            assert_eq!(Bus::ALL[b.index()], b);
        }
        assert_eq!(Bus::from_name("MUSIC"), Some(Bus::Music));
        assert_eq!(Bus::from_name("nope"), None);
    }
}
