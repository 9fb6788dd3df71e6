//! A mission's ground start on the builtin `home` airfield: the fixture pack's player slot
//! (`start: ground` at [-1200, 0, 0], heading 090 — the west end of the runway, as in
//! `t38a_first_flight`, `f5e_gunnery` and most of the pack's missions) puts the joining pilot's
//! aircraft on its wheels on the runway at the field elevation (569.6 m), parked, and it stays
//! there at idle for 5 s — over the pack's terrain and over the procedural base alone (a server
//! with no terrain loaded), since the airfield is part of every terrain.
//!
//! `fl-base-pack:f5e_gunnery` is the mission started: `t38a_first_flight` is refused by
//! validation with the fixture pack as it is (its `fl-base:t38a` type names AI script
//! "trainer", and the pack has no `ai/trainer.lua`); its player slot is the same one.

mod common;

use common::{Harness, TestClient};
use fl_content::Content;
use fl_flight::math::Vec3;
use fl_protocol::enums::PeerRole;
use fl_server::server::ServerConfig;
use fl_server::world::Body;

/// The field elevation of `home` (fl-base-pack's `ai/instructor.lua` FIELD_ELEV).
const FIELD_ELEV_M: f64 = 569.6;

fn content() -> Option<Content> {
    common::fixture_content("the gunnery mission and its types")
}

/// A client that joins as a pilot reporting the fixture pack, sitting in a parked aircraft.
fn join(h: &mut Harness) -> TestClient {
    common::join_reporting(
        h,
        PeerRole::Pilot,
        "student",
        &["fl-base-pack"],
        common::parked_controls,
    )
}

/// Where the player's aircraft stands: (position, height of its gear's contact point above the
/// sphere — the CG's altitude less the parked CG height — speed, wheels on the ground).
fn parked(h: &Harness) -> (Vec3, f64, f64, u8) {
    let own = h
        .server
        .mission_entity("player1")
        .expect("the slot is bound");
    let ent = h.server.world().get(own).expect("the player's aircraft");
    let Body::Aircraft { model, state, .. } = &ent.body else {
        panic!("the player flies an aircraft");
    };
    let cg_h = model.gear.wheels[0].point[2] - model.gear.static_deflection_m;
    let planet = h.server.world().planet();
    (
        state.position,
        planet.altitude(state.position) - cg_h,
        state.velocity.length(),
        state.wheels_on_ground,
    )
}

fn ground_start_on_the_runway(content: &Content, pack_terrain: bool) {
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    let types = fl_server::types::TypeRegistry::from_content(content, 1);
    let mut h = Harness::with_types(11, ServerConfig::default(), types);
    if pack_terrain {
        h.server.set_terrain(fl_terrain::Terrain::from_content(
            content,
            fl_terrain::TerrainConfig::default(),
        ));
    }
    h.server.start_mission(&checked, 1).expect("starts");
    let mut c = join(&mut h);
    let planet = *h.server.world().planet();
    let m = &checked.mission;
    let slot = m.world_position(m.object("player1").expect("slot"), &planet);
    // The floor under the slot is the runway at the field elevation, exactly.
    let floor = h.server.world().floor();
    assert_eq!(
        fl_flight::env::Floor::height_m(floor, &planet, slot),
        FIELD_ELEV_M
    );

    let (p0, gear0, v0, wheels0) = parked(&h);
    assert!(
        (gear0 - FIELD_ELEV_M).abs() < 0.05,
        "spawned with its gear at {gear0:.3} m, the runway is at {FIELD_ELEV_M} m"
    );
    assert!(v0 < 0.5, "a ground start is parked: {v0} m/s");
    assert_ne!(wheels0, 0, "on its wheels");

    // 5 s at idle with the brakes on.
    h.run(300, &mut [&mut c]);
    let (p, gear, v, wheels) = parked(&h);
    assert!(
        (gear - FIELD_ELEV_M).abs() < 0.25,
        "after 5 s its gear is at {gear:.3} m, the runway at {FIELD_ELEV_M} m"
    );
    assert!(v < 0.5, "still parked after 5 s: {v} m/s");
    assert_ne!(wheels, 0, "still on its wheels");
    let moved = (p - p0).length();
    eprintln!(
        "pack terrain {pack_terrain}: gear at {gear0:.4} m on spawn, {gear:.4} m after 5 s, \
         {v:.4} m/s, moved {moved:.4} m"
    );
    assert!(moved < 1.0, "it rolled {moved:.2} m");
    let up = planet.up(slot);
    let off = (p - slot) - up * (p - slot).dot(up);
    assert!(
        off.length() < 1.0,
        "it stands {:.2} m from its slot",
        off.length()
    );
}

#[test]
fn a_ground_start_at_home_stands_on_the_runway_over_the_packs_terrain() {
    let Some(content) = content() else { return };
    ground_start_on_the_runway(&content, true);
}

#[test]
fn a_ground_start_at_home_stands_on_the_runway_without_pack_terrain() {
    let Some(content) = content() else { return };
    ground_start_on_the_runway(&content, false);
}
