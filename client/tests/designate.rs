//! The radar designation travels: a pilot whose `PilotInput::designate` names an entity the
//! server's sensing holds no contact on (an empty pool slot) has it sent as `InputDesignate`
//! with its inputs, and the server refuses it once, without effect (it is applied when it
//! changes, not every tick).

use fighters_legacy::autopilot::Level;
use fighters_legacy::client::{Pilot, PilotView};
use fighters_legacy::input_clock::PilotInput;
use fighters_legacy::sim::{Sim, SimConfig};
use std::time::Duration;

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
