//! `fl-flight`: the deterministic 6-DoF flight model that the server (truth) and every client
//! (prediction) step identically, plus the performance trim behind `fm-trim` and the checks behind
//! `validate-flight-model`.
//!
//! Owns: the flight-model schema, ISA atmosphere, central gravity, wind and turbulence, the
//! aerodynamic/propulsive force model, the integrator with ground contact, and the trim maths.
//! Must not: read the wall clock, iterate hash maps, use unseeded randomness, or depend on any
//! other crate of this workspace (it sits in the engine layer, below the server and client).

pub mod aero;
pub mod atmosphere;
pub mod env;
pub mod fbw;
pub mod geodetic;
pub mod gravity;
pub mod ground;
pub mod integrator;
pub mod math;
pub mod model;
pub mod perf;
pub mod propulsion;
pub mod schema;
pub mod spawn;
pub mod state;
pub mod table;
pub mod validate;

pub use integrator::{CalmWorld, DT, FlightOutputs, StepEnv, StepEvents, outputs, step};
pub use model::AircraftModel;
pub use state::{AircraftState, Controls, CrashKind};
