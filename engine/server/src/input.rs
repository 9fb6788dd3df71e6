//! Per-peer input admission: the checks a `MsgClientInput` passes before it may steer an
//! aircraft (protocol version, flood limit, and a sequence guard that takes each sequence
//! number once: the newest, or an older one inside a 64-input window that has not been seen —
//! the copies of earlier inputs a client repeats in every packet, `InputRedundancy`), the
//! clamping and normalisation of its values, and the one mapping from wire input to flight
//! controls that the server and client prediction share.
//!
//! Owns no timing and no buffering (that is `jitter.rs`); never trusts a float from the wire.

use fl_flight::Controls;
use fl_protocol::PROTOCOL_VERSION;
use fl_protocol::ack::{AckStamp, seq32_newer};
use fl_protocol::enums::{art_buttons, buttons};
use fl_protocol::msg::world::ClientInput;

/// One validated input, ready for the jitter buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerInput {
    pub seq: u32,
    /// The snapshot ack stamp it carried.
    pub ack: AckStamp,
    /// The sanitised wire message (controls clamped, view axis unit length, eye finite).
    pub wire: ClientInput,
    /// The server tick the client's screen showed when it sampled this input (lag
    /// compensation, `lagcomp::view_tick`): set by the server from the packet's `InputViewDelay`
    /// once the input is admitted; `None` until then.
    pub view_tick: Option<f64>,
}

impl PeerInput {
    /// The flight controls this input commands.
    pub fn controls(&self) -> Controls {
        controls_from_input(&self.wire)
    }
}

/// The flight controls a (sanitised) wire input commands — the single mapping both the server
/// and client-side prediction use, so both integrate the very same numbers.
pub fn controls_from_input(input: &ClientInput) -> Controls {
    let axis = |v: f32, lo: f64, hi: f64| {
        let v = f64::from(v);
        if v.is_finite() { v.clamp(lo, hi) } else { 0.0 }
    };
    Controls {
        pitch: axis(input.elevator, -1.0, 1.0),
        roll: axis(input.aileron, -1.0, 1.0),
        yaw: axis(input.rudder, -1.0, 1.0),
        throttle: axis(input.throttle, 0.0, 1.0),
        afterburner: input.buttons & buttons::AFTERBURNER != 0,
        speedbrake: f64::from(input.speedbrake) / 255.0,
        gear_down: input.art_buttons & art_buttons::GEAR_DOWN != 0,
        flaps: f64::from(input.flaps) / 255.0,
        wheel_brake: if input.buttons & buttons::WHEEL_BRAKE != 0 {
            1.0
        } else {
            0.0
        },
        sweep_deg: None,
    }
}

/// Why an input was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// `protocolVersion` differs from ours.
    Version(u16),
    /// Already accepted (a duplicate), or older than the 64-input window.
    Stale,
    /// More inputs than the flood limit allows.
    Flood,
}

/// Flood limit: inputs arrive at 60 Hz; allow bursts (a client catching up after a stall) but
/// not a firehose. A token bucket refilled per server tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloodLimit {
    /// Tokens added per server tick.
    pub per_tick: f64,
    /// Bucket size.
    pub burst: f64,
}

impl Default for FloodLimit {
    fn default() -> Self {
        Self {
            per_tick: 2.0,
            burst: 30.0,
        }
    }
}

/// How far below the newest accepted sequence number an unseen input is still taken.
pub const SEQ_WINDOW: u32 = 64;

/// The per-peer gate.
#[derive(Debug, Clone)]
pub struct InputGate {
    last_seq: Option<u32>,
    /// Bit b: input `last_seq − 1 − b` was accepted.
    seen: u64,
    tokens: f64,
    last_tick: u64,
    limit: FloodLimit,
    /// Counters for diagnostics.
    pub rejected_version: u64,
    pub rejected_stale: u64,
    pub rejected_flood: u64,
    /// Inputs accepted from a redundant copy (their own packet was lost or came later).
    pub accepted_copies: u64,
}

impl InputGate {
    pub fn new(limit: FloodLimit) -> Self {
        Self {
            last_seq: None,
            seen: 0,
            tokens: limit.burst,
            last_tick: 0,
            limit,
            rejected_version: 0,
            rejected_stale: 0,
            rejected_flood: 0,
            accepted_copies: 0,
        }
    }

    /// Checks and sanitises one input that arrived during server tick `now`.
    pub fn admit(&mut self, input: &ClientInput, now: u64) -> Result<PeerInput, Rejected> {
        let mut out = self.admit_packet(input, &[], now)?;
        out.pop().ok_or(Rejected::Stale)
    }

    /// Checks one `MsgClientInput` and the copies of earlier inputs it carries (`copies`, any
    /// order; at most `fl_protocol::tlv::MAX_REDUNDANT_INPUTS` are looked at). The packet pays
    /// one flood token and passes the version check once; then every input whose sequence
    /// number was not taken yet is sanitised and returned, oldest first. Err only when the
    /// whole packet is refused (version, flood); a packet with nothing new gives `Ok([])` and
    /// counts as stale.
    pub fn admit_packet(
        &mut self,
        input: &ClientInput,
        copies: &[ClientInput],
        now: u64,
    ) -> Result<Vec<PeerInput>, Rejected> {
        if input.protocol_version != PROTOCOL_VERSION {
            self.rejected_version += 1;
            return Err(Rejected::Version(input.protocol_version));
        }
        let elapsed = now.saturating_sub(self.last_tick) as f64;
        self.last_tick = now;
        self.tokens = (self.tokens + elapsed * self.limit.per_tick).min(self.limit.burst);
        if self.tokens < 1.0 {
            self.rejected_flood += 1;
            return Err(Rejected::Flood);
        }
        self.tokens -= 1.0;
        let mut out = Vec::new();
        // The copies first (they are older), so the newest sets the window last.
        let copies = &copies[..copies.len().min(fl_protocol::tlv::MAX_REDUNDANT_INPUTS)];
        for (i, c) in copies.iter().chain(std::iter::once(input)).enumerate() {
            let is_copy = i < copies.len();
            if !self.take_seq(c.seq_num) {
                if !is_copy {
                    self.rejected_stale += 1;
                }
                continue;
            }
            if is_copy {
                self.accepted_copies += 1;
            }
            let wire = sanitize(c, now);
            out.push(PeerInput {
                seq: wire.seq_num,
                ack: AckStamp {
                    high: wire.tick_index,
                    mask: wire.ack_mask,
                },
                wire,
                view_tick: None,
            });
        }
        out.sort_by(|a, b| {
            if a.seq == b.seq {
                std::cmp::Ordering::Equal
            } else if seq32_newer(b.seq, a.seq) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        Ok(out)
    }

    /// Marks `seq` taken; false when it was taken already or is older than the window.
    fn take_seq(&mut self, seq: u32) -> bool {
        let Some(last) = self.last_seq else {
            self.last_seq = Some(seq);
            self.seen = 0;
            return true;
        };
        if seq32_newer(seq, last) {
            let d = seq.wrapping_sub(last);
            self.seen = if d > SEQ_WINDOW {
                0
            } else if d == SEQ_WINDOW {
                1 << (SEQ_WINDOW - 1)
            } else {
                (self.seen << d) | (1 << (d - 1))
            };
            self.last_seq = Some(seq);
            return true;
        }
        let age = last.wrapping_sub(seq);
        if age == 0 || age > SEQ_WINDOW {
            return false;
        }
        let bit = 1u64 << (age - 1);
        if self.seen & bit != 0 {
            return false;
        }
        self.seen |= bit;
        true
    }
}

/// Clamps every control to its range (NaN → neutral), normalises the view axis (a degenerate
/// one becomes straight ahead, +Z), zeroes a non-finite camera eye, and clamps the acked tick to
/// the present (a client cannot acknowledge the future).
pub fn sanitize(input: &ClientInput, now: u64) -> ClientInput {
    let clamp = |v: f32, lo: f32, hi: f32| if v.is_finite() { v.clamp(lo, hi) } else { 0.0 };
    let mut out = input.clone();
    out.throttle = clamp(input.throttle, 0.0, 1.0);
    out.elevator = clamp(input.elevator, -1.0, 1.0);
    out.aileron = clamp(input.aileron, -1.0, 1.0);
    out.rudder = clamp(input.rudder, -1.0, 1.0);
    let v = input.view_axis.map(f64::from);
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    out.view_axis = if n.is_finite() && n > 1e-6 {
        v.map(|c| (c / n) as f32)
    } else {
        [0.0, 0.0, 1.0]
    };
    if !input.camera_eye.iter().all(|c| c.is_finite()) {
        out.camera_eye = [0.0; 3];
    }
    out.tick_index = input.tick_index.min(now);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(seq: u32) -> ClientInput {
        ClientInput {
            protocol_version: PROTOCOL_VERSION,
            seq_num: seq,
            throttle: 0.5,
            view_axis: [0.0, 0.0, 2.0],
            ..Default::default()
        }
    }

    #[test]
    fn version_duplicates_and_reordering_are_rejected() {
        let mut g = InputGate::new(FloodLimit::default());
        assert!(g.admit(&input(5), 0).is_ok());
        assert_eq!(g.admit(&input(5), 0), Err(Rejected::Stale));
        // An older input not seen yet is taken once (a reordered packet): its slot may not
        // have passed; the jitter buffer drops it if it has.
        assert!(g.admit(&input(4), 0).is_ok());
        assert_eq!(g.admit(&input(4), 0), Err(Rejected::Stale));
        assert_eq!(
            g.admit(&input(5u32.wrapping_sub(SEQ_WINDOW + 1)), 0),
            Err(Rejected::Stale),
            "older than the window"
        );
        assert!(g.admit(&input(6), 0).is_ok());
        let mut bad = input(7);
        bad.protocol_version = 9;
        assert_eq!(g.admit(&bad, 0), Err(Rejected::Version(9)));
        // Wrapping sequence numbers stay newer.
        let mut g = InputGate::new(FloodLimit::default());
        assert!(g.admit(&input(u32::MAX), 0).is_ok());
        assert!(g.admit(&input(0), 0).is_ok());
    }

    #[test]
    fn each_input_is_taken_once_from_whichever_copy_comes_first() {
        let mut g = InputGate::new(FloodLimit::default());
        let seqs = |v: Vec<PeerInput>| v.into_iter().map(|p| p.seq).collect::<Vec<_>>();
        // Packet 10 carries 9, 8, 7: all new.
        let copies = [input(9), input(8), input(7)];
        assert_eq!(
            seqs(g.admit_packet(&input(10), &copies, 0).expect("ok")),
            [7, 8, 9, 10]
        );
        // Packet 11 (with 10, 9, 8) brings only 11; packet 13 (12, 11, 10) after a lost 12.
        let c11 = [input(10), input(9), input(8)];
        assert_eq!(seqs(g.admit_packet(&input(11), &c11, 0).expect("ok")), [11]);
        let c13 = [input(12), input(11), input(10)];
        assert_eq!(
            seqs(g.admit_packet(&input(13), &c13, 0).expect("ok")),
            [12, 13]
        );
        assert_eq!(g.accepted_copies, 4);
        // Packet 12 arrives late: nothing new, counted stale once.
        let c12 = [input(11), input(10), input(9)];
        assert_eq!(g.admit_packet(&input(12), &c12, 0), Ok(vec![]));
        assert_eq!(g.rejected_stale, 1);
        // A hostile packet with too many copies: only the first fifteen are looked at.
        let many: Vec<ClientInput> = (0..100).map(|s| input(100 - s)).collect();
        let got = g.admit_packet(&input(101), &many, 1).expect("ok");
        assert_eq!(got.len(), 16);
        // A wrong version refuses the whole packet.
        let mut bad = input(200);
        bad.protocol_version = 9;
        assert_eq!(
            g.admit_packet(&bad, &[input(199)], 2),
            Err(Rejected::Version(9))
        );
    }

    #[test]
    fn floods_are_cut_and_the_bucket_refills() {
        let mut g = InputGate::new(FloodLimit {
            per_tick: 2.0,
            burst: 5.0,
        });
        let accepted = (0..20)
            .filter(|&s| g.admit(&input(s + 1), 0).is_ok())
            .count();
        assert_eq!(accepted, 5);
        assert!(
            g.admit(&input(100), 1).is_ok(),
            "one tick later there are tokens again"
        );
        assert_eq!(g.rejected_flood, 15);
    }

    #[test]
    fn hostile_values_are_clamped() {
        let mut i = input(1);
        i.throttle = f32::NAN;
        i.elevator = 7.0;
        i.aileron = f32::NEG_INFINITY;
        i.view_axis = [f32::NAN, 0.0, 0.0];
        i.camera_eye = [f64::INFINITY, 0.0, 0.0];
        i.tick_index = 1_000;
        let s = sanitize(&i, 10);
        assert_eq!((s.throttle, s.elevator, s.aileron), (0.0, 1.0, 0.0));
        assert_eq!(s.view_axis, [0.0, 0.0, 1.0]);
        assert_eq!(s.camera_eye, [0.0; 3]);
        assert_eq!(s.tick_index, 10);
        let c = controls_from_input(&s);
        assert_eq!((c.pitch, c.throttle), (1.0, 0.0));
        let ok = sanitize(&input(1), 0);
        assert_eq!(ok.view_axis, [0.0, 0.0, 1.0], "normalised");
    }

    #[test]
    fn mapping_follows_the_spec_bits() {
        let mut i = input(1);
        i.buttons = buttons::AFTERBURNER | buttons::WHEEL_BRAKE;
        i.art_buttons = art_buttons::GEAR_DOWN;
        i.flaps = 255;
        i.speedbrake = 200;
        let c = controls_from_input(&i);
        assert!(c.afterburner && c.gear_down);
        assert_eq!((c.flaps, c.wheel_brake), (1.0, 1.0));
        assert_eq!(c.speedbrake, 200.0 / 255.0);
    }

    #[test]
    fn the_speed_brake_is_proportional_like_the_flaps() {
        // The spec: absolute commanded speed-brake, 0..255 ⇒ 0..1 (not a switch at 128).
        for (byte, want) in [
            (0u8, 0.0),
            (1, 1.0 / 255.0),
            (64, 64.0 / 255.0),
            (127, 127.0 / 255.0),
        ]
        .into_iter()
        .chain([(128u8, 128.0 / 255.0), (255, 1.0)])
        {
            let mut i = input(1);
            i.speedbrake = byte;
            i.flaps = byte;
            let c = controls_from_input(&i);
            assert_eq!(c.speedbrake, want, "speedbrake byte {byte}");
            assert_eq!(c.speedbrake, c.flaps, "same scale as the flaps");
        }
    }
}
