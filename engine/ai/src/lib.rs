//! `fl-ai`: server-side autopilot controllers and the guidance math they share.
//!
//! The server samples one [`Controller`] per AI-flown entity each tick, in parallel, against a
//! read-only [`WorldView`]; the resulting [`fl_flight::Controls`] go into `fl_flight::step` exactly
//! like a pilot's input. Behaviours: [`Loiter`], [`Waypoint`], [`Pursuit`] (pure, lead and lag),
//! [`Evade`], [`BreakTurn`] and the [`StateMachine`] composer; [`factory`] builds them from text.
//!
//! Owns: the controller seam, the entity/world view contract, guidance and inner-loop control
//! laws. Must not: depend on any crate of ours but `fl-flight`, touch I/O, clocks or unseeded
//! randomness, or iterate hash maps — results must be bit-identical for any thread count and any
//! sampling order. See `docs/ai.md`.

pub mod autopilot;
pub mod controller;
pub mod controllers;
pub mod factory;
pub mod grid;
pub mod guidance;
pub mod spatial;
pub mod state_machine;
pub mod view;
pub mod weapons;

pub use autopilot::{Autopilot, AutopilotConfig, Power};
pub use controller::{Controller, ParamError};
pub use controllers::break_turn::{BreakPhase, BreakTurn, BreakTurnParams};
pub use controllers::evade::{Evade, EvadeParams};
pub use controllers::ground::{Aaa, AaaParams, Sam, SamParams};
pub use controllers::heading::{HeadingHold, HeadingParams};
pub use controllers::loiter::{Direction, Loiter, LoiterParams};
pub use controllers::pursuit::{Pursuit, PursuitMode, PursuitParams};
pub use controllers::waypoint::{Waypoint, WaypointParams};
pub use factory::{
    BEHAVIOURS, CoordinateAnchor, FactoryContext, FactoryError, build, build_from_line, build_named,
};
pub use grid::GridWorld;
pub use spatial::SpatialIndex;
pub use state_machine::{Condition, StateMachine, StateMachineBuilder, StateMachineError};
pub use view::{
    DEFAULT_THREAT_RADIUS_M, EntityId, EntityView, Faction, FlightLimits, Target, TargetTracker,
    WorldView, is_hostile, live_entity, nearest_threat,
};
pub use weapons::{
    ContactView, FireControl, FireParams, SeekerClass, StationView, StoreKind, WeaponIntent,
};
