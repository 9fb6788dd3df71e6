//! Shared by fl-ai's fire-control and ground-site tests: a scripted world that shows one
//! shooter the contacts, stations and radar mode a test sets (no entities, nothing near), and a
//! fresh hostile contact builder. Must not simulate anything: the tests move the contacts.
#![allow(dead_code)]

use fl_ai::weapons::{ContactView, StationView};
use fl_ai::{EntityId, EntityView, WorldView};
use fl_flight::math::Vec3;

/// What the shooter sees: these contacts, these stations, this radar mode.
pub struct Scripted {
    pub contacts: Vec<ContactView>,
    pub stations: Vec<StationView>,
    pub radar: u8,
}

impl WorldView for Scripted {
    fn entity(&self, _: u32) -> Option<EntityView> {
        None
    }
    fn for_each_near(&self, _: Vec3, _: f64, _: &mut dyn FnMut(&EntityView)) {}
    fn contacts(&self, _: EntityId, visit: &mut dyn FnMut(&ContactView)) {
        self.contacts.iter().for_each(visit);
    }
    fn stores(&self, _: EntityId, visit: &mut dyn FnMut(&StationView)) {
        self.stations.iter().for_each(visit);
    }
    fn radar_mode(&self, _: EntityId) -> Option<u8> {
        Some(self.radar)
    }
}

/// A fresh (age 0) hostile contact on `target` at `position` moving at `velocity`.
pub fn hostile(target: EntityId, position: Vec3, velocity: Vec3, locked: bool) -> ContactView {
    ContactView {
        target,
        hostile: true,
        position,
        velocity,
        locked,
        age_s: 0.0,
    }
}
