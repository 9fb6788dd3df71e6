//! The `user.toml` format: the settings read from a TOML table value by value (each bad value
//! costs only itself), the older flat `settings.toml` keys lifted into their sections, and the
//! settings written back as a table with the unknown keys they carried.
//!
//! Owns the keys, their types and their checks. Must not: touch files (`file` does).

use std::ops::RangeInclusive;

use toml::{Table, Value};

use super::salvage::salvage;
use super::{
    Audio, AudioBus, Camera, Choice, FOV_RANGE_DEG, FPS_CAP_RANGE, GameSettings, Graphics, Hud,
    HudColour, MAX_CALLSIGN_BYTES, MAX_FAVOURITE_SERVERS, MAX_FILE_BYTES, MAX_RECENT_SERVERS, Net,
    Player, RENDER_SCALE_RANGE, Resolution, UI_SCALE_RANGE, VOLUME_RANGE, net_ranges,
    sanitize_callsign, usable_address,
};
use crate::hud::Units;

/// What reading found besides the values.
#[derive(Debug, Default)]
pub(super) struct Report {
    /// Values that could not be used (the file is broken): sentences.
    pub(super) invalid: Vec<String>,
    /// Values brought into range or cleaned: sentences.
    pub(super) adjusted: Vec<String>,
    /// Keys not known, `section.key`.
    pub(super) unknown: Vec<String>,
}

/// Reads settings from a file's bytes (`legacy`: the older flat `settings.toml`).
pub(super) fn parse_bytes(bytes: &[u8], legacy: bool) -> (GameSettings, Report) {
    let mut report = Report::default();
    let mut bytes = bytes;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        report.invalid.push(format!(
            "the file is larger than {} KiB (only its start was read)",
            MAX_FILE_BYTES / 1024
        ));
        // Up to the last whole line of the part that fits.
        let cut = &bytes[..MAX_FILE_BYTES as usize];
        let end = cut.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes = &cut[..end];
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => {
            report
                .invalid
                .push("it is not all UTF-8 text (the readable lines were used)".to_owned());
            String::from_utf8_lossy(bytes)
        }
    };
    let mut root = match toml::from_str::<Table>(&text) {
        Ok(t) => t,
        Err(e) => {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map_or_else(String::new, |l| format!(" on line {l}"));
            report.invalid.push(format!(
                "it is not valid TOML{at} ({}; the readable lines were used)",
                e.message().trim()
            ));
            let (root, dropped) = salvage(&text);
            if dropped > 0 {
                report.invalid.push(format!(
                    "{dropped} line(s) could not be read and were left out"
                ));
            }
            root
        }
    };
    if legacy {
        lift_legacy_keys(&mut root);
    }
    let settings = from_table(root, &mut report);
    (settings, report)
}

/// Where each key of the older flat file lives now.
const LEGACY_KEYS: [(&str, &str, &str); 7] = [
    ("units", "hud", "units"),
    ("ui_scale", "hud", "ui_scale"),
    ("fov_deg", "camera", "fov_deg"),
    ("vsync", "graphics", "vsync"),
    ("fps_cap", "graphics", "fps_cap"),
    ("callsign", "player", "callsign"),
    ("recent_servers", "player", "recent_servers"),
];

/// Moves the older file's top-level keys into their sections (a section's own key wins).
fn lift_legacy_keys(root: &mut Table) {
    for (old, section, key) in LEGACY_KEYS {
        let Some(v) = root.remove(old) else { continue };
        let entry = root
            .entry(section.to_owned())
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(t) = entry {
            t.entry(key.to_owned()).or_insert(v);
        }
    }
}

/// The TOML type of `v`, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "text",
        Value::Integer(_) => "a whole number",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "true/false",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "a list",
        Value::Table(_) => "a table",
    }
}

/// `v` shown briefly in a message (long text cut).
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// One section being read: known keys are taken out as they are read, what is left is
/// unknown.
struct Section<'r> {
    name: &'static str,
    table: Table,
    report: &'r mut Report,
}

impl<'r> Section<'r> {
    fn new(root: &mut Table, name: &'static str, report: &'r mut Report) -> Section<'r> {
        let table = match root.remove(name) {
            None => Table::new(),
            Some(Value::Table(t)) => t,
            Some(other) => {
                report.invalid.push(format!(
                    "{name} is {} ({}), not a [{name}] section",
                    type_name(&other),
                    shown(&other)
                ));
                Table::new()
            }
        };
        Section {
            name,
            table,
            report,
        }
    }

    fn invalid(&mut self, key: &str, why: String) {
        self.report
            .invalid
            .push(format!("{}.{key} {why}; using the default", self.name));
    }

    fn adjusted(&mut self, key: &str, what: String) {
        self.report
            .adjusted
            .push(format!("{}.{key} {what}", self.name));
    }

    /// A number (a whole number is one too); `None` when absent or unusable (noted).
    fn number(&mut self, key: &str) -> Option<f64> {
        let v = self.table.remove(key)?;
        let x = match &v {
            Value::Float(f) => *f,
            Value::Integer(i) => *i as f64,
            other => {
                self.invalid(key, format!("is {}, not a number", type_name(other)));
                return None;
            }
        };
        if !x.is_finite() {
            self.invalid(key, format!("is {x}, not a number"));
            return None;
        }
        Some(x)
    }

    fn f64_in(&mut self, key: &str, range: RangeInclusive<f64>, default: f64) -> f64 {
        let Some(x) = self.number(key) else {
            return default;
        };
        let c = x.clamp(*range.start(), *range.end());
        if c != x {
            self.adjusted(
                key,
                format!(
                    "{x} is outside {}..={}; using {c}",
                    range.start(),
                    range.end()
                ),
            );
        }
        c
    }

    fn f32_in(&mut self, key: &str, range: RangeInclusive<f32>, default: f32) -> f32 {
        let r = f64::from(*range.start())..=f64::from(*range.end());
        self.f64_in(key, r, f64::from(default)) as f32
    }

    /// A whole number in `range` (a float with no fraction is accepted; a negative one or a
    /// fraction is unusable).
    fn u32_in(&mut self, key: &str, range: RangeInclusive<u32>, default: u32) -> u32 {
        let Some(x) = self.number(key) else {
            return default;
        };
        if x < 0.0 || x.fract() != 0.0 {
            self.invalid(key, format!("is {x}, not a whole number from 0"));
            return default;
        }
        let (lo, hi) = (f64::from(*range.start()), f64::from(*range.end()));
        let c = x.clamp(lo, hi);
        if c != x {
            self.adjusted(key, format!("{x} is outside {lo}..={hi}; using {c}"));
        }
        c as u32
    }

    fn flag(&mut self, key: &str, default: bool) -> bool {
        match self.table.remove(key) {
            None => default,
            Some(Value::Boolean(b)) => b,
            Some(other) => {
                self.invalid(key, format!("is {}, not true or false", type_name(&other)));
                default
            }
        }
    }

    fn text(&mut self, key: &str) -> Option<String> {
        match self.table.remove(key)? {
            Value::String(s) => Some(s),
            other => {
                self.invalid(key, format!("is {}, not text", type_name(&other)));
                None
            }
        }
    }

    /// Text read with `parse` (its error says why it cannot be used).
    fn parsed<T>(&mut self, key: &str, parse: impl Fn(&str) -> Result<T, String>) -> Option<T> {
        let s = self.text(key)?;
        match parse(&s) {
            Ok(v) => Some(v),
            Err(why) => {
                self.invalid(key, format!("is {why}"));
                None
            }
        }
    }

    fn choice<T: Choice>(&mut self, key: &str, default: T) -> T {
        self.parsed(key, |s| {
            T::from_name(s).ok_or_else(|| format!("{s:?}, not one of {}", T::names()))
        })
        .unwrap_or(default)
    }

    /// A list of text; items that are not text are left out (noted).
    fn texts(&mut self, key: &str) -> Option<Vec<String>> {
        match self.table.remove(key)? {
            Value::Array(items) => {
                let total = items.len();
                let texts: Vec<String> = items
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                if texts.len() != total {
                    self.report.invalid.push(format!(
                        "{}.{key}: {} item(s) were not text and were left out",
                        self.name,
                        total - texts.len()
                    ));
                }
                Some(texts)
            }
            other => {
                self.invalid(key, format!("is {}, not a list", type_name(&other)));
                None
            }
        }
    }

    /// The keys not read: unknown to this version, kept as they are.
    fn rest(self) -> Table {
        for k in self.table.keys() {
            if self.report.unknown.len() < 64 {
                self.report.unknown.push(format!("{}.{k}", self.name));
            }
        }
        self.table
    }
}

fn units_named(s: &str) -> Result<Units, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "imperial" => Ok(Units::Imperial),
        "metric" => Ok(Units::Metric),
        _ => Err(format!("{s:?}, not \"imperial\" or \"metric\"")),
    }
}

fn units_name(u: Units) -> &'static str {
    match u {
        Units::Imperial => "imperial",
        Units::Metric => "metric",
    }
}

/// Reads every section of `root`; what is left over is kept as unknown.
fn from_table(mut root: Table, r: &mut Report) -> GameSettings {
    let d = GameSettings::default();
    let graphics = {
        let mut s = Section::new(&mut root, "graphics", r);
        let resolution = match s.parsed("resolution", Resolution::parse) {
            Some(res) => {
                let c = res.clamped();
                if c != res {
                    s.adjusted(
                        "resolution",
                        format!(
                            "{res} is outside {}..={}; using {c}",
                            Resolution::MIN,
                            Resolution::MAX
                        ),
                    );
                }
                c
            }
            None => d.graphics.resolution,
        };
        let fullscreen = s.choice("fullscreen", d.graphics.fullscreen);
        let vsync = s.choice("vsync", d.graphics.vsync);
        let render_scale = s.f32_in("render_scale", RENDER_SCALE_RANGE, d.graphics.render_scale);
        let terrain_detail = s.choice("terrain_detail", d.graphics.terrain_detail);
        let model_detail = s.choice("model_detail", d.graphics.model_detail);
        // 0 is "no cap", not below the range.
        let fps_cap = match s.u32_in("fps_cap", 0..=u32::MAX, d.graphics.fps_cap) {
            0 => 0,
            cap => {
                let c = cap.clamp(*FPS_CAP_RANGE.start(), *FPS_CAP_RANGE.end());
                if c != cap {
                    s.adjusted(
                        "fps_cap",
                        format!(
                            "{cap} is outside {}..={} (or 0 for none); using {c}",
                            FPS_CAP_RANGE.start(),
                            FPS_CAP_RANGE.end()
                        ),
                    );
                }
                c
            }
        };
        Graphics {
            resolution,
            fullscreen,
            vsync,
            render_scale,
            terrain_detail,
            model_detail,
            fps_cap,
            unknown: s.rest(),
        }
    };
    let audio = {
        let mut s = Section::new(&mut root, "audio", r);
        let mut a = Audio::default();
        for bus in AudioBus::ALL {
            let v = s.f32_in(bus.key(), VOLUME_RANGE, a.volume(bus));
            *a.volume_mut(bus) = v;
        }
        a.mute_when_unfocused = s.flag("mute_when_unfocused", a.mute_when_unfocused);
        a.unknown = s.rest();
        a
    };
    let hud = {
        let mut s = Section::new(&mut root, "hud", r);
        Hud {
            units: s.parsed("units", units_named).unwrap_or(d.hud.units),
            colour: s.parsed("colour", HudColour::parse).unwrap_or(d.hud.colour),
            ui_scale: s.f32_in("ui_scale", UI_SCALE_RANGE, d.hud.ui_scale),
            unknown: s.rest(),
        }
    };
    let camera = {
        let mut s = Section::new(&mut root, "camera", r);
        Camera {
            fov_deg: s.f64_in("fov_deg", FOV_RANGE_DEG, d.camera.fov_deg),
            unknown: s.rest(),
        }
    };
    let net = {
        let mut s = Section::new(&mut root, "net", r);
        let dn = &d.net;
        let mut n = Net {
            correction_half_life_ms: s.u32_in(
                "correction_half_life_ms",
                net_ranges::CORRECTION_HALF_LIFE_MS,
                dn.correction_half_life_ms,
            ),
            snap_distance_m: s.f64_in(
                "snap_distance_m",
                net_ranges::SNAP_DISTANCE_M,
                dn.snap_distance_m,
            ),
            correction_speed_mps: s.f64_in(
                "correction_speed_mps",
                net_ranges::CORRECTION_SPEED_MPS,
                dn.correction_speed_mps,
            ),
            interp_send_intervals: s.f64_in(
                "interp_send_intervals",
                net_ranges::INTERP_SEND_INTERVALS,
                dn.interp_send_intervals,
            ),
            interp_jitter_multiplier: s.f64_in(
                "interp_jitter_multiplier",
                net_ranges::INTERP_JITTER_MULTIPLIER,
                dn.interp_jitter_multiplier,
            ),
            interp_min_delay_ms: s.u32_in(
                "interp_min_delay_ms",
                net_ranges::INTERP_MIN_DELAY_MS,
                dn.interp_min_delay_ms,
            ),
            interp_max_delay_ms: s.u32_in(
                "interp_max_delay_ms",
                net_ranges::INTERP_MAX_DELAY_MS,
                dn.interp_max_delay_ms,
            ),
            max_extrapolation_ms: s.u32_in(
                "max_extrapolation_ms",
                net_ranges::MAX_EXTRAPOLATION_MS,
                dn.max_extrapolation_ms,
            ),
            unknown: Table::new(),
        };
        if n.interp_max_delay_ms < n.interp_min_delay_ms {
            s.adjusted(
                "interp_max_delay_ms",
                format!(
                    "{} is below interp_min_delay_ms; using {}",
                    n.interp_max_delay_ms, n.interp_min_delay_ms
                ),
            );
            n.interp_max_delay_ms = n.interp_min_delay_ms;
        }
        n.unknown = s.rest();
        n
    };
    let player = {
        let mut s = Section::new(&mut root, "player", r);
        let callsign = match s.text("callsign") {
            Some(c) => {
                let clean = sanitize_callsign(&c);
                if clean != c {
                    s.adjusted(
                        "callsign",
                        format!("was shortened or cleaned to {clean:?} (at most {MAX_CALLSIGN_BYTES} bytes, no control characters)"),
                    );
                }
                clean
            }
            None => d.player.callsign.clone(),
        };
        let recent_servers = match s.texts("recent_servers") {
            Some(list) => {
                // The newest occurrence of each address; blank and absurd ones and the
                // oldest past the limit dropped.
                let before = list.len();
                let mut recent: Vec<String> = Vec::new();
                for a in &list {
                    let Some(a) = usable_address(a) else { continue };
                    if recent.len() == MAX_RECENT_SERVERS {
                        break;
                    }
                    if !recent.iter().any(|r| r == a) {
                        recent.push(a.to_owned());
                    }
                }
                if recent.len() != before {
                    s.adjusted(
                        "recent_servers",
                        format!("kept {} of {before} (blank, repeated, over-long or past the {MAX_RECENT_SERVERS} newest)", recent.len()),
                    );
                }
                recent
            }
            None => Vec::new(),
        };
        let favourite_servers = match s.texts("favourite_servers") {
            Some(list) => {
                let before = list.len();
                let mut favs: Vec<String> = Vec::new();
                for a in &list {
                    let Some(a) = usable_address(a) else { continue };
                    if favs.len() == MAX_FAVOURITE_SERVERS {
                        break;
                    }
                    if !favs.iter().any(|f| f == a) {
                        favs.push(a.to_owned());
                    }
                }
                if favs.len() != before {
                    s.adjusted(
                        "favourite_servers",
                        format!("kept {} of {before} (blank, repeated, over-long or past the first {MAX_FAVOURITE_SERVERS})", favs.len()),
                    );
                }
                favs
            }
            None => Vec::new(),
        };
        Player {
            callsign,
            recent_servers,
            favourite_servers,
            unknown: s.rest(),
        }
    };
    for k in root.keys() {
        if r.unknown.len() < 64 {
            r.unknown.push(k.clone());
        }
    }
    GameSettings {
        graphics,
        audio,
        hud,
        camera,
        net,
        player,
        unknown: root,
    }
}

/// An f32 as the f64 TOML stores, by its shortest decimal form (0.8, not 0.800000011920929).
fn f32_value(v: f32) -> Value {
    Value::Float(v.to_string().parse::<f64>().unwrap_or(f64::from(v)))
}

fn int(v: u32) -> Value {
    Value::Integer(i64::from(v))
}

fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

fn graphics_table(g: &Graphics) -> Table {
    let mut t = g.unknown.clone();
    t.insert("resolution".into(), text(g.resolution.to_string()));
    t.insert("fullscreen".into(), text(g.fullscreen.name()));
    t.insert("vsync".into(), text(g.vsync.name()));
    t.insert("render_scale".into(), f32_value(g.render_scale));
    t.insert("terrain_detail".into(), text(g.terrain_detail.name()));
    t.insert("model_detail".into(), text(g.model_detail.name()));
    t.insert("fps_cap".into(), int(g.fps_cap));
    t
}

fn audio_table(a: &Audio) -> Table {
    let mut t = a.unknown.clone();
    for bus in AudioBus::ALL {
        t.insert(bus.key().into(), f32_value(a.volume(bus)));
    }
    t.insert(
        "mute_when_unfocused".into(),
        Value::Boolean(a.mute_when_unfocused),
    );
    t
}

fn hud_table(h: &Hud) -> Table {
    let mut t = h.unknown.clone();
    t.insert("units".into(), text(units_name(h.units)));
    t.insert("colour".into(), text(h.colour.to_string()));
    t.insert("ui_scale".into(), f32_value(h.ui_scale));
    t
}

fn camera_table(c: &Camera) -> Table {
    let mut t = c.unknown.clone();
    t.insert("fov_deg".into(), Value::Float(c.fov_deg));
    t
}

fn net_table(n: &Net) -> Table {
    let mut t = n.unknown.clone();
    t.insert(
        "correction_half_life_ms".into(),
        int(n.correction_half_life_ms),
    );
    t.insert("snap_distance_m".into(), Value::Float(n.snap_distance_m));
    t.insert(
        "correction_speed_mps".into(),
        Value::Float(n.correction_speed_mps),
    );
    t.insert(
        "interp_send_intervals".into(),
        Value::Float(n.interp_send_intervals),
    );
    t.insert(
        "interp_jitter_multiplier".into(),
        Value::Float(n.interp_jitter_multiplier),
    );
    t.insert("interp_min_delay_ms".into(), int(n.interp_min_delay_ms));
    t.insert("interp_max_delay_ms".into(), int(n.interp_max_delay_ms));
    t.insert("max_extrapolation_ms".into(), int(n.max_extrapolation_ms));
    t
}

fn player_table(p: &Player) -> Table {
    let mut t = p.unknown.clone();
    t.insert("callsign".into(), text(p.callsign.clone()));
    t.insert(
        "recent_servers".into(),
        Value::Array(
            p.recent_servers
                .iter()
                .cloned()
                .map(Value::String)
                .collect(),
        ),
    );
    t.insert(
        "favourite_servers".into(),
        Value::Array(
            p.favourite_servers
                .iter()
                .cloned()
                .map(Value::String)
                .collect(),
        ),
    );
    t
}

impl GameSettings {
    /// The settings as a TOML table (the file's content without its comment header).
    pub fn to_table(&self) -> Table {
        let mut root = self.unknown.clone();
        root.insert(
            "graphics".into(),
            Value::Table(graphics_table(&self.graphics)),
        );
        root.insert("audio".into(), Value::Table(audio_table(&self.audio)));
        root.insert("hud".into(), Value::Table(hud_table(&self.hud)));
        root.insert("camera".into(), Value::Table(camera_table(&self.camera)));
        root.insert("net".into(), Value::Table(net_table(&self.net)));
        root.insert("player".into(), Value::Table(player_table(&self.player)));
        root
    }
}
