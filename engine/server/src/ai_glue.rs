//! The AI's seat in the cockpit: what an AI-flown aircraft's controller may read besides the
//! flight views (its contacts, its own stores and radar mode — [`AiWorld`]), and how its
//! [`fl_ai::WeaponIntent`] becomes the same [`PilotInput`] a peer's `MsgClientInput` gives
//! ([`pilot_input`]), so AI fire goes through the player's fire control: the same refusals, the
//! same rate limits.
//!
//! Must not: decide whether a shot is allowed (combat's fire control does), or give the AI
//! anything a player's cockpit would not show: its contacts are its own sensors' ([`contact_views`]).

use crate::combat::stores::Delivery;
use crate::combat::{KEEP, PilotInput};
use fl_ai::weapons::{ContactView, SeekerClass, StationView, StoreKind, WeaponIntent};
use fl_ai::{EntityId, EntityView, GridWorld, WorldView, is_hostile};
use fl_combat::sensing::{ContactState, Sensing};
use fl_flight::DT;
use fl_flight::math::{Quat, Vec3, atan2};
use fl_protocol::enums::buttons;

/// The contacts `observer` holds, as the AI reads them: its own sensors' picture
/// (fl-combat's [`Sensing`], checked at 10 Hz by the combat step), never the world's truth.
///
/// - A contact's target resolves through `views` (the flight views, by pool index) only while the
///   same generation holds the slot; a contact on a removed entity is dropped.
/// - `hostile` is the faction relation of the resolved target (IFF is perfect for now).
/// - `locked`: a firing-quality (STT) lock, or a track lobe holding it — what a seeker would be
///   cued onto.
/// - The position is dead-reckoned from the last fix by the fix's velocity over its age, as a
///   pilot's eye carries a target between glances; `age_s` still says how old the fix is.
///
/// Sorted by target index (the order fl-combat keeps).
pub fn contact_views(
    sensing: Option<&Sensing>,
    views: &[(crate::pool::EntityId, EntityView)],
    observer: &EntityView,
    tick: u64,
) -> Vec<ContactView> {
    let mut out = Vec::new();
    contact_views_into(sensing, views, observer, tick, &mut out);
    out
}

/// [`contact_views`] into `out` (cleared first), so the AI pass reuses one buffer per worker
/// thread across ticks instead of allocating one per AI per tick.
pub fn contact_views_into(
    sensing: Option<&Sensing>,
    views: &[(crate::pool::EntityId, EntityView)],
    observer: &EntityView,
    tick: u64,
    out: &mut Vec<ContactView>,
) {
    out.clear();
    let Some(sensing) = sensing else {
        return;
    };
    let found = sensing
        .contacts()
        .iter()
        .filter(|c| c.state != ContactState::Lost)
        .filter_map(|c| {
            let pos = views
                .binary_search_by_key(&c.target.index(), |(i, _)| i.index)
                .ok()?;
            let (id, view) = &views[pos];
            if id.generation as u16 != c.target.generation() || view.id == observer.id {
                return None;
            }
            let age_s = tick.saturating_sub(c.last_seen_tick) as f64 * DT;
            Some(ContactView {
                target: view.id,
                hostile: is_hostile(observer.faction, view.faction),
                position: c.position + c.velocity * age_s,
                velocity: c.velocity,
                locked: c.firing_quality || c.state == ContactState::Locked,
                age_s,
            })
        });
    out.extend(found);
}

/// The stations of a loadout as the AI sees them (index order).
pub fn stations_of(loadout: &crate::combat::stores::Loadout) -> Vec<StationView> {
    let mut out = Vec::new();
    stations_into(loadout, &mut out);
    out
}

/// [`stations_of`] into `out` (cleared first; a reused buffer, as [`contact_views_into`]).
pub fn stations_into(loadout: &crate::combat::stores::Loadout, out: &mut Vec<StationView>) {
    out.clear();
    let found = loadout.stations.iter().enumerate().filter_map(|(i, s)| {
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
    });
    out.extend(found);
}

/// One AI's cockpit buffers, kept per worker thread across ticks ([`with_scratch`]).
#[derive(Debug, Default)]
pub struct AiScratch {
    pub contacts: Vec<ContactView>,
    pub stations: Vec<StationView>,
}

thread_local! {
    /// Scratch of the AI pass: each sample fills it afresh (cleared first), so what was left in
    /// it from another AI or tick never shows; it only saves the allocations.
    static SCRATCH: std::cell::RefCell<AiScratch> = std::cell::RefCell::default();
}

/// Runs `f` with this thread's [`AiScratch`] (a fresh one if it is already in use, so a nested
/// call can never see another's buffers).
pub fn with_scratch<R>(f: impl FnOnce(&mut AiScratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut AiScratch::default()),
    })
}

/// One AI's world: the shared flight views plus what only its own cockpit knows.
#[derive(Debug)]
pub struct AiWorld<'a> {
    pub grid: &'a GridWorld,
    /// The AI's own view (the observer of [`WorldView::contacts`]).
    pub me: &'a EntityView,
    /// Its contacts ([`contact_views`]).
    pub contacts: &'a [ContactView],
    pub stations: &'a [StationView],
    pub radar_mode: u8,
    /// Pool indices of the player-flown entities, ascending ([`WorldView::player_owned`]).
    pub players: &'a [u32],
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
            self.contacts.iter().for_each(visit);
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

    fn player_owned(&self, index: u32) -> bool {
        self.players.binary_search(&index).is_ok()
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
        // STT without a designation locks the nearest radar contact (fl-combat's rule).
        designate: intent.designate.map(|id| id.index),
        designate_retry: false,
    }
}

/// How fast a ground site turns its launcher or gun toward its AI's aim, rad/s (about 57°/s:
/// a Shilka's turret traverses faster, a SAM launcher slower; one number keeps it simple).
pub const GROUND_SLEW_RATE_RAD_S: f64 = 1.0;

/// `orientation` turned toward the world direction `aim` by at most `max_step_rad`, then
/// levelled so the body's up stays in the plane of `up` and the nose (no roll: a turret
/// traverses and elevates). Pure and deterministic; a non-finite or zero `aim` holds.
pub fn slew_toward(orientation: Quat, aim: Vec3, up: Vec3, max_step_rad: f64) -> Quat {
    let aim = aim.normalize_or_zero();
    if aim == Vec3::ZERO || !aim.is_finite() || !up.is_finite() {
        return orientation;
    }
    let f = orientation.rotate(Vec3::new(0.0, 0.0, -1.0));
    let angle = atan2(f.cross(aim).length(), f.dot(aim));
    let nose = if angle <= max_step_rad {
        aim
    } else {
        let axis = f.cross(aim).normalize_or_zero();
        // Exactly behind: turn about the body's up (a traverse).
        let axis = if axis == Vec3::ZERO {
            orientation.rotate(Vec3::Y)
        } else {
            axis
        };
        Quat::from_axis_angle(axis, max_step_rad)
            .rotate(f)
            .normalize_or_zero()
    };
    look_along(nose, up).unwrap_or(orientation)
}

/// The orientation whose nose (body −Z) is `nose` and whose body up (Y) is as close to `up` as
/// the nose allows; `None` when the nose is along `up` (straight up or down: no unique roll).
fn look_along(nose: Vec3, up: Vec3) -> Option<Quat> {
    let right = nose.cross(up).normalize_or_zero();
    if right == Vec3::ZERO {
        return None;
    }
    let body_up = right.cross(nose);
    // Columns: body X = right, Y = body up, Z = aft.
    let q = fl_flight::geodetic::quat_from_basis(right, body_up, nose * -1.0).normalize();
    q.is_finite().then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_buffers_hold_only_this_call() {
        // A buffer left full by another AI (or tick) shows nothing of it.
        let me = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
        let stale = ContactView {
            target: EntityId::new(9, 1),
            hostile: true,
            position: Vec3::ZERO,
            velocity: Vec3::ZERO,
            locked: true,
            age_s: 0.0,
        };
        let mut contacts = vec![stale; 3];
        contact_views_into(None, &[], &me, 5, &mut contacts);
        assert!(contacts.is_empty());
        let mut stations = vec![
            StationView {
                station: 3,
                kind: StoreKind::Other,
                rounds: 1,
            };
            2
        ];
        let empty = crate::combat::stores::Loadout::default();
        stations_into(&empty, &mut stations);
        assert_eq!(stations, stations_of(&empty));
        // The thread's scratch comes back cleared by whoever fills it, and a nested use gets
        // its own.
        with_scratch(|outer| {
            outer.contacts.push(stale);
            with_scratch(|inner| assert!(inner.contacts.is_empty()));
        });
    }

    #[test]
    fn an_aircraft_without_sensors_has_no_contacts_whatever_is_near() {
        let me = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
        let enemy = EntityView::point(
            EntityId::new(1, 1),
            2,
            Vec3::new(0.0, 0.0, -300.0),
            Vec3::ZERO,
        );
        let views = [
            (
                crate::pool::EntityId {
                    index: 0,
                    generation: 1,
                },
                me,
            ),
            (
                crate::pool::EntityId {
                    index: 1,
                    generation: 1,
                },
                enemy,
            ),
        ];
        assert!(contact_views(None, &views, &me, 600).is_empty());
    }

    #[test]
    fn intents_map_to_the_input_bits() {
        let i = pilot_input(&WeaponIntent {
            trigger: true,
            release: true,
            station: Some(1),
            radar_mode: None,
            designate: Some(EntityId::new(7, 3)),
            aim: None,
        });
        assert_eq!(i.designate, Some(7));
        assert_eq!(i.buttons, buttons::GUN | buttons::FIRE_STORE);
        assert_eq!((i.selected_station, i.radar_mode), (1, KEEP));
        assert_eq!(pilot_input(&WeaponIntent::default()).buttons, 0);
        assert_eq!(pilot_input(&WeaponIntent::default()).designate, None);
    }

    #[test]
    fn a_site_slews_toward_its_aim_at_the_bounded_rate_and_stays_level() {
        let up = Vec3::Y;
        let mut q = Quat::IDENTITY; // nose -Z, level
        let aim = Vec3::new(1.0, 1.0, 0.0).normalize_or_zero(); // 90° right, 45° up
        let step = GROUND_SLEW_RATE_RAD_S * DT;
        let nose = |q: Quat| q.rotate(Vec3::new(0.0, 0.0, -1.0));
        let angle = |a: Vec3, b: Vec3| atan2(a.cross(b).length(), a.dot(b));
        let start = angle(nose(q), aim);
        q = slew_toward(q, aim, up, step);
        assert!((start - angle(nose(q), aim) - step).abs() < 1e-9);
        for _ in 0..200 {
            q = slew_toward(q, aim, up, step);
            // No roll: the right wing stays level.
            assert!(q.rotate(Vec3::new(1.0, 0.0, 0.0)).dot(up).abs() < 1e-9);
        }
        assert!(angle(nose(q), aim) < 1e-9, "reached the aim");
        // Straight behind turns too, and a zero aim holds.
        let behind = slew_toward(Quat::IDENTITY, Vec3::new(0.0, 0.0, 1.0), up, step);
        assert!((angle(nose(behind), Vec3::new(0.0, 0.0, -1.0)) - step).abs() < 1e-9);
        assert_eq!(slew_toward(q, Vec3::ZERO, up, step), q);
    }
}
