//! Sensor definitions (`sensors/*.toml`): radars, IR seekers and searchers, lasers and the eyeball,
//! in SI.
//!
//! Owns: `[sensor]` (identity, type, role, omnidirectional, emitter, ECCM, our `doppler`), the
//! `[search]` and `[track]` lobes (half-angles, range band, probability of detection per check at
//! the 10 Hz reference cadence, the track's lock hold), unit conversion and bounds. One vocabulary
//! serves aircraft avionics, AI detection and missile seeker heads. Must not: detect anything
//! (sensing is combat's), or renormalise `pod` to another cadence (that is the consumer's
//! honest choice, documented in `docs/weapons.md`).

use crate::defs::{DEG_TO_RAD, NM_TO_M, Span, bounded, declared_id, req_bounded};
use crate::error::ContentError;
use crate::names::check_display_name;
use crate::toml_read::{Src, Tbl, bad_name};
use std::path::{Path, PathBuf};

/// The cadence every `pod` is quoted at: the probability of detection is per check at 10 Hz (the
/// original's `[world] sensor_check_hz` reference). A consumer checking at another rate changes
/// the effective acquisition time; nothing here rescales it.
pub const POD_REFERENCE_HZ: f64 = 10.0;

/// Half-angles an omnidirectional sensor's lobes default to: a full sphere (azimuth, elevation).
const FULL_SPHERE_DEG: (f64, f64) = (180.0, 90.0);

/// The physical channel a sensor observes; it selects which target signature scales its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SensorType {
    /// `radar` (range scales with the square root of the target's `rcs`).
    Radar,
    /// `ir` (or `infrared`; scales with the target's `ir` signature).
    Ir,
    /// `visual` (scales with `visual`).
    Visual,
    /// `laser` (scales with `laser`).
    Laser,
}

impl SensorType {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "radar" => Self::Radar,
            "ir" | "infrared" => Self::Ir,
            "visual" => Self::Visual,
            "laser" => Self::Laser,
            _ => return None,
        })
    }
}

/// How a sensor is consumed (tooling reads it; detection treats both alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SensorRole {
    /// An aircraft's or emplacement's avionics (the default).
    #[default]
    Aircraft,
    /// A weapon's seeker head (a semi-active head holds a lock without emitting).
    Seeker,
}

/// One detection lobe, in SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lobe {
    /// Azimuth half-angle, rad, in (0, π] (π: no azimuth limit).
    pub az_half_angle_rad: f64,
    /// Elevation half-angle, rad, in (0, π] (π/2: no elevation limit).
    pub el_half_angle_rad: f64,
    /// Dead zone, m (0 = none).
    pub min_range_m: f64,
    /// Range against a baseline (signature 1.0) target, m; above `min_range_m`.
    pub max_range_m: f64,
    /// Probability of detection per check at [`POD_REFERENCE_HZ`], in (0, 1].
    pub pod: f64,
}

/// A sensor definition.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorDef {
    /// Namespaced id, lowercase.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Channel.
    pub kind: SensorType,
    /// Consumer role (`role`, default aircraft).
    pub role: SensorRole,
    /// No cone to point (`omnidirectional`, default false): the lobes' half-angles may be omitted
    /// and then describe a full sphere.
    pub omnidirectional: bool,
    /// It announces itself when it looks (`emitter`, default false): what a hostile RWR hears,
    /// and what EMCON silences.
    pub emitter: bool,
    /// Resistance to noise jamming in [0, 1] (`eccm`, inside `[sensor]`, default 0): extends the
    /// burn-through range of a radar with a track lobe.
    pub eccm: f64,
    /// Our key, radar only: `Some(true)` a pulse-doppler set (sees down into ground clutter, loses
    /// a target in the beam notch), `Some(false)` a pulse set (no notch, blinded looking down),
    /// `None` (the pack and the original): neither clutter nor notch is modelled for it.
    pub doppler: Option<bool>,
    /// How a target is found.
    pub search: Lobe,
    /// How a target is held (`None`: search-only, it cannot lock).
    pub track: Option<Lobe>,
    /// How long a track coasts after a check fails, s, in [0, 60] (`[track].lock_hold_s`; 0 with
    /// no track lobe).
    pub lock_hold_s: f64,
    /// Source file.
    pub file: PathBuf,
    /// Pack id that provided it.
    pub pack: String,
}

fn lobe(src: &Src<'_>, t: &mut Tbl<'_>, omni: bool) -> Result<Lobe, ContentError> {
    let half = Span::above(0.0, 180.0);
    let angle = |src: &Src<'_>, t: &mut Tbl<'_>, key: &str, omni_default: f64| {
        if omni {
            bounded(src, t, key, half, "deg").map(|a| a.map_or(omni_default, |a| a.value))
        } else {
            req_bounded(src, t, key, half, "deg").map(|a| a.value)
        }
    };
    let az = angle(src, t, "az_half_angle_deg", FULL_SPHERE_DEG.0)?;
    let el = angle(src, t, "el_half_angle_deg", FULL_SPHERE_DEG.1)?;
    let min = bounded(src, t, "min_range_nm", Span::closed(0.0, 1000.0), "nm")?;
    let max = req_bounded(src, t, "max_range_nm", Span::above(0.0, 1000.0), "nm")?;
    let min_nm = min.map_or(0.0, |m| m.value);
    if max.value <= min_nm {
        return Err(src.err(
            &t.key_path("max_range_nm"),
            max.line,
            format!("{} nm is not above min_range_nm ({min_nm} nm)", max.value),
        ));
    }
    let pod = req_bounded(src, t, "pod", Span::above(0.0, 1.0), "")?;
    Ok(Lobe {
        az_half_angle_rad: az * DEG_TO_RAD,
        el_half_angle_rad: el * DEG_TO_RAD,
        min_range_m: min_nm * NM_TO_M,
        max_range_m: max.value * NM_TO_M,
        pod: pod.value,
    })
}

/// Parses a sensor file.
pub(crate) fn parse_sensor(
    src: &mut Src<'_>,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<SensorDef, ContentError> {
    let doc = src.parse(text)?;
    let mut root = Tbl::root(doc.as_table());
    // TOML scoping puts a key written under `[sensor]` into it; one at the file root is the
    // original's known trap (its radar silently lost its ECCM). Name the fix.
    if root.keys().iter().any(|k| k == "eccm") {
        let line = root.key_line(src, "eccm");
        return Err(src.err(
            "eccm",
            line,
            "`eccm` is at the file root; it belongs inside [sensor] (above the [search] header)",
        ));
    }
    let mut s = root.req_table(src, "sensor")?;
    let id_at = s.req_str(src, "id")?;
    let id = declared_id(src, &id_at, "sensor.id", namespace)?;
    let name = s.req_str(src, "name")?;
    check_display_name(&name.value)
        .map_err(|p| bad_name(src, "sensor.name", name.line, &name.value, p))?;
    let ty = s.req_str(src, "type")?;
    let kind = SensorType::parse(&ty.value).ok_or_else(|| {
        src.err(
            "sensor.type",
            ty.line,
            format!("{:?} is not one of radar, ir, visual, laser", ty.value),
        )
    })?;
    let role = match s.str(src, "role")? {
        None => SensorRole::Aircraft,
        Some(r) => match r.value.as_str() {
            "aircraft" => SensorRole::Aircraft,
            "seeker" => SensorRole::Seeker,
            other => {
                return Err(src.err(
                    "sensor.role",
                    r.line,
                    format!("{other:?} is not one of aircraft, seeker"),
                ));
            }
        },
    };
    let omnidirectional = s.bool(src, "omnidirectional")?.is_some_and(|b| b.value);
    let emitter = s.bool(src, "emitter")?.is_some_and(|b| b.value);
    let eccm = bounded(src, &mut s, "eccm", Span::closed(0.0, 1.0), "")?.map_or(0.0, |a| a.value);
    let doppler = match s.bool(src, "doppler")? {
        Some(d) if kind != SensorType::Radar => {
            src.warn(
                "sensor.doppler",
                d.line,
                "only a radar has a doppler filter (ignored)",
            );
            None
        }
        d => d.map(|d| d.value),
    };
    s.finish(src);

    let mut search = root.req_table(src, "search")?;
    let search_lobe = lobe(src, &mut search, omnidirectional)?;
    search.finish(src);
    let (track, lock_hold_s) = match root.table(src, "track")? {
        Some(mut t) => {
            let l = lobe(src, &mut t, omnidirectional)?;
            let hold = bounded(src, &mut t, "lock_hold_s", Span::closed(0.0, 60.0), "s")?
                .map_or(0.0, |a| a.value);
            t.finish(src);
            (Some(l), hold)
        }
        None => (None, 0.0),
    };
    root.finish(src);
    Ok(SensorDef {
        id,
        name: name.value,
        kind,
        role,
        omnidirectional,
        emitter,
        eccm,
        doppler,
        search: search_lobe,
        track,
        lock_hold_s,
        file: src.file.into(),
        pack: pack.into(),
    })
}

/// Parses a sensor from text (for tests and tools); `file` is only used in messages.
pub fn parse_sensor_text(
    file: &Path,
    text: &str,
    pack: &str,
    namespace: &str,
) -> Result<(SensorDef, Vec<crate::ContentWarning>), ContentError> {
    let mut src = Src::new(file, text);
    let s = parse_sensor(&mut src, text, pack, namespace)?;
    Ok((s, src.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(SensorDef, Vec<crate::ContentWarning>), ContentError> {
        parse_sensor_text(Path::new("sensors/s.toml"), text, "p", "fl-base")
    }

    fn ok(text: &str) -> (SensorDef, Vec<crate::ContentWarning>) {
        parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok((s, _)) => panic!("accepted {s:?}\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    fn keys(w: &[crate::ContentWarning]) -> Vec<&str> {
        w.iter().map(|w| w.key.as_str()).collect()
    }

    /// The pack's APG-66, one key per line.
    const RADAR: &str = "[sensor]\nid = \"fl-base:apg66\"\nname = \"AN/APG-66\"\ntype = \"radar\"\n\
        omnidirectional = false\nemitter = true\neccm = 0.3\n\
        [search]\naz_half_angle_deg = 60.0\nel_half_angle_deg = 30.0\nmin_range_nm = 0.5\nmax_range_nm = 30.0\npod = 0.35\n\
        [track]\naz_half_angle_deg = 55.0\nel_half_angle_deg = 25.0\nmin_range_nm = 0.3\nmax_range_nm = 22.0\npod = 0.70\nlock_hold_s = 4.0\n";

    const EYEBALL: &str = "[sensor]\nid = \"fl-base:eyeball_day\"\nname = \"Eyeball\"\ntype = \"visual\"\n\
        [search]\naz_half_angle_deg = 90.0\nel_half_angle_deg = 60.0\nmax_range_nm = 8.0\npod = 0.15\n";

    /// `text` with the first `key`'s value after `[table]` replaced; returns it and that line.
    fn set(text: &str, table: &str, key: &str, value: &str) -> (String, usize) {
        let mut in_table = false;
        let mut done = None;
        let prefix = format!("{key} =");
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if l.starts_with('[') {
                    in_table = l == format!("[{table}]");
                }
                if in_table && done.is_none() && l.starts_with(&prefix) {
                    done = Some(i + 1);
                    format!("{key} = {value}")
                } else {
                    l.to_owned()
                }
            })
            .collect();
        let line = done.unwrap_or_else(|| panic!("[{table}] {key} not in text"));
        (lines.join("\n") + "\n", line)
    }

    #[test]
    fn reads_a_radar_in_si() {
        let (s, warn) = ok(RADAR);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(s.id, "fl-base:apg66");
        assert_eq!((s.kind, s.role), (SensorType::Radar, SensorRole::Aircraft));
        assert!(s.emitter && !s.omnidirectional);
        assert_eq!((s.eccm, s.doppler, s.lock_hold_s), (0.3, None, 4.0));
        let deg = std::f64::consts::PI / 180.0;
        assert!((s.search.az_half_angle_rad - 60.0 * deg).abs() < 1e-15);
        assert!((s.search.el_half_angle_rad - 30.0 * deg).abs() < 1e-15);
        assert!((s.search.min_range_m - 926.0).abs() < 1e-9);
        assert!((s.search.max_range_m - 55_560.0).abs() < 1e-9);
        assert_eq!(s.search.pod, 0.35);
        let t = s.track.unwrap_or_else(|| panic!("track"));
        assert!((t.max_range_m - 22.0 * 1852.0).abs() < 1e-9);
        assert!((t.az_half_angle_rad - 55.0 * deg).abs() < 1e-15);
        assert_eq!(t.pod, 0.70);
    }

    #[test]
    fn search_only_and_omnidirectional_sensors() {
        let (e, warn) = ok(EYEBALL);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(e.kind, SensorType::Visual);
        assert!(e.track.is_none() && !e.emitter);
        assert_eq!(
            (e.lock_hold_s, e.eccm, e.search.min_range_m),
            (0.0, 0.0, 0.0)
        );
        // Omnidirectional lobes may omit their half-angles: a full sphere.
        let omni = RADAR
            .replace("omnidirectional = false", "omnidirectional = true")
            .replace("az_half_angle_deg = 60.0\n", "")
            .replace("el_half_angle_deg = 25.0\n", "");
        let (o, warn) = ok(&omni);
        assert!(warn.is_empty(), "{warn:?}");
        assert_eq!(o.search.az_half_angle_rad, std::f64::consts::PI);
        assert_eq!(
            o.track.map(|t| t.el_half_angle_rad),
            Some(std::f64::consts::FRAC_PI_2)
        );
        // A pointed sensor must say where it points.
        let e = err(&RADAR.replace("az_half_angle_deg = 60.0\n", ""));
        assert!(e.contains("`search.az_half_angle_deg`: required"), "{e}");
    }

    #[test]
    fn absurd_numbers_are_errors_naming_file_line_and_key() {
        let cases: &[(&str, &str, &str)] = &[
            ("search", "az_half_angle_deg", "0"),
            ("search", "az_half_angle_deg", "181"),
            ("search", "el_half_angle_deg", "-5"),
            ("search", "el_half_angle_deg", "nan"),
            ("search", "min_range_nm", "-1"),
            ("search", "max_range_nm", "0.5"),
            ("search", "max_range_nm", "1e7"),
            ("search", "max_range_nm", "inf"),
            ("search", "pod", "0"),
            ("search", "pod", "1.5"),
            ("search", "pod", "\"likely\""),
            ("track", "max_range_nm", "0.1"),
            ("track", "lock_hold_s", "61"),
            ("track", "lock_hold_s", "-1"),
            ("track", "pod", "-0.2"),
            ("sensor", "eccm", "1.1"),
            ("sensor", "eccm", "-0.5"),
            ("sensor", "emitter", "\"yes\""),
        ];
        for (table, key, value) in cases {
            let (text, line) = set(RADAR, table, key, value);
            let e = err(&text);
            let want = format!("sensors/s.toml:{line}: `{table}.{key}`");
            assert!(
                e.starts_with(&want),
                "[{table}] {key} = {value}: {e}\nwanted {want}"
            );
        }
    }

    #[test]
    fn identity_rules() {
        assert!(err(&RADAR.replace("\"radar\"", "\"sonar\"")).contains("sonar"));
        assert!(err(&RADAR.replace("type = \"radar\"\n", "")).contains("`sensor.type`: required"));
        assert!(
            err(&RADAR.replace("eccm = 0.3\n", "role = \"missile\"\n")).contains("`sensor.role`")
        );
        assert!(err(&RADAR.replace("fl-base:apg66", "builtin:radar")).contains("reserved"));
        assert!(err(&EYEBALL.replace("[search]\n", "[scan]\n")).contains("`search`"));
        let (ir, warn) = ok(&EYEBALL.replace("\"visual\"", "\"infrared\""));
        assert!(warn.is_empty());
        assert_eq!(ir.kind, SensorType::Ir);
        let (seeker, _) = ok(&RADAR.replace("eccm = 0.3\n", "role = \"seeker\"\n"));
        assert_eq!(seeker.role, SensorRole::Seeker);
    }

    #[test]
    fn eccm_at_the_root_is_the_originals_trap_and_refused() {
        let text = RADAR
            .replace("eccm = 0.3\n", "")
            .replace("[sensor]\n", "eccm = 0.3\n[sensor]\n");
        let e = err(&text);
        assert!(
            e.starts_with("sensors/s.toml:1: `eccm`") && e.contains("inside [sensor]"),
            "{e}"
        );
    }

    #[test]
    fn doppler_is_a_radar_key_and_unknown_keys_warn() {
        let (d, warn) = ok(&RADAR.replace("eccm = 0.3\n", "eccm = 0.3\ndoppler = true\n"));
        assert!(warn.is_empty());
        assert_eq!(d.doppler, Some(true));
        let (p, _) = ok(&RADAR.replace("eccm = 0.3\n", "eccm = 0.3\ndoppler = false\n"));
        assert_eq!(p.doppler, Some(false));
        let (v, warn) =
            ok(&EYEBALL.replace("type = \"visual\"\n", "type = \"visual\"\ndoppler = true\n"));
        assert_eq!((v.doppler, keys(&warn)), (None, vec!["sensor.doppler"]));
        // lock_hold_s is a track key; in [search] it is unknown (and not read).
        let text = EYEBALL.replace("pod = 0.15\n", "pod = 0.15\nlock_hold_s = 2\nnotch = 1\n")
            + "[clutter]\nx = 1\n";
        let (s, warn) = ok(&text);
        assert_eq!(s.lock_hold_s, 0.0);
        assert_eq!(
            keys(&warn),
            ["search.lock_hold_s", "search.notch", "clutter"]
        );
    }

    #[test]
    fn every_prefix_parses_or_fails_cleanly() {
        for end in (0..=RADAR.len()).filter(|i| RADAR.is_char_boundary(*i)) {
            let _ = parse(&RADAR[..end]);
        }
    }
}
