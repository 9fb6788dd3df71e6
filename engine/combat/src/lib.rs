//! fl-combat: the combat rules shared by the server, its AI and (for cues) the client, as pure
//! deterministic f64 functions over plain data: who can see whom (sensing), how missiles,
//! bullets, rockets and bombs fly and when they hit (flyout), and the seeded draws both use.
//!
//! Must not: know about peers, packets, the server's entity pool or any file format. Content
//! definitions are converted into this crate's specs (SI units) by the caller; wall clock,
//! hash-map order and unseeded randomness never enter.

pub mod draw;
pub mod flyout;
pub mod own;
pub mod sensing;
