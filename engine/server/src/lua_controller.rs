//! The Lua controller: a mission object flown (or directed) by a content pack's script, as an
//! [`fl_ai::Controller`] the world samples like any builtin one.
//!
//! One [`ScriptInstance`] per scripted entity. Each tick [`LuaController::sample`] builds the
//! script's `state` from the entity's flight view, answers the script's queries through a
//! [`ScriptHost`] over the view the controller is given (contacts: the entity's own sensing via
//! [`WorldView::contacts`]; `nearby_entities` / `get_entity`: ground truth from the grid, on
//! purpose, for directors and instructors; `world.get_elapsed_time()`: mission time counted in
//! ticks), and turns the returned controls into fl-flight [`Controls`] and a
//! [`WeaponIntent`]. What the script asks of the world (`world.*`, `say`, `print`) goes to a
//! shared [`ScriptSink`], tagged with the object's index; the mission runner drains it after
//! the world step and orders it by object index, then call order — never by thread timing.
//!
//! A script that errors or breaks a limit is disabled by fl-script: the controller records the
//! reason once in the sink, logs it, and flies the builtin fallback from then on (a loiter for
//! aircraft, nothing for ground objects) — the server never stalls.
//!
//! Must not: touch the world (it only reads the views), read the wall clock, or depend on which
//! worker thread samples it.

use fl_ai::{Controller, EntityView, WeaponIntent, WorldView};
use fl_flight::Controls;
use fl_flight::math::{Quat, Vec3};
use fl_script::{
    AircraftView, CallOutcome, Contact, ContactState, EntityInfo, NearbyEntity, ScriptControls,
    ScriptEvent, ScriptHost, ScriptInstance,
};
use std::sync::{Arc, Mutex, MutexGuard};

/// A contact older than this reads `"coasting"` to a script, s (sensing refreshes at 10 Hz).
pub const COASTING_AFTER_S: f64 = 1.0;

/// fl-flight's engine body frame (+X right wing, +Y up, +Z aft) from the scripts' body frame
/// (+X nose, +Y up, +Z right wing): a quarter turn about +Y. A script's quaternion is the
/// entity's orientation followed by this.
const SCRIPT_BODY: Quat = Quat {
    w: std::f64::consts::FRAC_1_SQRT_2,
    x: 0.0,
    y: std::f64::consts::FRAC_1_SQRT_2,
    z: 0.0,
};

/// The orientation a script sees (body +X nose, +Z right wing → world) of an engine quaternion.
pub fn script_quat(engine: Quat) -> Quat {
    engine.then(SCRIPT_BODY)
}

#[derive(Debug, Default)]
struct SinkInner {
    events: Vec<(usize, ScriptEvent)>,
    errors: Vec<(usize, String)>,
}

/// Where every Lua controller of a mission leaves its events and its disable reasons.
#[derive(Debug, Default)]
pub struct ScriptSink {
    inner: Mutex<SinkInner>,
}

impl ScriptSink {
    fn lock(&self) -> MutexGuard<'_, SinkInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn push_events(&self, object: usize, events: &mut Vec<ScriptEvent>) {
        if events.is_empty() {
            return;
        }
        let mut g = self.lock();
        g.events.extend(events.drain(..).map(|e| (object, e)));
    }

    fn push_error(&self, object: usize, reason: String) {
        self.lock().errors.push((object, reason));
    }

    /// Takes the events and disable reasons left since the last drain, each list ordered by
    /// object index and, within one object, in the order its script produced them (one
    /// controller pushes one call's events together, so a stable sort keeps call order).
    pub fn drain(&self) -> Drained {
        let mut g = self.lock();
        let mut events = std::mem::take(&mut g.events);
        let mut errors = std::mem::take(&mut g.errors);
        events.sort_by_key(|(o, _)| *o);
        errors.sort_by_key(|(o, _)| *o);
        Drained { events, errors }
    }
}

/// What [`ScriptSink::drain`] took: `(object index, …)` pairs in object, then call order.
#[derive(Debug, Default, PartialEq)]
pub struct Drained {
    /// The scripts' events.
    pub events: Vec<(usize, ScriptEvent)>,
    /// The disable reasons.
    pub errors: Vec<(usize, String)>,
}

/// A scripted entity's pilot.
pub struct LuaController {
    object: usize,
    instance: ScriptInstance,
    /// World tick of the mission's start: `elapsed_s` and the script's `tick` count from it.
    start_tick: u64,
    type_index: u32,
    max_hp: f64,
    /// Flies the entity once the script is disabled (`None`: idle controls, no intent).
    fallback: Option<Box<dyn Controller>>,
    disabled: bool,
    sink: Arc<ScriptSink>,
    last: ScriptControls,
    scratch: Vec<ScriptEvent>,
}

impl std::fmt::Debug for LuaController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaController")
            .field("object", &self.object)
            .field("script", &self.instance.name())
            .field("disabled", &self.disabled)
            .finish_non_exhaustive()
    }
}

impl LuaController {
    /// The controller of mission object `object` running `instance` (loaded by the caller),
    /// started at world tick `start_tick`, flying `fallback` once the script is disabled.
    pub fn new(
        object: usize,
        instance: ScriptInstance,
        start_tick: u64,
        type_index: u32,
        max_hp: f64,
        fallback: Option<Box<dyn Controller>>,
        sink: Arc<ScriptSink>,
    ) -> Self {
        Self {
            object,
            instance,
            start_tick,
            type_index,
            max_hp: if max_hp.is_finite() && max_hp > 0.0 {
                max_hp
            } else {
                1.0
            },
            fallback,
            disabled: false,
            sink,
            last: ScriptControls::default(),
            scratch: Vec::new(),
        }
    }

    /// The script's name.
    pub fn script(&self) -> &str {
        self.instance.name()
    }

    /// True once the script is disabled (the fallback flies).
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }

    fn view(&self, me: &EntityView, world: &dyn WorldView) -> AircraftView {
        let hp = me.hp_fraction.clamp(0.0, 1.0);
        let damage_level = if !me.alive {
            4
        } else if hp >= 1.0 {
            0
        } else if hp >= 2.0 / 3.0 {
            1
        } else if hp >= 1.0 / 3.0 {
            2
        } else {
            3
        };
        AircraftView {
            idx: me.id.index,
            pos: me.position,
            vel: me.velocity,
            quat: script_quat(me.orientation),
            faction: faction_u8(me.faction),
            hp: hp * self.max_hp,
            max_hp: self.max_hp,
            damage_level,
            dead: !me.alive,
            player_owned: world.player_owned(me.id.index),
            owner_id: 0,
            type_index: self.type_index,
        }
    }

    fn fallback_controls(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls {
        match &mut self.fallback {
            Some(f) => f.sample(me, world, tick),
            None => fl_ai::controller::idle_controls(),
        }
    }
}

fn faction_u8(f: u16) -> u8 {
    u8::try_from(f).unwrap_or(u8::MAX)
}

/// fl-flight controls of a script's (already bounded) controls.
pub fn controls_of(c: &ScriptControls) -> Controls {
    Controls {
        pitch: c.elevator,
        roll: c.aileron,
        yaw: c.rudder,
        throttle: c.throttle,
        afterburner: c.afterburner,
        speedbrake: c.speedbrake,
        gear_down: c.gear_down,
        ..Controls::default()
    }
}

/// The weapons intent of a script's controls: trigger level, release (the server fires on the
/// press edge), absolute station select.
pub fn intent_of(c: &ScriptControls) -> WeaponIntent {
    WeaponIntent {
        trigger: c.trigger,
        release: c.release,
        station: c.weapon_station,
        ..WeaponIntent::default()
    }
}

impl Controller for LuaController {
    fn sample(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> Controls {
        if self.disabled {
            return self.fallback_controls(me, world, tick);
        }
        let view = self.view(me, world);
        let mission_tick = tick.saturating_sub(self.start_tick);
        let mut host = Host {
            me,
            world,
            elapsed_s: mission_tick as f64 * fl_flight::DT,
            events: &mut self.scratch,
        };
        let outcome = self
            .instance
            .compute_control(&mut host, &view, mission_tick, fl_flight::DT);
        self.sink.push_events(self.object, &mut self.scratch);
        match outcome {
            CallOutcome::Controls(c) => {
                self.last = c;
                controls_of(&c)
            }
            CallOutcome::Disabled { reason, just_now } => {
                if just_now {
                    tracing::warn!(object = self.object, %reason, "Lua script disabled: a builtin controller flies the object");
                    self.sink.push_error(self.object, reason);
                }
                self.disabled = true;
                self.last = ScriptControls::default();
                self.fallback_controls(me, world, tick)
            }
        }
    }

    fn weapons(&mut self, me: &EntityView, world: &dyn WorldView, tick: u64) -> WeaponIntent {
        if self.disabled {
            return match &mut self.fallback {
                Some(f) => f.weapons(me, world, tick),
                None => WeaponIntent::default(),
            };
        }
        intent_of(&self.last)
    }

    fn behaviour(&self) -> &'static str {
        "lua"
    }

    fn status(&self) -> Option<String> {
        Some(if self.disabled {
            format!("{} (disabled)", self.instance.name())
        } else {
            self.instance.name().to_owned()
        })
    }
}

/// The script's world during one call.
struct Host<'a> {
    me: &'a EntityView,
    world: &'a dyn WorldView,
    elapsed_s: f64,
    events: &'a mut Vec<ScriptEvent>,
}

impl ScriptHost for Host<'_> {
    fn detected_contacts(&self) -> Vec<Contact> {
        let mut out = Vec::new();
        self.world.contacts(self.me.id, &mut |c| {
            let faction = self
                .world
                .entity(c.target.index)
                .filter(|e| e.id == c.target)
                .map_or(0, |e| faction_u8(e.faction));
            let state = if c.locked {
                ContactState::Locked
            } else if c.age_s > COASTING_AFTER_S {
                ContactState::Coasting
            } else {
                ContactState::Detected
            };
            out.push(Contact {
                idx: c.target.index,
                pos: c.position,
                vel: c.velocity,
                faction,
                age_s: c.age_s,
                reacted: true,
                state,
            });
        });
        out.sort_by_key(|c| c.idx);
        out
    }

    fn nearby_entities(&self, x: f64, z: f64, radius_m: f64) -> Vec<NearbyEntity> {
        let mut out = Vec::new();
        if !(x.is_finite() && z.is_finite() && radius_m.is_finite()) || radius_m < 0.0 {
            return out;
        }
        let r2 = radius_m * radius_m;
        // The query is a circle in the world XZ plane; the grid's is a 3-D ball. An unbounded
        // ball visits every entity once; the exact test is here.
        let centre = Vec3::new(x, self.me.position.y, z);
        self.world.for_each_near(centre, f64::INFINITY, &mut |e| {
            let (dx, dz) = (e.position.x - x, e.position.z - z);
            if dx * dx + dz * dz <= r2 {
                out.push(NearbyEntity {
                    idx: e.id.index,
                    pos: e.position,
                });
            }
        });
        out.sort_by_key(|e| e.idx);
        out
    }

    fn get_entity(&self, idx: u32) -> Option<EntityInfo> {
        let e = self.world.entity(idx)?;
        Some(EntityInfo {
            idx,
            pos: e.position,
            vel: e.velocity,
            quat: script_quat(e.orientation),
            faction: faction_u8(e.faction),
            dead: !e.alive,
            player_owned: self.world.player_owned(idx),
        })
    }

    fn elapsed_s(&self) -> f64 {
        self.elapsed_s
    }

    fn event(&mut self, event: ScriptEvent) {
        self.events.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_ai::{EntityId, GridWorld};

    #[test]
    fn the_script_quaternion_puts_the_nose_on_body_x_and_the_right_wing_on_body_z() {
        let q = Quat::from_axis_angle(Vec3::new(0.3, 0.8, -0.52).normalize_or_zero(), 1.1);
        let mut me = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
        me.orientation = q;
        let s = script_quat(q);
        let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-12;
        assert!(close(s.rotate(Vec3::new(1.0, 0.0, 0.0)), me.forward()));
        assert!(close(s.rotate(Vec3::new(0.0, 0.0, 1.0)), me.right()));
        assert!(close(s.rotate(Vec3::Y), me.body_up()));
        assert!(close(fl_script::guidance::body_forward(s), me.forward()));
    }

    fn director(src: &str) -> (LuaController, Arc<ScriptSink>) {
        let sources = fl_script::ScriptSources::from_map([("d", src)]).expect("sources");
        let inst =
            ScriptInstance::load(&sources, "d", 7, fl_script::Limits::default()).expect("loads");
        let sink = Arc::new(ScriptSink::default());
        (
            LuaController::new(3, inst, 100, 0, 60.0, None, sink.clone()),
            sink,
        )
    }

    #[test]
    fn events_reach_the_sink_and_ground_truth_queries_see_the_grid() {
        let (mut c, sink) = director(
            "function compute_control(s, tick, dt)
               local n = #nearby_entities(s.pos.x, s.pos.z, 1000)
               local e = get_entity(1)
               say('n=' .. n .. ' f=' .. e.faction .. ' t=' .. tick)
               if world.get_elapsed_time() >= 0.5 then world.mission_success() end
               return { throttle = 0.5, trigger = true, weapon_station = 1 }
             end",
        );
        let me = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
        let other = EntityView::point(
            EntityId::new(1, 1),
            2,
            Vec3::new(500.0, 0.0, 0.0),
            Vec3::ZERO,
        );
        let far = EntityView::point(
            EntityId::new(2, 1),
            2,
            Vec3::new(5000.0, 0.0, 0.0),
            Vec3::ZERO,
        );
        let grid = GridWorld::from_entities(10_000.0, [me, other, far]);
        let controls = c.sample(&me, &grid, 130);
        assert_eq!(controls.throttle, 0.5);
        let intent = c.weapons(&me, &grid, 130);
        assert!(intent.trigger);
        assert_eq!(intent.station, Some(1));
        let Drained { events, errors } = sink.drain();
        assert!(errors.is_empty());
        assert_eq!(
            events,
            vec![
                (3, ScriptEvent::Say("n=2 f=2 t=30".into())),
                (
                    3,
                    ScriptEvent::World(fl_script::WorldAction::MissionSuccess)
                )
            ]
        );
    }

    #[test]
    fn an_erroring_script_is_recorded_once_and_the_entity_idles() {
        let (mut c, sink) = director("function compute_control() error('boom') end");
        let me = EntityView::point(EntityId::new(0, 1), 1, Vec3::ZERO, Vec3::ZERO);
        let grid = GridWorld::from_entities(10_000.0, [me]);
        for t in 100..105 {
            let controls = c.sample(&me, &grid, t);
            assert_eq!(controls, fl_ai::controller::idle_controls());
        }
        assert!(c.is_disabled());
        let errors = sink.drain().errors;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].1.contains("ai/d.lua") && errors[0].1.contains("boom"),
            "{errors:?}"
        );
    }
}
