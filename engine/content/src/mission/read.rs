//! Reading a mission's tree into [`Mission`]: the format's keys, their units (converted to SI
//! here, once) and the references inside one file (sides, object ids, trigger syntax).
//!
//! Must not: look at the loaded content (that is `validate`).

use super::yaml::{Node, Reader, Value, clean};
use super::*;
/// Longest distance a position may be from its anchor, m (past it a value is a unit mistake).
const MAX_OFFSET_M: f64 = 5_000_000.0;
/// Highest altitude accepted, m.
const MAX_ALT_M: f64 = 100_000.0;
/// Fastest spawn speed accepted, m/s.
const MAX_SPEED_MPS: f64 = 3_000.0;
/// Longest timer, s (a week).
const MAX_TIMER_S: f64 = 7.0 * 86_400.0;

const TOP_KEYS: [&str; 12] = [
    "name",
    "description",
    "map",
    "layer",
    "anchor",
    "time",
    "wind",
    "weather",
    "time_scale",
    "sides",
    "objects",
    "triggers",
];
const OBJECT_KEYS: [&str; 13] = [
    "type", "id", "side", "pos", "lat", "lon", "alt", "heading", "speed", "player", "start", "ai",
    "loadout",
];

/// Reads a mission from its text: structure, values and references inside the file (sides,
/// object ids, trigger syntax). `file` names the findings.
pub fn parse_mission(text: &str, file: &Path) -> MissionCheck {
    let mut r = Reader {
        file,
        findings: Vec::new(),
        errors: 0,
    };
    let mission = parse_into(text, &mut r);
    MissionCheck {
        file: file.to_owned(),
        mission: if r.errors == 0 { mission } else { None },
        findings: r.findings,
    }
}

/// Reads a mission from the file's bytes (at most [`MAX_MISSION_BYTES`], UTF-8).
pub fn parse_mission_bytes(bytes: &[u8], file: &Path) -> MissionCheck {
    let fail = |message: String| MissionCheck {
        file: file.to_owned(),
        mission: None,
        findings: vec![Finding {
            severity: Severity::Error,
            file: file.to_owned(),
            line: 0,
            key: String::new(),
            message,
        }],
    };
    if bytes.len() as u64 > MAX_MISSION_BYTES {
        return fail(format!(
            "the file is {} bytes; a mission may have at most {MAX_MISSION_BYTES}",
            bytes.len()
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => parse_mission(t, file),
        Err(e) => fail(format!(
            "the file is not UTF-8 text (bad byte at offset {})",
            e.valid_up_to()
        )),
    }
}

/// Reads a mission file from disk, bounded (for tools; the game reads through its pack).
pub fn read_mission_file(path: &Path) -> MissionCheck {
    use std::io::Read;
    let fail = |message: String| MissionCheck {
        file: path.to_owned(),
        mission: None,
        findings: vec![Finding {
            severity: Severity::Error,
            file: path.to_owned(),
            line: 0,
            key: String::new(),
            message,
        }],
    };
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot read the file: {e}")),
    };
    if f.metadata().is_ok_and(|m| !m.is_file()) {
        return fail("not a regular file".into());
    }
    let mut bytes = Vec::new();
    if let Err(e) = f.take(MAX_MISSION_BYTES + 1).read_to_end(&mut bytes) {
        return fail(format!("cannot read the file: {e}"));
    }
    parse_mission_bytes(&bytes, path)
}

fn parse_into(text: &str, r: &mut Reader<'_>) -> Option<Mission> {
    if text.len() as u64 > MAX_MISSION_BYTES {
        r.error(
            0,
            "",
            format!(
                "the file is {} bytes; a mission may have at most {MAX_MISSION_BYTES}",
                text.len()
            ),
        );
        return None;
    }
    // YAML 1.2 booleans only: under YAML 1.1 rules the trigger key `on` (and a value `no`) would
    // read as a boolean.
    let mut options = yaml_options();
    options.strict_booleans = true;
    let root: Node = match serde_saphyr::from_str_with_options(text, options) {
        Ok(n) => n,
        Err(e) => {
            let inner = e.without_snippet();
            let message = inner.to_string();
            let message = message.lines().next().unwrap_or("not YAML").trim();
            let line = inner
                .location()
                .map(|l| usize::try_from(l.line()).unwrap_or(0))
                .unwrap_or(0);
            r.error(
                line,
                "",
                format!("not a valid mission YAML: {}", clean(message, 300)),
            );
            return None;
        }
    };
    if matches!(root.value, Value::Null) {
        r.error(
            0,
            "",
            "the file is empty; a mission needs at least `name`".into(),
        );
        return None;
    }
    let f = r.fields(&root, "", &TOP_KEYS, &NOT_YET_TOP)?;
    let get = |k: &str| f.get(k).map(|(_, n)| *n);

    let name = match get("name") {
        Some(n) => r.text(n, "name", 120),
        None => {
            r.error(0, "name", "missing; every mission needs a name".into());
            None
        }
    };
    let description = get("description").and_then(|n| r.text(n, "description", 4_000));
    let map = match get("map") {
        Some(n) => r.text(n, "map", MAX_ID_CHARS),
        None => Some("world".to_owned()),
    };
    let layer = get("layer").and_then(|n| r.text(n, "layer", MAX_ID_CHARS));
    let anchor = match get("anchor") {
        None => {
            r.error(
                0,
                "anchor",
                "missing; name one (anchor: home) or give anchor: { lat, lon }".into(),
            );
            None
        }
        Some(n) => anchor(r, n),
    };
    let time = match get("time") {
        None => Some(MissionTime {
            hour: 12,
            minute: 0,
        }),
        Some(n) => {
            let t = r.fields(n, "time", &["hour", "minute"], &[]);
            t.and_then(|t| {
                let hour = match t.get("hour") {
                    Some((_, h)) => r.int_in(h, "time.hour", 0, 23),
                    None => Some(0),
                };
                let minute = match t.get("minute") {
                    Some((_, m)) => r.int_in(m, "time.minute", 0, 59),
                    None => Some(0),
                };
                Some(MissionTime {
                    hour: u8::try_from(hour?).ok()?,
                    minute: u8::try_from(minute?).ok()?,
                })
            })
        }
    };
    let wind = match get("wind") {
        None => Some(Wind {
            from_heading_rad: 0.0,
            speed_mps: 0.0,
        }),
        Some(n) => r
            .fields(n, "wind", &["heading", "speed"], &[])
            .and_then(|w| {
                let h = match w.get("heading") {
                    Some((_, h)) => r.number_in(h, "wind.heading", 0.0, 360.0, "°"),
                    None => Some(0.0),
                };
                let s = match w.get("speed") {
                    Some((_, s)) => r.number_in(s, "wind.speed", 0.0, 150.0, " m/s"),
                    None => Some(0.0),
                };
                Some(Wind {
                    from_heading_rad: h?.to_radians(),
                    speed_mps: s?,
                })
            }),
    };
    let weather = match get("weather") {
        None => Some(WeatherPreset::Clear),
        Some(n) => r
            .fields(n, "weather", &["preset"], &[])
            .and_then(|w| match w.get("preset") {
                None => Some(WeatherPreset::Clear),
                Some((_, p)) => preset(r, p, "weather.preset"),
            }),
    };
    let time_scale = match get("time_scale") {
        None => Some(1.0),
        Some(n) => r.number_in(n, "time_scale", 0.01, 1000.0, ""),
    };
    let sides = match get("sides") {
        None => {
            r.error(
                0,
                "sides",
                "missing; list the mission's sides (sides: [blue, red])".into(),
            );
            None
        }
        Some(n) => sides(r, n),
    };
    let side_ids: BTreeSet<String> = sides.iter().flatten().map(|s| s.id.clone()).collect();
    let objects = match get("objects") {
        None => {
            r.error(
                0,
                "objects",
                "missing; a mission places at least one object".into(),
            );
            None
        }
        Some(n) => objects(r, n, &side_ids),
    };
    let ids: BTreeSet<&str> = objects.iter().flatten().map(|o| o.id.as_str()).collect();
    let triggers = match get("triggers") {
        None => Some(Vec::new()),
        Some(n) => triggers(r, n, objects.as_ref().map(|_| &ids)),
    };
    Some(Mission {
        name: name?,
        description,
        map: map?,
        layer,
        anchor: anchor?,
        time: time?,
        wind: wind?,
        weather: weather?,
        time_scale: time_scale?,
        sides: sides?,
        objects: objects?,
        triggers: triggers?,
    })
}

fn preset(r: &mut Reader<'_>, n: &Node, key: &str) -> Option<WeatherPreset> {
    let s = r.text(n, key, 64)?;
    let p = WeatherPreset::parse(&s);
    if p.is_none() {
        r.error(
            n.line,
            key,
            format!(
                "unknown preset {s:?}; use one of {}",
                WEATHER_PRESETS.join(", ")
            ),
        );
    }
    p
}

fn anchor(r: &mut Reader<'_>, n: &Node) -> Option<Anchor> {
    if let Value::Str(_) = n.value {
        let name = r.text(n, "anchor", 64)?;
        return match ANCHORS.iter().find(|(a, _, _)| *a == name) {
            Some((a, lat, lon)) => Some(Anchor {
                name: Some((*a).to_owned()),
                lat_deg: *lat,
                lon_deg: *lon,
            }),
            None => {
                let known: Vec<&str> = ANCHORS.iter().map(|a| a.0).collect();
                r.error(
                    n.line,
                    "anchor",
                    format!(
                        "unknown anchor {name:?}; known: {} (or give anchor: {{ lat, lon }})",
                        known.join(", ")
                    ),
                );
                None
            }
        };
    }
    let f = r.fields(n, "anchor", &["lat", "lon"], &[])?;
    let lat = match f.get("lat") {
        Some((_, v)) => r.number_in(v, "anchor.lat", -90.0, 90.0, "°"),
        None => {
            r.error(n.line, "anchor.lat", "missing".into());
            None
        }
    };
    let lon = match f.get("lon") {
        Some((_, v)) => r.number_in(v, "anchor.lon", -180.0, 180.0, "°"),
        None => {
            r.error(n.line, "anchor.lon", "missing".into());
            None
        }
    };
    Some(Anchor {
        name: None,
        lat_deg: lat?,
        lon_deg: lon?,
    })
}

fn sides(r: &mut Reader<'_>, n: &Node) -> Option<Vec<Side>> {
    let Value::Seq(items) = &n.value else {
        r.wrong(n, "sides", "a list");
        return None;
    };
    if items.is_empty() {
        r.error(n.line, "sides", "must name at least one side".into());
        return None;
    }
    let mut out: Vec<Side> = Vec::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate().take(64) {
        let key = format!("sides[{i}]");
        let side = match &item.value {
            Value::Str(_) => r.text(item, &key, 64).map(|id| Side {
                id,
                allies: Vec::new(),
            }),
            Value::Map(_) => r
                .fields(item, &key, &["id", "allies"], &["alert"])
                .and_then(|f| {
                    let id = match f.get("id") {
                        Some((_, v)) => r.text(v, &format!("{key}.id"), 64),
                        None => {
                            r.error(item.line, &format!("{key}.id"), "missing".into());
                            None
                        }
                    };
                    let allies = match f.get("allies") {
                        None => Some(Vec::new()),
                        Some((_, v)) => match &v.value {
                            Value::Seq(a) => a
                                .iter()
                                .enumerate()
                                .map(|(j, x)| r.text(x, &format!("{key}.allies[{j}]"), 64))
                                .collect(),
                            _ => {
                                r.wrong(v, &format!("{key}.allies"), "a list");
                                None
                            }
                        },
                    };
                    Some(Side {
                        id: id?,
                        allies: allies?,
                    })
                }),
            _ => {
                r.wrong(item, &key, "a side id or { id, allies }");
                None
            }
        };
        match side {
            Some(s) if out.iter().any(|o| o.id == s.id) => {
                r.error(item.line, &key, format!("side {:?} listed twice", s.id));
                ok = false;
            }
            Some(s) => out.push(s),
            None => ok = false,
        }
    }
    if items.len() > 64 {
        r.error(
            n.line,
            "sides",
            format!("{} sides; at most 64", items.len()),
        );
        ok = false;
    }
    for (i, s) in out.iter().enumerate() {
        for a in &s.allies {
            if !out.iter().any(|o| &o.id == a) {
                let line = items.get(i).map_or(n.line, |x| x.line);
                r.error(
                    line,
                    &format!("sides[{i}].allies"),
                    format!("{a:?} is not one of the mission's sides"),
                );
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn objects(r: &mut Reader<'_>, n: &Node, sides: &BTreeSet<String>) -> Option<Vec<MissionObject>> {
    let Value::Seq(items) = &n.value else {
        r.wrong(n, "objects", "a list");
        return None;
    };
    if items.is_empty() {
        r.error(n.line, "objects", "must place at least one object".into());
        return None;
    }
    if items.len() > MAX_OBJECTS {
        r.error(
            n.line,
            "objects",
            format!("{} objects; at most {MAX_OBJECTS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        match object(r, item, i, sides) {
            Some(o) => {
                if let Some(first) = seen.get(&o.id) {
                    r.error(
                        item.line,
                        &format!("objects[{i}].id"),
                        format!("duplicate object id {:?} (first at line {first})", o.id),
                    );
                    ok = false;
                } else {
                    seen.insert(o.id.clone(), item.line);
                    out.push(o);
                }
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn object(
    r: &mut Reader<'_>,
    n: &Node,
    i: usize,
    sides: &BTreeSet<String>,
) -> Option<MissionObject> {
    let k = |s: &str| format!("objects[{i}].{s}");
    let f = r.fields(n, &format!("objects[{i}]"), &OBJECT_KEYS, &NOT_YET_OBJECT)?;
    let req = |r: &mut Reader<'_>, key: &str| {
        let v = f.get(key).map(|(_, v)| *v);
        if v.is_none() {
            r.error(n.line, &k(key), "missing".into());
        }
        v
    };
    let type_id = req(r, "type").and_then(|v| r.text(v, &k("type"), MAX_ID_CHARS));
    let id = req(r, "id").and_then(|v| r.text(v, &k("id"), MAX_ID_CHARS));
    let side = req(r, "side").and_then(|v| {
        let s = r.text(v, &k("side"), 64)?;
        if !sides.is_empty() && !sides.contains(&s) {
            r.error(
                v.line,
                &k("side"),
                format!("{s:?} is not one of the mission's sides"),
            );
            return None;
        }
        Some(s)
    });
    let get = |key: &str| f.get(key).map(|(_, v)| *v);
    // Placement: `pos` or `lat`/`lon`.
    let mut pos_alt = None;
    let placement = match (get("pos"), get("lat"), get("lon")) {
        (Some(p), None, None) => match &p.value {
            Value::Seq(xs) if xs.len() == 3 => {
                let e = r.number_in(&xs[0], &k("pos[0]"), -MAX_OFFSET_M, MAX_OFFSET_M, " m");
                let a = r.number_in(&xs[1], &k("pos[1]"), -1_000.0, MAX_ALT_M, " m");
                let no = r.number_in(&xs[2], &k("pos[2]"), -MAX_OFFSET_M, MAX_OFFSET_M, " m");
                pos_alt = a;
                match (e, a, no) {
                    (Some(east_m), Some(_), Some(north_m)) => {
                        Some(Placement::Anchor { east_m, north_m })
                    }
                    _ => None,
                }
            }
            _ => {
                r.error(
                    p.line,
                    &k("pos"),
                    "expected [east, alt, north] (three numbers, metres)".into(),
                );
                None
            }
        },
        (None, Some(la), Some(lo)) => {
            let lat = r.number_in(la, &k("lat"), -90.0, 90.0, "°");
            let lon = r.number_in(lo, &k("lon"), -180.0, 180.0, "°");
            Some(Placement::LatLon {
                lat_deg: lat?,
                lon_deg: lon?,
            })
        }
        (None, None, None) => {
            r.error(
                n.line,
                &k("pos"),
                "missing; give pos: [east, alt, north] or lat/lon".into(),
            );
            None
        }
        (Some(p), _, _) => {
            r.error(
                p.line,
                &k("pos"),
                "give either pos or lat/lon, not both".into(),
            );
            None
        }
        (None, _, _) => {
            r.error(n.line, &k("lat"), "lat and lon go together".into());
            None
        }
    };
    let alt = match get("alt") {
        Some(v) => r.number_in(v, &k("alt"), -1_000.0, MAX_ALT_M, " m"),
        None => Some(pos_alt.unwrap_or(0.0)),
    };
    let heading = match get("heading") {
        Some(v) => r.number_in(v, &k("heading"), -360.0, 360.0, "°"),
        None => Some(0.0),
    };
    let speed = match get("speed") {
        Some(v) => r
            .number_in(v, &k("speed"), 0.0, MAX_SPEED_MPS, " m/s")
            .map(Some),
        None => Some(None),
    };
    let player = match get("player") {
        Some(v) => r.boolean(v, &k("player")),
        None => Some(false),
    };
    let start = match get("start") {
        None => Some(StartKind::Air),
        Some(v) => match r.text(v, &k("start"), 64).as_deref() {
            Some("air") => Some(StartKind::Air),
            Some("ground") => Some(StartKind::Ground),
            Some(other) => {
                r.error(v.line, &k("start"), format!("{other:?}: use ground or air"));
                None
            }
            None => None,
        },
    };
    let ai = match get("ai") {
        None => Some(None),
        Some(v) => ai_spec(r, v, &k("ai")).map(Some),
    };
    if player == Some(true)
        && ai.as_ref().is_some_and(Option::is_some)
        && let Some(v) = get("ai")
    {
        r.warn(
            v.line,
            &k("ai"),
            "ignored on a player slot (a pilot flies it)".into(),
        );
    }
    let loadout = match get("loadout") {
        None => Some(None),
        Some(v) => loadout(r, v, &k("loadout")).map(Some),
    };
    Some(MissionObject {
        id: id?,
        type_id: type_id?,
        side: side?,
        placement: placement?,
        alt_m: alt?,
        heading_rad: heading?.to_radians(),
        speed_mps: speed?,
        player: player?,
        start: start?,
        ai: ai?,
        loadout: loadout?,
        line: n.line,
    })
}

fn ai_spec(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<AiSpec> {
    let line = r.text(v, key, MAX_ID_CHARS)?;
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    if first == "lua" {
        let rest: Vec<&str> = words.collect();
        return match rest.as_slice() {
            [script] => Some(AiSpec::Lua {
                script: script.trim_end_matches(".lua").to_owned(),
            }),
            _ => {
                r.error(
                    v.line,
                    key,
                    format!("{line:?}: write lua <script> (one script name, no .lua)"),
                );
                None
            }
        };
    }
    if !fl_ai::factory::BEHAVIOURS.contains(&first) {
        r.error(
            v.line,
            key,
            format!(
                "unknown controller {first:?}; use lua <script> or one of the builtin behaviours: {}",
                fl_ai::factory::BEHAVIOURS.join(", ")
            ),
        );
        return None;
    }
    // Build it once with fl-ai's own factory (the server builds it the same way), so bad
    // arguments are refused here rather than when the mission starts.
    if let Err(e) =
        fl_ai::factory::build_from_line(&line, &fl_ai::factory::FactoryContext::default())
    {
        r.error(v.line, key, format!("{line:?}: {e}"));
        return None;
    }
    Some(AiSpec::Builtin {
        behaviour: first.to_owned(),
        line,
    })
}

fn loadout(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<Vec<Option<String>>> {
    let Value::Seq(items) = &v.value else {
        r.wrong(v, key, "a list of weapon ids (\"~\" for an empty station)");
        return None;
    };
    if items.len() > 64 {
        r.error(v.line, key, format!("{} stations; at most 64", items.len()));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, x) in items.iter().enumerate() {
        match &x.value {
            Value::Null => out.push(None),
            Value::Str(s) if matches!(s.trim(), "" | "~" | "-") => out.push(None),
            Value::Str(s) => out.push(Some(clean(s, MAX_ID_CHARS))),
            _ => {
                r.wrong(x, &format!("{key}[{i}]"), "a weapon id or \"~\"");
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn triggers(r: &mut Reader<'_>, n: &Node, ids: Option<&BTreeSet<&str>>) -> Option<Vec<Trigger>> {
    let items = match &n.value {
        Value::Seq(items) => items,
        Value::Null => return Some(Vec::new()),
        _ => {
            r.wrong(n, "triggers", "a list");
            return None;
        }
    };
    if items.len() > MAX_TRIGGERS {
        r.error(
            n.line,
            "triggers",
            format!("{} triggers; at most {MAX_TRIGGERS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let key = format!("triggers[{i}]");
        let Some(f) = r.fields(item, &key, &["on", "do"], &[]) else {
            ok = false;
            continue;
        };
        let on = match f.get("on") {
            Some((_, v)) => condition(r, v, &format!("{key}.on"), ids),
            None => {
                r.error(item.line, &format!("{key}.on"), "missing".into());
                None
            }
        };
        let action = match f.get("do") {
            Some((_, v)) => action(r, v, &format!("{key}.do")),
            None => {
                r.error(item.line, &format!("{key}.do"), "missing".into());
                None
            }
        };
        match (on, action) {
            (Some(on), Some(action)) => out.push(Trigger {
                on,
                action,
                line: item.line,
            }),
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// `name(arg)` → `(name, Some(arg))`; `name` → `(name, None)`; anything else `None`.
fn call(s: &str) -> Option<(&str, Option<&str>)> {
    let s = s.trim();
    match s.split_once('(') {
        None => Some((s, None)),
        Some((name, rest)) => {
            let arg = rest.strip_suffix(')')?;
            if arg.contains(['(', ')']) {
                return None;
            }
            Some((name.trim(), Some(arg.trim())))
        }
    }
}

fn condition(
    r: &mut Reader<'_>,
    v: &Node,
    key: &str,
    ids: Option<&BTreeSet<&str>>,
) -> Option<Condition> {
    let text = r.text(v, key, MAX_ID_CHARS)?;
    let bad = |r: &mut Reader<'_>, why: &str| {
        r.error(
            v.line,
            key,
            format!(
                "{text:?}: {why}; conditions are destroy(<object id>), timer(<seconds>) and mission_start"
            ),
        );
        None
    };
    match call(&text) {
        Some(("destroy", Some(id))) if !id.is_empty() => {
            if let Some(ids) = ids
                && !ids.contains(id)
            {
                r.error(
                    v.line,
                    key,
                    format!("destroy({id}): no object has the id {id:?}"),
                );
                return None;
            }
            Some(Condition::Destroy(id.to_owned()))
        }
        Some(("timer", Some(s))) => match s.parse::<f64>() {
            Ok(t) if t.is_finite() && (0.0..=MAX_TIMER_S).contains(&t) => Some(Condition::Timer(t)),
            _ => bad(r, "timer takes a number of seconds (0 to a week)"),
        },
        Some(("mission_start", None)) => Some(Condition::MissionStart),
        Some(("destroy" | "timer", _)) => bad(r, "missing argument"),
        _ => bad(r, "not a condition"),
    }
}

fn action(r: &mut Reader<'_>, v: &Node, key: &str) -> Option<Action> {
    let text = r.text(v, key, MAX_ID_CHARS)?;
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    let rest: Vec<&str> = words.collect();
    match (first, rest.as_slice()) {
        ("mission_success", []) => Some(Action::MissionSuccess),
        ("mission_failure", []) => Some(Action::MissionFailure),
        ("set_weather", [p]) => match WeatherPreset::parse(p) {
            Some(p) => Some(Action::SetWeather(p)),
            None => {
                r.error(
                    v.line,
                    key,
                    format!(
                        "set_weather {p}: unknown preset; use one of {}",
                        WEATHER_PRESETS.join(", ")
                    ),
                );
                None
            }
        },
        ("set_time", [h]) => match h.parse::<f64>() {
            Ok(h) if h.is_finite() && (0.0..=24.0).contains(&h) => {
                Some(Action::SetTime(h * 3600.0))
            }
            _ => {
                r.error(v.line, key, format!("set_time {h}: give hours, 0 to 24"));
                None
            }
        },
        _ => {
            r.error(
                v.line,
                key,
                format!(
                    "{text:?}: not an action; actions are mission_success, mission_failure, \
                     set_weather <preset> and set_time <hours>"
                ),
            );
            None
        }
    }
}
