//! The HUD's weapon symbology, drawn from plain [`CombatCues`]: the lead-computing gun sight
//! (pipper with a range ring), the target designator box on the locked contact with its range
//! and closure, the missile seeker circle (a diamond once it tracks), the launch zone scale
//! (Rmin, no-escape, Rmax and the target's range), the selected weapon and what is left, and the
//! kill feed with the last hit or kill message.
//!
//! Owns: the gun sight's ballistic solution ([`gun_pipper`]) and the drawing of the cues. Must
//! not: decide what is locked or in range (the server's sensing and the caller's envelope do),
//! read the clock or blink (the HUD is a pure function of its inputs).

use std::time::Duration;

use egui::{Align2, Pos2, Rect, pos2, vec2};
use fl_flight::AircraftState;
use fl_flight::math::Vec3;
use fl_protocol::enums::WeaponType;

use super::canvas::Canvas;
use super::projection::Projection;
use super::{AMBER, Metrics, RED, Units};
use crate::session::combat::Kill;

/// Range the pipper's ring shows full (a closed circle), m: about the guns' effective range.
pub const GUN_RING_FULL_M: f64 = 1_200.0;
/// Kill-feed lines shown at most (the newest).
pub const MAX_FEED_LINES: usize = 4;

/// Everything the HUD shows about weapons this frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CombatCues {
    /// The selected weapon, e.g. `GUN` with its rounds or `AIM-9P` with the missiles left.
    pub weapon: Option<WeaponStatus>,
    /// The gun sight, when the gun is selected.
    pub gun: Option<GunCue>,
    /// The locked (or designated) target.
    pub target: Option<TargetCue>,
    /// The selected missile's seeker.
    pub seeker: Option<SeekerCue>,
    /// The selected missile's launch zone against the target.
    pub envelope: Option<Envelope>,
    /// Kill-feed lines, oldest first.
    pub feed: Vec<String>,
    /// The last hit or kill of the player's, shown under the boresight.
    pub message: Option<String>,
}

/// The selected weapon.
#[derive(Debug, Clone, PartialEq)]
pub struct WeaponStatus {
    /// Short name, as the HUD prints it.
    pub label: String,
    /// Rounds or stores left on the selected station(s).
    pub count: u32,
    /// A second line above it (the gun's rounds and the dispensers), empty: none.
    pub detail: String,
}

/// The gun sight: where rounds fired now will be when they have flown `range_m`, as angles
/// right of and above the nose (the aircraft's own axes), rad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GunCue {
    pub right_rad: f64,
    pub up_rad: f64,
    /// The range the solution is for: the locked target's, else a default.
    pub range_m: f64,
}

/// The target: its direction (right of and above the nose, rad), range and closure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetCue {
    pub right_rad: f64,
    pub up_rad: f64,
    pub range_m: f64,
    /// Closing speed, m/s (positive closing).
    pub closure_mps: f64,
    /// Locked (a solid box) or only designated (a dashed one).
    pub locked: bool,
}

/// The missile seeker's line of sight (right of and above the nose, rad).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeekerCue {
    pub right_rad: f64,
    pub up_rad: f64,
    /// Tracking a target (the tone): drawn as a diamond inside the circle.
    pub tracking: bool,
}

/// A launch zone, m: inside `min_m`..`max_m` the missile reaches the target; inside
/// `no_escape_m` it does so whatever the target does. `range_m` is the target's range now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Envelope {
    pub min_m: f64,
    pub no_escape_m: f64,
    pub max_m: f64,
    pub range_m: f64,
}

impl Envelope {
    /// Whether a shot now is inside the zone.
    pub fn in_range(&self) -> bool {
        self.range_m >= self.min_m && self.range_m <= self.max_m
    }
}

/// The lead-computing gun sight: where a round fired now along the gun line is, relative to the
/// aircraft, after flying `range_m`, as (right, up) angles off the nose in rad.
///
/// The round leaves at `muzzle_mps` along the nose on top of the aircraft's own velocity, so
/// relative to the aircraft it flies the muzzle velocity and falls under `gravity` (m/s², world).
/// The time of flight is `range / muzzle` (drag ignored: at gun ranges it changes the drop by a
/// few per cent). The lead: a pilot tracking a target turns at the sight line's rate, so the
/// sight is set back by the body rates × time of flight (a constant-turn LCOS); with the pipper
/// on the target the gun then leads it by the angle the target moves during the flight.
/// `None` for a useless solution (no muzzle velocity, a range that is not positive, a state that
/// is not finite).
pub fn gun_pipper(
    state: &AircraftState,
    gravity: Vec3,
    muzzle_mps: f64,
    range_m: f64,
) -> Option<GunCue> {
    if !(muzzle_mps > 1.0 && range_m > 0.0 && range_m.is_finite() && gravity.is_finite()) {
        return None;
    }
    let t = range_m / muzzle_mps;
    // Engine body axes: X right, Y up, Z aft; the nose is −Z.
    let g_body = state.orientation.inverse_rotate(gravity);
    let along = Vec3::new(0.0, 0.0, -muzzle_mps * t);
    let drop = g_body * (0.5 * t * t);
    let d = along + drop;
    // Body rates are NACA (p roll, q pitch, r yaw); in engine axes the rotation vector is
    // (q, −r, −p). The sight is set back by the rotation the aircraft makes in time t.
    let rates = fl_flight::state::from_naca(state.body_rates);
    let back = fl_flight::math::Quat::from_rotation_vector(rates * -t);
    let d = back.rotate(d);
    if !d.is_finite() || d.z >= 0.0 {
        return None;
    }
    let right = d.x.atan2(-d.z);
    let up = d.y.atan2((d.x * d.x + d.z * d.z).sqrt());
    Some(GunCue {
        right_rad: right,
        up_rad: up,
        range_m,
    })
}

/// Draws the cues over the HUD (inside `glass`, the area the ladder uses).
pub(super) fn draw(
    c: &mut Canvas<'_>,
    m: &Metrics,
    proj: &Projection,
    glass: Rect,
    cues: &CombatCues,
    units: Units,
) {
    let u = m.u;
    let inside = glass.shrink(10.0 * u);
    if let Some(g) = cues.gun
        && let Some(p) = proj.flight_path(g.right_rad, g.up_rad)
        && inside.contains(p)
    {
        draw_pipper(c, m, p, g.range_m);
    }
    if let Some(t) = cues.target {
        draw_target_box(c, m, proj, inside, t, units);
    }
    if let Some(s) = cues.seeker
        && let Some(p) = proj.flight_path(s.right_rad, s.up_rad)
    {
        let p = inside.clamp(p);
        let r = 16.0 * u;
        c.circle(p, r, m.colour);
        if s.tracking {
            let d = 0.6 * r;
            c.closed(
                &[
                    p + vec2(0.0, -d),
                    p + vec2(d, 0.0),
                    p + vec2(0.0, d),
                    p + vec2(-d, 0.0),
                ],
                m.colour,
            );
        }
    }
    if let Some(e) = cues.envelope {
        draw_envelope(c, m, glass, e);
    }
    if let Some(w) = &cues.weapon {
        let at = pos2(m.centre.x, glass.bottom() - 2.0 * u);
        let colour = if w.count == 0 { AMBER } else { m.colour };
        c.text(
            at,
            Align2::CENTER_BOTTOM,
            &format!("{} {}", super::clean_line(&w.label), w.count),
            m.mono(m.font),
            colour,
            0.0,
        );
        if !w.detail.is_empty() {
            c.text(
                at - vec2(0.0, m.row),
                Align2::CENTER_BOTTOM,
                &super::clean_line(&w.detail),
                m.mono(m.small),
                m.colour,
                0.0,
            );
        }
    }
    if let Some(msg) = &cues.message {
        let at = pos2(m.centre.x, m.centre.y + 60.0 * u);
        c.text(
            at,
            Align2::CENTER_TOP,
            &super::clean_line(msg),
            m.mono(m.font),
            RED,
            0.0,
        );
    }
    let lines: Vec<&String> = cues.feed.iter().rev().take(MAX_FEED_LINES).collect();
    for (i, line) in lines.iter().rev().enumerate() {
        let at = pos2(m.screen.right() - 8.0 * u, glass.top() + i as f32 * m.row);
        c.text(
            at,
            Align2::RIGHT_TOP,
            &super::clean_line(line),
            m.mono(m.small),
            m.colour,
            0.0,
        );
    }
}

/// The pipper: a dot in a ring whose arc shrinks with range (full at [`GUN_RING_FULL_M`]).
fn draw_pipper(c: &mut Canvas<'_>, m: &Metrics, p: Pos2, range_m: f64) {
    let u = m.u;
    let r = 14.0 * u;
    c.circle(p, 1.5 * u, m.colour);
    let frac = (range_m / GUN_RING_FULL_M).clamp(0.0, 1.0);
    // The arc runs clockwise from 12 o'clock.
    let steps = (frac * 32.0).ceil().max(1.0) as usize;
    let arc: Vec<Pos2> = (0..=steps)
        .map(|i| {
            let a = (i as f64 / steps as f64) * frac * std::f64::consts::TAU;
            p + vec2(a.sin() as f32, -a.cos() as f32) * r
        })
        .collect();
    c.polyline(&arc, m.colour);
}

/// The target designator box, with range (km or m) and closure (kt) under it. Off the glass it
/// stops at the edge with a line pointing from the centre towards the target.
fn draw_target_box(
    c: &mut Canvas<'_>,
    m: &Metrics,
    proj: &Projection,
    inside: Rect,
    t: TargetCue,
    units: Units,
) {
    let u = m.u;
    let size = vec2(40.0 * u, 40.0 * u);
    let projected = proj.flight_path(t.right_rad, t.up_rad);
    let p = projected.map_or(m.centre, |p| inside.clamp(p));
    if t.locked {
        c.frame(p, size, m.colour);
    } else {
        let h = 0.5 * size;
        let corners = [
            p + vec2(-h.x, -h.y),
            p + vec2(h.x, -h.y),
            p + vec2(h.x, h.y),
            p + vec2(-h.x, h.y),
        ];
        for i in 0..4 {
            c.dashed(corners[i], corners[(i + 1) % 4], 3, m.colour);
        }
    }
    if projected.is_none_or(|q| q != p) {
        // Off the glass (or behind): a line from the boresight towards it.
        let dir = (p - m.centre).normalized();
        if dir.is_finite() {
            c.line(
                m.centre + dir * 20.0 * u,
                m.centre + dir * 60.0 * u,
                m.colour,
            );
        }
    }
    let range = range_text(units, t.range_m);
    let closure = units.speed(t.closure_mps).unwrap_or(0);
    c.text(
        p + vec2(0.0, 0.5 * size.y + 3.0 * u),
        Align2::CENTER_TOP,
        &format!("{range} {closure:+}"),
        m.mono(m.small),
        m.colour,
        0.0,
    );
}

/// A target's range as the HUD prints it: nautical miles (tenths under 10) or, metric,
/// kilometres (tenths under 10) — metres under 1 km in both, where a gun is aimed.
fn range_text(units: Units, range_m: f64) -> String {
    let m = if range_m.is_finite() {
        range_m.max(0.0)
    } else {
        0.0
    };
    if m < 1000.0 {
        return format!("{m:.0} M");
    }
    let (v, unit) = match units {
        Units::Imperial => (m / 1852.0, "NM"),
        Units::Metric => (m / 1000.0, "KM"),
    };
    if v >= 10.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// The launch-zone scale at the glass's right edge: a vertical line from 0 (bottom) to 1.25 ×
/// Rmax (top), ticks at Rmin and Rmax, a bar over the no-escape zone and a caret at the target's
/// range; "SHOOT" under it while in range.
fn draw_envelope(c: &mut Canvas<'_>, m: &Metrics, glass: Rect, e: Envelope) {
    let u = m.u;
    let sane = [e.min_m, e.no_escape_m, e.max_m, e.range_m]
        .iter()
        .all(|v| v.is_finite())
        && 0.0 <= e.min_m
        && e.min_m < e.max_m;
    if !sane {
        return;
    }
    let x = glass.right() - 6.0 * u;
    let (bottom, top) = (m.centre.y + 80.0 * u, m.centre.y - 80.0 * u);
    let full = 1.25 * e.max_m;
    let y = |r: f64| bottom - ((r / full).clamp(0.0, 1.0) as f32) * (bottom - top);
    c.line(pos2(x, y(e.min_m)), pos2(x, y(e.max_m)), m.colour);
    for r in [e.min_m, e.max_m] {
        c.line(pos2(x - 8.0 * u, y(r)), pos2(x, y(r)), m.colour);
    }
    let ne = e.no_escape_m.clamp(e.min_m, e.max_m);
    c.line(
        pos2(x - 4.0 * u, y(e.min_m)),
        pos2(x - 4.0 * u, y(ne)),
        m.colour,
    );
    let ry = y(e.range_m);
    c.closed(
        &[
            pos2(x - 14.0 * u, ry - 5.0 * u),
            pos2(x - 6.0 * u, ry),
            pos2(x - 14.0 * u, ry + 5.0 * u),
        ],
        m.colour,
    );
    if e.in_range() {
        c.text(
            pos2(x, bottom + 4.0 * u),
            Align2::RIGHT_TOP,
            "SHOOT",
            m.mono(m.font),
            m.colour,
            0.0,
        );
    }
}

/// How long a kill stays in the HUD's feed.
pub const KILL_FEED_DISPLAY: Duration = Duration::from_secs(10);
/// How long the player's own kill (or loss) is announced under the boresight.
pub const KILL_MESSAGE_DISPLAY: Duration = Duration::from_secs(3);

/// The kill feed from the session's kills at `now`: the kills of the last [`KILL_FEED_DISPLAY`] as
/// "instigator [WEAPON] subject" (the player is "You"; a player's aircraft by its roster
/// callsign from `callsign(peer id)`, "Player <peer>" when the roster does not name it; others
/// "AI #<index>"), and the player's own kill or loss of the last [`KILL_MESSAGE_DISPLAY`].
/// `None` when there is nothing to show.
pub fn kill_feed(
    kills: &[Kill],
    own: Option<u32>,
    now: Duration,
    callsign: &dyn Fn(u32) -> Option<String>,
) -> Option<CombatCues> {
    let recent: Vec<&Kill> = kills
        .iter()
        .filter(|k| k.received_at <= now && now - k.received_at < KILL_FEED_DISPLAY)
        .collect();
    if recent.is_empty() {
        return None;
    }
    let name = |idx: u32, peer: Option<u32>| {
        if Some(idx) == own {
            "You".to_owned()
        } else if let Some(p) = peer {
            callsign(p).unwrap_or_else(|| format!("Player {p}"))
        } else {
            format!("AI #{idx}")
        }
    };
    let weapon = |k: &Kill| match k.weapon {
        Some(WeaponType::Gun) => "GUN",
        Some(WeaponType::Missile) => "MSL",
        Some(WeaponType::Rocket) => "RKT",
        Some(WeaponType::Bomb) => "BOMB",
        _ if k.instigator.is_none() => "CRASH",
        _ => "?",
    };
    let feed = recent
        .iter()
        .map(|k| {
            let subject = name(k.subject.0, k.subject_peer);
            match k.instigator {
                Some((i, _)) => format!("{} [{}] {subject}", name(i, k.instigator_peer), weapon(k)),
                None => format!("{subject} [{}]", weapon(k)),
            }
        })
        .collect();
    let message = recent
        .iter()
        .rev()
        .find(|k| now - k.received_at < KILL_MESSAGE_DISPLAY)
        .and_then(|k| {
            if own.is_some() && k.instigator.map(|i| i.0) == own {
                Some(format!("KILL {}", name(k.subject.0, k.subject_peer)))
            } else if own == Some(k.subject.0) {
                Some("SHOT DOWN".to_owned())
            } else {
                None
            }
        });
    Some(CombatCues {
        feed,
        message,
        ..CombatCues::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_flight::math::Quat;

    fn level_state() -> AircraftState {
        let s = AircraftState::flying(Vec3::ZERO, 0.0, 200.0, 1000.0);
        assert_eq!(
            s.orientation,
            Quat::IDENTITY,
            "heading 0 is the engine frame"
        );
        s
    }

    const G: Vec3 = Vec3::new(0.0, -9.81, 0.0);

    #[test]
    fn level_and_unturning_the_pipper_sits_below_the_nose_by_the_drop() {
        let s = level_state();
        let cue = gun_pipper(&s, G, 1000.0, 1000.0).expect("solution");
        // One second of flight: 4.9 m of drop at 1000 m, about 4.9 mrad.
        assert!(cue.right_rad.abs() < 1e-12, "{cue:?}");
        let want = -(0.5f64 * 9.81).atan2(1000.0);
        assert!((cue.up_rad - want).abs() < 1e-9, "{} vs {want}", cue.up_rad);
        // Further is lower.
        let far = gun_pipper(&s, G, 1000.0, 2000.0).expect("solution");
        assert!(far.up_rad < cue.up_rad);
    }

    #[test]
    fn a_pull_sets_the_pipper_back_by_the_rate_times_the_flight_time() {
        let mut s = level_state();
        // Pitching up at 0.2 rad/s (NACA q), no gravity to isolate the lead.
        s.body_rates = Vec3::new(0.0, 0.2, 0.0);
        let cue = gun_pipper(&s, Vec3::ZERO, 1000.0, 500.0).expect("solution");
        // 0.5 s of flight: set back (below the nose) by 0.1 rad.
        assert!((cue.up_rad + 0.1).abs() < 1e-9, "{cue:?}");
        // A right yaw rate (NACA r) sets it back to the left.
        s.body_rates = Vec3::new(0.0, 0.0, 0.2);
        let cue = gun_pipper(&s, Vec3::ZERO, 1000.0, 500.0).expect("solution");
        assert!((cue.right_rad + 0.1).abs() < 1e-9, "{cue:?}");
    }

    #[test]
    fn useless_inputs_give_no_solution() {
        let s = level_state();
        assert_eq!(gun_pipper(&s, G, 0.0, 500.0), None);
        assert_eq!(gun_pipper(&s, G, 1000.0, 0.0), None);
        assert_eq!(gun_pipper(&s, G, 1000.0, f64::NAN), None);
        assert_eq!(
            gun_pipper(&s, Vec3::new(f64::NAN, 0.0, 0.0), 1000.0, 500.0),
            None
        );
        let mut spinning = level_state();
        spinning.body_rates = Vec3::new(0.0, f64::INFINITY, 0.0);
        assert_eq!(gun_pipper(&spinning, G, 1000.0, 500.0), None);
    }

    #[test]
    fn the_kill_feed_names_the_player_fades_and_announces_its_own_kills() {
        let kill = |subject: u32, instigator: Option<u32>, peer: Option<u32>, at: u64| Kill {
            subject: (subject, 1),
            instigator: instigator.map(|i| (i, 1)),
            weapon: instigator.map(|_| WeaponType::Gun),
            instigator_peer: peer,
            subject_peer: None,
            received_at: Duration::from_secs(at),
        };
        let kills = [
            kill(4, Some(9), Some(2), 1),
            kill(5, Some(1), Some(7), 20),
            kill(1, None, None, 21),
        ];
        let none = |_| None;
        let at = |s| kill_feed(&kills, Some(1), Duration::from_secs(s), &none);
        let c = at(21).expect("two recent kills");
        assert_eq!(
            c.feed,
            ["You [GUN] AI #5", "You [CRASH]"].map(str::to_owned)
        );
        // The newest within 3 s is the player's own loss.
        assert_eq!(c.message.as_deref(), Some("SHOT DOWN"));
        let c = kill_feed(&kills[..2], Some(1), Duration::from_secs(21), &none).expect("one");
        assert_eq!(c.message.as_deref(), Some("KILL AI #5"));
        assert_eq!(
            kill_feed(&kills[..1], Some(1), Duration::from_secs(2), &none)
                .expect("one")
                .feed,
            ["Player 2 [GUN] AI #4"]
        );
        // The roster's callsign names a player.
        let named = |p: u32| (p == 2).then(|| "Iceman".to_owned());
        assert_eq!(
            kill_feed(&kills[..1], Some(1), Duration::from_secs(2), &named)
                .expect("one")
                .feed,
            ["Iceman [GUN] AI #4"]
        );
        // Faded after 10 s; nothing at all gives no cues.
        assert_eq!(
            kill_feed(&kills[..1], Some(1), Duration::from_secs(12), &none),
            None
        );
        assert_eq!(kill_feed(&[], None, Duration::ZERO, &none), None);
        // A kill heard "later" than now (a reset clock) is not shown.
        assert_eq!(
            kill_feed(&kills[2..], Some(1), Duration::from_secs(3), &none),
            None
        );
    }

    #[test]
    fn ranges_read_in_the_players_units() {
        assert_eq!(range_text(Units::Imperial, 640.4), "640 M");
        assert_eq!(range_text(Units::Imperial, 3704.0), "2.0 NM");
        assert_eq!(range_text(Units::Metric, 3704.0), "3.7 KM");
        assert_eq!(range_text(Units::Metric, 25_000.0), "25 KM");
        assert_eq!(range_text(Units::Metric, f64::NAN), "0 M");
    }

    #[test]
    fn the_envelope_says_when_a_shot_is_in_range() {
        let e = |r| Envelope {
            min_m: 300.0,
            no_escape_m: 2000.0,
            max_m: 6000.0,
            range_m: r,
        };
        assert!(!e(200.0).in_range());
        assert!(e(300.0).in_range() && e(4000.0).in_range() && e(6000.0).in_range());
        assert!(!e(6001.0).in_range());
    }
}
