//! The multiplayer overlays driven through egui_kittest as the window drives them: the chat
//! box (Enter sends, Escape cancels without pausing, overlong input cut, team lines marked),
//! the scoreboard (teams, phase, time left, own row, lag marker), the Pause screen's roster
//! (mute / unmute, team switch), the operator console (`login` keeps the token in memory) and
//! *Rejoin* after a lost connection. The window's part (sending the requests, copying the
//! session's social state) is played by the test with the same `Social` calls.
//! With a graphics adapter the screens are also rendered to PNGs under the target's tmp dir
//! (looked at by hand; not compared).

use std::time::Duration;

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use fighters_legacy::screens::{Effect, Event, Screen, Screens, SessionKind};
use fighters_legacy::session::social::Social;
use fighters_legacy::settings::GameSettings;
use fighters_legacy::ui::{SocialRequest, UiState, show};
use fl_protocol::FixedStr;
use fl_protocol::enums::{ChatChannel, MatchPhase, PeerRole};
use fl_protocol::msg::social::{
    ChatEvent, MatchState, MatchTeamScore, PlayerRoster, PlayerRosterEntry, ROSTER_FLAG_BOT,
    Scoreboard, ScoreboardRow,
};

const ADDRESS: &str = "127.0.0.1:4778";

struct Game {
    screens: Screens,
    ui: UiState,
    effects: Vec<Effect>,
    sent: Vec<SocialRequest>,
}

impl Game {
    fn apply(&mut self, events: Vec<Event>) {
        for e in events {
            self.effects.extend(self.screens.handle(e));
        }
    }

    /// The window's part: mutes and console notes land in the session's social state (here
    /// the view's copy); chat, team and admin requests are recorded as sent.
    fn window(&mut self) {
        for r in self.ui.social.take_requests() {
            let social = &mut self.ui.social_view.social;
            match &r {
                SocialRequest::Mute(id, on) => social.set_muted(*id, *on),
                SocialRequest::ConsoleNote(t) => social.console_mut().note(t),
                _ => {}
            }
            self.sent.push(r);
        }
    }
}

fn entry(id: u32, faction: u16, flags: u8, callsign: &str) -> PlayerRosterEntry {
    PlayerRosterEntry {
        participant_id: id,
        faction_index: faction,
        role: PeerRole::Pilot,
        flags,
        callsign: FixedStr::new(callsign),
    }
}

fn row(id: u32, score: i32, kills: u16, deaths: u16, ping_ms: u16, faction: u16) -> ScoreboardRow {
    ScoreboardRow {
        participant_id: id,
        score,
        kills,
        deaths,
        ping_ms,
        faction_index: faction,
    }
}

/// A match in play: the player (1, "Maverick", Blue), Goose (Blue), Viper (Red, lagging) and a
/// Red bot; a team line, an all line and a system line heard at 1–3 s.
fn social() -> Social {
    let mut s = Social::default();
    s.set_own_id(1);
    s.on_roster(&PlayerRoster {
        entries: vec![
            entry(1, 0, 0, "Maverick"),
            entry(2, 0, 0, "Goose"),
            entry(3, 1, 0, "Viper"),
            entry(0x4000_0001, 1, ROSTER_FLAG_BOT, "Bandit"),
        ],
    });
    s.on_scoreboard(&Scoreboard {
        rows: vec![
            row(1, 12, 3, 1, 45, 0),
            row(2, 4, 1, 2, 60, 0),
            row(3, 20, 5, 0, 310, 1),
            row(0x4000_0001, 0, 0, 4, 0, 1),
        ],
    });
    s.on_match_state(&MatchState {
        phase: MatchPhase::Active,
        score_limit: 30,
        phase_end_tick: 60 * 300,
        mode_id: FixedStr::new("tdm"),
        mode_name: FixedStr::new("Team Deathmatch"),
        teams: vec![
            MatchTeamScore {
                faction_index: 0,
                score: 16,
            },
            MatchTeamScore {
                faction_index: 1,
                score: 20,
            },
        ],
    });
    let chat = |channel, sender, text: &str| ChatEvent {
        channel,
        sender_peer_id: sender,
        text: text.into(),
    };
    s.on_chat(
        &chat(ChatChannel::Team, 2, "on your six"),
        Duration::from_secs(1),
    );
    s.on_chat(&chat(ChatChannel::All, 3, "gg"), Duration::from_secs(2));
    s.on_chat(
        &chat(ChatChannel::All, 0xFFFF_FFFF, "Viper leads"),
        Duration::from_secs(3),
    );
    s
}

/// A multiplayer flight in progress, at session time 4 s.
fn game() -> Game {
    let mut ui = UiState::new(GameSettings::default());
    let v = &mut ui.social_view;
    v.social = social();
    v.factions = [(0, "Blue".to_owned()), (1, "Red".to_owned())].into();
    v.tick = Some(60 * 250);
    v.tick_rate_hz = 60;
    v.own_ping_ms = Some(45.0);
    v.own_loss_percent = Some(0.5);
    v.now = Duration::from_secs(4);
    v.online = true;
    let mut screens = Screens::new();
    screens.handle(Event::OpenJoin);
    screens.handle(Event::Connect(ADDRESS.into()));
    screens.handle(Event::SessionReady);
    assert_eq!(screens.current(), Screen::Flight);
    Game {
        screens,
        ui,
        effects: Vec::new(),
        sent: Vec::new(),
    }
}

fn harness(game: Game, w: f32, h: f32) -> Harness<'static, Game> {
    Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, g: &mut Game| {
                let events = show(ui.ctx(), &g.screens, &mut g.ui);
                g.apply(events);
                g.window();
            },
            game,
        )
}

fn shown(h: &Harness<'_, Game>, label: &str) -> bool {
    h.query_by_label(label).is_some()
}

fn shown_containing(h: &Harness<'_, Game>, part: &str) -> bool {
    h.query_by_label_contains(part).is_some()
}

fn press(h: &mut Harness<'_, Game>, key: Key) {
    h.key_press(key);
    h.run();
}

fn click(h: &mut Harness<'_, Game>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

fn type_text(h: &mut Harness<'_, Game>, text: &str) {
    h.event(egui::Event::Text(text.to_owned()));
    h.run();
}

/// Renders the frame to `<target tmp>/social-ui/<name>.png` when a graphics adapter is there.
fn picture(h: &mut Harness<'_, Game>, name: &str) {
    match h.render() {
        Ok(img) => {
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("social-ui");
            std::fs::create_dir_all(&dir).expect("tmp dir");
            let path = dir.join(format!("{name}.png"));
            img.save(&path).expect("png written");
            eprintln!("rendered {}", path.display());
        }
        Err(e) => eprintln!("not rendered ({name}): {e}"),
    }
}

#[test]
fn the_chat_box_sends_on_enter_cancels_on_escape_and_marks_team_lines() {
    let mut h = harness(game(), 1024.0, 640.0);
    h.run();
    // Recent lines show over the flight, team lines marked, system lines starred.
    assert!(shown(&h, "[TEAM] Goose: on your six"));
    assert!(shown(&h, "Viper: gg"));
    assert!(shown(&h, "* Viper leads"));
    // They fade: 10 s after the last one nothing is left.
    h.state_mut().ui.social_view.now = Duration::from_secs(14);
    h.run();
    assert!(!shown_containing(&h, "on your six"));

    // T opens All chat (the window's chat binding); the box takes the keyboard.
    h.state_mut().ui.social.open_chat(ChatChannel::All);
    h.run();
    h.run();
    assert!(shown(&h, "Say (all):"));
    assert!(
        h.get_by_label("Say (all):").is_focused(),
        "the box has the focus"
    );
    assert!(
        shown_containing(&h, "on your six"),
        "open: the history shows"
    );
    type_text(&mut h, "hello there");
    press(&mut h, Key::Enter);
    assert_eq!(
        h.state().sent,
        [SocialRequest::Chat(ChatChannel::All, "hello there".into())]
    );
    assert_eq!(h.state().ui.social.chat_channel(), None, "Enter closes it");
    assert!(!shown(&h, "Say (all):"));

    // Y: team chat; Escape cancels without pausing and sends nothing.
    h.state_mut().ui.social.open_chat(ChatChannel::Team);
    h.run();
    h.run();
    assert!(shown(&h, "Say (team):"));
    assert!(h.state().ui.social.typing());
    type_text(&mut h, "regroup");
    press(&mut h, Key::Escape);
    assert_eq!(h.state().sent.len(), 1);
    assert_eq!(h.state().ui.social.chat_channel(), None);
    assert_eq!(h.state().screens.current(), Screen::Flight, "not paused");

    // Overlong input stops at 240 bytes.
    h.state_mut().ui.social.open_chat(ChatChannel::All);
    h.run();
    h.run();
    type_text(&mut h, &"é".repeat(150));
    assert_eq!(h.state().ui.social.chat_text.len(), 240);
    press(&mut h, Key::Enter);
    match &h.state().sent[1] {
        SocialRequest::Chat(ChatChannel::All, t) => assert_eq!(t.len(), 240),
        other => panic!("{other:?}"),
    }
    // Escape with nothing open pauses as before.
    press(&mut h, Key::Escape);
    assert_eq!(h.state().screens.current(), Screen::Pause);
}

#[test]
fn the_chat_box_picture() {
    let mut g = game();
    g.ui.social_view.now = Duration::from_secs(5);
    let mut h = harness(g, 800.0, 450.0);
    h.state_mut().ui.social.open_chat(ChatChannel::Team);
    h.run();
    h.run();
    type_text(&mut h, "cover me");
    picture(&mut h, "chat_box");
}

#[test]
fn the_scoreboard_shows_teams_phase_time_and_marks_the_own_row_and_lag() {
    let mut h = harness(game(), 900.0, 560.0);
    h.run();
    assert!(!shown(&h, "Scoreboard"), "only while Tab is held");
    h.state_mut().ui.social.scoreboard_held = true;
    h.run();
    h.run();
    assert!(shown(&h, "Scoreboard"));
    assert!(shown(
        &h,
        "Team Deathmatch  ·  In play  ·  0:50 left  ·  first to 30"
    ));
    assert!(shown(&h, "Blue 16   —   Red 20"));
    assert!(shown(&h, "» Maverick"), "the own row is marked");
    assert!(shown(&h, "Bandit (bot)"));
    assert!(shown(&h, "310 ms"));
    // Exactly one LAG marker: Viper's 310 ms (above 250), not the others.
    assert_eq!(h.query_all_by_label("LAG").count(), 1);
    assert!(shown(&h, "Your link: ping 45 ms, loss 0.5 %"));
    // Rows by score: Viper (20) above Maverick (12) above Goose (4).
    let y = |label: &str| h.get_by_label(label).rect().top();
    assert!(y("Viper") < y("» Maverick") && y("» Maverick") < y("Goose"));
    picture(&mut h, "scoreboard");
    h.state_mut().ui.social.scoreboard_held = false;
    h.run();
    assert!(!shown(&h, "Scoreboard"));
}

#[test]
fn pause_lists_the_players_mutes_switches_team_and_opens_the_console() {
    let mut h = harness(game(), 1024.0, 900.0);
    h.run();
    press(&mut h, Key::Escape);
    h.run();
    assert_eq!(h.state().screens.current(), Screen::Pause);
    assert!(shown(&h, "Maverick (you)"));
    assert!(shown(&h, "Bandit (bot)"));
    // Mute buttons for the other humans only (not the player, not bots).
    assert_eq!(h.query_all_by_label("Mute").count(), 2);
    picture(&mut h, "pause_roster");
    // Mute Viper (id 3): the window applies it; the button turns to Unmute and the line hides.
    let mutes: Vec<_> = h.query_all_by_label("Mute").collect();
    let viper = mutes
        .into_iter()
        .max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("two");
    viper.click();
    h.run();
    h.run();
    assert_eq!(h.state().sent, [SocialRequest::Mute(3, true)]);
    assert!(h.state().ui.social_view.social.is_muted(3));
    assert_eq!(h.query_all_by_label("Unmute").count(), 1);
    let visible: Vec<String> = h
        .state()
        .ui
        .social_view
        .social
        .visible_chat()
        .map(|l| l.text.clone())
        .collect();
    assert_eq!(visible, ["on your six", "Viper leads"]);
    click(&mut h, "Unmute");
    h.run();
    assert!(!h.state().ui.social_view.social.is_muted(3));

    // The team switch offers the other team and asks the server.
    click(&mut h, "Switch Team");
    assert_eq!(h.state().sent.last(), Some(&SocialRequest::Team(1)));

    // The console: nothing goes out before login; the token stays in memory.
    click(&mut h, "Console");
    h.run();
    assert!(h.state().ui.social.console_open());
    assert!(shown(&h, "Operator console"));
    type_text(&mut h, "status");
    press(&mut h, Key::Enter);
    assert!(shown(
        &h,
        "> status: not logged in (type login <token> first)"
    ));
    type_text(&mut h, "login s3cret");
    press(&mut h, Key::Enter);
    assert!(h.state().ui.social.logged_in());
    assert!(!shown_containing(&h, "s3cret"), "the token is never shown");
    type_text(&mut h, "kick 7");
    press(&mut h, Key::Enter);
    assert_eq!(
        h.state().sent.last(),
        Some(&SocialRequest::Admin {
            token: "s3cret".into(),
            command: "kick 7".into()
        })
    );
    // The reply (as the session reassembles it) shows under what was typed.
    h.state_mut().ui.social_view.social.on_admin_response(
        &fl_protocol::msg::admin::AdminResponse {
            req_id: 1,
            text: FixedStr::new("kicked Viper (peer 7)\r\n"),
        },
    );
    h.run();
    assert!(shown(&h, "kicked Viper (peer 7)"));
    picture(&mut h, "console");
    // Escape closes the console, not the pause menu.
    press(&mut h, Key::Escape);
    assert!(!h.state().ui.social.console_open());
    assert_eq!(h.state().screens.current(), Screen::Pause);
    // A new session forgets the token.
    h.state_mut().ui.social.reset();
    assert!(!h.state().ui.social.logged_in());
}

#[test]
fn a_lost_connection_offers_rejoin_on_the_main_menu() {
    let mut h = harness(game(), 1024.0, 700.0);
    h.run();
    h.state_mut().apply(vec![Event::ConnectionLost(
        "Connection lost: timed out.".into(),
    )]);
    h.run();
    h.run();
    assert_eq!(h.state().screens.current(), Screen::MainMenu);
    assert!(shown(&h, "Connection lost: timed out."));
    h.state_mut().effects.clear();
    click(&mut h, "Rejoin");
    assert_eq!(
        h.state().effects,
        [Effect::StartSession(SessionKind::Multiplayer {
            address: ADDRESS.into()
        })]
    );
    assert_eq!(h.state().screens.current(), Screen::Loading);
}
