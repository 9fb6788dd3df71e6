//! A mission's objectives as a pilot reads them, derived from its triggers: what wins it
//! (`destroy(x) → mission_success`, a timer to hold out), what loses it (the player's aircraft or
//! a protected object destroyed, a time limit), and whether Lua scripts set further goals. The
//! brief lists them, the HUD shows the next open one and the debrief ticks them off.
//!
//! Owns the wording and order of objectives. Must not: judge progress (the client does, from
//! what the server told it) or change the mission.

use super::{Action, AiSpec, Condition, Mission};

/// What meeting (or breaking) an objective does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stake {
    /// Meeting it wins the mission.
    Win,
    /// Breaking it loses the mission.
    Lose,
}

/// What an objective is about.
#[derive(Debug, Clone, PartialEq)]
pub enum Goal {
    /// Mission object `id` destroyed (won by destroying it, lost when it is destroyed).
    Destroy { id: String, player: bool },
    /// A timer: win by holding out this long, or lose when it runs out.
    Timer { seconds: f64 },
    /// Goals a Lua script sets and judges (a lesson's steps, a director's events).
    Scripted { script: String },
}

/// One objective.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    pub stake: Stake,
    pub goal: Goal,
    /// The line a pilot reads ("Destroy bandit1", "Time limit 30:00").
    pub text: String,
}

/// `m:ss` (or `h:mm:ss`) for a timer.
fn clock(seconds: f64) -> String {
    let s = if seconds.is_finite() {
        seconds.clamp(0.0, 359_999.0).round() as u64
    } else {
        0
    };
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

impl Mission {
    /// The objectives, wins first then losses, each in trigger order; a script on a
    /// non-player object adds one scripted objective (its goals are told over the radio).
    /// Triggers whose action is not an end (`set_weather`, …) are not objectives.
    pub fn objectives(&self) -> Vec<Objective> {
        let is_player = |id: &str| self.objects.iter().any(|o| o.id == id && o.player);
        let mut wins = Vec::new();
        let mut losses = Vec::new();
        for t in &self.triggers {
            let stake = match t.action {
                Action::MissionSuccess => Stake::Win,
                Action::MissionFailure => Stake::Lose,
                _ => continue,
            };
            let (goal, text) = match (&t.on, stake) {
                (Condition::Destroy(id), Stake::Win) => (
                    Goal::Destroy {
                        id: id.clone(),
                        player: is_player(id),
                    },
                    format!("Destroy {id}"),
                ),
                (Condition::Destroy(id), Stake::Lose) if is_player(id) => (
                    Goal::Destroy {
                        id: id.clone(),
                        player: true,
                    },
                    "Do not lose your aircraft".to_owned(),
                ),
                (Condition::Destroy(id), Stake::Lose) => (
                    Goal::Destroy {
                        id: id.clone(),
                        player: false,
                    },
                    format!("Protect {id}"),
                ),
                (Condition::Timer(s), Stake::Win) => (
                    Goal::Timer { seconds: *s },
                    format!("Hold out for {}", clock(*s)),
                ),
                (Condition::Timer(s), Stake::Lose) => (
                    Goal::Timer { seconds: *s },
                    format!("Time limit {}", clock(*s)),
                ),
                // An end at the start is not something a pilot can work towards.
                (Condition::MissionStart, _) => continue,
            };
            let o = Objective { stake, goal, text };
            match stake {
                Stake::Win => wins.push(o),
                Stake::Lose => losses.push(o),
            }
        }
        let script = self.objects.iter().find_map(|o| match &o.ai {
            Some(AiSpec::Lua { script }) if !o.player => Some(script.clone()),
            _ => None,
        });
        if let Some(script) = script {
            wins.push(Objective {
                stake: Stake::Win,
                text: "Follow the radio calls".to_owned(),
                goal: Goal::Scripted { script },
            });
        }
        wins.extend(losses);
        wins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn mission(yaml: &str) -> Mission {
        super::super::parse_mission(yaml, Path::new("m.yaml"))
            .mission
            .expect("parses")
    }

    #[test]
    fn triggers_become_objectives_wins_first() {
        let m = mission(
            "name: x\nanchor: home\nsides: [blue, red]\nobjects:\n\
             \x20 - { type: a:b, id: player1, side: blue, pos: [0, 0, 0], player: true }\n\
             \x20 - { type: a:b, id: bandit1, side: red, pos: [0, 0, 0] }\n\
             \x20 - { type: a:b, id: ops, side: blue, pos: [0, 0, 0], ai: \"lua train\" }\n\
             triggers:\n\
             \x20 - { on: destroy(player1), do: mission_failure }\n\
             \x20 - { on: destroy(ops), do: mission_failure }\n\
             \x20 - { on: timer(1800), do: mission_failure }\n\
             \x20 - { on: destroy(bandit1), do: mission_success }\n\
             \x20 - { on: timer(90), do: set_weather rain }\n",
        );
        let texts: Vec<(Stake, String)> = m
            .objectives()
            .into_iter()
            .map(|o| (o.stake, o.text))
            .collect();
        assert_eq!(
            texts,
            vec![
                (Stake::Win, "Destroy bandit1".to_owned()),
                (Stake::Win, "Follow the radio calls".to_owned()),
                (Stake::Lose, "Do not lose your aircraft".to_owned()),
                (Stake::Lose, "Protect ops".to_owned()),
                (Stake::Lose, "Time limit 30:00".to_owned()),
            ]
        );
    }

    #[test]
    fn clocks_read_as_pilots_write_them() {
        assert_eq!(clock(90.0), "1:30");
        assert_eq!(clock(3725.0), "1:02:05");
        assert_eq!(clock(f64::NAN), "0:00");
        assert_eq!(clock(-5.0), "0:00");
    }
}
