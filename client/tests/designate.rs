//! The radar designation travels: a pilot whose `PilotInput::designate` names an entity the
//! server's sensing holds no contact on (an empty pool slot) has it sent as `InputDesignate`
//! with its inputs, and the server refuses it once, without effect (it retries the value every
//! tick the client asks for it, counting only the first refusal). A designation asked for
//! before the own sensors see the target is honoured as soon as they do. And the whole path
//! from the key: the designate key (N) through the window's `InputHub` / `PilotState` picks a
//! foe from the datalink, the input carries it, and the server's sensing designates it without
//! a refusal.

use fighters_legacy::app::keyboard::{InputHub, PilotState};
use fighters_legacy::autopilot::Level;
use fighters_legacy::client::{Pilot, PilotView};
use fighters_legacy::input_clock::PilotInput;
use fighters_legacy::sim::{Sim, SimConfig};
use fl_input::Bindings;
use fl_protocol::enums::{ContactState, Identification, RadarMode};
use fl_server::combat::sensors::sensing_id;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use winit::keyboard::Key;

struct Designator;

impl Pilot for Designator {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        PilotInput {
            designate: Some(40_000),
            ..Level.command(view)
        }
    }
}

#[test]
fn a_designation_reaches_the_server_and_one_without_a_contact_is_refused_once() {
    let cfg = SimConfig {
        seed: 3,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg, Box::new(Designator)).expect("sim");
    sim.run_for(Duration::from_secs(3));
    let server = sim.server().expect("server");
    assert!(server.world().tick() > 100, "the server ran");
    assert_eq!(server.combat().refused.bad_designation, 1);
}

/// Designates one entity (its index set once the sim has spawned it) from the first input on,
/// before anything has seen it.
struct Early {
    target: Arc<AtomicU32>,
}

impl Pilot for Early {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let t = self.target.load(Ordering::Relaxed);
        PilotInput {
            designate: (t != u32::MAX).then_some(t),
            radar: Some(RadarMode::Stt),
            ..Level.command(view)
        }
    }
}

#[test]
fn a_designation_refused_before_the_own_sensors_see_the_target_is_honoured_once_they_do() {
    let cfg = SimConfig {
        seed: 5,
        targets: 1,
        ..SimConfig::default()
    };
    let asked = Arc::new(AtomicU32::new(u32::MAX));
    let pilot = Early {
        target: Arc::clone(&asked),
    };
    let mut sim = Sim::new(cfg, Box::new(pilot)).expect("sim");
    let target = sim.targets()[0];
    asked.store(target.index, Ordering::Relaxed);
    let mut refused_before = None;
    let mut designated = None;
    for _ in 0..(60 * 20) {
        sim.run_for(Duration::from_millis(1000 / 60));
        let server = sim.server().expect("server");
        let Some(own) = sim.client().session().own_entity() else {
            continue;
        };
        let Some((_, me)) = server.world().by_index(own.idx) else {
            continue;
        };
        designated = me.combat.sensing.as_ref().and_then(|s| s.designated());
        if designated.is_some() {
            break;
        }
        refused_before = Some(server.combat().refused.bad_designation);
    }
    assert_eq!(
        refused_before,
        Some(1),
        "the early designation was refused once (the own sensors held no contact yet)"
    );
    assert_eq!(
        designated,
        Some(sensing_id(target)),
        "the same designation, still asked for, is taken once the contact is held"
    );
    sim.run_for(Duration::from_secs(1));
    assert_eq!(
        sim.server()
            .expect("server")
            .combat()
            .refused
            .bad_designation,
        1,
        "retries are not counted again"
    );
}

/// A player at the keyboard: the real `InputHub` and `PilotState` of the window, the
/// designate key (N) pressed once as soon as the datalink shows a foe, radar in STT; the
/// level autopilot holds the stick so the flight stays put.
struct Player {
    hub: InputHub,
    state: PilotState,
    pressed: bool,
}

impl Pilot for Player {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        let foe = view.datalink.is_some_and(|dl| {
            dl.tracks
                .iter()
                .any(|t| t.ident == Identification::Foe && t.state != ContactState::Lost)
        });
        if foe && !self.pressed {
            let n = Key::Character("n".into());
            self.hub.key(&n, true, false, true);
            self.hub.key(&n, false, false, true);
            self.pressed = true;
        }
        let keys = self.hub.pilot(&mut self.state).command(view);
        PilotInput {
            designate: keys.designate,
            radar: Some(RadarMode::Stt),
            ..Level.command(view)
        }
    }
}

#[test]
fn the_designate_key_designates_a_foe_from_the_datalink_and_the_server_takes_it() {
    let cfg = SimConfig {
        seed: 5,
        targets: 1,
        ..SimConfig::default()
    };
    let player = Player {
        hub: InputHub::without_devices(Bindings::defaults()),
        state: PilotState::default(),
        pressed: false,
    };
    let mut sim = Sim::new(cfg, Box::new(player)).expect("sim");
    let target = sim.targets()[0];
    // The builtin trainer sees with its eyes (6 nm, PoD 0.2 a check): the foe 9 km ahead is
    // in the team's picture within seconds.
    let mut designated = None;
    for _ in 0..40 {
        sim.run_for(Duration::from_millis(500));
        let server = sim.server().expect("server");
        let own = sim.client().session().own_entity().expect("flying");
        let (_, me) = server.world().by_index(own.idx).expect("own aircraft");
        designated = me.combat.sensing.as_ref().and_then(|s| s.designated());
        if designated.is_some() {
            break;
        }
    }
    let server = sim.server().expect("server");
    assert_eq!(
        designated,
        Some(sensing_id(target)),
        "the own aircraft's sensing designates the foe the key picked"
    );
    assert_eq!(
        server.combat().refused.bad_designation,
        0,
        "a held contact is never refused"
    );
}
