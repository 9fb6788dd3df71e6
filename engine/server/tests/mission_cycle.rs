//! The dedicated server's mission cycle ([`MissionDirector`]) over the fixture pack, in virtual
//! time: a scripted destroy ends `ia_dogfight` in success, and after the end delay the director
//! stops the run and starts it again (restart) or the next mission (rotate) with the pilot in
//! the game seated in the new run's player slot; `stop` leaves the server without a mission.

mod common;

use common::{Harness, TestClient};
use fl_content::Content;
use fl_protocol::Message;
use fl_protocol::enums::{MissionResultCode, PeerRole};
use fl_server::mission_director::{DirectorEvent, MissionDirector, OnEnd, ScheduledDestroy};
use fl_server::server::ServerConfig;
use fl_server::server::mission::MissionState;

const DOGFIGHT: &str = "fl-base-pack:ia_dogfight";
const GUNNERY: &str = "fl-base-pack:f5e_gunnery";
/// End delay of these tests, ticks.
const DELAY: u64 = 30;

fn content() -> Option<Content> {
    common::fixture_content("the mission cycle")
}

fn harness(content: &Content) -> Harness {
    let types = fl_server::types::TypeRegistry::from_content(content, 1);
    Harness::with_types(3, ServerConfig::default(), types)
}

fn director(content: &Content, ids: &[&str], on_end: OnEnd) -> MissionDirector {
    let missions = ids
        .iter()
        .map(|id| content.load_mission(id).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut d = MissionDirector::new(missions, on_end, DELAY, 1);
    // Every run of the dogfight ends 1 s in: its bandit is shot down by the test hook.
    d.schedule_destroy(ScheduledDestroy {
        object: "bandit1".into(),
        at_tick: 60,
    });
    d
}

/// Ticks the server with the director after each tick; returns the director's events.
fn run(
    h: &mut Harness,
    d: &mut MissionDirector,
    ticks: u64,
    c: &mut TestClient,
) -> Vec<DirectorEvent> {
    let mut events = Vec::new();
    for _ in 0..ticks {
        h.step(&mut [&mut *c]);
        events.extend(d.after_tick(&mut h.server));
    }
    events
}

/// A pilot reporting the fixture pack joins (while the mission runs: it takes the slot).
fn join(h: &mut Harness) -> TestClient {
    common::join_reporting(h, PeerRole::Pilot, "pilot", &["fl-base-pack"], |_| {})
}

fn outcomes(c: &TestClient) -> Vec<MissionResultCode> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::MissionOutcome(o) => Some(o.outcome),
            _ => None,
        })
        .collect()
}

fn own_entity_idx(c: &TestClient) -> Option<u32> {
    c.admitted().map(|a| a.assigned_entity_idx)
}

#[test]
fn a_scripted_kill_ends_the_dogfight_and_it_restarts_with_the_pilot_seated() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut d = director(&content, &[DOGFIGHT], OnEnd::Restart);
    let started = d.start(&mut h.server).expect("starts");
    assert!(
        matches!(started, DirectorEvent::Started { run: 1, .. }),
        "{started:?}"
    );
    let mut c = join(&mut h);
    let first_bandit = h.server.mission_entity("bandit1").expect("bandit spawned");
    let first_own = h.server.mission_entity("player1").expect("slot bound");
    assert_eq!(own_entity_idx(&c), Some(first_own.index));

    // The kill at 1 s of mission time (the join took some) ends the run in success on the next
    // tick; the client hears it once.
    let left = 60 - h.server.mission_status().expect("status").elapsed_ticks;
    let events = run(&mut h, &mut d, left + 1, &mut c);
    assert!(
        matches!(events.last(), Some(DirectorEvent::Ended(s)) if s.elapsed_ticks == 61),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            DirectorEvent::Destroyed {
                destroyed: true,
                ..
            }
        )),
        "{events:?}"
    );
    let s = h.server.mission_status().expect("status");
    assert_eq!(s.state, MissionState::Success, "{s:?}");
    assert_eq!(outcomes(&c), vec![MissionResultCode::Success]);

    // Still ended during the delay; then stopped and started again.
    let events = run(&mut h, &mut d, DELAY - 1, &mut c);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, DirectorEvent::Started { .. })),
        "{events:?}"
    );
    assert_eq!(d.runs(), 1);
    let events = run(&mut h, &mut d, 1, &mut c);
    let stopped = events.iter().find_map(|e| match e {
        DirectorEvent::Stopped(s) => Some(s.clone()),
        _ => None,
    });
    assert_eq!(
        stopped.map(|s| s.state),
        Some(MissionState::Success),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            DirectorEvent::Started { run: 2, pilots_seated: 1, id } if id == DOGFIGHT
        )),
        "{events:?}"
    );
    assert_eq!(d.runs(), 2);
    let s = h.server.mission_status().expect("status");
    assert_eq!(s.state, MissionState::Running, "{s:?}");
    assert_eq!((s.player_slots, s.slots_bound), (1, 1), "{s:?}");
    // A new bandit, and the pilot in a new aircraft at the slot, told by a ConnectAck.
    let bandit = h
        .server
        .mission_entity("bandit1")
        .expect("bandit respawned");
    assert_ne!(bandit, first_bandit);
    let own = h
        .server
        .mission_entity("player1")
        .expect("slot bound again");
    assert_ne!(own, first_own);
    run(&mut h, &mut d, 5, &mut c);
    assert_eq!(own_entity_idx(&c), Some(own.index));
    assert!(
        h.server.world().get(first_own).is_none(),
        "the old aircraft is gone"
    );
    let ent = h.server.world().get(own).expect("the new aircraft");
    assert_eq!(
        h.server.types().get(ent.type_index).map(|t| t.id.as_str()),
        Some("fl-base:f5e")
    );

    // The second run ends the same way and is heard too.
    run(&mut h, &mut d, 60, &mut c);
    assert_eq!(
        h.server.mission_status().map(|s| s.state),
        Some(MissionState::Success)
    );
    assert_eq!(
        outcomes(&c),
        vec![MissionResultCode::Success, MissionResultCode::Success]
    );
}

#[test]
fn rotate_starts_the_next_mission_of_the_list() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut d = director(&content, &[DOGFIGHT, GUNNERY], OnEnd::Rotate);
    d.start(&mut h.server).expect("starts");
    let mut c = join(&mut h);
    let events = run(&mut h, &mut d, 60 + DELAY + 5, &mut c);
    assert!(
        events.iter().any(|e| matches!(
            e,
            DirectorEvent::Started { run: 2, pilots_seated: 1, id } if id == GUNNERY
        )),
        "{events:?}"
    );
    let s = h.server.mission_status().expect("status");
    assert_eq!((s.id.as_str(), s.state), (GUNNERY, MissionState::Running));
    assert_eq!(s.slots_bound, 1);
    assert!(h.server.mission_entity("bandit1").is_none());
    assert!(h.server.mission_entity("target1").is_some());
}

#[test]
fn stop_leaves_the_server_without_a_mission() {
    let Some(content) = content() else { return };
    let mut h = harness(&content);
    let mut d = director(&content, &[DOGFIGHT], OnEnd::Stop);
    d.start(&mut h.server).expect("starts");
    let mut c = join(&mut h);
    let entities_with_mission = h.server.world().len();
    let events = run(&mut h, &mut d, 60 + DELAY + 5, &mut c);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, DirectorEvent::Stopped(_))),
        "{events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, DirectorEvent::Started { .. }))
    );
    assert!(h.server.mission_status().is_none());
    // The mission's objects are gone; the pilot keeps flying.
    assert!(h.server.world().len() < entities_with_mission);
    assert!(c.disconnected.is_none());
}
