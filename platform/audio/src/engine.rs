//! The engine sound of the aircraft the player flies: a pure, deterministic mixer of the pack's
//! idle and military loops (and afterburner loop, or a synthesized roar when the pack has none).
//!
//! From the engine's spool (RPM: 0 idle … 1 military) it crossfades idle into military with
//! equal-power gains, and plays each loop at the rate that puts it at the current RPM: the idle
//! loop stands for [`IDLE_N1`] of the military loop's RPM, so the current N1 is
//! `IDLE_N1 + (1 − IDLE_N1)·rpm`, the idle loop plays at `N1 / IDLE_N1` and the military loop at
//! `N1` — in mid-crossfade both loops sound the same pitch. Loudness rises with RPM, a little
//! more while the throttle leads the spool (the engine under load), and the afterburner's roar
//! fades in when it lights. Every parameter is smoothed per output sample with time constants
//! counted in samples (never the wall clock), so a step in the inputs is a glide, never a
//! click. [`EngineSound::render`] fills a buffer: the same inputs always give the same samples.
//!
//! Owns the engine's mixing maths. Must not: touch a device, a clock or a file, or allocate
//! while rendering.

use std::f32::consts::FRAC_PI_2;

use crate::clip::Clip;

/// RPM of the idle loop as a fraction of the military loop's (our trainer: 55 % N1).
pub const IDLE_N1: f32 = 0.55;
/// Time constant of the RPM and throttle glide, seconds (converted to samples at the output
/// rate).
pub const RPM_GLIDE_S: f32 = 0.06;
/// Time constant of the afterburner's light and cut, seconds.
pub const AFTERBURNER_GLIDE_S: f32 = 0.12;
/// Time constant of volume changes (mute, master), seconds.
pub const GAIN_GLIDE_S: f32 = 0.015;
/// Loudness at idle relative to military power (on top of the loops' own levels).
const IDLE_LOUDNESS: f32 = 0.7;
/// Extra loudness while the throttle leads the spool by its whole range.
const LOAD_LOUDNESS: f32 = 0.15;
/// Level of the afterburner loop, or of the synthesized roar, when fully lit.
const AFTERBURNER_LEVEL: f32 = 0.8;
/// Slowest and fastest playback rate of a loop.
const RATE_RANGE: (f32, f32) = (0.25, 4.0);

/// What the engine is doing, each value 0 … 1. Out-of-range, infinite and NaN values are
/// clamped ([`EngineParams::sanitized`]) wherever they enter.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EngineParams {
    /// Spool (engine core): 0 idle … 1 military.
    pub rpm: f32,
    /// Commanded throttle: 0 idle … 1 military.
    pub throttle: f32,
    /// Afterburner: 0 out … 1 fully lit.
    pub afterburner: f32,
}

/// `x` in 0 … 1; NaN is 0.
pub fn unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

impl EngineParams {
    /// Every value in 0 … 1 (NaN → 0, +∞ → 1, negative → 0).
    pub fn sanitized(self) -> EngineParams {
        EngineParams {
            rpm: unit(self.rpm),
            throttle: unit(self.throttle),
            afterburner: unit(self.afterburner),
        }
    }
}

/// An engine's loops, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineLoops {
    /// At idle.
    pub idle: Clip,
    /// At full military power.
    pub mil: Clip,
    /// The afterburner's roar, when the pack has one.
    pub afterburner: Option<Clip>,
}

/// A one-pole glide toward a target: `τ` samples to cover 63 % of a step.
#[derive(Debug, Clone, Copy)]
struct Glide {
    value: f32,
    target: f32,
    k: f32,
}

impl Glide {
    fn new(value: f32, tau_samples: f32) -> Glide {
        Glide {
            value,
            target: value,
            k: 1.0 - (-1.0 / tau_samples.max(1.0)).exp(),
        }
    }

    fn next(&mut self) -> f32 {
        let d = self.target - self.value;
        // Arrive exactly (a loop at rate 1 then plays its samples untouched).
        self.value = if d.abs() < 1e-6 {
            self.target
        } else {
            self.value + d * self.k
        };
        self.value
    }
}

/// A clip played in a loop at a variable rate, linearly interpolated.
#[derive(Debug, Clone)]
struct LoopPlayer {
    clip: Clip,
    /// Position in the clip, samples.
    pos: f64,
    /// Clip samples per output sample at rate 1.
    base_step: f64,
}

impl LoopPlayer {
    fn new(clip: Clip, out_rate: u32) -> LoopPlayer {
        LoopPlayer {
            base_step: f64::from(clip.rate()) / f64::from(out_rate.max(1)),
            clip,
            pos: 0.0,
        }
    }

    fn next(&mut self, rate: f32) -> f32 {
        let s = self.clip.samples();
        let len = s.len();
        let i = (self.pos as usize).min(len - 1);
        let frac = (self.pos - i as f64) as f32;
        let (a, b) = (s[i], s[(i + 1) % len]);
        self.pos += self.base_step * f64::from(rate.clamp(RATE_RANGE.0, RATE_RANGE.1));
        if self.pos >= len as f64 {
            self.pos = self.pos.rem_euclid(len as f64);
        }
        a + (b - a) * frac
    }
}

/// Broadband afterburner roar for packs without an `_ab` loop: seeded white noise through two
/// one-pole low-passes (deterministic).
#[derive(Debug, Clone)]
struct Roar {
    state: u32,
    lp: [f32; 2],
    k: f32,
}

impl Roar {
    fn new(out_rate: u32) -> Roar {
        // About 900 Hz: a deep rumble with some tearing.
        let k = 1.0 - (-2.0 * std::f32::consts::PI * 900.0 / out_rate.max(1) as f32).exp();
        Roar {
            state: 0x9e37_79b9,
            lp: [0.0; 2],
            k,
        }
    }

    fn next(&mut self) -> f32 {
        // xorshift32
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.state = x;
        let white = (x as f32 / u32::MAX as f32) * 2.0 - 1.0;
        self.lp[0] += (white - self.lp[0]) * self.k;
        self.lp[1] += (self.lp[0] - self.lp[1]) * self.k;
        // The two poles take the level (RMS 0.58 for white noise) down to about 0.08: bring it
        // back up to about 0.35.
        self.lp[1] * 4.0
    }
}

/// The engine sound: [`EngineSound::set`] the engine's state and the gain, [`EngineSound::render`]
/// mono samples at the output rate given to [`EngineSound::new`].
#[derive(Debug, Clone)]
pub struct EngineSound {
    out_rate: u32,
    idle: LoopPlayer,
    mil: LoopPlayer,
    afterburner: Option<LoopPlayer>,
    roar: Roar,
    rpm: Glide,
    throttle: Glide,
    ab: Glide,
    gain: Glide,
}

impl EngineSound {
    /// The engine at idle with the gain at 0 (it fades in once [`EngineSound::set_gain`] raises
    /// it), rendering at `out_rate` samples per second.
    pub fn new(loops: EngineLoops, out_rate: u32) -> EngineSound {
        let out_rate = out_rate.max(1);
        let samples = |s: f32| s * out_rate as f32;
        EngineSound {
            out_rate,
            idle: LoopPlayer::new(loops.idle, out_rate),
            mil: LoopPlayer::new(loops.mil, out_rate),
            afterburner: loops.afterburner.map(|c| LoopPlayer::new(c, out_rate)),
            roar: Roar::new(out_rate),
            rpm: Glide::new(0.0, samples(RPM_GLIDE_S)),
            throttle: Glide::new(0.0, samples(RPM_GLIDE_S)),
            ab: Glide::new(0.0, samples(AFTERBURNER_GLIDE_S)),
            gain: Glide::new(0.0, samples(GAIN_GLIDE_S)),
        }
    }

    /// The loops it plays, given back (to rebuild it at another rate, or to free them off the
    /// audio thread).
    pub fn into_loops(self) -> EngineLoops {
        EngineLoops {
            idle: self.idle.clip,
            mil: self.mil.clip,
            afterburner: self.afterburner.map(|p| p.clip),
        }
    }

    /// The output rate, samples per second.
    pub fn out_rate(&self) -> u32 {
        self.out_rate
    }

    /// The engine's state to glide toward (clamped).
    pub fn set(&mut self, p: EngineParams) {
        let p = p.sanitized();
        self.rpm.target = p.rpm;
        self.throttle.target = p.throttle;
        self.ab.target = p.afterburner;
    }

    /// The engine's state it is gliding toward.
    pub fn target(&self) -> EngineParams {
        EngineParams {
            rpm: self.rpm.target,
            throttle: self.throttle.target,
            afterburner: self.ab.target,
        }
    }

    /// The overall gain to glide toward, 0 … 1 (master volume × engine volume, 0 when muted).
    pub fn set_gain(&mut self, gain: f32) {
        self.gain.target = unit(gain);
    }

    /// Whether the sound has faded out: the gain is and stays (nearly) 0.
    pub fn is_silent(&self) -> bool {
        self.gain.target == 0.0 && self.gain.value < 1e-4
    }

    /// Fills `out` with the next samples (mono, −1 … 1).
    pub fn render(&mut self, out: &mut [f32]) {
        for o in out.iter_mut() {
            let rpm = self.rpm.next();
            let throttle = self.throttle.next();
            let ab = self.ab.next();
            let gain = self.gain.next();
            let n1 = IDLE_N1 + (1.0 - IDLE_N1) * rpm;
            let idle = self.idle.next(n1 / IDLE_N1);
            let mil = self.mil.next(n1);
            let x = rpm * FRAC_PI_2;
            let (g_mil, g_idle) = x.sin_cos();
            let loud = IDLE_LOUDNESS
                + (1.0 - IDLE_LOUDNESS) * rpm
                + LOAD_LOUDNESS * (throttle - rpm).max(0.0);
            let roar = match &mut self.afterburner {
                Some(p) => p.next(n1),
                None => self.roar.next(),
            };
            let v = gain * (loud * (g_idle * idle + g_mil * mil) + AFTERBURNER_LEVEL * ab * roar);
            *o = v.clamp(-1.0, 1.0);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const RATE: u32 = 44_100;

    /// A looping sine of `hz` (whole cycles per second so it wraps cleanly), 1 s long.
    pub(crate) fn sine(hz: f32, level: f32) -> Clip {
        let v = (0..RATE)
            .map(|i| level * (2.0 * std::f32::consts::PI * hz * i as f32 / RATE as f32).sin())
            .collect();
        Clip::new(RATE, v).unwrap_or_else(|| panic!("clip"))
    }

    /// Idle a 110 Hz tone, military a 200 Hz tone (110 / 0.55): one tone whose pitch follows RPM.
    pub(crate) fn tones() -> EngineLoops {
        EngineLoops {
            idle: sine(110.0, 0.4),
            mil: sine(200.0, 0.6),
            afterburner: None,
        }
    }

    pub(crate) fn rms(s: &[f32]) -> f32 {
        (s.iter().map(|v| v * v).sum::<f32>() / s.len() as f32).sqrt()
    }

    /// Zero crossings per second.
    pub(crate) fn zcr(s: &[f32], rate: u32) -> f32 {
        let n = s
            .windows(2)
            .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
            .count();
        n as f32 * rate as f32 / s.len() as f32
    }

    fn max_step(s: &[f32]) -> f32 {
        s.windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f32::max)
    }

    /// The engine held at `p` with full gain, after `settle` s; then `secs` s rendered.
    fn steady(loops: EngineLoops, p: EngineParams, secs: f32) -> Vec<f32> {
        let mut e = EngineSound::new(loops, RATE);
        e.set(p);
        e.set_gain(1.0);
        let mut settle = vec![0.0; RATE as usize];
        e.render(&mut settle);
        let mut out = vec![0.0; (secs * RATE as f32) as usize];
        e.render(&mut out);
        out
    }

    fn at(rpm: f32) -> EngineParams {
        EngineParams {
            rpm,
            throttle: rpm,
            afterburner: 0.0,
        }
    }

    #[test]
    fn silence_at_zero_gain_and_a_fade_in_without_a_click() {
        let mut e = EngineSound::new(tones(), RATE);
        e.set(at(1.0));
        let mut out = vec![1.0; 4096];
        e.render(&mut out);
        assert!(out.iter().all(|&v| v == 0.0));
        assert!(e.is_silent());
        e.set_gain(1.0);
        e.render(&mut out);
        assert!(!e.is_silent());
        assert!(rms(&out[2048..]) > 0.1);
        // The fade-in from silence is smooth too.
        assert!(max_step(&out) < 0.05, "{}", max_step(&out));
    }

    #[test]
    fn military_is_louder_and_higher_than_idle_and_pitch_follows_rpm() {
        let idle = steady(tones(), at(0.0), 0.5);
        let mil = steady(tones(), at(1.0), 0.5);
        assert!(
            rms(&mil) > 1.5 * rms(&idle),
            "{} vs {}",
            rms(&mil),
            rms(&idle)
        );
        // 2 crossings per cycle.
        let (zi, zm) = (zcr(&idle, RATE), zcr(&mil, RATE));
        assert!((zi - 220.0).abs() < 4.0, "{zi}");
        assert!((zm - 400.0).abs() < 4.0, "{zm}");
        // In between the two loops sound one pitch: N1 × 200 Hz.
        let mut last = zi;
        for rpm in [0.25, 0.5, 0.75] {
            let z = zcr(&steady(tones(), at(rpm), 0.5), RATE);
            let n1 = IDLE_N1 + (1.0 - IDLE_N1) * rpm;
            assert!((z - 400.0 * n1).abs() < 6.0, "rpm {rpm}: {z}");
            assert!(z > last);
            last = z;
        }
    }

    #[test]
    fn a_throttle_step_glides_without_a_click() {
        let mut e = EngineSound::new(tones(), RATE);
        e.set_gain(1.0);
        e.set(at(0.0));
        let mut before = vec![0.0; RATE as usize / 2];
        e.render(&mut before);
        // The steepest a steady tone ever gets (200 Hz at 0.6 × full loudness).
        let bound = 2.0 * std::f32::consts::PI * 200.0 / RATE as f32 * 0.6 * 1.15 * 1.1;
        for p in [at(1.0), at(0.0), at(1.0)] {
            e.set(p);
            let mut after = vec![0.0; RATE as usize / 4];
            e.render(&mut after);
            let step = max_step(&after);
            assert!(step < bound, "{step} ≥ {bound}");
            assert!(max_step(&[before[before.len() - 1], after[0]]) < bound);
            before = after;
        }
        // A mute glides out too.
        e.set_gain(0.0);
        let mut out = vec![0.0; RATE as usize / 4];
        e.render(&mut out);
        assert!(max_step(&out) < bound);
        assert!(e.is_silent() && out[out.len() - 1].abs() < 1e-4);
    }

    #[test]
    fn the_glide_follows_its_time_constant_in_samples() {
        let mut e = EngineSound::new(tones(), RATE);
        e.set(at(1.0));
        let tau = (RPM_GLIDE_S * RATE as f32) as usize;
        let mut out = vec![0.0; tau];
        e.render(&mut out);
        // 1 − 1/e of the step after τ samples, whatever the wall clock did.
        assert!((e.rpm.value - 0.632).abs() < 0.01, "{}", e.rpm.value);
        // Twice the output rate, twice the samples for the same glide.
        let mut fast = EngineSound::new(tones(), 2 * RATE);
        fast.set(at(1.0));
        let mut out = vec![0.0; 2 * tau];
        fast.render(&mut out);
        assert!((fast.rpm.value - e.rpm.value).abs() < 0.01);
    }

    #[test]
    fn the_afterburner_adds_energy_with_or_without_its_loop() {
        let dry = steady(tones(), at(1.0), 0.5);
        let lit = EngineParams {
            afterburner: 1.0,
            ..at(1.0)
        };
        let roar = steady(tones(), lit, 0.5);
        assert!(
            rms(&roar) > 1.2 * rms(&dry),
            "{} vs {}",
            rms(&roar),
            rms(&dry)
        );
        // The synthesized roar is broadband: more crossings than the 200 Hz tone alone.
        assert!(
            zcr(&roar, RATE) > 1.2 * zcr(&dry, RATE),
            "{}",
            zcr(&roar, RATE)
        );
        let mut with_loop = tones();
        with_loop.afterburner = Some(sine(60.0, 0.5));
        let ab = steady(with_loop.clone(), lit, 0.5);
        assert!(rms(&ab) > 1.15 * rms(&dry), "{} vs {}", rms(&ab), rms(&dry));
        let unlit = steady(with_loop, at(1.0), 0.5);
        assert!((rms(&unlit) - rms(&dry)).abs() < 1e-3);
    }

    #[test]
    fn hostile_params_are_clamped() {
        let p = EngineParams {
            rpm: f32::NAN,
            throttle: f32::INFINITY,
            afterburner: -3.0,
        }
        .sanitized();
        assert_eq!(
            p,
            EngineParams {
                rpm: 0.0,
                throttle: 1.0,
                afterburner: 0.0
            }
        );
        let mut e = EngineSound::new(tones(), RATE);
        for p in [
            EngineParams {
                rpm: f32::NAN,
                throttle: f32::NAN,
                afterburner: f32::NAN,
            },
            EngineParams {
                rpm: f32::INFINITY,
                throttle: f32::NEG_INFINITY,
                afterburner: f32::INFINITY,
            },
            EngineParams {
                rpm: -1e30,
                throttle: 1e30,
                afterburner: -0.0,
            },
        ] {
            e.set(p);
            e.set_gain(f32::NAN);
            e.set_gain(f32::INFINITY);
            let mut out = vec![0.0; 2048];
            e.render(&mut out);
            assert!(out.iter().all(|v| v.is_finite() && v.abs() <= 1.0));
        }
        assert_eq!(e.target().rpm, 0.0);
        // A zero output rate is taken as 1 Hz, not a division by zero.
        let mut z = EngineSound::new(tones(), 0);
        let mut out = [0.0; 16];
        z.render(&mut out);
        assert!(out.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn rendering_is_deterministic_and_blocks_do_not_matter() {
        let run = |block: usize| {
            let mut e = EngineSound::new(tones(), 48_000);
            e.set_gain(0.8);
            e.set(EngineParams {
                rpm: 0.7,
                throttle: 1.0,
                afterburner: 1.0,
            });
            let mut out = vec![0.0; 9_600];
            for c in out.chunks_mut(block) {
                e.render(c);
            }
            out
        };
        assert_eq!(run(9_600), run(1));
        assert_eq!(run(256), run(333));
    }
}
