//! The concrete autopilot behaviours. Each one turns its parameters and the world into an
//! acceleration demand and a power setting, and lets [`crate::autopilot::Autopilot`] fly it.

pub mod break_turn;
pub mod evade;
pub mod ground;
pub mod heading;
pub mod loiter;
pub mod pursuit;
pub mod waypoint;
