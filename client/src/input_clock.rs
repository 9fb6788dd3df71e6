//! Input at a fixed 60 Hz, independent of the frame rate.
//!
//! [`InputClock`] counts whole ticks since it started from the caller's monotonic `now`
//! (integer nanoseconds × 60, so there is no drift and no float accumulation); each due tick
//! gets the next sequence number. [`PilotInput`] is what the player commands, in physical
//! units, and becomes one `MsgClientInput` per tick with every field filled: controls, buttons,
//! the absolute station, radar mode, flaps, speed brake and articulation state (absolute so they
//! converge under loss), the camera eye and the view axis. The session stamps the protocol
//! version and the ack; the prediction history receives the same message.
//!
//! Owns no I/O and reads no clock.

use crate::TICK_HZ;
use fl_protocol::enums::ids::KEEP_CURRENT;
use fl_protocol::enums::{RadarMode, art_buttons, buttons};
use fl_protocol::msg::world::ClientInput;
use std::time::Duration;

/// Most ticks one call may run after a stall; the rest are skipped (and counted), so a paused
/// process does not flood the server with a burst of stale inputs.
pub const DEFAULT_MAX_CATCHUP_TICKS: u32 = 8;

/// The fixed-rate tick source.
#[derive(Debug, Clone)]
pub struct InputClock {
    start: Option<Duration>,
    ticks_done: u64,
    next_seq: u32,
    max_catchup: u32,
    alpha: f64,
    /// Ticks skipped because the caller fell too far behind.
    pub skipped_ticks: u64,
}

impl Default for InputClock {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_CATCHUP_TICKS)
    }
}

impl InputClock {
    /// A clock that runs at most `max_catchup` ticks per call.
    pub fn new(max_catchup: u32) -> Self {
        Self {
            start: None,
            ticks_done: 0,
            next_seq: 1,
            max_catchup: max_catchup.max(1),
            alpha: 0.0,
            skipped_ticks: 0,
        }
    }

    /// Starts counting at `now` (the first tick is due at once).
    pub fn start(&mut self, now: Duration) {
        self.start = Some(now);
        self.ticks_done = 0;
        self.alpha = 0.0;
    }

    pub fn is_started(&self) -> bool {
        self.start.is_some()
    }

    /// Ticks due at `now` (call once per frame, then run that many ticks).
    pub fn advance(&mut self, now: Duration) -> u32 {
        let Some(start) = self.start else {
            return 0;
        };
        let scaled = now.saturating_sub(start).as_nanos() * u128::from(TICK_HZ);
        let elapsed = (scaled / 1_000_000_000) as u64 + 1;
        self.alpha = (scaled % 1_000_000_000) as f64 / 1e9;
        let due = elapsed.saturating_sub(self.ticks_done);
        if due > u64::from(self.max_catchup) {
            let skip = due - u64::from(self.max_catchup);
            self.skipped_ticks += skip;
            self.ticks_done += skip;
        }
        let run = elapsed.saturating_sub(self.ticks_done);
        self.ticks_done = elapsed;
        run as u32
    }

    /// Fraction of the current tick elapsed at the last `advance` (render interpolation).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Takes the sequence number for the next input (starts at 1, wraps).
    pub fn next_seq(&mut self) -> u32 {
        let s = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        s
    }

    /// The sequence number the next input will get.
    pub fn peek_seq(&self) -> u32 {
        self.next_seq
    }
}

/// What the pilot commands this tick.
#[derive(Debug, Clone, PartialEq)]
pub struct PilotInput {
    /// 0 idle … 1 military.
    pub throttle: f32,
    /// Stick aft (+) / forward (−), −1 … 1.
    pub pitch: f32,
    /// Stick right (+), −1 … 1.
    pub roll: f32,
    /// Right pedal (+), −1 … 1.
    pub yaw: f32,
    pub gun: bool,
    pub afterburner: bool,
    /// Release the selected store (the server edge-detects it).
    pub fire_store: bool,
    pub chaff_flare: bool,
    pub ecm: bool,
    pub eject: bool,
    pub wheel_brake: bool,
    pub respawn: bool,
    /// Absolute station index; `None` keeps the server's selection.
    pub station: Option<u8>,
    /// Absolute radar mode; `None` keeps the server's.
    pub radar: Option<RadarMode>,
    /// Commanded flaps, 0 … 1.
    pub flaps: f32,
    /// Commanded speed brake, 0 … 1.
    pub speedbrake: f32,
    pub gear_down: bool,
    pub hook_down: bool,
    pub canopy_open: bool,
    /// Camera eye (world, m).
    pub camera_eye: [f64; 3],
    /// Camera look direction (world, unit).
    pub view_axis: [f32; 3],
}

impl Default for PilotInput {
    fn default() -> Self {
        Self {
            throttle: 0.0,
            pitch: 0.0,
            roll: 0.0,
            yaw: 0.0,
            gun: false,
            afterburner: false,
            fire_store: false,
            chaff_flare: false,
            ecm: false,
            eject: false,
            wheel_brake: false,
            respawn: false,
            station: None,
            radar: None,
            flaps: 0.0,
            speedbrake: 0.0,
            gear_down: false,
            hook_down: false,
            canopy_open: false,
            camera_eye: [0.0; 3],
            view_axis: [0.0, 0.0, -1.0],
        }
    }
}

fn unit_byte(v: f32) -> u8 {
    if v.is_finite() {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    } else {
        0
    }
}

fn axis(v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() { v.clamp(lo, hi) } else { 0.0 }
}

impl PilotInput {
    /// The wire message for input `seq` (protocol version and ack are stamped by the session).
    pub fn to_message(&self, seq: u32) -> ClientInput {
        let mut b = 0u8;
        for (on, bit) in [
            (self.gun, buttons::GUN),
            (self.afterburner, buttons::AFTERBURNER),
            (self.fire_store, buttons::FIRE_STORE),
            (self.chaff_flare, buttons::CHAFF_FLARE),
            (self.ecm, buttons::ECM),
            (self.eject, buttons::EJECT),
            (self.wheel_brake, buttons::WHEEL_BRAKE),
            (self.respawn, buttons::RESPAWN),
        ] {
            if on {
                b |= bit;
            }
        }
        let mut art = 0u8;
        for (on, bit) in [
            (self.gear_down, art_buttons::GEAR_DOWN),
            (self.hook_down, art_buttons::HOOK_DOWN),
            (self.canopy_open, art_buttons::CANOPY_OPEN),
        ] {
            if on {
                art |= bit;
            }
        }
        let v = self.view_axis.map(|c| if c.is_finite() { c } else { 0.0 });
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let view_axis = if n > 1e-6 {
            v.map(|c| c / n)
        } else {
            [0.0, 0.0, -1.0]
        };
        ClientInput {
            buttons: b,
            protocol_version: fl_protocol::PROTOCOL_VERSION,
            seq_num: seq,
            tick_index: 0,
            throttle: axis(self.throttle, 0.0, 1.0),
            elevator: axis(self.pitch, -1.0, 1.0),
            aileron: axis(self.roll, -1.0, 1.0),
            rudder: axis(self.yaw, -1.0, 1.0),
            view_axis,
            ack_mask: 0,
            selected_station: self.station.unwrap_or(KEEP_CURRENT),
            radar_mode: self.radar.map_or(KEEP_CURRENT, RadarMode::to_u8),
            flaps: unit_byte(self.flaps),
            speedbrake: unit_byte(self.speedbrake),
            art_buttons: art,
            camera_eye: if self.camera_eye.iter().all(|c| c.is_finite()) {
                self.camera_eye
            } else {
                [0.0; 3]
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_ticks_a_second_at_any_frame_rate() {
        for fps in [30u64, 59, 60, 61, 144, 240, 1000] {
            let mut c = InputClock::new(100);
            c.start(Duration::ZERO);
            let mut ticks = 0u64;
            for f in 0..=fps * 10 {
                ticks += u64::from(c.advance(Duration::from_nanos(f * 1_000_000_000 / fps)));
            }
            assert_eq!(ticks, 601, "{fps} fps: ticks 0..=600 in ten seconds");
        }
    }

    #[test]
    fn alpha_is_the_fraction_of_the_tick() {
        let mut c = InputClock::default();
        c.start(Duration::from_secs(5));
        assert_eq!(c.advance(Duration::from_secs(5)), 1);
        assert_eq!(c.alpha(), 0.0);
        assert_eq!(
            c.advance(Duration::from_secs(5) + Duration::from_micros(8_333)),
            0
        );
        assert!((c.alpha() - 0.49998).abs() < 1e-4, "{}", c.alpha());
    }

    #[test]
    fn a_stall_is_capped_and_counted() {
        let mut c = InputClock::new(8);
        c.start(Duration::ZERO);
        c.advance(Duration::ZERO);
        assert_eq!(c.advance(Duration::from_secs(2)), 8);
        assert_eq!(c.skipped_ticks, 112);
        assert_eq!(
            c.advance(Duration::from_secs(2) + Duration::from_millis(17)),
            1
        );
    }

    #[test]
    fn every_field_reaches_the_message() {
        let p = PilotInput {
            throttle: 2.0,
            pitch: -0.5,
            roll: f32::NAN,
            yaw: 0.25,
            gun: true,
            afterburner: true,
            wheel_brake: true,
            station: Some(3),
            radar: Some(RadarMode::Stt),
            flaps: 0.5,
            speedbrake: 1.0,
            gear_down: true,
            canopy_open: true,
            camera_eye: [1.0, 2.0, 3.0],
            view_axis: [0.0, 3.0, 4.0],
            ..PilotInput::default()
        };
        let m = p.to_message(42);
        assert_eq!(m.seq_num, 42);
        assert_eq!(
            (m.throttle, m.elevator, m.aileron, m.rudder),
            (1.0, -0.5, 0.0, 0.25)
        );
        assert_eq!(
            m.buttons,
            buttons::GUN | buttons::AFTERBURNER | buttons::WHEEL_BRAKE
        );
        assert_eq!(
            m.art_buttons,
            art_buttons::GEAR_DOWN | art_buttons::CANOPY_OPEN
        );
        assert_eq!((m.selected_station, m.radar_mode), (3, 3));
        assert_eq!((m.flaps, m.speedbrake), (128, 255));
        assert_eq!(m.view_axis, [0.0, 0.6, 0.8]);
        assert_eq!(m.camera_eye, [1.0, 2.0, 3.0]);
        let keep = PilotInput::default().to_message(1);
        assert_eq!((keep.selected_station, keep.radar_mode), (255, 255));
        let c = fl_server::input::controls_from_input(&m);
        assert!(c.afterburner && c.gear_down);
        assert_eq!(c.speedbrake, 1.0);
    }
}
