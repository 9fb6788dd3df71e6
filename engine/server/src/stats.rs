//! Percentiles: the one rank rule behind every latency and size report in the workspace — the
//! server runtime's metrics, bot-swarm's summary and the client's headless summary all call
//! [`nearest_rank`].
//!
//! The rule is the nearest rank: of `n` samples sorted ascending, the `q` percentile is the one
//! at rank `⌈q·n⌉` (counting from 1, and at least 1) — the smallest sample with at least a
//! fraction `q` of all samples at or below it. It is always a sample that was measured (no
//! interpolation), p100 is the maximum, p0 the minimum, and no samples give 0.

use serde::Serialize;

/// The nearest-rank percentile `q` (clamped to `[0, 1]`; NaN counts as 0) of samples already
/// sorted ascending; 0 for no samples.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    let (Some(&first), n) = (sorted.first(), sorted.len()) else {
        return 0.0;
    };
    let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
    let rank = (q * n as f64).ceil() as usize;
    match rank {
        0 => first,
        r => sorted[r.min(n) - 1],
    }
}

/// Sorts samples ascending (NaN last, by IEEE total order), ready for [`nearest_rank`].
pub fn sort(samples: &mut [f64]) {
    samples.sort_by(f64::total_cmp);
}

/// p50, p95, p99 and the maximum of one series of durations, in milliseconds (the shape of
/// every `phases` entry in the metrics JSON).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Percentiles {
    #[serde(rename = "p50_ms")]
    pub p50: f64,
    #[serde(rename = "p95_ms")]
    pub p95: f64,
    #[serde(rename = "p99_ms")]
    pub p99: f64,
    #[serde(rename = "max_ms")]
    pub max: f64,
}

impl Percentiles {
    /// The percentiles of `ms` (sorted in place); all zero for no samples.
    pub fn of_ms(ms: &mut [f64]) -> Self {
        sort(ms);
        Self {
            p50: nearest_rank(ms, 0.5),
            p95: nearest_rank(ms, 0.95),
            p99: nearest_rank(ms, 0.99),
            max: nearest_rank(ms, 1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_to_a_hundred() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 0.5), 50.0);
        assert_eq!(nearest_rank(&v, 0.95), 95.0);
        assert_eq!(nearest_rank(&v, 0.99), 99.0);
        assert_eq!(nearest_rank(&v, 0.991), 100.0, "rank ⌈99.1⌉ = 100");
        assert_eq!(nearest_rank(&v, 1.0), 100.0);
        assert_eq!(nearest_rank(&v, 0.0), 1.0);
        assert_eq!(nearest_rank(&v, 0.001), 1.0);
    }

    #[test]
    fn small_and_empty_series() {
        assert_eq!(nearest_rank(&[], 0.5), 0.0);
        assert_eq!(nearest_rank(&[7.0], 0.0), 7.0);
        assert_eq!(nearest_rank(&[7.0], 0.99), 7.0);
        // Four samples: p50 is rank 2 (not an average of the middle two), p51 rank 3.
        let four = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(nearest_rank(&four, 0.5), 2.0);
        assert_eq!(nearest_rank(&four, 0.51), 3.0);
        assert_eq!(nearest_rank(&four, 0.75), 3.0);
        assert_eq!(nearest_rank(&four, 0.76), 4.0);
    }

    #[test]
    fn out_of_range_q_is_clamped() {
        let v = [1.0, 2.0, 3.0];
        assert_eq!(nearest_rank(&v, -1.0), 1.0);
        assert_eq!(nearest_rank(&v, 2.0), 3.0);
        assert_eq!(nearest_rank(&v, f64::NAN), 1.0);
        assert_eq!(nearest_rank(&v, f64::INFINITY), 3.0);
    }

    #[test]
    fn percentiles_sort_their_input_and_serialize_in_ms() {
        let mut ms: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = Percentiles::of_ms(&mut ms);
        assert_eq!((p.p50, p.p95, p.p99, p.max), (50.0, 95.0, 99.0, 100.0));
        assert_eq!(Percentiles::of_ms(&mut []), Percentiles::default());
        let v = serde_json::to_value(p).unwrap_or_default();
        assert_eq!(v["p50_ms"], 50.0);
        assert_eq!(v["p95_ms"], 95.0);
        assert_eq!(v["p99_ms"], 99.0);
        assert_eq!(v["max_ms"], 100.0);
        assert_eq!(v.as_object().map(|o| o.len()), Some(4));
    }
}
