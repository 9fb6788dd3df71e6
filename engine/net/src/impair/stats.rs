//! The relay's ground truth: per-direction counters and bounded delay histograms.

use std::time::Duration;

use serde::Serialize;

/// Histogram resolution and range: 250 µs buckets up to 10 s (delays beyond land in the
/// last bucket; the exact max is kept apart). Bounded memory whatever the traffic.
const BUCKET_US: u64 = 250;
const BUCKETS: usize = 40_000;

/// A bounded delay recorder.
#[derive(Debug, Clone)]
pub(crate) struct Histogram {
    buckets: Vec<u32>,
    count: u64,
    sum: Duration,
    /// Σ delay², s² (for the standard deviation: the jitter a receiver can measure).
    sum_sq_s2: f64,
    max: Duration,
}

impl Histogram {
    pub(crate) fn new() -> Self {
        Histogram {
            buckets: vec![0; BUCKETS],
            count: 0,
            sum: Duration::ZERO,
            sum_sq_s2: 0.0,
            max: Duration::ZERO,
        }
    }

    pub(crate) fn record(&mut self, d: Duration) {
        let i = ((d.as_micros() / BUCKET_US as u128) as usize).min(BUCKETS - 1);
        if let Some(b) = self.buckets.get_mut(i) {
            *b = b.saturating_add(1);
        }
        self.count += 1;
        self.sum = self.sum.saturating_add(d);
        self.sum_sq_s2 += d.as_secs_f64() * d.as_secs_f64();
        self.max = self.max.max(d);
    }

    pub(crate) fn summary(&self) -> DelaySummary {
        if self.count == 0 {
            return DelaySummary::default();
        }
        let target = (self.count as f64 * 0.99).ceil() as u64;
        let mut seen = 0u64;
        let mut p99 = self.max;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += u64::from(*n);
            if seen >= target {
                // The bucket's upper edge, never above the true max.
                p99 = Duration::from_micros((i as u64 + 1) * BUCKET_US).min(self.max);
                break;
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let n = self.count as f64;
        let mean_s = self.sum.as_secs_f64() / n;
        let variance_s2 = (self.sum_sq_s2 / n - mean_s * mean_s).max(0.0);
        DelaySummary {
            count: self.count,
            mean_ms: ms(self.sum) / n,
            stdev_ms: variance_s2.sqrt() * 1000.0,
            p99_ms: ms(p99),
            max_ms: ms(self.max),
        }
    }
}

/// Mean / p99 / max of a set of delays, in milliseconds (p99 to 0.25 ms).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct DelaySummary {
    pub count: u64,
    pub mean_ms: f64,
    /// Standard deviation: the spread of the delay, which a receiver sees as its jitter.
    pub stdev_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// What happened to one direction's packets.
///
/// Accounting: `packets_in + duplicated == packets_out + dropped_loss + dropped_blackout +
/// dropped_queue + dropped_overflow + send_errors + in_flight`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct DirectionStats {
    pub packets_in: u64,
    pub bytes_in: u64,
    /// Copies sent on (duplicates included).
    pub packets_out: u64,
    pub bytes_out: u64,
    pub dropped_loss: u64,
    pub dropped_blackout: u64,
    /// Tail drops at the bottleneck queue.
    pub dropped_queue: u64,
    /// Dropped because the relay's own in-flight bound was reached (never with sane settings).
    pub dropped_overflow: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Sends the OS refused.
    pub send_errors: u64,
    /// Delivered after a packet that arrived later than it.
    pub reordered: u64,
    /// Scheduled and not yet sent.
    pub in_flight: u64,
    /// The largest bottleneck backlog seen, in bytes.
    pub max_queue_bytes: u64,
    /// Measured time each delivered copy spent in the relay (receive to send).
    pub delay: DelaySummary,
    /// Time each bottlenecked packet waited in the queue (the model's figure).
    pub queue_delay: DelaySummary,
}

/// The relay's ground truth.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct RelayStats {
    pub to_server: DirectionStats,
    pub to_client: DirectionStats,
    /// Client addresses seen (each gets its own upstream socket).
    pub flows: u64,
    /// Packets from new client addresses refused because the flow table was full.
    pub refused_flow_packets: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_delays() {
        let mut h = Histogram::new();
        assert_eq!(h.summary(), DelaySummary::default());
        for ms in 1..=100u64 {
            h.record(Duration::from_millis(ms));
        }
        h.record(Duration::from_secs(3600));
        let s = h.summary();
        assert_eq!(s.count, 101);
        assert!((s.p99_ms - 100.25).abs() < 0.01, "{s:?}");
        assert_eq!(s.max_ms, 3_600_000.0);
    }

    #[test]
    fn the_spread_is_the_standard_deviation() {
        let mut h = Histogram::new();
        for ms in [40u64, 60, 40, 60] {
            h.record(Duration::from_millis(ms));
        }
        let s = h.summary();
        assert!(
            (s.mean_ms - 50.0).abs() < 1e-9 && (s.stdev_ms - 10.0).abs() < 1e-6,
            "{s:?}"
        );
    }
}
