//! Seeded, stateless random draws for the simulation: the same (seed, tick, subjects, purpose)
//! always gives the same number on every machine, in any evaluation order, on any worker
//! count. There is no generator state to share or to advance, so a parallel sensing pass and a
//! serial replay agree bit for bit.
//!
//! Must not: read the clock, the OS's entropy or any global state.

/// What a draw is for. Distinct purposes give independent numbers for the same subjects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u32)]
pub enum Purpose {
    /// A sensor's probability-of-detection check.
    Detection = 1,
    /// A seeker choosing between a flare and its target.
    FlareDecoy = 2,
    /// A seeker choosing between chaff and its target.
    ChaffDecoy = 3,
    /// Gun dispersion (two draws per round: use `index` 0 and 1).
    Dispersion = 4,
    /// A proximity fuze's kill roll.
    Fuze = 5,
    /// Anything else a caller needs; give it its own `index` range.
    Other = 255,
}

/// One draw's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawKey {
    /// The world's seed (a mission or server setting).
    pub seed: u64,
    /// Simulation tick of the draw.
    pub tick: u64,
    /// The acting subject (observer, missile, shooter), as a stable id.
    pub actor: u64,
    /// The acted-upon subject (target, flare), as a stable id; 0 when none.
    pub subject: u64,
    /// What the draw is for.
    pub purpose: Purpose,
    /// Distinguishes several draws with the same key (round number, axis).
    pub index: u32,
}

/// SplitMix64's finaliser: a bijective mix with full avalanche.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl DrawKey {
    /// 64 well-mixed bits for this key.
    pub fn bits(&self) -> u64 {
        let mut h = mix(self.seed ^ 0x9e37_79b9_7f4a_7c15);
        for word in [
            self.tick,
            self.actor,
            self.subject,
            ((self.purpose as u64) << 32) | self.index as u64,
        ] {
            h = mix(h ^ word.wrapping_add(0x9e37_79b9_7f4a_7c15));
        }
        h
    }

    /// A uniform number in [0, 1) (53 bits, exact in f64).
    pub fn unit(&self) -> f64 {
        (self.bits() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (clamped to [0, 1]; NaN is never).
    pub fn chance(&self, p: f64) -> bool {
        // `unit() < p` is false for NaN, and for p <= 0; always true for p >= 1.
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tick: u64, index: u32) -> DrawKey {
        DrawKey {
            seed: 7,
            tick,
            actor: 3,
            subject: 9,
            purpose: Purpose::Detection,
            index,
        }
    }

    #[test]
    fn same_key_same_number_and_keys_differ() {
        assert_eq!(key(10, 0).unit().to_bits(), key(10, 0).unit().to_bits());
        assert_ne!(key(10, 0).bits(), key(11, 0).bits());
        assert_ne!(key(10, 0).bits(), key(10, 1).bits());
        let mut other = key(10, 0);
        other.purpose = Purpose::FlareDecoy;
        assert_ne!(key(10, 0).bits(), other.bits());
        // Actor and subject are not interchangeable.
        let mut swapped = key(10, 0);
        (swapped.actor, swapped.subject) = (swapped.subject, swapped.actor);
        assert_ne!(key(10, 0).bits(), swapped.bits());
    }

    #[test]
    fn unit_is_uniform_enough_and_chance_matches_p() {
        let n = 100_000u32;
        let mut buckets = [0u32; 10];
        let mut hits = 0u32;
        for i in 0..n {
            let u = key(u64::from(i), 0).unit();
            assert!((0.0..1.0).contains(&u));
            buckets[(u * 10.0) as usize] += 1;
            if key(u64::from(i), 1).chance(0.35) {
                hits += 1;
            }
        }
        for b in buckets {
            // Expected 10,000 each; 5 sigma is about 475.
            assert!((9_500..=10_500).contains(&b), "{buckets:?}");
        }
        let rate = f64::from(hits) / f64::from(n);
        assert!((rate - 0.35).abs() < 0.01, "{rate}");
        assert!(!key(1, 0).chance(f64::NAN));
        assert!(!key(1, 0).chance(0.0));
        assert!(key(1, 0).chance(1.0));
    }
}
