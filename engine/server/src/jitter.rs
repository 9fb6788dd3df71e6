//! The per-peer jitter buffer: accepted inputs queue here and exactly one is drained per sim
//! tick. When it runs dry the last input repeats (stale repeat) with the fire-store bit cleared,
//! so loss never coasts the aircraft and never manufactures a weapon release. Its depth adapts
//! to the link: `target = ceil(ewma_delay + k × jitter)`, clamped to `[1, max_depth]`, resized
//! only when the target moves more than the hysteresis (RFC 3550 inter-arrival jitter).

use crate::input::PeerInput;
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
    ewma_delay: Option<f64>,
    jitter: f64,
    last_transit: Option<f64>,
    /// Diagnostics.
    pub underruns: u64,
    pub dropped_for_latency: u64,
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
            ewma_delay: None,
            jitter: 0.0,
            last_transit: None,
            underruns: 0,
            dropped_for_latency: 0,
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
        // Too much queued means too much latency: skip the oldest down to the target depth.
        while self.queue.len() > self.depth + 2 {
            self.queue.pop_front();
            self.dropped_for_latency += 1;
        }
        if !self.primed && self.queue.len() >= self.depth {
            self.primed = true;
        }
        if self.primed {
            if let Some(next) = self.queue.pop_front() {
                self.last_applied_seq = Some(next.seq);
                self.last = Some(next.clone());
                return Drained::Fresh(next);
            }
            self.underruns += 1;
        }
        match &mut self.last {
            Some(last) => {
                // Never repeat an edge: a held fire-store intent must not release twice.
                last.wire.buttons &= !buttons::FIRE_STORE;
                Drained::Repeat(last.clone())
            }
            None => Drained::Nothing,
        }
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
        jb.push(inp(1, buttons::GUN | buttons::FIRE_STORE), 0);
        let first = jb.drain();
        assert!(matches!(first, Drained::Fresh(i) if i.seq == 1));
        match jb.drain() {
            Drained::Repeat(i) => {
                assert_eq!(i.seq, 1);
                assert_eq!(
                    i.wire.buttons,
                    buttons::GUN,
                    "the gun level repeats, the store edge does not"
                );
            }
            other => panic!("expected a repeat, got {other:?}"),
        }
        assert_eq!(jb.underruns, 1);
        assert_eq!(jb.last_applied_seq(), Some(1));
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
