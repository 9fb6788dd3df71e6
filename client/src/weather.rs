//! The weather the client has heard, as a timeline of 10-tick windows. Each `MsgWeatherState`
//! carries a `WeatherEpoch` TLV: the first server tick its wind, altitude profile and turbulence
//! amplitude apply to. Prediction integrates tick `T` with the newest window whose epoch is
//! `≤ T` — exactly what the server does — so wind and turbulence are reproduced to the bit.
//!
//! The broadcast is unreliable; each message also carries copies of the windows announced
//! just before it (`WeatherWindowCopies`), and a window whose own message was lost is taken
//! from the first copy that arrives. That is in time: prediction replays its unacknowledged
//! inputs at every snapshot, so a window is needed exactly only from the snapshots of the ticks
//! just before it, and its last copy leaves the server 40 ticks before those. A copy only
//! fills a window the timeline does not have; it never replaces one heard from its own
//! message.
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
    /// Taken from a `WeatherWindowCopies` copy (its own message was lost): the wind, profile
    /// and turbulence are the window's own; the display fields of `message` (preset, time of
    /// day, fog, Julian day) are those of the message that carried the copy, at most 20 ticks
    /// newer.
    pub from_copy: bool,
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
    /// Windows first learned from a copy: their own message was lost (or is still on its way).
    pub windows_from_copies: u64,
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
                from_copy: false,
                message: msg.clone(),
                profile,
                wind,
            },
        );
        self.newest_received = Some(epoch);
        if let (true, Some(Ext::WeatherWindowCopies(copies))) =
            (known, ext.get(tag::WEATHER_WINDOW_COPIES))
        {
            // At most MAX_WEATHER_COPIES entries (the decoder refuses more).
            for copy in &copies {
                let Some(e) = epoch.checked_sub(u64::from(copy.back_ticks)) else {
                    continue;
                };
                if self.windows.get(&e).is_some_and(|w| w.epoch_known) {
                    continue;
                }
                self.windows.insert(
                    e,
                    WeatherWindow {
                        epoch: e,
                        epoch_known: true,
                        from_copy: true,
                        message: WeatherState {
                            wind_x: copy.wind_x,
                            wind_z: copy.wind_z,
                            turbulence_amp: copy.turbulence_amp,
                            ..msg.clone()
                        },
                        profile: copy.profile.clone(),
                        wind: fl_server::weather::wind_field_from_copy(copy),
                    },
                );
                self.windows_from_copies += 1;
            }
        }
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
    use fl_server::weather::{LEAD_TICKS, Weather, WeatherConfig};

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
        // The first broadcast (tick 0, window 60) also copies windows 40 and 50.
        for t in 40..600 {
            assert_eq!(tl.wind_at(t), Some(&server.wind_field(t)), "tick {t}");
            assert!(tl.is_exact_at(t), "tick {t}");
        }
        assert!(
            tl.wind_at(39).is_none(),
            "nothing was announced for tick 39"
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

    /// Any one broadcast lost, or any two in a row: every tick still gets the server's wind,
    /// from copies that arrived before the tick's window is due (checked as if the broadcast of
    /// tick `b` were heard only just before prediction needs tick `b + 20`: stricter than any
    /// link, where prediction for a tick is replayed until about the snapshot of that tick).
    #[test]
    fn lost_broadcasts_are_filled_from_the_copies_in_time() {
        let server = Weather::new(WeatherConfig {
            preset_ticks: 200,
            ..WeatherConfig::default()
        });
        let broadcasts: Vec<u64> = (0..800).step_by(10).collect();
        for first_lost in (100..600).step_by(10) {
            for burst in [1u64, 2] {
                let lost = first_lost..first_lost + burst * 10;
                let mut tl = WeatherTimeline::new();
                for (m, ext) in server.catch_up(0) {
                    tl.on_message(&m, &ext, 0);
                }
                for &b in &broadcasts {
                    // Prediction for tick b + 20 needs its window once this broadcast is in.
                    if !lost.contains(&b) {
                        let (m, ext) = server.broadcast(b).expect("broadcast tick");
                        tl.on_message(&m, &ext, 0);
                    }
                    let t = b + 20;
                    if b > 0 {
                        for t in t..t + 10 {
                            assert!(tl.is_exact_at(t), "lost {lost:?}, tick {t}");
                            assert_eq!(tl.wind_at(t), Some(&server.wind_field(t)), "tick {t}");
                        }
                    }
                }
                assert_eq!(tl.windows_from_copies, burst, "lost {lost:?}");
                assert_eq!(
                    tl.latest().map(|w| w.epoch),
                    Some(790 + LEAD_TICKS),
                    "copies never become the newest window"
                );
            }
        }
    }

    #[test]
    fn a_copy_never_replaces_a_window_heard_from_its_own_message() {
        let mut tl = WeatherTimeline::new();
        let mut ext = Extensions::new();
        ext.push(&Ext::WeatherEpoch(100)).expect("fits");
        tl.on_message(&msg(1.0), &ext, 0);
        let mut ext = Extensions::new();
        ext.push(&Ext::WeatherEpoch(120)).expect("fits");
        let copy = |back_ticks, wind_x| fl_protocol::tlv::WeatherWindowCopy {
            back_ticks,
            wind_x,
            ..Default::default()
        };
        // A hostile back (past tick 0) is skipped; the copy of 100 does not replace it.
        ext.push(&Ext::WeatherWindowCopies(vec![
            copy(10, 7.0),
            copy(20, 9.0),
            copy(500, 9.0),
        ]))
        .expect("fits");
        tl.on_message(&msg(2.0), &ext, 0);
        assert_eq!(tl.windows_from_copies, 1);
        assert_eq!(tl.wind_at(105).map(|w| w.steady.x), Some(1.0));
        let w110 = tl.window_at(110).expect("from the copy");
        assert!(w110.from_copy && w110.epoch_known && tl.is_exact_at(119));
        assert_eq!(w110.wind.steady.x, 7.0);
        assert_eq!(tl.latest().map(|w| w.epoch), Some(120));
        // An epochless message's copies cannot be placed: ignored.
        let mut legacy = Extensions::new();
        legacy
            .push(&Ext::WeatherWindowCopies(vec![copy(10, 3.0)]))
            .expect("fits");
        let mut fresh = WeatherTimeline::new();
        fresh.on_message(&msg(2.0), &legacy, 300);
        assert_eq!((fresh.len(), fresh.windows_from_copies), (1, 0));
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
