//! Checking the command line's values: image sizes, the world camera's place and attitude, the
//! UTC date-time and the weather preset names. Each check names the option and the accepted
//! range, so a typo never turns into a silently different picture.

use fl_render::Weather;
use fl_render::sun::UtcTime;

use crate::error::ViewError;

/// Largest image side accepted (the renderer's own limit is the device's, at most 16384).
pub const MAX_SIDE: u32 = 8192;

/// `WxH`, e.g. `1280x720`; each side 1…[`MAX_SIDE`].
pub fn parse_size(s: &str) -> Result<(u32, u32), ViewError> {
    let bad = |p: &str| ViewError::argument("size", s, p);
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| bad("expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let side = |v: &str| -> Result<u32, ViewError> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| bad("expected WIDTHxHEIGHT with whole numbers, e.g. 1280x720"))?;
        if n == 0 || n > MAX_SIDE {
            return Err(bad(&format!("each side must be 1…{MAX_SIDE} pixels")));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}

/// A finite number within `lo..=hi`.
pub fn in_range(arg: &'static str, v: f64, lo: f64, hi: f64, unit: &str) -> Result<f64, ViewError> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(ViewError::argument(
            arg,
            v,
            format!("must be between {lo} and {hi}{unit}"),
        ))
    }
}

/// `YYYY-MM-DDTHH:MM[:SS[.fff]]`, in UTC; a trailing `Z` is accepted, any other zone is refused
/// (the sky is computed in UTC and a silently ignored offset would move the sun).
pub fn parse_time(s: &str) -> Result<UtcTime, ViewError> {
    let bad = |p: &str| ViewError::argument("time", s, p);
    let form = "expected a UTC date-time YYYY-MM-DDTHH:MM[:SS] (e.g. 2026-06-21T17:30, optionally ending in Z)";
    let body = s.strip_suffix(['Z', 'z']).unwrap_or(s);
    let (date, time) = body.split_once(['T', 't', ' ']).ok_or_else(|| bad(form))?;
    if time.contains(['+', '-']) {
        return Err(bad(
            "only UTC is accepted: drop the offset and give the time in UTC",
        ));
    }
    let mut d = date.split('-');
    let (Some(y), Some(mo), Some(da), None) = (d.next(), d.next(), d.next(), d.next()) else {
        return Err(bad(form));
    };
    let num = |v: &str| -> Result<u32, ViewError> {
        if v.is_empty() || v.len() > 4 || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(form));
        }
        v.parse().map_err(|_| bad(form))
    };
    let (year, month, day) = (num(y)?, num(mo)?, num(da)?);
    let mut t = time.split(':');
    let (Some(hh), Some(mm)) = (t.next(), t.next()) else {
        return Err(bad(form));
    };
    let sec: f64 = match (t.next(), t.next()) {
        (None, None) => 0.0,
        (Some(ss), None) => ss.parse().map_err(|_| bad(form))?,
        _ => return Err(bad(form)),
    };
    let (hour, minute) = (num(hh)?, num(mm)?);
    if !(1..=9999).contains(&year) {
        return Err(bad("the year must be 1…9999"));
    }
    if !(1..=12).contains(&month) {
        return Err(bad("the month must be 01…12"));
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(bad(&format!(
            "day {day} does not exist in {year:04}-{month:02}"
        )));
    }
    if hour > 23 || minute > 59 || !(0.0..60.0).contains(&sec) {
        return Err(bad("the time of day must be 00:00…23:59:59"));
    }
    // `year` is at most 9999, so it fits an i32.
    Ok(UtcTime::new(year as i32, month, day, hour, minute, sec))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

/// The protocol's weather presets (`MsgWeatherState::preset`), by the names `server.toml`'s
/// `[weather] presets` uses, with the byte the wire carries.
pub const WEATHER_PRESETS: [(&str, u8); 7] = [
    ("clear", 0),
    ("partly_cloudy", 1),
    ("overcast", 2),
    ("rain", 3),
    ("storm", 4),
    ("snow", 5),
    ("blizzard", 6),
];

/// The renderer's weather for a preset name: the cloud cover of the preset and the fog the
/// server uses for it by default (`PresetWeather::typical` in engine/server/src/weather.rs).
pub fn parse_weather(s: &str) -> Result<Weather, ViewError> {
    let name = s.to_ascii_lowercase().replace('-', "_");
    let preset = WEATHER_PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            let names: Vec<&str> = WEATHER_PRESETS.iter().map(|(n, _)| *n).collect();
            ViewError::argument(
                "weather",
                s,
                format!("unknown weather preset; use one of: {}", names.join(", ")),
            )
        })?;
    // The server's defaults per preset (density per metre, start distance in metres).
    let (fog, fog_start) = match preset {
        1 => (0.00002, 20_000.0),
        2 => (0.00005, 10_000.0),
        3 => (0.0001, 5_000.0),
        4 => (0.0002, 2_000.0),
        5 => (0.00015, 3_000.0),
        6 => (0.0004, 800.0),
        _ => (0.0, 0.0),
    };
    Ok(Weather::from_message(preset, fog, fog_start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1280x720").ok(), Some((1280, 720)));
        for bad in ["", "1280", "0x10", "10x0", "ax3", "9000x10", "-1x5"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times() {
        let t = parse_time("2026-06-21T17:30").expect("valid");
        assert_eq!((t.year, t.month, t.day), (2026, 6, 21));
        assert!((t.hours - 17.5).abs() < 1e-12);
        let t = parse_time("2024-02-29T23:59:30Z").expect("leap day");
        assert!((t.hours - (23.0 + 59.5 / 60.0)).abs() < 1e-9);
        for bad in [
            "2026-06-21",
            "2026-13-01T00:00",
            "2026-02-29T00:00",
            "2026-06-21T24:00",
            "2026-06-21T17:30+02:00",
            "2026-06-21T17:60",
            "21/06/2026 17:30",
            "2026-06-21T17:30:61",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn weather_names() {
        assert_eq!(parse_weather("clear").ok(), Some(Weather::CLEAR));
        let storm = parse_weather("Storm").expect("storm");
        assert_eq!(storm.cloud_cover, 1.0);
        assert!(storm.fog_density_per_m > 0.0);
        assert_eq!(
            parse_weather("partly-cloudy").map(|w| w.cloud_cover).ok(),
            Some(0.4)
        );
        let e = parse_weather("fog").expect_err("unknown");
        assert!(e.to_string().contains("blizzard"), "{e}");
    }

    #[test]
    fn ranges() {
        assert!(in_range("lat", 90.0, -90.0, 90.0, "°").is_ok());
        assert!(in_range("lat", 90.1, -90.0, 90.0, "°").is_err());
        assert!(in_range("lat", f64::NAN, -90.0, 90.0, "°").is_err());
    }
}
