//! Flyout: missiles, gun rounds, rockets and bombs in flight — how they move, what their seekers
//! see, how countermeasures fool them, when they detonate and what they hit.
//!
//! Owns: the weapon specs ([`spec`]), the point-mass aerodynamics ([`aero`]), the seeker
//! ([`seeker`]), proportional navigation ([`guidance`]), the proximity fuze and warhead
//! ([`fuze`]), countermeasures ([`countermeasures`]), the missile's step ([`missile`]) and the
//! unguided stores' ([`ballistic`]). Everything is deterministic f64 over fl_flight::math at the
//! server's fixed 1/60 s step; the only randomness is [`crate::draw`] (decoys, dispersion).
//!
//! Must not: know the server's entities, packets or fl-content's types, or read the world's
//! truth except through what the caller passes in.
//!
//! Per tick the server calls, for each missile, [`missile::step`] with the designated target's
//! state ([`seeker::TargetView`]), the launcher's lock and the decoys in the air; for each round,
//! [`ballistic::step_round`] and then [`ballistic::swept_sphere_hit`] against the
//! (lag-compensated) targets near its last segment.

pub mod aero;
pub mod ballistic;
pub mod countermeasures;
pub mod env;
pub mod fuze;
pub mod guidance;
pub mod missile;
pub mod seeker;
pub mod spec;

pub use ballistic::{
    FireParams, Round, RoundEvent, SegmentHit, fire, segment_sphere_hit, step_round,
    swept_sphere_hit,
};
pub use countermeasures::Decoy;
pub use env::{FlatGround, FlyoutEnv, Ground};
pub use fuze::{Detonation, closest_approach, warhead_damage};
pub use missile::{
    LaunchParams, MissileEvent, MissileInputs, MissileState, SelfDestruct, launch, step, would_lock,
};
pub use seeker::{LockState, TargetView, Track};
pub use spec::{
    BallisticKind, BallisticParams, BallisticSpec, MissileParams, MissileSpec, SeekerKind,
    SeekerLobe, SeekerParams, SpecError,
};
