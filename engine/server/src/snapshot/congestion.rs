//! Per-peer congestion response (AIMD) and the server-wide tick-overrun governor.
//!
//! The congestion controller reads the transport's RTT and loss — never the snapshot delay,
//! which inflates when we decimate and would feed back into more decimation — and holds a
//! throttle in `[floor, 1]`: multiplicative decrease on congestion, additive increase when
//! healthy. The throttle stretches the snapshot interval (60 Hz down to `min_send_hz`) and
//! scales the byte budget. The governor does the same server-wide from the measured tick time,
//! shedding snapshot work (never simulation work: the sim stays deterministic) when a tick
//! overruns its budget.

use std::time::Duration;

/// `[world] congestion_*` settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CongestionConfig {
    pub enabled: bool,
    /// Loss fraction above which the link counts as congested.
    pub loss_threshold: f64,
    /// RTT rise above the running baseline that counts as congestion.
    pub rtt_margin: Duration,
    /// Reliable backlog that counts as congestion.
    pub backlog_bytes: usize,
    /// Lowest snapshot rate.
    pub min_send_hz: f64,
    /// Smallest byte budget the throttle may scale down to.
    pub budget_floor_bytes: usize,
}

impl Default for CongestionConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            loss_threshold: 0.02,
            rtt_margin: Duration::from_millis(40),
            backlog_bytes: 64 * 1024,
            min_send_hz: 10.0,
            budget_floor_bytes: 400,
        }
    }
}

const DECREASE: f64 = 0.7;
const INCREASE_PER_TICK: f64 = 0.01;
/// Ticks between two decreases (about one RTT at the worst links we expect).
const DECREASE_COOLDOWN_TICKS: u64 = 30;

/// The per-peer controller.
#[derive(Debug, Clone)]
pub struct CongestionController {
    cfg: CongestionConfig,
    throttle: f64,
    baseline_rtt: Option<Duration>,
    last_decrease: Option<u64>,
    /// Decreases so far (diagnostics).
    pub decreases: u64,
}

impl CongestionController {
    pub fn new(cfg: CongestionConfig) -> Self {
        Self {
            cfg,
            throttle: 1.0,
            baseline_rtt: None,
            last_decrease: None,
            decreases: 0,
        }
    }

    fn floor(&self) -> f64 {
        (self.cfg.min_send_hz / 60.0).clamp(1.0 / 60.0, 1.0)
    }

    /// The current throttle in `[floor, 1]`.
    pub fn throttle(&self) -> f64 {
        self.throttle
    }

    /// Steps the controller once per tick with the link's current statistics.
    pub fn step(&mut self, tick: u64, rtt: Duration, loss: f64, backlog_bytes: usize) {
        if !self.cfg.enabled {
            self.throttle = 1.0;
            return;
        }
        // The baseline follows the minimum RTT, creeping up slowly so a route change is learnt.
        let base = match self.baseline_rtt {
            Some(b) if rtt >= b => b + (rtt - b) / 512,
            _ => rtt,
        };
        self.baseline_rtt = Some(base);
        let congested = loss > self.cfg.loss_threshold
            || rtt > base + self.cfg.rtt_margin
            || backlog_bytes > self.cfg.backlog_bytes;
        if congested {
            let cooled = self
                .last_decrease
                .is_none_or(|t| tick.saturating_sub(t) >= DECREASE_COOLDOWN_TICKS);
            if cooled {
                self.throttle = (self.throttle * DECREASE).max(self.floor());
                self.last_decrease = Some(tick);
                self.decreases += 1;
            }
        } else {
            self.throttle = (self.throttle + INCREASE_PER_TICK).min(1.0);
        }
    }

    /// Ticks between snapshots at the current throttle.
    pub fn interval_ticks(&self) -> u64 {
        interval_for(self.throttle)
    }

    /// The byte budget at the current throttle.
    pub fn scale_budget(&self, budget: usize) -> usize {
        ((budget as f64 * self.throttle) as usize).max(self.cfg.budget_floor_bytes.min(budget))
    }
}

fn interval_for(factor: f64) -> u64 {
    (1.0 / factor.clamp(1.0 / 60.0, 1.0)).round().max(1.0) as u64
}

/// `[world]` governor settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GovernorConfig {
    pub enabled: bool,
    /// The tick budget (1/60 s).
    pub tick_budget: Duration,
    /// Start shedding when the smoothed tick time exceeds this fraction of the budget.
    pub high_water: f64,
    /// Lowest load factor.
    pub floor: f64,
}

impl Default for GovernorConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            tick_budget: Duration::from_micros(16_667),
            high_water: 0.9,
            floor: 0.25,
        }
    }
}

/// The server-wide tick-overrun governor.
#[derive(Debug, Clone)]
pub struct TickGovernor {
    cfg: GovernorConfig,
    ewma_ms: f64,
    load_factor: f64,
}

impl TickGovernor {
    pub fn new(cfg: GovernorConfig) -> Self {
        Self {
            cfg,
            ewma_ms: 0.0,
            load_factor: 1.0,
        }
    }

    /// Feeds the last tick's measured duration.
    pub fn observe(&mut self, tick_time: Duration) {
        if !self.cfg.enabled {
            self.load_factor = 1.0;
            return;
        }
        let ms = tick_time.as_secs_f64() * 1000.0;
        self.ewma_ms += (ms - self.ewma_ms) * 0.1;
        let budget_ms = self.cfg.tick_budget.as_secs_f64() * 1000.0;
        if self.ewma_ms > budget_ms * self.cfg.high_water {
            self.load_factor = (self.load_factor * 0.95).max(self.cfg.floor);
        } else {
            self.load_factor = (self.load_factor + 0.005).min(1.0);
        }
    }

    /// The load factor in `[floor, 1]` (1 = healthy).
    pub fn load_factor(&self) -> f64 {
        self.load_factor
    }

    /// Server-wide snapshot spacing in ticks.
    pub fn interval_ticks(&self) -> u64 {
        interval_for(self.load_factor)
    }

    /// Smoothed tick time in ms.
    pub fn smoothed_ms(&self) -> f64 {
        self.ewma_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_backs_off_multiplicatively_and_recovers_additively() {
        let mut c = CongestionController::new(CongestionConfig::default());
        let rtt = Duration::from_millis(50);
        for t in 0..10 {
            c.step(t, rtt, 0.0, 0);
        }
        assert_eq!(c.throttle(), 1.0);
        c.step(10, rtt, 0.1, 0);
        assert!((c.throttle() - 0.7).abs() < 1e-12);
        c.step(11, rtt, 0.1, 0);
        assert!(
            (c.throttle() - 0.7).abs() < 1e-12,
            "cooldown between decreases"
        );
        for t in 0..200 {
            c.step(100 + t, rtt, 0.1, 0);
        }
        assert!(
            (c.throttle() - 10.0 / 60.0).abs() < 1e-9,
            "floored at min_send_hz"
        );
        assert_eq!(c.interval_ticks(), 6);
        for t in 0..200 {
            c.step(400 + t, rtt, 0.0, 0);
        }
        assert_eq!(c.throttle(), 1.0);
        assert_eq!(c.interval_ticks(), 1);
    }

    #[test]
    fn rtt_rise_above_baseline_is_congestion_but_a_steady_high_rtt_is_not() {
        let mut c = CongestionController::new(CongestionConfig::default());
        for t in 0..100 {
            c.step(t, Duration::from_millis(300), 0.0, 0);
        }
        assert_eq!(c.throttle(), 1.0, "a long link is not a congested link");
        c.step(100, Duration::from_millis(400), 0.0, 0);
        assert!(c.throttle() < 1.0);
    }

    #[test]
    fn budget_scales_with_a_floor() {
        let mut c = CongestionController::new(CongestionConfig::default());
        for t in 0..300 {
            c.step(t * 40, Duration::ZERO, 1.0, 0);
        }
        assert_eq!(c.scale_budget(1200), 400);
    }

    #[test]
    fn governor_sheds_on_overrun_and_recovers() {
        let mut g = TickGovernor::new(GovernorConfig::default());
        for _ in 0..100 {
            g.observe(Duration::from_millis(30));
        }
        assert!(g.load_factor() < 0.5);
        assert!(g.interval_ticks() >= 2);
        for _ in 0..1000 {
            g.observe(Duration::from_millis(2));
        }
        assert_eq!(g.load_factor(), 1.0);
        assert_eq!(g.interval_ticks(), 1);
    }
}
