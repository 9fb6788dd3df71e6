//! Sensing: who can see whom. Sensors as plain specs (search and track lobes in SI units), the
//! geometry of a look (lobes, signatures, IR aspect, look-down), terrain masking over any
//! [`fl_flight::env::Floor`], notching and clutter, probability of detection at any check rate,
//! the per-observer contact state ([`Sensing`]) with radar modes, and the team picture and RWR
//! for the datalink.
//!
//! Contacts are the only thing AI, seekers and the datalink read: nothing here hands out a
//! target's true state except as a contact's last-known fix. Every die is a seeded
//! [`crate::draw::DrawKey`] with `Purpose::Detection`; the rule of the design record holds —
//! dice gate acquisition, geometry maintains a contact.
//!
//! The server, each tick, for each observer due a check (10 Hz, staggered):
//! 1. `sensing.apply_mode_byte(input.radar_mode)` / `designate(..)` from the peer's input;
//! 2. `sensing.check(&specs, &observer, &candidates, &world, &CheckTime { tick, interval_s })`;
//!
//! and at ~6 Hz per team/peer: [`fuse_team`] → [`picture_for`], [`invert_emissions`] →
//! [`rwr_for`], mapped onto `MsgDatalink`.
//!
//! Must not: depend on fl-content or fl-protocol (the caller converts defs into [`SensorSpec`]
//! and maps results onto the wire), read the clock, or iterate a hash map.

mod contacts;
mod datalink;
mod detect;
mod geometry;
mod los;
mod spec;

pub use contacts::{
    BadRadarMode, Contact, ContactState, MAX_SENSORS, Observation, RADAR_MODE_KEEP, RadarMode,
    Sensing, SensingLimits, SlotTrack, step_track,
};
pub use datalink::{
    Emitter, FusedTrack, Identification, Launch, MAX_DATALINK_THREATS, MAX_DATALINK_TRACKS,
    Relation, RwrStrobe, Strobe, TRACK_FLAG_FIRING_QUALITY, TRACK_FLAG_OWN_SENSOR, ThreatLevel,
    affiliation, classify_iff, fuse_team, invert_emissions, picture_for, rwr_for,
};
pub use detect::{
    CheckTime, EntityId, Environment, Evaluation, Gates, MIN_ENVIRONMENT_POD_SCALE, Miss,
    NIGHT_VISUAL_POD_SCALE, Observer, SensingWorld, Target, detection_roll, effective_pod,
    environment_pod_scale, evaluate_sensor, pod_at_rate, pod_for_interval, skill_pod_scale,
};
pub use geometry::{
    Bearing, LookFrame, aspect_factor, ground_radial_speed, in_lobe, looks_down,
    signature_range_scale,
};
pub use los::{LosConfig, LosResult, line_of_sight, line_of_sight_counted};
pub use spec::{
    DEFAULT_IR_HEAD_ON_FACTOR, DEFAULT_LOOK_DOWN_RANGE_FACTOR, DEFAULT_NOTCH_HALF_WIDTH_MPS,
    Doppler, Lobe, LowAltitudeClutter, MAX_LOBE_RANGE_M, MAX_LOCK_HOLD_S, NM_TO_M,
    REFERENCE_CHECK_HZ, SensorKind, SensorSpec, Signatures, SpecError,
};
