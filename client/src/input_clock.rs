//! Input at a fixed 60 Hz, independent of the frame rate, steered a few percent to keep the
//! server's input buffer at its target.
//!
//! [`InputClock`] counts whole ticks since it started from the caller's monotonic `now`
//! (integer nano-ticks: nanoseconds × 60 × rate, so there is no drift and no float
//! accumulation); each due tick gets the next sequence number. Unsteered it runs at exactly
//! 60 Hz. [`InputClock::steer`] sets its rate from the server's target lead
//! (`SnapshotInputTiming`): where the server wants this client's inputs, measured in ticks
//! ahead of the unsteered clock ([`InputClock::lead_ticks`], sent as `InputClockLead`). The
//! rate follows the lead error smoothly (proportional, at most ±[`MAX_STEER`]), as Overwatch's
//! and Rocket League's clients do, so the server's buffer stays at its depth without the server
//! dropping or repeating inputs. The clock stays monotonic: a tick is never emitted twice and a
//! sequence number never skipped, whatever the rate. [`PilotInput`] is what the player commands, in physical
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
/// The most the input clock is steered away from 60 Hz (3 %: 1.8 ticks a second).
pub const MAX_STEER: f64 = 0.03;
/// Rate change per tick of lead error (1 tick off → 2 % faster or slower).
pub const STEER_GAIN: f64 = 0.02;
/// Lead errors below this are left alone (ticks).
pub const STEER_DEADBAND: f64 = 0.05;
/// The rate moves at most this much per call (smooth, never a jump).
pub const STEER_SLEW: f64 = 0.002;
const PPM: i128 = 1_000_000;
const NANOS: u128 = 1_000_000_000;

/// The fixed-rate tick source.
#[derive(Debug, Clone)]
pub struct InputClock {
    start: Option<Duration>,
    /// Where the last rate change happened: the time and the position there (nano-ticks).
    base_time: Duration,
    base_pos: u128,
    /// The rate's offset from 60 Hz in parts per million (±[`MAX_STEER`]).
    steer_ppm: i64,
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
            base_time: Duration::ZERO,
            base_pos: 0,
            steer_ppm: 0,
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
        self.base_time = now;
        self.base_pos = 0;
        self.steer_ppm = 0;
        self.ticks_done = 0;
        self.skipped_ticks = 0;
        self.alpha = 0.0;
    }

    pub fn is_started(&self) -> bool {
        self.start.is_some()
    }

    /// The clock's position at `now` in nano-ticks (monotonic in `now`).
    fn position(&self, now: Duration) -> u128 {
        let dt = now.saturating_sub(self.base_time).as_nanos() * u128::from(TICK_HZ);
        let rate = (PPM + i128::from(self.steer_ppm)).max(1) as u128;
        self.base_pos + dt * rate / PPM as u128
    }

    /// How far the clock runs ahead of its unsteered 60 Hz self at `now`, in ticks, less the
    /// ticks skipped after stalls (those took no sequence number): the `InputClockLead` the
    /// server measures arrivals against.
    pub fn lead_ticks(&self, now: Duration) -> f64 {
        let Some(start) = self.start else {
            return 0.0;
        };
        let nominal = now.saturating_sub(start).as_nanos() * u128::from(TICK_HZ);
        let pos = self.position(now);
        let ahead = if pos >= nominal {
            (pos - nominal) as f64
        } else {
            -((nominal - pos) as f64)
        };
        ahead / NANOS as f64 - self.skipped_ticks as f64
    }

    /// The current rate relative to 60 Hz (1.0 unsteered).
    pub fn rate(&self) -> f64 {
        1.0 + self.steer_ppm as f64 / PPM as f64
    }

    /// Steers the rate toward holding `target_lead` (ticks, the server's `SnapshotInputTiming`)
    /// at `now`: proportional to the lead error, within ±[`MAX_STEER`], moving at most
    /// [`STEER_SLEW`] per call; no target, no steering (the rate eases back to 60 Hz).
    pub fn steer(&mut self, target_lead: Option<f64>, now: Duration) {
        if self.start.is_none() {
            return;
        }
        let want = match target_lead.filter(|t| t.is_finite()) {
            Some(t) => {
                let err = t - self.lead_ticks(now);
                if err.abs() < STEER_DEADBAND {
                    0.0
                } else {
                    (err * STEER_GAIN).clamp(-MAX_STEER, MAX_STEER)
                }
            }
            None => 0.0,
        };
        let cur = self.rate() - 1.0;
        let next = cur + (want - cur).clamp(-STEER_SLEW, STEER_SLEW);
        let ppm = (next * PPM as f64).round() as i64;
        let max = (MAX_STEER * PPM as f64) as i64;
        let ppm = ppm.clamp(-max, max);
        if ppm != self.steer_ppm {
            // Rebase so the position is continuous across the rate change.
            self.base_pos = self.position(now);
            self.base_time = self.base_time.max(now);
            self.steer_ppm = ppm;
        }
    }

    /// Ticks due at `now` (call once per frame, then run that many ticks).
    pub fn advance(&mut self, now: Duration) -> u32 {
        if self.start.is_none() {
            return 0;
        }
        let scaled = self.position(now);
        let elapsed = (scaled / NANOS) as u64 + 1;
        self.alpha = (scaled % NANOS) as f64 / 1e9;
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
    /// The radar's STT target (docs/protocol.md, `InputDesignate` 0x0303): `Some(entity
    /// index)` designates it (the server accepts only a target its sensors hold a contact on),
    /// `Some(fl_protocol::tlv::DESIGNATE_NONE)` clears, `None` keeps the server's. Not in
    /// `MsgClientInput` itself: the session writes it as a TLV with each input. Set by the
    /// designate key (`app::keyboard`, stepping through the datalink's hostile tracks) or an
    /// autopilot.
    pub designate: Option<u32>,
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
            designate: None,
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
    fn steering_reaches_the_target_lead_smoothly_and_within_bounds() {
        // 144 fps for 20 s; the server asks for 3 ticks of lead, later for 1.
        let mut c = InputClock::new(100);
        c.start(Duration::ZERO);
        let frame = 1_000_000_000u64 / 144;
        let (mut ticks, mut prev_rate, mut max_rate_step) = (0u64, 1.0f64, 0.0f64);
        let mut seqs = Vec::new();
        for f in 0..144 * 20u64 {
            let now = Duration::from_nanos(f * frame);
            let target = if f < 144 * 10 { 3.0 } else { 1.0 };
            c.steer(Some(target), now);
            let r = c.rate();
            assert!(
                (1.0 - MAX_STEER - 1e-9..=1.0 + MAX_STEER + 1e-9).contains(&r),
                "{r}"
            );
            max_rate_step = max_rate_step.max((r - prev_rate).abs());
            prev_rate = r;
            let due = c.advance(now);
            assert!(due <= 2, "never a burst: {due} at frame {f}");
            for _ in 0..due {
                seqs.push(c.next_seq());
            }
            ticks += u64::from(due);
            if f == 144 * 10 - 1 {
                let lead = c.lead_ticks(now);
                assert!((lead - 3.0).abs() < 0.1, "reached 3 ticks of lead: {lead}");
            }
        }
        let end = Duration::from_nanos(144 * 20 * frame);
        let lead = c.lead_ticks(end);
        assert!((lead - 1.0).abs() < 0.1, "back to 1 tick: {lead}");
        assert!(
            (c.rate() - 1.0).abs() < 0.005,
            "at rest near 60 Hz: {}",
            c.rate()
        );
        assert!(
            max_rate_step <= STEER_SLEW + 1e-9,
            "smooth: {max_rate_step}"
        );
        // Every sequence number once, in order, none skipped; the tick count is the unsteered
        // count plus the lead.
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
        let unsteered = 60 * 20;
        assert!((ticks as i64 - unsteered as i64 - 1).abs() <= 2, "{ticks}");
    }

    #[test]
    fn an_unsteered_clock_has_no_lead_and_a_stall_is_a_negative_one() {
        let mut c = InputClock::new(8);
        c.start(Duration::from_secs(1));
        c.advance(Duration::from_secs(1));
        c.steer(None, Duration::from_secs(2));
        assert_eq!(c.rate(), 1.0);
        assert_eq!(c.lead_ticks(Duration::from_secs(2)), 0.0);
        c.advance(Duration::from_secs(3));
        // Two seconds in one call: 8 ticks run, 112 skipped (no sequence number).
        assert_eq!(
            c.lead_ticks(Duration::from_secs(3)),
            -(c.skipped_ticks as f64)
        );
        // A non-finite target is no target.
        c.steer(Some(f64::NAN), Duration::from_secs(3));
        assert_eq!(c.rate(), 1.0);
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
