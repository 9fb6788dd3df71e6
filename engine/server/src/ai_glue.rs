//! The AI's seat in the cockpit: what an AI-flown aircraft's controller may read besides the
//! flight views (its contacts, its own stores and radar mode — [`AiWorld`]), and how its
//! [`fl_ai::WeaponIntent`] becomes the same [`PilotInput`] a peer's `MsgClientInput` gives
//! ([`pilot_input`]), so AI fire goes through the player's fire control: the same refusals, the
//! same rate limits.
//!
//! Must not: decide whether a shot is allowed (combat's fire control does), or give the AI
//! anything a player's cockpit would not show. [`ai_contacts`] is the one temporary seam: it is
//! replaced by the server's sensing pass when that lands.

use crate::combat::stores::Delivery;
use crate::combat::{KEEP, PilotInput};
use fl_ai::weapons::{ContactView, SeekerClass, StationView, StoreKind, WeaponIntent};
use fl_ai::{EntityId, EntityView, GridWorld, WorldView, is_hostile};
use fl_flight::math::{Vec3, atan2};
use fl_protocol::enums::buttons;

/// How far the temporary seam sees, m (the eyeball's range).
pub const SEAM_SIGHT_RANGE_M: f64 = 10_000.0;
/// The temporary seam reports a contact locked inside this range, m ...
pub const SEAM_LOCK_RANGE_M: f64 = 15_000.0;
/// ... and this angle off the nose, rad (30°).
pub const SEAM_LOCK_HALF_ANGLE_RAD: f64 = 0.523_598_775_598_298_8;

/// The contacts of `observer` (a view out of `grid`).
///
/// TEMPORARY SEAM — replaced by the server's sensing pass (`contacts_of(entity)`, fl-combat's
/// `Sensing`) when it lands: until then every live hostile within [`SEAM_SIGHT_RANGE_M`] in the
/// observer's front hemisphere is a contact (its true position and velocity, age 0), locked
/// within [`SEAM_LOCK_RANGE_M`] and [`SEAM_LOCK_HALF_ANGLE_RAD`] of the nose. No terrain masking,
/// no probability of detection, no IFF errors.
pub fn ai_contacts(grid: &GridWorld, observer: &EntityView, visit: &mut dyn FnMut(&ContactView)) {
    let fwd = observer.forward();
    let mut found: Vec<ContactView> = Vec::new();
    grid.for_each_near(observer.position, SEAM_SIGHT_RANGE_M, &mut |e| {
        if e.id == observer.id || !e.alive || !is_hostile(observer.faction, e.faction) {
            return;
        }
        let d = e.position - observer.position;
        let range = d.length();
        if range.is_nan() || range > SEAM_SIGHT_RANGE_M || range <= 0.0 || d.dot(fwd) <= 0.0 {
            return;
        }
        let off = atan2(fwd.cross(d).length(), fwd.dot(d));
        found.push(ContactView {
            target: e.id,
            hostile: true,
            position: e.position,
            velocity: e.velocity,
            locked: range <= SEAM_LOCK_RANGE_M && off <= SEAM_LOCK_HALF_ANGLE_RAD,
            age_s: 0.0,
        });
    });
    // Index order, whatever order the grid visited in.
    found.sort_by_key(|c| c.target.index);
    for c in &found {
        visit(c);
    }
}

/// The stations of a loadout as the AI sees them (index order).
pub fn stations_of(loadout: &crate::combat::stores::Loadout) -> Vec<StationView> {
    loadout
        .stations
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let s = s.as_ref()?;
            let station = u8::try_from(i).ok()?;
            let kind = match &s.weapon.delivery {
                // The server's gun is a hitscan ray: no time of flight, no lead.
                Delivery::Gun(g) => StoreKind::Gun {
                    range_m: g.range_m,
                    muzzle_velocity_mps: f64::INFINITY,
                },
                Delivery::Missile(m) => {
                    let p = m.params();
                    let lobe = &p.seeker.track;
                    StoreKind::Missile {
                        seeker: if p.seeker.kind.is_radar() {
                            SeekerClass::Radar
                        } else {
                            SeekerClass::Infrared
                        },
                        min_range_m: p.min_range_m,
                        max_range_m: p.max_range_m,
                        seeker_half_angle_rad: lobe.az_half_angle_rad.min(lobe.el_half_angle_rad),
                        time_of_flight_s: p.time_of_flight_s,
                    }
                }
                Delivery::Ballistic(_) | Delivery::Inert => StoreKind::Other,
            };
            Some(StationView {
                station,
                kind,
                rounds: s.rounds,
            })
        })
        .collect()
}

/// One AI's world: the shared flight views plus what only its own cockpit knows.
#[derive(Debug)]
pub struct AiWorld<'a> {
    pub grid: &'a GridWorld,
    /// The AI's own view (the observer of [`WorldView::contacts`]).
    pub me: &'a EntityView,
    pub stations: &'a [StationView],
    pub radar_mode: u8,
}

impl WorldView for AiWorld<'_> {
    fn entity(&self, index: u32) -> Option<EntityView> {
        self.grid.entity(index)
    }

    fn for_each_near(&self, centre: Vec3, radius_m: f64, visit: &mut dyn FnMut(&EntityView)) {
        self.grid.for_each_near(centre, radius_m, visit);
    }

    fn contacts(&self, observer: EntityId, visit: &mut dyn FnMut(&ContactView)) {
        // Only the AI's own contacts: it is the only cockpit this view speaks for.
        if observer == self.me.id {
            ai_contacts(self.grid, self.me, visit);
        }
    }

    fn stores(&self, me: EntityId, visit: &mut dyn FnMut(&StationView)) {
        if me == self.me.id {
            self.stations.iter().for_each(visit);
        }
    }

    fn radar_mode(&self, me: EntityId) -> Option<u8> {
        (me == self.me.id).then_some(self.radar_mode)
    }
}

/// The input a peer would send for `intent`: trigger on buttons bit 0, release on bit 2,
/// station and radar mode absolute or [`KEEP`].
pub fn pilot_input(intent: &WeaponIntent) -> PilotInput {
    let mut b = 0;
    if intent.trigger {
        b |= buttons::GUN;
    }
    if intent.release {
        b |= buttons::FIRE_STORE;
    }
    PilotInput {
        buttons: b,
        selected_station: intent.station.unwrap_or(KEEP),
        radar_mode: intent.radar_mode.unwrap_or(KEEP),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(index: u32, faction: u16, p: Vec3) -> EntityView {
        EntityView::point(EntityId::new(index, 1), faction, p, Vec3::ZERO)
    }

    #[test]
    fn the_seam_sees_hostiles_ahead_within_range_and_locks_near_the_nose() {
        // A point view's nose is world −Z.
        let me = at(0, 1, Vec3::new(0.0, 3000.0, 0.0));
        let grid = GridWorld::from_entities(
            2000.0,
            [
                me,
                at(1, 2, Vec3::new(0.0, 3000.0, -2000.0)), // ahead: locked
                at(2, 2, Vec3::new(3000.0, 3000.0, -1000.0)), // ahead, 72° off: seen
                at(3, 2, Vec3::new(0.0, 3000.0, 2000.0)),  // behind
                at(4, 1, Vec3::new(0.0, 3000.0, -500.0)),  // friend
                at(5, 2, Vec3::new(0.0, 3000.0, -12_000.0)), // too far
            ],
        );
        let mut seen = Vec::new();
        ai_contacts(&grid, &me, &mut |c| seen.push((c.target.index, c.locked)));
        assert_eq!(seen, vec![(1, true), (2, false)]);
    }

    #[test]
    fn intents_map_to_the_input_bits() {
        let i = pilot_input(&WeaponIntent {
            trigger: true,
            release: true,
            station: Some(1),
            radar_mode: None,
        });
        assert_eq!(i.buttons, buttons::GUN | buttons::FIRE_STORE);
        assert_eq!((i.selected_station, i.radar_mode), (1, KEEP));
        assert_eq!(pilot_input(&WeaponIntent::default()).buttons, 0);
    }
}
