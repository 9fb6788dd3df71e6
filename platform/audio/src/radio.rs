//! The two long-form players of the mix: music (one track at a time, crossfaded, looping or
//! not) and the radio (calls queued and played one after another through a radio treatment —
//! band-limited to 300 Hz … 3 kHz, lightly saturated, opened and closed by a squelch burst —
//! because the pack's voice lines are recorded dry). Both are pure and deterministic; neither
//! allocates after construction. Clips they let go of are handed to the caller's `retire`, so
//! they can be freed off the audio thread.
//!
//! Owns the music and radio sequencing and the radio treatment. Must not: pick what plays (the
//! game does) or know about buses (`mixer`).

use crate::clip::Clip;
use crate::synth::{Noise, OnePole, glide_k, lp2, one_pole_k};

/// Crossfade time between two music tracks (and fade in and out), seconds.
pub const MUSIC_FADE_S: f32 = 1.5;
/// Radio calls waiting behind the one on the air; a further call drops the oldest waiting.
pub const RADIO_QUEUE: usize = 4;
/// Squelch burst before a call, seconds.
const SQUELCH_OPEN_S: f32 = 0.05;
/// Squelch tail after a call, seconds.
const SQUELCH_CLOSE_S: f32 = 0.12;
/// Silence between two calls, seconds.
const RADIO_GAP_S: f32 = 0.25;

/// One music track playing.
#[derive(Debug, Clone)]
struct Track {
    clip: Clip,
    pos: f64,
    looping: bool,
    gain: f32,
    target: f32,
}

/// Music: a current track and, while crossfading, the previous one fading out.
#[derive(Debug, Clone)]
pub struct MusicPlayer {
    rate: u32,
    current: Option<Track>,
    old: Option<Track>,
    /// Gain change per sample of a fade.
    fade_step: f32,
}

impl MusicPlayer {
    /// Silence at `rate`.
    pub fn new(rate: u32) -> MusicPlayer {
        MusicPlayer {
            rate: rate.max(1),
            current: None,
            old: None,
            fade_step: 1.0 / (MUSIC_FADE_S * rate.max(1) as f32),
        }
    }

    /// Moves to another output rate, keeping what plays.
    pub fn set_rate(&mut self, rate: u32) {
        let fresh = MusicPlayer::new(rate);
        self.rate = fresh.rate;
        self.fade_step = fresh.fade_step;
    }

    /// Plays `clip` (crossfading from what plays), or fades out with `None`. The track already
    /// playing is left alone (a menu asking for its music every frame does not restart it).
    pub fn play(&mut self, clip: Option<Clip>, looping: bool, retire: &mut impl FnMut(Clip)) {
        if let (Some(c), Some(cur)) = (&clip, &mut self.current)
            && cur.clip.same(c)
            && cur.target > 0.0
        {
            cur.looping = looping;
            return;
        }
        if let Some(mut cur) = self.current.take() {
            cur.target = 0.0;
            if let Some(old) = self.old.replace(cur) {
                retire(old.clip);
            }
        }
        self.current = clip.map(|clip| Track {
            clip,
            pos: 0.0,
            looping,
            gain: 0.0,
            target: 1.0,
        });
    }

    /// Whether anything is audible or fading.
    pub fn is_playing(&self) -> bool {
        self.current.is_some() || self.old.is_some()
    }

    /// Adds the next samples into `out` (mono).
    pub fn render_add(&mut self, out: &mut [f32], retire: &mut impl FnMut(Clip)) {
        let step_of = |c: &Clip, rate: u32| f64::from(c.rate()) / f64::from(rate);
        for slot in [&mut self.current, &mut self.old] {
            let Some(t) = slot else { continue };
            let step = step_of(&t.clip, self.rate);
            let len = t.clip.samples().len() as f64;
            let mut ended = false;
            for o in out.iter_mut() {
                if t.pos >= len {
                    if t.looping {
                        t.pos -= len;
                    } else {
                        ended = true;
                        break;
                    }
                }
                t.gain = if t.gain < t.target {
                    (t.gain + self.fade_step).min(t.target)
                } else {
                    (t.gain - self.fade_step).max(t.target)
                };
                *o += t.gain * t.clip.at(t.pos, t.looping);
                t.pos += step;
            }
            if (ended || (t.target == 0.0 && t.gain == 0.0))
                && let Some(t) = slot.take()
            {
                retire(t.clip);
            }
        }
    }

    /// Moves on by `frames` without output: fades complete, tracks advance, ended ones go.
    pub fn skip(&mut self, frames: u64, retire: &mut impl FnMut(Clip)) {
        if let Some(old) = self.old.take() {
            retire(old.clip);
        }
        if let Some(t) = &mut self.current {
            t.gain = t.target;
            let len = t.clip.samples().len() as f64;
            t.pos += frames as f64 * f64::from(t.clip.rate()) / f64::from(self.rate);
            if t.looping {
                t.pos = t.pos.rem_euclid(len);
            }
            if (t.pos >= len || t.gain == 0.0)
                && let Some(t) = self.current.take()
            {
                retire(t.clip);
            }
        }
    }

    /// Lets go of every clip.
    pub fn clear(&mut self, retire: &mut impl FnMut(Clip)) {
        for t in [self.current.take(), self.old.take()].into_iter().flatten() {
            retire(t.clip);
        }
    }
}

/// Where the radio stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Open,
    Talk,
    Close,
    Gap,
}

/// The radio: calls queued and played one at a time through a radio treatment.
#[derive(Debug, Clone)]
pub struct Radio {
    rate: u32,
    queue: [Option<Clip>; RADIO_QUEUE],
    /// Index of the oldest waiting call, and how many wait.
    head: usize,
    waiting: usize,
    current: Option<Clip>,
    pos: f64,
    phase: Phase,
    /// Samples spent in the phase.
    t: u32,
    noise: Noise,
    hp: OnePole,
    lp: [OnePole; 2],
    squelch_lp: OnePole,
    k_hp: f32,
    k_lp: f32,
    k_squelch: f32,
    /// Gain of the squelch's decay per sample.
    k_decay: f32,
    squelch_env: f32,
}

impl Radio {
    /// A quiet radio at `rate`.
    pub fn new(rate: u32) -> Radio {
        let rate = rate.max(1);
        Radio {
            rate,
            queue: Default::default(),
            head: 0,
            waiting: 0,
            current: None,
            pos: 0.0,
            phase: Phase::Idle,
            t: 0,
            noise: Noise::new(0x0bad_cafe),
            hp: OnePole::default(),
            lp: [OnePole::default(); 2],
            squelch_lp: OnePole::default(),
            k_hp: one_pole_k(300.0, rate),
            k_lp: one_pole_k(3_000.0, rate),
            k_squelch: one_pole_k(4_000.0, rate),
            k_decay: glide_k(0.03, rate),
            squelch_env: 0.0,
        }
    }

    /// Moves to another output rate, keeping the call on the air and the queue.
    pub fn set_rate(&mut self, rate: u32) {
        let fresh = Radio::new(rate);
        self.rate = fresh.rate;
        self.k_hp = fresh.k_hp;
        self.k_lp = fresh.k_lp;
        self.k_squelch = fresh.k_squelch;
        self.k_decay = fresh.k_decay;
    }

    /// Queues a call; when [`RADIO_QUEUE`] calls already wait, the oldest waiting is dropped
    /// (the newest call is the one that matters).
    pub fn push(&mut self, clip: Clip, retire: &mut impl FnMut(Clip)) {
        if self.waiting == RADIO_QUEUE {
            if let Some(old) = self.queue[self.head].take() {
                retire(old);
            }
            self.head = (self.head + 1) % RADIO_QUEUE;
            self.waiting -= 1;
        }
        let at = (self.head + self.waiting) % RADIO_QUEUE;
        self.queue[at] = Some(clip);
        self.waiting += 1;
    }

    /// Calls on the air or waiting.
    pub fn pending(&self) -> usize {
        self.waiting + usize::from(self.current.is_some())
    }

    /// Whether the radio makes any sound now.
    pub fn is_active(&self) -> bool {
        self.phase != Phase::Idle || self.waiting > 0
    }

    fn pop(&mut self) -> Option<Clip> {
        if self.waiting == 0 {
            return None;
        }
        let c = self.queue[self.head].take();
        self.head = (self.head + 1) % RADIO_QUEUE;
        self.waiting -= 1;
        c
    }

    fn samples_of(&self, seconds: f32) -> u32 {
        (seconds * self.rate as f32) as u32
    }

    /// Adds the next samples into `out` (mono).
    pub fn render_add(&mut self, out: &mut [f32], retire: &mut impl FnMut(Clip)) {
        if !self.is_active() {
            return;
        }
        for o in out.iter_mut() {
            let mut voice = 0.0;
            match self.phase {
                Phase::Idle => {
                    if let Some(c) = self.pop() {
                        self.current = Some(c);
                        self.pos = 0.0;
                        self.enter(Phase::Open);
                        self.squelch_env = 1.0;
                    } else {
                        continue;
                    }
                }
                Phase::Open if self.t >= self.samples_of(SQUELCH_OPEN_S) => self.enter(Phase::Talk),
                Phase::Talk => {
                    let ended = match &self.current {
                        Some(c) => {
                            let len = c.samples().len() as f64;
                            voice = c.at(self.pos, false);
                            self.pos += f64::from(c.rate()) / f64::from(self.rate);
                            self.pos >= len
                        }
                        None => true,
                    };
                    if ended {
                        if let Some(c) = self.current.take() {
                            retire(c);
                        }
                        self.enter(Phase::Close);
                        self.squelch_env = 1.0;
                    }
                }
                Phase::Close if self.t >= self.samples_of(SQUELCH_CLOSE_S) => {
                    self.enter(Phase::Gap);
                }
                Phase::Gap if self.t >= self.samples_of(RADIO_GAP_S) => self.enter(Phase::Idle),
                _ => {}
            }
            self.t = self.t.saturating_add(1);
            // Band-limit and lightly saturate the voice: a radio's small speaker and clipping mic.
            let v = self.hp.hp(voice, self.k_hp);
            let v = lp2(&mut self.lp, v, self.k_lp);
            let v = 1.6 * v / (1.0 + 1.6 * v.abs());
            // The squelch: a burst of bright noise decaying over ~30 ms at each end, and a faint
            // hiss while the channel is open.
            let n = self.squelch_lp.lp(self.noise.sample(), self.k_squelch);
            let hiss = if matches!(self.phase, Phase::Open | Phase::Talk) {
                0.04
            } else {
                0.0
            };
            let burst = if matches!(self.phase, Phase::Open | Phase::Close) {
                self.squelch_env -= self.squelch_env * self.k_decay;
                0.5 * self.squelch_env
            } else {
                0.0
            };
            *o += v + n * (hiss + burst);
        }
    }

    fn enter(&mut self, p: Phase) {
        self.phase = p;
        self.t = 0;
    }

    /// Drops what is on the air and what waits.
    pub fn clear(&mut self, retire: &mut impl FnMut(Clip)) {
        if let Some(c) = self.current.take() {
            retire(c);
        }
        while let Some(c) = self.pop() {
            retire(c);
        }
        self.phase = Phase::Idle;
        self.t = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    fn tone(hz: f32, secs: f32, rate: u32) -> Clip {
        let n = (secs * rate as f32) as usize;
        let v = (0..n)
            .map(|i| 0.5 * (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin())
            .collect();
        Clip::new(rate, v).unwrap_or_else(|| panic!("clip"))
    }

    fn rms(s: &[f32]) -> f32 {
        (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
    }

    #[test]
    fn music_fades_in_crossfades_and_does_not_restart() {
        let mut kept = Vec::new();
        let mut retire = |c: Clip| kept.push(c);
        let mut m = MusicPlayer::new(RATE);
        let a = tone(220.0, 1.0, 44_100);
        m.play(Some(a.clone()), true, &mut retire);
        let mut out = vec![0.0; RATE as usize * 3];
        m.render_add(&mut out, &mut retire);
        // A fade-in: quiet at first, full after MUSIC_FADE_S.
        assert!(rms(&out[..2_000]) < 0.05);
        assert!((rms(&out[2 * RATE as usize..]) - 0.354).abs() < 0.02);
        // Asking again for the same clip changes nothing.
        m.play(Some(a.clone()), true, &mut retire);
        assert!(
            m.current
                .as_ref()
                .is_some_and(|t| t.pos > 0.0 && t.gain == 1.0)
        );
        // Another track: the first fades out and is let go of.
        m.play(Some(tone(330.0, 0.5, 22_050)), false, &mut retire);
        let mut out = vec![0.0; RATE as usize * 2];
        m.render_add(&mut out, &mut retire);
        assert_eq!(kept.len(), 2, "the faded track and the ended one-shot");
        assert!(!m.is_playing());
    }

    #[test]
    fn radio_calls_play_in_turn_band_limited_and_the_queue_is_bounded() {
        let mut retired = 0;
        let mut retire = |_c: Clip| retired += 1;
        let mut r = Radio::new(RATE);
        for _ in 0..(RADIO_QUEUE + 3) {
            r.push(tone(1_000.0, 0.3, 22_050), &mut retire);
        }
        assert_eq!(r.pending(), RADIO_QUEUE);
        let mut out = vec![0.0; RATE as usize * 4];
        r.render_add(&mut out, &mut retire);
        assert!(!r.is_active());
        assert_eq!(retired, RADIO_QUEUE + 3);
        assert!(out.iter().all(|v| v.is_finite() && v.abs() < 1.5));
        // The treatment keeps a 1 kHz voice but cuts a 60 Hz hum and a 9 kHz whistle.
        let level = |hz: f32| {
            let mut r = Radio::new(RATE);
            r.push(tone(hz, 1.0, RATE), &mut |_| {});
            let mut out = vec![0.0; RATE as usize];
            r.render_add(&mut out, &mut |_| {});
            rms(&out[RATE as usize / 4..RATE as usize * 3 / 4])
        };
        let (hum, voice, whistle) = (level(60.0), level(1_000.0), level(9_000.0));
        println!("radio: 60 Hz {hum:.3}, 1 kHz {voice:.3}, 9 kHz {whistle:.3}");
        assert!(voice > 2.0 * hum && voice > 2.0 * whistle);
    }
}
