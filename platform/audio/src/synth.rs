//! Synthesized sounds for what the pack has no recording of: wind noise, the gear and flap
//! motors, the stall buffet, a thump (afterburner light, gear lock) and a distant jet's noise.
//! Every generator is a pure function of its seed, its rate and the parameters set on it: noise
//! comes from a seeded xorshift PRNG, filters are one-pole, levels glide per sample with time
//! constants counted in samples. Nothing here allocates after construction.
//!
//! Owns the synthesis maths. Must not: read a clock, a file or a device, or know about buses
//! and positions (`mixer`, `spatial`).

use std::f32::consts::{PI, TAU};

use crate::engine::unit;

/// Seeded white noise (xorshift32), −1 … 1. The same seed always gives the same samples.
#[derive(Debug, Clone)]
pub struct Noise(u32);

impl Noise {
    /// Noise from `seed` (0 is replaced: xorshift would stay at 0 for ever).
    pub fn new(seed: u32) -> Noise {
        Noise(if seed == 0 { 0x9e37_79b9 } else { seed })
    }

    /// The next sample, uniform in −1 … 1.
    pub fn sample(&mut self) -> f32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        (x as f32 / u32::MAX as f32) * 2.0 - 1.0
    }
}

/// The coefficient of a one-pole low-pass at `hz` for `rate` samples per second.
pub fn one_pole_k(hz: f32, rate: u32) -> f32 {
    let hz = hz.clamp(1.0, rate.max(2) as f32 * 0.45);
    1.0 - (-TAU * hz / rate.max(1) as f32).exp()
}

/// The coefficient of a glide that covers 63 % of a step in `seconds`.
pub fn glide_k(seconds: f32, rate: u32) -> f32 {
    1.0 - (-1.0 / (seconds * rate.max(1) as f32).max(1.0)).exp()
}

/// Gain that brings white noise (RMS 1/√3) through a one-pole low-pass of coefficient `k` back
/// to RMS ≈ 0.5: a one-pole filter keeps `k / (2 − k)` of white noise's variance.
fn lp_makeup(k: f32) -> f32 {
    0.5 * 3f32.sqrt() * ((2.0 - k) / k.max(1e-6)).sqrt()
}

/// A one-pole low-pass.
#[derive(Debug, Clone, Copy, Default)]
pub struct OnePole {
    y: f32,
}

impl OnePole {
    /// Filters `x` with coefficient `k` (from [`one_pole_k`]).
    pub fn lp(&mut self, x: f32, k: f32) -> f32 {
        self.y += (x - self.y) * k;
        self.y
    }

    /// High-pass: `x` less its low-passed part.
    pub fn hp(&mut self, x: f32, k: f32) -> f32 {
        x - self.lp(x, k)
    }
}

/// Two one-pole low-passes in a row (12 dB per octave).
pub fn lp2(p: &mut [OnePole; 2], x: f32, k: f32) -> f32 {
    let y = p[0].lp(x, k);
    p[1].lp(y, k)
}

/// Dynamic pressure at which the wind is at full level, Pa (≈ 255 m/s at sea level).
pub const WIND_Q_FULL_PA: f32 = 40_000.0;
/// Level of the wind at [`WIND_Q_FULL_PA`] (RMS, before the bus).
const WIND_LEVEL: f32 = 0.3;

/// Wind over the canopy: seeded noise through a low-pass whose cutoff and level rise with the
/// dynamic pressure (`q`): a hiss at taxi speed, a roar at high speed. A slow random swell keeps
/// it from sounding like a steady hiss.
#[derive(Debug, Clone)]
pub struct Wind {
    rate: u32,
    noise: Noise,
    lp: [OnePole; 2],
    hp: OnePole,
    swell_noise: Noise,
    swell: [OnePole; 2],
    /// Normalized pressure 0 … 1, gliding.
    level: f32,
    target: f32,
    k_glide: f32,
    k_hp: f32,
    k_swell: f32,
}

impl Wind {
    /// Silent wind at `rate`.
    pub fn new(rate: u32, seed: u32) -> Wind {
        Wind {
            rate,
            noise: Noise::new(seed),
            lp: [OnePole::default(); 2],
            hp: OnePole::default(),
            swell_noise: Noise::new(seed ^ 0x5bd1_e995),
            swell: [OnePole::default(); 2],
            level: 0.0,
            target: 0.0,
            k_glide: glide_k(0.1, rate),
            k_hp: one_pole_k(60.0, rate),
            k_swell: one_pole_k(0.7, rate),
        }
    }

    /// The dynamic pressure, Pa (negative and NaN are 0).
    pub fn set_pressure(&mut self, q_pa: f32) {
        self.target = unit(q_pa / WIND_Q_FULL_PA);
    }

    /// Adds the next samples into `out` (mono). Renders nothing while silent.
    pub fn render_add(&mut self, out: &mut [f32]) {
        if self.level < 1e-5 && self.target == 0.0 {
            self.level = 0.0;
            return;
        }
        // The cutoff follows the level per block (it moves slowly; per sample would cost an exp).
        let mid = self.level + (self.target - self.level) * 0.5;
        let cutoff = 150.0 + 2_400.0 * mid.sqrt();
        let k = one_pole_k(cutoff, self.rate);
        // Two poles keep about 70 % of one pole's level on noise this much wider than the cutoff.
        let makeup = lp_makeup(k) / 0.7;
        // The level glides per sample; its loudness curve (a `powf`) is taken at the block's
        // ends and interpolated between.
        let start = self.level.powf(0.6);
        let keep = (1.0 - self.k_glide).powi(out.len() as i32);
        let end = (self.target + (self.level - self.target) * keep).powf(0.6);
        let n = out.len().max(1) as f32;
        for (i, o) in out.iter_mut().enumerate() {
            self.level += (self.target - self.level) * self.k_glide;
            let loud = start + (end - start) * (i as f32 + 1.0) / n;
            let x = self.noise.sample();
            let y = lp2(&mut self.lp, x, k);
            let y = self.hp.hp(y, self.k_hp);
            let s = self.swell_noise.sample();
            let s = lp2(&mut self.swell, s, self.k_swell);
            // ±15 % swell (the doubly filtered noise stays within about ±0.02).
            let swell = 1.0 + (s * 8.0).clamp(-0.15, 0.15);
            *o += WIND_LEVEL * loud * makeup * y * swell;
        }
    }
}

/// Level of the stall buffet at full intensity.
const BUFFET_LEVEL: f32 = 1.0;

/// The stall buffet: a low rumble (noise low-passed at about 40 Hz) shaken at a ragged 6–12 Hz,
/// its level set by an intensity 0 … 1.
#[derive(Debug, Clone)]
pub struct Buffet {
    noise: Noise,
    lp: [OnePole; 2],
    shake_noise: Noise,
    shake: OnePole,
    intensity: f32,
    target: f32,
    k: f32,
    k_shake: f32,
    k_glide: f32,
    makeup: f32,
}

impl Buffet {
    /// A buffet at rest.
    pub fn new(rate: u32, seed: u32) -> Buffet {
        let k = one_pole_k(40.0, rate);
        Buffet {
            noise: Noise::new(seed),
            lp: [OnePole::default(); 2],
            shake_noise: Noise::new(seed.rotate_left(11) ^ 0x2545_f491),
            shake: OnePole::default(),
            intensity: 0.0,
            target: 0.0,
            k,
            k_shake: one_pole_k(9.0, rate),
            k_glide: glide_k(0.08, rate),
            makeup: lp_makeup(k) / 0.7,
        }
    }

    /// How hard it shakes, 0 … 1.
    pub fn set_intensity(&mut self, v: f32) {
        self.target = unit(v);
    }

    /// Adds the next samples into `out` (mono).
    pub fn render_add(&mut self, out: &mut [f32]) {
        if self.intensity < 1e-5 && self.target == 0.0 {
            self.intensity = 0.0;
            return;
        }
        for o in out.iter_mut() {
            self.intensity += (self.target - self.intensity) * self.k_glide;
            let x = self.noise.sample();
            let y = lp2(&mut self.lp, x, self.k) * self.makeup;
            // A ragged shake: low-passed noise, rectified, around a floor of 0.4.
            let m = self.shake.lp(self.shake_noise.sample(), self.k_shake);
            let shake = 0.4 + (m.abs() * 12.0).min(1.2);
            *o += BUFFET_LEVEL * self.intensity * y * shake;
        }
    }
}

/// An electric motor's whine (gear or flaps): a band-limited sawtooth at `hz` that spins up
/// when it starts and down when it stops, with a little brush noise.
#[derive(Debug, Clone)]
pub struct Motor {
    rate: u32,
    hz: f32,
    level: f32,
    phase: f32,
    /// 0 stopped … 1 at speed, gliding.
    spin: f32,
    running: bool,
    noise: Noise,
    lp: OnePole,
    k_lp: f32,
    k_up: f32,
    k_down: f32,
}

impl Motor {
    /// A stopped motor whining at `hz` when at speed, `level` loud.
    pub fn new(rate: u32, hz: f32, level: f32, seed: u32) -> Motor {
        Motor {
            rate,
            hz,
            level,
            phase: 0.0,
            spin: 0.0,
            running: false,
            noise: Noise::new(seed),
            lp: OnePole::default(),
            k_lp: one_pole_k(1_800.0, rate),
            k_up: glide_k(0.15, rate),
            k_down: glide_k(0.08, rate),
        }
    }

    /// Whether it runs.
    pub fn set_running(&mut self, on: bool) {
        self.running = on;
    }

    /// Adds the next samples into `out` (mono).
    pub fn render_add(&mut self, out: &mut [f32]) {
        if !self.running && self.spin < 1e-4 {
            self.spin = 0.0;
            return;
        }
        let target = if self.running { 1.0 } else { 0.0 };
        let k = if self.running { self.k_up } else { self.k_down };
        let dt = 1.0 / self.rate.max(1) as f32;
        for o in out.iter_mut() {
            self.spin += (target - self.spin) * k;
            let f = self.hz * (0.6 + 0.4 * self.spin);
            self.phase = wrap(self.phase + f * dt);
            let saw = 2.0 * self.phase - 1.0;
            let brush = 0.25 * self.noise.sample();
            let y = self.lp.lp(saw + brush, self.k_lp);
            *o += self.level * self.spin * y;
        }
    }
}

/// A thump: a decaying low sine that drops in pitch, over a short burst of noise. Triggered by
/// the afterburner lighting and the gear locking.
#[derive(Debug, Clone)]
pub struct Thump {
    rate: u32,
    noise: Noise,
    lp: OnePole,
    phase: f32,
    /// Samples since the trigger; `None` when done.
    t: Option<u32>,
    /// Start and end frequency, Hz.
    sweep: (f32, f32),
    /// Decay time constant, seconds.
    tau: f32,
    level: f32,
    k_lp: f32,
}

impl Thump {
    /// A thump from `sweep.0` Hz down to `sweep.1` Hz decaying with `tau` s, `level` loud.
    pub fn new(rate: u32, sweep: (f32, f32), tau: f32, level: f32, seed: u32) -> Thump {
        Thump {
            rate,
            noise: Noise::new(seed),
            lp: OnePole::default(),
            phase: 0.0,
            t: None,
            sweep,
            tau: tau.max(1e-3),
            level,
            k_lp: one_pole_k(500.0, rate),
        }
    }

    /// Starts it (again, from the top).
    pub fn trigger(&mut self) {
        self.t = Some(0);
    }

    /// Whether it is sounding.
    pub fn is_playing(&self) -> bool {
        self.t.is_some()
    }

    /// Adds the next samples into `out` (mono).
    pub fn render_add(&mut self, out: &mut [f32]) {
        let Some(mut t) = self.t else { return };
        let rate = self.rate.max(1) as f32;
        // Done after 6 time constants (−52 dB).
        let end = (6.0 * self.tau * rate) as u32;
        for o in out.iter_mut() {
            if t >= end {
                self.t = None;
                return;
            }
            let s = t as f32 / rate;
            let env = (-s / self.tau).exp();
            let f = self.sweep.1 + (self.sweep.0 - self.sweep.1) * env;
            self.phase = wrap(self.phase + f / rate);
            let body = (TAU * self.phase).sin();
            // The noise burst decays four times faster: the attack's crack.
            let crack = self.lp.lp(self.noise.sample(), self.k_lp) * 3.0 * env.powi(4);
            // A 2 ms attack ramp avoids a click at the start.
            let attack = (s / 0.002).min(1.0);
            *o += self.level * attack * env * (body + crack);
            t += 1;
        }
        self.t = Some(t);
    }
}

/// A distant jet when the pack has no loop for it: roaring noise with a faint turbine whine whose
/// pitch follows the rate it is played at (the engine's spool and the Doppler shift).
#[derive(Debug, Clone)]
pub struct JetNoise {
    inv_rate: f32,
    noise: Noise,
    lp: [OnePole; 2],
    phase: f32,
    k: f32,
    makeup: f32,
}

/// The whine of [`JetNoise`] at rate 1, Hz.
pub const JET_WHINE_HZ: f32 = 1_200.0;

impl JetNoise {
    /// A jet's noise at `rate` samples per second.
    pub fn new(rate: u32, seed: u32) -> JetNoise {
        let k = one_pole_k(700.0, rate);
        JetNoise {
            inv_rate: 1.0 / rate.max(1) as f32,
            noise: Noise::new(seed),
            lp: [OnePole::default(); 2],
            phase: 0.0,
            k,
            makeup: lp_makeup(k) / 0.7,
        }
    }

    /// The next sample, its whine at `JET_WHINE_HZ × rate`.
    pub fn next(&mut self, rate: f32) -> f32 {
        let x = self.noise.sample();
        let roar = lp2(&mut self.lp, x, self.k) * self.makeup;
        self.phase = wrap(self.phase + JET_WHINE_HZ * rate * self.inv_rate);
        0.7 * roar + 0.15 * parabolic_sine(self.phase)
    }
}

/// The fractional part of a phase (0 … 2³¹): a cast, where `f32::fract` may be a libm call on
/// the baseline x86-64 target — per sample per voice, that was a fifth of the mix's time.
pub fn wrap(x: f32) -> f32 {
    x - (x as i32) as f32
}

/// A sine of one cycle per unit of `phase` (0 … 1) from two parabolas: within 6 % of the real
/// thing, a tenth of its cost — for tones heard under noise, where `sin` per sample per voice
/// would be most of the mix's time.
pub fn parabolic_sine(phase: f32) -> f32 {
    let phase = if phase < 0.0 { phase + 1.0 } else { phase };
    let x = 2.0 * wrap(phase) - 1.0;
    // −sin(πx) ≈ 4x(|x| − 1) for x in −1 … 1.
    4.0 * x * (x.abs() - 1.0)
}

/// Equal-power left and right gains for a pan of −1 (left) … 1 (right).
pub fn equal_power(pan: f32) -> (f32, f32) {
    let p = if pan.is_nan() {
        0.0
    } else {
        pan.clamp(-1.0, 1.0)
    };
    let a = (p + 1.0) * PI / 4.0;
    let (r, l) = a.sin_cos();
    (l, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;

    fn rms(s: &[f32]) -> f32 {
        (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
    }

    fn wind_at(q: f32) -> Vec<f32> {
        let mut w = Wind::new(RATE, 7);
        w.set_pressure(q);
        let mut settle = vec![0.0; RATE as usize];
        w.render_add(&mut settle);
        let mut out = vec![0.0; RATE as usize];
        w.render_add(&mut out);
        out
    }

    #[test]
    fn noise_is_seeded_and_spread() {
        let a: Vec<f32> = (0..1000)
            .scan(Noise::new(5), |n, _| Some(n.sample()))
            .collect();
        let b: Vec<f32> = (0..1000)
            .scan(Noise::new(5), |n, _| Some(n.sample()))
            .collect();
        let c: Vec<f32> = (0..1000)
            .scan(Noise::new(6), |n, _| Some(n.sample()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!((rms(&a) - 0.577).abs() < 0.03, "{}", rms(&a));
        assert!(a.iter().all(|v| v.abs() <= 1.0));
        // Seed 0 does not stick at 0.
        let mut z = Noise::new(0);
        assert!((0..10).any(|_| z.sample() != 0.0));
    }

    #[test]
    fn wind_rises_with_dynamic_pressure_and_is_silent_at_rest() {
        let still = wind_at(0.0);
        assert!(still.iter().all(|&v| v == 0.0));
        let mut last = 0.0;
        for q in [1_000.0, 5_000.0, 15_000.0, 40_000.0, 80_000.0] {
            let r = rms(&wind_at(q));
            println!("q {q} Pa: wind RMS {r:.4}");
            assert!(
                r > last * 1.05 || q > WIND_Q_FULL_PA,
                "{q}: {r} after {last}"
            );
            assert!(r < 0.5);
            last = r;
        }
        assert!(last > 0.1, "{last}");
        // Faster wind is brighter too: more zero crossings.
        let zc = |s: &[f32]| {
            s.windows(2)
                .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
                .count()
        };
        assert!(zc(&wind_at(40_000.0)) > zc(&wind_at(2_000.0)));
    }

    #[test]
    fn buffet_motor_and_thump_sound_only_when_asked() {
        let mut b = Buffet::new(RATE, 3);
        let mut out = vec![0.0; RATE as usize / 2];
        b.render_add(&mut out);
        assert!(out.iter().all(|&v| v == 0.0));
        let mut levels = Vec::new();
        for i in [0.25, 0.5, 1.0] {
            let mut b = Buffet::new(RATE, 3);
            b.set_intensity(i);
            let mut out = vec![0.0; RATE as usize];
            b.render_add(&mut out);
            levels.push(rms(&out[RATE as usize / 2..]));
        }
        println!("buffet RMS at 0.25/0.5/1: {levels:?}");
        assert!(levels[0] < levels[1] && levels[1] < levels[2] && levels[2] < 0.5);
        assert!(levels[2] > 0.05);

        let mut m = Motor::new(RATE, 120.0, 0.2, 1);
        let mut out = vec![0.0; RATE as usize / 2];
        m.render_add(&mut out);
        assert!(out.iter().all(|&v| v == 0.0));
        m.set_running(true);
        m.render_add(&mut out);
        assert!(rms(&out[RATE as usize / 4..]) > 0.02);
        m.set_running(false);
        let mut tail = vec![0.0; RATE as usize];
        m.render_add(&mut tail);
        assert!(rms(&tail[RATE as usize / 2..]) < 1e-3);

        let mut t = Thump::new(RATE, (90.0, 45.0), 0.08, 0.8, 9);
        let mut out = vec![0.0; RATE as usize];
        t.render_add(&mut out);
        assert!(out.iter().all(|&v| v == 0.0));
        t.trigger();
        assert!(t.is_playing());
        t.render_add(&mut out);
        assert!(!t.is_playing());
        let peak = out.iter().fold(0.0f32, |a, v| a.max(v.abs()));
        assert!(peak > 0.3 && peak < 2.0, "{peak}");
        // It starts without a click: the first samples are small.
        assert!(out[..8].iter().all(|v| v.abs() < 0.1), "{:?}", &out[..8]);
    }

    #[test]
    fn jet_noise_whine_follows_its_rate() {
        let mut j = JetNoise::new(RATE, 4);
        let s: Vec<f32> = (0..RATE).map(|_| j.next(1.0)).collect();
        assert!(rms(&s) > 0.1 && rms(&s) < 0.8, "{}", rms(&s));
        assert!(s.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn the_parabolic_sine_is_close() {
        for i in 0..1000 {
            let p = i as f32 / 1000.0;
            let err = (parabolic_sine(p) - (TAU * p).sin()).abs();
            assert!(err < 0.06, "{p}: {err}");
        }
    }

    #[test]
    fn equal_power_pan() {
        let (l, r) = equal_power(0.0);
        assert!((l - r).abs() < 1e-6 && (l * l + r * r - 1.0).abs() < 1e-5);
        assert!(equal_power(-1.0).1.abs() < 1e-6);
        assert!(equal_power(1.0).0.abs() < 1e-6);
        assert_eq!(equal_power(f32::NAN), equal_power(0.0));
    }
}
