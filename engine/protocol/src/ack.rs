//! Shared sequencing helpers: the snapshot selective-ack window (a high-water tick plus a
//! 32-bit mask of the ticks just below it) and half-window comparison of wrapping counters.
//! Pure functions of their inputs; the session and server own the state.

/// Ticks the mask covers below the high-water mark.
pub const ACK_WINDOW_BITS: u64 = 32;

/// The ack a client stamps on every input and heartbeat: `tickIndex` (the highest snapshot
/// tick decoded) and `ackMask` (bit b = tick `high − 1 − b` was decoded too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckStamp {
    pub high: u64,
    pub mask: u32,
}

impl AckStamp {
    /// Whether this stamp confirms that `tick` was decoded. Ticks above the high-water mark
    /// are not; the high-water tick is; ticks in the window answer by their mask bit; ticks
    /// older than the window are treated as decoded (the client cannot report them any more,
    /// and the retention force-full is the backstop).
    pub fn acknowledges(&self, tick: u64) -> bool {
        if tick > self.high {
            return false;
        }
        let age = self.high - tick;
        if age == 0 || age > ACK_WINDOW_BITS {
            true
        } else {
            self.mask & (1u32 << (age - 1)) != 0
        }
    }
}

/// The client side of the window: fed every snapshot tick actually decoded, produces the stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckTracker {
    stamp: Option<AckStamp>,
}

impl AckTracker {
    /// A tracker that has decoded nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the snapshot of `tick` was decoded.
    pub fn record(&mut self, tick: u64) {
        let Some(s) = &mut self.stamp else {
            self.stamp = Some(AckStamp {
                high: tick,
                mask: 0,
            });
            return;
        };
        if tick > s.high {
            let delta = tick - s.high;
            s.mask = if delta > ACK_WINDOW_BITS {
                0
            } else {
                // delta ≤ 32: shift in u64 and keep the low 32 bits; the old high-water tick
                // becomes bit delta − 1.
                (((u64::from(s.mask)) << delta) | (1u64 << (delta - 1))) as u32
            };
            s.high = tick;
        } else if tick < s.high {
            let age = s.high - tick;
            if age <= ACK_WINDOW_BITS {
                s.mask |= 1u32 << (age - 1);
            }
        }
    }

    /// The stamp to send (`None` before the first snapshot: send tickIndex 0, mask 0).
    pub fn stamp(&self) -> Option<AckStamp> {
        self.stamp
    }
}

/// `a` is newer than `b` for a wrapping u16 counter (half-window rule; equal is not newer).
pub fn seq16_newer(a: u16, b: u16) -> bool {
    a != b && a.wrapping_sub(b) < 0x8000
}

/// `a` is newer than `b` for a wrapping u32 counter (half-window rule; equal is not newer).
pub fn seq32_newer(a: u32, b: u32) -> bool {
    a != b && a.wrapping_sub(b) < 0x8000_0000
}

/// Signed distance from `b` to `a` for a wrapping u32 counter (positive when `a` is newer).
pub fn seq32_diff(a: u32, b: u32) -> i64 {
    i64::from(a.wrapping_sub(b) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_semantics() {
        let s = AckStamp {
            high: 100,
            mask: 0b101,
        };
        assert!(s.acknowledges(100));
        assert!(s.acknowledges(99)); // bit 0
        assert!(!s.acknowledges(98)); // bit 1
        assert!(s.acknowledges(97)); // bit 2
        assert!(!s.acknowledges(101));
        assert!(!s.acknowledges(68)); // age 32 → bit 31, clear
        assert!(s.acknowledges(67)); // out of the window
    }

    #[test]
    fn tracker_advances_the_mask() {
        let mut t = AckTracker::new();
        assert_eq!(t.stamp(), None);
        t.record(10);
        assert_eq!(t.stamp(), Some(AckStamp { high: 10, mask: 0 }));
        t.record(12); // 11 missed
        assert_eq!(
            t.stamp(),
            Some(AckStamp {
                high: 12,
                mask: 0b10
            })
        );
        t.record(11); // late arrival fills its bit
        assert_eq!(
            t.stamp(),
            Some(AckStamp {
                high: 12,
                mask: 0b11
            })
        );
        t.record(44); // delta 32: old high lands on bit 31, the rest shifts out
        assert_eq!(
            t.stamp(),
            Some(AckStamp {
                high: 44,
                mask: 1 << 31
            })
        );
        t.record(100); // delta > 32
        assert_eq!(t.stamp(), Some(AckStamp { high: 100, mask: 0 }));
        t.record(100); // duplicate: no change
        assert_eq!(t.stamp(), Some(AckStamp { high: 100, mask: 0 }));
    }

    #[test]
    fn tracker_and_stamp_agree() {
        let mut t = AckTracker::new();
        let decoded = [5u64, 6, 8, 9, 13, 20, 21, 40];
        for &d in &decoded {
            t.record(d);
        }
        let s = t.stamp().expect("recorded");
        for tick in 8..=40 {
            assert_eq!(s.acknowledges(tick), decoded.contains(&tick), "tick {tick}");
        }
    }

    #[test]
    fn half_window_comparison_wraps() {
        assert!(seq32_newer(1, 0));
        assert!(seq32_newer(0, u32::MAX));
        assert!(!seq32_newer(5, 5));
        assert!(!seq32_newer(0, 0x8000_0000)); // exactly half: not newer either way
        assert!(!seq32_newer(0x8000_0000, 0));
        assert!(seq16_newer(2, 65535));
        assert!(!seq16_newer(65535, 2));
        assert_eq!(seq32_diff(2, u32::MAX), 3);
        assert_eq!(seq32_diff(u32::MAX, 2), -3);
    }
}
