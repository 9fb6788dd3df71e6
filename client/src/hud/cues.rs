//! The HUD's combat cues from real data: the weapon status from the own combat state the
//! prediction carries (`SnapshotOwnState` format 2, falling back to the type's default
//! loadout), and the target box, seeker cue, launch zone, B-scope and RWR from the latest
//! `MsgDatalink` the session kept. Pure: the same inputs draw the same cues.
//!
//! Owns: choosing the target (a firing-quality lock, else the pilot's designated track), the
//! target's direction, range and closure off the nose, and what the selected station's weapon
//! def says of its reach. Must not: decide locks or hits (the server's sensing and weapons do)
//! or draw anything (`combat`, `scopes`); with no datalink nothing about targets is shown.

use fl_combat::own::{OwnCombat, StoreKind};
use fl_content::{Content, EntityDef};
use fl_flight::AircraftState;
use fl_flight::math::Vec3;
use fl_protocol::enums::{ContactState, Identification};
use fl_protocol::msg::combat::{Datalink, DatalinkTrack, TRACK_FLAG_FIRING_QUALITY};

use super::combat::{self, CombatCues, Envelope, SeekerCue, TargetCue, WeaponStatus};
use super::scopes::Scopes;

/// The range the gun sight solves for without a target, m.
pub const GUN_SIGHT_DEFAULT_RANGE_M: f64 = 500.0;
/// The no-escape range as a fraction of Rmax above Rmin (the pack's defs state no no-escape
/// range; the original's HUD drew the inner third of the zone).
pub const NO_ESCAPE_FRACTION: f64 = 1.0 / 3.0;

/// What one station of the own type carries by default, as the HUD names it.
#[derive(Debug, Clone, PartialEq)]
pub struct StationInfo {
    /// Short name (the weapon def's name).
    pub label: String,
    /// Rounds (or stores) when full.
    pub rounds: u32,
    /// A gun's muzzle velocity, m/s.
    pub muzzle_mps: Option<f64>,
    /// A guided weapon's Rmin and Rmax, m.
    pub reach_m: Option<(f64, f64)>,
    /// It has a seeker (the seeker cue is drawn for it).
    pub seeker: bool,
}

/// The own type's stations in station order (hardpoints sorted by slot, as the server indexes
/// `selectedStation`), each with its default store; `None` for an empty station.
pub fn station_infos(content: &Content, def: &EntityDef) -> Vec<Option<StationInfo>> {
    let mut hardpoints: Vec<_> = def.hardpoints.iter().collect();
    hardpoints.sort_by_key(|h| h.slot);
    hardpoints
        .iter()
        .map(|h| {
            let w = content.weapon(h.default.as_deref()?)?;
            Some(StationInfo {
                label: w.name.clone(),
                rounds: w.rounds,
                muzzle_mps: w.gun.as_ref().map(|g| g.muzzle_velocity_mps),
                reach_m: w
                    .seeker
                    .as_ref()
                    .and(w.performance)
                    .map(|p| (p.min_range_m, p.max_range_m)),
                seeker: w.seeker.is_some(),
            })
        })
        .collect()
}

/// Everything the cues are made of this frame.
#[derive(Debug, Clone, Copy)]
pub struct CueInputs<'a> {
    /// The own aircraft as predicted.
    pub state: &'a AircraftState,
    /// Gravity at the aircraft, m/s² (world).
    pub gravity: Vec3,
    /// The own entity's index (its own track is never a target).
    pub own_index: Option<u32>,
    /// The own combat state (`None`: the type's default loadout, full).
    pub combat: Option<&'a OwnCombat>,
    /// The own type's stations ([`station_infos`]).
    pub stations: &'a [Option<StationInfo>],
    /// The latest team picture.
    pub datalink: Option<&'a Datalink>,
    /// The track the pilot designated (`targetIdx`).
    pub designated: Option<u32>,
    /// The radar mode as the B-scope labels it.
    pub radar_mode: &'a str,
}

/// The cues (weapon status, gun sight, target, seeker, launch zone) and the scopes (only with a
/// datalink).
pub fn build(i: &CueInputs<'_>) -> (CombatCues, Option<Scopes>) {
    let mut cues = CombatCues::default();
    let selected = selected_station(i);
    let info = selected.and_then(|s| i.stations.get(usize::from(s))?.as_ref());
    let target = i.datalink.and_then(|dl| target_cue(i, dl));
    if let Some(s) = selected
        && let Some(info) = info
    {
        cues.weapon = Some(WeaponStatus {
            label: format!("S{} {}", s, info.label),
            count: count_left(i, s, info),
            detail: detail_line(i),
        });
    } else if i.combat.is_some() || i.stations.iter().any(Option::is_some) {
        cues.weapon = Some(WeaponStatus {
            label: "NO STORES".into(),
            count: 0,
            detail: detail_line(i),
        });
    }
    // The gun sight whenever the aircraft has a gun with rounds (it is always armed), at the
    // target's range when there is one.
    if let Some(muzzle) = gun_muzzle(i) {
        let range = target.map_or(GUN_SIGHT_DEFAULT_RANGE_M, |t| t.range_m);
        cues.gun = combat::gun_pipper(i.state, i.gravity, muzzle, range);
    }
    if let Some(t) = target {
        cues.target = Some(t);
        if let Some(info) = info
            && let Some((min_m, max_m)) = info.reach_m
            && max_m > min_m
            && min_m >= 0.0
        {
            cues.envelope = Some(Envelope {
                min_m,
                no_escape_m: min_m + (max_m - min_m) * NO_ESCAPE_FRACTION,
                max_m,
                range_m: t.range_m,
            });
            if info.seeker {
                cues.seeker = Some(SeekerCue {
                    right_rad: t.right_rad,
                    up_rad: t.up_rad,
                    tracking: t.locked && t.range_m <= max_m,
                });
            }
        }
    }
    let scopes = i.datalink.map(|dl| {
        Scopes::from_datalink(
            dl,
            i.own_index,
            i.state.position,
            i.state.orientation,
            i.radar_mode,
        )
    });
    (cues, scopes)
}

/// The selected station: the own state's, else the server's default rule (the first station
/// with a releasable store, else the first with anything).
fn selected_station(i: &CueInputs<'_>) -> Option<u8> {
    if let Some(c) = i.combat {
        return c.selected;
    }
    let releasable = |s: &Option<StationInfo>| s.as_ref().is_some_and(|s| s.muzzle_mps.is_none());
    i.stations
        .iter()
        .position(releasable)
        .or_else(|| i.stations.iter().position(Option::is_some))
        .and_then(|s| u8::try_from(s).ok())
}

/// Rounds or stores left of the selected station's weapon, summed over every station carrying
/// it (a pair of AIM-9s on two rails reads 2).
fn count_left(i: &CueInputs<'_>, station: u8, info: &StationInfo) -> u32 {
    match i.combat {
        Some(c) => match c.store(station) {
            Some(s) => c
                .stores
                .iter()
                .filter(|o| o.weapon_key == s.weapon_key)
                .map(|o| o.rounds)
                .sum(),
            None => 0,
        },
        None => i
            .stations
            .iter()
            .flatten()
            .filter(|o| o.label == info.label)
            .map(|o| o.rounds)
            .sum(),
    }
}

/// `GUN 280  CHF 30/30`: the gun's rounds and the dispensers (only from the own state).
fn detail_line(i: &CueInputs<'_>) -> String {
    let Some(c) = i.combat else {
        return String::new();
    };
    let rounds: u32 = c
        .stores
        .iter()
        .filter(|s| s.kind == StoreKind::Gun)
        .map(|s| s.rounds)
        .sum();
    let has_gun = c.stores.iter().any(|s| s.kind == StoreKind::Gun);
    let mut line = String::new();
    if has_gun {
        line.push_str(&format!("GUN {rounds}  "));
    }
    line.push_str(&format!("CHF {}/{}", c.chaff, c.flares));
    line
}

/// The muzzle velocity of a gun with rounds left (the own state's, else the default loadout's).
fn gun_muzzle(i: &CueInputs<'_>) -> Option<f64> {
    let muzzle = |station: usize| i.stations.get(station)?.as_ref()?.muzzle_mps;
    match i.combat {
        Some(c) => c
            .stores
            .iter()
            .filter(|s| s.kind == StoreKind::Gun && s.rounds > 0)
            .find_map(|s| muzzle(usize::from(s.station))),
        None => (0..i.stations.len()).find_map(muzzle),
    }
}

/// The target: a firing-quality lock of the team's picture, else the designated track; its
/// direction off the nose, range and closure. Friends, lost tracks and the own aircraft are
/// never targets.
fn target_cue(i: &CueInputs<'_>, dl: &Datalink) -> Option<TargetCue> {
    let usable = |t: &&DatalinkTrack| {
        Some(t.target_idx) != i.own_index
            && t.state != ContactState::Lost
            && t.ident != Identification::Friend
    };
    let locked = |t: &&DatalinkTrack| {
        t.flags & TRACK_FLAG_FIRING_QUALITY != 0 || t.state == ContactState::Locked
    };
    let (track, is_locked) = match dl.tracks.iter().filter(usable).find(locked) {
        Some(t) => (t, true),
        None => (
            dl.tracks
                .iter()
                .filter(usable)
                .find(|t| Some(t.target_idx) == i.designated)?,
            false,
        ),
    };
    let origin = Vec3::new(dl.origin[0], dl.origin[1], dl.origin[2]);
    let v = |a: [f32; 3]| Vec3::new(f64::from(a[0]), f64::from(a[1]), f64::from(a[2]));
    let los = origin + v(track.rel_pos) - i.state.position;
    let range_m = los.length();
    let body = i.state.orientation.inverse_rotate(los);
    // `relVel` is the target's velocity in the world frame (what the B-scope draws as its
    // heading); closure is how fast the range shrinks.
    let closure_mps = -(v(track.rel_vel) - i.state.velocity).dot(los) / range_m;
    if !(range_m.is_finite() && range_m > 0.0 && body.is_finite() && closure_mps.is_finite()) {
        return None;
    }
    Some(TargetCue {
        right_rad: body.x.atan2(-body.z),
        up_rad: body.y.atan2((body.x * body.x + body.z * body.z).sqrt()),
        range_m,
        closure_mps,
        locked: is_locked,
    })
}

/// The next hostile track to designate after `current` (in the datalink's order, wrapping):
/// what the designate key steps through. Only tracks the own aircraft's sensors hold
/// (`TRACK_FLAG_OWN_SENSOR`): the server designates nothing else, so a track known only from
/// a teammate's datalink would be refused. `None` when there is none.
pub fn next_designation(
    dl: &Datalink,
    own_index: Option<u32>,
    current: Option<u32>,
) -> Option<u32> {
    let hostile: Vec<u32> = dl
        .tracks
        .iter()
        .filter(|t| {
            Some(t.target_idx) != own_index
                && t.state != ContactState::Lost
                && t.ident == Identification::Foe
                && t.flags & fl_protocol::msg::combat::TRACK_FLAG_OWN_SENSOR != 0
        })
        .map(|t| t.target_idx)
        .collect();
    let at = current.and_then(|c| hostile.iter().position(|&h| h == c));
    match at {
        Some(k) => hostile.get((k + 1) % hostile.len()).copied(),
        None => hostile.first().copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_combat::own::OwnStore;

    fn state() -> AircraftState {
        // Heading 0: the nose along world −Z, wings level.
        AircraftState::flying(Vec3::new(0.0, 3000.0, 0.0), 0.0, 200.0, 1000.0)
    }

    fn track(idx: u32, pos: [f32; 3], ident: Identification, flags: u8) -> DatalinkTrack {
        DatalinkTrack {
            target_idx: idx,
            type_index: 0,
            target_gen: 1,
            faction_index: 2,
            state: ContactState::Detected,
            ident,
            sensor_type_mask: 1,
            flags,
            rel_pos: pos,
            rel_vel: [0.0, 0.0, 0.0],
        }
    }

    fn datalink(tracks: Vec<DatalinkTrack>) -> Datalink {
        Datalink {
            flags: 0,
            tick_index: 100,
            origin: [0.0, 3000.0, 0.0],
            tracks,
            threats: Vec::new(),
        }
    }

    fn stations() -> Vec<Option<StationInfo>> {
        vec![
            Some(StationInfo {
                label: "M39".into(),
                rounds: 280,
                muzzle_mps: Some(1000.0),
                reach_m: None,
                seeker: false,
            }),
            Some(StationInfo {
                label: "AIM-9P".into(),
                rounds: 1,
                muzzle_mps: None,
                reach_m: Some((500.0, 4500.0)),
                seeker: true,
            }),
            Some(StationInfo {
                label: "AIM-9P".into(),
                rounds: 1,
                muzzle_mps: None,
                reach_m: Some((500.0, 4500.0)),
                seeker: true,
            }),
        ]
    }

    fn inputs<'a>(
        s: &'a AircraftState,
        st: &'a [Option<StationInfo>],
        combat: Option<&'a OwnCombat>,
        dl: Option<&'a Datalink>,
    ) -> CueInputs<'a> {
        CueInputs {
            state: s,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            own_index: Some(7),
            combat,
            stations: st,
            datalink: dl,
            designated: None,
            radar_mode: "TWS",
        }
    }

    #[test]
    fn without_a_datalink_nothing_about_targets_is_drawn() {
        let (s, st) = (state(), stations());
        let (cues, scopes) = build(&inputs(&s, &st, None, None));
        assert!(cues.target.is_none() && cues.seeker.is_none() && cues.envelope.is_none());
        assert!(scopes.is_none());
        let w = cues.weapon.expect("the default loadout's status");
        assert_eq!((w.label.as_str(), w.count), ("S1 AIM-9P", 2));
        let g = cues.gun.expect("a gun sight");
        assert_eq!(g.range_m, GUN_SIGHT_DEFAULT_RANGE_M);
    }

    #[test]
    fn a_locked_foe_gets_the_box_the_seeker_and_the_zone() {
        let (s, st) = (state(), stations());
        let dl = datalink(vec![
            track(7, [0.0, 0.0, -50.0], Identification::Foe, 0),
            track(9, [0.0, 0.0, -1000.0], Identification::Friend, 0),
            track(
                3,
                [100.0, 0.0, -2000.0],
                Identification::Foe,
                TRACK_FLAG_FIRING_QUALITY,
            ),
        ]);
        let combat = OwnCombat {
            station_count: 3,
            selected: Some(2),
            chaff: 4,
            flares: 5,
            stores: vec![OwnStore {
                station: 2,
                kind: StoreKind::Releasable,
                weapon_key: 1,
                rounds: 1,
                full_rounds: 1,
                gun_units: 0,
                rate_milli_rpm: 0,
                mass_kg: 86.0,
                drag_cd0: 0.0,
            }],
            ..OwnCombat::default()
        };
        let (cues, scopes) = build(&inputs(&s, &st, Some(&combat), Some(&dl)));
        let t = cues.target.expect("the locked foe");
        assert!(t.locked);
        assert!((t.range_m - (100.0f64.powi(2) + 2000.0f64.powi(2)).sqrt()).abs() < 1e-6);
        assert!(t.right_rad > 0.0 && t.up_rad.abs() < 1e-9);
        assert!((t.closure_mps - 200.0 * 2000.0 / t.range_m).abs() < 1e-6);
        let e = cues.envelope.expect("a zone for the AIM-9P");
        assert!(e.in_range() && e.max_m == 4500.0);
        assert!(cues.seeker.expect("seeker").tracking);
        let w = cues.weapon.expect("status");
        assert_eq!((w.label.as_str(), w.count), ("S2 AIM-9P", 1));
        assert_eq!(w.detail, "CHF 4/5", "no gun left on the own state");
        assert!(cues.gun.is_none(), "the gun is gone");
        assert_eq!(
            scopes.expect("scopes").contacts.len(),
            2,
            "not the own track"
        );
    }

    #[test]
    fn designation_cycles_through_hostile_tracks() {
        let own = fl_protocol::msg::combat::TRACK_FLAG_OWN_SENSOR;
        let dl = datalink(vec![
            track(2, [0.0, 0.0, -2500.0], Identification::Foe, 0),
            track(3, [0.0, 0.0, -2000.0], Identification::Foe, own),
            track(4, [0.0, 0.0, -2000.0], Identification::Friend, own),
            track(5, [0.0, 0.0, -3000.0], Identification::Foe, own),
            track(6, [0.0, 0.0, -3500.0], Identification::Foe, 0),
            track(7, [0.0, 0.0, -3000.0], Identification::Foe, own),
        ]);
        // Only foes the own sensors hold (2 and 6 are known from teammates only).
        assert_eq!(next_designation(&dl, Some(7), None), Some(3));
        assert_eq!(next_designation(&dl, Some(7), Some(3)), Some(5));
        assert_eq!(next_designation(&dl, Some(7), Some(5)), Some(3));
        assert_eq!(next_designation(&dl, Some(7), Some(2)), Some(3));
        assert_eq!(next_designation(&datalink(vec![]), Some(7), Some(5)), None);
        // A designated (unlocked) foe gets a dashed box and no seeker tone.
        let (s, st) = (state(), stations());
        let mut i = inputs(&s, &st, None, Some(&dl));
        i.designated = Some(5);
        let (cues, _) = build(&i);
        let t = cues.target.expect("designated");
        assert!(!t.locked && (t.range_m - 3000.0).abs() < 1e-9);
        assert!(!cues.seeker.expect("seeker").tracking);
    }
}
