//! The per-peer jitter buffer: accepted inputs queue here and exactly one is drained per sim
//! tick. When it runs dry the last input repeats (stale repeat) with the fire-store bit cleared,
//! so loss never coasts the aircraft and never manufactures a weapon release. Its depth adapts
//! to the link: `target = ceil(ewma_delay + k × jitter)`, clamped to `[1, max_depth]`, resized
//! only when the target moves more than the hysteresis (RFC 3550 inter-arrival jitter).
//!
//! Inputs are consecutive sequence numbers, one per client tick, so each has a slot: the tick
//! it is drained on. A lost input (the queue holds a later one while the expected one is
//! missing) is concealed by a repeat *in its own slot* rather than by pulling the next input a
//! tick early — otherwise every later input would land one tick earlier than the client
//! predicted, and each lost packet would shift the client's replay by a whole tick. The slot
//! served last is what `SnapshotLastAckedSeqNum` reports ([`JitterBuffer::last_applied_slot`]).
//! An empty queue is concealed the same way (the input is lost or late: a repeat serves its
//! slot, and a late input is dropped when it comes). For the same reasons a queue that is only
//! briefly too long (a burst) is left alone — inputs are skipped to cut latency only when the
//! backlog persists (or is gross) — and the timeline moves later only when inputs keep arriving
//! after their slots (the link got slower).

use crate::input::PeerInput;
use fl_protocol::ack::seq32_newer;
use fl_protocol::enums::buttons;
use std::collections::VecDeque;

/// Tuning (`[world] jitter_buffer_*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JitterConfig {
    /// Maximum depth in ticks (`jitter_buffer_depth`, default 4).
    pub max_depth: usize,
    /// EWMA window in ticks (`jitter_buffer_adapt_window`).
    pub adapt_window: f64,
    /// Resize only when |target − depth| exceeds this (`jitter_buffer_hysteresis`).
    pub hysteresis: usize,
    /// k in `ewma_delay + k × jitter` (`jitter_buffer_jitter_multiplier`).
    pub jitter_multiplier: f64,
}

impl Default for JitterConfig {
    fn default() -> Self {
        Self {
            max_depth: 4,
            adapt_window: 60.0,
            hysteresis: 1,
            jitter_multiplier: 2.0,
        }
    }
}

/// Drains in a row the queue must stay beyond `depth + 2` before one input is skipped.
pub const TRIM_PERSIST_TICKS: u32 = 30;
/// Beyond `depth + 2 + GROSS_BACKLOG` the backlog is cut at once.
pub const GROSS_BACKLOG: usize = 3;
/// Inputs queued before the first is served. With one, an input's margin before its slot is
/// only the sub-tick phase between the client's input clock and the server's tick (anything
/// from 0 to 16 ms, drawn once per join), so on a loaded machine scheduling jitter alone makes
/// inputs miss their slot — each a repeat on the server and a correction on the client. With
/// two, every input has at least one whole tick of margin.
pub const MIN_PRIME: usize = 2;
/// Late inputs dropped in a row before the timeline moves later to take them.
pub const LATE_RESYNC: u32 = 3;

/// What one drain produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Drained {
    /// A fresh input.
    Fresh(PeerInput),
    /// The previous input again (buffer empty or still filling).
    Repeat(PeerInput),
    /// Nothing has ever arrived.
    Nothing,
}

impl Drained {
    /// The input to apply, if any.
    pub fn input(&self) -> Option<&PeerInput> {
        match self {
            Drained::Fresh(i) | Drained::Repeat(i) => Some(i),
            Drained::Nothing => None,
        }
    }
}

/// The buffer.
#[derive(Debug, Clone)]
pub struct JitterBuffer {
    cfg: JitterConfig,
    queue: VecDeque<PeerInput>,
    depth: usize,
    primed: bool,
    last: Option<PeerInput>,
    last_applied_seq: Option<u32>,
    /// The input slot the next drain serves (known once an input was applied).
    next_slot: Option<u32>,
    /// The slot served last: a fresh input's own, or a lost one's that a repeat filled.
    applied_slot: Option<u32>,
    /// Late inputs dropped since the last one applied on time.
    late_streak: u32,
    ewma_delay: Option<f64>,
    jitter: f64,
    last_transit: Option<f64>,
    /// Consecutive drains that found the queue beyond `depth + 2`.
    over_depth: u32,
    /// Diagnostics.
    pub underruns: u64,
    pub dropped_for_latency: u64,
    /// Slots served by a repeat because their input was lost or late.
    pub gap_fills: u64,
    /// Inputs that arrived after their slot was served (dropped).
    pub late_dropped: u64,
    /// Times persistent lateness moved the timeline later.
    pub resyncs: u64,
}

impl JitterBuffer {
    pub fn new(cfg: JitterConfig) -> Self {
        Self {
            depth: 1,
            cfg,
            queue: VecDeque::new(),
            primed: false,
            last: None,
            last_applied_seq: None,
            next_slot: None,
            applied_slot: None,
            late_streak: 0,
            ewma_delay: None,
            jitter: 0.0,
            last_transit: None,
            over_depth: 0,
            underruns: 0,
            dropped_for_latency: 0,
            gap_fills: 0,
            late_dropped: 0,
            resyncs: 0,
        }
    }

    /// The current depth in ticks.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Queued inputs.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The seqNum of the last input actually applied (the `SnapshotLastAckedSeqNum` TLV).
    pub fn last_applied_seq(&self) -> Option<u32> {
        self.last_applied_seq
    }

    /// The input slot served last (the `SnapshotLastAckedSeqNum` TLV): the seqNum of the last
    /// input applied, or of a lost input whose slot a repeat filled. Every input after it is
    /// applied on the following ticks, one per tick.
    pub fn last_applied_slot(&self) -> Option<u32> {
        self.applied_slot
    }

    /// The smoothed delay estimate in ticks.
    pub fn delay_ticks(&self) -> Option<f64> {
        self.ewma_delay
    }

    /// The RFC 3550 jitter estimate in ticks.
    pub fn jitter_ticks(&self) -> f64 {
        self.jitter
    }

    /// Feeds a delay sample (`now − acked snapshot tick`) from an input or heartbeat.
    pub fn observe_delay(&mut self, delay_ticks: u64) {
        let d = delay_ticks as f64;
        self.ewma_delay = Some(match self.ewma_delay {
            None => {
                // Seed the depth from the first estimate.
                self.depth = (delay_ticks as usize).clamp(1, self.cfg.max_depth.max(1));
                d
            }
            Some(e) => e + (d - e) / self.cfg.adapt_window.max(1.0),
        });
    }

    /// Queues an accepted input that arrived at server tick `now`.
    pub fn push(&mut self, input: PeerInput, now: u64) {
        // RFC 3550: the transit time of input `seq` is arrival − send; inputs are sent one per
        // tick, so the send time in ticks is the sequence number.
        let transit = now as f64 - f64::from(input.seq);
        if let Some(prev) = self.last_transit {
            let d = (transit - prev).abs();
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
        self.observe_delay(now.saturating_sub(input.ack.high));
        self.queue.push_back(input);
    }

    /// Takes the input for this tick and adapts the depth.
    pub fn drain(&mut self) -> Drained {
        self.adapt();
        // Too much queued means too much latency: skip the oldest down to the target depth (the
        // timeline moves earlier on purpose; the skipped slots are gone) — at once for a gross
        // backlog, one input at a time for one that persists, never for a brief burst.
        let limit = self.depth + 2;
        if self.queue.len() > limit {
            self.over_depth = self.over_depth.saturating_add(1);
        } else {
            self.over_depth = 0;
        }
        let target = if self.queue.len() > limit + GROSS_BACKLOG {
            limit
        } else if self.over_depth >= TRIM_PERSIST_TICKS {
            self.over_depth = 0;
            self.queue.len() - 1
        } else {
            self.queue.len()
        };
        while self.queue.len() > target {
            if let Some(skipped) = self.queue.pop_front() {
                self.next_slot = Some(skipped.seq.wrapping_add(1));
            }
            self.dropped_for_latency += 1;
        }
        if !self.primed && self.queue.len() >= self.depth.max(MIN_PRIME) {
            self.primed = true;
        }
        if self.primed {
            // An input older than the slot being served missed its slot, which a repeat filled:
            // it is dropped — unless inputs keep arriving late, in which case the link got
            // slower for good and the timeline moves later to take them.
            while let (Some(front), Some(slot)) = (self.queue.front(), self.next_slot)
                && seq32_newer(slot, front.seq)
            {
                if self.late_streak >= LATE_RESYNC {
                    self.next_slot = Some(front.seq);
                    self.late_streak = 0;
                    self.resyncs += 1;
                    break;
                }
                self.queue.pop_front();
                self.late_dropped += 1;
                self.late_streak += 1;
            }
            if let (Some(front), Some(slot)) = (self.queue.front(), self.next_slot) {
                let gap = front.seq.wrapping_sub(slot);
                if gap > 0 && gap as usize <= self.cfg.max_depth.max(1) {
                    // The expected input was lost but a later one is here: repeat in the lost
                    // input's slot so every later input keeps its tick. (A larger gap is a
                    // client that skipped ahead: take its input now.)
                    return self.conceal(slot);
                }
            }
            if let Some(next) = self.queue.pop_front() {
                self.late_streak = 0;
                self.last_applied_seq = Some(next.seq);
                self.applied_slot = Some(next.seq);
                self.next_slot = Some(next.seq.wrapping_add(1));
                self.last = Some(next.clone());
                return Drained::Fresh(next);
            }
            // Nothing queued: the input of this slot is lost or late; a repeat stands in its
            // slot either way.
            self.underruns += 1;
            if let Some(slot) = self.next_slot {
                return self.conceal(slot);
            }
        }
        self.repeat().unwrap_or(Drained::Nothing)
    }

    /// Serves `slot` with a repeat of the last input.
    fn conceal(&mut self, slot: u32) -> Drained {
        self.next_slot = Some(slot.wrapping_add(1));
        self.applied_slot = Some(slot);
        self.gap_fills += 1;
        self.repeat().unwrap_or(Drained::Nothing)
    }

    /// The previous input again, never with an edge: a held fire-store intent must not release
    /// twice.
    fn repeat(&mut self) -> Option<Drained> {
        let last = self.last.as_mut()?;
        last.wire.buttons &= !buttons::FIRE_STORE;
        Some(Drained::Repeat(last.clone()))
    }

    fn adapt(&mut self) {
        let Some(delay) = self.ewma_delay else {
            return;
        };
        let target = (delay + self.cfg.jitter_multiplier * self.jitter).ceil();
        let target = (target.max(1.0) as usize).min(self.cfg.max_depth.max(1));
        if target.abs_diff(self.depth) > self.cfg.hysteresis {
            self.depth = target;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::ack::AckStamp;
    use fl_protocol::msg::world::ClientInput;

    fn inp(seq: u32, buttons: u8) -> PeerInput {
        PeerInput {
            seq,
            ack: AckStamp::default(),
            wire: ClientInput {
                seq_num: seq,
                buttons,
                ..Default::default()
            },
        }
    }

    #[test]
    fn drains_one_per_tick_and_repeats_without_the_fire_edge() {
        let mut jb = JitterBuffer::new(JitterConfig::default());
        assert_eq!(jb.drain(), Drained::Nothing);
        jb.push(inp(1, 0), 0);
        assert_eq!(
            jb.drain(),
            Drained::Nothing,
            "the first input waits for a second (a tick of margin)"
        );
        jb.push(inp(2, buttons::GUN | buttons::FIRE_STORE), 0);
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 1));
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 2));
        match jb.drain() {
            Drained::Repeat(i) => {
                assert_eq!(i.seq, 2);
                assert_eq!(
                    i.wire.buttons,
                    buttons::GUN,
                    "the gun level repeats, the store edge does not"
                );
            }
            other => panic!("expected a repeat, got {other:?}"),
        }
        assert_eq!(jb.underruns, 1);
        assert_eq!(jb.last_applied_seq(), Some(2));
    }

    #[test]
    fn an_input_a_moment_late_still_makes_its_slot() {
        // Depth 1 on a quiet link: each input arrives just before the drain of its slot's tick
        // (the worst phase between the client's clock and the server's); once, scheduling
        // jitter makes it arrive just after. The tick of margin priming kept absorbs it:
        // no repeat, no late drop — the server flies exactly the inputs the client predicted.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        let mut repeats = 0;
        for tick in 0..20u64 {
            let seq = tick as u32 + 1;
            let late = tick == 10;
            if !late {
                jb.push(inp(seq, 0), tick);
            }
            if matches!(jb.drain(), Drained::Repeat(_)) {
                repeats += 1;
            }
            if late {
                jb.push(inp(seq, 0), tick);
            }
        }
        assert_eq!(
            (repeats, jb.late_dropped, jb.gap_fills, jb.underruns),
            (0, 0, 0, 0)
        );
        assert_eq!(jb.last_applied_seq(), Some(19));
    }

    #[test]
    fn depth_seeds_from_delay_and_adapts_with_hysteresis() {
        let cfg = JitterConfig {
            max_depth: 4,
            adapt_window: 4.0,
            hysteresis: 1,
            jitter_multiplier: 2.0,
        };
        let mut jb = JitterBuffer::new(cfg);
        jb.observe_delay(10);
        assert_eq!(jb.depth(), 4, "seeded min(delay, max)");
        for _ in 0..50 {
            jb.observe_delay(0);
            jb.drain();
        }
        // From 4 the target falls to 1; with hysteresis 1 the resize to 2 fires (|2−4| > 1) but
        // the last step to 1 does not (|1−2| = 1).
        assert_eq!(
            jb.depth(),
            2,
            "a quiet link shrinks the buffer, within the hysteresis"
        );
        let mut jb = JitterBuffer::new(JitterConfig {
            hysteresis: 0,
            ..cfg
        });
        jb.observe_delay(10);
        for _ in 0..50 {
            jb.observe_delay(0);
            jb.drain();
        }
        assert_eq!(jb.depth(), 1);
    }

    #[test]
    fn backlog_beyond_the_target_is_skipped() {
        let mut jb = JitterBuffer::new(JitterConfig::default());
        for s in 1..=10 {
            jb.push(inp(s, 0), 100);
        }
        let d = jb.drain();
        // Delay 100 ticks seeds the maximum depth (4): the backlog is cut to depth + 2 = 6.
        assert!(matches!(&d, Drained::Fresh(i) if i.seq == 5), "{d:?}");
        assert!(jb.dropped_for_latency > 0);
    }

    #[test]
    fn a_lost_input_is_concealed_in_its_own_slot() {
        // Depth 2, one input per tick; input 6 is lost on the way.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        jb.observe_delay(2);
        let mut applied = Vec::new();
        for tick in 0..12u64 {
            let seq = tick as u32 + 1;
            if seq != 6 {
                jb.push(inp(seq, 0), tick);
            }
            let d = jb.drain();
            applied.push(match &d {
                Drained::Fresh(i) => (i.seq, true, jb.last_applied_slot()),
                Drained::Repeat(i) => (i.seq, false, jb.last_applied_slot()),
                Drained::Nothing => (0, false, None),
            });
        }
        // Input 5 is applied on tick 5 as usual; on tick 6 the repeat of 5 stands in input 6's
        // slot (and is reported as slot 6); input 7 then comes on tick 7 as it would have
        // without the loss, and so does every later one.
        assert_eq!(applied[5], (5, true, Some(5)), "{applied:?}");
        assert_eq!(applied[6], (5, false, Some(6)), "{applied:?}");
        for (tick, a) in applied.iter().enumerate().skip(7) {
            assert_eq!((a.0 as usize, a.1), (tick, true), "{applied:?}");
        }
        assert_eq!((jb.gap_fills, jb.underruns), (1, 0));
        assert_eq!(jb.last_applied_seq(), Some(11));

        // Depth 1: the input after the lost one is already queued (priming kept a tick of
        // margin); a repeat serves the lost input's slot and the next input is applied in its
        // own slot, not after a second repeat.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        let mut fresh_at = Vec::new();
        for tick in 0..6u64 {
            let seq = tick as u32 + 1;
            if seq != 3 {
                jb.push(inp(seq, 0), tick);
            }
            if let Drained::Fresh(i) = jb.drain() {
                fresh_at.push((tick, i.seq));
            }
        }
        assert_eq!(fresh_at, vec![(1, 1), (2, 2), (4, 4), (5, 5)]);
        assert_eq!((jb.gap_fills, jb.underruns), (1, 0));

        // An input that reaches the buffer after its slot was concealed is dropped, never
        // applied late (the input gate already refuses out-of-order inputs; this is the
        // buffer's own guard).
        let mut jb = JitterBuffer::new(JitterConfig::default());
        jb.observe_delay(2);
        for seq in [1, 2, 4] {
            jb.push(inp(seq, 0), 0);
        }
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 1));
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 2));
        assert!(matches!(jb.drain(), Drained::Repeat(i) if i.seq == 2));
        assert_eq!(jb.last_applied_slot(), Some(3));
        jb.push(inp(3, 0), 1);
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 4));
        assert!(matches!(jb.drain(), Drained::Repeat(i) if i.seq == 4));
        assert_eq!((jb.late_dropped, jb.last_applied_seq()), (1, Some(4)));
    }

    #[test]
    fn a_late_input_is_dropped_but_lasting_lateness_moves_the_timeline() {
        let mut jb = JitterBuffer::new(JitterConfig::default());
        jb.push(inp(1, 0), 0);
        jb.push(inp(2, 0), 0);
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 1));
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 2));
        // Input 3 is late once (beyond the margin): its slot is served by a repeat, it is
        // dropped when it comes, and input 4 is on time in its own slot.
        assert!(matches!(jb.drain(), Drained::Repeat(_)));
        jb.push(inp(3, 0), 1);
        jb.push(inp(4, 0), 1);
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 4));
        assert_eq!(
            (jb.late_dropped, jb.resyncs, jb.last_applied_slot()),
            (1, 0, Some(4))
        );
        // From now on every input is one tick late: after LATE_RESYNC drops the buffer takes
        // them, one tick later than before, and stays on time from there.
        let mut applied = Vec::new();
        for seq in 5..20u32 {
            if let Drained::Fresh(i) = jb.drain() {
                applied.push(i.seq);
            }
            jb.push(inp(seq, 0), 2);
        }
        assert_eq!(jb.resyncs, 1);
        assert_eq!(jb.late_dropped, 1 + u64::from(LATE_RESYNC));
        let first = applied.first().copied().expect("applied again");
        assert_eq!(
            applied,
            (first..first + applied.len() as u32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_burst_is_not_trimmed_but_a_lasting_backlog_is() {
        let mut jb = JitterBuffer::new(JitterConfig::default());
        jb.observe_delay(4);
        let mut seq = 0u32;
        let mut push = |jb: &mut JitterBuffer, n: usize| {
            for _ in 0..n {
                seq += 1;
                jb.push(inp(seq, 0), 0);
            }
        };
        // Primed at depth 4, then a burst of three extra inputs (queue 7 > 6) that drains back.
        push(&mut jb, 4);
        jb.drain();
        push(&mut jb, 1 + 3);
        for _ in 0..5 {
            jb.drain();
            let n = usize::from(jb.len() <= 4);
            push(&mut jb, n);
        }
        assert_eq!(jb.dropped_for_latency, 0, "a burst skips nothing");
        // A backlog that stays: one input per tick in, one out, queue held at 7.
        for _ in 0..(TRIM_PERSIST_TICKS as usize * 2 + 2) {
            while jb.len() < 7 {
                push(&mut jb, 1);
            }
            assert!(matches!(jb.drain(), Drained::Fresh(_)));
        }
        assert_eq!(jb.dropped_for_latency, 2, "one skip per persistence period");
        assert_eq!(
            jb.gap_fills, 0,
            "a deliberate skip is not a loss to conceal"
        );
    }

    #[test]
    fn jitter_estimate_follows_irregular_arrivals() {
        let mut jb = JitterBuffer::new(JitterConfig::default());
        for s in 0..200u32 {
            let arrival = u64::from(s) + if s % 2 == 0 { 0 } else { 4 };
            jb.push(inp(s, 0), arrival);
            jb.drain();
        }
        assert!(jb.jitter_ticks() > 2.0, "{}", jb.jitter_ticks());
    }
}
