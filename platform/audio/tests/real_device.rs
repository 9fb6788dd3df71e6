//! The real default device: on a machine without a sound card (CI, this test's usual home) the
//! output goes silent with a reason and every call still works; with one, it plays.

use std::time::Duration;

use fl_audio::{AudioOutput, Bus, EngineParams, OutputStatus, OwnAircraft};

#[test]
fn opening_the_real_device_never_fails_the_game() {
    let out = AudioOutput::open();
    let mut status = out.status();
    // Bounded wait for the audio thread (not a timing assertion).
    for _ in 0..600 {
        if status != OutputStatus::Opening {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        status = out.status();
    }
    println!("audio output: {status:?}");
    match &status {
        OutputStatus::Playing(info) => {
            assert!(info.sample_rate > 0 && info.channels > 0);
            println!("latency: {:?}", info.latency());
        }
        OutputStatus::Silent(reason) => {
            assert!(!reason.is_empty());
            assert_eq!(out.warnings_logged(), 1);
        }
        OutputStatus::Opening => panic!("the audio thread never answered"),
    }
    out.set_own(OwnAircraft {
        present: true,
        engine: EngineParams {
            rpm: 0.3,
            throttle: 0.5,
            afterburner: 0.0,
        },
        ..OwnAircraft::default()
    });
    out.set_bus_volume(Bus::Master, 0.0);
    out.set_focus(false);
    for i in 0..10 {
        out.tick(Duration::from_millis(16 * i));
    }
    drop(out);
}

#[test]
fn a_silent_output_takes_every_call() {
    let out = AudioOutput::silent("tests");
    assert_eq!(out.status(), OutputStatus::Silent("tests".into()));
    out.set_master_volume(f32::NAN);
    assert_eq!(out.master_volume(), 0.0);
    out.set_master_volume(2.0);
    assert_eq!(out.master_volume(), 1.0);
    for b in Bus::ALL {
        out.set_bus_volume(b, 0.5);
        assert_eq!(out.bus_volume(b), 0.5);
    }
    out.set_focus(false);
    assert!(!out.focused());
    // Never looks for a device.
    for i in 0..300 {
        out.tick(Duration::from_millis(100 * i));
    }
    assert_eq!(out.open_attempts(), 0);
    assert_eq!(out.warnings_logged(), 1);
}
