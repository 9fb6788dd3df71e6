//! Synthesized jet engine loops, written as 16-bit PCM mono WAV at 44.1 kHz.
//!
//! Owns: the sound of the trainer's engine at idle and at full (military) power, and the WAV
//! container. A loop is a compressor whine (the blade-passing tone and its second harmonic,
//! with a slow vibrato), the shaft's hum, and a broadband roar (filtered noise: a low rumble and
//! an intake hiss). Seamless by construction: every tone's frequency is a whole number of cycles
//! per loop, and the noise is generated past the loop's end and cross-faded (equal power) over
//! its beginning, so the last sample leads into the first as one sample of the noise leads into
//! the next. The noise comes from a seeded splitmix64 and all arithmetic is f64 with `libm`, so
//! the bytes are the same on every platform.

use core::f64::consts::PI;

/// Samples per second.
pub const RATE: u32 = 44_100;

/// One engine loop's recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineLoop {
    /// File stem (`trainer_idle`).
    pub name: &'static str,
    /// Loop length, seconds (whole: tones are rounded to whole cycles per loop).
    pub seconds: u32,
    /// Compressor blade-passing tone, Hz.
    pub whine_hz: f64,
    /// Shaft rotation, Hz.
    pub shaft_hz: f64,
    /// Relative levels of whine, hum, rumble and hiss.
    pub levels: [f64; 4],
    /// Rumble low-pass cut-off, Hz.
    pub rumble_hz: f64,
    /// Hiss band centre, Hz.
    pub hiss_hz: f64,
    /// Peak level of the loop, 0…1 of full scale (idle is quieter than full power).
    pub peak: f64,
    /// Noise seed.
    pub seed: u64,
}

/// The trainer's loops: idle (about 55 % N1) and full military power (100 % N1). The trainer
/// has no afterburner, so there is no reheat loop.
pub fn trainer_loops() -> [EngineLoop; 2] {
    [
        EngineLoop {
            name: "trainer_idle",
            seconds: 3,
            whine_hz: 2210.0,
            shaft_hz: 92.0,
            levels: [0.30, 0.16, 0.55, 0.10],
            rumble_hz: 420.0,
            hiss_hz: 3800.0,
            peak: 0.45,
            seed: 0x1d1e,
        },
        EngineLoop {
            name: "trainer_mil",
            seconds: 3,
            whine_hz: 4020.0,
            shaft_hz: 168.0,
            levels: [0.22, 0.12, 1.0, 0.30],
            rumble_hz: 900.0,
            hiss_hz: 5200.0,
            peak: 0.85,
            seed: 0x3111,
        },
    ]
}

/// A seeded splitmix64: uniform noise in [−1, 1).
#[derive(Debug, Clone)]
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// An RBJ biquad (direct form I).
#[derive(Debug, Clone)]
struct Biquad {
    b: [f64; 3],
    a: [f64; 2],
    x: [f64; 2],
    y: [f64; 2],
}

impl Biquad {
    fn new(b: [f64; 3], a0: f64, a: [f64; 2]) -> Biquad {
        Biquad {
            b: b.map(|v| v / a0),
            a: a.map(|v| v / a0),
            x: [0.0; 2],
            y: [0.0; 2],
        }
    }

    fn lowpass(f: f64, q: f64) -> Biquad {
        let w = 2.0 * PI * f / f64::from(RATE);
        let (c, alpha) = (libm::cos(w), libm::sin(w) / (2.0 * q));
        Biquad::new(
            [(1.0 - c) / 2.0, 1.0 - c, (1.0 - c) / 2.0],
            1.0 + alpha,
            [-2.0 * c, 1.0 - alpha],
        )
    }

    fn bandpass(f: f64, q: f64) -> Biquad {
        let w = 2.0 * PI * f / f64::from(RATE);
        let (c, alpha) = (libm::cos(w), libm::sin(w) / (2.0 * q));
        Biquad::new([alpha, 0.0, -alpha], 1.0 + alpha, [-2.0 * c, 1.0 - alpha])
    }

    fn step(&mut self, x: f64) -> f64 {
        let y = self.b[0] * x + self.b[1] * self.x[0] + self.b[2] * self.x[1]
            - self.a[0] * self.y[0]
            - self.a[1] * self.y[1];
        self.x = [x, self.x[0]];
        self.y = [y, self.y[0]];
        y
    }
}

/// A frequency rounded to whole cycles per loop of `seconds`.
fn whole(hz: f64, seconds: u32) -> f64 {
    let s = f64::from(seconds);
    libm::round(hz * s) / s
}

/// Noise through `filters`, `n + fade` samples after a settling pre-roll, then looped: the
/// first `fade` samples cross-faded with those past the end.
fn looped_noise(noise: &mut Noise, filters: &mut [Biquad], n: usize, fade: usize) -> Vec<f64> {
    let mut run = |noise: &mut Noise| {
        let mut v = noise.next();
        for f in filters.iter_mut() {
            v = f.step(v);
        }
        v
    };
    for _ in 0..8192 {
        run(noise);
    }
    let raw: Vec<f64> = (0..n + fade).map(|_| run(noise)).collect();
    let mut out = raw[..n].to_vec();
    for (i, o) in out.iter_mut().enumerate().take(fade) {
        let t = (i as f64 + 0.5) / fade as f64 * PI / 2.0;
        // Equal power for uncorrelated noise: sin² + cos² = 1.
        *o = raw[i] * libm::sin(t) + raw[n + i] * libm::cos(t);
    }
    out
}

/// The loop's samples, 16-bit.
pub fn synthesize(spec: &EngineLoop) -> Vec<i16> {
    let n = (RATE * spec.seconds) as usize;
    let rate = f64::from(RATE);
    let whine = whole(spec.whine_hz, spec.seconds);
    let shaft = whole(spec.shaft_hz, spec.seconds);
    // Vibrato and a slow swell, both whole cycles per loop.
    let vib = whole(5.0, spec.seconds);
    let swell = whole(1.0 / f64::from(spec.seconds) * 2.0, spec.seconds);
    let mut noise = Noise(spec.seed);
    let fade = (rate * 0.25) as usize;
    let mut rumble_f = [
        Biquad::lowpass(spec.rumble_hz, 0.7),
        Biquad::lowpass(spec.rumble_hz * 1.4, 0.6),
    ];
    let rumble = looped_noise(&mut noise, &mut rumble_f, n, fade);
    let mut hiss_f = [Biquad::bandpass(spec.hiss_hz, 0.9)];
    let hiss = looped_noise(&mut noise, &mut hiss_f, n, fade);
    let norm = |v: &[f64]| {
        let rms = libm::sqrt(v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64);
        if rms > 0.0 { 0.35 / rms } else { 0.0 }
    };
    let (kr, kh) = (norm(&rumble), norm(&hiss));
    let [lw, lh, lr, ls] = spec.levels;
    let mix: Vec<f64> = (0..n)
        .map(|i| {
            let t = i as f64 / rate;
            let beta = 0.0025 * whine / vib;
            let ph = 2.0 * PI * whine * t + beta * libm::sin(2.0 * PI * vib * t);
            let w = libm::sin(ph) + 0.35 * libm::sin(2.0 * ph + 0.7);
            let h = libm::sin(2.0 * PI * shaft * t)
                + 0.5 * libm::sin(4.0 * PI * shaft * t + 1.1)
                + 0.25 * libm::sin(6.0 * PI * shaft * t + 2.3);
            let a = 1.0 + 0.08 * libm::sin(2.0 * PI * swell * t);
            a * (lw * 0.5 * w + lh * 0.4 * h + lr * kr * rumble[i] + ls * kh * hiss[i])
        })
        .collect();
    let peak = mix.iter().fold(0.0f64, |m, v| m.max(libm::fabs(*v)));
    let k = if peak > 0.0 { spec.peak / peak } else { 0.0 };
    mix.iter()
        .map(|v| libm::round(v * k * 32767.0).clamp(-32768.0, 32767.0) as i16)
        .collect()
}

/// A RIFF/WAVE file: PCM, 16-bit, mono, [`RATE`].
pub fn wav(samples: &[i16]) -> Vec<u8> {
    let data = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + data as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&RATE.to_le_bytes());
    out.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// Power of `samples` at `hz` (Goertzel), normalised per sample.
pub fn tone_power(samples: &[i16], hz: f64) -> f64 {
    let w = 2.0 * PI * hz / f64::from(RATE);
    let c = 2.0 * libm::cos(w);
    let (mut s1, mut s2) = (0.0, 0.0);
    for &x in samples {
        let s0 = f64::from(x) / 32768.0 + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    (s1 * s1 + s2 * s2 - c * s1 * s2) / (samples.len() as f64).powi(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(a: i16, b: i16) -> f64 {
        libm::fabs(f64::from(a) - f64::from(b))
    }

    #[test]
    fn loops_are_loud_enough_and_wrap_without_a_click() {
        for spec in trainer_loops() {
            let s = synthesize(&spec);
            assert_eq!(s.len(), (RATE * spec.seconds) as usize);
            let rms = libm::sqrt(
                s.iter()
                    .map(|&v| (f64::from(v) / 32768.0).powi(2))
                    .sum::<f64>()
                    / s.len() as f64,
            );
            assert!(rms > 0.05, "{}: rms {rms}", spec.name);
            let peak = s.iter().map(|v| i32::from(*v).abs()).max().unwrap_or(0);
            assert!(peak < 32767, "{}: clipped", spec.name);
            // The step across the loop point is an ordinary step of the signal.
            assert!(
                wraps_cleanly(&s),
                "{}: a click at the loop point",
                spec.name
            );
        }
    }

    /// Whether the step from the last sample to the first is an ordinary step of the signal
    /// (within the 99th percentile of its own steps).
    fn wraps_cleanly(s: &[i16]) -> bool {
        let mut steps: Vec<f64> = s.windows(2).map(|w| step(w[0], w[1])).collect();
        steps.sort_by(f64::total_cmp);
        step(s[s.len() - 1], s[0]) <= steps[steps.len() * 99 / 100]
    }

    #[test]
    fn the_wrap_check_sees_a_click() {
        // A 100 Hz tone over a loop of 1 s wraps cleanly; the same tone cut a quarter period
        // short jumps from its peak to zero at the wrap, which the check catches.
        let tone: Vec<i16> = (0..RATE as usize)
            .map(|i| (10_000.0 * libm::sin(2.0 * PI * 100.0 * i as f64 / f64::from(RATE))) as i16)
            .collect();
        assert!(wraps_cleanly(&tone));
        let quarter = RATE as usize / 400;
        assert!(!wraps_cleanly(&tone[..tone.len() - quarter]));
    }

    #[test]
    fn the_whine_is_heard_at_its_tone() {
        let [idle, mil] = trainer_loops();
        let s = synthesize(&mil);
        let at = whole(mil.whine_hz, mil.seconds);
        let tone = tone_power(&s, at);
        let beside = tone_power(&s, at + 173.0);
        assert!(tone > 20.0 * beside, "{tone} vs {beside}");
        // Idle whines lower than full power.
        let si = synthesize(&idle);
        let idle_at = whole(idle.whine_hz, idle.seconds);
        assert!(tone_power(&si, idle_at) > 20.0 * tone_power(&si, at));
    }

    #[test]
    fn the_wav_header_describes_the_samples() {
        let w = wav(&[0, 1, -1]);
        assert_eq!(&w[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes([w[4], w[5], w[6], w[7]]), 36 + 6);
        assert_eq!(u32::from_le_bytes([w[24], w[25], w[26], w[27]]), RATE);
        assert_eq!(u16::from_le_bytes([w[34], w[35]]), 16);
        assert_eq!(w.len(), 44 + 6);
    }
}
