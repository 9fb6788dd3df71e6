//! Countermeasures against a seeker: flares (IR), chaff (radar) and the doppler notch (radar).
//!
//! The rules (documented choices):
//! - **One draw per decoy.** A flare (IR seeker) or chaff cloud (radar seeker) is *seen* when,
//!   while the seeker holds its target, the decoy is burning (age below [`DECOY_BURN_S`]),
//!   inside the seeker's track lobe, and within [`DECOY_EFFECT_RADIUS_M`] of the target (the
//!   seeker's instantaneous view around its track; a flare a mile away is not in the picture).
//!   Each decoy seen is drawn for exactly once per missile — `DrawKey { actor: missile,
//!   subject: decoy, purpose: FlareDecoy | ChaffDecoy, tick: 0 }` — and takes the lock with the
//!   weapon's susceptibility. The C++ original rolled every 10 Hz check while any decoy was
//!   near, which compounds to far above the authored rate; one draw per decoy makes the pack's
//!   number the per-flare probability it reads as.
//! - **Aspect does not change the probability.** The pack's susceptibilities already encode
//!   the seeker's generation (the rear-aspect AIM-9P at 0.6, the all-aspect R-73E at 0.35);
//!   geometry enters only through "in the lobe and near the target".
//! - When several decoys are seen in one tick, each is drawn; the lowest decoy id among the
//!   successes wins, so the outcome does not depend on the order the caller lists them in.
//! - **Notch**: a radar seeker loses a target whose ground-relative velocity along the line of
//!   sight is within `notch_susceptibility ×` [`NOTCH_GATE_MPS`] of zero (the target sits in
//!   the clutter's doppler). Deterministic; 0 susceptibility is immune.
//!
//! Must not: own the decoys (the server dispenses and ages them and passes them in).

use crate::draw::{DrawKey, Purpose};
pub use crate::flyout::aero::NOTCH_GATE_MPS;
use fl_flight::math::Vec3;

/// A flare burns, and chaff blooms, for this long; older decoys are ignored, s (the C++
/// original's `kLifetimeS`).
pub const DECOY_BURN_S: f64 = 4.0;
/// A decoy farther than this from the tracked target is not in the seeker's picture, m (the
/// C++ original's `kEffectRadiusM`).
pub const DECOY_EFFECT_RADIUS_M: f64 = 300.0;
/// How many decoy ids a missile remembers having drawn for (older ones are forgotten first;
/// a forgotten decoy is long burnt out in any real engagement).
pub const DECOY_MEMORY: usize = 32;

/// One flare or chaff cloud in the air, as the server passes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoy {
    /// A stable id, unique among live decoys (the draw key's subject).
    pub id: u64,
    /// World position, m.
    pub position: Vec3,
    /// World velocity, m/s.
    pub velocity: Vec3,
    /// Time since it was dispensed, s.
    pub age_s: f64,
}

impl Decoy {
    /// Finite, and burning.
    pub fn is_live(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.age_s.is_finite()
            && (0.0..DECOY_BURN_S).contains(&self.age_s)
    }
}

/// The decoy ids a missile has already drawn for (a fixed ring: no allocation while flying).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecoyMemory {
    ids: [u64; DECOY_MEMORY],
    len: usize,
    next: usize,
}

impl Default for DecoyMemory {
    fn default() -> Self {
        DecoyMemory {
            ids: [0; DECOY_MEMORY],
            len: 0,
            next: 0,
        }
    }
}

impl DecoyMemory {
    /// True when `id` has been drawn for.
    pub fn contains(&self, id: u64) -> bool {
        self.ids[..self.len].contains(&id)
    }

    /// Remembers `id`, forgetting the oldest when full.
    pub fn insert(&mut self, id: u64) {
        if self.contains(id) {
            return;
        }
        self.ids[self.next] = id;
        self.next = (self.next + 1) % DECOY_MEMORY;
        self.len = (self.len + 1).min(DECOY_MEMORY);
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been drawn for.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The draw for one (missile, decoy) pair.
pub fn decoy_key(seed: u64, missile: u64, decoy: u64, purpose: Purpose) -> DrawKey {
    DrawKey {
        seed,
        tick: 0,
        actor: missile,
        subject: decoy,
        purpose,
        index: 0,
    }
}

/// Draws once for every decoy in `decoys` that passes `seen` and has not been drawn for, and
/// returns the lowest-id decoy that took the lock, if any.
pub(crate) fn draw_decoys<'d>(
    decoys: &'d [Decoy],
    memory: &mut DecoyMemory,
    seed: u64,
    missile: u64,
    purpose: Purpose,
    susceptibility: f64,
    mut seen: impl FnMut(&Decoy) -> bool,
) -> Option<&'d Decoy> {
    if susceptibility <= 0.0 {
        return None;
    }
    let mut winner: Option<&Decoy> = None;
    for d in decoys {
        if !d.is_live() || memory.contains(d.id) || !seen(d) {
            continue;
        }
        memory.insert(d.id);
        if decoy_key(seed, missile, d.id, purpose).chance(susceptibility)
            && winner.is_none_or(|w| d.id < w.id)
        {
            winner = Some(d);
        }
    }
    winner
}

/// True when a radar seeker at `from` loses a target moving at `target_velocity` (ground
/// frame) at `target_position` in the doppler notch.
pub fn notched(
    from: Vec3,
    target_position: Vec3,
    target_velocity: Vec3,
    notch_susceptibility: f64,
) -> bool {
    let gate = notch_susceptibility * NOTCH_GATE_MPS;
    if gate <= 0.0 {
        return false;
    }
    let los = (target_position - from).normalize_or_zero();
    if los == Vec3::ZERO {
        return false;
    }
    target_velocity.dot(los).abs() < gate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flare(id: u64, age_s: f64) -> Decoy {
        Decoy {
            id,
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            age_s,
        }
    }

    #[test]
    fn memory_is_a_bounded_ring() {
        let mut m = DecoyMemory::default();
        for id in 0..(DECOY_MEMORY as u64 + 5) {
            m.insert(id);
        }
        assert_eq!(m.len(), DECOY_MEMORY);
        assert!(!m.contains(0));
        assert!(m.contains(DECOY_MEMORY as u64 + 4));
    }

    #[test]
    fn each_decoy_is_drawn_once_and_the_order_does_not_matter() {
        let flares: Vec<Decoy> = (1..=40).map(|i| flare(i, 1.0)).collect();
        let mut m1 = DecoyMemory::default();
        let w1 = draw_decoys(&flares, &mut m1, 9, 77, Purpose::FlareDecoy, 0.5, |_| true);
        let rev: Vec<Decoy> = flares.iter().rev().copied().collect();
        let mut m2 = DecoyMemory::default();
        let w2 = draw_decoys(&rev, &mut m2, 9, 77, Purpose::FlareDecoy, 0.5, |_| true);
        assert_eq!(w1.map(|d| d.id), w2.map(|d| d.id));
        assert!(w1.is_some());
        // A second pass over the same (remembered) flares draws nothing.
        let again = draw_decoys(
            &flares[30..],
            &mut m1,
            9,
            77,
            Purpose::FlareDecoy,
            1.0,
            |_| true,
        );
        assert!(again.is_none());
    }

    #[test]
    fn burnt_out_hostile_and_immune_cases_never_decoy() {
        let mut m = DecoyMemory::default();
        let bad = [
            flare(1, DECOY_BURN_S),
            flare(2, -1.0),
            flare(3, f64::NAN),
            Decoy {
                position: Vec3::new(f64::NAN, 0.0, 0.0),
                ..flare(4, 1.0)
            },
        ];
        assert!(draw_decoys(&bad, &mut m, 1, 1, Purpose::FlareDecoy, 1.0, |_| true).is_none());
        let good = [flare(5, 1.0)];
        assert!(draw_decoys(&good, &mut m, 1, 1, Purpose::FlareDecoy, 0.0, |_| true).is_none());
        assert!(draw_decoys(&good, &mut m, 1, 1, Purpose::FlareDecoy, 1.0, |_| true).is_some());
    }

    #[test]
    fn a_beaming_target_is_notched_and_a_closing_one_is_not() {
        let from = Vec3::ZERO;
        let at = Vec3::new(10_000.0, 0.0, 0.0);
        assert!(notched(from, at, Vec3::new(0.0, 0.0, 250.0), 0.5));
        assert!(notched(from, at, Vec3::new(40.0, 0.0, 250.0), 0.5));
        assert!(!notched(from, at, Vec3::new(60.0, 0.0, 250.0), 0.5));
        assert!(!notched(from, at, Vec3::new(0.0, 0.0, 250.0), 0.0));
    }
}
