//! One sensor's track on one target, as a pure state machine, and the small wire-mirroring
//! enums around it (radar mode, contact state).
//!
//! The rule of the design record (2026-07-13): **the dice gate acquisition, geometry maintains
//! the contact** — Lost → Detected needs the search die, Detected → Locked the track die; a held
//! track stays held while it is seen, without a roll; once unseen it coasts on its last-known
//! state for the sensor's hold, then drops. A lock that coasts and is seen again in the track lobe
//! before its coast runs out is still locked ("it was never lost, only unobserved"). Must not:
//! keep state of its own or draw dice (it is handed the dice's outcomes).

/// A coast this close to zero has run out (repeated subtraction of a 0.1 s interval leaves
/// dust; a contact must not outlive its hold by a check).
const COAST_EPS_S: f64 = 1e-6;

/// A radar's operating mode. The discriminants are the wire's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum RadarMode {
    /// Not radiating (EMCON).
    Silent = 0,
    /// Scanning: bearing and range, no lock.
    Search = 1,
    /// Track-while-scan: soft locks on several targets.
    Tws = 2,
    /// Single-target track: one firing-quality lock.
    Stt = 3,
}

/// The wire's "keep the current mode" value of `MsgClientInput::radarMode`.
pub const RADAR_MODE_KEEP: u8 = 255;

impl RadarMode {
    /// The mode a wire byte names (`None` for any other value, 255 included).
    pub fn from_wire(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Silent),
            1 => Some(Self::Search),
            2 => Some(Self::Tws),
            3 => Some(Self::Stt),
            _ => None,
        }
    }

    /// True for every mode but Silent.
    #[inline]
    pub fn emits(self) -> bool {
        self != Self::Silent
    }
}

/// A radar-mode byte that is neither a mode nor [`RADAR_MODE_KEEP`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("radar mode {0} is not 0-3 or 255 (keep)")]
pub struct BadRadarMode(pub u8);

/// A contact's lifecycle. The discriminants are the wire's `ContactState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ContactState {
    /// Not held.
    Lost = 0,
    /// Held by a search lobe: bearing and range.
    Detected = 1,
    /// Held by a track lobe.
    Locked = 2,
    /// Was held, now unseen, running out its coast on last-known state.
    Coasting = 3,
}

impl ContactState {
    /// Strength for merging and priority: Locked > Detected > Coasting > Lost.
    #[inline]
    pub fn rank(self) -> u8 {
        match self {
            Self::Lost => 0,
            Self::Coasting => 1,
            Self::Detected => 2,
            Self::Locked => 3,
        }
    }

    /// Held at all (anything but Lost).
    #[inline]
    pub fn held(self) -> bool {
        self != Self::Lost
    }
}

/// One sensor's track on one target, between checks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotTrack {
    /// Where it is in its lifecycle.
    pub state: ContactState,
    /// Coast left, s (> 0 only while Coasting).
    pub coast_left_s: f64,
    /// The coast started from a lock: seen again in the track lobe, it is locked again.
    pub coast_from_lock: bool,
    /// Tick of the Lost → Detected edge (drives an AI's reaction delay).
    pub first_detected_tick: u64,
    /// Last tick it was actually seen.
    pub last_seen_tick: u64,
}

impl SlotTrack {
    /// Not held.
    pub const LOST: SlotTrack = SlotTrack {
        state: ContactState::Lost,
        coast_left_s: 0.0,
        coast_from_lock: false,
        first_detected_tick: 0,
        last_seen_tick: 0,
    };
}

/// What one check saw of one target through one sensor (from `detect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Observation {
    /// Seen in the search lobe (in it, not masked, not notched).
    pub search_seen: bool,
    /// Seen in the track lobe.
    pub track_seen: bool,
    /// The search die passed.
    pub search_roll: bool,
    /// The track die passed.
    pub track_roll: bool,
    /// A new lock may be taken (TWS capacity); an existing one is kept regardless.
    pub may_lock: bool,
}

/// Advances one sensor's track on one target by one check. Pure.
pub fn step_track(
    prev: SlotTrack,
    obs: &Observation,
    coast_s: f64,
    dt_s: f64,
    tick: u64,
) -> SlotTrack {
    let mut next = prev;
    let held = prev.state.held();
    if !(obs.search_seen || obs.track_seen) {
        if !held {
            return next;
        }
        if prev.state == ContactState::Coasting {
            next.coast_left_s = prev.coast_left_s - dt_s.max(0.0);
        } else {
            next.state = ContactState::Coasting;
            next.coast_left_s = if coast_s.is_nan() {
                0.0
            } else {
                coast_s.max(0.0)
            };
            next.coast_from_lock = prev.state == ContactState::Locked;
        }
        if next.coast_left_s.is_nan() || next.coast_left_s <= COAST_EPS_S {
            return SlotTrack::LOST;
        }
        return next;
    }
    match prev.state {
        ContactState::Lost => {
            // Acquisition: the search lobe and its die.
            if !(obs.search_seen && obs.search_roll) {
                return next;
            }
            next.state = ContactState::Detected;
            next.first_detected_tick = tick;
        }
        ContactState::Coasting => {
            // Recovered inside the coast: no die, and a coasting lock is a lock again if the
            // track lobe sees it.
            next.state = if prev.coast_from_lock && obs.track_seen {
                ContactState::Locked
            } else {
                ContactState::Detected
            };
        }
        ContactState::Detected | ContactState::Locked => {}
    }
    next.coast_left_s = 0.0;
    next.coast_from_lock = false;
    next.last_seen_tick = tick;
    if obs.track_seen {
        if next.state != ContactState::Locked && obs.track_roll && obs.may_lock {
            next.state = ContactState::Locked;
        }
    } else if next.state == ContactState::Locked {
        // Still seen, but not by the track lobe: we can see it, we cannot shoot it.
        next.state = ContactState::Detected;
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(search_roll: bool, track: bool, track_roll: bool) -> Observation {
        Observation {
            search_seen: true,
            track_seen: track,
            search_roll,
            track_roll,
            may_lock: true,
        }
    }

    #[test]
    fn dice_gate_acquisition_and_geometry_keeps_it() {
        let t0 = SlotTrack::LOST;
        // A failed die leaves it lost.
        assert_eq!(step_track(t0, &seen(false, false, false), 3.0, 0.1, 1), t0);
        let t1 = step_track(t0, &seen(true, false, false), 3.0, 0.1, 2);
        assert_eq!(t1.state, ContactState::Detected);
        assert_eq!(t1.first_detected_tick, 2);
        // Held with every die failing: still held.
        let t2 = step_track(t1, &seen(false, false, false), 3.0, 0.1, 3);
        assert_eq!(t2.state, ContactState::Detected);
        assert_eq!(t2.last_seen_tick, 3);
        // Lock on the track die; held without it afterwards.
        let t3 = step_track(t2, &seen(false, true, true), 3.0, 0.1, 4);
        assert_eq!(t3.state, ContactState::Locked);
        let t4 = step_track(t3, &seen(false, true, false), 3.0, 0.1, 5);
        assert_eq!(t4.state, ContactState::Locked);
        // Out of the track lobe but seen: back to Detected.
        let t5 = step_track(t4, &seen(false, false, false), 3.0, 0.1, 6);
        assert_eq!(t5.state, ContactState::Detected);
        // No capacity: no new lock.
        let mut full = seen(false, true, true);
        full.may_lock = false;
        assert_eq!(
            step_track(t5, &full, 3.0, 0.1, 7).state,
            ContactState::Detected
        );
    }

    #[test]
    fn a_lock_coasts_through_a_gap_and_drops_after_its_hold() {
        let mut t = SlotTrack::LOST;
        t = step_track(t, &seen(true, true, true), 1.0, 0.1, 1);
        assert_eq!(t.state, ContactState::Locked);
        let unseen = Observation::default();
        // 0.5 s gap: coasting, then locked again without a die.
        for k in 0..5 {
            t = step_track(t, &unseen, 1.0, 0.1, 2 + k);
            assert_eq!(t.state, ContactState::Coasting);
        }
        t = step_track(t, &seen(false, true, false), 1.0, 0.1, 10);
        assert_eq!(t.state, ContactState::Locked);
        // A gap of the whole hold: dropped at the check 1 s after the first miss.
        let mut checks = 0;
        loop {
            t = step_track(t, &unseen, 1.0, 0.1, 20 + checks);
            checks += 1;
            if t.state == ContactState::Lost {
                break;
            }
            assert!(checks < 100);
        }
        assert_eq!(
            checks, 11,
            "first miss starts the 1 s coast; 10 more checks run it out"
        );
        // A search-only sensor (hold 0) drops at the first miss.
        let e = step_track(SlotTrack::LOST, &seen(true, false, false), 0.0, 0.1, 1);
        assert_eq!(
            step_track(e, &unseen, 0.0, 0.1, 2).state,
            ContactState::Lost
        );
        // A NaN hold drops too.
        assert_eq!(
            step_track(e, &unseen, f64::NAN, 0.1, 2).state,
            ContactState::Lost
        );
    }
}
