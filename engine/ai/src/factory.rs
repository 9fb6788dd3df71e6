//! Builds controllers from text: a behaviour name and its arguments, for admin commands and
//! mission files.
//!
//! Owns: the behaviour grammar (see `docs/ai.md`): `name [positional…] [key=value…]`, with
//! positional arguments filling the behaviour's parameters in their documented order and named
//! ones filling them by key; every bad input is an [`FactoryError`] naming the behaviour, the
//! argument and what is wrong. Must not: panic on any input, or look at the world beyond
//! resolving a target index to its current generation.

use crate::autopilot::Power;
use crate::controller::{Controller, ParamError};
use crate::controllers::break_turn::{BreakTurn, BreakTurnParams};
use crate::controllers::evade::{Evade, EvadeParams};
use crate::controllers::ground::{Aaa, AaaParams, Sam, SamParams};
use crate::controllers::heading::{HeadingHold, HeadingParams};
use crate::controllers::loiter::{Direction, Loiter, LoiterParams};
use crate::controllers::pursuit::{Pursuit, PursuitMode, PursuitParams};
use crate::controllers::waypoint::{Waypoint, WaypointParams};
use crate::state_machine::{Condition, StateMachine, StateMachineError};
use crate::view::{DEFAULT_THREAT_RADIUS_M, EntityId, Target, WorldView};
use fl_flight::geodetic::{self, Enu, Geodetic};
use fl_flight::gravity::Planet;
use fl_flight::math::Vec3;

/// The behaviours [`build`] knows, in documentation order.
pub const BEHAVIOURS: [&str; 13] = [
    "loiter",
    "heading",
    "waypoint",
    "pursuit",
    "lead",
    "lag",
    "attack",
    "evade",
    "break",
    "patrol_attack",
    "defend",
    "sam",
    "aaa",
];

/// Why a behaviour could not be built. Each variant is one self-contained line a person reads
/// as a whole (a config key's value, a `--ai` argument): the parameter or state-machine detail
/// is part of the text and deliberately not also exposed as `source`, so printing the chain
/// (anyhow's `{:#}`) never says it twice.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FactoryError {
    /// The spec was empty.
    #[error("no behaviour given; known: {}", BEHAVIOURS.join(", "))]
    Empty,
    /// The behaviour name is not one of [`BEHAVIOURS`].
    #[error("unknown behaviour `{0}`; known: {known}", known = BEHAVIOURS.join(", "))]
    UnknownBehaviour(String),
    /// A named argument the behaviour does not take.
    #[error("{behaviour}: unknown argument `{key}`; accepted: {accepted}")]
    UnknownArg {
        /// Behaviour.
        behaviour: &'static str,
        /// The key given.
        key: String,
        /// The keys the behaviour accepts.
        accepted: String,
    },
    /// An argument given twice (by position and by name, or by name twice).
    #[error("{behaviour}: argument `{key}` given more than once")]
    DuplicateArg {
        /// Behaviour.
        behaviour: &'static str,
        /// The key.
        key: String,
    },
    /// More positional arguments than the behaviour has positions.
    #[error("{behaviour}: unexpected positional argument `{value}` (positions: {positions})")]
    TooManyPositional {
        /// Behaviour.
        behaviour: &'static str,
        /// The first extra argument.
        value: String,
        /// The behaviour's positional parameters, in order.
        positions: String,
    },
    /// A required argument is missing.
    #[error("{behaviour}: missing required argument `{key}`")]
    MissingArg {
        /// Behaviour.
        behaviour: &'static str,
        /// The key.
        key: &'static str,
    },
    /// An argument's text is not a value of the right kind.
    #[error("{behaviour}: `{key}` = `{value}`: {problem}")]
    BadValue {
        /// Behaviour.
        behaviour: &'static str,
        /// The key.
        key: String,
        /// The text given.
        value: String,
        /// What was expected.
        problem: String,
    },
    /// A value of the right kind but outside the parameter's range.
    #[error("{behaviour}: {error}")]
    Param {
        /// Behaviour.
        behaviour: &'static str,
        /// The range error (in the text, not a `source`).
        error: ParamError,
    },
    /// The state machine a template describes is inconsistent (a bug in the template).
    #[error("{behaviour}: {error}")]
    StateMachine {
        /// Behaviour.
        behaviour: &'static str,
        /// The builder's error (in the text, not a `source`).
        error: StateMachineError,
    },
}

/// What the factory may consult while building.
#[derive(Clone, Copy, Default)]
pub struct FactoryContext<'a> {
    /// The world, for resolving a bare target index to the generation that occupies it now.
    /// Without it, targets must be given as `index:generation` or `threat`.
    pub world: Option<&'a dyn WorldView>,
    /// Where a line's coordinates (`loiter x z alt`, `waypoint x y z …`) are measured from:
    /// `None` = world coordinates, whose X/Z at the world origin (the north pole) are east and
    /// south and whose Y is the altitude there.
    pub anchor: Option<CoordinateAnchor>,
}

impl std::fmt::Debug for FactoryContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactoryContext")
            .field("world", &self.world.is_some())
            .field("anchor", &self.anchor)
            .finish()
    }
}

/// A latitude/longitude a behaviour line's coordinates are measured from: `x` metres east and
/// `z` metres south of it (in its level frame), at geodetic altitude `alt`/`y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateAnchor {
    planet: Planet,
    origin: Vec3,
    frame: Enu,
}

impl CoordinateAnchor {
    /// The anchor at `lat_deg` north, `lon_deg` east on `planet`.
    pub fn new(planet: &Planet, lat_deg: f64, lon_deg: f64) -> Self {
        let origin = geodetic::to_world(planet, Geodetic::from_degrees(lat_deg, lon_deg, 0.0));
        Self {
            planet: *planet,
            origin,
            frame: Enu::at(planet, origin),
        }
    }

    /// The world point `x` m east and `z` m south of the anchor at geodetic altitude `alt_m`.
    pub fn point(&self, x: f64, alt_m: f64, z: f64) -> Vec3 {
        let ground = self.origin + self.frame.level_to_world(Vec3::new(x, 0.0, z));
        geodetic::at_altitude(&self.planet, ground, alt_m)
    }
}

/// Builds a controller from one line: `behaviour arg arg key=value …` (whitespace separated).
pub fn build_from_line(
    line: &str,
    ctx: &FactoryContext<'_>,
) -> Result<Box<dyn Controller>, FactoryError> {
    let mut tokens = line.split_whitespace();
    let Some(name) = tokens.next() else {
        return Err(FactoryError::Empty);
    };
    let args: Vec<&str> = tokens.collect();
    build(name, &args, ctx)
}

/// Builds a controller from a behaviour name and its argument tokens; a token `key=value` is a
/// named argument, any other token is positional.
pub fn build(
    behaviour: &str,
    args: &[&str],
    ctx: &FactoryContext<'_>,
) -> Result<Box<dyn Controller>, FactoryError> {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    for a in args {
        match a.split_once('=') {
            Some((k, v)) => named.push((k, v)),
            None => positional.push(*a),
        }
    }
    build_args(behaviour, &positional, &named, ctx)
}

/// Builds a controller from key/value arguments only (a mission file's mapping).
pub fn build_named(
    behaviour: &str,
    named: &[(&str, &str)],
    ctx: &FactoryContext<'_>,
) -> Result<Box<dyn Controller>, FactoryError> {
    build_args(behaviour, &[], named, ctx)
}

fn build_args(
    behaviour: &str,
    positional: &[&str],
    named: &[(&str, &str)],
    ctx: &FactoryContext<'_>,
) -> Result<Box<dyn Controller>, FactoryError> {
    let Some(b) = BEHAVIOURS.iter().copied().find(|b| *b == behaviour) else {
        if behaviour.is_empty() {
            return Err(FactoryError::Empty);
        }
        return Err(FactoryError::UnknownBehaviour(behaviour.to_string()));
    };
    let p = Parser { behaviour: b, ctx };
    match b {
        "loiter" => p.loiter(positional, named),
        "heading" => p.heading(positional, named),
        "waypoint" => p.waypoint(positional, named),
        "pursuit" | "lead" | "lag" | "attack" => p.pursuit(positional, named),
        "evade" => p.evade(positional, named),
        "break" => p.break_turn(positional, named),
        "patrol_attack" => p.patrol_attack(positional, named),
        "defend" => p.defend(positional, named),
        "sam" => p.sam(positional, named),
        "aaa" => p.aaa(positional, named),
        _ => Err(FactoryError::UnknownBehaviour(behaviour.to_string())),
    }
}

/// One behaviour's parameters: (name, positional?) in positional order.
type Spec = &'static [(&'static str, bool)];

const LOITER: Spec = &[
    ("x", true),
    ("z", true),
    ("alt", true),
    ("radius", true),
    ("dir", true),
    ("speed", true),
    ("max_bank", false),
];
const HEADING: Spec = &[
    ("heading", true),
    ("alt", true),
    ("speed", true),
    ("max_bank", false),
];
const WAYPOINT_NAMED: &[&str] = &["capture", "loop", "speed", "max_bank"];
const PURSUIT: Spec = &[
    ("target", true),
    ("throttle", false),
    ("ab", false),
    ("speed", false),
    ("g", false),
    ("fire", false),
];
const LEAD: Spec = &[
    ("target", true),
    ("nav_gain", true),
    ("throttle", false),
    ("ab", false),
    ("speed", false),
    ("g", false),
    ("fire", false),
];
const LAG: Spec = &[
    ("target", true),
    ("lag_fraction", true),
    ("throttle", false),
    ("ab", false),
    ("speed", false),
    ("g", false),
    ("fire", false),
];
const ATTACK: Spec = &[
    ("target", false),
    ("throttle", false),
    ("ab", false),
    ("speed", false),
    ("g", false),
    ("fire", false),
];
const EVADE: Spec = &[
    ("target", true),
    ("throttle", false),
    ("ab", false),
    ("speed", false),
    ("max_bank", false),
    ("alt", false),
];
const BREAK: Spec = &[
    ("target", true),
    ("roll_s", true),
    ("g", false),
    ("ab", false),
];
const PATROL_ATTACK: Spec = &[
    ("target", true),
    ("engage_range", true),
    ("retreat_hp", true),
    ("x", false),
    ("z", false),
    ("alt", false),
    ("radius", false),
];
const DEFEND: Spec = &[
    ("threat_range", true),
    ("x", false),
    ("z", false),
    ("alt", false),
    ("radius", false),
];

const SAM: Spec = &[("range", true), ("cone_half_deg", true), ("interval", true)];
const AAA: Spec = &[("range", true), ("cone_half_deg", true)];

/// Collected argument texts, indexed like the spec.
struct Args<'s> {
    spec: Spec,
    values: Vec<Option<&'s str>>,
}

impl<'s> Args<'s> {
    fn get(&self, key: &str) -> Option<&'s str> {
        self.spec
            .iter()
            .position(|(k, _)| *k == key)
            .and_then(|i| self.values[i])
    }
}

struct Parser<'c, 'w> {
    behaviour: &'static str,
    ctx: &'c FactoryContext<'w>,
}

impl Parser<'_, '_> {
    fn collect<'s>(
        &self,
        spec: Spec,
        positional: &[&'s str],
        named: &[(&'s str, &'s str)],
    ) -> Result<Args<'s>, FactoryError> {
        let mut values: Vec<Option<&'s str>> = vec![None; spec.len()];
        let positions: Vec<usize> = (0..spec.len()).filter(|&i| spec[i].1).collect();
        for (k, v) in positional.iter().enumerate() {
            let Some(&slot) = positions.get(k) else {
                return Err(FactoryError::TooManyPositional {
                    behaviour: self.behaviour,
                    value: (*v).to_string(),
                    positions: positions
                        .iter()
                        .map(|&i| spec[i].0)
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            };
            values[slot] = Some(v);
        }
        for (k, v) in named {
            let Some(slot) = spec.iter().position(|(name, _)| name == k) else {
                return Err(FactoryError::UnknownArg {
                    behaviour: self.behaviour,
                    key: (*k).to_string(),
                    accepted: spec.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                });
            };
            if values[slot].is_some() {
                return Err(FactoryError::DuplicateArg {
                    behaviour: self.behaviour,
                    key: (*k).to_string(),
                });
            }
            values[slot] = Some(v);
        }
        Ok(Args { spec, values })
    }

    fn bad(&self, key: &str, value: &str, problem: impl Into<String>) -> FactoryError {
        FactoryError::BadValue {
            behaviour: self.behaviour,
            key: key.to_string(),
            value: value.to_string(),
            problem: problem.into(),
        }
    }

    fn param(&self, e: ParamError) -> FactoryError {
        FactoryError::Param {
            behaviour: self.behaviour,
            error: e,
        }
    }

    /// A line's point: world coordinates, or east/altitude/south of the context's anchor.
    fn point(&self, x: f64, y: f64, z: f64) -> Vec3 {
        match &self.ctx.anchor {
            Some(a) => a.point(x, y, z),
            None => Vec3::new(x, y, z),
        }
    }

    fn number(&self, key: &str, v: &str) -> Result<f64, FactoryError> {
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(self.bad(key, v, "expected a finite number")),
        }
    }

    fn opt_number(&self, a: &Args<'_>, key: &str) -> Result<Option<f64>, FactoryError> {
        a.get(key).map(|v| self.number(key, v)).transpose()
    }

    fn boolean(&self, key: &str, v: &str) -> Result<bool, FactoryError> {
        match v.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(self.bad(key, v, "expected true/false (or yes/no, on/off, 1/0)")),
        }
    }

    fn required<'s>(&self, a: &Args<'s>, key: &'static str) -> Result<&'s str, FactoryError> {
        a.get(key).ok_or(FactoryError::MissingArg {
            behaviour: self.behaviour,
            key,
        })
    }

    /// `index`, `index:generation`, `threat` or `threat:radius`.
    fn target(&self, v: &str) -> Result<Target, FactoryError> {
        let key = "target";
        if v == "threat" {
            return Ok(Target::NearestThreat {
                radius_m: DEFAULT_THREAT_RADIUS_M,
            });
        }
        if let Some(r) = v.strip_prefix("threat:") {
            let radius_m = self.number(key, r)?;
            if radius_m <= 0.0 {
                return Err(self.bad(key, v, "the threat radius must be positive"));
            }
            return Ok(Target::NearestThreat { radius_m });
        }
        let (idx, generation) = match v.split_once(':') {
            Some((i, g)) => (i, Some(g)),
            None => (v, None),
        };
        let index: u32 = idx.parse().map_err(|_| {
            self.bad(
                key,
                v,
                "expected an entity index, index:generation, threat or threat:<radius_m>",
            )
        })?;
        match generation {
            Some(g) => {
                let generation: u32 = g
                    .parse()
                    .map_err(|_| self.bad(key, v, "the generation must be an unsigned integer"))?;
                Ok(Target::Entity(EntityId::new(index, generation)))
            }
            None => {
                let Some(world) = self.ctx.world else {
                    return Err(self.bad(
                        key,
                        v,
                        "a bare index needs the world to resolve it; give index:generation",
                    ));
                };
                match world.entity(index) {
                    Some(e) if e.alive => Ok(Target::Entity(e.id)),
                    Some(_) => Err(self.bad(key, v, "that entity is dead")),
                    None => Err(self.bad(key, v, "no entity has that index")),
                }
            }
        }
    }

    fn direction(&self, v: &str) -> Result<Direction, FactoryError> {
        match v.to_ascii_lowercase().as_str() {
            "cw" | "clockwise" | "right" => Ok(Direction::Clockwise),
            "ccw" | "counterclockwise" | "anticlockwise" | "left" => {
                Ok(Direction::CounterClockwise)
            }
            _ => Err(self.bad("dir", v, "expected cw or ccw")),
        }
    }

    fn loiter_params(&self, a: &Args<'_>) -> Result<LoiterParams, FactoryError> {
        let mut p = LoiterParams::default();
        match (self.opt_number(a, "x")?, self.opt_number(a, "z")?) {
            (Some(x), Some(z)) => p.centre = Some(self.point(x, 0.0, z)),
            (None, None) => {}
            (Some(_), None) => {
                return Err(FactoryError::MissingArg {
                    behaviour: self.behaviour,
                    key: "z",
                });
            }
            (None, Some(_)) => {
                return Err(FactoryError::MissingArg {
                    behaviour: self.behaviour,
                    key: "x",
                });
            }
        }
        p.altitude_m = self.opt_number(a, "alt")?;
        if let Some(r) = self.opt_number(a, "radius")? {
            p.radius_m = r;
        }
        if let Some(d) = a.get("dir") {
            p.direction = self.direction(d)?;
        }
        p.speed_mps = self.opt_number(a, "speed")?;
        if let Some(b) = self.opt_number(a, "max_bank")? {
            p.max_bank_deg = b;
        }
        p.validate().map_err(|e| self.param(e))?;
        Ok(p)
    }

    fn loiter(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(LOITER, positional, named)?;
        let p = self.loiter_params(&a)?;
        Ok(Box::new(Loiter::new(p).map_err(|e| self.param(e))?))
    }

    fn heading(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(HEADING, positional, named)?;
        let mut p = HeadingParams::default();
        match self.opt_number(&a, "heading")? {
            Some(h) => p.heading_deg = h,
            None => {
                return Err(FactoryError::MissingArg {
                    behaviour: self.behaviour,
                    key: "heading",
                });
            }
        }
        p.altitude_m = self.opt_number(&a, "alt")?;
        p.speed_mps = self.opt_number(&a, "speed")?;
        if let Some(b) = self.opt_number(&a, "max_bank")? {
            p.max_bank_deg = b;
        }
        Ok(Box::new(HeadingHold::new(p).map_err(|e| self.param(e))?))
    }

    fn waypoint(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let mut p = WaypointParams::default();
        let mut coords = Vec::new();
        let mut loop_flag = false;
        for t in positional {
            if *t == "loop" || *t == "--loop" {
                loop_flag = true;
            } else {
                coords.push(self.number("point", t)?);
            }
        }
        if coords.is_empty() {
            return Err(FactoryError::MissingArg {
                behaviour: self.behaviour,
                key: "x1 y1 z1",
            });
        }
        if coords.len() % 3 != 0 {
            return Err(self.bad(
                "points",
                &coords.len().to_string(),
                "coordinates come in x y z triples",
            ));
        }
        p.points = coords
            .chunks_exact(3)
            .map(|c| self.point(c[0], c[1], c[2]))
            .collect();
        let mut seen: Vec<&str> = Vec::new();
        for (k, v) in named {
            if !WAYPOINT_NAMED.contains(k) {
                return Err(FactoryError::UnknownArg {
                    behaviour: self.behaviour,
                    key: (*k).to_string(),
                    accepted: format!("x y z triples, loop, {}", WAYPOINT_NAMED.join(", ")),
                });
            }
            if seen.contains(k) || (*k == "loop" && loop_flag) {
                return Err(FactoryError::DuplicateArg {
                    behaviour: self.behaviour,
                    key: (*k).to_string(),
                });
            }
            seen.push(k);
            match *k {
                "capture" => p.capture_radius_m = self.number(k, v)?,
                "loop" => loop_flag = self.boolean(k, v)?,
                "speed" => p.speed_mps = Some(self.number(k, v)?),
                _ => p.max_bank_deg = self.number(k, v)?,
            }
        }
        p.looped = loop_flag;
        Ok(Box::new(Waypoint::new(p).map_err(|e| self.param(e))?))
    }

    fn power(&self, a: &Args<'_>, default: Power) -> Result<Power, FactoryError> {
        let ab = a.get("ab").map(|v| self.boolean("ab", v)).transpose()?;
        let speed = self.opt_number(a, "speed")?;
        let throttle = self.opt_number(a, "throttle")?;
        let default_ab = match default {
            Power::Throttle { afterburner, .. } | Power::Speed { afterburner, .. } => afterburner,
        };
        let afterburner = ab.unwrap_or(default_ab);
        match (speed, throttle) {
            (Some(_), Some(_)) => Err(self.bad(
                "speed",
                a.get("speed").unwrap_or_default(),
                "give either speed or throttle, not both",
            )),
            (Some(mps), None) => Ok(Power::Speed { mps, afterburner }),
            (None, Some(throttle)) => Ok(Power::Throttle {
                throttle,
                afterburner,
            }),
            (None, None) => Ok(match default {
                Power::Throttle { throttle, .. } => Power::Throttle {
                    throttle,
                    afterburner,
                },
                Power::Speed { mps, .. } => Power::Speed { mps, afterburner },
            }),
        }
    }

    fn pursuit(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let spec = match self.behaviour {
            "lead" => LEAD,
            "lag" => LAG,
            "attack" => ATTACK,
            _ => PURSUIT,
        };
        let a = self.collect(spec, positional, named)?;
        let target = if self.behaviour == "attack" {
            self.target(a.get("target").unwrap_or("threat"))?
        } else {
            self.target(self.required(&a, "target")?)?
        };
        let mut params = PursuitParams::default();
        params.power = self.power(&a, params.power)?;
        if let Some(g) = self.opt_number(&a, "g")? {
            params.g_fraction = g;
        }
        if let Some(f) = a.get("fire") {
            params.fire = self.boolean("fire", f)?;
        }
        let mode = match self.behaviour {
            "lead" => PursuitMode::Lead {
                nav_gain: self.opt_number(&a, "nav_gain")?.unwrap_or(1.0),
            },
            "lag" => PursuitMode::Lag {
                lag_fraction: self.opt_number(&a, "lag_fraction")?.unwrap_or(0.5),
            },
            _ => PursuitMode::Pure,
        };
        let pursuit = if self.behaviour == "attack" {
            Pursuit::attack(target, params)
        } else {
            Pursuit::new(target, mode, params)
        };
        Ok(Box::new(pursuit.map_err(|e| self.param(e))?))
    }

    fn evade(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(EVADE, positional, named)?;
        let target = self.target(self.required(&a, "target")?)?;
        let mut params = EvadeParams::default();
        params.power = self.power(&a, params.power)?;
        if let Some(b) = self.opt_number(&a, "max_bank")? {
            params.max_bank_deg = b;
        }
        params.altitude_m = self.opt_number(&a, "alt")?;
        Ok(Box::new(
            Evade::new(target, params).map_err(|e| self.param(e))?,
        ))
    }

    fn break_turn(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(BREAK, positional, named)?;
        let target = self.target(self.required(&a, "target")?)?;
        let mut params = BreakTurnParams::default();
        if let Some(r) = self.opt_number(&a, "roll_s")? {
            params.roll_s = r;
        }
        if let Some(g) = self.opt_number(&a, "g")? {
            params.g_fraction = g;
        }
        if let Some(ab) = a.get("ab") {
            params.afterburner = self.boolean("ab", ab)?;
        }
        Ok(Box::new(
            BreakTurn::new(target, params).map_err(|e| self.param(e))?,
        ))
    }

    fn machine(
        &self,
        b: crate::state_machine::StateMachineBuilder,
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let sm: StateMachine = b.build().map_err(|error| FactoryError::StateMachine {
            behaviour: self.behaviour,
            error,
        })?;
        Ok(Box::new(sm))
    }

    /// patrol (loiter) → engage (lead pursuit) within `engage_range` → retreat (evade) below
    /// `retreat_hp`; back to patrol when the target is beyond 1.5 × the range for 2 s.
    fn patrol_attack(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(PATROL_ATTACK, positional, named)?;
        let target = self.target(self.required(&a, "target")?)?;
        let range = self.opt_number(&a, "engage_range")?.unwrap_or(8000.0);
        let hp = self.opt_number(&a, "retreat_hp")?.unwrap_or(0.25);
        if range.is_nan() || range <= 0.0 {
            return Err(self.bad("engage_range", &range.to_string(), "must be positive"));
        }
        if !(0.0..=1.0).contains(&hp) {
            return Err(self.bad("retreat_hp", &hp.to_string(), "must be between 0 and 1"));
        }
        let loiter = Loiter::new(self.loiter_params(&a)?).map_err(|e| self.param(e))?;
        let engage = Pursuit::new(
            target,
            PursuitMode::Lead { nav_gain: 1.0 },
            PursuitParams::default(),
        )
        .map_err(|e| self.param(e))?;
        let retreat = Evade::new(target, EvadeParams::default()).map_err(|e| self.param(e))?;
        let (near, far) = match target {
            Target::Entity(id) => (
                Condition::EntityWithinRange(id, range),
                Condition::EntityBeyondRange(id, 1.5 * range),
            ),
            Target::NearestThreat { .. } => (
                Condition::ThreatWithinRange(range),
                Condition::ThreatBeyondRange(1.5 * range),
            ),
        };
        let b = StateMachine::builder()
            .behaviour("patrol_attack")
            .state("patrol", Box::new(loiter))
            .state("engage", Box::new(engage))
            .state("retreat", Box::new(retreat))
            .transition(
                "patrol",
                "engage",
                near.clone().and(Condition::HpBelow(hp).not()),
                0.0,
            )
            .transition("engage", "retreat", Condition::HpBelow(hp), 0.0)
            .transition("engage", "patrol", far, 2.0)
            .transition("retreat", "patrol", Condition::HpBelow(hp).not(), 5.0);
        self.machine(b)
    }

    /// patrol (loiter) → break into the nearest threat inside `threat_range` → after 6 s engage
    /// it (lead pursuit); back to patrol once no threat is within twice the range for 5 s.
    fn defend(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(DEFEND, positional, named)?;
        let range = self.opt_number(&a, "threat_range")?.unwrap_or(5000.0);
        if range.is_nan() || range <= 0.0 {
            return Err(self.bad("threat_range", &range.to_string(), "must be positive"));
        }
        let threat = Target::NearestThreat {
            radius_m: (2.0 * range).max(DEFAULT_THREAT_RADIUS_M),
        };
        let loiter = Loiter::new(self.loiter_params(&a)?).map_err(|e| self.param(e))?;
        let brk = BreakTurn::new(threat, BreakTurnParams::default()).map_err(|e| self.param(e))?;
        let engage = Pursuit::new(
            threat,
            PursuitMode::Lead { nav_gain: 1.0 },
            PursuitParams::default(),
        )
        .map_err(|e| self.param(e))?;
        let b = StateMachine::builder()
            .behaviour("defend")
            .state("patrol", Box::new(loiter))
            .state("break", Box::new(brk))
            .state("engage", Box::new(engage))
            .transition("patrol", "break", Condition::ThreatWithinRange(range), 0.0)
            .transition("break", "engage", Condition::Always, 6.0)
            .global_transition("patrol", Condition::ThreatBeyondRange(2.0 * range), 5.0);
        self.machine(b)
    }

    /// `sam <range_m> [cone_half_deg] [interval_s]`: the range is required (the pack's
    /// missions always give it).
    fn sam(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(SAM, positional, named)?;
        let mut p = SamParams {
            range_m: self.number("range", self.required(&a, "range")?)?,
            ..SamParams::default()
        };
        if let Some(c) = self.opt_number(&a, "cone_half_deg")? {
            p.cone_half_deg = c;
        }
        if let Some(i) = self.opt_number(&a, "interval")? {
            p.interval_s = i;
        }
        Ok(Box::new(Sam::new(p).map_err(|e| self.param(e))?))
    }

    /// `aaa [range_m] [cone_half_deg]`: without a range, the gun's own.
    fn aaa(
        &self,
        positional: &[&str],
        named: &[(&str, &str)],
    ) -> Result<Box<dyn Controller>, FactoryError> {
        let a = self.collect(AAA, positional, named)?;
        let mut p = AaaParams {
            range_m: self.opt_number(&a, "range")?,
            ..AaaParams::default()
        };
        if let Some(c) = self.opt_number(&a, "cone_half_deg")? {
            p.cone_half_deg = c;
        }
        Ok(Box::new(Aaa::new(p).map_err(|e| self.param(e))?))
    }
}
