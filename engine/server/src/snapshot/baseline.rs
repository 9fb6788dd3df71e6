//! What one peer has been told about each entity: whether its next record must be full
//! (first sight, generation change, full not yet confirmed, absent past the retention window),
//! which despawns it still needs to hear, and its snapshot ack high-water mark.
//!
//! A full record is confirmed by the client's selective ack of a tick on which one was sent —
//! precisely, inside the 32-tick window; a full whose ticks all fell out of the window without
//! confirmation restarts the streak instead of being assumed delivered. Pure bookkeeping: no I/O,
//! no encoding.

use fl_protocol::ack::{ACK_WINDOW_BITS, AckStamp};
use fl_protocol::snapshot::{DESPAWN_REPEAT_TICKS, RETENTION_TICKS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    generation: u32,
    last_sent: u64,
    /// Ticks (relative to `streak_base`) on which a full record was sent and not yet confirmed;
    /// `None` once a full is confirmed (deltas from then on).
    pending: Option<Streak>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Streak {
    /// The newest tick a full was sent on.
    newest: u64,
    /// Bit b = a full was also sent on tick `newest − b` (b < 64).
    mask: u64,
}

impl Streak {
    fn record(&mut self, tick: u64) {
        let shift = tick.saturating_sub(self.newest);
        self.mask = if shift >= 64 { 0 } else { self.mask << shift };
        self.mask |= 1;
        self.newest = self.newest.max(tick);
    }

    /// Whether `ack` confirms one of the fulls, looking only inside its window.
    fn confirmed_by(&self, ack: &AckStamp) -> bool {
        (0..64u64).filter(|b| self.mask & (1 << b) != 0).any(|b| {
            let tick = self.newest.wrapping_sub(b);
            if tick > ack.high || b > self.newest {
                return false;
            }
            let age = ack.high - tick;
            age == 0 || (age <= ACK_WINDOW_BITS && ack.mask & (1u32 << (age - 1)) != 0)
        })
    }

    /// Whether every full of the streak is older than what an ack can still report.
    fn expired(&self, ack: &AckStamp) -> bool {
        ack.high > self.newest + ACK_WINDOW_BITS
    }
}

/// One peer's baselines.
#[derive(Debug, Clone, Default)]
pub struct PeerBaselines {
    /// Indexed by entity index (pool indices are dense and bounded by the pool's capacity).
    known: Vec<Option<Known>>,
    known_count: usize,
    ack: Option<AckStamp>,
    /// Entity indices to announce as despawned, with the snapshots left to repeat them.
    despawns: Vec<(u32, u64)>,
}

impl PeerBaselines {
    pub fn new() -> Self {
        Self::default()
    }

    /// The ack high-water mark (monotonic).
    pub fn ack(&self) -> Option<AckStamp> {
        self.ack
    }

    /// Takes a new ack stamp (from an input or heartbeat, already clamped to the present).
    /// Older stamps are ignored so the mark never moves backwards.
    pub fn on_ack(&mut self, stamp: AckStamp) {
        match self.ack {
            Some(a) if stamp.high < a.high => return,
            Some(a) if stamp.high == a.high => {
                self.ack = Some(AckStamp {
                    high: a.high,
                    mask: a.mask | stamp.mask,
                });
            }
            _ => self.ack = Some(stamp),
        }
        let Some(ack) = self.ack else { return };
        for k in self.known.iter_mut().flatten() {
            if let Some(streak) = k.pending {
                if streak.confirmed_by(&ack) {
                    k.pending = None;
                } else if streak.expired(&ack) {
                    // Every full fell out of the window unconfirmed: start over.
                    k.pending = Some(Streak {
                        newest: streak.newest,
                        mask: 0,
                    });
                }
            }
        }
    }

    /// Whether the entity's record this tick must be full.
    pub fn needs_full(&self, index: u32, generation: u32, tick: u64) -> bool {
        match self.known.get(index as usize).copied().flatten() {
            None => true,
            Some(k) => {
                k.generation != generation
                    || k.pending.is_some()
                    || tick.saturating_sub(k.last_sent) >= RETENTION_TICKS
            }
        }
    }

    /// Records that the entity was sent this tick, full or delta.
    pub fn on_sent(&mut self, index: u32, generation: u32, tick: u64, full: bool) {
        let i = index as usize;
        if self.known.len() <= i {
            self.known.resize(i + 1, None);
        }
        if self.known[i].is_none() {
            self.known_count += 1;
        }
        let k = self.known[i].get_or_insert(Known {
            generation,
            last_sent: tick,
            pending: None,
        });
        if full {
            if k.generation != generation || k.pending.is_none() {
                k.pending = Some(Streak {
                    newest: tick,
                    mask: 0,
                });
            }
            if let Some(s) = &mut k.pending {
                s.record(tick);
            }
        }
        k.generation = generation;
        k.last_sent = tick;
    }

    /// Ticks since the entity was last sent (`None` if the peer does not know it).
    pub fn age(&self, index: u32, tick: u64) -> Option<u64> {
        self.known
            .get(index as usize)
            .copied()
            .flatten()
            .map(|k| tick.saturating_sub(k.last_sent))
    }

    /// The entity left the simulation: forget it and announce the despawn in the next few
    /// snapshots, if this peer ever heard of it.
    pub fn on_despawn(&mut self, index: u32) {
        let taken = self.known.get_mut(index as usize).and_then(Option::take);
        if taken.is_some() {
            self.known_count -= 1;
            self.despawns.retain(|(i, _)| *i != index);
            self.despawns.push((index, DESPAWN_REPEAT_TICKS));
        }
    }

    /// Up to `max` despawns to put in the snapshot being built now (oldest first); each one
    /// taken counts down one repeat.
    pub fn take_despawns(&mut self, max: usize) -> Vec<u32> {
        let n = self.despawns.len().min(max);
        let out: Vec<u32> = self.despawns[..n].iter().map(|(i, _)| *i).collect();
        for d in &mut self.despawns[..n] {
            d.1 -= 1;
        }
        self.despawns.retain(|(_, left)| *left > 0);
        out
    }

    /// Pending despawns (for budget estimates).
    pub fn pending_despawns(&self) -> usize {
        self.despawns.len()
    }

    /// Forgets entities not sent within the retention window (the client has evicted them, so
    /// they will be sent full on return) — bounds the map by what the peer can still hold.
    pub fn prune(&mut self, tick: u64) {
        for slot in &mut self.known {
            if slot.is_some_and(|k| tick.saturating_sub(k.last_sent) >= RETENTION_TICKS) {
                *slot = None;
                self.known_count -= 1;
            }
        }
    }

    /// Entities this peer currently knows.
    pub fn known_count(&self) -> usize {
        self.known_count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(high: u64, mask: u32) -> AckStamp {
        AckStamp { high, mask }
    }

    #[test]
    fn fulls_repeat_until_a_full_tick_is_confirmed() {
        let mut b = PeerBaselines::new();
        assert!(b.needs_full(7, 1, 100));
        b.on_sent(7, 1, 100, true);
        assert!(b.needs_full(7, 1, 101), "not confirmed yet");
        b.on_sent(7, 1, 101, true);
        // The client acks 102 but decoded neither 100 nor 101 (bits 0 and 1 clear).
        b.on_ack(stamp(102, 0));
        assert!(b.needs_full(7, 1, 103));
        b.on_sent(7, 1, 103, true);
        // Now it reports tick 101 decoded: high 104, bit 2 = tick 101.
        b.on_ack(stamp(104, 1 << 2));
        assert!(!b.needs_full(7, 1, 105), "converged to deltas");
    }

    #[test]
    fn a_lost_full_is_not_assumed_delivered_when_it_ages_out() {
        let mut b = PeerBaselines::new();
        b.on_sent(3, 1, 10, true);
        b.on_ack(stamp(100, 0)); // far past the window, tick 10 never confirmed
        assert!(b.needs_full(3, 1, 101));
    }

    #[test]
    fn generation_change_and_retention_force_full() {
        let mut b = PeerBaselines::new();
        b.on_sent(5, 1, 0, true);
        b.on_ack(stamp(0, 0));
        assert!(!b.needs_full(5, 1, 1));
        assert!(b.needs_full(5, 2, 1), "slot reused by a new entity");
        assert!(
            b.needs_full(5, 1, RETENTION_TICKS),
            "absent for the whole window"
        );
        b.prune(RETENTION_TICKS + 1);
        assert_eq!(b.known_count(), 0);
    }

    #[test]
    fn acks_never_move_backwards() {
        let mut b = PeerBaselines::new();
        b.on_ack(stamp(50, 0b1));
        b.on_ack(stamp(40, 0xFFFF_FFFF));
        assert_eq!(b.ack(), Some(stamp(50, 0b1)));
        b.on_ack(stamp(50, 0b10));
        assert_eq!(b.ack(), Some(stamp(50, 0b11)));
    }

    #[test]
    fn despawns_repeat_for_drop_tolerance_and_only_for_known_entities() {
        let mut b = PeerBaselines::new();
        b.on_despawn(9);
        assert!(b.take_despawns(64).is_empty(), "never heard of it");
        b.on_sent(9, 1, 0, true);
        b.on_despawn(9);
        for _ in 0..DESPAWN_REPEAT_TICKS {
            assert_eq!(b.take_despawns(64), vec![9]);
        }
        assert!(b.take_despawns(64).is_empty());
        assert!(
            b.needs_full(9, 2, 10),
            "a new occupant of the slot starts full"
        );
    }
}
