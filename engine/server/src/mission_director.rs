//! The mission director: which mission a server runs and what happens when one ends. It starts
//! the first mission of its list, watches the run after every tick, and once the run has ended
//! and `end_delay` ticks have passed, stops it and — by its [`OnEnd`] policy — starts the same
//! mission again, the next of the list, or nothing. Pilots in the game are seated in the new
//! run's player slots ([`Server::seat_pilots_in_mission`]). It also carries the headless
//! client's test hook: mission objects destroyed at a given mission time.
//!
//! Used by the dedicated server's runtime hook, the client's embedded server and the client's
//! virtual-time sim alike. Owns the list, the policy and the counting. Must not: read files (the
//! missions come checked), read the wall clock (the delay is counted in world ticks), or step the
//! mission itself (the runner in `server/mission.rs` does).

use crate::server::Server;
use crate::server::mission::{MissionStartError, MissionState, MissionStatus};
use fl_content::mission::CheckedMission;

/// What a server does once its mission has ended (after the end delay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnEnd {
    /// Start the same mission again (config `restart`).
    Restart,
    /// Start the next mission of the list, wrapping to the first (config `rotate`).
    Rotate,
    /// Stop the mission (its objects are removed) and keep serving free flight (config `stop`).
    Stop,
    /// Leave the ended mission as it is (the headless client, which stops soon after).
    Hold,
}

impl OnEnd {
    /// Parses a configuration value: `restart`, `rotate` or `stop`.
    pub fn from_config(s: &str) -> Option<Self> {
        match s {
            "restart" => Some(Self::Restart),
            "rotate" => Some(Self::Rotate),
            "stop" => Some(Self::Stop),
            _ => None,
        }
    }
}

/// A test hook: destroy mission object `object` once the run's mission time reaches `at_tick`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledDestroy {
    pub object: String,
    /// Mission time, in world ticks since the run started.
    pub at_tick: u64,
}

/// What the director did after a tick (for logs and tests).
#[derive(Debug, Clone, PartialEq)]
pub enum DirectorEvent {
    /// A run started (`run` counts from 1 over the director's life).
    Started {
        id: String,
        run: u32,
        pilots_seated: u32,
    },
    /// The run ended (seen on the tick after its last).
    Ended(MissionStatus),
    /// The ended run was stopped (its final status).
    Stopped(MissionStatus),
    /// A scheduled destroy was carried out (`destroyed`: whether the object existed and died).
    Destroyed { object: String, destroyed: bool },
    /// A run could not start.
    StartFailed {
        id: String,
        error: MissionStartError,
    },
}

/// Runs a list of missions on a server.
#[derive(Debug, Clone)]
pub struct MissionDirector {
    missions: Vec<CheckedMission>,
    on_end: OnEnd,
    end_delay_ticks: u64,
    seed: u64,
    current: usize,
    runs: u32,
    /// World tick at which the current run was first seen ended.
    ended_at: Option<u64>,
    destroys: Vec<ScheduledDestroy>,
    /// Which of `destroys` fired in the current run.
    fired: Vec<bool>,
    /// The last status seen (kept after a stop).
    last: Option<MissionStatus>,
}

impl MissionDirector {
    /// A director for `missions` (at least one for anything to run), combat draws seeded by
    /// `seed` on every run.
    pub fn new(
        missions: Vec<CheckedMission>,
        on_end: OnEnd,
        end_delay_ticks: u64,
        seed: u64,
    ) -> Self {
        Self {
            missions,
            on_end,
            end_delay_ticks,
            seed,
            current: 0,
            runs: 0,
            ended_at: None,
            destroys: Vec::new(),
            fired: Vec::new(),
            last: None,
        }
    }

    /// Adds a test-hook destroy (it applies to every run).
    pub fn schedule_destroy(&mut self, d: ScheduledDestroy) {
        self.destroys.push(d);
        self.fired.push(false);
    }

    /// The mission ids, in order.
    pub fn ids(&self) -> Vec<&str> {
        self.missions.iter().map(|m| m.id.as_str()).collect()
    }

    /// The seed every run's combat draws use.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Runs started so far.
    pub fn runs(&self) -> u32 {
        self.runs
    }

    /// The last status seen after a tick (or at the start).
    pub fn last_status(&self) -> Option<&MissionStatus> {
        self.last.as_ref()
    }

    /// Starts the current mission (the first, before any end).
    pub fn start(&mut self, server: &mut Server) -> Result<DirectorEvent, MissionStartError> {
        let Some(m) = self.missions.get(self.current) else {
            return Err(MissionStartError::AlreadyRunning {
                running: "(no mission configured)".into(),
            });
        };
        server.set_mission_choices(self.missions.iter().map(|m| m.id.clone()).collect());
        server.start_mission(m, self.seed)?;
        self.runs = self.runs.saturating_add(1);
        self.ended_at = None;
        self.fired.iter_mut().for_each(|f| *f = false);
        let pilots_seated = server.seat_pilots_in_mission();
        self.last = server.mission_status();
        Ok(DirectorEvent::Started {
            id: m.id.clone(),
            run: self.runs,
            pilots_seated,
        })
    }

    /// Call after every server tick: carries out due destroys, notices the end, and after the
    /// end delay applies the policy.
    pub fn after_tick(&mut self, server: &mut Server) -> Vec<DirectorEvent> {
        let mut events = Vec::new();
        if let Some(wanted) = server.take_mission_request() {
            self.switch_to(server, &wanted, &mut events);
        }
        let Some(status) = server.mission_status() else {
            return events;
        };
        if status.state == MissionState::Running {
            for (d, fired) in self.destroys.iter().zip(self.fired.iter_mut()) {
                if *fired || status.elapsed_ticks < d.at_tick {
                    continue;
                }
                *fired = true;
                let destroyed = server
                    .mission_entity(&d.object)
                    .is_some_and(|e| server.destroy_entity(e));
                tracing::info!(object = %d.object, destroyed, "test hook: mission object destroyed");
                events.push(DirectorEvent::Destroyed {
                    object: d.object.clone(),
                    destroyed,
                });
            }
            self.last = Some(status);
            return events;
        }
        let tick = server.world().tick();
        let ended_at = match self.ended_at {
            Some(t) => t,
            None => {
                tracing::info!(mission = %status.id, state = status.state.name(), "mission ended");
                events.push(DirectorEvent::Ended(status.clone()));
                self.ended_at = Some(tick);
                tick
            }
        };
        self.last = Some(status);
        if self.on_end == OnEnd::Hold || tick < ended_at.saturating_add(self.end_delay_ticks) {
            return events;
        }
        if let Some(done) = server.stop_mission() {
            events.push(DirectorEvent::Stopped(done));
        }
        self.ended_at = None;
        let attempts = match self.on_end {
            OnEnd::Restart => 1,
            OnEnd::Rotate => self.missions.len(),
            OnEnd::Stop | OnEnd::Hold => 0,
        };
        for _ in 0..attempts {
            if self.on_end == OnEnd::Rotate {
                self.current = (self.current + 1) % self.missions.len().max(1);
            }
            match self.start(server) {
                Ok(e) => {
                    events.push(e);
                    break;
                }
                Err(error) => {
                    let id = self
                        .missions
                        .get(self.current)
                        .map_or_else(String::new, |m| m.id.clone());
                    tracing::error!(mission = %id, "mission did not start: {error}");
                    events.push(DirectorEvent::StartFailed { id, error });
                }
            }
        }
        events
    }
}

impl MissionDirector {
    /// The operator's `mission` command: stops the run and starts `wanted` (a listed id,
    /// `restart` or `next`) at once.
    fn switch_to(&mut self, server: &mut Server, wanted: &str, events: &mut Vec<DirectorEvent>) {
        let n = self.missions.len();
        let index = match wanted {
            "restart" => Some(self.current),
            "next" => Some((self.current + 1) % n.max(1)),
            id => self.missions.iter().position(|m| m.id == id),
        };
        let Some(index) = index.filter(|&i| i < n) else {
            tracing::warn!(
                mission = wanted,
                "operator asked for a mission that is not listed"
            );
            return;
        };
        if let Some(done) = server.stop_mission() {
            events.push(DirectorEvent::Stopped(done));
        }
        self.current = index;
        self.ended_at = None;
        tracing::info!(mission = %self.missions[index].id, "operator switched the mission");
        match self.start(server) {
            Ok(e) => events.push(e),
            Err(error) => {
                let id = self.missions[index].id.clone();
                tracing::error!(mission = %id, "mission did not start: {error}");
                events.push(DirectorEvent::StartFailed { id, error });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_end_names() {
        assert_eq!(OnEnd::from_config("restart"), Some(OnEnd::Restart));
        assert_eq!(OnEnd::from_config("rotate"), Some(OnEnd::Rotate));
        assert_eq!(OnEnd::from_config("stop"), Some(OnEnd::Stop));
        assert_eq!(OnEnd::from_config("hold"), None);
        assert_eq!(OnEnd::from_config("Restart"), None);
    }
}
