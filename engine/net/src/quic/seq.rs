//! The datagram sequence layer: every datagram a link sends starts with a 2-byte little-endian
//! sequence number (per connection, wrapping, one counter for every lane and fragment), and the
//! receiver counts the gaps. That is the loss on the way *in* as the peer's datagrams saw it —
//! what the relay or the network really dropped — where quinn's own figure is the sender's
//! guess (packets it declared lost, reordering and late acknowledgements included).
//!
//! Owns: the header's size and the receiver's bookkeeping (a fixed window of the last
//! [`LOSS_IN_WINDOW`] sequence numbers; constant memory whatever the peer sends).

use crate::LOSS_IN_WINDOW;

/// Bytes of the sequence header in front of every datagram.
pub(crate) const SEQ_HEADER: usize = 2;

const WINDOW: usize = LOSS_IN_WINDOW as usize;

/// Receiver-side sequence bookkeeping.
#[derive(Debug, Clone)]
pub(crate) struct SeqTracker {
    /// The highest sequence number seen, extended past the 16-bit wrap.
    highest: Option<u64>,
    /// The first sequence number seen (nothing before it is counted missing).
    first: u64,
    /// `received[s % WINDOW]` for the last `WINDOW` sequence numbers.
    received: [bool; WINDOW],
    /// Datagrams received (each sequence number once).
    datagrams_in: u64,
    /// Sequence numbers that left the window without arriving.
    missing_out: u64,
    duplicates: u64,
}

impl Default for SeqTracker {
    fn default() -> Self {
        Self {
            highest: None,
            first: 0,
            received: [false; WINDOW],
            datagrams_in: 0,
            missing_out: 0,
            duplicates: 0,
        }
    }
}

impl SeqTracker {
    /// Records one arrival.
    pub(crate) fn record(&mut self, seq: u16) {
        let Some(high) = self.highest else {
            // Start far from zero so "older than the first" never underflows.
            let ext = u64::from(seq) + (1 << 16);
            self.highest = Some(ext);
            self.first = ext;
            self.received = [false; WINDOW];
            self.received[ext as usize % WINDOW] = true;
            self.datagrams_in = 1;
            return;
        };
        let diff = seq.wrapping_sub(high as u16) as i16;
        if diff > 0 {
            let ext = high + diff as u64;
            // Slide the window: each slot reused held the number WINDOW older.
            let steps = (ext - high).min(WINDOW as u64);
            let gap_beyond = (ext - high) - steps; // numbers that never entered the window
            self.missing_out += gap_beyond;
            for s in ext + 1 - steps..=ext {
                let slot = s as usize % WINDOW;
                let old = s.wrapping_sub(WINDOW as u64);
                if s >= WINDOW as u64 && old >= self.first && old <= high && !self.received[slot] {
                    self.missing_out += 1;
                }
                self.received[slot] = false;
            }
            self.received[ext as usize % WINDOW] = true;
            self.highest = Some(ext);
            self.datagrams_in += 1;
        } else {
            let back = u64::from(diff.unsigned_abs());
            let Some(ext) = high.checked_sub(back) else {
                return;
            };
            if ext < self.first || high - ext >= WINDOW as u64 {
                // Older than the window: already counted missing; too late to matter.
                return;
            }
            let slot = ext as usize % WINDOW;
            if self.received[slot] {
                self.duplicates += 1;
            } else {
                self.received[slot] = true;
                self.datagrams_in += 1;
            }
        }
    }

    /// Missing numbers still inside the window (and the window's span).
    fn window_missing(&self) -> (u64, u64) {
        let Some(high) = self.highest else {
            return (0, 0);
        };
        let low = high.saturating_sub(WINDOW as u64 - 1).max(self.first);
        let span = high - low + 1;
        let got = (low..=high)
            .filter(|&s| self.received[s as usize % WINDOW])
            .count() as u64;
        (span - got, span)
    }

    /// Recent loss: missing over expected in the window.
    pub(crate) fn loss(&self) -> f64 {
        let (missing, span) = self.window_missing();
        if span == 0 {
            0.0
        } else {
            missing as f64 / span as f64
        }
    }

    /// Datagrams received since the start.
    pub(crate) fn datagrams_in(&self) -> u64 {
        self.datagrams_in
    }

    /// Sequence numbers missing since the start (those still inside the window included).
    pub(crate) fn missing(&self) -> u64 {
        self.missing_out + self.window_missing().0
    }

    /// Datagrams that arrived twice.
    #[cfg(test)]
    pub(crate) fn duplicates(&self) -> u64 {
        self.duplicates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_gaps_across_the_wrap() {
        let mut t = SeqTracker::default();
        let mut sent = 0u64;
        let mut lost = 0u64;
        // 200,000 numbers (three wraps), every 25th lost.
        for i in 0..200_000u64 {
            let seq = (i + 65_000) as u16;
            sent += 1;
            if i % 25 == 7 {
                lost += 1;
                continue;
            }
            t.record(seq);
        }
        assert_eq!(t.datagrams_in(), sent - lost);
        assert_eq!(t.missing(), lost);
        assert!((t.loss() - 0.04).abs() < 0.01, "{}", t.loss());
    }

    #[test]
    fn reordering_within_the_window_is_not_loss_and_duplicates_count_once() {
        let mut t = SeqTracker::default();
        t.record(0);
        for chunk in (1u16..1000).collect::<Vec<_>>().chunks(10) {
            for &s in chunk.iter().rev() {
                t.record(s);
            }
        }
        // Duplicates inside the window count once; one from before it is ignored.
        t.record(900);
        t.record(999);
        t.record(500);
        assert_eq!(t.datagrams_in(), 1000);
        assert_eq!(t.missing(), 0);
        assert_eq!(t.duplicates(), 2);
        assert_eq!(t.loss(), 0.0);
    }

    #[test]
    fn a_long_gap_counts_every_number_once() {
        let mut t = SeqTracker::default();
        t.record(10);
        t.record(11);
        t.record(11 + 1000);
        assert_eq!(t.missing(), 999);
        assert_eq!(t.datagrams_in(), 3);
        // A straggler from before the window changes nothing.
        t.record(50);
        assert_eq!(t.datagrams_in(), 3);
        assert_eq!(t.missing(), 999);
        assert!(t.loss() > 0.99);
    }

    #[test]
    fn hostile_sequences_stay_bounded() {
        let mut t = SeqTracker::default();
        let mut x = 1u32;
        for _ in 0..100_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            t.record((x >> 16) as u16);
        }
        assert!(t.loss() <= 1.0);
        assert!(t.datagrams_in() <= 100_000);
    }
}
