//! The speed brake is a 0 … 1 command (the spec's `MsgClientInput::speedbrake`, 0..255 ⇒ 0..1),
//! not an on/off switch: the actuator slews to the commanded fraction and the drag follows the
//! position, so half a brake slows the aircraft less than a full one and more than none.

use fl_flight::integrator::{CalmWorld, step};
use fl_flight::model::AircraftModel;
use fl_flight::schema::read_flight_model;
use fl_flight::spawn::trim_level;
use fl_flight::state::{AircraftState, Controls};
use std::path::Path;

fn test_jet() -> AircraftModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test_jet.toml");
    let parsed = read_flight_model(&path).unwrap_or_else(|e| panic!("{e}"));
    AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

/// Flies `ticks` from the same trimmed start with the speed brake commanded to `brake`.
fn fly_with_brake(m: &AircraftModel, brake: f64, ticks: u64) -> AircraftState {
    let w = CalmWorld::default();
    let t = trim_level(m, &w.planet, 5000.0, 180.0, 0.5 * m.max_fuel_kg, 0.0).expect("trim");
    let mut s = t.state;
    let c = Controls {
        speedbrake: brake,
        ..t.controls
    };
    for tick in 0..ticks {
        step(m, &mut s, &c, &w.env(tick));
    }
    s
}

#[test]
fn a_fractional_speed_brake_deploys_part_way_and_drags_in_proportion() {
    let m = test_jet();
    // Long enough for the actuator to reach any commanded position.
    let ticks = (m.speedbrake_time_s * 60.0).ceil() as u64 + 120;
    let speeds: Vec<(f64, f64, f64)> = [0.0, 0.25, 0.5, 1.0]
        .into_iter()
        .map(|cmd| {
            let s = fly_with_brake(&m, cmd, ticks);
            (cmd, s.speedbrake, s.velocity.length())
        })
        .collect();
    for &(cmd, position, _) in &speeds {
        assert!(
            (position - cmd).abs() < 1e-9,
            "commanded {cmd}, actuator at {position}"
        );
    }
    for pair in speeds.windows(2) {
        let ((a, _, va), (b, _, vb)) = (pair[0], pair[1]);
        assert!(
            vb < va - 0.05,
            "more brake ({b}) must slow more than less ({a}): {vb} vs {va} m/s"
        );
    }
}

#[test]
fn a_hostile_speed_brake_command_is_clamped() {
    let m = test_jet();
    let ticks = (m.speedbrake_time_s * 60.0).ceil() as u64 + 60;
    assert_eq!(fly_with_brake(&m, 7.0, ticks).speedbrake, 1.0);
    assert_eq!(fly_with_brake(&m, -3.0, ticks).speedbrake, 0.0);
    assert_eq!(fly_with_brake(&m, f64::NAN, ticks).speedbrake, 0.0);
    assert!(fly_with_brake(&m, f64::INFINITY, ticks).is_finite());
}
