//! The per-direction impairment model: given a packet's arrival time (offset from the relay's
//! start) and size, decide whether it is dropped (and why) or when each copy is delivered.
//! Pure and virtual-time: no clock, no I/O, so its statistics are tested exactly.
//!
//! Reproducibility: every packet consumes the same fixed number of draws from the seeded
//! PRNG whatever its fate, so the random part of the decisions (loss, Gilbert–Elliott state,
//! jitter, duplication) depends only on the seed and the packet's index in its direction.
//! Blackouts and bottleneck tail drops also depend on arrival times (as on a real path).

use std::time::Duration;

use super::config::{Blackout, DirectionConfig, JitterModel};

pub use crate::rng::Rng;

/// Why a packet never left the relay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Random (Bernoulli) or Gilbert–Elliott loss.
    Loss,
    /// Arrived inside a scripted blackout.
    Blackout,
    /// The bottleneck queue was full (tail drop).
    Queue,
}

/// What happens to one packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    Dropped(DropReason),
    /// Delivered after `delay` (from arrival); `duplicate` is a second copy's delay.
    Deliver {
        delay: Duration,
        duplicate: Option<Duration>,
        /// Time spent waiting in the bottleneck queue (zero without a bottleneck).
        queued: Duration,
    },
}

/// Per-packet step of the correlated jitter walk, as a fraction of the jitter bound.
const WALK_STEP: f64 = 0.25;

/// One direction's state.
#[derive(Debug, Clone)]
pub struct DirectionModel {
    config: DirectionConfig,
    blackouts: Vec<Blackout>,
    rng: Rng,
    /// Gilbert–Elliott: currently in the bad state.
    bad: bool,
    /// Correlated jitter: the walk's current offset in seconds, within ±jitter.
    walk: f64,
    /// Correlated jitter: when the previous delivered packet leaves (FIFO order).
    last_due: Duration,
    /// Bottleneck: when the link finishes sending everything queued so far.
    busy_until: Duration,
    /// The largest backlog (bytes) the bottleneck queue held, this packet included.
    pub max_queue_bytes: u64,
}

impl DirectionModel {
    pub fn new(config: DirectionConfig, blackouts: Vec<Blackout>, seed: u64) -> Self {
        DirectionModel {
            config,
            blackouts,
            rng: Rng::new(seed),
            bad: false,
            walk: 0.0,
            last_due: Duration::ZERO,
            busy_until: Duration::ZERO,
            max_queue_bytes: 0,
        }
    }

    /// Whether this direction has a bottleneck queue.
    pub fn has_bottleneck(&self) -> bool {
        self.config.rate_bps.is_some_and(|r| r > 0)
    }

    /// Decides the fate of a packet of `len` bytes arriving `at` after the start.
    pub fn decide(&mut self, at: Duration, len: usize) -> Verdict {
        // Fixed draws per packet, whatever happens to it (see the module comment).
        let u_loss = self.rng.unit();
        let u_ge_step = self.rng.unit();
        let u_ge_loss = self.rng.unit();
        let u_jitter = self.rng.unit();
        let u_dup = self.rng.unit();
        let u_dup_jitter = self.rng.unit();
        let c = &self.config;

        // The Gilbert–Elliott chain advances once per packet.
        let ge_lost = match &c.gilbert_elliott {
            Some(ge) => {
                self.bad = if self.bad {
                    u_ge_step >= ge.p_bad_to_good
                } else {
                    u_ge_step < ge.p_good_to_bad
                };
                let p = if self.bad { ge.loss_bad } else { ge.loss_good };
                u_ge_loss < p
            }
            None => false,
        };
        let jitter = c.jitter_ms.max(0.0) / 1000.0;
        let offset = match c.jitter_model {
            JitterModel::Uniform => (2.0 * u_jitter - 1.0) * jitter,
            JitterModel::Correlated => {
                self.walk = (self.walk + (2.0 * u_jitter - 1.0) * jitter * WALK_STEP)
                    .clamp(-jitter, jitter);
                self.walk
            }
        };

        if self
            .blackouts
            .iter()
            .any(|b| at >= b.start() && at < b.start() + b.duration())
        {
            return Verdict::Dropped(DropReason::Blackout);
        }
        if u_loss < c.loss || ge_lost {
            return Verdict::Dropped(DropReason::Loss);
        }

        let mut queued = Duration::ZERO;
        let mut serialized = Duration::ZERO;
        if let Some(rate) = c.rate_bps.filter(|r| *r > 0) {
            let backlog = self.busy_until.saturating_sub(at);
            let backlog_bytes = (backlog.as_secs_f64() * rate as f64 / 8.0).round() as u64;
            let with_this = backlog_bytes.saturating_add(len as u64);
            if with_this > c.queue_bytes as u64 {
                return Verdict::Dropped(DropReason::Queue);
            }
            self.max_queue_bytes = self.max_queue_bytes.max(with_this);
            let start = self.busy_until.max(at);
            let tx = Duration::from_secs_f64(len as f64 * 8.0 / rate as f64);
            self.busy_until = start + tx;
            queued = start - at;
            serialized = tx;
        }

        let base = c.delay_ms.max(0.0) / 1000.0;
        let mut delay = Duration::from_secs_f64((base + offset).max(0.0)) + queued + serialized;
        if c.jitter_model == JitterModel::Correlated {
            // A real path's queues are FIFO: never overtake the previous packet.
            let floor = self.last_due.saturating_sub(at);
            delay = delay.max(floor);
            self.last_due = at + delay;
        }
        let duplicate = (u_dup < c.duplicate).then(|| {
            let off = match c.jitter_model {
                JitterModel::Uniform => (2.0 * u_dup_jitter - 1.0) * jitter,
                // The copy follows the original closely (it was made downstream).
                JitterModel::Correlated => offset + u_dup_jitter * jitter * WALK_STEP,
            };
            Duration::from_secs_f64((base + off).max(0.0)) + queued + serialized
        });
        Verdict::Deliver {
            delay,
            duplicate,
            queued,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impair::config::GilbertElliott;

    const N: usize = 100_000;

    fn run(
        config: DirectionConfig,
        blackouts: Vec<Blackout>,
        gap: Duration,
        len: usize,
        n: usize,
    ) -> (DirectionModel, Vec<Verdict>) {
        let mut m = DirectionModel::new(config, blackouts, 42);
        let v = (0..n).map(|i| m.decide(gap * i as u32, len)).collect();
        (m, v)
    }

    fn fraction(v: &[Verdict], what: DropReason) -> f64 {
        v.iter().filter(|x| **x == Verdict::Dropped(what)).count() as f64 / v.len() as f64
    }

    #[test]
    fn random_loss_matches_the_configured_fraction() {
        for p in [0.0, 0.02, 0.1, 0.5] {
            let cfg = DirectionConfig {
                loss: p,
                ..DirectionConfig::default()
            };
            let (_, v) = run(cfg, vec![], Duration::from_millis(1), 100, N);
            let got = fraction(&v, DropReason::Loss);
            assert!((got - p).abs() < 0.005, "loss {p}: got {got}");
        }
    }

    #[test]
    fn gilbert_elliott_mean_loss_and_bursts() {
        let ge = GilbertElliott::with_mean(0.03, 4.0);
        let cfg = DirectionConfig {
            gilbert_elliott: Some(ge),
            ..DirectionConfig::default()
        };
        let (_, v) = run(cfg, vec![], Duration::from_millis(1), 100, N);
        let got = fraction(&v, DropReason::Loss);
        assert!((got - 0.03).abs() < 0.006, "mean loss {got}");
        // Bursty: the chance that a loss follows a loss is far above the mean.
        let lost: Vec<bool> = v.iter().map(|x| matches!(x, Verdict::Dropped(_))).collect();
        let pairs = lost.windows(2).filter(|w| w[0]).count();
        let both = lost.windows(2).filter(|w| w[0] && w[1]).count();
        let cond = both as f64 / pairs as f64;
        assert!(cond > 0.5, "P(loss | loss) = {cond}");
    }

    fn deliveries(v: &[Verdict], gap: Duration) -> Vec<(Duration, usize)> {
        v.iter()
            .enumerate()
            .filter_map(|(i, x)| match x {
                Verdict::Deliver { delay, .. } => Some((gap * i as u32 + *delay, i)),
                Verdict::Dropped(_) => None,
            })
            .collect()
    }

    /// Fraction of delivered packets that arrive after a later-sent packet.
    fn reorder_fraction(v: &[Verdict], gap: Duration) -> f64 {
        let d = deliveries(v, gap);
        let mut latest_sent_arrival = Duration::ZERO;
        let mut reordered = 0;
        // Walk in send order: a packet is late if some earlier-sent packet arrived after it.
        for (due, _) in &d {
            if *due < latest_sent_arrival {
                reordered += 1;
            }
            latest_sent_arrival = latest_sent_arrival.max(*due);
        }
        reordered as f64 / d.len() as f64
    }

    #[test]
    fn delays_stay_within_the_jitter_bounds_and_average_the_base() {
        for model in [JitterModel::Uniform, JitterModel::Correlated] {
            let cfg = DirectionConfig {
                delay_ms: 50.0,
                jitter_ms: 20.0,
                jitter_model: model,
                ..DirectionConfig::default()
            };
            let gap = Duration::from_millis(16);
            let (_, v) = run(cfg, vec![], gap, 100, 20_000);
            let delays: Vec<f64> = v
                .iter()
                .map(|x| match x {
                    Verdict::Deliver { delay, .. } => delay.as_secs_f64() * 1000.0,
                    Verdict::Dropped(_) => panic!("nothing is dropped"),
                })
                .collect();
            let min = delays.iter().cloned().fold(f64::MAX, f64::min);
            let max = delays.iter().cloned().fold(0.0, f64::max);
            let mean = delays.iter().sum::<f64>() / delays.len() as f64;
            assert!(min >= 30.0 - 1e-6, "{model:?} min {min}");
            // The FIFO floor can hold a correlated packet a little past the bound.
            let slack = if model == JitterModel::Uniform {
                0.0
            } else {
                5.0
            };
            assert!(max <= 70.0 + slack + 1e-6, "{model:?} max {max}");
            assert!((mean - 50.0).abs() < 3.0, "{model:?} mean {mean}");
            // Both actually spread over most of the range.
            assert!(max - min > 30.0, "{model:?} spread {min}..{max}");
        }
    }

    #[test]
    fn the_correlated_model_reorders_less_than_uniform() {
        let gap = Duration::from_millis(5);
        let cfg = |m| DirectionConfig {
            delay_ms: 50.0,
            jitter_ms: 20.0,
            jitter_model: m,
            ..DirectionConfig::default()
        };
        let (_, u) = run(cfg(JitterModel::Uniform), vec![], gap, 100, 20_000);
        let (_, c) = run(cfg(JitterModel::Correlated), vec![], gap, 100, 20_000);
        let ru = reorder_fraction(&u, gap);
        let rc = reorder_fraction(&c, gap);
        assert!(ru > 0.2, "uniform reorders a lot at 5 ms gaps: {ru}");
        assert!(rc < ru / 10.0, "correlated {rc} vs uniform {ru}");
        // Denser than the walk's step (1 ms gaps, 5 ms steps): only the FIFO rule keeps the
        // correlated model in order.
        let dense = Duration::from_millis(1);
        let (_, c) = run(cfg(JitterModel::Correlated), vec![], dense, 100, 20_000);
        assert_eq!(reorder_fraction(&c, dense), 0.0);
    }

    #[test]
    fn bottleneck_throughput_queue_bound_and_tail_drops() {
        // 1 Mbit/s, 12 500-byte queue (100 ms), offered 2 Mbit/s of 1 250-byte packets.
        let cfg = DirectionConfig {
            rate_bps: Some(1_000_000),
            queue_bytes: 12_500,
            ..DirectionConfig::default()
        };
        let gap = Duration::from_millis(5);
        let n = 4_000; // 20 s
        let (m, v) = run(cfg, vec![], gap, 1_250, n);
        let delivered = deliveries(&v, gap);
        let dropped = fraction(&v, DropReason::Queue);
        assert!((dropped - 0.5).abs() < 0.02, "tail drops {dropped}");
        assert!(m.max_queue_bytes <= 12_500, "{}", m.max_queue_bytes);
        let last = delivered.iter().map(|d| d.0).max().expect("some delivered");
        let bits = delivered.len() as f64 * 1_250.0 * 8.0;
        let rate = bits / last.as_secs_f64();
        assert!((rate - 1e6).abs() < 0.02e6, "throughput {rate}");
        // The queue delay never exceeds what the queue bound allows.
        for x in &v {
            if let Verdict::Deliver { queued, .. } = x {
                assert!(*queued <= Duration::from_millis(100), "{queued:?}");
            }
        }
        // Under the rate nothing is dropped and nothing waits.
        let under = DirectionConfig {
            rate_bps: Some(1_000_000),
            queue_bytes: 12_500,
            ..DirectionConfig::default()
        };
        let (_, v) = run(under, vec![], Duration::from_millis(20), 1_250, 1_000);
        assert_eq!(fraction(&v, DropReason::Queue), 0.0);
        assert!(
            v.iter()
                .all(|x| matches!(x, Verdict::Deliver { queued, .. } if queued.is_zero()))
        );
    }

    #[test]
    fn a_blackout_drops_exactly_the_packets_inside_its_window() {
        let b = Blackout {
            start_ms: 1_000,
            duration_ms: 500,
        };
        let cfg = DirectionConfig::default();
        let gap = Duration::from_millis(10);
        let (_, v) = run(cfg, vec![b], gap, 100, 300);
        for (i, x) in v.iter().enumerate() {
            let at = gap * i as u32;
            let inside = at >= Duration::from_millis(1_000) && at < Duration::from_millis(1_500);
            assert_eq!(
                *x == Verdict::Dropped(DropReason::Blackout),
                inside,
                "packet {i}"
            );
        }
        assert_eq!(fraction(&v, DropReason::Blackout), 50.0 / 300.0);
    }

    #[test]
    fn duplication_matches_the_configured_fraction() {
        let cfg = DirectionConfig {
            duplicate: 0.05,
            delay_ms: 10.0,
            jitter_ms: 2.0,
            ..DirectionConfig::default()
        };
        let (_, v) = run(cfg, vec![], Duration::from_millis(1), 100, N);
        let dups = v
            .iter()
            .filter(|x| {
                matches!(
                    x,
                    Verdict::Deliver {
                        duplicate: Some(_),
                        ..
                    }
                )
            })
            .count() as f64
            / N as f64;
        assert!((dups - 0.05).abs() < 0.005, "{dups}");
    }

    #[test]
    fn the_same_seed_gives_the_same_decisions_and_another_seed_does_not() {
        let cfg = DirectionConfig {
            delay_ms: 50.0,
            jitter_ms: 20.0,
            loss: 0.05,
            duplicate: 0.02,
            gilbert_elliott: Some(GilbertElliott::with_mean(0.03, 4.0)),
            ..DirectionConfig::default()
        };
        let decide = |seed| {
            let mut m = DirectionModel::new(cfg.clone(), vec![], seed);
            (0..5_000)
                .map(|i| m.decide(Duration::from_millis(i), 200))
                .collect::<Vec<_>>()
        };
        assert_eq!(decide(7), decide(7));
        assert_ne!(decide(7), decide(8));
    }
}
