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
//! - **Subsystems** (`[damage.subsystems.*]`, on top of the tiers; [`Systems`]): every damaging
//!   hit that leaves the aircraft alive also strikes one subsystem, drawn (seeded) in proportion
//!   to the pools' `weight`, for the hit's damage against its own hit points. At 0 it fails, for
//!   good: an engine stops giving thrust (the thrust factor scales by the engines left, and the
//!   record's `engineFailFlags` sets LEFT/RIGHT for a twin's, GENERIC for a single's), controls
//!   (× [`CONTROLS_FAILED_FACTOR`]) and hydraulics (× [`HYDRAULICS_FAILED_FACTOR`]) cut control
//!   authority, a fuel pool leaks [`FUEL_LEAK_KG_S`] and the avionics strip the sensor suite to the
//!   eyeball. A failing fuel pool catches fire with [`FIRE_CHANCE_FUEL`], an engine with
//!   [`FIRE_CHANCE_ENGINE`].
//! - **Fire** burns [`FIRE_HP_FRACTION_PER_S`] of the type's hit points a second until it goes
//!   out (a seeded [`FIRE_OUT_CHANCE_PER_S`] each second) or the aircraft is destroyed; a burning
//!   aircraft sends a `Fire` effect every [`FIRE_EFFECT_EVERY_TICKS`].
//! - **Credit**: the last damaging shooter is remembered with the tick; a crash or ejection within
//!   [`CREDIT_WINDOW_TICKS`] of it is that shooter's kill, later it is the environment's.
//!
//! Must not: decide what hit (weapons and missiles do), or send anything (events).

use crate::combat::stores::{CombatType, Tier};
use crate::pool::EntityId;
use fl_combat::draw::{DrawKey, Purpose};
use fl_combat::own::DamageFactors;
use fl_content::entity::Subsystem;
use fl_flight::Controls;
use fl_protocol::enums::{DamageLevel, WeaponType};

/// A crash or ejection this soon after the last hit (15 s) is credited to the shooter.
pub const CREDIT_WINDOW_TICKS: u64 = 15 * 60;
/// Below this thrust factor a damaged engine cannot light its afterburner.
pub use fl_combat::own::AFTERBURNER_MIN_THRUST_FACTOR;
/// `engineFailFlags`: generic thrust impairment.
pub const ENGINE_FAIL_THRUST: u8 = fl_protocol::enums::engine_fail::GENERIC;

/// Control authority left with the flight controls failed.
pub const CONTROLS_FAILED_FACTOR: f64 = 0.4;
/// Control authority left with the hydraulics failed.
pub const HYDRAULICS_FAILED_FACTOR: f64 = 0.6;
/// A failed fuel pool's leak, kg/s (on top of the engines' burn).
pub const FUEL_LEAK_KG_S: f64 = 2.0;
/// Chance that a failing fuel pool catches fire.
pub const FIRE_CHANCE_FUEL: f64 = 0.5;
/// Chance that a failing engine catches fire.
pub const FIRE_CHANCE_ENGINE: f64 = 0.25;
/// Share of the type's hit points a fire burns each second.
pub const FIRE_HP_FRACTION_PER_S: f64 = 0.02;
/// Chance, checked once a second of burning, that the fire goes out.
pub const FIRE_OUT_CHANCE_PER_S: f64 = 0.1;
/// A burning aircraft's `Fire` effect interval, ticks (4 Hz).
pub const FIRE_EFFECT_EVERY_TICKS: u64 = 15;
/// `Purpose::Other` index ranges of damage's draws (distinct from other users of `Other`).
const DRAW_SUBSYSTEM: u32 = 0xDA00_0000;
const DRAW_FIRE_START: u32 = 0xDA10_0000;
const DRAW_FIRE_OUT: u32 = 0xDA20_0000;

/// One subsystem's pool on one aircraft.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pool {
    pub which: Subsystem,
    /// Hit points left.
    pub hp: f64,
    /// Relative chance that a hit strikes it.
    pub weight: f64,
    /// Its hit points ran out (for good).
    pub failed: bool,
}

/// One aircraft's subsystems and fire (docs/combat.md "Subsystems and fire").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Systems {
    /// The type's pools, in its (sorted) order.
    pub pools: Vec<Pool>,
    /// Burning since this tick.
    pub burning_since: Option<u64>,
    /// Subsystem strikes so far (each strike's draw index, so two hits in one tick differ).
    pub strikes: u32,
}

/// What one strike did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strike {
    /// The subsystem struck.
    pub which: Subsystem,
    /// It failed with this strike.
    pub failed: bool,
    /// A fire started with it.
    pub fire: bool,
}

fn is_engine(s: Subsystem) -> bool {
    matches!(
        s,
        Subsystem::Engine | Subsystem::EngineLeft | Subsystem::EngineRight
    )
}

impl Systems {
    /// Fresh pools for a type.
    pub fn for_type(kit: Option<&CombatType>) -> Self {
        let pools = kit
            .map(|k| {
                k.subsystems
                    .iter()
                    .map(|&(which, p)| Pool {
                        which,
                        hp: if p.hp.is_finite() { p.hp.max(0.0) } else { 0.0 },
                        weight: if p.weight.is_finite() {
                            p.weight.max(0.0)
                        } else {
                            0.0
                        },
                        failed: false,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            pools,
            ..Self::default()
        }
    }

    /// Whether `which` has failed.
    pub fn failed(&self, which: Subsystem) -> bool {
        self.pools.iter().any(|p| p.which == which && p.failed)
    }

    /// Whether the aircraft is burning.
    pub fn burning(&self) -> bool {
        self.burning_since.is_some()
    }

    /// The pool a uniform draw `u` in [0, 1) picks, in proportion to the weights (`None`: no pool
    /// has weight).
    pub fn pick(&self, u: f64) -> Option<usize> {
        let total: f64 = self.pools.iter().map(|p| p.weight).sum();
        // NaN or nothing weighted: no pool to strike.
        if total.is_nan() || total <= 0.0 {
            return None;
        }
        let mut at = u.clamp(0.0, 1.0) * total;
        let mut last = None;
        for (i, p) in self.pools.iter().enumerate() {
            if p.weight <= 0.0 {
                continue;
            }
            last = Some(i);
            if at < p.weight {
                return Some(i);
            }
            at -= p.weight;
        }
        last
    }

    /// One damaging hit of `amount` strikes a subsystem: drawn with `key` (its purpose and index
    /// are set here), the pool loses `amount`, and a pool that fails may start a fire at `tick`.
    pub fn strike(&mut self, amount: f64, key: DrawKey, tick: u64) -> Option<Strike> {
        let n = self.strikes;
        self.strikes = self.strikes.wrapping_add(1);
        let draw = |base: u32| {
            DrawKey {
                purpose: Purpose::Other,
                index: base | (n & 0x000F_FFFF),
                ..key
            }
            .unit()
        };
        let i = self.pick(draw(DRAW_SUBSYSTEM))?;
        let p = &mut self.pools[i];
        if p.failed {
            return Some(Strike {
                which: p.which,
                failed: false,
                fire: false,
            });
        }
        p.hp = (p.hp - amount.max(0.0)).max(0.0);
        if p.hp > 0.0 {
            return Some(Strike {
                which: p.which,
                failed: false,
                fire: false,
            });
        }
        p.failed = true;
        let which = p.which;
        let chance = match which {
            Subsystem::Fuel => FIRE_CHANCE_FUEL,
            w if is_engine(w) => FIRE_CHANCE_ENGINE,
            _ => 0.0,
        };
        let fire = self.burning_since.is_none() && draw(DRAW_FIRE_START) < chance;
        if fire {
            self.burning_since = Some(tick);
        }
        Some(Strike {
            which,
            failed: true,
            fire,
        })
    }

    /// The fire's hit-point loss this tick for a type of `max_hp` (0 when not burning), and
    /// whether it goes out this tick (a seeded check once each second of burning).
    pub fn burn(&mut self, max_hp: f64, key: DrawKey, tick: u64) -> f64 {
        let Some(since) = self.burning_since else {
            return 0.0;
        };
        let burnt = tick.saturating_sub(since);
        if burnt > 0 && burnt % 60 == 0 {
            let out = DrawKey {
                purpose: Purpose::Other,
                index: DRAW_FIRE_OUT,
                tick,
                ..key
            };
            if out.unit() < FIRE_OUT_CHANCE_PER_S {
                self.burning_since = None;
                return 0.0;
            }
        }
        max_hp * FIRE_HP_FRACTION_PER_S * fl_flight::DT
    }

    /// Share of the engines still running (1 with no engine pools).
    pub fn engine_share(&self) -> f64 {
        let engines = self.pools.iter().filter(|p| is_engine(p.which));
        let (mut all, mut up) = (0u32, 0u32);
        for p in engines {
            all += 1;
            up += u32::from(!p.failed);
        }
        if all == 0 {
            1.0
        } else {
            f64::from(up) / f64::from(all)
        }
    }

    /// Control authority the failed controls and hydraulics leave.
    pub fn control_share(&self) -> f64 {
        let mut f = 1.0;
        if self.failed(Subsystem::Controls) {
            f *= CONTROLS_FAILED_FACTOR;
        }
        if self.failed(Subsystem::Hydraulics) {
            f *= HYDRAULICS_FAILED_FACTOR;
        }
        f
    }

    /// The leak of a failed fuel pool, kg/s.
    pub fn leak_kg_s(&self) -> f64 {
        if self.failed(Subsystem::Fuel) {
            FUEL_LEAK_KG_S
        } else {
            0.0
        }
    }

    /// `engineFailFlags` bits of the failed engine pools.
    pub fn engine_flags(&self) -> u8 {
        use fl_protocol::enums::engine_fail;
        self.pools
            .iter()
            .filter(|p| p.failed)
            .map(|p| match p.which {
                Subsystem::EngineLeft => engine_fail::LEFT,
                Subsystem::EngineRight => engine_fail::RIGHT,
                Subsystem::Engine => engine_fail::GENERIC,
                _ => 0,
            })
            .fold(0, |a, b| a | b)
    }

    /// Bits of the state (determinism tests).
    pub fn hash_bits(&self) -> u64 {
        let mut h = self.burning_since.unwrap_or(u64::MAX) ^ u64::from(self.strikes) << 48;
        for p in &self.pools {
            h = h.rotate_left(13) ^ p.hp.to_bits() ^ u64::from(p.failed);
        }
        h
    }
}

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

/// `engineFailFlags` at a level, with the failed engines of `systems`.
pub fn engine_fail_flags(kit: Option<&CombatType>, level: DamageLevel, systems: &Systems) -> u8 {
    let impaired = matches!(level, DamageLevel::Heavy | DamageLevel::Critical)
        && tier_at(kit, level).is_some_and(|t| t.thrust_factor < 1.0);
    let tier = if impaired { ENGINE_FAIL_THRUST } else { 0 };
    tier | systems.engine_flags()
}

/// The controls an aircraft of type `kit` at damage `level` with `systems` actually flies with
/// when its pilot commands `c`. Destroyed (or abandoned) aircraft fly with nobody at the stick.
/// Shared with client prediction through the factors `SnapshotOwnState` carries.
pub fn effective_controls(
    c: Controls,
    kit: Option<&CombatType>,
    level: DamageLevel,
    systems: &Systems,
) -> Controls {
    fl_combat::own::effective_controls(
        c,
        damage_factors(kit, level, systems),
        level == DamageLevel::Destroyed,
    )
}

/// The thrust, control and leak factors of the tier in force times the failed subsystems' (what
/// `SnapshotOwnState` tells the pilot's prediction); `None` when nothing degrades.
pub fn damage_factors(
    kit: Option<&CombatType>,
    level: DamageLevel,
    systems: &Systems,
) -> Option<DamageFactors> {
    let tier = tier_at(kit, level);
    let (engines, control, leak) = (
        systems.engine_share(),
        systems.control_share(),
        systems.leak_kg_s(),
    );
    if tier.is_none() && engines == 1.0 && control == 1.0 && leak == 0.0 {
        return None;
    }
    let t = tier.map_or((1.0, 1.0), |t| (t.thrust_factor, t.control_factor));
    Some(DamageFactors {
        thrust: t.0 * engines,
        control: t.1 * control,
        leak_kg_s: leak,
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

    fn f5e_pools() -> Systems {
        use fl_content::entity::SubsystemPool;
        let k = CombatType {
            subsystems: vec![
                (
                    Subsystem::EngineLeft,
                    SubsystemPool {
                        hp: 40.0,
                        weight: 2.0,
                    },
                ),
                (
                    Subsystem::EngineRight,
                    SubsystemPool {
                        hp: 40.0,
                        weight: 2.0,
                    },
                ),
                (
                    Subsystem::Controls,
                    SubsystemPool {
                        hp: 25.0,
                        weight: 1.5,
                    },
                ),
                (
                    Subsystem::Avionics,
                    SubsystemPool {
                        hp: 15.0,
                        weight: 1.0,
                    },
                ),
                (
                    Subsystem::Fuel,
                    SubsystemPool {
                        hp: 50.0,
                        weight: 1.2,
                    },
                ),
            ],
            ..CombatType::default()
        };
        Systems::for_type(Some(&k))
    }

    fn key(seed: u64, tick: u64) -> DrawKey {
        DrawKey {
            seed,
            tick,
            actor: 7,
            subject: 3,
            purpose: Purpose::Other,
            index: 0,
        }
    }

    #[test]
    fn strikes_follow_the_weights_and_the_seed() {
        let mut s = f5e_pools();
        let n = 70_000u64;
        let mut count = [0u64; 5];
        for t in 0..n {
            let hit = s.strike(0.0, key(5, t), t).expect("a pool");
            let i = s
                .pools
                .iter()
                .position(|p| p.which == hit.which)
                .expect("pool");
            count[i] += 1;
        }
        let total: f64 = s.pools.iter().map(|p| p.weight).sum();
        for (i, p) in s.pools.iter().enumerate() {
            let share = count[i] as f64 / n as f64;
            let want = p.weight / total;
            assert!(
                (share - want).abs() < 0.01,
                "{:?}: {share:.4} vs {want:.4}",
                p.which
            );
        }
        // Same seed, same sequence; another seed, another.
        let seq = |seed| {
            let mut s = f5e_pools();
            (0..40)
                .map(|t| {
                    s.strike(8.0, key(seed, t / 3), t)
                        .map(|h| (h.which, h.failed, h.fire))
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(seq(11), seq(11));
        assert_ne!(seq(11), seq(12));
        assert!(
            seq(11).iter().any(|h| h.is_some_and(|h| h.1)),
            "some pool fails"
        );
    }

    #[test]
    fn failures_cut_thrust_authority_and_fuel() {
        let mut s = f5e_pools();
        assert_eq!(damage_factors(None, DamageLevel::Intact, &s), None);
        s.pools[0].failed = true;
        assert_eq!(s.engine_share(), 0.5);
        assert_eq!(s.engine_flags(), fl_protocol::enums::engine_fail::LEFT);
        s.pools[2].failed = true;
        s.pools[4].failed = true;
        let f = damage_factors(None, DamageLevel::Intact, &s).expect("degraded");
        assert_eq!(
            (f.thrust, f.control, f.leak_kg_s),
            (0.5, CONTROLS_FAILED_FACTOR, FUEL_LEAK_KG_S)
        );
        let k = f5e_like();
        let f = damage_factors(Some(&k), DamageLevel::Heavy, &s).expect("degraded");
        assert_eq!(
            (f.thrust, f.control),
            (0.7 * 0.5, 0.8 * CONTROLS_FAILED_FACTOR)
        );
        assert_eq!(
            engine_fail_flags(Some(&k), DamageLevel::Heavy, &s),
            ENGINE_FAIL_THRUST | fl_protocol::enums::engine_fail::LEFT
        );
    }

    #[test]
    fn a_fire_burns_until_it_goes_out_and_a_zero_weight_pool_is_never_struck() {
        let mut s = f5e_pools();
        s.burning_since = Some(100);
        let mut burnt = 0.0;
        let mut t = 100;
        while s.burning() && t < 100 + 60 * 600 {
            burnt += s.burn(100.0, key(3, 0), t);
            t += 1;
        }
        assert!(!s.burning(), "a fire goes out at last");
        assert!(burnt > 0.0 && (burnt - (t - 101) as f64 * 2.0 / 60.0).abs() < 1e-6);
        let mut z = f5e_pools();
        for p in &mut z.pools[1..] {
            p.weight = 0.0;
        }
        for t in 0..100 {
            assert_eq!(
                z.strike(0.0, key(1, t), t).map(|h| h.which),
                Some(Subsystem::EngineLeft)
            );
        }
        for p in &mut z.pools {
            p.weight = 0.0;
        }
        assert_eq!(z.strike(1.0, key(1, 0), 0), None);
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
        let none = Systems::default();
        let effective_controls = |c, k, l| effective_controls(c, k, l, &none);
        let engine_fail_flags = |k, l| engine_fail_flags(k, l, &none);
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
                control: 0.8,
                leak_kg_s: 0.0,
            })
        );
        assert!(!own.destroyed && !own.inert);
        assert_eq!(OwnCombat::from_words(&own.to_words()), Some(own));
        assert!(c.own_combat(true).inert, "a crashed aircraft fires nothing");
    }
}
