//! The weather the client has heard, as a timeline of 10-tick windows. Each `MsgWeatherState`
//! carries a `WeatherEpoch` TLV: the first server tick its wind, altitude profile and turbulence
//! amplitude apply to. Prediction integrates tick `T` with the newest window whose epoch is
//! `≤ T` — exactly what the server does — so wind and turbulence are reproduced to the bit.
//!
//! Owns the windows and their `WindField`s (built once per message with fl-server's own
//! conversion). Must not: guess ticks from the wall clock. A message from an older server without
//! the epoch TLV is applied from the tick the caller names (the newest snapshot tick + 1).

use fl_flight::env::WindField;
use fl_protocol::msg::world::WeatherState;
use fl_protocol::tlv::{Ext, Extensions, WindKnot, tag};
use std::collections::BTreeMap;

/// Windows kept behind the oldest tick prediction may still need (about 20 s at 10 ticks each).
const KEEP_WINDOWS: usize = 120;

/// One announced weather window.
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherWindow {
    /// First tick it applies to.
    pub epoch: u64,
    /// Whether the epoch came from the server (`WeatherEpoch`) or was assumed.
    pub epoch_known: bool,
    pub message: WeatherState,
    pub profile: Vec<WindKnot>,
    /// The wind field prediction integrates with.
    pub wind: WindField,
}

/// Every window heard, by epoch.
#[derive(Debug, Clone, Default)]
pub struct WeatherTimeline {
    windows: BTreeMap<u64, WeatherWindow>,
    newest_received: Option<u64>,
    /// Messages without an epoch (an older server).
    pub legacy_messages: u64,
}

impl WeatherTimeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one `MsgWeatherState`; `fallback_epoch` is used when it carries no epoch.
    pub fn on_message(&mut self, msg: &WeatherState, ext: &Extensions, fallback_epoch: u64) {
        let (epoch, known) = match ext.get(tag::WEATHER_EPOCH) {
            Some(Ext::WeatherEpoch(e)) => (e, true),
            _ => {
                self.legacy_messages += 1;
                (fallback_epoch, false)
            }
        };
        let profile = match ext.get(tag::WEATHER_WIND_PROFILE) {
            Some(Ext::WeatherWindProfile(k)) => k,
            _ => Vec::new(),
        };
        let wind = fl_server::weather::wind_field_from_message(msg, ext);
        self.windows.insert(
            epoch,
            WeatherWindow {
                epoch,
                epoch_known: known,
                message: msg.clone(),
                profile,
                wind,
            },
        );
        self.newest_received = Some(epoch);
        while self.windows.len() > KEEP_WINDOWS * 2 {
            self.windows.pop_first();
        }
    }

    /// The window that applies on `tick`: the newest one whose epoch is `≤ tick`.
    pub fn window_at(&self, tick: u64) -> Option<&WeatherWindow> {
        self.windows.range(..=tick).next_back().map(|(_, w)| w)
    }

    /// The wind prediction uses on `tick` (`None` before any window applies).
    pub fn wind_at(&self, tick: u64) -> Option<&WindField> {
        self.window_at(tick).map(|w| &w.wind)
    }

    /// Whether `tick`'s wind is the server's for certain: the window the server used for it (the
    /// 10-tick window containing it, announced with its epoch) was received.
    pub fn is_exact_at(&self, tick: u64) -> bool {
        self.window_at(tick)
            .is_some_and(|w| w.epoch_known && tick - w.epoch < fl_server::weather::WINDOW_TICKS)
    }

    /// The newest window heard (for display: fog, time of day, preset).
    pub fn latest(&self) -> Option<&WeatherWindow> {
        self.newest_received.and_then(|e| self.windows.get(&e))
    }

    /// Forgets windows that no tick at or after `tick` can use (keeps the one covering `tick`).
    pub fn prune_before(&mut self, tick: u64) {
        let Some(&keep) = self.windows.range(..=tick).next_back().map(|(e, _)| e) else {
            return;
        };
        self.windows.retain(|&e, _| e >= keep);
    }

    pub fn len(&self) -> usize {
        self.windows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::enums::WeatherPreset;
    use fl_server::weather::{Weather, WeatherConfig};

    fn msg(wind_x: f32) -> WeatherState {
        WeatherState {
            preset: WeatherPreset::Clear,
            time_of_day_tenths: 100,
            fog_density: 0.0,
            fog_start_dist: 0.0,
            wind_x,
            wind_z: 0.0,
            turbulence_amp: 0.5,
            utc_julian_day: 2_461_000.0,
        }
    }

    #[test]
    fn every_tick_gets_the_servers_wind() {
        let server = Weather::new(WeatherConfig::default());
        let mut tl = WeatherTimeline::new();
        for b in (0..600).step_by(10) {
            let (m, ext) = server.broadcast(b).expect("broadcast tick");
            tl.on_message(&m, &ext, 0);
        }
        for t in 60..600 {
            assert_eq!(tl.wind_at(t), Some(&server.wind_field(t)), "tick {t}");
            assert!(tl.is_exact_at(t), "tick {t}");
        }
        assert!(
            tl.wind_at(59).is_none(),
            "nothing was announced for tick 59"
        );
        tl.prune_before(300);
        assert_eq!(tl.wind_at(305), Some(&server.wind_field(305)));
        assert!(tl.wind_at(299).is_none());
    }

    #[test]
    fn an_epochless_message_applies_from_the_fallback_tick() {
        let mut tl = WeatherTimeline::new();
        tl.on_message(&msg(3.0), &Extensions::new(), 500);
        assert_eq!(tl.legacy_messages, 1);
        assert!(tl.wind_at(499).is_none());
        let w = tl.wind_at(500).expect("window");
        assert_eq!(w.steady.x, 3.0);
        assert!(!tl.is_exact_at(500));
        assert_eq!(tl.latest().map(|w| w.epoch), Some(500));
    }

    #[test]
    fn a_gap_in_the_windows_is_not_exact() {
        let mut tl = WeatherTimeline::new();
        let mut ext = Extensions::new();
        ext.push(&Ext::WeatherEpoch(100)).expect("fits");
        tl.on_message(&msg(1.0), &ext, 0);
        assert!(tl.is_exact_at(109));
        assert!(!tl.is_exact_at(110), "the window for 110 never arrived");
    }
}
