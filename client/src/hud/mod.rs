//! The flight HUD, drawn with an egui `Painter` from one [`Reading`] plus a few numbers the game
//! keeps ([`HudExtras`]) and the player's [`HudSettings`]. A pure function of its inputs: no
//! clock, no globals, no blinking — the same inputs give the same image (golden-tested).
//!
//! What is drawn and where (docs/hud.md): the pitch ladder and horizon through the 3D camera's
//! projection ([`projection`]), the flight-path marker, the boresight, the heading tape with the
//! track caret (top), IAS and Mach, G, max G, AoA and throttle (left), altitude, radar altitude,
//! vertical speed, fuel, bingo and gear/flaps/speedbrake (right), warnings (centre, below the
//! boresight), ping/loss and the server-throttle flag (top left), notices and the MOTD (bottom).
//! Every line and glyph has a dark outline ([`canvas`]).

pub mod canvas;
pub mod combat;
pub mod cues;
pub mod projection;
pub mod scopes;
pub mod units;

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, pos2, vec2};

use crate::instruments::Reading;
use canvas::Canvas;
use projection::Projection;
pub use units::{AoaBand, Units, aoa_band};

/// HUD green.
pub const GREEN: Color32 = Color32::from_rgb(90, 255, 120);
/// Caution: AoA near the stall, bingo fuel, the server throttling, gear in transit.
pub const AMBER: Color32 = Color32::from_rgb(255, 190, 40);
/// Warning: stall, overspeed, over-G, AoA at the stall warning.
pub const RED: Color32 = Color32::from_rgb(255, 72, 60);
/// Server notices and the MOTD: not symbology, so not green.
pub const NOTICE: Color32 = Color32::from_rgb(235, 240, 235);

/// Notice lines shown at most (the newest).
pub const MAX_NOTICE_LINES: usize = 3;
/// Characters of a notice or MOTD line shown at most.
pub const MAX_LINE_CHARS: usize = 80;
/// Radio subtitles shown at once.
pub const MAX_RADIO_LINES: usize = 3;
/// Characters in one line of a radio subtitle at most (narrower screens wrap sooner).
const MAX_RADIO_CHARS: usize = 72;
/// Screen lines one radio subtitle may take.
const MAX_RADIO_WRAP: usize = 3;
/// Radio subtitles' colour: set apart from the symbology and the server's notices.
pub const RADIO: Color32 = Color32::from_rgb(150, 215, 255);
/// Pitch-ladder spacing, degrees.
pub const LADDER_STEP_DEG: i32 = 5;

/// What the HUD shows beside the instruments: kept by the game (the flight's record, the
/// session), plain data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HudExtras {
    /// Highest load factor of this flight, g.
    pub max_g: f64,
    /// Fuel at which to head home, kg (0: no bingo set).
    pub bingo_fuel_kg: f64,
    /// Round-trip time to the server, ms (`None` in single player or before the first ping).
    pub ping_ms: Option<f64>,
    /// Packet loss, percent.
    pub loss_percent: Option<f64>,
    /// The server asked this client to send less (its throttle flag).
    pub server_throttled: bool,
    /// Server notices, oldest first (the newest [`MAX_NOTICE_LINES`] are shown).
    pub notices: Vec<String>,
    /// The server's message of the day.
    pub motd: Option<String>,
    /// Weapon symbology (none drawn when `None`).
    pub combat: Option<combat::CombatCues>,
    /// The radar B-scope and the RWR (not drawn when `None`).
    pub scopes: Option<scopes::Scopes>,
    /// The mission's next open objective (top left), when a mission runs.
    pub objective: Option<String>,
    /// Radio subtitles up now, oldest first, as (speaker, text); the newest
    /// [`MAX_RADIO_LINES`] are shown above the notices.
    pub radio: Vec<(String, String)>,
}

/// The player's HUD settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HudSettings {
    /// Knots and feet, or metric.
    pub units: Units,
    /// Size of the symbology and text relative to the default (1).
    pub ui_scale: f32,
    /// The 3D camera's vertical field of view, degrees: the ladder and the marker are drawn
    /// through the same projection.
    pub vertical_fov_deg: f64,
    /// The symbology's colour ([`GREEN`] by default); caution and warning keep [`AMBER`] and
    /// [`RED`].
    pub colour: Color32,
}

impl Default for HudSettings {
    fn default() -> Self {
        HudSettings {
            units: Units::Imperial,
            ui_scale: 1.0,
            vertical_fov_deg: 60.0,
            colour: GREEN,
        }
    }
}

/// Sizes of one frame's HUD, from the screen and the settings.
#[derive(Debug, Clone, Copy)]
struct Metrics {
    screen: Rect,
    centre: Pos2,
    /// Design unit: one pixel of a 1080-line screen at UI scale 1. Grows more slowly than the
    /// screen (power 0.6) so the text stays legible in a small window and not huge in a big one.
    u: f32,
    font: f32,
    small: f32,
    big: f32,
    row: f32,
    /// The symbology's colour.
    colour: Color32,
}

impl Metrics {
    fn new(screen: Rect, settings: &HudSettings) -> Metrics {
        let scale = if settings.ui_scale.is_finite() {
            settings.ui_scale.clamp(0.25, 4.0)
        } else {
            1.0
        };
        let h = screen.height().max(1.0);
        let u = (h / 1080.0).powf(0.6) * scale;
        let font = 24.0 * u;
        Metrics {
            screen,
            centre: screen.center(),
            u,
            font,
            small: 20.0 * u,
            big: 28.0 * u,
            row: 1.4 * font,
            colour: settings.colour,
        }
    }

    fn mono(&self, size: f32) -> FontId {
        FontId::monospace(size)
    }
}

/// Draws the HUD for `reading` over `screen` (points) with `painter`.
pub fn draw(
    painter: &Painter,
    screen: Rect,
    reading: &Reading,
    extras: &HudExtras,
    settings: &HudSettings,
) {
    if !(screen.is_finite() && screen.width() >= 1.0 && screen.height() >= 1.0) {
        return;
    }
    let m = Metrics::new(screen, settings);
    let px = 1.0 / painter.pixels_per_point().max(0.01);
    let line = (2.0 * m.u).max(px);
    let outline = (1.5 * m.u).max(px);

    let tape_bottom = heading_tape_bottom(&m);
    let glass = glass_rect(&m, tape_bottom);
    let proj = Projection::new(screen, settings.vertical_fov_deg, reading.roll_rad);

    let clipped = painter.with_clip_rect(glass);
    let mut ladder = Canvas::new(&clipped, line, outline);
    draw_ladder(&mut ladder, &m, &proj, reading.pitch_rad);
    ladder.finish();

    let mut c = Canvas::new(painter, line, outline);
    draw_boresight(&mut c, &m);
    if let Some((right, up)) = reading.flight_path_rad {
        draw_flight_path_marker(&mut c, &m, &proj, glass, right, up);
    }
    draw_heading_tape(&mut c, &m, reading);
    draw_left_column(&mut c, &m, reading, extras, settings.units);
    draw_right_column(&mut c, &m, reading, extras, settings.units);
    if let Some(s) = &extras.scopes {
        scopes::draw(&mut c, &m, s);
    }
    if let Some(cues) = &extras.combat {
        combat::draw(&mut c, &m, &proj, glass, cues, settings.units);
    }
    draw_warnings(&mut c, &m, reading);
    draw_link(&mut c, &m, extras);
    draw_messages(&mut c, &m, extras);
    draw_objective(&mut c, &m, extras);
    c.finish();
}

/// Where the heading tape's labels end.
fn heading_tape_bottom(m: &Metrics) -> f32 {
    let (_, baseline) = heading_tape_rows(m);
    baseline + 14.0 * m.u + m.small + 4.0 * m.u
}

/// The heading box's centre row and the tape's tick baseline.
fn heading_tape_rows(m: &Metrics) -> (f32, f32) {
    let box_h = m.font + 6.0 * m.u;
    let y_box = m.screen.top() + 6.0 * m.u + 0.5 * box_h;
    (y_box, y_box + 0.5 * box_h + 10.0 * m.u)
}

/// Left and right column centres (their distance from the centre).
fn column_offset(m: &Metrics) -> f32 {
    (0.42 * m.screen.height()).min(0.5 * m.screen.width() - 45.0 * m.u)
}

/// The area the ladder and the flight-path marker may use: between the columns, under the
/// heading tape.
fn glass_rect(m: &Metrics, top: f32) -> Rect {
    let half_w = (column_offset(m) - 48.0 * m.u).max(20.0 * m.u);
    Rect::from_min_max(
        pos2(m.centre.x - half_w, top),
        pos2(
            m.centre.x + half_w,
            m.screen.bottom() - 2.0 * m.row - 8.0 * m.u,
        ),
    )
}

fn draw_ladder(c: &mut Canvas<'_>, m: &Metrics, proj: &Projection, pitch_rad: f64) {
    let u = m.u;
    let inner = 30.0 * u;
    let outer = 95.0 * u;
    let tick = 10.0 * u;
    let axis = proj.rung_axis();
    let up = proj.ladder_up();
    // The text turns with the ladder (egui's angle is clockwise on the screen).
    let angle = -proj.roll_rad as f32;
    let font = m.mono(m.small);
    for deg in (-90i32..=90).step_by(LADDER_STEP_DEG as usize) {
        let line = f64::from(deg).to_radians();
        let Some(mid) = proj.rung_centre(line, pitch_rad) else {
            continue;
        };
        // Far outside the screen: not drawn (the clip would hide it anyway).
        if (mid - m.centre).length() > 2.0 * m.screen.size().max_elem() {
            continue;
        }
        if deg == 0 {
            // The horizon: long, with the same gap as the rungs around the boresight.
            for side in [-1.0f32, 1.0] {
                c.line(
                    mid + axis * side * inner,
                    mid + axis * side * 4.0 * outer,
                    m.colour,
                );
            }
            continue;
        }
        // End ticks point towards the horizon.
        let towards_horizon = up * if deg > 0 { -tick } else { tick };
        let label = deg.abs().to_string();
        for side in [-1.0f32, 1.0] {
            let a = mid + axis * side * inner;
            let b = mid + axis * side * outer;
            if deg > 0 {
                c.polyline(&[a, b, b + towards_horizon], m.colour);
            } else {
                c.dashed(a, b, 3, m.colour);
                c.line(b, b + towards_horizon, m.colour);
            }
            let anchor = if side > 0.0 {
                Align2::LEFT_CENTER
            } else {
                Align2::RIGHT_CENTER
            };
            c.text(
                b + axis * side * 8.0 * u,
                anchor,
                &label,
                font.clone(),
                m.colour,
                angle,
            );
        }
    }
}

fn draw_boresight(c: &mut Canvas<'_>, m: &Metrics) {
    let u = m.u;
    let o = m.centre;
    // The waterline: where the nose points, a "W" whose middle peak is the boresight.
    c.polyline(
        &[
            o + vec2(-30.0 * u, 0.0),
            o + vec2(-15.0 * u, 0.0),
            o + vec2(-7.5 * u, 9.0 * u),
            o,
            o + vec2(7.5 * u, 9.0 * u),
            o + vec2(15.0 * u, 0.0),
            o + vec2(30.0 * u, 0.0),
        ],
        m.colour,
    );
}

fn draw_flight_path_marker(
    c: &mut Canvas<'_>,
    m: &Metrics,
    proj: &Projection,
    glass: Rect,
    right: f64,
    up: f64,
) {
    let u = m.u;
    let r = 7.0 * u;
    let Some(p) = proj.flight_path(right, up) else {
        return;
    };
    // Outside the glass the marker stops at its edge and is crossed out (a limited marker:
    // it no longer shows where the aircraft goes).
    let limit = glass.shrink(20.0 * u);
    let q = limit.clamp(p);
    let limited = q != p;
    c.circle(q, r, m.colour);
    c.line(q + vec2(-r, 0.0), q + vec2(-r - 12.0 * u, 0.0), m.colour);
    c.line(q + vec2(r, 0.0), q + vec2(r + 12.0 * u, 0.0), m.colour);
    c.line(q + vec2(0.0, -r), q + vec2(0.0, -r - 8.0 * u), m.colour);
    if limited {
        let d = r * std::f32::consts::FRAC_1_SQRT_2;
        c.line(q + vec2(-d, -d), q + vec2(d, d), m.colour);
        c.line(q + vec2(-d, d), q + vec2(d, -d), m.colour);
    }
}

/// `a − b` in degrees, wrapped to (−180, 180].
fn wrap_deg(d: f64) -> f64 {
    let w = d.rem_euclid(360.0);
    if w > 180.0 { w - 360.0 } else { w }
}

fn draw_heading_tape(c: &mut Canvas<'_>, m: &Metrics, r: &Reading) {
    let u = m.u;
    let (y_box, y_b) = heading_tape_rows(m);
    let heading = if r.heading_rad.is_finite() {
        r.heading_rad.to_degrees().rem_euclid(360.0)
    } else {
        0.0
    };
    let per_deg = 5.2 * u;
    let half_w = (150.0 * u).min(0.4 * m.screen.width());
    let span = f64::from(half_w / per_deg);
    let x_of = |d: f64| m.centre.x + (wrap_deg(d - heading) as f32) * per_deg;

    // The heading box and the index under it.
    let text = format!("{:03}", (heading.round() as i64).rem_euclid(360));
    let box_size = vec2(3.0 * 0.62 * m.font + 10.0 * u, m.font + 6.0 * u);
    c.frame(pos2(m.centre.x, y_box), box_size, m.colour);
    c.text(
        pos2(m.centre.x, y_box),
        Align2::CENTER_CENTER,
        &text,
        m.mono(m.font),
        m.colour,
        0.0,
    );
    c.line(
        pos2(m.centre.x, y_box + 0.5 * box_size.y),
        pos2(m.centre.x, y_b),
        m.colour,
    );

    let first = ((heading - span) / 5.0).ceil() as i64;
    let last = ((heading + span) / 5.0).floor() as i64;
    let font = m.mono(m.small);
    for k in first..=last {
        let d = (k * 5) as f64;
        let x = x_of(d);
        let major = k.rem_euclid(2) == 0;
        let len = if major { 12.0 * u } else { 6.0 * u };
        c.line(pos2(x, y_b), pos2(x, y_b + len), m.colour);
        if major {
            let label = format!("{:02}", (k * 5).rem_euclid(360) / 10);
            c.text(
                pos2(x, y_b + 14.0 * u),
                Align2::CENTER_TOP,
                &label,
                font.clone(),
                m.colour,
                0.0,
            );
        }
    }
    // The track caret: a small open triangle on the tape where the aircraft goes over the ground.
    if r.track_rad.is_finite() {
        let off =
            (wrap_deg(r.track_rad.to_degrees() - heading) as f32 * per_deg).clamp(-half_w, half_w);
        let x = m.centre.x + off;
        c.closed(
            &[
                pos2(x - 5.0 * u, y_b - 9.0 * u),
                pos2(x + 5.0 * u, y_b - 9.0 * u),
                pos2(x, y_b - 1.0 * u),
            ],
            m.colour,
        );
    }
}

/// Row `k` of a column (0 = the boxes' row, at the screen centre).
fn row_y(m: &Metrics, k: f32) -> f32 {
    m.centre.y + k * m.row
}

/// A boxed number with its unit above it.
fn boxed(c: &mut Canvas<'_>, m: &Metrics, x: f32, unit: &str, value: &str, chars: usize) {
    let u = m.u;
    let size = vec2(chars as f32 * 0.62 * m.font + 10.0 * u, m.font + 6.0 * u);
    let y = row_y(m, 0.0);
    c.frame(pos2(x, y), size, m.colour);
    c.text(
        pos2(x, y),
        Align2::CENTER_CENTER,
        value,
        m.mono(m.font),
        m.colour,
        0.0,
    );
    c.text(
        pos2(x, y - 0.5 * size.y - 2.0 * u),
        Align2::CENTER_BOTTOM,
        unit,
        m.mono(m.small),
        m.colour,
        0.0,
    );
}

fn row_text(c: &mut Canvas<'_>, m: &Metrics, x: f32, k: f32, text: &str, colour: Color32) {
    c.text(
        pos2(x, row_y(m, k)),
        Align2::CENTER_CENTER,
        text,
        m.mono(m.font),
        colour,
        0.0,
    );
}

fn draw_left_column(
    c: &mut Canvas<'_>,
    m: &Metrics,
    r: &Reading,
    extras: &HudExtras,
    units: Units,
) {
    let x = m.centre.x - column_offset(m);
    row_text(
        c,
        m,
        x,
        -3.5,
        &format!("G {}", units::fixed(r.g, 1)),
        m.colour,
    );
    row_text(
        c,
        m,
        x,
        -2.5,
        &format!("MAX {}", units::fixed(extras.max_g, 1)),
        m.colour,
    );
    boxed(
        c,
        m,
        x,
        units.speed_label(),
        &units.speed_text(r.ias_mps),
        4,
    );
    row_text(
        c,
        m,
        x,
        1.0,
        &format!("M {}", units::fixed(r.mach, 2)),
        m.colour,
    );
    let (aoa_text, aoa_colour) = match r.aoa_rad {
        Some(a) => {
            let colour = match aoa_band(r.stall_fraction) {
                AoaBand::Normal => m.colour,
                AoaBand::Caution => AMBER,
                AoaBand::Warning => RED,
            };
            (format!("AOA {}", units::fixed(a.to_degrees(), 1)), colour)
        }
        None => ("AOA ---".to_string(), m.colour),
    };
    row_text(c, m, x, 2.0, &aoa_text, aoa_colour);
    let throttle = if r.throttle.is_finite() {
        (r.throttle.clamp(0.0, 1.0) * 100.0).round() as i64
    } else {
        0
    };
    row_text(c, m, x, 3.0, &format!("THR {throttle}%"), m.colour);
    if r.afterburner {
        row_text(c, m, x, 4.0, "AB", m.colour);
    }
}

/// "DN", "UP" or the position in percent while moving.
fn gear_text(gear: f64, normal: Color32) -> Option<(String, Color32)> {
    if !gear.is_finite() {
        return Some(("GEAR ---".into(), AMBER));
    }
    if gear <= 0.001 {
        None // stowed: decluttered
    } else if gear >= 0.999 {
        Some(("GEAR DN".into(), normal))
    } else {
        Some(("GEAR TRN".into(), AMBER))
    }
}

fn percent_text(name: &str, v: f64) -> Option<String> {
    if !v.is_finite() {
        return Some(format!("{name} ---"));
    }
    let p = (v.clamp(0.0, 1.0) * 100.0).round() as i64;
    (p > 0).then(|| format!("{name} {p}%"))
}

fn draw_right_column(
    c: &mut Canvas<'_>,
    m: &Metrics,
    r: &Reading,
    extras: &HudExtras,
    units: Units,
) {
    let x = m.centre.x + column_offset(m);
    row_text(c, m, x, -3.5, &units.fuel_text(r.fuel_kg), m.colour);
    let bingo = extras.bingo_fuel_kg > 0.0 && r.fuel_kg <= extras.bingo_fuel_kg;
    if bingo {
        row_text(c, m, x, -2.5, "BINGO", AMBER);
    }
    boxed(
        c,
        m,
        x,
        units.altitude_label(),
        &units.altitude_text(r.altitude_m),
        5,
    );
    if let Some(ra) = r.radar_altitude_m {
        row_text(
            c,
            m,
            x,
            1.0,
            &format!("R {}", units.altitude_text(ra)),
            m.colour,
        );
    }
    row_text(
        c,
        m,
        x,
        2.0,
        &units.vertical_speed_text(r.vertical_speed_mps),
        m.colour,
    );
    let mut k = 3.0;
    if let Some((t, colour)) = gear_text(r.gear, m.colour) {
        row_text(c, m, x, k, &t, colour);
        k += 1.0;
    }
    for (name, v) in [("FLAPS", r.flaps), ("SPDBRK", r.speedbrake)] {
        if let Some(t) = percent_text(name, v) {
            row_text(c, m, x, k, &t, m.colour);
            k += 1.0;
        }
    }
}

fn draw_warnings(c: &mut Canvas<'_>, m: &Metrics, r: &Reading) {
    let u = m.u;
    let mut y = m.centre.y + 0.16 * m.screen.height();
    for (on, text) in [
        (r.stall_warning, "STALL"),
        (r.overspeed, "OVERSPEED"),
        (r.over_g, "OVER-G"),
    ] {
        if !on {
            continue;
        }
        let pos = pos2(m.centre.x, y);
        let size = c.text(pos, Align2::CENTER_CENTER, text, m.mono(m.big), RED, 0.0);
        c.frame(pos, size + vec2(10.0 * u, 4.0 * u), RED);
        y += size.y + 10.0 * u;
    }
}

fn draw_link(c: &mut Canvas<'_>, m: &Metrics, extras: &HudExtras) {
    let u = m.u;
    let mut y = m.screen.top() + 6.0 * u;
    let x = m.screen.left() + 8.0 * u;
    let mut parts = Vec::new();
    if let Some(p) = extras.ping_ms {
        parts.push(format!("PING {}", units::fixed(p, 0)));
    }
    if let Some(l) = extras.loss_percent {
        parts.push(format!("LOSS {}%", units::fixed(l, 1)));
    }
    if !parts.is_empty() {
        let size = c.text(
            pos2(x, y),
            Align2::LEFT_TOP,
            &parts.join(" "),
            m.mono(m.small),
            m.colour,
            0.0,
        );
        y += size.y + 3.0 * u;
    }
    if extras.server_throttled {
        c.text(
            pos2(x, y),
            Align2::LEFT_TOP,
            "SRV THROTTLE",
            m.mono(m.small),
            AMBER,
            0.0,
        );
    }
}

/// A server-supplied line made safe to draw: control characters dropped, at most
/// [`MAX_LINE_CHARS`] characters.
pub fn clean_line(s: &str) -> String {
    let mut out: String = s
        .chars()
        .filter(|ch| !ch.is_control())
        .take(MAX_LINE_CHARS + 1)
        .collect();
    if out.chars().count() > MAX_LINE_CHARS {
        out = out.chars().take(MAX_LINE_CHARS - 3).collect();
        out.push_str("...");
    }
    out
}

fn draw_messages(c: &mut Canvas<'_>, m: &Metrics, extras: &HudExtras) {
    let u = m.u;
    let mut lines: Vec<String> = Vec::new();
    let skip = extras.notices.len().saturating_sub(MAX_NOTICE_LINES);
    lines.extend(extras.notices.iter().skip(skip).map(|s| clean_line(s)));
    if let Some(motd) = &extras.motd {
        lines.push(clean_line(motd));
    }
    let mut y = m.screen.bottom() - 4.0 * u;
    for line in lines.iter().rev().filter(|l| !l.trim().is_empty()) {
        let size = c.text(
            pos2(m.centre.x, y),
            Align2::CENTER_BOTTOM,
            line,
            m.mono(m.small),
            NOTICE,
            0.0,
        );
        y -= size.y + 2.0 * u;
    }
    // Radio subtitles above the notices, newest lowest, each wrapped to the screen's width
    // (a monospace glyph is about 0.6 of the font size wide).
    let width_chars = ((m.screen.width() - 16.0 * u) / (0.6 * m.font))
        .floor()
        .max(16.0) as usize;
    let skip = extras.radio.len().saturating_sub(MAX_RADIO_LINES);
    for (speaker, text) in extras.radio.iter().skip(skip).rev() {
        let speaker = clean_line(speaker);
        let text: String = text
            .chars()
            .filter(|ch| !ch.is_control())
            .take(400)
            .collect();
        let full = if speaker.trim().is_empty() {
            text
        } else {
            format!("{speaker}: {text}")
        };
        for line in wrap_words(&full, width_chars.min(MAX_RADIO_CHARS))
            .iter()
            .rev()
        {
            let size = c.text(
                pos2(m.centre.x, y),
                Align2::CENTER_BOTTOM,
                line,
                m.mono(m.font),
                RADIO,
                0.0,
            );
            y -= size.y + 2.0 * u;
        }
    }
}

/// `text` in lines of at most `width` characters, broken between words (a word longer than a
/// line is cut); at most [`MAX_RADIO_WRAP`] lines, the last ending in "..." when text is left.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(4);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.peek().copied() {
        let len = cur.chars().count();
        let wlen = word.chars().count();
        if len == 0 && wlen > width {
            lines.push(word.chars().take(width).collect());
            words.next();
        } else if len == 0 {
            cur.push_str(word);
            words.next();
        } else if len + 1 + wlen <= width {
            cur.push(' ');
            cur.push_str(word);
            words.next();
        } else {
            lines.push(std::mem::take(&mut cur));
        }
        if lines.len() == MAX_RADIO_WRAP {
            if (words.peek().is_some() || !cur.is_empty())
                && let Some(last) = lines.last_mut()
            {
                let keep: String = last.chars().take(width.saturating_sub(3)).collect();
                *last = keep + "...";
            }
            return lines;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The mission's next objective, top left (clear of the heading tape and the columns).
fn draw_objective(c: &mut Canvas<'_>, m: &Metrics, extras: &HudExtras) {
    let Some(line) = extras.objective.as_deref().map(clean_line) else {
        return;
    };
    if line.trim().is_empty() {
        return;
    }
    c.text(
        pos2(m.screen.left() + 8.0 * m.u, m.screen.top() + 6.0 * m.u),
        Align2::LEFT_TOP,
        &line,
        m.mono(m.small),
        m.colour,
        0.0,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_lines_are_bounded_and_free_of_control_characters() {
        assert_eq!(clean_line("a\u{7}b\nc"), "abc");
        let long = "x".repeat(10_000);
        let c = clean_line(&long);
        assert_eq!(c.chars().count(), MAX_LINE_CHARS);
        assert!(c.ends_with("..."));
        assert_eq!(
            clean_line(&"y".repeat(MAX_LINE_CHARS)).len(),
            MAX_LINE_CHARS
        );
    }

    #[test]
    fn radio_lines_wrap_between_words_and_are_bounded() {
        assert_eq!(
            wrap_words("drone: Range control: drone is up, orbiting left.", 20),
            ["drone: Range", "control: drone is", "up, orbiting left."]
        );
        assert_eq!(wrap_words("abcdefghijkl x", 5), ["abcde", "x"]);
        let long = wrap_words(&"word ".repeat(100), 12);
        assert_eq!(long.len(), MAX_RADIO_WRAP);
        assert!(
            long[2].ends_with("...") && long[2].chars().count() <= 12,
            "{long:?}"
        );
        assert!(wrap_words("   ", 10).is_empty());
        assert_eq!(wrap_words("exact fit", 9), ["exact fit"]);
    }

    #[test]
    fn headings_wrap_the_short_way() {
        assert_eq!(wrap_deg(350.0 - 10.0), -20.0);
        assert_eq!(wrap_deg(10.0 - 350.0), 20.0);
        assert_eq!(wrap_deg(-180.0), 180.0);
        assert_eq!(wrap_deg(0.0), 0.0);
    }

    fn reading(v: f64) -> Reading {
        Reading {
            ias_mps: v,
            tas_mps: v,
            mach: v,
            ground_speed_mps: v,
            altitude_m: v,
            radar_altitude_m: Some(v),
            vertical_speed_mps: v,
            g: v,
            aoa_rad: Some(v),
            stall_fraction: v,
            heading_rad: v,
            pitch_rad: v,
            roll_rad: v,
            track_rad: v,
            flight_path_rad: Some((v, v)),
            fuel_kg: v,
            fuel_fraction: v,
            throttle: v,
            afterburner: true,
            gear: v,
            flaps: v,
            speedbrake: v,
            on_ground: false,
            stall_warning: true,
            overspeed: true,
            over_g: true,
        }
    }

    /// The shapes `draw` emits for one frame, without a GPU.
    fn shapes(screen: Rect, r: &Reading, extras: &HudExtras, settings: &HudSettings) -> usize {
        let ctx = egui::Context::default();
        // egui's own screen stays sane; only the HUD is handed `screen`.
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(480.0, 270.0))),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| draw(ui.painter(), screen, r, extras, settings));
        let n = out.shapes.len();
        out.drop_without_applying_deltas();
        n
    }

    #[test]
    fn hostile_readings_and_screens_draw_without_panicking() {
        let screen = Rect::from_min_size(Pos2::ZERO, vec2(480.0, 270.0));
        let extras = HudExtras {
            max_g: f64::NAN,
            bingo_fuel_kg: f64::INFINITY,
            ping_ms: Some(f64::NAN),
            loss_percent: Some(-1e300),
            server_throttled: true,
            notices: vec!["\u{1b}[2J".repeat(10_000); 100],
            motd: Some("m".repeat(1 << 16)),
            objective: Some("\u{7}".repeat(1 << 16)),
            radio: vec![("\n".repeat(1000), "r".repeat(1 << 16)); 1000],
            combat: Some(combat::CombatCues {
                weapon: Some(combat::WeaponStatus {
                    label: "\u{7}".repeat(1 << 16),
                    count: u32::MAX,
                    detail: "\u{7}".repeat(1 << 16),
                }),
                gun: Some(combat::GunCue {
                    right_rad: f64::NAN,
                    up_rad: f64::INFINITY,
                    range_m: -1.0,
                }),
                target: Some(combat::TargetCue {
                    right_rad: 4.0,
                    up_rad: f64::NAN,
                    range_m: f64::INFINITY,
                    closure_mps: f64::NAN,
                    locked: false,
                }),
                seeker: Some(combat::SeekerCue {
                    right_rad: 1e300,
                    up_rad: -1e300,
                    tracking: true,
                }),
                envelope: Some(combat::Envelope {
                    min_m: f64::NAN,
                    no_escape_m: -5.0,
                    max_m: 1e300,
                    range_m: f64::NEG_INFINITY,
                }),
                feed: vec!["x".repeat(1 << 16); 1000],
                message: Some("\n".repeat(1000)),
            }),
            scopes: Some(scopes::Scopes {
                contacts: vec![
                    scopes::ScopeContact {
                        azimuth_rad: f64::NAN,
                        range_m: f64::INFINITY,
                        ident: scopes::Ident::Foe,
                        locked: true,
                        coasting: true,
                        heading_rad: Some(f64::NAN),
                    };
                    10_000
                ],
                strobes: vec![
                    scopes::RwrStrobe {
                        bearing_rad: f64::INFINITY,
                        level: scopes::StrobeLevel::Launch,
                        channel: '\u{0}',
                        ident: scopes::Ident::Friend,
                    };
                    10_000
                ],
                radar_mode: "\u{1b}".repeat(1 << 16),
            }),
        };
        let settings = HudSettings {
            units: Units::Metric,
            ui_scale: f32::NAN,
            vertical_fov_deg: f64::INFINITY,
            ..HudSettings::default()
        };
        for v in [f64::NAN, f64::INFINITY, -1e300, 1e300, 0.0] {
            assert!(shapes(screen, &reading(v), &extras, &settings) > 0);
        }
        // Degenerate screens draw nothing rather than panic.
        for bad in [
            Rect::NOTHING,
            Rect::from_min_size(Pos2::ZERO, vec2(0.0, 0.0)),
            Rect::from_min_size(Pos2::ZERO, vec2(f32::NAN, 10.0)),
        ] {
            assert_eq!(shapes(bad, &reading(1.0), &extras, &settings), 0);
        }
    }

    /// Every shape drawn, as text (the shapes' colours appear in it as `Color32`'s Debug).
    fn drawn(settings: &HudSettings) -> String {
        let ctx = egui::Context::default();
        let screen = Rect::from_min_size(Pos2::ZERO, vec2(1280.0, 720.0));
        let input = egui::RawInput {
            screen_rect: Some(screen),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| {
            draw(
                ui.painter(),
                screen,
                &reading(1.0),
                &HudExtras::default(),
                settings,
            )
        });
        let text = format!("{:?}", out.shapes);
        out.drop_without_applying_deltas();
        text
    }

    #[test]
    fn the_symbology_takes_the_chosen_colour() {
        let green = drawn(&HudSettings::default());
        let cyan = Color32::from_rgb(110, 230, 255);
        let custom = drawn(&HudSettings {
            colour: cyan,
            ..HudSettings::default()
        });
        let name = |c: Color32| format!("{c:?}");
        assert!(green.contains(&name(GREEN)) && !green.contains(&name(cyan)));
        assert!(custom.contains(&name(cyan)), "the chosen colour is drawn");
        assert!(!custom.contains(&name(GREEN)), "and green is not");
    }

    #[test]
    fn the_symbology_scales_with_the_window_and_the_ui_scale() {
        let s = HudSettings::default();
        let m1080 = Metrics::new(Rect::from_min_size(Pos2::ZERO, vec2(1920.0, 1080.0)), &s);
        let m270 = Metrics::new(Rect::from_min_size(Pos2::ZERO, vec2(480.0, 270.0)), &s);
        let m2160 = Metrics::new(Rect::from_min_size(Pos2::ZERO, vec2(3840.0, 2160.0)), &s);
        assert!((m1080.u - 1.0).abs() < 1e-6);
        assert!(m270.font < m1080.font && m1080.font < m2160.font);
        // Legible in a small window: the text is still about 10 px at 270 lines.
        assert!(m270.font > 9.5 && m270.small > 8.0, "{m270:?}");
        let big = HudSettings { ui_scale: 1.5, ..s };
        let m = Metrics::new(Rect::from_min_size(Pos2::ZERO, vec2(1920.0, 1080.0)), &big);
        assert!((m.font - 1.5 * m1080.font).abs() < 1e-4);
        // The columns follow the window's height, and stay inside a narrow window.
        assert!((column_offset(&m1080) - 0.42 * 1080.0).abs() < 1e-3);
        let narrow = Metrics::new(Rect::from_min_size(Pos2::ZERO, vec2(400.0, 1080.0)), &s);
        assert!(column_offset(&narrow) < 200.0);
    }
}
