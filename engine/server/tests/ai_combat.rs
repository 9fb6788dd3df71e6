//! The AI fights through the player's fire control: an `attack` controller flying the builtin
//! trainer (its 20 mm gun) shoots down a non-manoeuvring trainer ahead of it, and an AI with no
//! hostile contact never fires — not at a friend on its nose, not at an enemy beyond its sight.

mod common;

use common::Harness;
use fl_server::pool::EntityId;
use fl_server::server::{GeoAnchor, ServerConfig, SpawnPoint};
use fl_server::world::{Body, Pilot};

const TRAINER: &str = "builtin:jet-trainer";

fn spawn() -> SpawnPoint {
    SpawnPoint {
        x: 0.0,
        z: 0.0,
        altitude_m: 3000.0,
        heading_deg: 0.0,
        speed_mps: 200.0,
        // Nevada: away from the world origin's pole, where a compass heading means little.
        anchor: Some(GeoAnchor::NEVADA_HOME),
    }
}

fn ai(h: &mut Harness, faction: u16, line: &str) -> EntityId {
    ai_of(h, TRAINER, faction, line)
}

fn ai_of(h: &mut Harness, type_id: &str, faction: u16, line: &str) -> EntityId {
    let t = h.server.types().index_of(type_id).expect("type");
    let ctrl = fl_ai::build_from_line(line, &fl_ai::FactoryContext::default())
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    h.server
        .spawn_aircraft(t, faction, Pilot::Ai(ctrl), spawn())
        .expect("room")
}

/// Moves `target` to `distance_m` along `lead`'s nose, same attitude and velocity.
fn place_ahead(h: &mut Harness, lead: EntityId, target: EntityId, distance_m: f64) {
    let world = h.server.world_mut();
    let Some(Body::Aircraft { state: s, .. }) = world.get(lead).map(|e| e.body.clone()) else {
        panic!("an aircraft");
    };
    let e = world.get_mut(target).expect("target");
    let Body::Aircraft { state, .. } = &mut e.body else {
        panic!("an aircraft");
    };
    let mut placed = s;
    placed.position = s.position + s.forward() * distance_m;
    *state = placed;
}

fn out(h: &Harness, id: EntityId) -> bool {
    h.server.world().get(id).is_none_or(|e| e.combat.is_out())
}

#[test]
fn an_attacking_ai_shoots_down_a_straight_flying_target_with_its_gun() {
    let mut h = Harness::new(7, ServerConfig::default());
    let shooter = ai(&mut h, 1, "attack");
    // The target flies straight and level on the shooter's course, 1.5 km ahead, and never
    // fires (a heading hold has no weapons decisions).
    let target = ai(&mut h, 2, "heading 0 3000 180");
    place_ahead(&mut h, shooter, target, 1500.0);
    let mut killed_at = None;
    for tick in 0..(90 * 60) {
        h.run(1, &mut []);
        if out(&h, target) {
            killed_at = Some(tick);
            break;
        }
    }
    let totals = h.server.combat().totals;
    let refused = h.server.combat().refused;
    assert!(
        killed_at.is_some(),
        "no kill in 90 s: {totals:?}, refused {refused:?}"
    );
    assert!(
        totals.rounds_fired > 0 && totals.rounds_hit > 0,
        "{totals:?}"
    );
    assert!(totals.kills >= 1);
    // Ten hits destroy a trainer; the AI fired through the same rate and magazine as a pilot.
    assert!(totals.rounds_hit >= 10, "{totals:?}");
    assert!(totals.rounds_fired <= 300, "one magazine: {totals:?}");
    assert!(!out(&h, shooter), "the shooter survives");
    eprintln!(
        "killed after {:.1} s: {} rounds fired, {} hit; refusals {:?}",
        killed_at.unwrap_or(0) as f64 / 60.0,
        totals.rounds_fired,
        totals.rounds_hit,
        refused
    );
}

#[test]
fn an_ai_without_a_hostile_contact_never_fires() {
    let mut h = Harness::new(7, ServerConfig::default());
    let shooter = ai(&mut h, 1, "attack");
    // A friend 400 m on its nose, an enemy 30 km ahead (beyond the 10 km sight) flying the same
    // course: a target on the nose by truth, none by contact.
    let friend = ai(&mut h, 1, "heading 0 3000 200");
    let enemy = ai(&mut h, 2, "heading 0 3000 200");
    place_ahead(&mut h, shooter, friend, 400.0);
    place_ahead(&mut h, shooter, enemy, 30_000.0);
    h.run(20 * 60, &mut []);
    let totals = h.server.combat().totals;
    assert_eq!(totals.rounds_fired, 0, "{totals:?}");
    assert_eq!(totals.stores_released, 0, "{totals:?}");
    assert!(!out(&h, friend) && !out(&h, enemy));
    let world = h.server.world();
    let d =
        world.get(enemy).expect("enemy").position() - world.get(shooter).expect("me").position();
    assert!(
        d.length() > 10_000.0,
        "the enemy stayed beyond sight: {} m",
        d.length()
    );
}

#[test]
fn an_attacking_f5e_launches_its_sidewinders_through_the_players_release_path() {
    let Some(pack) = fl_fixtures::fixture_pack_or("the F-5E and its AIM-9P") else {
        return;
    };
    let content = fl_content::Content::load(&fl_content::LoadOptions {
        pack_dirs: vec![pack],
        ..fl_content::LoadOptions::default()
    })
    .unwrap_or_else(|e| panic!("the fixture pack loads: {e}"));
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    let mut h = Harness::with_types(7, ServerConfig::default(), types);
    let shooter = ai_of(&mut h, "fl-base:f5e", 1, "attack");
    let target = ai_of(&mut h, "fl-base:f5e", 2, "heading 0 3000 200");
    // 3 km on the nose: inside the AIM-9P's envelope and the seam's lock, beyond gun range.
    place_ahead(&mut h, shooter, target, 3000.0);
    h.run(6 * 60, &mut []);
    let totals = h.server.combat().totals;
    let refused = h.server.combat().refused;
    assert!(totals.stores_released >= 1, "{totals:?} {refused:?}");
    // Shoot-look-shoot: one missile in the air at a time for this target (the look outlasts
    // these 6 s), and nothing the fire control had to refuse.
    assert_eq!(totals.stores_released, 1, "{totals:?}");
    assert_eq!(refused.total(), 0, "{refused:?}");
    let _ = target;
}
