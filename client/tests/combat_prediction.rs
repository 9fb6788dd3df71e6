//! Issue 13: the own aircraft's prediction knows its stores, expendables and damage
//! (`SnapshotOwnState` format 2), so firing the gun, releasing stores, jettisoning, dispensing
//! and being damaged cost no corrections.
//!
//! A scripted pilot flies level and, over twenty seconds, fires the gun in bursts (the magazine's
//! mass falls round by round), releases two stores one after the other (the selection moves to
//! the next station with the same weapon), dispenses chaff and flares, jettisons the rest; the
//! aircraft is then shot twice by a second aircraft's gun on the server (the real gun and damage
//! path: down to a Heavy, then a Critical tier — less thrust, less stick, no afterburner — and
//! the hits striking subsystems: the left engine, the controls and the fuel tank fail, so half
//! the thrust, less stick again and a fuel leak). Over a perfect link and over a 100 ms RTT link, every
//! prediction after the spawn second equals the server's state bit for bit. With the combat
//! prediction switched off (`PredictionConfig::predict_combat`, the client as it was before the
//! combat words), the same script costs corrections — the test shows both.
//!
//! The sim's builtin jet carries no stores: the test arms the pilot's aircraft on the server
//! right after it spawns (a gun, three inert stores on four stations, chaff and flares, damage
//! tiers), inside the spawn second.

use fighters_legacy::autopilot::Level;
use fighters_legacy::client::{Pilot, PilotView};
use fighters_legacy::input_clock::PilotInput;
use fighters_legacy::sim::{Sim, SimConfig};
use fl_content::entity::{Subsystem, SubsystemPool};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_protocol::enums::WeaponType;
use fl_server::combat::Combatant;
use fl_server::combat::PilotInput as CombatInput;
use fl_server::combat::stores::{
    CombatType, Delivery, GunSpec, StationDef, Tier, Tiers, WeaponSpec,
};
use fl_server::pool::EntityId;
use fl_server::server::SpawnPoint;
use fl_server::world::{Body, Pilot as WorldPilot};
use std::sync::Arc;
use std::time::Duration;

/// Level flight with the trigger, release, countermeasure and jettison script on top.
struct Shooter;

impl Pilot for Shooter {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let mut i = Level.command(view);
        let t = view.ticks;
        // Gun bursts: 2 s, 0.5 s pause, 2 s, then a few single taps.
        i.gun = (120..240).contains(&t)
            || (270..390).contains(&t)
            || (420..900).contains(&t) && t % 40 < 3;
        // Two releases from station 1 (the second moves to station 2), then jettison.
        i.station = match t {
            470..=560 => Some(1),
            640..=660 => Some(fl_server::combat::JETTISON_STATION),
            _ => None,
        };
        i.fire_store = matches!(t, 480..=483 | 500..=503 | 520..=523 | 650..=655);
        i.chaff_flare = matches!(t, 580..=585 | 600..=605);
        i.throttle = 1.0;
        i.afterburner = (700..1000).contains(&t);
        i
    }
}

fn kit() -> Arc<CombatType> {
    let gun = Arc::new(WeaponSpec {
        id: "gun".into(),
        name: "M39".into(),
        class: WeaponType::Gun,
        mass_kg: 150.0,
        drag_cd0: 0.0,
        rounds: 280,
        delivery: Delivery::Gun(GunSpec {
            rate_milli_rpm: 1_500_000,
            range_m: 1500.0,
            dispersion_rad: 0.012,
            damage: 5.0,
        }),
        projectile_type: None,
        blast_radius_m: 0.0,
        damage: 5.0,
    });
    let tank = Arc::new(WeaponSpec {
        id: "store".into(),
        name: "Store".into(),
        class: WeaponType::Bomb,
        mass_kg: 230.0,
        drag_cd0: 0.004,
        rounds: 1,
        delivery: Delivery::Inert,
        projectile_type: None,
        blast_radius_m: 0.0,
        damage: 0.0,
    });
    let station = |slot, w: &Arc<WeaponSpec>| StationDef {
        slot,
        allowed: vec![w.id.clone()],
        default: Some(w.clone()),
    };
    let tier = |hp_fraction, thrust_factor, control_factor| {
        Some(Tier {
            hp_fraction,
            thrust_factor,
            control_factor,
            avionics_failure: false,
        })
    };
    Arc::new(CombatType {
        max_hp: 100.0,
        chaff: 10,
        flares: 10,
        stations: vec![
            station(0, &gun),
            station(1, &tank),
            station(2, &tank),
            station(3, &tank),
        ],
        tiers: Tiers {
            light: tier(0.7, 0.95, 1.0),
            heavy: tier(0.35, 0.7, 0.8),
            critical: tier(0.1, 0.35, 0.5),
        },
        // Subsystem pools the gun's hits strike (seeded): the left engine, the fuel tank and
        // the controls fail within a few hits (half the thrust, a leak, less stick); the right
        // engine is too tough to fail.
        subsystems: vec![
            (Subsystem::EngineLeft, pool(10.0)),
            (Subsystem::EngineRight, pool(1.0e6)),
            (Subsystem::Controls, pool(10.0)),
            (Subsystem::Fuel, pool(10.0)),
        ],
        ..CombatType::default()
    })
}

fn pool(hp: f64) -> SubsystemPool {
    SubsystemPool { hp, weight: 1.0 }
}

/// A fire is the server's hit-point business, not the flight model's; it is put out here so the
/// pilot lives to the end of the script.
fn put_out(sim: &mut Sim, id: EntityId) {
    if let Some(e) = sim.server_mut().and_then(|s| s.world_mut().get_mut(id)) {
        e.combat.systems.burning_since = None;
    }
}

fn hp(sim: &Sim, id: EntityId) -> f64 {
    sim.server()
        .and_then(|s| s.world().get(id))
        .map_or(f64::NAN, |e| e.combat.hp)
}

fn own_id(sim: &Sim) -> Option<EntityId> {
    sim.client().session().own_entity().map(|o| EntityId {
        index: o.idx,
        generation: o.generation,
    })
}

/// A second aircraft that trails the pilot 200 m behind, nose on it, and fires its gun (the
/// server's real gun: rays, dispersion, damage in the combat step) until the pilot's hit points
/// are down to `until_hp`, for at most `limit`.
fn shoot(sim: &mut Sim, shooter: EntityId, target: EntityId, until_hp: f64, limit: Duration) {
    let end = sim.now() + limit;
    while sim.now() < end {
        let Some(server) = sim.server_mut() else {
            return;
        };
        let world = server.world_mut();
        let Some(t) = world.get(target) else { return };
        if t.combat.hp <= until_hp {
            break;
        }
        let Some(own) = t.aircraft_state().copied() else {
            return;
        };
        if let Some(e) = world.get_mut(shooter) {
            if let Body::Aircraft { state, .. } = &mut e.body {
                state.position = own.position - own.forward() * 200.0;
                state.velocity = own.velocity;
                state.orientation = own.orientation;
                state.body_rates = own.body_rates;
            }
            e.combat.input = Some(CombatInput {
                buttons: fl_protocol::enums::buttons::GUN,
                selected_station: fl_server::combat::KEEP,
                radar_mode: fl_server::combat::KEEP,
                designate: None,
                designate_retry: false,
            });
        }
        sim.step();
    }
    // Back out of the way, the trigger released.
    sim.run_for(Duration::from_millis(100));
}

fn spawn_shooter(sim: &mut Sim) -> EntityId {
    let server = sim.server_mut().expect("server");
    let t = server
        .types()
        .pilot_type("", "builtin:jet-trainer")
        .expect("builtin jet");
    let at = SpawnPoint {
        x: 0.0,
        z: 20_000.0,
        altitude_m: 5000.0,
        heading_deg: 0.0,
        speed_mps: 200.0,
        anchor: None,
    };
    let id = server
        // Nobody flies it: the script places it and pulls its trigger (an AI pilot's own
        // weapons intent would replace the script's every tick).
        .spawn_aircraft(t, 2, WorldPilot::None, at)
        .expect("room");
    if let Some(e) = server.world_mut().get_mut(id) {
        e.combat = Combatant::armed(Some(kit()));
    }
    id
}

struct Outcome {
    compared: u64,
    corrections: u64,
    exact_basis_corrections: u64,
    rounds_left: u32,
    stores_left: usize,
    payload_kg: f64,
}

fn fly(link: LinkConfig, predict_combat: bool) -> Outcome {
    let mut cfg = SimConfig {
        link,
        ..SimConfig::default()
    };
    cfg.client.prediction.predict_combat = predict_combat;
    let mut sim = Sim::new(cfg, Box::new(Shooter)).expect("sim");
    assert!(
        sim.run_until(Duration::from_secs(5), |s| own_id(s).is_some()),
        "spawned"
    );
    let id = own_id(&sim).expect("own entity");
    if let Some(e) = sim.server_mut().and_then(|s| s.world_mut().get_mut(id)) {
        e.combat = Combatant::armed(Some(kit()));
        e.combat.payload_dirty = true;
    }
    let shooter = spawn_shooter(&mut sim);
    sim.run_for(Duration::from_secs(12));
    // Hit by a real gun: Heavy (less thrust and stick, no afterburner), then Critical.
    shoot(&mut sim, shooter, id, 30.0, Duration::from_secs(3));
    put_out(&mut sim, id);
    let heavy = hp(&sim, id);
    sim.run_for(Duration::from_secs(3));
    shoot(&mut sim, shooter, id, 10.0, Duration::from_secs(3));
    put_out(&mut sim, id);
    let critical = hp(&sim, id);
    sim.run_for(Duration::from_secs(5));

    let c = sim.client();
    let p = &c.prediction().stats;
    assert!(c.end_reason().is_none(), "{:?}", c.end_reason());
    let server = sim.server().expect("server");
    let e = server.world().get(id).expect("still flying");
    let rounds_left = e.combat.loadout.stations[0]
        .as_ref()
        .map_or(0, |s| s.rounds);
    let stores_left = e.combat.loadout.stations.iter().flatten().count();
    let payload_kg = e.aircraft_state().map_or(f64::NAN, |s| s.payload_kg);
    let failed: Vec<Subsystem> = e
        .combat
        .systems
        .pools
        .iter()
        .filter(|p| p.failed)
        .map(|p| p.which)
        .collect();
    for s in [Subsystem::EngineLeft, Subsystem::Controls, Subsystem::Fuel] {
        assert!(failed.contains(&s), "{s:?} failed: {failed:?}");
    }
    assert!(!failed.contains(&Subsystem::EngineRight));
    assert_eq!(
        e.combat.engine_fail_flags() & fl_protocol::enums::engine_fail::LEFT,
        fl_protocol::enums::engine_fail::LEFT
    );
    if predict_combat {
        let f = c
            .prediction()
            .combat()
            .and_then(|o| o.factors)
            .expect("the prediction knows the damage");
        assert_eq!(f.leak_kg_s, fl_server::combat::damage::FUEL_LEAK_KG_S);
        assert!(f.thrust < 0.35 * 0.51 && f.control < 0.5 * 0.41, "{f:?}");
    }
    let r = sim.report();
    assert!(
        heavy <= 30.0 && heavy > 10.0 && critical <= 10.0 && critical > 0.0,
        "damaged by the gun: {heavy} then {critical} hp"
    );
    println!(
        "predict_combat {predict_combat}: failed {failed:?} | compared {} exact-basis {} corrections {} (exact-basis {}) \
         | rounds left {rounds_left} stores left {stores_left} payload {payload_kg:.2} kg \
         | independent {:?} | pops {}",
        p.compared,
        p.exact_basis_compares,
        p.corrections,
        p.exact_basis_corrections,
        r.exactness,
        c.metrics.visual_pops,
    );
    Outcome {
        compared: p.compared,
        corrections: p.corrections,
        exact_basis_corrections: p.exact_basis_corrections,
        rounds_left,
        stores_left,
        payload_kg,
    }
}

fn the_script_ran(o: &Outcome) {
    // 2 + 2 s at 25 rounds/s, and the taps: the gun really fired.
    assert!(
        o.rounds_left > 0 && o.rounds_left < 280 - 100,
        "rounds left {}",
        o.rounds_left
    );
    assert_eq!(
        o.stores_left, 1,
        "two released, one jettisoned: only the gun"
    );
    let gun_mass = 150.0 / 280.0 * f64::from(o.rounds_left);
    assert_eq!(o.payload_kg, gun_mass);
    assert!(o.compared > 1000, "{} compares", o.compared);
}

fn check(link: LinkConfig) {
    let with = fly(link, true);
    the_script_ran(&with);
    assert_eq!(
        with.corrections, 0,
        "firing, releasing, jettisoning and damage cost no corrections"
    );
    let without = fly(link, false);
    the_script_ran(&without);
    assert!(
        without.exact_basis_corrections > 10,
        "without the combat words the same script costs corrections ({})",
        without.exact_basis_corrections
    );
}

#[test]
fn combat_costs_no_corrections_on_a_perfect_link() {
    check(LinkConfig::default());
}

#[test]
fn combat_costs_no_corrections_at_100_ms_rtt() {
    let way = DirectionConfig {
        latency: Duration::from_millis(50),
        ..DirectionConfig::default()
    };
    check(LinkConfig::symmetric(way));
}
