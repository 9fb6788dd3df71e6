//! What the session heard of the mission it flies: which entity is which mission object
//! (`MsgMissionRoster`), the radio lines to subtitle (`MsgRadioTransmission`), the music state a
//! script asked for (`MsgMusicState`) and the end (`MsgMissionOutcome`, once).
//!
//! Owns the bounds on all of it (a server may send any number of roster records and radio
//! lines). Must not: judge the mission — the server decides its state; this keeps what it said.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use fl_protocol::enums::{GameState, MissionResultCode};
use fl_protocol::msg::social::RadioTransmission;
use fl_protocol::msg::world::{MissionOutcome, MissionRoster, MusicState};

/// Roster bindings kept: more than any mission the validator accepts has objects.
pub const MAX_ROSTER: usize = 1024;
/// Radio lines kept for the subtitles and the debrief (the oldest go first).
pub const MAX_RADIO_LINES: usize = 64;
/// How long a radio line stays up when the server gives no display time.
pub const DEFAULT_RADIO_DISPLAY: Duration = Duration::from_secs(6);
/// The longest a radio line stays up, whatever the server asks.
pub const MAX_RADIO_DISPLAY: Duration = Duration::from_secs(30);

/// How the mission ended, as the server said.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// True for a success, false for a failure (an "incomplete" outcome is not an end).
    pub success: bool,
    pub triggers_fired: u16,
    /// Mission time at the end, s.
    pub elapsed_s: f32,
    /// Session time it was heard.
    pub received_at: Duration,
}

/// One radio line.
#[derive(Debug, Clone, PartialEq)]
pub struct RadioLine {
    /// Who speaks (empty when the server gave no name).
    pub speaker: String,
    pub text: String,
    /// Session time it was heard.
    pub received_at: Duration,
    /// How long its subtitle stays up.
    pub display: Duration,
}

impl RadioLine {
    /// The subtitle is up at session time `now`.
    pub fn showing(&self, now: Duration) -> bool {
        now >= self.received_at && now < self.received_at + self.display
    }
}

/// The mission as the session heard it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MissionLog {
    /// (entity index, wire generation) → mission object id.
    pub roster: BTreeMap<(u32, u16), String>,
    /// Roster records dropped over [`MAX_ROSTER`].
    pub roster_dropped: u64,
    pub radio: VecDeque<RadioLine>,
    /// The music state the mission asked for last.
    pub music: Option<GameState>,
    pub outcome: Option<Outcome>,
}

impl MissionLog {
    /// A mission runs on this server (it told us of its objects or its end).
    pub fn active(&self) -> bool {
        !self.roster.is_empty() || self.outcome.is_some()
    }

    /// The mission object id of entity (index, generation), if it is one.
    pub fn object_of(&self, entity: (u32, u16)) -> Option<&str> {
        self.roster.get(&entity).map(String::as_str)
    }

    /// The radio lines to subtitle at `now`, oldest first.
    pub fn subtitles(&self, now: Duration) -> impl Iterator<Item = &RadioLine> {
        self.radio.iter().filter(move |l| l.showing(now))
    }

    pub(super) fn on_roster(&mut self, roster: &MissionRoster) {
        for r in &roster.records {
            let key = (r.entity_idx, r.entity_gen);
            let id = r.object_id.as_str();
            if id.is_empty() {
                continue;
            }
            // A rebind (a respawned slot) replaces the old entity's binding of the same object.
            self.roster.retain(|_, v| v != id);
            if self.roster.len() >= MAX_ROSTER {
                self.roster_dropped += 1;
                continue;
            }
            self.roster.insert(key, id.to_owned());
        }
    }

    /// Keeps a radio line; returns it, or `None` for a blank one (dropped).
    pub(super) fn on_radio(&mut self, r: &RadioTransmission, now: Duration) -> Option<&RadioLine> {
        let text = r.text.as_str().trim();
        if text.is_empty() {
            return None;
        }
        let display = match r.display_seconds {
            0 => DEFAULT_RADIO_DISPLAY,
            s => Duration::from_secs(u64::from(s)).min(MAX_RADIO_DISPLAY),
        };
        if self.radio.len() >= MAX_RADIO_LINES {
            self.radio.pop_front();
        }
        self.radio.push_back(RadioLine {
            speaker: r.speaker.as_str().trim().to_owned(),
            text: text.to_owned(),
            received_at: now,
            display,
        });
        self.radio.back()
    }

    pub(super) fn on_music(&mut self, m: &MusicState) {
        self.music = Some(m.state);
    }

    /// Keeps the first terminal outcome; later ones (a duplicate, an "incomplete") are ignored.
    /// Returns true when this one ended the mission.
    pub(super) fn on_outcome(&mut self, o: &MissionOutcome, now: Duration) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        let success = match o.outcome {
            MissionResultCode::Success => true,
            MissionResultCode::Failure => false,
            MissionResultCode::Incomplete => return false,
        };
        let elapsed_s = if o.elapsed_seconds.is_finite() {
            o.elapsed_seconds.max(0.0)
        } else {
            0.0
        };
        self.outcome = Some(Outcome {
            success,
            triggers_fired: o.triggers_fired,
            elapsed_s,
            received_at: now,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::FixedStr;
    use fl_protocol::msg::world::MissionRosterRecord;

    fn rec(idx: u32, gen_: u16, id: &str) -> MissionRosterRecord {
        MissionRosterRecord {
            entity_gen: gen_,
            entity_idx: idx,
            object_id: FixedStr::new(id),
        }
    }

    #[test]
    fn roster_rebinds_an_object_and_is_bounded() {
        let mut log = MissionLog::default();
        log.on_roster(&MissionRoster {
            records: vec![rec(1, 1, "player1"), rec(2, 1, "bandit1"), rec(3, 1, "")],
        });
        assert_eq!(log.object_of((1, 1)), Some("player1"));
        assert_eq!(log.roster.len(), 2, "an empty id binds nothing");
        log.on_roster(&MissionRoster {
            records: vec![rec(7, 2, "player1")],
        });
        assert_eq!(
            log.object_of((1, 1)),
            None,
            "the respawn replaced the old binding"
        );
        assert_eq!(log.object_of((7, 2)), Some("player1"));

        let many: Vec<_> = (0..(MAX_ROSTER as u32 + 10))
            .map(|i| rec(100 + i, 1, &format!("o{i}")))
            .collect();
        log.on_roster(&MissionRoster { records: many });
        assert_eq!(log.roster.len(), MAX_ROSTER);
        assert!(log.roster_dropped >= 10);
    }

    #[test]
    fn radio_lines_show_for_their_time_and_are_bounded() {
        let mut log = MissionLog::default();
        let line = |text: &str, secs: u16| RadioTransmission {
            net_id: 0xFF,
            display_seconds: secs,
            speaker: FixedStr::new("Ops"),
            voice_key: FixedStr::new(""),
            text: FixedStr::new(text),
        };
        log.on_radio(&line("Cleared hot", 4), Duration::from_secs(10));
        log.on_radio(&line("   ", 4), Duration::from_secs(10));
        log.on_radio(&line("Forever", u16::MAX), Duration::from_secs(10));
        assert_eq!(log.radio.len(), 2, "a blank line is dropped");
        let at = |s| log.subtitles(Duration::from_secs(s)).count();
        assert_eq!(at(12), 2);
        assert_eq!(at(15), 1, "the 4 s line is gone");
        assert_eq!(at(41), 0, "display time is capped at 30 s");
        for i in 0..100 {
            log.on_radio(&line(&format!("l{i}"), 0), Duration::from_secs(50));
        }
        assert_eq!(log.radio.len(), MAX_RADIO_LINES);
        assert_eq!(
            log.radio.back().map(|l| l.display),
            Some(DEFAULT_RADIO_DISPLAY)
        );
    }

    #[test]
    fn first_terminal_outcome_wins() {
        let mut log = MissionLog::default();
        let o = |outcome, t: f32| MissionOutcome {
            outcome,
            triggers_fired: 2,
            elapsed_seconds: t,
        };
        assert!(!log.on_outcome(&o(MissionResultCode::Incomplete, 1.0), Duration::ZERO));
        assert!(log.outcome.is_none());
        assert!(log.on_outcome(&o(MissionResultCode::Failure, f32::NAN), Duration::ZERO));
        assert!(!log.on_outcome(&o(MissionResultCode::Success, 9.0), Duration::ZERO));
        let out = log.outcome.expect("ended");
        assert!(!out.success);
        assert_eq!(out.elapsed_s, 0.0, "a NaN time reads as 0");
        assert!(log.active());
    }
}
