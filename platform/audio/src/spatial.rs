//! Where a sound is heard from: the listener's pose, an emitter's position and velocity, and
//! what follows from them — distance attenuation (inverse distance, clamped inside a reference
//! distance, faded out at a maximum), Doppler (the pitch ratio from the radial velocities, speed
//! of sound [`SPEED_OF_SOUND_MPS`]) and a stereo pan from the listener's orientation. Positions
//! are f64 world metres (the planet is large); what comes out is f32.
//!
//! Owns the spatial maths. Must not: mix or hold samples (`mixer`).

use glam::{DQuat, DVec3};

/// Speed of sound used for Doppler, m/s (sea level, 15 °C).
pub const SPEED_OF_SOUND_MPS: f64 = 340.0;
/// Doppler pitch ratios are kept within this range (a supersonic source would divide by zero).
pub const DOPPLER_RANGE: (f32, f32) = (0.5, 2.0);
/// Share of the maximum distance over which a sound fades to silence.
const EDGE_FADE: f64 = 0.1;
/// How much quieter a sound directly behind the listener is (a crude head shadow).
const BEHIND_LOSS: f32 = 0.3;

/// The ears: a pose in the world. The orientation maps the listener's axes to the world's
/// (X right, Y up, Z aft: the client's engine-body and camera convention), so the listener looks
/// along −Z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listener {
    /// World position, m.
    pub position: DVec3,
    /// World velocity, m/s.
    pub velocity: DVec3,
    /// Listener → world.
    pub orientation: DQuat,
}

impl Default for Listener {
    fn default() -> Listener {
        Listener {
            position: DVec3::ZERO,
            velocity: DVec3::ZERO,
            orientation: DQuat::IDENTITY,
        }
    }
}

impl Listener {
    /// Non-finite fields replaced (position and velocity by 0, orientation by identity) and the
    /// orientation normalized.
    pub fn sanitized(self) -> Listener {
        Listener {
            position: finite_or_zero(self.position),
            velocity: finite_or_zero(self.velocity),
            orientation: sane_quat(self.orientation),
        }
    }
}

/// Where a positional sound is and how loud and high it plays before the spatial effects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Emitter {
    /// World position, m.
    pub position: DVec3,
    /// World velocity, m/s.
    pub velocity: DVec3,
    /// Level 0 … 1 at or inside the reference distance.
    pub gain: f32,
    /// Playback rate before Doppler (1 = as recorded; an engine's spool raises it).
    pub pitch: f32,
}

impl Default for Emitter {
    fn default() -> Emitter {
        Emitter {
            position: DVec3::ZERO,
            velocity: DVec3::ZERO,
            gain: 1.0,
            pitch: 1.0,
        }
    }
}

impl Emitter {
    /// An emitter at `position` moving at `velocity`, full gain, pitch 1.
    pub fn at(position: DVec3, velocity: DVec3) -> Emitter {
        Emitter {
            position,
            velocity,
            ..Emitter::default()
        }
    }

    /// Non-finite fields replaced, gain in 0 … 1, pitch in 0.1 … 4.
    pub fn sanitized(self) -> Emitter {
        Emitter {
            position: finite_or_zero(self.position),
            velocity: finite_or_zero(self.velocity),
            gain: crate::engine::unit(self.gain),
            pitch: if self.pitch.is_finite() {
                self.pitch.clamp(0.1, 4.0)
            } else {
                1.0
            },
        }
    }
}

/// How a positional sound falls off with distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Falloff {
    /// Inside this distance the sound is at its full level, m.
    pub ref_distance_m: f32,
    /// Beyond this distance it is silent (it fades over the last 10 %), m.
    pub max_distance_m: f32,
}

impl Falloff {
    /// An aircraft's engine: full at 30 m, heard to 8 km.
    pub const AIRCRAFT: Falloff = Falloff {
        ref_distance_m: 30.0,
        max_distance_m: 8_000.0,
    };
    /// Guns and impacts: full at 20 m, heard to 3 km.
    pub const GUN: Falloff = Falloff {
        ref_distance_m: 20.0,
        max_distance_m: 3_000.0,
    };
    /// Explosions and launches: full at 50 m, heard to 12 km.
    pub const EXPLOSION: Falloff = Falloff {
        ref_distance_m: 50.0,
        max_distance_m: 12_000.0,
    };

    /// Reference at least 0.1 m, maximum beyond it; NaN replaced by [`Falloff::AIRCRAFT`]'s.
    pub fn sanitized(self) -> Falloff {
        let r = if self.ref_distance_m.is_finite() {
            self.ref_distance_m.max(0.1)
        } else {
            Falloff::AIRCRAFT.ref_distance_m
        };
        let m = if self.max_distance_m.is_nan() {
            Falloff::AIRCRAFT.max_distance_m
        } else {
            self.max_distance_m.max(r * 1.01)
        };
        Falloff {
            ref_distance_m: r,
            max_distance_m: m,
        }
    }

    /// The gain at `distance_m`: 1 inside the reference distance, `ref / d` beyond (inverse
    /// distance), fading to 0 over the last 10 % before the maximum.
    pub fn gain(self, distance_m: f64) -> f32 {
        let d = if distance_m.is_nan() { 0.0 } else { distance_m };
        let (r, m) = (
            f64::from(self.ref_distance_m),
            f64::from(self.max_distance_m),
        );
        if d >= m {
            return 0.0;
        }
        let inv = r / d.max(r);
        let edge = ((m - d) / (EDGE_FADE * m)).min(1.0);
        (inv * edge) as f32
    }
}

/// What the listener hears of one emitter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heard {
    /// Distance attenuation × the emitter's gain × the head shadow.
    pub gain: f32,
    /// Left and right gains (equal power), to multiply with `gain`.
    pub left: f32,
    pub right: f32,
    /// Doppler pitch ratio.
    pub doppler: f32,
    /// Distance, m.
    pub distance_m: f64,
}

/// The Doppler pitch ratio of a source moving at `source_v` heard by a listener moving at
/// `listener_v`, `dir` the unit vector from the listener to the source:
/// `(c + v_listener·dir) / (c + v_source·dir)` — a source receding along `dir` sounds lower.
/// Clamped to [`DOPPLER_RANGE`].
pub fn doppler(dir: DVec3, listener_v: DVec3, source_v: DVec3) -> f32 {
    let c = SPEED_OF_SOUND_MPS;
    // Radial speeds kept subsonic: the formula has a pole at the speed of sound.
    let vl = listener_v.dot(dir).clamp(-0.9 * c, 0.9 * c);
    let vs = source_v.dot(dir).clamp(-0.9 * c, 0.9 * c);
    let r = ((c + vl) / (c + vs)) as f32;
    if r.is_finite() {
        r.clamp(DOPPLER_RANGE.0, DOPPLER_RANGE.1)
    } else {
        1.0
    }
}

/// What `listener` hears of `emitter` falling off with `falloff`.
pub fn hear(listener: &Listener, emitter: &Emitter, falloff: Falloff) -> Heard {
    let rel = emitter.position - listener.position;
    let d = rel.length();
    if !d.is_finite() || d < 1e-3 {
        // At the listener's head (the own gun): centred, no Doppler.
        let (l, r) = crate::synth::equal_power(0.0);
        return Heard {
            gain: emitter.gain,
            left: l,
            right: r,
            doppler: 1.0,
            distance_m: 0.0,
        };
    }
    let dir = rel / d;
    let local = listener.orientation.inverse() * dir;
    // A source inside its reference distance pans less: it surrounds the listener.
    let r = f64::from(falloff.ref_distance_m);
    let width = (d / r).min(1.0) as f32;
    let pan = local.x as f32 * width;
    let behind = (local.z as f32).max(0.0);
    let (l, rgt) = crate::synth::equal_power(pan);
    Heard {
        gain: emitter.gain * falloff.gain(d) * (1.0 - BEHIND_LOSS * behind),
        left: l,
        right: rgt,
        doppler: doppler(dir, listener.velocity, emitter.velocity),
        distance_m: d,
    }
}

fn finite_or_zero(v: DVec3) -> DVec3 {
    if v.is_finite() { v } else { DVec3::ZERO }
}

fn sane_quat(q: DQuat) -> DQuat {
    if q.is_finite() && q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        DQuat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_distance_clamped_and_faded_at_the_edge() {
        let f = Falloff {
            ref_distance_m: 10.0,
            max_distance_m: 1_000.0,
        };
        assert_eq!(f.gain(0.0), 1.0);
        assert_eq!(f.gain(10.0), 1.0);
        assert!((f.gain(20.0) - 0.5).abs() < 1e-6);
        assert!((f.gain(100.0) - 0.1).abs() < 1e-6);
        // In the last 10 %: fading to 0.
        assert!(f.gain(950.0) < 0.5 * 10.0 / 950.0 + 1e-6);
        assert_eq!(f.gain(1_000.0), 0.0);
        assert_eq!(f.gain(f64::INFINITY), 0.0);
        assert_eq!(f.gain(f64::NAN), 1.0);
        let bad = Falloff {
            ref_distance_m: f32::NAN,
            max_distance_m: -5.0,
        }
        .sanitized();
        assert!(bad.ref_distance_m > 0.0 && bad.max_distance_m > bad.ref_distance_m);
    }

    #[test]
    fn doppler_rises_approaching_and_falls_receding() {
        let x = DVec3::X;
        // Source ahead along +X flying toward the listener at 100 m/s.
        let up = doppler(x, DVec3::ZERO, DVec3::new(-100.0, 0.0, 0.0));
        assert!((up - 340.0 / 240.0).abs() < 1e-5, "{up}");
        let down = doppler(x, DVec3::ZERO, DVec3::new(100.0, 0.0, 0.0));
        assert!((down - 340.0 / 440.0).abs() < 1e-5, "{down}");
        // A listener flying toward a still source hears it higher.
        let l = doppler(x, DVec3::new(100.0, 0.0, 0.0), DVec3::ZERO);
        assert!((l - 440.0 / 340.0).abs() < 1e-5);
        // Flying side by side: no shift; sideways motion: none either.
        assert_eq!(doppler(x, DVec3::X * 200.0, DVec3::X * 200.0), 1.0);
        assert_eq!(doppler(x, DVec3::ZERO, DVec3::Y * 300.0), 1.0);
        // Supersonic and nonsense velocities stay in range.
        let s = doppler(x, DVec3::ZERO, DVec3::new(-1e6, 0.0, 0.0));
        assert!(s <= DOPPLER_RANGE.1);
        assert_eq!(doppler(x, DVec3::NAN, DVec3::ZERO), 1.0);
    }

    #[test]
    fn pan_follows_the_listeners_orientation() {
        let f = Falloff::AIRCRAFT;
        let right = Emitter::at(DVec3::new(500.0, 0.0, 0.0), DVec3::ZERO);
        let l = Listener::default();
        let h = hear(&l, &right, f);
        assert!(h.right > 0.99 && h.left < 0.01, "{h:?}");
        // Turned to face +X (yaw 90° right: −Z turns to +X), the source is ahead: centred.
        let facing = Listener {
            orientation: DQuat::from_rotation_y(-std::f64::consts::FRAC_PI_2),
            ..l
        };
        let h = hear(&facing, &right, f);
        assert!((h.left - h.right).abs() < 1e-3, "{h:?}");
        // Behind is a little quieter than ahead.
        let ahead = hear(
            &l,
            &Emitter::at(DVec3::new(0.0, 0.0, -500.0), DVec3::ZERO),
            f,
        );
        let behind = hear(
            &l,
            &Emitter::at(DVec3::new(0.0, 0.0, 500.0), DVec3::ZERO),
            f,
        );
        assert!(behind.gain < ahead.gain);
        // At the head: centred, full, no Doppler.
        let h = hear(&l, &Emitter::default(), f);
        assert_eq!((h.gain, h.doppler), (1.0, 1.0));
        // Garbage in: finite out.
        let bad = Listener {
            position: DVec3::NAN,
            velocity: DVec3::INFINITY,
            orientation: DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        }
        .sanitized();
        let e = Emitter {
            position: DVec3::NAN,
            gain: f32::NAN,
            pitch: f32::INFINITY,
            ..Emitter::default()
        }
        .sanitized();
        let h = hear(&bad, &e, f);
        assert!(h.gain.is_finite() && h.doppler.is_finite() && h.left.is_finite());
    }
}
