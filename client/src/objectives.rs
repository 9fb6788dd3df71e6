//! Where the player stands on a mission's objectives (`fl_content::mission::Objective`), judged
//! from what the server told the session: the mission roster names the entities, the kill feed
//! says which were destroyed, the outcome ends it. Feeds the HUD's objective line and the
//! debrief's list.
//!
//! Owns that judgement, for display only. Must not: decide the mission (the server does; an
//! objective shown met here never ends anything).

use fl_content::mission::{Goal, Objective, Stake};

use crate::session::combat::Kill;
use crate::session::mission::MissionLog;

/// One objective's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Open,
    Met,
    Failed,
}

impl Status {
    /// The mark the debrief and the HUD put before it.
    pub fn mark(self) -> &'static str {
        match self {
            Status::Open => "[ ]",
            Status::Met => "[x]",
            Status::Failed => "[!]",
        }
    }
}

/// An objective with its state.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub objective: Objective,
    pub status: Status,
}

/// Mission object `id` was destroyed: its entity (per the roster) is the subject of a kill.
fn destroyed(log: &MissionLog, kills: &[Kill], id: &str) -> bool {
    kills
        .iter()
        .any(|k| log.object_of(k.subject).is_some_and(|o| o == id))
}

/// Each objective's state now.
pub fn progress(objectives: &[Objective], log: &MissionLog, kills: &[Kill]) -> Vec<Progress> {
    let outcome = log.outcome.map(|o| o.success);
    objectives
        .iter()
        .map(|o| {
            let status = match (&o.goal, o.stake) {
                (Goal::Destroy { id, .. }, Stake::Win) if destroyed(log, kills, id) => Status::Met,
                (Goal::Destroy { id, .. }, Stake::Lose) if destroyed(log, kills, id) => {
                    Status::Failed
                }
                // What the end settles: a won mission met its timed and scripted goals and
                // kept every "do not lose"; a lost one broke its time limit if nothing else did.
                (Goal::Timer { .. } | Goal::Scripted { .. }, Stake::Win)
                    if outcome == Some(true) =>
                {
                    Status::Met
                }
                (_, Stake::Lose) if outcome == Some(true) => Status::Met,
                _ => Status::Open,
            };
            Progress {
                objective: o.clone(),
                status,
            }
        })
        .collect()
}

/// The HUD's objective line: the first open objective that wins the mission, else none.
pub fn hud_line(progress: &[Progress]) -> Option<String> {
    progress
        .iter()
        .find(|p| p.objective.stake == Stake::Win && p.status == Status::Open)
        .map(|p| format!("OBJ {}", p.objective.text.to_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::mission::Outcome;
    use std::time::Duration;

    fn obj(stake: Stake, goal: Goal, text: &str) -> Objective {
        Objective {
            stake,
            goal,
            text: text.to_owned(),
        }
    }

    fn kill(subject: (u32, u16)) -> Kill {
        Kill {
            subject,
            instigator: None,
            weapon: None,
            instigator_peer: None,
            subject_peer: None,
            received_at: Duration::ZERO,
        }
    }

    #[test]
    fn kills_of_roster_objects_meet_and_break_objectives() {
        let objectives = vec![
            obj(
                Stake::Win,
                Goal::Destroy {
                    id: "bandit1".into(),
                    player: false,
                },
                "Destroy bandit1",
            ),
            obj(
                Stake::Lose,
                Goal::Destroy {
                    id: "player1".into(),
                    player: true,
                },
                "Do not lose your aircraft",
            ),
            obj(
                Stake::Lose,
                Goal::Timer { seconds: 60.0 },
                "Time limit 1:00",
            ),
        ];
        let mut log = MissionLog::default();
        log.roster.insert((4, 1), "bandit1".into());
        log.roster.insert((9, 2), "player1".into());
        let statuses = |log: &MissionLog, kills: &[Kill]| -> Vec<Status> {
            progress(&objectives, log, kills)
                .iter()
                .map(|p| p.status)
                .collect()
        };
        assert_eq!(statuses(&log, &[]), [Status::Open; 3]);
        assert_eq!(
            hud_line(&progress(&objectives, &log, &[])).as_deref(),
            Some("OBJ DESTROY BANDIT1")
        );
        // A kill of an entity of the same index but another generation is someone else.
        assert_eq!(statuses(&log, &[kill((4, 2))]), [Status::Open; 3]);
        assert_eq!(
            statuses(&log, &[kill((9, 2))]),
            [Status::Open, Status::Failed, Status::Open]
        );
        let kills = [kill((4, 1))];
        assert_eq!(hud_line(&progress(&objectives, &log, &kills)), None);
        log.outcome = Some(Outcome {
            success: true,
            triggers_fired: 1,
            elapsed_s: 30.0,
            received_at: Duration::ZERO,
        });
        assert_eq!(statuses(&log, &kills), [Status::Met; 3]);
    }
}
