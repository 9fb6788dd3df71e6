//! Damage: hit points, the damage level and engine-failure flags the entity record carries, what
//! damage does to the aircraft's controls, and who is credited when it dies.
//!
//! The rules (docs/combat.md):
//! - **Level** from the type's tiers: the worst tier whose `hp_fraction` the entity is at or
//!   below (Light 1, Heavy 2, Critical 3), Destroyed (4) at 0 hp or once out of the fight. A type
//!   with no tiers follows hit-point quarters and nothing degrades.
//! - **Effect** of the active tier: pitch, roll and yaw commands scale by `control_factor`, the
//!   throttle by `thrust_factor`, and the afterburner will not light below
//!   [`AFTERBURNER_MIN_THRUST_FACTOR`]. Applied to the controls the integrator steps with — a
//!   pure function of the controls and the record's damage level, so a client that knows its
//!   type's tiers predicts it exactly ([`effective_controls`], fl-combat's `own::effective_controls`,
//!   the one function the client's prediction calls with the factors `SnapshotOwnState` carries).
//! - `engineFailFlags` bit 0x01 (generic thrust impairment) from Heavy on, when the tier costs
//!   thrust (the spec: damageLevel ≥ Severe).
//! - **Credit**: the last damaging shooter is remembered with the tick; a crash or ejection within
//!   [`CREDIT_WINDOW_TICKS`] of it is that shooter's kill, later it is the environment's.
//!
//! Must not: decide what hit (weapons and missiles do), or send anything (events).

use crate::combat::stores::{CombatType, Tier};
use crate::pool::EntityId;
use fl_combat::own::DamageFactors;
use fl_flight::Controls;
use fl_protocol::enums::{DamageLevel, WeaponType};

/// A crash or ejection this soon after the last hit (15 s) is credited to the shooter.
pub const CREDIT_WINDOW_TICKS: u64 = 15 * 60;
/// Below this thrust factor a damaged engine cannot light its afterburner.
pub use fl_combat::own::AFTERBURNER_MIN_THRUST_FACTOR;
/// `engineFailFlags`: generic thrust impairment.
pub const ENGINE_FAIL_THRUST: u8 = fl_protocol::enums::engine_fail::GENERIC;

/// Who did damage, remembered for the kill credit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credit {
    /// The shooting entity (the launcher for a missile, rocket or bomb).
    pub by: EntityId,
    /// Its human pilot, if any, when it shot.
    pub owner: Option<u32>,
    /// Its faction when it shot.
    pub faction: u16,
    /// The weapon's class.
    pub weapon: WeaponType,
    /// Tick of the hit.
    pub tick: u64,
}

/// The level a hit-point fraction stands at for a type's tiers.
pub fn level_for(kit: Option<&CombatType>, hp_fraction: f64) -> DamageLevel {
    if hp_fraction.is_nan() || hp_fraction <= 0.0 {
        return DamageLevel::Destroyed;
    }
    let tiers = kit.map(|k| k.tiers).unwrap_or_default();
    if tiers.light.is_none() && tiers.heavy.is_none() && tiers.critical.is_none() {
        // No tiers: hit-point quarters (what the record always showed).
        return match ((1.0 - hp_fraction.clamp(0.0, 1.0)) * 4.0).floor() as u8 {
            0 => DamageLevel::Intact,
            1 => DamageLevel::Light,
            2 => DamageLevel::Heavy,
            _ => DamageLevel::Critical,
        };
    }
    let at = |t: Option<Tier>| t.is_some_and(|t| hp_fraction <= t.hp_fraction);
    if at(tiers.critical) {
        DamageLevel::Critical
    } else if at(tiers.heavy) {
        DamageLevel::Heavy
    } else if at(tiers.light) {
        DamageLevel::Light
    } else {
        DamageLevel::Intact
    }
}

/// The tier in force at a level (`None`: intact, destroyed, or the type has no such tier).
pub fn tier_at(kit: Option<&CombatType>, level: DamageLevel) -> Option<Tier> {
    let t = kit?.tiers;
    match level {
        DamageLevel::Light => t.light,
        DamageLevel::Heavy => t.heavy,
        DamageLevel::Critical => t.critical,
        DamageLevel::Intact | DamageLevel::Destroyed => None,
    }
}

/// `engineFailFlags` at a level.
pub fn engine_fail_flags(kit: Option<&CombatType>, level: DamageLevel) -> u8 {
    let impaired = matches!(level, DamageLevel::Heavy | DamageLevel::Critical)
        && tier_at(kit, level).is_some_and(|t| t.thrust_factor < 1.0);
    if impaired { ENGINE_FAIL_THRUST } else { 0 }
}

/// The controls an aircraft of type `kit` at damage `level` actually flies with when its pilot
/// commands `c`. Destroyed (or abandoned) aircraft fly with nobody at the stick. Shared with
/// client prediction: it must be given the level of the own entity's record.
pub fn effective_controls(c: Controls, kit: Option<&CombatType>, level: DamageLevel) -> Controls {
    fl_combat::own::effective_controls(
        c,
        damage_factors(kit, level),
        level == DamageLevel::Destroyed,
    )
}

/// The thrust and control factors of the tier in force (what `SnapshotOwnState` tells the
/// pilot's prediction).
pub fn damage_factors(kit: Option<&CombatType>, level: DamageLevel) -> Option<DamageFactors> {
    tier_at(kit, level).map(|t| DamageFactors {
        thrust: t.thrust_factor,
        control: t.control_factor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combat::stores::Tiers;

    fn f5e_like() -> CombatType {
        let tier = |hp, thrust, control| {
            Some(Tier {
                hp_fraction: hp,
                thrust_factor: thrust,
                control_factor: control,
                avionics_failure: false,
            })
        };
        CombatType {
            tiers: Tiers {
                light: tier(0.7, 0.95, 1.0),
                heavy: tier(0.35, 0.7, 0.8),
                critical: tier(0.1, 0.35, 0.5),
            },
            ..CombatType::default()
        }
    }

    #[test]
    fn levels_follow_the_tiers_and_quarters_without_them() {
        let k = f5e_like();
        let l = |f| level_for(Some(&k), f);
        assert_eq!(l(1.0), DamageLevel::Intact);
        assert_eq!(l(0.71), DamageLevel::Intact);
        assert_eq!(l(0.7), DamageLevel::Light);
        assert_eq!(l(0.35), DamageLevel::Heavy);
        assert_eq!(l(0.05), DamageLevel::Critical);
        assert_eq!(l(0.0), DamageLevel::Destroyed);
        assert_eq!(l(f64::NAN), DamageLevel::Destroyed);
        assert_eq!(level_for(None, 0.8), DamageLevel::Intact);
        assert_eq!(level_for(None, 0.6), DamageLevel::Light);
        assert_eq!(level_for(None, 0.2), DamageLevel::Critical);
    }

    #[test]
    fn the_tier_scales_the_controls_and_flags_the_engine() {
        let k = f5e_like();
        let c = Controls {
            pitch: 1.0,
            roll: -0.5,
            yaw: 0.2,
            throttle: 1.0,
            afterburner: true,
            ..Controls::default()
        };
        assert_eq!(effective_controls(c, Some(&k), DamageLevel::Intact), c);
        let light = effective_controls(c, Some(&k), DamageLevel::Light);
        assert_eq!(light.pitch, 1.0);
        assert!(light.afterburner, "0.95 thrust still lights the burner");
        let heavy = effective_controls(c, Some(&k), DamageLevel::Heavy);
        assert_eq!((heavy.pitch, heavy.roll), (0.8, -0.4));
        assert_eq!(heavy.throttle, 0.7);
        assert!(!heavy.afterburner);
        assert_eq!(
            effective_controls(c, Some(&k), DamageLevel::Destroyed),
            Controls::default()
        );
        assert_eq!(engine_fail_flags(Some(&k), DamageLevel::Light), 0);
        assert_eq!(
            engine_fail_flags(Some(&k), DamageLevel::Heavy),
            ENGINE_FAIL_THRUST
        );
        assert_eq!(engine_fail_flags(None, DamageLevel::Critical), 0);
    }

    #[test]
    fn the_own_state_words_carry_what_fire_control_and_damage_use() {
        use crate::combat::Combatant;
        use fl_combat::own::{OwnCombat, buttons as own};
        use fl_protocol::enums::buttons;
        // fl-combat does not depend on the wire: its button bits must be the wire's.
        assert_eq!(own::GUN, buttons::GUN);
        assert_eq!(own::FIRE_STORE, buttons::FIRE_STORE);
        assert_eq!(own::CHAFF_FLARE, buttons::CHAFF_FLARE);
        assert_eq!(own::EJECT, buttons::EJECT);
        assert_eq!(crate::combat::KEEP, fl_combat::own::KEEP);
        assert_eq!(
            crate::combat::JETTISON_STATION,
            fl_combat::own::JETTISON_STATION
        );
        const {
            assert!(
                fl_flight::AircraftState::WORDS + fl_combat::own::MAX_WORDS
                    <= fl_protocol::tlv::MAX_OWN_STATE_WORDS
            );
        }
        let mut c = Combatant::armed(Some(std::sync::Arc::new(f5e_like())));
        c.hp = 30.0;
        let own = c.own_combat(false);
        assert_eq!(
            own.factors,
            Some(DamageFactors {
                thrust: 0.7,
                control: 0.8
            })
        );
        assert!(!own.destroyed && !own.inert);
        assert_eq!(OwnCombat::from_words(&own.to_words()), Some(own));
        assert!(c.own_combat(true).inert, "a crashed aircraft fires nothing");
    }
}
