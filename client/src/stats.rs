//! Small measurement helpers for the client's reports: a bounded sample store with nearest-rank
//! percentiles (the workspace's one rank rule, `fl_server::stats::nearest_rank`), and the
//! summary shape every report uses.
//!
//! Owns no time and no randomness: up to the cap every sample is kept (exact percentiles);
//! beyond it the store thins itself to every 2nd, 4th, … sample — a uniform subsample of the
//! whole run — so the same run gives the same numbers and memory stays bounded.

use fl_server::stats::{nearest_rank, sort};
use serde::Serialize;

/// Samples kept for percentiles (count, mean and max always cover every sample).
pub const DEFAULT_SAMPLE_CAP: usize = 1 << 17;

/// A stream of non-negative measurements.
#[derive(Debug, Clone)]
pub struct Samples {
    values: Vec<f64>,
    cap: usize,
    /// Keep one sample in `stride` (doubles each time the store fills).
    stride: u64,
    count: u64,
    sum: f64,
    max: f64,
}

impl Default for Samples {
    fn default() -> Self {
        Self::with_cap(DEFAULT_SAMPLE_CAP)
    }
}

/// Percentiles of a sample stream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Summary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Samples {
    /// A store keeping at most `cap` samples for percentiles.
    pub fn with_cap(cap: usize) -> Self {
        Self {
            values: Vec::new(),
            cap: cap.max(2),
            stride: 1,
            count: 0,
            sum: 0.0,
            max: 0.0,
        }
    }

    /// Records one value (non-finite values are ignored).
    pub fn push(&mut self, v: f64) {
        if !v.is_finite() {
            return;
        }
        self.count += 1;
        self.sum += v;
        if self.count == 1 || v > self.max {
            self.max = v;
        }
        if (self.count - 1).is_multiple_of(self.stride) {
            if self.values.len() == self.cap {
                // Thin to every other kept sample and keep half as often from now on.
                let mut i = 0;
                self.values.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
                if !(self.count - 1).is_multiple_of(self.stride) {
                    return;
                }
            }
            self.values.push(v);
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn max(&self) -> f64 {
        self.max
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// The nearest-rank percentile `q` in `[0, 1]` of the kept samples.
    pub fn percentile(&self, q: f64) -> f64 {
        let mut v = self.values.clone();
        sort(&mut v);
        nearest_rank(&v, q)
    }

    /// Count, mean, p50, p99 and max.
    pub fn summary(&self) -> Summary {
        let mut v = self.values.clone();
        sort(&mut v);
        Summary {
            count: self.count,
            mean: self.mean(),
            p50: nearest_rank(&v, 0.5),
            p99: nearest_rank(&v, 0.99),
            max: self.max,
        }
    }
}

/// An exponentially weighted moving average with weight `1/n` per sample (the first sample
/// seeds it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ewma {
    value: Option<f64>,
    weight: f64,
}

impl Ewma {
    /// An average over about `n` samples.
    pub fn new(n: f64) -> Self {
        Self {
            value: None,
            weight: 1.0 / n.max(1.0),
        }
    }

    pub fn push(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        self.value = Some(match self.value {
            None => x,
            Some(v) => v + (x - v) * self.weight,
        });
    }

    pub fn get(&self) -> Option<f64> {
        self.value
    }

    pub fn reset(&mut self) {
        self.value = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_follow_the_nearest_rank_rule() {
        let mut s = Samples::default();
        for i in 1..=100 {
            s.push(f64::from(i));
        }
        s.push(f64::NAN);
        let m = s.summary();
        assert_eq!((m.count, m.p50, m.p99, m.max), (100, 50.0, 99.0, 100.0));
        assert!((m.mean - 50.5).abs() < 1e-12);
        assert_eq!(Samples::default().summary(), Summary::default());
    }

    #[test]
    fn the_cap_bounds_memory_but_not_the_counters() {
        let mut s = Samples::with_cap(4);
        for v in 1..=9 {
            s.push(f64::from(v));
        }
        assert_eq!(s.count(), 9);
        assert_eq!(s.max(), 9.0);
        // Thinned to a uniform subsample of the whole run: samples 1, 3, 5, 7, 9.
        assert_eq!(s.values, vec![1.0, 5.0, 9.0]);
        assert_eq!(s.percentile(0.5), 5.0);
        let mut big = Samples::with_cap(1000);
        for v in 0..100_000 {
            big.push(f64::from(v));
        }
        assert!(big.values.len() <= 1000);
        assert!((big.percentile(0.5) - 50_000.0).abs() < 200.0);
    }

    #[test]
    fn ewma_seeds_then_follows() {
        let mut e = Ewma::new(4.0);
        assert_eq!(e.get(), None);
        e.push(8.0);
        e.push(0.0);
        assert_eq!(e.get(), Some(6.0));
    }
}
