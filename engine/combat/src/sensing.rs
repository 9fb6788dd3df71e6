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
//! How the server drives it:
//! * at load: each sensor def → [`SensorSpec`] (SI units; [`Lobe::from_pack_units`];
//!   [`SensorSpec::validate`] refuses corrupt numbers), each entity's `[signatures]` →
//!   [`Signatures`]; one [`Sensing`] per sensor-carrying entity; a [`SensingWorld`] with the
//!   terrain and, ideally, [`LosConfig::ceiling_m`] set to the world's highest terrain;
//! * each tick, from a peer's input: [`Sensing::apply_mode_byte`] (refuses bad bytes) and
//!   [`Sensing::designate`];
//! * each tick, for the observers due a check (10 Hz, staggered; parallel — each writes only
//!   its own `Sensing`): [`Sensing::check`] with the entity's specs, an [`Observer`], the
//!   candidate [`Target`]s (a spatial query within reach, or everyone) and
//!   [`CheckTime`] `{ tick, interval_s }`; AI and HUD then read [`Sensing::contacts`];
//! * ~6 Hz per team and peer: [`fuse_team`] → [`picture_for`] and [`invert_emissions`] →
//!   [`rwr_for`], mapped field for field onto `MsgDatalink`;
//! * seekers: [`evaluate_sensor`] with [`Gates::notch_factor`] = the missile's
//!   `notch_susceptibility`, or a `Sensing` of their own with [`Sensing::set_notch_factor`].
//!
//! fl-content's parsed defs convert in [`from_content`] only (fl-combat already sits above
//! fl-content through fl-terrain, and one conversion serves the server and the tests); the model
//! itself takes plain [`SensorSpec`]s.
//!
//! Must not: depend on fl-protocol (the caller maps results onto the wire), read files or the
//! clock, or iterate a hash map.

mod contacts;
mod datalink;
mod detect;
pub mod from_content;
mod geometry;
mod los;
mod spec;
mod track;

pub use contacts::{Contact, MAX_SENSORS, Sensing, SensingLimits};
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
    Bearing, Cone, LookFrame, aspect_factor, ground_radial_speed, in_lobe, look_along, looks_down,
    signature_range_scale,
};
pub use los::{LosConfig, LosResult, line_of_sight, line_of_sight_counted};
pub use spec::{
    DEFAULT_IR_HEAD_ON_FACTOR, DEFAULT_LOOK_DOWN_RANGE_FACTOR, DEFAULT_NOTCH_HALF_WIDTH_MPS,
    Doppler, Lobe, LowAltitudeClutter, MAX_LOBE_RANGE_M, MAX_LOCK_HOLD_S, NM_TO_M,
    REFERENCE_CHECK_HZ, SensorKind, SensorSpec, Signatures, SpecError,
};
pub use track::{
    BadRadarMode, ContactState, Observation, RADAR_MODE_KEEP, RadarMode, SlotTrack, step_track,
};
