//! The screen state machine (logic only; drawing comes with the window): which screen is up,
//! which events move between screens, and the side effects each transition asks for — mouse
//! capture in flight, pausing the embedded server in single player, starting and stopping
//! sessions, saving settings.
//!
//! Two gaps of the C++ original are closed here: *Fly* from a mission brief starts a session
//! for that mission (the original started a plain sandbox), and a failed or lost session returns
//! to the main menu with its message (the original could leave the player on the loading
//! screen). Owns no session, window or server: it only says what should happen.

/// A screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    MainMenu,
    /// Free-flight setup: aircraft, start position, time of day, weather.
    FreeFlight,
    /// A session is starting; progress lines are shown.
    Loading,
    MissionSelect,
    MissionBrief,
    Settings,
    Flight,
    Pause,
    Debrief,
    /// Address entry for a multiplayer server.
    Join,
    /// The sentinel that ends the application.
    Quit,
}

/// What kind of session runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionKind {
    /// The embedded server on this machine (optionally a mission).
    SinglePlayer { mission: Option<String> },
    /// A remote server.
    Multiplayer { address: String },
}

/// Something the player did or the session reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Main menu or free-flight setup: fly single player (sandbox; from the main menu with
    /// the setup as it stands).
    Fly,
    /// Main menu: open the free-flight setup.
    OpenFreeFlight,
    /// Main menu: open the mission list.
    Missions,
    /// Main menu or pause: open the settings.
    OpenSettings,
    /// Main menu: join a server.
    OpenJoin,
    /// Main menu: leave the game.
    Quit,
    /// Back out of the current screen.
    Back,
    /// Mission list: choose a mission.
    SelectMission(String),
    /// Mission brief: fly the chosen mission.
    FlyMission,
    /// Join: connect to this address.
    Connect(String),
    /// Join: the player added or removed a favourite server (in `UiState::settings`): save.
    FavouritesChanged,
    /// A loading progress line.
    Progress(String),
    /// The session is up.
    SessionReady,
    /// The session could not start (refusal, timeout, identity change…), with its message.
    SessionFailed(String),
    /// A running session ended unexpectedly (server gone, kicked), with its message.
    SessionLost(String),
    /// A running multiplayer session's connection was lost (timed out, the network broke, the
    /// server went away) — not a kick, a ban or the player leaving: like `SessionLost`, and the
    /// main menu offers *Rejoin* to the same address ([`Screens::rejoin`]).
    ConnectionLost(String),
    /// Main menu: join the server whose connection was lost again (same address and identity,
    /// so the server can restore team, score and slot within its grace).
    Rejoin,
    /// Flight: escape key.
    Escape,
    /// Pause: back to flight.
    Resume,
    /// Pause or debrief: leave to the main menu.
    QuitToMenu,
    /// The mission reached its outcome.
    MissionEnded(String),
    /// Pause: end the flight and see the debrief.
    EndFlight,
    /// Debrief of a mission: fly the same mission again from its start (a new session).
    Retry,
    /// Loading: the player trusts the new server's identity (the trust-on-first-use prompt).
    TrustServer,
    /// Loading: the player does not trust the new server's identity (the prompt's *Don't
    /// Connect*, or Esc while it is up): the join ends and nothing is recorded.
    DeclineServer,
    /// The player has read the message (`Screens::message`).
    DismissMessage,
}

/// A side effect the application performs for a transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    CaptureMouse(bool),
    StartSession(SessionKind),
    StopSession,
    PauseServer,
    ResumeServer,
    SaveSettings,
    /// Record the identity the trust-on-first-use prompt showed and go on connecting.
    TrustServer,
    /// A multiplayer session came up: put this address first in the recent servers (and save).
    RememberServer(String),
    /// Show this message on the screen entered.
    ShowMessage(String),
    Exit,
}

/// The state machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Screens {
    current: Screen,
    /// Where Settings returns to.
    settings_return: Screen,
    selected_mission: Option<String>,
    session: Option<SessionKind>,
    loading_lines: Vec<String>,
    message: Option<String>,
    debrief: Option<String>,
    /// The address *Rejoin* reconnects to, while the lost connection's message shows.
    rejoin: Option<String>,
}

impl Default for Screens {
    fn default() -> Self {
        Self::new()
    }
}

/// Progress lines kept on the loading screen.
const MAX_LOADING_LINES: usize = 64;

impl Screens {
    /// Starts at the main menu with no session.
    pub fn new() -> Self {
        Self {
            current: Screen::MainMenu,
            settings_return: Screen::MainMenu,
            selected_mission: None,
            session: None,
            loading_lines: Vec::new(),
            message: None,
            debrief: None,
            rejoin: None,
        }
    }

    pub fn current(&self) -> Screen {
        self.current
    }

    /// The running (or starting) session.
    pub fn session(&self) -> Option<&SessionKind> {
        self.session.as_ref()
    }

    pub fn selected_mission(&self) -> Option<&str> {
        self.selected_mission.as_deref()
    }

    /// The loading screen's progress lines.
    pub fn loading_lines(&self) -> &[String] {
        &self.loading_lines
    }

    /// The message to show (a failed or lost session's reason).
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The address the main menu's *Rejoin* reconnects to (after `Event::ConnectionLost`).
    pub fn rejoin(&self) -> Option<&str> {
        self.rejoin.as_deref()
    }

    /// The debrief's outcome line.
    /// The debrief may offer *Retry*: the session flies a mission in single player.
    pub fn can_retry(&self) -> bool {
        matches!(
            self.session,
            Some(SessionKind::SinglePlayer { mission: Some(_) })
        )
    }

    pub fn debrief(&self) -> Option<&str> {
        self.debrief.as_deref()
    }

    fn single_player(&self) -> bool {
        matches!(self.session, Some(SessionKind::SinglePlayer { .. }))
    }

    fn enter(&mut self, next: Screen, effects: &mut Vec<Effect>) {
        let menu = |s: Screen| !matches!(s, Screen::Flight | Screen::Quit);
        if next == Screen::Flight && self.current != Screen::Flight {
            effects.push(Effect::CaptureMouse(true));
        } else if menu(next) && self.current == Screen::Flight {
            effects.push(Effect::CaptureMouse(false));
        }
        if self.single_player() {
            if next == Screen::Pause && self.current == Screen::Flight {
                effects.push(Effect::PauseServer);
            }
            if self.current == Screen::Pause && next == Screen::Flight {
                effects.push(Effect::ResumeServer);
            }
        }
        self.current = next;
    }

    fn start(&mut self, kind: SessionKind, effects: &mut Vec<Effect>) {
        self.loading_lines.clear();
        self.message = None;
        self.rejoin = None;
        self.debrief = None;
        self.session = Some(kind.clone());
        effects.push(Effect::StartSession(kind));
        self.enter(Screen::Loading, effects);
    }

    fn end_session(&mut self, message: Option<String>, effects: &mut Vec<Effect>) {
        if self.session.take().is_some() {
            effects.push(Effect::StopSession);
        }
        if let Some(m) = &message {
            effects.push(Effect::ShowMessage(m.clone()));
        }
        self.message = message;
        self.rejoin = None;
        self.enter(Screen::MainMenu, effects);
    }

    /// Applies an event; returns the side effects to perform, in order. Events that make no
    /// sense on the current screen are ignored (no effects).
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        use Screen as S;
        let mut fx = Vec::new();
        match (self.current, event) {
            (S::MainMenu | S::FreeFlight, Event::Fly) => {
                self.start(SessionKind::SinglePlayer { mission: None }, &mut fx)
            }
            (S::MainMenu, Event::OpenFreeFlight) => self.enter(S::FreeFlight, &mut fx),
            (S::MainMenu, Event::Missions) => self.enter(S::MissionSelect, &mut fx),
            (S::MainMenu, Event::OpenJoin) => self.enter(S::Join, &mut fx),
            (S::MainMenu | S::Pause, Event::OpenSettings) => {
                self.settings_return = self.current;
                self.enter(S::Settings, &mut fx);
            }
            (S::MainMenu, Event::Quit) => {
                fx.push(Effect::Exit);
                self.enter(S::Quit, &mut fx);
            }
            (S::MissionSelect, Event::SelectMission(id)) => {
                self.selected_mission = Some(id);
                self.enter(S::MissionBrief, &mut fx);
            }
            (S::MissionSelect | S::Join | S::FreeFlight, Event::Back) => {
                self.enter(S::MainMenu, &mut fx)
            }
            (S::MissionBrief, Event::Back) => self.enter(S::MissionSelect, &mut fx),
            (S::MissionBrief, Event::FlyMission) => {
                let mission = self.selected_mission.clone();
                self.start(SessionKind::SinglePlayer { mission }, &mut fx);
            }
            (S::Join, Event::FavouritesChanged) => fx.push(Effect::SaveSettings),
            (S::Join, Event::Connect(address)) => {
                self.start(SessionKind::Multiplayer { address }, &mut fx)
            }
            (S::Settings, Event::Back) => {
                fx.push(Effect::SaveSettings);
                let back = self.settings_return;
                self.enter(back, &mut fx);
            }
            (S::Loading, Event::Progress(line)) => {
                if self.loading_lines.len() == MAX_LOADING_LINES {
                    self.loading_lines.remove(0);
                }
                self.loading_lines.push(line);
            }
            (S::Loading, Event::SessionReady) => {
                if let Some(SessionKind::Multiplayer { address }) = &self.session {
                    fx.push(Effect::RememberServer(address.clone()));
                }
                self.enter(S::Flight, &mut fx)
            }
            (S::Loading, Event::TrustServer)
                if matches!(self.session, Some(SessionKind::Multiplayer { .. })) =>
            {
                fx.push(Effect::TrustServer)
            }
            (S::Loading, Event::DeclineServer) => {
                if let Some(SessionKind::Multiplayer { address }) = &self.session {
                    let m = declined_message(address);
                    self.end_session(Some(m), &mut fx)
                }
            }
            (S::Loading, Event::SessionFailed(m) | Event::SessionLost(m)) => {
                self.end_session(Some(m), &mut fx)
            }
            (S::Loading, Event::Back) => self.end_session(Some("Cancelled.".into()), &mut fx),
            (S::Flight, Event::Escape) => self.enter(S::Pause, &mut fx),
            (S::Flight | S::Pause, Event::MissionEnded(outcome)) => {
                self.debrief = Some(outcome);
                self.enter(S::Debrief, &mut fx);
            }
            (S::Flight | S::Pause | S::Debrief | S::Settings, Event::SessionLost(m))
                if self.session.is_some() =>
            {
                self.end_session(Some(m), &mut fx)
            }
            (S::Flight | S::Pause | S::Debrief | S::Settings, Event::ConnectionLost(m))
                if self.session.is_some() =>
            {
                let address = match &self.session {
                    Some(SessionKind::Multiplayer { address }) => Some(address.clone()),
                    _ => None,
                };
                self.end_session(Some(m), &mut fx);
                self.rejoin = address;
            }
            (S::MainMenu, Event::Rejoin) => {
                if let Some(address) = self.rejoin.take() {
                    self.start(SessionKind::Multiplayer { address }, &mut fx);
                }
            }
            (S::Pause, Event::Resume | Event::Escape) => self.enter(S::Flight, &mut fx),
            (S::Pause, Event::EndFlight) => {
                self.debrief = Some("You ended the flight.".into());
                self.enter(S::Debrief, &mut fx);
            }
            (S::Debrief, Event::Retry) => {
                if let Some(SessionKind::SinglePlayer {
                    mission: Some(mission),
                }) = self.session.clone()
                {
                    fx.push(Effect::StopSession);
                    self.session = None;
                    self.start(
                        SessionKind::SinglePlayer {
                            mission: Some(mission),
                        },
                        &mut fx,
                    );
                }
            }
            (_, Event::DismissMessage) => {
                self.message = None;
                self.rejoin = None;
            }
            (S::Pause | S::Debrief, Event::QuitToMenu) => self.end_session(None, &mut fx),
            _ => {}
        }
        fx
    }
}

/// What the main menu says after the player declined a new server's identity.
pub fn declined_message(address: &str) -> String {
    format!(
        "Not joined: you did not trust the identity of {address}. Nothing was saved; joining it \
         again asks again."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_player_flight_pause_and_quit_to_menu() {
        let mut s = Screens::new();
        assert_eq!(
            s.handle(Event::Fly),
            vec![Effect::StartSession(SessionKind::SinglePlayer {
                mission: None
            })]
        );
        assert_eq!(s.current(), Screen::Loading);
        s.handle(Event::Progress("starting server".into()));
        assert_eq!(s.loading_lines(), ["starting server"]);
        assert_eq!(
            s.handle(Event::SessionReady),
            vec![Effect::CaptureMouse(true)]
        );
        assert_eq!(
            s.handle(Event::Escape),
            vec![Effect::CaptureMouse(false), Effect::PauseServer]
        );
        assert_eq!(
            s.handle(Event::Resume),
            vec![Effect::CaptureMouse(true), Effect::ResumeServer]
        );
        s.handle(Event::Escape);
        assert_eq!(s.handle(Event::QuitToMenu), vec![Effect::StopSession]);
        assert_eq!((s.current(), s.session()), (Screen::MainMenu, None));
    }

    #[test]
    fn fly_from_a_brief_starts_that_mission() {
        let mut s = Screens::new();
        s.handle(Event::Missions);
        s.handle(Event::SelectMission("f5e_intercept".into()));
        assert_eq!(s.current(), Screen::MissionBrief);
        assert_eq!(
            s.handle(Event::FlyMission),
            vec![Effect::StartSession(SessionKind::SinglePlayer {
                mission: Some("f5e_intercept".into())
            })]
        );
    }

    #[test]
    fn a_failed_session_returns_to_the_menu_with_its_message() {
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("203.0.113.5:4778".into()));
        let fx = s.handle(Event::SessionFailed(
            "You are banned from this server.".into(),
        ));
        assert_eq!(
            fx,
            vec![
                Effect::StopSession,
                Effect::ShowMessage("You are banned from this server.".into())
            ]
        );
        assert_eq!(s.current(), Screen::MainMenu);
        assert_eq!(s.message(), Some("You are banned from this server."));
    }

    #[test]
    fn multiplayer_pause_does_not_pause_the_server_and_loss_in_flight_ends_the_session() {
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("127.0.0.1:4778".into()));
        s.handle(Event::SessionReady);
        assert_eq!(s.handle(Event::Escape), vec![Effect::CaptureMouse(false)]);
        s.handle(Event::Resume);
        let fx = s.handle(Event::SessionLost("The server shut down.".into()));
        assert_eq!(
            fx,
            vec![
                Effect::StopSession,
                Effect::ShowMessage("The server shut down.".into()),
                Effect::CaptureMouse(false)
            ]
        );
        assert_eq!(s.current(), Screen::MainMenu);
    }

    #[test]
    fn settings_return_where_they_came_from_and_save() {
        let mut s = Screens::new();
        s.handle(Event::Fly);
        s.handle(Event::SessionReady);
        s.handle(Event::Escape);
        s.handle(Event::OpenSettings);
        assert_eq!(s.current(), Screen::Settings);
        assert_eq!(s.handle(Event::Back), vec![Effect::SaveSettings]);
        assert_eq!(s.current(), Screen::Pause);
        s.handle(Event::QuitToMenu);
        s.handle(Event::OpenSettings);
        s.handle(Event::Back);
        assert_eq!(s.current(), Screen::MainMenu);
    }

    #[test]
    fn debrief_and_quit() {
        let mut s = Screens::new();
        s.handle(Event::Fly);
        s.handle(Event::SessionReady);
        let fx = s.handle(Event::MissionEnded("Mission accomplished".into()));
        assert_eq!(fx, vec![Effect::CaptureMouse(false)]);
        assert_eq!(s.debrief(), Some("Mission accomplished"));
        s.handle(Event::QuitToMenu);
        assert_eq!(s.handle(Event::Quit), vec![Effect::Exit]);
        assert_eq!(s.current(), Screen::Quit);
    }

    #[test]
    fn a_mission_debrief_retries_the_same_mission_and_a_sandbox_one_does_not() {
        let mut s = Screens::new();
        s.handle(Event::Missions);
        s.handle(Event::SelectMission("fl-base-pack:ia_dogfight".into()));
        s.handle(Event::FlyMission);
        s.handle(Event::SessionReady);
        s.handle(Event::MissionEnded("Mission failed".into()));
        assert_eq!(s.current(), Screen::Debrief);
        let kind = SessionKind::SinglePlayer {
            mission: Some("fl-base-pack:ia_dogfight".into()),
        };
        assert_eq!(
            s.handle(Event::Retry),
            vec![Effect::StopSession, Effect::StartSession(kind.clone())]
        );
        assert_eq!(s.current(), Screen::Loading);
        assert_eq!(s.session(), Some(&kind));
        assert_eq!(
            s.debrief(),
            None,
            "the new flight starts without the old result"
        );

        let mut sandbox = Screens::new();
        sandbox.handle(Event::Fly);
        sandbox.handle(Event::SessionReady);
        sandbox.handle(Event::Escape);
        sandbox.handle(Event::EndFlight);
        assert_eq!(sandbox.current(), Screen::Debrief);
        assert!(
            sandbox.handle(Event::Retry).is_empty(),
            "no mission to retry"
        );
        assert_eq!(sandbox.current(), Screen::Debrief);
    }

    #[test]
    fn free_flight_setup_flies_or_backs_out() {
        let mut s = Screens::new();
        assert!(s.handle(Event::OpenFreeFlight).is_empty());
        assert_eq!(s.current(), Screen::FreeFlight);
        s.handle(Event::Back);
        assert_eq!(s.current(), Screen::MainMenu);
        s.handle(Event::OpenFreeFlight);
        assert_eq!(
            s.handle(Event::Fly),
            vec![Effect::StartSession(SessionKind::SinglePlayer {
                mission: None
            })]
        );
        assert_eq!(s.current(), Screen::Loading);
        // Not from other screens.
        s.handle(Event::Back);
        s.handle(Event::OpenJoin);
        assert!(s.handle(Event::OpenFreeFlight).is_empty());
        assert_eq!(s.current(), Screen::Join);
    }

    #[test]
    fn trusting_a_server_and_remembering_it_when_it_comes_up() {
        let mut s = Screens::new();
        // Nothing to trust in single player.
        s.handle(Event::Fly);
        assert!(s.handle(Event::TrustServer).is_empty());
        s.handle(Event::Back);
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("example.org:4778".into()));
        assert_eq!(s.handle(Event::TrustServer), vec![Effect::TrustServer]);
        assert_eq!(s.current(), Screen::Loading);
        assert_eq!(
            s.handle(Event::SessionReady),
            vec![
                Effect::RememberServer("example.org:4778".into()),
                Effect::CaptureMouse(true)
            ]
        );
        // Declining the prompt ends the join and says so; nothing to decline in single player.
        let mut s = Screens::new();
        s.handle(Event::Fly);
        assert!(s.handle(Event::DeclineServer).is_empty());
        assert_eq!(s.current(), Screen::Loading);
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("example.org:4778".into()));
        let m = declined_message("example.org:4778");
        assert!(m.contains("did not trust the identity of example.org:4778"));
        assert_eq!(
            s.handle(Event::DeclineServer),
            vec![Effect::StopSession, Effect::ShowMessage(m.clone())]
        );
        assert_eq!((s.current(), s.message()), (Screen::MainMenu, Some(&*m)));
        // Back (Cancel) cancels the join.
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("example.org:4778".into()));
        assert_eq!(
            s.handle(Event::Back),
            vec![
                Effect::StopSession,
                Effect::ShowMessage("Cancelled.".into())
            ]
        );
        assert_eq!(s.current(), Screen::MainMenu);
    }

    #[test]
    fn ending_the_flight_from_pause_shows_the_debrief() {
        let mut s = Screens::new();
        s.handle(Event::Fly);
        s.handle(Event::SessionReady);
        assert!(s.handle(Event::EndFlight).is_empty(), "not from flight");
        s.handle(Event::Escape);
        assert!(s.handle(Event::EndFlight).is_empty());
        assert_eq!(s.current(), Screen::Debrief);
        assert_eq!(s.debrief(), Some("You ended the flight."));
        assert_eq!(s.handle(Event::QuitToMenu), vec![Effect::StopSession]);
    }

    #[test]
    fn a_message_can_be_dismissed() {
        let mut s = Screens::new();
        s.handle(Event::Fly);
        s.handle(Event::SessionFailed("No aircraft.".into()));
        assert_eq!(s.message(), Some("No aircraft."));
        assert!(s.handle(Event::DismissMessage).is_empty());
        assert_eq!((s.message(), s.current()), (None, Screen::MainMenu));
    }

    #[test]
    fn a_lost_connection_offers_rejoin_to_the_same_address_and_a_kick_does_not() {
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("203.0.113.5:4778".into()));
        s.handle(Event::SessionReady);
        let fx = s.handle(Event::ConnectionLost("Connection lost.".into()));
        assert_eq!(
            fx,
            vec![
                Effect::StopSession,
                Effect::ShowMessage("Connection lost.".into()),
                Effect::CaptureMouse(false)
            ]
        );
        assert_eq!(s.current(), Screen::MainMenu);
        assert_eq!(s.rejoin(), Some("203.0.113.5:4778"));
        let kind = SessionKind::Multiplayer {
            address: "203.0.113.5:4778".into(),
        };
        assert_eq!(
            s.handle(Event::Rejoin),
            vec![Effect::StartSession(kind.clone())]
        );
        assert_eq!((s.current(), s.session()), (Screen::Loading, Some(&kind)));
        assert_eq!((s.rejoin(), s.message()), (None, None));
        // Up again, then kicked: no rejoin.
        s.handle(Event::SessionReady);
        s.handle(Event::SessionLost("You were kicked.".into()));
        assert_eq!(s.rejoin(), None);
        assert!(s.handle(Event::Rejoin).is_empty());
        assert_eq!(s.current(), Screen::MainMenu);
        // Dismissing the message withdraws the offer; single player never offers it.
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("example.org:4778".into()));
        s.handle(Event::SessionReady);
        s.handle(Event::Escape);
        s.handle(Event::ConnectionLost("Timed out.".into()));
        assert_eq!(s.rejoin(), Some("example.org:4778"));
        s.handle(Event::DismissMessage);
        assert_eq!(s.rejoin(), None);
        let mut s = Screens::new();
        s.handle(Event::Fly);
        s.handle(Event::SessionReady);
        s.handle(Event::ConnectionLost("gone".into()));
        assert_eq!((s.current(), s.rejoin()), (Screen::MainMenu, None));
        // Not while loading (a failed join is not a lost session).
        let mut s = Screens::new();
        s.handle(Event::OpenJoin);
        s.handle(Event::Connect("example.org:4778".into()));
        assert!(s.handle(Event::ConnectionLost("x".into())).is_empty());
        assert_eq!(s.current(), Screen::Loading);
    }

    #[test]
    fn nonsense_events_are_ignored() {
        let mut s = Screens::new();
        assert!(s.handle(Event::Resume).is_empty());
        assert!(s.handle(Event::SessionReady).is_empty());
        assert_eq!(s.current(), Screen::MainMenu);
    }
}
