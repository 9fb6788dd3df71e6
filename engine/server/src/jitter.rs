//! The per-peer jitter buffer: accepted inputs queue here and exactly one is drained per sim
//! tick. When it runs dry the last input repeats (stale repeat) with the fire-store bit cleared,
//! so loss never coasts the aircraft and never manufactures a weapon release.
//!
//! Inputs are consecutive sequence numbers, one per client tick, so each has a slot: the tick
//! it is drained on. A lost input (the queue holds a later one while the expected one is
//! missing) is concealed by a repeat *in its own slot* rather than by pulling the next input a
//! tick early — otherwise every later input would land one tick earlier than the client
//! predicted, and each lost packet would shift the client's replay by a whole tick. The slot
//! served last is what `SnapshotLastAckedSeqNum` reports ([`JitterBuffer::last_applied_slot`]).
//! An empty queue is concealed the same way (the input is lost or late: a repeat serves its
//! slot, and a late input is dropped when it comes). Inputs may arrive in any order (the
//! client repeats its last few inputs in every packet, so a lost packet's inputs come with the
//! next one): the queue is kept in sequence order.
//!
//! **How deep.** Every input's arrival is measured against the client's unsteered 60 Hz clock
//! (`now − (seq − lead)`, the lead from `InputClockLead`; 0 for a client that does not send
//! it): the spread of those transit times over a window of recent arrivals is the input
//! arrival jitter. The buffer keeps the high percentile of that spread plus a margin
//! ([`JitterConfig::jitter_multiplier`], in ticks) — not a fixed worst case and not the round
//! trip: the depth follows the jitter the link really has. The client learns where its inputs
//! should be ([`JitterBuffer::target_lead`], `SnapshotInputTiming`) and steers its input clock
//! a few percent faster or slower to put them there, so the server neither drops nor repeats.
//! The server moves the timeline itself only when it must: later when the high-percentile
//! arrival misses its slot (persistent lateness — a single late input costs one repeat and
//! moves nothing), or after [`LATE_RESYNC`] late inputs in a row (the link got slower at once);
//! earlier only for a backlog that persists (a client that does not steer) or is gross.

use crate::input::PeerInput;
use fl_protocol::ack::seq32_newer;
use fl_protocol::enums::buttons;
use std::collections::VecDeque;

/// Tuning (`[world] jitter_buffer_*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JitterConfig {
    /// Most ticks of input the buffer may hold for the measured jitter (`jitter_buffer_depth`,
    /// default 8): a link that jitters more loses its latest inputs instead.
    pub max_depth: usize,
    /// Input arrivals the jitter percentile looks at (`jitter_buffer_adapt_window`, default
    /// 240 = four seconds; kept within 16 … 1024).
    pub adapt_window: f64,
    /// Resize the reported depth only when |target − depth| exceeds this
    /// (`jitter_buffer_hysteresis`).
    pub hysteresis: usize,
    /// The margin in ticks kept beyond the 99th-percentile arrival
    /// (`jitter_buffer_jitter_multiplier`, default 1.5: the tail beyond the percentile — at
    /// 3 % loss two datagrams lost in a row bring an input a tick later than one — and the
    /// phase between the two clocks).
    pub jitter_multiplier: f64,
    /// Arrivals measured before the timeline is placed (default 12, 200 ms of inputs, inside
    /// the spawn's settling second). Until then inputs are served from where the first two
    /// fell, provisionally: the slots are not acknowledged (`SnapshotLastAckedSeqNum` is
    /// absent, the client predicts without the mapping), so moving the timeline to where the
    /// measured jitter wants it costs the client no timeline shift. 0: acknowledged at once.
    pub place_samples: usize,
}

impl Default for JitterConfig {
    fn default() -> Self {
        Self {
            max_depth: 8,
            adapt_window: 240.0,
            hysteresis: 1,
            jitter_multiplier: 1.5,
            place_samples: 12,
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
/// Arrivals measured before the jitter statistics are trusted (depth, target lead, timeline).
pub const MIN_SAMPLES: usize = 30;
/// The statistics are recomputed after this many new arrivals.
const REFRESH_EVERY: u32 = 8;
/// The percentile of the arrival spread the buffer covers.
const HIGH_PERCENTILE: f64 = 0.99;
/// Most inputs queued at once (a bound on memory whatever a peer sends).
pub const MAX_QUEUE: usize = 256;

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

/// The input timeline's counters and targets (metrics, `PeerReport`, tests).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InputStats {
    /// Inputs applied in their own slot.
    pub fresh: u64,
    /// Slots served by a repeat because their input was lost or late (`gap_fills`) plus ticks
    /// held to move the timeline later (`held`).
    pub repeats: u64,
    pub gap_fills: u64,
    /// Of the gap fills, those with nothing queued at all.
    pub underruns: u64,
    /// Inputs that arrived after their slot was served (dropped).
    pub late_dropped: u64,
    /// Times the timeline moved later (persistent lateness).
    pub resyncs: u64,
    /// Ticks repeated without using a slot while the timeline moved later.
    pub held: u64,
    /// Inputs skipped to cut a backlog (the timeline moved earlier).
    pub dropped_for_latency: u64,
    /// Inputs whose first copy to arrive was a redundant one (their own packet was lost or
    /// late); filled in by the server from its input gate.
    pub redundant_used: u64,
    /// The depth the measured jitter asks for, ticks.
    pub depth: usize,
    /// Inputs queued now.
    pub queued: usize,
    /// The arrival spread covered (99th minus 50th percentile of the transit), ticks.
    pub jitter_ticks: Option<f64>,
    /// The lead the client's input clock should hold (`SnapshotInputTiming`), ticks.
    pub target_lead_ticks: Option<f64>,
    /// The peer reports its input clock's lead (it steers).
    pub steered: bool,
}

/// Percentiles of the arrival transit over the window, in ticks of the client's clock frame.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    lo: f64,
    mid: f64,
    hi: f64,
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
    /// Ticks still to repeat without using a slot (the timeline moving later).
    hold: u32,
    ewma_delay: Option<f64>,
    jitter: f64,
    last_transit: Option<f64>,
    /// Transit of recent arrivals against the client's unsteered clock, ticks (oldest first).
    samples: VecDeque<f64>,
    since_refresh: u32,
    spread: Option<Spread>,
    /// `now − next_slot` at the last arrival: slot `s` is drained on tick `s + offset`.
    offset: Option<i32>,
    /// The client's input clock lead at the last arrival, ticks.
    lead: f64,
    steered: bool,
    /// The timeline was checked against the first measurement of the link.
    placed: bool,
    /// Applied slots are reported (`SnapshotLastAckedSeqNum`): the timeline is placed.
    acknowledged: bool,
    /// Consecutive drains that found the queue beyond `depth + 2`.
    over_depth: u32,
    /// Diagnostics.
    pub underruns: u64,
    pub dropped_for_latency: u64,
    /// Slots served by a repeat because their input was lost or late.
    pub gap_fills: u64,
    /// Inputs that arrived after their slot was served (dropped).
    pub late_dropped: u64,
    /// Times lateness moved the timeline later.
    pub resyncs: u64,
    /// Ticks held (repeated without a slot) while the timeline moved later.
    pub held: u64,
    /// Inputs applied in their slot.
    pub fresh: u64,
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
            hold: 0,
            ewma_delay: None,
            jitter: 0.0,
            last_transit: None,
            samples: VecDeque::new(),
            since_refresh: 0,
            spread: None,
            offset: None,
            lead: 0.0,
            steered: false,
            placed: cfg.place_samples == 0,
            acknowledged: cfg.place_samples == 0,
            over_depth: 0,
            underruns: 0,
            dropped_for_latency: 0,
            gap_fills: 0,
            late_dropped: 0,
            resyncs: 0,
            held: 0,
            fresh: 0,
        }
    }

    /// The current depth in ticks (what the measured jitter asks for).
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

    /// The seqNum of the last input actually applied.
    pub fn last_applied_seq(&self) -> Option<u32> {
        self.last_applied_seq
    }

    /// The input slot served last (the `SnapshotLastAckedSeqNum` TLV): the seqNum of the last
    /// input applied, or of a lost input whose slot a repeat filled. Every input after it is
    /// applied on the following ticks, one per tick.
    pub fn last_applied_slot(&self) -> Option<u32> {
        self.applied_slot.filter(|_| self.acknowledged)
    }

    /// The smoothed delay estimate in ticks (`now − acked snapshot tick`: about a round trip;
    /// a diagnostic, it does not size the buffer).
    pub fn delay_ticks(&self) -> Option<f64> {
        self.ewma_delay
    }

    /// The RFC 3550 jitter estimate in ticks (a diagnostic).
    pub fn jitter_ticks(&self) -> f64 {
        self.jitter
    }

    /// The arrival spread the buffer covers (99th minus 50th percentile of the transit), once
    /// enough arrivals were measured.
    pub fn arrival_jitter_ticks(&self) -> Option<f64> {
        self.spread.map(|s| s.hi - s.mid)
    }

    /// The lead the client's input clock should hold, in ticks of its `InputClockLead` frame:
    /// with it the 99th-percentile arrival reaches its slot with the margin to spare. Capped so
    /// the earliest arrivals never need more than `max_depth` ticks of queue. `None` until the
    /// timeline is set and enough arrivals were measured.
    pub fn target_lead(&self) -> Option<f64> {
        let s = self.spread?;
        let off = f64::from(self.offset?);
        let want = self.cfg.jitter_multiplier.max(0.0) + s.hi;
        let cap = self.cfg.max_depth.max(1) as f64 + s.lo;
        Some(want.min(cap) - off)
    }

    /// The counters and targets.
    pub fn stats(&self) -> InputStats {
        InputStats {
            fresh: self.fresh,
            repeats: self.gap_fills + self.held,
            gap_fills: self.gap_fills,
            underruns: self.underruns,
            late_dropped: self.late_dropped,
            resyncs: self.resyncs,
            held: self.held,
            dropped_for_latency: self.dropped_for_latency,
            redundant_used: 0,
            depth: self.depth,
            queued: self.queue.len(),
            jitter_ticks: self.arrival_jitter_ticks(),
            target_lead_ticks: self.target_lead(),
            steered: self.steered,
        }
    }

    /// Feeds a delay sample (`now − acked snapshot tick`) from an input or heartbeat (a
    /// diagnostic: the buffer is sized by the arrival jitter, not by the round trip).
    pub fn observe_delay(&mut self, delay_ticks: u64) {
        let d = delay_ticks as f64;
        self.ewma_delay = Some(match self.ewma_delay {
            None => d,
            Some(e) => e + (d - e) / 60.0,
        });
    }

    /// Queues an accepted input that arrived at server tick `now` from a client that does not
    /// report its input clock's lead.
    pub fn push(&mut self, input: PeerInput, now: u64) {
        self.push_timed(input, now, None);
    }

    /// Queues an accepted input that arrived at server tick `now`; `lead` is the client's input
    /// clock lead (`InputClockLead`, ticks) when it reports one.
    pub fn push_timed(&mut self, input: PeerInput, now: u64, lead: Option<f64>) {
        // Wrapping differences: sequence numbers are the client's, `now` the server's.
        let since_seq = (now as u32).wrapping_sub(input.seq) as i32;
        if let Some(l) = lead.filter(|l| l.is_finite()) {
            self.lead = l;
            self.steered = true;
        }
        // RFC 3550 transit estimate (diagnostic).
        let transit = f64::from(since_seq);
        if let Some(prev) = self.last_transit {
            let d = (transit - prev).abs();
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
        // The transit against the client's unsteered clock: steering moves the send times, not
        // the link's jitter.
        let window = self.cfg.adapt_window.clamp(16.0, 1024.0) as usize;
        while self.samples.len() >= window {
            self.samples.pop_front();
        }
        self.samples.push_back(transit + self.lead);
        self.since_refresh += 1;
        if let Some(slot) = self.next_slot {
            // Ticks still held count as already moved.
            let off = (now as u32).wrapping_sub(slot) as i32;
            self.offset = Some(off.saturating_add(self.hold.min(i32::MAX as u32) as i32));
        }
        self.observe_delay(now.saturating_sub(input.ack.high));
        // In sequence order (a copy of a lost input arrives after later inputs); a duplicate is
        // the input gate's to refuse, and is ignored here too.
        if self.queue.iter().any(|q| q.seq == input.seq) {
            return;
        }
        let pos = self
            .queue
            .iter()
            .rposition(|q| seq32_newer(input.seq, q.seq))
            .map_or(0, |p| p + 1);
        self.queue.insert(pos, input);
        while self.queue.len() > MAX_QUEUE {
            self.queue.pop_front();
            self.dropped_for_latency += 1;
        }
    }

    /// Takes the input for this tick and adapts the depth.
    pub fn drain(&mut self) -> Drained {
        self.adapt();
        if self.placed && self.hold == 0 {
            self.acknowledged = true;
        }
        // Too much queued means too much latency: skip the oldest down to the target depth (the
        // timeline moves earlier on purpose; the skipped slots are gone) — at once for a gross
        // backlog, one input at a time for one that persists, never for a brief burst. A
        // client that steers its input clock is left to empty a lasting backlog itself.
        let limit = self.depth + 2;
        if self.queue.len() > limit {
            self.over_depth = self.over_depth.saturating_add(1);
        } else {
            self.over_depth = 0;
        }
        let target = if self.queue.len() > limit + GROSS_BACKLOG {
            limit
        } else if self.over_depth >= TRIM_PERSIST_TICKS && !self.steered {
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
            if self.hold > 0 && self.last.is_some() {
                // The timeline moves later: this tick repeats without using a slot.
                self.hold -= 1;
                self.held += 1;
                return self.repeat().unwrap_or(Drained::Nothing);
            }
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
                self.fresh += 1;
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

    /// Recomputes the arrival spread, the depth it asks for, and moves the timeline later when
    /// the high-percentile arrival misses its slot.
    fn adapt(&mut self) {
        let min = if self.placed {
            MIN_SAMPLES
        } else {
            self.cfg.place_samples.clamp(2, MIN_SAMPLES)
        };
        if self.samples.len() < min || (self.since_refresh < REFRESH_EVERY && self.spread.is_some())
        {
            return;
        }
        self.since_refresh = 0;
        let mut sorted: Vec<f64> = self.samples.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        let spread = Spread {
            lo: at(1.0 - HIGH_PERCENTILE),
            mid: at(0.5),
            hi: at(HIGH_PERCENTILE),
        };
        self.spread = Some(spread);
        let margin = self.cfg.jitter_multiplier.max(0.0);
        let max = self.cfg.max_depth.max(1);
        let target = ((spread.hi - spread.lo + margin).ceil().max(1.0) as usize).min(max);
        if target.abs_diff(self.depth) > self.cfg.hysteresis {
            self.depth = target;
        }
        // Persistent lateness: the client's inputs come so late that the 99th-percentile
        // arrival misses its slot (a few late inputs in the window, not one) — the lead is
        // short of the target by more than the margin. Move the timeline later by what is
        // missing, at once: once when the link is first measured (the first two inputs placed
        // it, by chance), and whenever it happens to a client that does not steer. A steering
        // client closes smaller gaps itself without a repeat; for it only sudden lateness (3
        // late inputs in a row) moves the timeline. The target is the capped one, so a link
        // that jitters beyond `max_depth` loses its latest inputs instead of the timeline
        // sliding later and later.
        let may_move = !self.placed || !self.steered;
        if let (true, true, Some(off), Some(target)) =
            (may_move, self.primed, self.offset, self.target_lead())
        {
            self.placed = true;
            let short = target - self.lead;
            if short > margin {
                let ticks = short.ceil().min(max as f64) as u32;
                if ticks > 0 {
                    self.hold += ticks;
                    self.offset = Some(off.saturating_add(ticks as i32));
                    self.resyncs += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::ack::AckStamp;
    use fl_protocol::msg::world::ClientInput;

    /// Serves as soon as two inputs are queued (no measured placement).
    fn quick() -> JitterConfig {
        JitterConfig {
            place_samples: 0,
            ..JitterConfig::default()
        }
    }

    fn inp(seq: u32, buttons: u8) -> PeerInput {
        PeerInput {
            seq,
            ack: AckStamp::default(),
            wire: ClientInput {
                seq_num: seq,
                buttons,
                ..Default::default()
            },
            view_tick: None,
        }
    }

    #[test]
    fn drains_one_per_tick_and_repeats_without_the_fire_edge() {
        let mut jb = JitterBuffer::new(quick());
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
        let mut jb = JitterBuffer::new(quick());
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
    fn backlog_beyond_the_target_is_skipped() {
        let mut jb = JitterBuffer::new(quick());
        jb.depth = 4;
        for s in 1..=10 {
            jb.push(inp(s, 0), 100);
        }
        let d = jb.drain();
        // A gross backlog (10 > 4 + 2 + 3) is cut to depth + 2 = 6 at once.
        assert!(matches!(&d, Drained::Fresh(i) if i.seq == 5), "{d:?}");
        assert!(jb.dropped_for_latency > 0);
    }

    /// Runs a client that sends input `seq` on tick `seq` (no steering) over a link that
    /// delivers it on tick `seq + delay(seq)` (`None`: lost), for `ticks` server ticks.
    /// Returns the slots served by a repeat after tick `measure_from`.
    fn fly(
        jb: &mut JitterBuffer,
        ticks: u64,
        measure_from: u64,
        delay: impl Fn(u32) -> Option<u64>,
    ) -> u64 {
        let mut in_flight: Vec<(u64, u32)> = Vec::new();
        let before = (jb.gap_fills, jb.held);
        let mut at_measure = before;
        for tick in 0..ticks {
            let seq = tick as u32 + 1;
            if let Some(d) = delay(seq) {
                in_flight.push((tick + d, seq));
            }
            in_flight.sort();
            while let Some(&(at, seq)) = in_flight.first() {
                if at > tick {
                    break;
                }
                in_flight.remove(0);
                jb.push(inp(seq, 0), tick);
            }
            if tick == measure_from {
                at_measure = (jb.gap_fills, jb.held);
            }
            jb.drain();
        }
        jb.gap_fills + jb.held - at_measure.0 - at_measure.1
    }

    /// A deterministic spread in 0..=span ticks.
    fn spread(seq: u32, span: u64) -> u64 {
        u64::from(seq.wrapping_mul(2_654_435_761) >> 7) % (span + 1)
    }

    #[test]
    fn the_depth_follows_the_measured_arrival_jitter_not_the_round_trip() {
        // 18 ticks (300 ms) of delay and no jitter: one tick of margin is all it needs (the
        // old rule, ceil(delay + 2 × jitter) clamped to the maximum, held the worst case).
        let mut jb = JitterBuffer::new(JitterConfig::default());
        jb.observe_delay(18);
        assert_eq!(fly(&mut jb, 600, 0, |_| Some(18)), 0);
        assert_eq!(
            jb.depth(),
            1,
            "a quiet link needs no more than the margin (2, within the hysteresis of 1)"
        );
        assert_eq!(jb.arrival_jitter_ticks(), Some(0.0));
        // Up to three ticks of jitter on top: the depth covers the spread plus the margin
        // (3 + 1.5, rounded up).
        let mut jb = JitterBuffer::new(JitterConfig::default());
        let repeats = fly(&mut jb, 1200, 300, |s| Some(18 + spread(s, 3)));
        assert_eq!(jb.depth(), 5, "{:?}", jb.stats());
        assert_eq!(repeats, 0, "after settling no input misses its slot");
        // The jitter goes away: the depth comes down again (within the hysteresis).
        fly(&mut jb, 600, 0, |_| Some(18));
        assert!(jb.depth() <= 2, "{:?}", jb.stats());
    }

    #[test]
    fn persistent_lateness_moves_the_timeline_once_a_single_stall_costs_one_repeat() {
        // The buffer primes on the first two inputs, which happened to come fast; the link's
        // real spread is four ticks. Once measured, the timeline moves later once (a held
        // repeat or a few, inside the first second) and from then on every input is on time.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        let repeats = fly(&mut jb, 1800, 60, |s| {
            Some(if s <= 2 { 5 } else { 5 + spread(s, 4) })
        });
        assert_eq!(repeats, 0, "{:?}", jb.stats());
        assert!((1..=2).contains(&jb.resyncs), "{:?}", jb.stats());
        assert!(jb.stats().held >= 1);
        // One input stalls beyond the margin: its slot is a repeat, nothing moves.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        let repeats = fly(&mut jb, 1200, 120, |s| Some(if s == 600 { 12 } else { 5 }));
        assert_eq!(repeats, 1, "{:?}", jb.stats());
        assert_eq!((jb.late_dropped, jb.resyncs), (1, 0), "{:?}", jb.stats());
    }

    #[test]
    fn a_copy_that_overtakes_nothing_still_takes_its_slot() {
        // Input 3's own packet is lost; its copy rides with input 4 and arrives after 4 was
        // queued (the gate hands copies over in any order): both are applied in their slots.
        let mut jb = JitterBuffer::new(quick());
        jb.push(inp(1, 0), 0);
        jb.push(inp(2, 0), 0);
        assert!(matches!(jb.drain(), Drained::Fresh(i) if i.seq == 1));
        jb.push(inp(4, 0), 1);
        jb.push(inp(3, 0), 1);
        let order: Vec<u32> = (0..3)
            .filter_map(|_| match jb.drain() {
                Drained::Fresh(i) => Some(i.seq),
                _ => None,
            })
            .collect();
        assert_eq!(order, vec![2, 3, 4]);
        assert_eq!(jb.gap_fills, 0);
    }

    #[test]
    fn the_target_lead_puts_the_late_arrivals_on_their_slot() {
        // A client that reports its lead and moves it to the target: the target is where the
        // 99th-percentile arrival keeps the margin, whatever the lead was.
        let mut jb = JitterBuffer::new(JitterConfig::default());
        fly(&mut jb, 600, 0, |s| Some(9 + spread(s, 2)));
        let target = jb.target_lead().expect("measured");
        // Without steering the lead is 0 and the timeline was placed from the measured
        // arrivals: the target asks for at most the margin more than the lead it has.
        let margin = JitterConfig::default().jitter_multiplier;
        assert!((-1.0..=margin).contains(&target), "{target}");
        // The same client now reports a lead of 2 ticks (it sends two ticks earlier than its
        // unsteered clock): arrivals are two ticks earlier in slot terms, the transit against
        // the unsteered clock unchanged, so the target stays where it was.
        for k in 0..240u32 {
            let seq = 601 + k;
            let now = u64::from(seq) + 9 - 2;
            jb.push_timed(inp(seq, 0), now, Some(2.0));
            jb.drain();
        }
        let again = jb.target_lead().expect("measured");
        assert!((again - target).abs() < 0.5, "{target} → {again}");
        assert!(jb.stats().steered);
    }

    #[test]
    fn a_lost_input_is_concealed_in_its_own_slot() {
        // Depth 2, one input per tick; input 6 is lost on the way.
        let mut jb = JitterBuffer::new(quick());
        jb.depth = 2;
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
        let mut jb = JitterBuffer::new(quick());
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
        let mut jb = JitterBuffer::new(quick());
        jb.depth = 2;
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
        let mut jb = JitterBuffer::new(quick());
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
        // Depth held at 4 (the hysteresis keeps the measured target from moving it).
        let mut jb = JitterBuffer::new(JitterConfig {
            hysteresis: 60,
            ..quick()
        });
        jb.depth = 4;
        let mut seq = 0u32;
        let mut push = |jb: &mut JitterBuffer, n: usize| {
            for _ in 0..n {
                seq += 1;
                jb.push(inp(seq, 0), u64::from(seq));
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
        let mut jb = JitterBuffer::new(quick());
        for s in 0..200u32 {
            let arrival = u64::from(s) + if s % 2 == 0 { 0 } else { 4 };
            jb.push(inp(s, 0), arrival);
            jb.drain();
        }
        assert!(jb.jitter_ticks() > 2.0, "{}", jb.jitter_ticks());
    }
}
