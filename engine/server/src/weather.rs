//! Weather and time of day as a pure function of the tick: an autonomous cycle of presets, each
//! with its wind, gusts, turbulence amplitude, fog and altitude wind profile, quantized into
//! 10-tick windows. Each window's values are what the wire carries (f32), and they are exactly
//! what the world integrates with — so the `MsgWeatherState` the server announces one second
//! ahead (with a `WeatherEpoch` TLV) lets client prediction reproduce every tick's wind. The
//! broadcast is unreliable, so each message also carries compact copies of the
//! [`COPY_WINDOWS`] windows announced before it (`WeatherWindowCopies`): every window travels in
//! three datagrams, the last still [`LEAD_TICKS`]` − 20` ticks ahead of its first tick, and a lost
//! message (or two in a row) costs the client no window.
//!
//! Also the one conversion from a weather message to an `fl_flight::env::WindField`, shared by
//! the server and client prediction.

use fl_flight::env::WindField;
use fl_flight::math::Vec3;
use fl_protocol::enums::WeatherPreset;
use fl_protocol::msg::world::WeatherState;
use fl_protocol::tlv::{Ext, Extensions, WeatherWindowCopy, WindKnot};

/// Ticks per weather window (the spec's broadcast cadence).
pub const WINDOW_TICKS: u64 = 10;
/// How far ahead of its first tick a window is announced.
pub const LEAD_TICKS: u64 = 60;
/// Earlier windows each announcement repeats as compact copies. Window `W` is announced on
/// tick `W − 60` and copied on `W − 50` and `W − 40`. Client prediction replays unacknowledged
/// inputs at every snapshot, so a window is in time when it arrives before the snapshots of
/// the ticks just before `W` — whatever the round trip — and the last copy leaves 40 ticks
/// before those. All three are lost together at 3 % random loss once in ~37,000 windows.
pub const COPY_WINDOWS: u64 = 2;
/// How far back a catch-up after a silence reaches: a peer's first snapshots after an outage
/// are of ticks up to about one one-way delay before the server hears it again, and their
/// replays need those ticks' windows too (a second covers any round trip the game plays at).
pub const MAX_CATCH_UP_BACK_TICKS: u64 = 60;
const TICKS_PER_HOUR: f64 = 60.0 * 3600.0;

/// One preset's weather.
#[derive(Debug, Clone, PartialEq)]
pub struct PresetWeather {
    pub preset: WeatherPreset,
    /// Direction the wind blows FROM, degrees clockwise from north.
    pub wind_from_deg: f64,
    pub wind_mps: f64,
    /// Gust amplitude (m/s) around the mean.
    pub gust_mps: f64,
    pub turbulence_mps: f64,
    pub fog_density: f32,
    pub fog_start_m: f32,
    /// (altitude m, speed factor, veer deg): the wind aloft as a multiple of the surface wind,
    /// turned clockwise by `veer`. Empty = the same wind at every altitude.
    pub profile: Vec<(f64, f64, f64)>,
}

impl PresetWeather {
    /// Sensible defaults for a preset.
    pub fn typical(preset: WeatherPreset) -> Self {
        let (wind, gust, turb, fog, fog_start) = match preset {
            WeatherPreset::Clear => (3.0, 1.0, 0.2, 0.0, 0.0),
            WeatherPreset::PartlyCloudy => (6.0, 2.0, 0.6, 0.00002, 20_000.0),
            WeatherPreset::Overcast => (8.0, 3.0, 1.0, 0.00005, 10_000.0),
            WeatherPreset::Rain => (10.0, 4.0, 1.5, 0.0001, 5_000.0),
            WeatherPreset::Storm => (18.0, 8.0, 3.0, 0.0002, 2_000.0),
            WeatherPreset::Snow => (7.0, 3.0, 1.2, 0.00015, 3_000.0),
            WeatherPreset::Blizzard => (16.0, 7.0, 2.5, 0.0004, 800.0),
        };
        Self {
            preset,
            wind_from_deg: 270.0,
            wind_mps: wind,
            gust_mps: gust,
            turbulence_mps: turb,
            fog_density: fog,
            fog_start_m: fog_start,
            profile: vec![(0.0, 1.0, 0.0), (3_000.0, 1.8, 20.0), (10_000.0, 3.0, 35.0)],
        }
    }
}

/// `[weather]` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherConfig {
    /// The presets cycled through, in order.
    pub cycle: Vec<PresetWeather>,
    /// Ticks each preset lasts (the last tick of the cycle wraps to the first).
    pub preset_ticks: u64,
    /// Time of day at tick 0, hours.
    pub start_hour: f64,
    /// Game hours per real hour.
    pub time_scale: f64,
    /// UTC Julian Day at tick 0.
    pub start_julian_day: f64,
}

impl Default for WeatherConfig {
    fn default() -> Self {
        Self {
            cycle: [
                WeatherPreset::Clear,
                WeatherPreset::PartlyCloudy,
                WeatherPreset::Overcast,
                WeatherPreset::PartlyCloudy,
            ]
            .into_iter()
            .map(PresetWeather::typical)
            .collect(),
            preset_ticks: 20 * 60 * 60,
            start_hour: 10.0,
            time_scale: 1.0,
            // 2026-06-21 12:00 UTC.
            start_julian_day: 2_461_213.0,
        }
    }
}

/// The values of one window, as carried on the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Conditions {
    /// First tick of the window.
    pub epoch: u64,
    pub preset: WeatherPreset,
    pub time_of_day_tenths: u16,
    pub fog_density: f32,
    pub fog_start_m: f32,
    pub wind_x: f32,
    pub wind_z: f32,
    pub turbulence: f32,
    pub julian_day: f64,
    pub profile: Vec<WindKnot>,
}

/// A fixed preset and clock from `from_epoch` on (a mission's weather and time of day, and its
/// `set_weather` / `set_time` actions), replacing the autonomous cycle. Set only for windows not
/// announced yet ([`Weather::first_unannounced_epoch`]), so a client's prediction never sees an
/// announced window change.
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherOverride {
    /// First window it applies to (a multiple of [`WINDOW_TICKS`]).
    pub from_epoch: u64,
    pub preset: PresetWeather,
    /// Time of day at `from_epoch`, hours.
    pub start_hour: f64,
    /// UTC Julian Day at `from_epoch`.
    pub start_julian_day: f64,
    /// Game hours per real hour.
    pub time_scale: f64,
}

/// The weather model.
#[derive(Debug, Clone)]
pub struct Weather {
    cfg: WeatherConfig,
    /// Sorted by `from_epoch`; the last one at or before a window governs it.
    overrides: Vec<WeatherOverride>,
}

/// Smooth deterministic noise in about [-1, 1] (sum of incommensurate sines, libm for the same
/// bits everywhere).
fn gust_noise(t_s: f64) -> f64 {
    0.5 * libm::sin(t_s * 0.37)
        + 0.3 * libm::sin(t_s * 1.13 + 1.7)
        + 0.2 * libm::sin(t_s * 2.71 + 4.2)
}

/// World wind vector (blowing toward) for a wind blowing FROM `from_deg` at `speed`. The world
/// frame is X east, Y up, Z south (right-handed), so north is −Z.
pub fn wind_vector(from_deg: f64, speed: f64) -> (f64, f64) {
    let toward = (from_deg + 180.0).to_radians();
    (speed * libm::sin(toward), -speed * libm::cos(toward))
}

impl Weather {
    pub fn new(cfg: WeatherConfig) -> Self {
        let mut cfg = cfg;
        if cfg.cycle.is_empty() {
            cfg.cycle.push(PresetWeather::typical(WeatherPreset::Clear));
        }
        cfg.preset_ticks = cfg.preset_ticks.max(WINDOW_TICKS);
        Self {
            cfg,
            overrides: Vec::new(),
        }
    }

    /// The first window no broadcast or catch-up has announced by world tick `tick`: the
    /// earliest a change may take effect without contradicting a client's prediction.
    pub fn first_unannounced_epoch(tick: u64) -> u64 {
        Self::window_start(tick) + LEAD_TICKS + WINDOW_TICKS
    }

    /// Fixes the weather and clock from `o.from_epoch` on (rounded down to a window start);
    /// later overrides already set are dropped.
    pub fn set_override(&mut self, mut o: WeatherOverride) {
        o.from_epoch = Self::window_start(o.from_epoch);
        self.overrides.retain(|x| x.from_epoch < o.from_epoch);
        self.overrides.push(o);
    }

    fn active_override(&self, epoch: u64) -> Option<&WeatherOverride> {
        self.overrides.iter().rev().find(|o| o.from_epoch <= epoch)
    }

    /// The preset governing the window starting at `epoch`.
    pub fn preset_at(&self, epoch: u64) -> PresetWeather {
        match self.active_override(epoch) {
            Some(o) => o.preset.clone(),
            None => {
                let n = self.cfg.cycle.len() as u64;
                self.cfg.cycle[((epoch / self.cfg.preset_ticks) % n) as usize].clone()
            }
        }
    }

    /// (time of day in hours, not wrapped; UTC Julian Day) at the start of window `epoch`.
    pub fn clock_at(&self, epoch: u64) -> (f64, f64) {
        let (hour, jd, scale, since) = match self.active_override(epoch) {
            Some(o) => (
                o.start_hour,
                o.start_julian_day,
                o.time_scale,
                epoch - o.from_epoch,
            ),
            None => (
                self.cfg.start_hour,
                self.cfg.start_julian_day,
                self.cfg.time_scale,
                epoch,
            ),
        };
        (
            hour + since as f64 / TICKS_PER_HOUR * scale,
            jd + since as f64 / (TICKS_PER_HOUR * 24.0) * scale,
        )
    }

    /// The first tick of the window holding `tick`.
    pub fn window_start(tick: u64) -> u64 {
        tick / WINDOW_TICKS * WINDOW_TICKS
    }

    /// The values of the window starting at `epoch` (a multiple of [`WINDOW_TICKS`]).
    pub fn conditions(&self, epoch: u64) -> Conditions {
        let n = self.cfg.cycle.len() as u64;
        let p = match self.active_override(epoch) {
            Some(o) => &o.preset,
            None => &self.cfg.cycle[((epoch / self.cfg.preset_ticks) % n) as usize],
        };
        let (hours, julian_day) = self.clock_at(epoch);
        let tod = hours.rem_euclid(24.0);
        let gust = p.gust_mps * gust_noise(epoch as f64 / 60.0);
        let speed = (p.wind_mps + gust).max(0.0);
        let (wx, wz) = wind_vector(p.wind_from_deg, speed);
        let profile = p
            .profile
            .iter()
            .map(|&(alt, factor, veer)| {
                let (x, z) = wind_vector(p.wind_from_deg + veer, speed * factor);
                WindKnot {
                    alt_m: alt as f32,
                    wind_x: x as f32,
                    wind_z: z as f32,
                }
            })
            .collect();
        Conditions {
            epoch,
            preset: p.preset,
            time_of_day_tenths: ((tod * 10.0).floor() as u16).min(239),
            fog_density: p.fog_density,
            fog_start_m: p.fog_start_m,
            wind_x: wx as f32,
            wind_z: wz as f32,
            turbulence: p.turbulence_mps as f32,
            julian_day,
            profile,
        }
    }

    /// The wind the world integrates with on `tick`.
    pub fn wind_field(&self, tick: u64) -> WindField {
        let c = self.conditions(Self::window_start(tick));
        wind_field(c.wind_x, c.wind_z, c.turbulence, &c.profile)
    }

    /// The message (and its TLVs) to broadcast on `tick` when it is a broadcast tick: the window
    /// starting [`LEAD_TICKS`] later.
    pub fn broadcast(&self, tick: u64) -> Option<(WeatherState, Extensions)> {
        if !tick.is_multiple_of(WINDOW_TICKS) {
            return None;
        }
        Some(self.announcement(tick + LEAD_TICKS))
    }

    /// The message (and its TLVs, `WeatherEpoch` included) describing the window that starts at
    /// `epoch`, with copies of the [`COPY_WINDOWS`] windows before it (those that exist).
    pub fn announcement(&self, epoch: u64) -> (WeatherState, Extensions) {
        let epoch = Self::window_start(epoch);
        let c = self.conditions(epoch);
        let msg = WeatherState {
            preset: c.preset,
            time_of_day_tenths: c.time_of_day_tenths,
            fog_density: c.fog_density,
            fog_start_dist: c.fog_start_m,
            wind_x: c.wind_x,
            wind_z: c.wind_z,
            turbulence_amp: c.turbulence,
            utc_julian_day: c.julian_day,
        };
        let mut ext = Extensions::new();
        if !c.profile.is_empty() {
            let _ = ext.push(&Ext::WeatherWindProfile(c.profile));
        }
        let _ = ext.push(&Ext::WeatherEpoch(c.epoch));
        let copies: Vec<WeatherWindowCopy> = (1..=COPY_WINDOWS)
            .filter_map(|k| epoch.checked_sub(k * WINDOW_TICKS))
            .map(|e| {
                let w = self.conditions(e);
                WeatherWindowCopy {
                    // At most COPY_WINDOWS × WINDOW_TICKS = 20: always fits.
                    back_ticks: u16::try_from(epoch - e).unwrap_or(u16::MAX),
                    wind_x: w.wind_x,
                    wind_z: w.wind_z,
                    turbulence_amp: w.turbulence,
                    profile: w.profile,
                }
            })
            .collect();
        if !copies.is_empty() {
            let _ = ext.push(&Ext::WeatherWindowCopies(copies));
        }
        (msg, ext)
    }

    /// What a peer joining on `tick` missed: the windows from the one holding `tick` up to the
    /// first one the regular broadcasts will announce (they run [`LEAD_TICKS`] ahead), so its
    /// prediction has the server's wind from its first tick.
    pub fn catch_up(&self, tick: u64) -> Vec<(WeatherState, Extensions)> {
        self.catch_up_since(tick, tick)
    }

    /// The windows from the one holding `since` up to the broadcasts' lead ahead of `tick`
    /// (`since` is clamped to at most [`MAX_CATCH_UP_BACK_TICKS`] before `tick`): what a peer
    /// cut off since `since` lost.
    pub fn catch_up_since(&self, since: u64, tick: u64) -> Vec<(WeatherState, Extensions)> {
        let first =
            Self::window_start(since.clamp(tick.saturating_sub(MAX_CATCH_UP_BACK_TICKS), tick));
        let last = Self::window_start(tick) + LEAD_TICKS;
        (first..=last)
            .step_by(WINDOW_TICKS as usize)
            .map(|start| self.announcement(start))
            .collect()
    }
}

/// The wind field a weather message describes: the altitude profile when there is one (its
/// knots are absolute winds), else the datum wind everywhere; plus the turbulence amplitude.
/// `wind_x`/`wind_z` are the blowing-toward components east and south on the local horizon
/// (the level frame of `fl_flight::geodetic`): the spec's "a westerly has windX > 0" and
/// "horizontal wind only" everywhere on the globe, and its world X/Z at the origin.
pub fn wind_field(wind_x: f32, wind_z: f32, turbulence: f32, profile: &[WindKnot]) -> WindField {
    let finite = |v: f32| if v.is_finite() { f64::from(v) } else { 0.0 };
    let mut knots: Vec<(f64, Vec3)> = profile
        .iter()
        .filter(|k| k.alt_m.is_finite())
        .map(|k| {
            (
                f64::from(k.alt_m),
                Vec3::new(finite(k.wind_x), 0.0, finite(k.wind_z)),
            )
        })
        .collect();
    knots.sort_by(|a, b| a.0.total_cmp(&b.0));
    WindField {
        steady: if knots.is_empty() {
            Vec3::new(finite(wind_x), 0.0, finite(wind_z))
        } else {
            Vec3::ZERO
        },
        profile: knots,
        turbulence_m_s: finite(turbulence).max(0.0),
    }
}

/// A message's wind field (for client prediction).
pub fn wind_field_from_message(msg: &WeatherState, ext: &Extensions) -> WindField {
    let profile = match ext.get(fl_protocol::tlv::tag::WEATHER_WIND_PROFILE) {
        Some(Ext::WeatherWindProfile(k)) => k,
        _ => Vec::new(),
    };
    wind_field(msg.wind_x, msg.wind_z, msg.turbulence_amp, &profile)
}

/// The wind field of a window copy (`WeatherWindowCopies`): the same conversion as its own
/// message's, so a copy gives the same field bit for bit.
pub fn wind_field_from_copy(copy: &WeatherWindowCopy) -> WindField {
    wind_field(copy.wind_x, copy.wind_z, copy.turbulence_amp, &copy.profile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::tlv::tag;

    #[test]
    fn a_catch_up_reaches_back_at_most_a_second_and_ahead_by_the_lead() {
        let w = Weather::new(WeatherConfig::default());
        let starts = |v: Vec<(WeatherState, Extensions)>| -> Vec<u64> {
            v.iter()
                .filter_map(|(_, e)| match e.get(tag::WEATHER_EPOCH) {
                    Some(Ext::WeatherEpoch(epoch)) => Some(epoch),
                    _ => None,
                })
                .collect()
        };
        let join = starts(w.catch_up(1005));
        assert_eq!(join, (1000..=1060).step_by(10).collect::<Vec<_>>());
        let resume = starts(w.catch_up_since(0, 1005));
        assert_eq!(
            resume,
            ((1005 - MAX_CATCH_UP_BACK_TICKS) / 10 * 10..=1060)
                .step_by(10)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_westerly_blows_toward_positive_x() {
        let (x, z) = wind_vector(270.0, 10.0);
        assert!((x - 10.0).abs() < 1e-9 && z.abs() < 1e-9);
        let (x, z) = wind_vector(0.0, 10.0); // from the north, toward the south (+Z)
        assert!(x.abs() < 1e-9 && (z - 10.0).abs() < 1e-9);
    }

    #[test]
    fn the_broadcast_describes_exactly_the_wind_the_world_uses() {
        let w = Weather::new(WeatherConfig::default());
        for b in (0..2000).step_by(10) {
            let (msg, ext) = w.broadcast(b).expect("a broadcast tick");
            let Some(Ext::WeatherEpoch(epoch)) = ext.get(tag::WEATHER_EPOCH) else {
                panic!("epoch TLV missing");
            };
            assert_eq!(epoch, b + LEAD_TICKS);
            for t in epoch..epoch + WINDOW_TICKS {
                assert_eq!(wind_field_from_message(&msg, &ext), w.wind_field(t));
            }
        }
        assert!(w.broadcast(5).is_none());
    }

    /// Every copy in every broadcast describes exactly the wind the world uses in the window it
    /// names, and each window is carried by three consecutive broadcasts, the last one
    /// `LEAD_TICKS − 20` ticks before the window's first tick.
    #[test]
    fn each_window_rides_the_next_broadcasts_as_exact_copies() {
        let w = Weather::new(WeatherConfig {
            // Short presets: copies across a preset change (another turbulence and profile).
            preset_ticks: 100,
            ..WeatherConfig::default()
        });
        let mut carried: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for b in (0..2000).step_by(10) {
            let (msg, ext) = w.broadcast(b).expect("a broadcast tick");
            let Some(Ext::WeatherEpoch(epoch)) = ext.get(tag::WEATHER_EPOCH) else {
                panic!("epoch TLV missing");
            };
            carried.entry(epoch).or_default().push(b);
            assert_eq!(wind_field_from_message(&msg, &ext), w.wind_field(epoch));
            let Some(Ext::WeatherWindowCopies(copies)) = ext.get(tag::WEATHER_WINDOW_COPIES) else {
                panic!("copies missing at {b}");
            };
            assert_eq!(copies.len() as u64, COPY_WINDOWS);
            for c in &copies {
                let e = epoch - u64::from(c.back_ticks);
                assert_eq!(e % WINDOW_TICKS, 0);
                carried.entry(e).or_default().push(b);
                for t in e..e + WINDOW_TICKS {
                    assert_eq!(wind_field_from_copy(c), w.wind_field(t), "copy of {e}");
                }
            }
        }
        for (epoch, by) in carried.range(LEAD_TICKS + 30..2000) {
            assert_eq!(
                by,
                &vec![
                    epoch - LEAD_TICKS,
                    epoch - LEAD_TICKS + 10,
                    epoch - LEAD_TICKS + 20
                ],
                "window {epoch}"
            );
        }
        // The first windows of a fresh server have no windows before them to copy.
        let (_, ext) = w.announcement(0);
        assert!(ext.get(tag::WEATHER_WINDOW_COPIES).is_none());
        let (_, ext) = w.announcement(10);
        assert!(matches!(
            ext.get(tag::WEATHER_WINDOW_COPIES),
            Some(Ext::WeatherWindowCopies(c)) if c.len() == 1 && c[0].back_ticks == 10
        ));
    }

    #[test]
    fn a_joining_peer_catches_up_on_every_window_until_the_broadcasts_take_over() {
        let w = Weather::new(WeatherConfig::default());
        for join in [0u64, 7, 123] {
            let mut heard: Vec<(WeatherState, Extensions)> = w.catch_up(join);
            heard.extend((join + 1..join + 200).filter_map(|t| w.broadcast(t)));
            for t in join..join + 200 {
                let newest = heard
                    .iter()
                    .filter_map(|(m, e)| match e.get(tag::WEATHER_EPOCH) {
                        Some(Ext::WeatherEpoch(epoch)) if epoch <= t => Some((epoch, m, e)),
                        _ => None,
                    })
                    .max_by_key(|(epoch, _, _)| *epoch)
                    .expect("a window for every tick");
                assert_eq!(
                    wind_field_from_message(newest.1, newest.2),
                    w.wind_field(t),
                    "joined {join}, tick {t}"
                );
            }
        }
    }

    #[test]
    fn presets_cycle_and_time_advances() {
        let w = Weather::new(WeatherConfig {
            preset_ticks: 100,
            ..WeatherConfig::default()
        });
        assert_eq!(w.conditions(0).preset, WeatherPreset::Clear);
        assert_eq!(w.conditions(100).preset, WeatherPreset::PartlyCloudy);
        assert_eq!(w.conditions(400).preset, WeatherPreset::Clear, "wraps");
        assert_eq!(w.conditions(0).time_of_day_tenths, 100);
        let hour = 60 * 3600;
        assert_eq!(w.conditions(hour).time_of_day_tenths, 110);
        assert_eq!(
            w.conditions(15 * hour).time_of_day_tenths,
            10,
            "wraps at midnight"
        );
    }

    #[test]
    fn gusts_vary_between_windows_but_not_within() {
        let w = Weather::new(WeatherConfig::default());
        assert_eq!(w.wind_field(20), w.wind_field(29));
        let distinct: std::collections::BTreeSet<u32> = (0..100)
            .map(|i| w.conditions(i * 10).wind_x.to_bits())
            .collect();
        assert!(distinct.len() > 10);
    }

    #[test]
    fn hostile_messages_give_a_sane_field() {
        let f = wind_field(
            f32::NAN,
            1.0,
            -5.0,
            &[WindKnot {
                alt_m: f32::NAN,
                wind_x: 1.0,
                wind_z: 1.0,
            }],
        );
        assert_eq!(f.steady, Vec3::new(0.0, 0.0, 1.0));
        assert!(f.profile.is_empty());
        assert_eq!(f.turbulence_m_s, 0.0);
    }

    #[test]
    fn an_override_changes_only_windows_not_yet_announced() {
        let plain = Weather::new(WeatherConfig::default());
        let mut w = plain.clone();
        let tick = 1_234;
        let from = Weather::first_unannounced_epoch(tick);
        // Every window a broadcast or catch-up has announced by `tick` precedes `from`.
        let announced = Weather::window_start(tick) + LEAD_TICKS;
        assert!(from > announced);
        w.set_override(WeatherOverride {
            from_epoch: from,
            preset: PresetWeather::typical(WeatherPreset::Storm),
            start_hour: 18.5,
            start_julian_day: 2_461_000.25,
            time_scale: 2.0,
        });
        for epoch in (0..from).step_by(WINDOW_TICKS as usize) {
            assert_eq!(w.conditions(epoch), plain.conditions(epoch), "{epoch}");
        }
        let c = w.conditions(from);
        assert_eq!(c.preset, WeatherPreset::Storm);
        assert_eq!(c.time_of_day_tenths, 185);
        assert_eq!(c.julian_day, 2_461_000.25);
        // One game hour passes in half an hour of ticks at time scale 2.
        let later = w.conditions(from + 30 * 3600);
        assert_eq!(later.time_of_day_tenths, 195);
        // A later override replaces this one from its own window on.
        w.set_override(WeatherOverride {
            from_epoch: from + 100,
            preset: PresetWeather::typical(WeatherPreset::Snow),
            start_hour: 6.0,
            start_julian_day: 2_461_001.0,
            time_scale: 1.0,
        });
        assert_eq!(w.conditions(from + 90).preset, WeatherPreset::Storm);
        assert_eq!(w.conditions(from + 100).preset, WeatherPreset::Snow);
    }
}
