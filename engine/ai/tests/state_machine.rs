//! The state-machine composer: a flown patrol → engage → retreat → patrol sequence driven by
//! threat range and hit points, and scripted worlds that pin the transition rules exactly
//! (priority order, minimum dwell as hysteresis, reset on entry, the conditions).

mod common;

use common::*;
use fl_ai::*;
use fl_flight::Controls;
use fl_flight::math::Vec3;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

#[test]
fn flown_patrol_engage_retreat_patrol() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let me = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 90.0, 180.0, 1);
    let bandit = sim.add(0, Vec3::new(0.0, 4200.0, -15000.0), 180.0, 250.0, 2);
    let line = straight(&sim, bandit, 180.0);
    sim.set_controller(bandit, line);
    let threat = Target::NearestThreat { radius_m: 20_000.0 };
    let sm = StateMachine::builder()
        .state(
            "patrol",
            Box::new(
                Loiter::new(LoiterParams {
                    speed_mps: Some(180.0),
                    ..LoiterParams::default()
                })
                .expect("valid"),
            ),
        )
        .state(
            "engage",
            Box::new(Pursuit::lead(threat, 1.0).expect("valid")),
        )
        .state(
            "retreat",
            Box::new(Evade::new(threat, EvadeParams::default()).expect("valid")),
        )
        .transition(
            "patrol",
            "engage",
            Condition::ThreatWithinRange(6000.0),
            0.0,
        )
        .transition("engage", "retreat", Condition::HpBelow(0.25), 0.0)
        .transition(
            "retreat",
            "patrol",
            Condition::ThreatBeyondRange(9000.0),
            5.0,
        )
        .build()
        .expect("valid machine");
    sim.set_controller(me, Box::new(sm));

    // (state, tick that entered it, range and hp that tick's world showed)
    let mut log: Vec<(String, u64, f64, f64)> =
        vec![("patrol".into(), 0, sim.range(me, bandit), 1.0)];
    for _ in 0..(150 * 60) {
        if sim.tick == 70 * 60 {
            sim.crafts[me as usize].hp = 0.2; // hit at 70 s
        }
        // What this tick's world shows the machine.
        let seen_range = sim.range(me, bandit);
        let seen_hp = sim.crafts[me as usize].hp;
        sim.tick();
        let st = sim.status(me).unwrap_or_default();
        let state = st.split(' ').next().unwrap_or_default().to_string();
        if log.last().map(|l| &l.0) != Some(&state) {
            log.push((state, sim.tick - 1, seen_range, seen_hp));
        }
    }
    sim.assert_healthy();
    for (s, t, r, hp) in &log {
        println!(
            "{:6.1} s  {s:8} (range {r:.0} m, hp {hp})",
            *t as f64 / 60.0
        );
    }
    let states: Vec<&str> = log.iter().map(|l| l.0.as_str()).collect();
    assert_eq!(states, ["patrol", "engage", "retreat", "patrol"], "{log:?}");
    assert!(log[1].2 <= 6000.0, "engaged outside 6 km");
    assert!(
        log[1].1 > 5 * 60,
        "the bandit starts 15 km out; engaging at once is wrong"
    );
    assert!(
        log[2].3 < 0.25 && log[2].1 >= 70 * 60,
        "retreat only once hit"
    );
    assert!(log[3].2 > 9000.0, "back to patrol only beyond 9 km");
    assert!(log[3].1 - log[2].1 >= 5 * 60, "retreat dwelt at least 5 s");
}

/// A child that reports which state produced the controls (in the throttle) and counts resets.
#[derive(Debug)]
struct Marker {
    name: &'static str,
    value: f64,
    resets: Arc<AtomicU32>,
}

impl Controller for Marker {
    fn sample(&mut self, _me: &EntityView, _world: &dyn WorldView, _tick: u64) -> Controls {
        Controls {
            throttle: self.value,
            ..Controls::default()
        }
    }
    fn reset(&mut self) {
        self.resets.fetch_add(1, Ordering::Relaxed);
    }
    fn behaviour(&self) -> &'static str {
        self.name
    }
}

fn marker(name: &'static str, value: f64) -> (Box<dyn Controller>, Arc<AtomicU32>) {
    let resets = Arc::new(AtomicU32::new(0));
    (
        Box::new(Marker {
            name,
            value,
            resets: resets.clone(),
        }),
        resets,
    )
}

fn me_view() -> EntityView {
    EntityView::point(
        EntityId::new(0, 1),
        1,
        Vec3::new(0.0, 3000.0, 0.0),
        Vec3::new(0.0, 0.0, -200.0),
    )
}

fn world_with(others: &[EntityView]) -> GridWorld {
    GridWorld::from_entities(
        1000.0,
        std::iter::once(me_view()).chain(others.iter().copied()),
    )
}

fn hostile_at(index: u32, distance: f64) -> EntityView {
    EntityView::point(
        EntityId::new(index, 1),
        2,
        Vec3::new(distance, 3000.0, 0.0),
        Vec3::ZERO,
    )
}

/// Runs a two-state machine against a threat whose range alternates 5,900 / 6,100 m every tick;
/// returns (switches, shortest stay in ticks, resets of A and B).
fn chatter(dwell_s: f64) -> (u64, u64, u32, u32) {
    let (a, ra) = marker("a", 0.25);
    let (b, rb) = marker("b", 0.75);
    let mut sm = StateMachine::builder()
        .state("a", a)
        .state("b", b)
        .transition("a", "b", Condition::ThreatWithinRange(6000.0), dwell_s)
        .transition("b", "a", Condition::ThreatBeyondRange(6000.0), dwell_s)
        .build()
        .expect("valid");
    let me = me_view();
    let mut last_switch = 0u64;
    let mut shortest = u64::MAX;
    let mut current = sm.current_state().to_string();
    for tick in 0..1200u64 {
        let d = if tick % 2 == 0 { 5900.0 } else { 6100.0 };
        let world = world_with(&[hostile_at(1, d)]);
        let c = sm.sample(&me, &world, tick);
        let want = if sm.current_state() == "a" {
            0.25
        } else {
            0.75
        };
        assert_eq!(c.throttle, want, "controls come from the reported state");
        if sm.current_state() != current {
            if last_switch > 0 {
                shortest = shortest.min(tick - last_switch);
            }
            last_switch = tick;
            current = sm.current_state().to_string();
        }
    }
    (
        sm.switches(),
        shortest,
        ra.load(Ordering::Relaxed),
        rb.load(Ordering::Relaxed),
    )
}

#[test]
fn min_dwell_is_hysteresis_against_a_chattering_condition() {
    let (switches, shortest, ra, rb) = chatter(2.0);
    println!("dwell 2 s: {switches} switches, shortest stay {shortest} ticks");
    assert!(switches <= 10, "{switches}");
    assert!(
        switches >= 8,
        "the machine must still follow the condition: {switches}"
    );
    assert!(shortest >= 120, "{shortest}");
    // Every entry resets the entered child (A once more for the initial entry).
    assert_eq!(u64::from(ra + rb), switches + 1);
    // Without a dwell the same input flips the state on every tick.
    let (switches, shortest, _, _) = chatter(0.0);
    assert!(switches >= 1190, "{switches}");
    assert_eq!(shortest, 1);
}

#[test]
fn transitions_fire_in_priority_order_and_skip_the_active_state() {
    let (a, _) = marker("a", 0.1);
    let (b, _) = marker("b", 0.2);
    let (c, _) = marker("c", 0.3);
    let build = |global_first: bool| {
        let (a2, _) = marker("a", 0.1);
        let (b2, _) = marker("b", 0.2);
        let (c2, _) = marker("c", 0.3);
        let mut bld = StateMachine::builder()
            .state("a", a2)
            .state("b", b2)
            .state("c", c2);
        if global_first {
            bld = bld.global_transition("c", Condition::Always, 0.0);
        }
        bld.transition("a", "a", Condition::Always, 0.0)
            .transition("a", "b", Condition::Always, 0.0)
            .transition("a", "c", Condition::Always, 0.0)
            .build()
            .expect("valid")
    };
    let _ = (a, b, c);
    let me = me_view();
    let world = world_with(&[]);
    // The self-transition is skipped; the next one (to b) wins over the later one (to c).
    let mut sm = build(false);
    sm.sample(&me, &world, 0);
    assert_eq!(sm.current_state(), "b");
    // A global transition is tried before the state's own.
    let mut sm = build(true);
    sm.sample(&me, &world, 0);
    assert_eq!(sm.current_state(), "c");
    // reset() returns to the initial state.
    sm.reset();
    assert_eq!(sm.current_state(), "a");
    assert_eq!(sm.switches(), 0);
}

#[test]
fn conditions_read_the_world_correctly() {
    let me = me_view();
    let near_hostile = hostile_at(3, 4000.0);
    let far_hostile = hostile_at(4, 12_000.0);
    let neutral = EntityView::point(
        EntityId::new(5, 1),
        0,
        Vec3::new(0.0, 3000.0, 1000.0),
        Vec3::ZERO,
    );
    let friend = EntityView::point(
        EntityId::new(6, 1),
        1,
        Vec3::new(0.0, 3000.0, 500.0),
        Vec3::ZERO,
    );
    let mut dead = hostile_at(7, 100.0);
    dead.alive = false;
    let world = world_with(&[near_hostile, far_hostile, neutral, friend, dead]);
    let yes = |c: Condition| assert!(c.eval(&me, &world), "{c:?} should hold");
    let no = |c: Condition| assert!(!c.eval(&me, &world), "{c:?} should not hold");
    yes(Condition::ThreatWithinRange(4001.0));
    no(Condition::ThreatWithinRange(3999.0)); // the dead one at 100 m does not count
    yes(Condition::ThreatBeyondRange(3999.0));
    no(Condition::ThreatBeyondRange(4001.0));
    yes(Condition::AnyEntityWithinRange(600.0)); // the friend at 500 m
    no(Condition::AnyEntityWithinRange(400.0));
    yes(Condition::EntityWithinRange(EntityId::new(4, 1), 12_500.0));
    no(Condition::EntityWithinRange(EntityId::new(4, 2), 12_500.0)); // wrong generation
    yes(Condition::EntityBeyondRange(EntityId::new(4, 2), 12_500.0));
    yes(Condition::EntityBeyondRange(EntityId::new(7, 1), 1000.0)); // dead
    yes(Condition::EntityBeyondRange(EntityId::new(99, 1), 1000.0)); // no such slot
    no(Condition::HpBelow(0.5));
    let mut hurt = me;
    hurt.hp_fraction = 0.3;
    assert!(Condition::HpBelow(0.5).eval(&hurt, &world));
    yes(Condition::Always);
    yes(Condition::Always.and(Condition::ThreatWithinRange(5000.0)));
    no(Condition::Always.and(Condition::ThreatWithinRange(1000.0)));
    yes(Condition::ThreatWithinRange(1000.0).or(Condition::Always));
    no(Condition::Always.not());
    yes(Condition::HpBelow(0.5).not());
    // A neutral entity has no threats, and nobody's threat is a neutral.
    let mut neutral_me = me;
    neutral_me.faction = 0;
    assert!(!Condition::ThreatWithinRange(1.0e6).eval(&neutral_me, &world));
    assert!(Condition::AnyEntityWithinRange(600.0).eval(&neutral_me, &world));
}

#[test]
fn builder_rejects_inconsistent_machines() {
    let m = |n| marker(n, 0.0).0;
    assert_eq!(
        StateMachine::builder().build().err(),
        Some(StateMachineError::NoStates)
    );
    assert_eq!(
        StateMachine::builder()
            .state("a", m("a"))
            .state("a", m("a"))
            .build()
            .err(),
        Some(StateMachineError::DuplicateState("a".into()))
    );
    assert_eq!(
        StateMachine::builder()
            .state("a", m("a"))
            .transition("a", "b", Condition::Always, 0.0)
            .build()
            .err(),
        Some(StateMachineError::UnknownState("b".into()))
    );
    assert_eq!(
        StateMachine::builder()
            .state("a", m("a"))
            .transition("x", "a", Condition::Always, 0.0)
            .build()
            .err(),
        Some(StateMachineError::UnknownState("x".into()))
    );
    assert_eq!(
        StateMachine::builder()
            .state("a", m("a"))
            .initial("nope")
            .build()
            .err(),
        Some(StateMachineError::UnknownState("nope".into()))
    );
    assert!(matches!(
        StateMachine::builder()
            .state("a", m("a"))
            .transition("a", "a", Condition::Always, -1.0)
            .build(),
        Err(StateMachineError::BadDwell { .. })
    ));
    assert!(matches!(
        StateMachine::builder()
            .state("a", m("a"))
            .transition("a", "a", Condition::ThreatWithinRange(f64::NAN).not(), 0.0)
            .build(),
        Err(StateMachineError::BadCondition(_))
    ));
    let sm = StateMachine::builder()
        .state("a", m("a"))
        .state("b", m("b"))
        .initial("b")
        .build()
        .expect("valid");
    assert_eq!(sm.current_state(), "b");
    assert_eq!(sm.state_names().collect::<Vec<_>>(), ["a", "b"]);
}

#[test]
fn factory_defend_template_breaks_then_engages() {
    let mut sim = Sim::new(vec![ai_jet()]);
    let me = sim.add(0, Vec3::new(0.0, 4000.0, 0.0), 0.0, 180.0, 1);
    let bandit = sim.add(0, Vec3::new(3000.0, 4000.0, 12_000.0), 0.0, 260.0, 2);
    let line = straight(&sim, bandit, 0.0);
    sim.set_controller(bandit, line);
    let world = sim.world();
    let defend = build_from_line(
        "defend 5000",
        &FactoryContext {
            world: Some(&world),
            ..FactoryContext::default()
        },
    )
    .expect("valid template");
    assert_eq!(defend.behaviour(), "defend");
    sim.set_controller(me, defend);
    let mut log: Vec<(String, u64, f64)> = vec![("patrol".into(), 0, sim.range(me, bandit))];
    let mut n_max = 0.0f64;
    for _ in 0..(60 * 60) {
        let seen = sim.range(me, bandit);
        sim.tick();
        n_max = n_max.max(sim.load_factor(me));
        let st = sim.status(me).unwrap_or_default();
        let state = st.split(' ').next().unwrap_or_default().to_string();
        if log.last().map(|l| &l.0) != Some(&state) {
            log.push((state, sim.tick - 1, seen));
        }
    }
    sim.assert_healthy();
    for (s, t, r) in &log {
        println!("{:6.1} s  {s:8} (range {r:.0} m)", *t as f64 / 60.0);
    }
    println!("n max {n_max:.2}");
    let states: Vec<&str> = log.iter().map(|l| l.0.as_str()).collect();
    assert_eq!(&states[..3], ["patrol", "break", "engage"], "{log:?}");
    assert!(log[1].2 <= 5000.0);
    assert!(log[2].1 - log[1].1 >= 6 * 60, "break held for its 6 s");
    assert!(n_max > 4.0, "the break pulled");
}
