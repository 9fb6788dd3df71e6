//! The cockpit's two scopes, drawn in the HUD's lower corners from plain [`Scopes`]: the radar
//! B-scope (azimuth across, range up; friends, foes and unknowns by symbol, the locked track
//! boxed, each contact's motion as a stub) and the radar-warning receiver (strobes around the
//! nose by bearing: searching emitters on the outer ring, locks inside it, a guiding missile at
//! the centre ring in red).
//!
//! Owns: turning the team's fused picture (`MsgDatalink`, world-relative) into what the scopes
//! show from the player's own position and attitude ([`Scopes::from_datalink`]), and drawing it.
//! Must not: decide what is detected or identified (the server's sensing does), or blink.

use egui::{Align2, Pos2, Rect, pos2, vec2};
use fl_flight::math::{Quat, Vec3};
use fl_protocol::enums::{ContactState, Identification, SensorType, ThreatLevel};
use fl_protocol::msg::combat::{Datalink, TRACK_FLAG_FIRING_QUALITY};

use super::canvas::Canvas;
use super::{AMBER, Metrics, RED};

/// The B-scope's azimuth half-width, rad (±60°, a fighter radar's scan).
pub const SCOPE_HALF_AZIMUTH_RAD: f64 = std::f64::consts::FRAC_PI_3;
/// Range scales the B-scope steps through, m: the smallest that holds the locked track (else
/// every contact) is used.
pub const RANGE_SCALES_M: [f64; 5] = [10_000.0, 20_000.0, 40_000.0, 80_000.0, 160_000.0];
/// Contacts and strobes drawn at most (the wire caps them lower; this bounds a hostile list).
const MAX_DRAWN: usize = 64;

/// How a contact or emitter is identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ident {
    Unknown,
    Friend,
    Foe,
}

impl From<Identification> for Ident {
    fn from(i: Identification) -> Self {
        match i {
            Identification::Unknown => Ident::Unknown,
            Identification::Friend => Ident::Friend,
            Identification::Foe => Ident::Foe,
        }
    }
}

/// A contact on the B-scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScopeContact {
    /// Right of the nose, rad.
    pub azimuth_rad: f64,
    pub range_m: f64,
    pub ident: Ident,
    /// A firing-quality lock.
    pub locked: bool,
    /// Held on memory, not seen this check.
    pub coasting: bool,
    /// Its motion relative to the player's nose (rad, 0 = flying away along the nose,
    /// π = straight at the player); `None` when it is not moving.
    pub heading_rad: Option<f64>,
}

/// How loud an RWR strobe is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StrobeLevel {
    Search,
    Lock,
    Launch,
}

/// One RWR strobe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RwrStrobe {
    /// Right of the nose, rad (the whole circle).
    pub bearing_rad: f64,
    pub level: StrobeLevel,
    /// `R` radar, `I` infrared, `L` laser, `V` visual.
    pub channel: char,
    pub ident: Ident,
}

/// What the two scopes show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scopes {
    pub contacts: Vec<ScopeContact>,
    pub strobes: Vec<RwrStrobe>,
    /// The radar's mode as the scope labels it (`SRCH`, `TWS`, `STT`, `OFF`).
    pub radar_mode: String,
}

impl Scopes {
    /// The scopes for a player at `own_position` (world, m) with `own_orientation` (engine body →
    /// world) from the team's picture `dl`. Tracks of the player's own aircraft (`own_index`)
    /// and anything not finite are left out; lost tracks are not shown.
    pub fn from_datalink(
        dl: &Datalink,
        own_index: Option<u32>,
        own_position: Vec3,
        own_orientation: Quat,
        radar_mode: &str,
    ) -> Scopes {
        let origin = Vec3::new(dl.origin[0], dl.origin[1], dl.origin[2]);
        let to_body = |world: Vec3| own_orientation.inverse_rotate(world);
        let rel = |v: [f32; 3]| Vec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
        let mut contacts = Vec::new();
        for t in dl.tracks.iter().take(MAX_DRAWN) {
            if Some(t.target_idx) == own_index || t.state == ContactState::Lost {
                continue;
            }
            let body = to_body(origin + rel(t.rel_pos) - own_position);
            let motion = to_body(rel(t.rel_vel));
            let range_m = body.length();
            if !(range_m.is_finite() && motion.is_finite()) {
                continue;
            }
            let horizontal = (motion.x * motion.x + motion.z * motion.z).sqrt();
            contacts.push(ScopeContact {
                azimuth_rad: body.x.atan2(-body.z),
                range_m,
                ident: t.ident.into(),
                locked: t.flags & TRACK_FLAG_FIRING_QUALITY != 0 || t.state == ContactState::Locked,
                coasting: t.state == ContactState::Coasting,
                heading_rad: (horizontal > 1.0).then(|| motion.x.atan2(-motion.z)),
            });
        }
        let mut strobes = Vec::new();
        for h in dl.threats.iter().take(MAX_DRAWN) {
            let body = to_body(origin + rel(h.rel_pos) - own_position);
            if !body.is_finite() || body.length() == 0.0 {
                continue;
            }
            strobes.push(RwrStrobe {
                bearing_rad: body.x.atan2(-body.z),
                level: match h.level {
                    ThreatLevel::Search => StrobeLevel::Search,
                    ThreatLevel::Lock => StrobeLevel::Lock,
                    ThreatLevel::Launch => StrobeLevel::Launch,
                },
                channel: match h.channel {
                    SensorType::Radar => 'R',
                    SensorType::Ir => 'I',
                    SensorType::Laser => 'L',
                    SensorType::Visual => 'V',
                },
                ident: h.ident.into(),
            });
        }
        Scopes {
            contacts,
            strobes,
            radar_mode: radar_mode.to_owned(),
        }
    }

    /// The B-scope's range scale: the smallest of [`RANGE_SCALES_M`] holding the locked track,
    /// else every contact in the scan, else the largest.
    pub fn range_scale_m(&self) -> f64 {
        let in_scan = |c: &&ScopeContact| c.azimuth_rad.abs() <= SCOPE_HALF_AZIMUTH_RAD;
        let want = match self.contacts.iter().filter(in_scan).find(|c| c.locked) {
            Some(l) => l.range_m,
            None => self
                .contacts
                .iter()
                .filter(in_scan)
                .map(|c| c.range_m)
                .fold(0.0, f64::max),
        };
        RANGE_SCALES_M
            .iter()
            .copied()
            .find(|s| want <= *s)
            .unwrap_or(RANGE_SCALES_M[RANGE_SCALES_M.len() - 1])
    }
}

/// The square each scope takes in a lower corner of `screen`.
fn scope_side(m: &Metrics) -> f32 {
    (0.28 * m.screen.height()).clamp(40.0 * m.u, 320.0 * m.u)
}

/// Draws the B-scope in the lower-left corner and the RWR in the lower-right one.
pub(super) fn draw(c: &mut Canvas<'_>, m: &Metrics, scopes: &Scopes) {
    let side = scope_side(m);
    let margin = 8.0 * m.u;
    let bottom = m.screen.bottom() - margin - m.row;
    let left = Rect::from_min_size(
        pos2(m.screen.left() + margin, bottom - side),
        vec2(side, side),
    );
    let right = Rect::from_min_size(
        pos2(m.screen.right() - margin - side, bottom - side),
        vec2(side, side),
    );
    draw_bscope(c, m, left, scopes);
    draw_rwr(c, m, right, scopes);
}

fn draw_bscope(c: &mut Canvas<'_>, m: &Metrics, r: Rect, scopes: &Scopes) {
    let u = m.u;
    c.closed(
        &[
            r.left_top(),
            r.right_top(),
            r.right_bottom(),
            r.left_bottom(),
        ],
        m.colour,
    );
    let scale = scopes.range_scale_m();
    // Range ticks at quarters on the left edge.
    for q in 1..4 {
        let y = r.bottom() - r.height() * q as f32 / 4.0;
        c.line(pos2(r.left(), y), pos2(r.left() + 5.0 * u, y), m.colour);
    }
    c.text(
        r.left_top() + vec2(3.0 * u, 2.0 * u),
        Align2::LEFT_TOP,
        &format!("{:.0}", scale / 1000.0),
        m.mono(m.small),
        m.colour,
        0.0,
    );
    c.text(
        r.right_top() + vec2(-3.0 * u, 2.0 * u),
        Align2::RIGHT_TOP,
        &super::clean_line(&scopes.radar_mode),
        m.mono(m.small),
        m.colour,
        0.0,
    );
    let at = |az: f64, range: f64| -> Option<Pos2> {
        if !(az.abs() <= SCOPE_HALF_AZIMUTH_RAD && (0.0..=scale).contains(&range)) {
            return None;
        }
        let x = r.center().x + (az / SCOPE_HALF_AZIMUTH_RAD) as f32 * 0.5 * r.width();
        let y = r.bottom() - (range / scale) as f32 * r.height();
        Some(pos2(x, y))
    };
    let s = 4.0 * u;
    for k in scopes.contacts.iter().take(MAX_DRAWN) {
        let Some(p) = at(k.azimuth_rad, k.range_m) else {
            continue;
        };
        let colour = if k.coasting { AMBER } else { m.colour };
        match k.ident {
            Ident::Friend => c.circle(p, s, colour),
            Ident::Foe => c.closed(
                &[
                    p + vec2(0.0, -s),
                    p + vec2(s, 0.0),
                    p + vec2(0.0, s),
                    p + vec2(-s, 0.0),
                ],
                colour,
            ),
            Ident::Unknown => c.frame(p, vec2(2.0 * s, 2.0 * s), colour),
        }
        if let Some(h) = k.heading_rad {
            // Screen up is along the nose: a stub pointing where it flies.
            let d = vec2(h.sin() as f32, -h.cos() as f32);
            c.line(p + d * s, p + d * 3.0 * s, colour);
        }
        if k.locked {
            c.frame(p, vec2(4.0 * s, 4.0 * s), colour);
        }
    }
}

fn draw_rwr(c: &mut Canvas<'_>, m: &Metrics, r: Rect, scopes: &Scopes) {
    let u = m.u;
    let centre = r.center();
    let outer = 0.5 * r.width();
    c.circle(centre, outer, m.colour);
    c.circle(centre, 0.3 * outer, m.colour);
    // The nose tick.
    c.line(
        centre + vec2(0.0, -outer),
        centre + vec2(0.0, -outer - 5.0 * u),
        m.colour,
    );
    for s in scopes.strobes.iter().take(MAX_DRAWN) {
        if !s.bearing_rad.is_finite() {
            continue;
        }
        let (radius, colour) = match s.level {
            StrobeLevel::Search => (0.8 * outer, m.colour),
            StrobeLevel::Lock => (0.55 * outer, AMBER),
            StrobeLevel::Launch => (0.3 * outer, RED),
        };
        let d = vec2(s.bearing_rad.sin() as f32, -s.bearing_rad.cos() as f32);
        let p = centre + d * radius;
        let label = match s.ident {
            Ident::Friend => format!("{}+", s.channel),
            _ => s.channel.to_string(),
        };
        c.text(
            p,
            Align2::CENTER_CENTER,
            &label,
            m.mono(m.small),
            colour,
            0.0,
        );
        if s.level >= StrobeLevel::Lock {
            c.circle(p, 0.7 * m.small, colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::msg::combat::{DatalinkThreat, DatalinkTrack};

    fn track(idx: u32, rel: [f32; 3], ident: Identification, flags: u8) -> DatalinkTrack {
        DatalinkTrack {
            target_idx: idx,
            type_index: 0,
            target_gen: 0,
            faction_index: 0,
            state: ContactState::Detected,
            ident,
            sensor_type_mask: 1 << 2,
            flags,
            rel_pos: rel,
            rel_vel: [0.0, 0.0, 200.0],
        }
    }

    fn datalink() -> Datalink {
        Datalink {
            flags: 0,
            tick_index: 10,
            origin: [100.0, 5_000.0, 0.0],
            tracks: vec![
                // 10 km straight ahead (−Z) of a player at the origin, flying towards it (+Z).
                track(
                    7,
                    [0.0, 0.0, -10_000.0],
                    Identification::Foe,
                    TRACK_FLAG_FIRING_QUALITY,
                ),
                // 5 km off the right wing.
                track(8, [5_000.0, 0.0, 0.0], Identification::Friend, 0),
                // The player itself.
                track(1, [0.0, 0.0, 0.0], Identification::Friend, 0),
                // Hostile floats.
                track(9, [f32::NAN, 0.0, 0.0], Identification::Unknown, 0),
            ],
            threats: vec![DatalinkThreat {
                emitter_idx: 7,
                emitter_type_index: 0,
                emitter_gen: 0,
                emitter_faction_index: 1,
                channel: SensorType::Radar,
                level: ThreatLevel::Lock,
                ident: Identification::Foe,
                flags: 0,
                // Behind and to the left.
                rel_pos: [-3_000.0, 0.0, 3_000.0],
            }],
        }
    }

    #[test]
    fn tracks_and_strobes_are_placed_around_the_nose() {
        let own = Vec3::new(100.0, 5_000.0, 0.0);
        let s = Scopes::from_datalink(&datalink(), Some(1), own, Quat::IDENTITY, "TWS");
        assert_eq!(s.contacts.len(), 2, "own aircraft and NaN left out: {s:?}");
        let ahead = s.contacts[0];
        assert!(ahead.azimuth_rad.abs() < 1e-9 && (ahead.range_m - 10_000.0).abs() < 1e-6);
        assert!(ahead.locked && ahead.ident == Ident::Foe);
        let hot = ahead.heading_rad.expect("moving");
        assert!(
            (hot.abs() - std::f64::consts::PI).abs() < 1e-9,
            "flying at us: {hot}"
        );
        let wing = s.contacts[1];
        assert!((wing.azimuth_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
        let strobe = s.strobes[0];
        assert!((strobe.bearing_rad + 0.75 * std::f64::consts::PI).abs() < 1e-9);
        assert_eq!((strobe.level, strobe.channel), (StrobeLevel::Lock, 'R'));
        // Turned right 90°: the contact ahead is now off the left wing.
        let right = Quat::from_axis_angle(Vec3::Y, -std::f64::consts::FRAC_PI_2);
        let s = Scopes::from_datalink(&datalink(), Some(1), own, right, "TWS");
        assert!((s.contacts[0].azimuth_rad + std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    }

    #[test]
    fn the_range_scale_holds_the_lock_else_everything_in_the_scan() {
        let own = Vec3::new(100.0, 5_000.0, 0.0);
        let s = Scopes::from_datalink(&datalink(), Some(1), own, Quat::IDENTITY, "STT");
        assert_eq!(s.range_scale_m(), 10_000.0);
        let mut far = s.clone();
        far.contacts[0].locked = false;
        far.contacts[0].range_m = 33_000.0;
        // The friend off the wing is outside the ±60° scan: it does not set the scale.
        assert_eq!(far.range_scale_m(), 40_000.0);
        far.contacts[0].range_m = 1e9;
        assert_eq!(far.range_scale_m(), 160_000.0);
        assert_eq!(Scopes::default().range_scale_m(), 10_000.0);
    }
}
