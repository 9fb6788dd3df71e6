//! The state-machine composer: named states, each driven by a child controller, with
//! priority-ordered, condition-gated transitions and a minimum dwell per transition.
//!
//! Owns: [`Condition`] (the built-in predicates and their combinators), [`StateMachine`] and its
//! validating [`StateMachineBuilder`]. Must not: construct controllers from text (that is the
//! factory's job) or consult anything but the entity, the world and the tick.
//!
//! Semantics, each tick: transitions are evaluated first — global ones (from any state), then the
//! active state's own, each list in the order it was added (earlier = higher priority); the first
//! whose dwell has elapsed and whose condition holds fires, unless it targets the active state
//! (then the next is tried). Entering a state resets its child controller and restarts the dwell
//! clock. Then the active child (possibly just entered) is sampled, so the reported state is always
//! the one that produced the controls.

use crate::controller::{Controller, idle_controls};
use crate::view::{
    EntityId, EntityView, WorldView, any_entity_within, live_entity, nearest_threat,
};
use crate::weapons::WeaponIntent;
use fl_flight::{Controls, DT};

/// A predicate over the entity and the world, evaluated at transition time.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// The nearest threat (a live entity of another non-neutral faction) is within the range, m.
    ThreatWithinRange(f64),
    /// No threat is within the range, m (none at all, or the nearest is farther).
    ThreatBeyondRange(f64),
    /// A specific entity is alive and within the range, m.
    EntityWithinRange(EntityId, f64),
    /// A specific entity is dead, gone, or farther than the range, m.
    EntityBeyondRange(EntityId, f64),
    /// The entity's hit points are below the fraction.
    HpBelow(f64),
    /// Any other live entity (any faction) is within the range, m.
    AnyEntityWithinRange(f64),
    /// Always true.
    Always,
    /// Both hold.
    And(Box<Condition>, Box<Condition>),
    /// Either holds.
    Or(Box<Condition>, Box<Condition>),
    /// The inner condition does not hold.
    Not(Box<Condition>),
}

impl Condition {
    /// Evaluates the condition for `me`.
    pub fn eval(&self, me: &EntityView, world: &dyn WorldView) -> bool {
        match self {
            Condition::ThreatWithinRange(r) => nearest_threat(me, world, *r).is_some(),
            Condition::ThreatBeyondRange(r) => nearest_threat(me, world, *r).is_none(),
            Condition::EntityWithinRange(id, r) => live_entity(world, *id)
                .is_some_and(|e| e.id.index != me.id.index && me.distance_sq(e.position) <= r * r),
            Condition::EntityBeyondRange(id, r) => !live_entity(world, *id)
                .is_some_and(|e| e.id.index != me.id.index && me.distance_sq(e.position) <= r * r),
            Condition::HpBelow(f) => me.hp_fraction < *f,
            Condition::AnyEntityWithinRange(r) => any_entity_within(me, world, *r),
            Condition::Always => true,
            Condition::And(a, b) => a.eval(me, world) && b.eval(me, world),
            Condition::Or(a, b) => a.eval(me, world) || b.eval(me, world),
            Condition::Not(a) => !a.eval(me, world),
        }
    }

    /// `self && other`.
    pub fn and(self, other: Condition) -> Condition {
        Condition::And(Box::new(self), Box::new(other))
    }

    /// `self || other`.
    pub fn or(self, other: Condition) -> Condition {
        Condition::Or(Box::new(self), Box::new(other))
    }

    /// `!self`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Condition {
        Condition::Not(Box::new(self))
    }

    fn check(&self) -> Result<(), StateMachineError> {
        let bad = |what: &str, v: f64| StateMachineError::BadCondition(format!("{what} = {v}"));
        match self {
            Condition::ThreatWithinRange(r)
            | Condition::ThreatBeyondRange(r)
            | Condition::EntityWithinRange(_, r)
            | Condition::EntityBeyondRange(_, r)
            | Condition::AnyEntityWithinRange(r) => {
                if !(r.is_finite() && *r >= 0.0) {
                    return Err(bad("range", *r));
                }
            }
            Condition::HpBelow(f) => {
                if !f.is_finite() {
                    return Err(bad("hp fraction", *f));
                }
            }
            Condition::Always => {}
            Condition::And(a, b) | Condition::Or(a, b) => {
                a.check()?;
                b.check()?;
            }
            Condition::Not(a) => a.check()?,
        }
        Ok(())
    }
}

/// A state machine that cannot be built as described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateMachineError {
    /// No states were added.
    #[error("a state machine needs at least one state")]
    NoStates,
    /// Two states share a name.
    #[error("state `{0}` is defined twice")]
    DuplicateState(String),
    /// A transition or the initial state names a state that does not exist.
    #[error("unknown state `{0}`")]
    UnknownState(String),
    /// A dwell time is negative or not finite.
    #[error("transition {from} -> {to}: min dwell {dwell} s must be a finite number ≥ 0")]
    BadDwell {
        /// Source state (`*` for a global transition).
        from: String,
        /// Target state.
        to: String,
        /// The dwell given.
        dwell: String,
    },
    /// A condition has a non-finite or negative parameter.
    #[error("bad condition parameter: {0}")]
    BadCondition(String),
}

#[derive(Debug)]
struct Transition {
    to: usize,
    condition: Condition,
    min_dwell_ticks: u64,
}

#[derive(Debug)]
struct State {
    name: String,
    controller: Box<dyn Controller>,
    transitions: Vec<Transition>,
}

/// Sequences child controllers. Build it with [`StateMachine::builder`].
#[derive(Debug)]
pub struct StateMachine {
    states: Vec<State>,
    global: Vec<Transition>,
    initial: usize,
    active: usize,
    entered_tick: Option<u64>,
    switches: u64,
    behaviour: &'static str,
}

/// Collects states and transitions; [`StateMachineBuilder::build`] checks them.
#[derive(Debug, Default)]
pub struct StateMachineBuilder {
    states: Vec<(String, Box<dyn Controller>)>,
    transitions: Vec<(Option<String>, String, Condition, f64)>,
    initial: Option<String>,
    behaviour: Option<&'static str>,
}

impl StateMachineBuilder {
    /// Names the behaviour this machine implements (a factory template's name); the default is
    /// `"state_machine"`.
    pub fn behaviour(mut self, name: &'static str) -> Self {
        self.behaviour = Some(name);
        self
    }

    /// Adds a state driven by `controller`. The first state added is the initial one unless
    /// [`StateMachineBuilder::initial`] says otherwise.
    pub fn state(mut self, name: &str, controller: Box<dyn Controller>) -> Self {
        self.states.push((name.to_string(), controller));
        self
    }

    /// Adds a transition `from → to` when `condition` holds and the state has been active for at
    /// least `min_dwell_s`. Transitions out of one state are tried in the order they are added.
    pub fn transition(
        mut self,
        from: &str,
        to: &str,
        condition: Condition,
        min_dwell_s: f64,
    ) -> Self {
        self.transitions.push((
            Some(from.to_string()),
            to.to_string(),
            condition,
            min_dwell_s,
        ));
        self
    }

    /// Adds a transition from any state (tried before the state's own transitions; the dwell
    /// refers to the active state's).
    pub fn global_transition(mut self, to: &str, condition: Condition, min_dwell_s: f64) -> Self {
        self.transitions
            .push((None, to.to_string(), condition, min_dwell_s));
        self
    }

    /// Chooses the initial state.
    pub fn initial(mut self, name: &str) -> Self {
        self.initial = Some(name.to_string());
        self
    }

    /// Checks names, dwells and conditions and builds the machine.
    pub fn build(self) -> Result<StateMachine, StateMachineError> {
        if self.states.is_empty() {
            return Err(StateMachineError::NoStates);
        }
        let mut states: Vec<State> = Vec::with_capacity(self.states.len());
        for (name, controller) in self.states {
            if states.iter().any(|s| s.name == name) {
                return Err(StateMachineError::DuplicateState(name));
            }
            states.push(State {
                name,
                controller,
                transitions: Vec::new(),
            });
        }
        let find = |states: &[State], n: &str| {
            states
                .iter()
                .position(|s| s.name == n)
                .ok_or_else(|| StateMachineError::UnknownState(n.to_string()))
        };
        let mut global = Vec::new();
        for (from, to, condition, dwell) in self.transitions {
            if !(dwell.is_finite() && dwell >= 0.0) {
                return Err(StateMachineError::BadDwell {
                    from: from.unwrap_or_else(|| "*".into()),
                    to,
                    dwell: dwell.to_string(),
                });
            }
            condition.check()?;
            let t = Transition {
                to: find(&states, &to)?,
                condition,
                min_dwell_ticks: dwell_ticks(dwell),
            };
            match from {
                Some(f) => {
                    let i = find(&states, &f)?;
                    states[i].transitions.push(t);
                }
                None => global.push(t),
            }
        }
        let initial = match &self.initial {
            Some(n) => find(&states, n)?,
            None => 0,
        };
        Ok(StateMachine {
            states,
            global,
            initial,
            active: initial,
            entered_tick: None,
            switches: 0,
            behaviour: self.behaviour.unwrap_or("state_machine"),
        })
    }
}

/// Seconds to whole ticks, rounded up (a 0.5 s dwell is 30 ticks).
fn dwell_ticks(s: f64) -> u64 {
    let t = s / DT;
    let r = libm::ceil(t - 1e-9);
    if r <= 0.0 {
        0
    } else {
        r.min(u64::MAX as f64) as u64
    }
}

impl StateMachine {
    /// A builder.
    pub fn builder() -> StateMachineBuilder {
        StateMachineBuilder::default()
    }

    /// The active state's name.
    pub fn current_state(&self) -> &str {
        &self.states[self.active].name
    }

    /// How many transitions have fired since the machine was built or reset.
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// Names of the states in the order they were added.
    pub fn state_names(&self) -> impl Iterator<Item = &str> {
        self.states.iter().map(|s| s.name.as_str())
    }

    fn enter(&mut self, idx: usize, tick: u64) {
        self.active = idx;
        self.entered_tick = Some(tick);
        self.states[idx].controller.reset();
    }

    fn pick(&self, me: &EntityView, world: &dyn WorldView, dwell: u64) -> Option<usize> {
        let own = &self.states[self.active].transitions;
        self.global
            .iter()
            .chain(own.iter())
            .filter(|t| t.to != self.active && dwell >= t.min_dwell_ticks)
            .find(|t| t.condition.eval(me, world))
            .map(|t| t.to)
    }
}

impl Controller for StateMachine {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls {
        if !me.alive {
            return idle_controls();
        }
        let entered = match self.entered_tick {
            Some(t) => t,
            None => {
                self.enter(self.active, tick);
                tick
            }
        };
        let dwell = tick.saturating_sub(entered);
        if let Some(next) = self.pick(me, world, dwell) {
            self.enter(next, tick);
            self.switches += 1;
        }
        self.states[self.active].controller.sample(me, world, tick)
    }

    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        // The active state decides (a patrol never fires; an engage state's pursuit does).
        self.states[self.active].controller.weapons(me, world, tick)
    }

    fn reset(&mut self) {
        for s in &mut self.states {
            s.controller.reset();
        }
        self.active = self.initial;
        self.entered_tick = None;
        self.switches = 0;
    }

    fn behaviour(&self) -> &'static str {
        self.behaviour
    }

    fn status(&self) -> Option<String> {
        let child = self.states[self.active].controller.status();
        Some(match child {
            Some(c) => format!("{} ({c})", self.current_state()),
            None => self.current_state().to_string(),
        })
    }
}
