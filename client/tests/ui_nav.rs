//! The screens driven through egui_kittest exactly as the window drives them: each frame
//! `ui::show`, then every returned event applied with `Screens::handle` (the effects are
//! recorded; where the window would answer — the session coming up, a new server's identity —
//! the test plays the window). Widgets are found by their accessible labels and used with
//! clicks or keys (arrows, Tab, Enter, Space, Escape: the gamepad's D-pad, A and B arrive as
//! these keys).

use std::time::Duration;

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use fighters_legacy::app::keyboard::InputHub;
use fighters_legacy::hud::Units;
use fighters_legacy::screens::{Effect, Event, Screen, Screens, SessionKind};
use fighters_legacy::settings::GameSettings;
use fighters_legacy::ui::{
    AircraftChoice, BriefMark, DebriefStats, MarkKind, MissionChoice, MissionDebrief, SettingsTab,
    StartPosition, TofuPrompt, UiState, show,
};
use fl_input::{Bindings, DeviceEvent, DeviceInfo, DeviceKind, DeviceSlot, PadAxis, PadButton};

/// What the window keeps: the state machine, the screens' state, the effects asked for, and
/// the settings file (`Effect::SaveSettings` saves there as the window does).
struct Game {
    screens: Screens,
    ui: UiState,
    effects: Vec<Effect>,
    settings_path: Option<std::path::PathBuf>,
}

impl Game {
    fn new() -> Game {
        let mut ui = UiState::new(GameSettings::default());
        ui.aircraft = vec![
            AircraftChoice {
                type_id: "fl-mods:trainer".into(),
                name: "Jet Trainer".into(),
                pack: "fl-mods".into(),
                thumbnail: None,
            },
            AircraftChoice {
                type_id: "fl-base:f5e".into(),
                name: "F-5E Tiger II".into(),
                pack: "fl-base".into(),
                thumbnail: None,
            },
        ];
        ui.missions = vec![MissionChoice {
            id: "fl-base:intercept".into(),
            title: "Intercept".into(),
            pack: "fl-base".into(),
            brief: "Two bombers cross the border at dawn. Stop them.".into(),
            ..Default::default()
        }];
        Game {
            screens: Screens::new(),
            ui,
            effects: Vec::new(),
            settings_path: None,
        }
    }

    /// The window's part of a frame after `show`: apply the events in order.
    fn apply(&mut self, events: Vec<Event>) {
        for e in events {
            for fx in self.screens.handle(e) {
                if fx == Effect::SaveSettings {
                    // The window's own save.
                    self.ui.save_settings(self.settings_path.as_deref());
                }
                self.effects.push(fx);
            }
        }
    }

    /// The session (not the UI) reports something: the window applies it the same way.
    fn session(&mut self, e: Event) {
        self.apply(vec![e]);
    }
}

fn harness(game: Game) -> Harness<'static, Game> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, g: &mut Game| {
                let events = show(ui.ctx(), &g.screens, &mut g.ui);
                g.apply(events);
            },
            game,
        )
}

fn screen(h: &Harness<'_, Game>) -> Screen {
    h.state().screens.current()
}

/// Scrolls `label` into view (as a player would on a small window) and clicks it.
fn click(h: &mut Harness<'_, Game>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

/// The text of the first node whose text contains `part` (egui puts a label's text in the
/// accessibility value or label).
fn text_containing(h: &Harness<'_, Game>, part: &str) -> String {
    let n = h.get_by_label_contains(part);
    let n = n.accesskit_node();
    n.label()
        .filter(|l| l.contains(part))
        .or_else(|| n.value())
        .unwrap_or_default()
}

fn press(h: &mut Harness<'_, Game>, key: Key) {
    h.key_press(key);
    h.run();
}

fn focused(h: &Harness<'_, Game>, label: &str) -> bool {
    h.get_by_label(label).is_focused()
}

fn shown(h: &Harness<'_, Game>, label: &str) -> bool {
    h.query_by_label(label).is_some()
}

/// Takes the effects recorded so far.
fn effects(h: &mut Harness<'_, Game>) -> Vec<Effect> {
    std::mem::take(&mut h.state_mut().effects)
}

/// Focuses the text field labelled `label` and types `text` into it.
fn type_into(h: &mut Harness<'_, Game>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run();
    assert!(focused(h, label), "{label} takes the focus");
    h.get_by_label(label).type_text(text);
    h.run();
}

/// The proof: MainMenu → Free Flight → Fly → Flight → Esc → Pause → Settings → Back →
/// Quit to menu → Join with a bad address → the error shown → back.
#[test]
fn menu_free_flight_pause_settings_quit_join_with_a_bad_address_and_back() {
    let mut h = harness(Game::new());
    assert_eq!(screen(&h), Screen::MainMenu);
    assert!(shown(&h, "Fighters Legacy"));

    click(&mut h, "Free Flight");
    assert_eq!(screen(&h), Screen::FreeFlight);
    // Every loaded aircraft is offered with its pack; the choice and an air start are kept.
    assert!(h.query_by_label_contains("Jet Trainer").is_some());
    h.get_by_label_contains("F-5E Tiger II").click();
    h.run();
    h.remove_cursor();
    h.run();
    click(&mut h, "In the air");
    click(&mut h, "Overcast");
    {
        let ff = &h.state().ui.free_flight;
        assert_eq!(ff.aircraft.as_deref(), Some("fl-base:f5e"));
        assert!(matches!(ff.start, StartPosition::Air { altitude_m } if altitude_m > 0.0));
        assert_eq!(ff.weather, "overcast");
    }
    assert!(effects(&mut h).is_empty(), "setting up starts nothing");

    click(&mut h, "Fly");
    assert_eq!(screen(&h), Screen::Loading);
    assert_eq!(
        effects(&mut h),
        [Effect::StartSession(SessionKind::SinglePlayer {
            mission: None
        })]
    );
    // The window reports progress and then the session; the lines show live.
    h.state_mut().session(Event::Progress(
        "Loading terrain around the airfield".into(),
    ));
    h.run();
    assert!(shown(&h, "Loading terrain around the airfield"));
    h.state_mut().session(Event::SessionReady);
    h.run();
    assert_eq!(screen(&h), Screen::Flight);
    assert_eq!(effects(&mut h), [Effect::CaptureMouse(true)]);
    assert!(!shown(&h, "Resume"), "no menu over the flight");

    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::Pause);
    assert_eq!(
        effects(&mut h),
        [Effect::CaptureMouse(false), Effect::PauseServer]
    );
    assert!(focused(&h, "Resume"), "the pause menu takes the keyboard");

    click(&mut h, "Settings");
    assert_eq!(screen(&h), Screen::Settings);
    click(&mut h, "Back");
    assert_eq!(screen(&h), Screen::Pause);
    assert_eq!(effects(&mut h), [Effect::SaveSettings]);

    click(&mut h, "Quit to Menu");
    assert_eq!(screen(&h), Screen::MainMenu);
    assert_eq!(effects(&mut h), [Effect::StopSession]);

    click(&mut h, "Join a Server");
    assert_eq!(screen(&h), Screen::Join);
    type_into(&mut h, "Server address", "not a host:99999");
    click(&mut h, "Connect");
    assert_eq!(screen(&h), Screen::Join, "a bad address stays on Join");
    assert!(effects(&mut h).is_empty(), "no session for a bad address");
    let error = text_containing(&h, "is not a port");
    assert!(
        error.contains("99999") && error.contains("1 to 65535"),
        "{error}"
    );

    click(&mut h, "Back");
    assert_eq!(screen(&h), Screen::MainMenu);
    assert!(h.query_by_label_contains("is not a port").is_none());
}

/// The main menu without a mouse: the first entry has the focus, arrows move it, Enter opens,
/// Escape comes back, Space works like Enter, Tab moves too.
#[test]
fn the_main_menu_is_navigable_by_keyboard_alone() {
    let mut h = harness(Game::new());
    assert!(focused(&h, "Free Flight"), "the first entry has the focus");
    press(&mut h, Key::ArrowDown);
    assert!(focused(&h, "Missions"));
    press(&mut h, Key::ArrowDown);
    assert!(focused(&h, "Join a Server"));
    press(&mut h, Key::ArrowUp);
    assert!(focused(&h, "Missions"));
    press(&mut h, Key::Enter);
    assert_eq!(screen(&h), Screen::MissionSelect);
    assert!(focused(&h, "Intercept (fl-base)"));
    press(&mut h, Key::Space);
    assert_eq!(screen(&h), Screen::MissionBrief);
    assert!(shown(
        &h,
        "Two bombers cross the border at dawn. Stop them."
    ));
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MissionSelect);
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MainMenu);
    // Back on the menu the first entry has the focus again; Tab walks down to Settings.
    assert!(focused(&h, "Free Flight"));
    for _ in 0..3 {
        press(&mut h, Key::Tab);
    }
    assert!(focused(&h, "Settings"));
    press(&mut h, Key::Enter);
    assert_eq!(screen(&h), Screen::Settings);
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MainMenu);
    assert_eq!(effects(&mut h), [Effect::SaveSettings]);
    // Escape on the main menu does not quit.
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MainMenu);
    // After the focus is lost (Escape clears it) an arrow picks the first entry again.
    press(&mut h, Key::ArrowDown);
    assert!(focused(&h, "Free Flight"));
}

/// Joining a new server: the prompt shows its fingerprint and answers TrustServer; declining
/// ends the join with a sentence saying so.
#[test]
fn the_trust_prompt_shows_the_fingerprint_and_returns_trust_server() {
    let fingerprint = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
    let mut h = harness(Game::new());
    click(&mut h, "Join a Server");
    type_into(&mut h, "Server address", "127.0.0.1:4778");
    press(&mut h, Key::Enter);
    assert_eq!(screen(&h), Screen::Loading);
    assert_eq!(
        effects(&mut h),
        [Effect::StartSession(SessionKind::Multiplayer {
            address: "127.0.0.1:4778".into()
        })]
    );
    assert!(shown(&h, "Connecting to 127.0.0.1:4778"));

    // The window meets an unknown identity and asks.
    h.state_mut().ui.tofu_prompt = Some(TofuPrompt {
        address: "127.0.0.1:4778".into(),
        fingerprint_hex: fingerprint.into(),
    });
    h.run();
    let shown_fp = text_containing(&h, "A1:B2:C3:D4:E5:F6:07:18");
    assert_eq!(
        shown_fp.replace(['\n', ':'], ""),
        fingerprint.to_uppercase(),
        "the whole fingerprint is shown"
    );
    assert!(
        focused(&h, "Trust and Connect"),
        "the prompt takes the focus"
    );
    press(&mut h, Key::Enter);
    assert_eq!(effects(&mut h), [Effect::TrustServer]);
    assert_eq!(screen(&h), Screen::Loading);
    // The window records the identity, clears the prompt, and the session comes up: the
    // address is remembered.
    h.state_mut().ui.tofu_prompt = None;
    h.state_mut().session(Event::SessionReady);
    h.run();
    assert_eq!(
        effects(&mut h),
        [
            Effect::RememberServer("127.0.0.1:4778".into()),
            Effect::CaptureMouse(true)
        ]
    );

    // Declining with the mouse, and with Escape, both end the join and say why.
    for decline in [Some("Don't Connect"), None] {
        let mut h = harness(Game::new());
        h.state_mut().session(Event::OpenJoin);
        h.state_mut()
            .session(Event::Connect("example.org:4778".into()));
        h.state_mut().ui.tofu_prompt = Some(TofuPrompt {
            address: "example.org:4778".into(),
            fingerprint_hex: fingerprint.into(),
        });
        h.run();
        effects(&mut h);
        match decline {
            Some(label) => click(&mut h, label),
            None => press(&mut h, Key::Escape),
        }
        assert_eq!(screen(&h), Screen::MainMenu, "{decline:?}");
        assert!(effects(&mut h).contains(&Effect::StopSession));
        // The reason is shown on the menu.
        let m = text_containing(&h, "you did not trust the identity of example.org:4778");
        assert!(m.contains("Nothing was saved"), "{m}");
    }
}

/// Units toggled on the Settings screen end in SaveSettings; with the keyboard alone the tabs
/// and the controls in them are reached (the gamepad's D-pad and A arrive as these keys).
#[test]
fn a_settings_change_ends_in_save_settings() {
    let mut h = harness(Game::new());
    click(&mut h, "Settings");
    assert_eq!(screen(&h), Screen::Settings);
    assert!(focused(&h, "Graphics"), "the open tab has the focus");
    click(&mut h, "HUD");
    click(&mut h, "Metric (km/h, m)");
    assert_eq!(h.state().ui.settings.hud.units, Units::Metric);
    assert!(effects(&mut h).is_empty(), "nothing saved while editing");
    click(&mut h, "Back");
    assert_eq!(screen(&h), Screen::MainMenu);
    assert_eq!(effects(&mut h), [Effect::SaveSettings]);

    // With the keyboard: right from the Graphics tab to Audio, to HUD, Enter opens it; Tab
    // into the tab's first control, right to Metric, Space selects it.
    let mut h = harness(Game::new());
    click(&mut h, "Settings");
    assert!(focused(&h, "Graphics"));
    press(&mut h, Key::ArrowRight);
    assert!(focused(&h, "Audio"));
    press(&mut h, Key::ArrowRight);
    assert!(focused(&h, "HUD"));
    press(&mut h, Key::Enter);
    assert_eq!(h.state().ui.settings_tab, SettingsTab::Hud);
    assert!(shown(&h, "Knots and Feet"));
    for _ in 0..SettingsTab::ALL.len() - 2 {
        press(&mut h, Key::Tab);
    }
    assert!(focused(&h, "Knots and Feet"), "Tab walks past the tabs");
    press(&mut h, Key::ArrowRight);
    assert!(focused(&h, "Metric (km/h, m)"));
    press(&mut h, Key::Space);
    assert_eq!(h.state().ui.settings.hud.units, Units::Metric);
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MainMenu);
    assert_eq!(effects(&mut h), [Effect::SaveSettings]);
}

/// The proof for `user.toml`: settings changed on several tabs of the Settings screen,
/// *Back* saves them through the window's own save, the file on disk has them (and a key the
/// player added by hand), and a new game loading the file shows them again.
#[test]
fn settings_changed_on_the_screen_persist_in_user_toml() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("user.toml");
    std::fs::write(&path, "[graphics]\nhdr = true\n").expect("write");
    let start = |path: &std::path::Path| {
        let loaded = GameSettings::load(path);
        assert_eq!(loaded.warning, None);
        let mut g = Game::new();
        g.ui.settings = loaded.settings;
        g.settings_path = Some(path.to_owned());
        harness(g)
    };
    let mut h = start(&path);
    click(&mut h, "Settings");
    click(&mut h, "High");
    click(&mut h, "Fullscreen (borderless)");
    h.get_by_role_and_label(Role::Slider, "Scene resolution")
        .focus();
    h.run();
    press(&mut h, Key::ArrowRight);
    assert_eq!(
        h.state().ui.settings.graphics.render_scale,
        1.05,
        "1.00 → 1.05"
    );
    click(&mut h, "HUD");
    click(&mut h, "Metric (km/h, m)");
    click(&mut h, "Amber");
    click(&mut h, "Audio");
    click(&mut h, "Mute when the game is in the background");
    // The music slider, one step up from the keyboard.
    h.get_by_role_and_label(Role::Slider, "Music").focus();
    h.run();
    press(&mut h, Key::ArrowRight);
    assert_eq!(h.state().ui.settings.audio.music, 0.71, "70 % → 71 %");
    assert!(!path.with_file_name("user.invalid.toml").exists());
    let before = std::fs::read_to_string(&path).expect("read");
    assert!(
        !before.contains("terrain_detail"),
        "nothing saved while editing"
    );
    click(&mut h, "Back");
    assert_eq!(screen(&h), Screen::MainMenu);
    assert_eq!(effects(&mut h), [Effect::SaveSettings]);
    assert_eq!(
        h.state().ui.settings_warning,
        None,
        "saved without a problem"
    );

    // The file on disk.
    let text = std::fs::read_to_string(&path).expect("user.toml");
    let file: toml::Table = toml::from_str(&text).expect("TOML");
    assert_eq!(file["graphics"]["terrain_detail"].as_str(), Some("high"));
    assert_eq!(file["graphics"]["fullscreen"].as_str(), Some("borderless"));
    assert_eq!(file["graphics"]["hdr"].as_bool(), Some(true), "kept");
    assert_eq!(file["graphics"]["render_scale"].as_float(), Some(1.05));
    assert_eq!(file["hud"]["units"].as_str(), Some("metric"));
    assert_eq!(file["hud"]["colour"].as_str(), Some("amber"));
    assert_eq!(file["audio"]["mute_when_unfocused"].as_bool(), Some(false));
    assert_eq!(
        file["audio"]["music"].as_float(),
        Some(0.71),
        "written short"
    );

    // Loaded again (a restart): the same settings, shown selected on the screen.
    let saved = h.state().ui.settings.clone();
    assert_eq!(GameSettings::load(&path).settings, saved);
    let mut h = start(&path);
    assert_eq!(h.state().ui.settings, saved);
    click(&mut h, "Settings");
    let selected = |h: &Harness<'_, Game>, label: &str| {
        h.get_by_label(label).accesskit_node().toggled() == Some(egui::accesskit::Toggled::True)
    };
    assert!(selected(&h, "High") && !selected(&h, "Medium"));
    assert!(selected(&h, "Fullscreen (borderless)"));
    click(&mut h, "HUD");
    assert!(selected(&h, "Metric (km/h, m)") && selected(&h, "Amber"));
    // The Controls tab offers the keyboard and gamepad columns.
    click(&mut h, "Controls");
    assert!(shown(&h, "Keyboard and mouse") && shown(&h, "Gamepad (any)"));
}

/// A failed session's reason is shown on the screen entered (the main menu) until dismissed.
#[test]
fn a_refusal_is_shown_on_the_menu_until_dismissed() {
    let mut h = harness(Game::new());
    click(&mut h, "Join a Server");
    type_into(&mut h, "Server address", "example.org");
    click(&mut h, "Connect");
    assert_eq!(screen(&h), Screen::Loading);
    h.state_mut().session(Event::SessionFailed(
        "The server is full. Try again later.".into(),
    ));
    h.run();
    assert_eq!(screen(&h), Screen::MainMenu);
    assert!(shown(&h, "The server is full. Try again later."));
    click(&mut h, "Dismiss");
    assert!(!shown(&h, "The server is full. Try again later."));
}

/// Pause → End Flight → the debrief with the flight's record → Main Menu.
#[test]
fn the_debrief_shows_the_flights_record() {
    let mut h = harness(Game::new());
    h.state_mut().session(Event::Fly);
    h.state_mut().session(Event::SessionReady);
    h.state_mut().ui.debrief = Some(DebriefStats {
        time_flown_s: 754.0,
        distance_m: 1852.0 * 42.0,
        max_g: 6.27,
        landings: 2,
        ended: "You ended the flight.".into(),
        mission: None,
    });
    h.run();
    press(&mut h, Key::Escape);
    click(&mut h, "End Flight");
    assert_eq!(screen(&h), Screen::Debrief);
    for text in ["You ended the flight.", "12:34", "42.0 NM", "6.3 G", "2"] {
        assert!(shown(&h, text), "{text}");
    }
    assert!(focused(&h, "Main Menu"));
    press(&mut h, Key::Enter);
    assert_eq!(screen(&h), Screen::MainMenu);
    assert!(effects(&mut h).contains(&Effect::StopSession));
}

/// The connection banner shows over the flight; the pause panel over the scene.
#[test]
fn the_banner_shows_in_flight_and_pause() {
    let mut h = harness(Game::new());
    h.state_mut().session(Event::OpenJoin);
    h.state_mut().session(Event::Connect("example.org".into()));
    h.state_mut().session(Event::SessionReady);
    let line = "Connection interrupted: nothing heard from the server for 3 s.";
    h.state_mut().ui.banner = Some(line.into());
    h.run();
    assert!(shown(&h, line));
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::Pause);
    assert!(shown(&h, line));
    assert!(shown(
        &h,
        "Online: the flight goes on while this menu is open."
    ));
    // Escape (the gamepad's B) resumes.
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::Flight);
}

/// The UI scale setting makes the menus bigger.
#[test]
fn the_ui_scale_scales_the_menus() {
    let size = |scale: f32| {
        let mut g = Game::new();
        g.ui.settings.hud.ui_scale = scale;
        let h = harness(g);
        let r = h.get_by_role_and_label(Role::Button, "Free Flight").rect();
        (r.width(), r.height())
    };
    let (w1, h1) = size(1.0);
    let (w2, h2) = size(2.0);
    assert!(w2 > 1.8 * w1 && h2 > 1.8 * h1, "{w1}x{h1} → {w2}x{h2}");
}

/// A gamepad's events through the window's path: `InputHub::feed` (fl-input's menu navigation)
/// gives egui key events, added to the next frame's input as the window adds them.
/// The test pad's slot.
const PAD: DeviceSlot = DeviceSlot(0);

struct Pad {
    pads: InputHub,
    now: Duration,
}

impl Pad {
    fn new() -> Pad {
        Pad {
            pads: InputHub::without_devices(Bindings::defaults()),
            now: Duration::ZERO,
        }
    }

    /// One frame 50 ms after the last with `events`.
    fn frame(&mut self, h: &mut Harness<'_, Game>, events: &[DeviceEvent]) {
        self.now += Duration::from_millis(50);
        let flying = screen(h) == Screen::Flight;
        for e in self.pads.feed(events, self.now, flying) {
            h.event(e);
        }
        h.run();
    }

    /// Presses and releases `button` (two frames).
    fn tap(&mut self, h: &mut Harness<'_, Game>, button: PadButton) {
        for pressed in [true, false] {
            self.frame(
                h,
                &[DeviceEvent::Button {
                    slot: PAD,
                    code: 0,
                    named: Some(button),
                    pressed,
                }],
            );
        }
    }

    fn stick_y(&mut self, h: &mut Harness<'_, Game>, value: f32) {
        self.frame(
            h,
            &[DeviceEvent::Axis {
                slot: PAD,
                code: 1,
                named: Some(PadAxis::LeftY),
                value,
            }],
        );
    }
}

/// The menus and the pause menu with a gamepad alone: D-pad and left stick move the focus (a
/// held D-pad repeats), A presses, B backs out, Start pauses and resumes, and in flight B and
/// the D-pad are flight controls, not menu keys.
#[test]
fn every_screen_is_navigable_by_gamepad() {
    let mut h = harness(Game::new());
    let mut pad = Pad::new();
    pad.frame(
        &mut h,
        &[DeviceEvent::Connected {
            slot: PAD,
            info: DeviceInfo {
                name: "Test Pad".into(),
                uuid: [0; 16],
                kind: DeviceKind::Gamepad,
            },
        }],
    );
    assert!(focused(&h, "Free Flight"));
    pad.tap(&mut h, PadButton::DPadDown);
    assert!(focused(&h, "Missions"));
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::MissionSelect);
    assert!(focused(&h, "Intercept (fl-base)"));
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::MissionBrief);
    pad.tap(&mut h, PadButton::East);
    assert_eq!(screen(&h), Screen::MissionSelect);
    pad.tap(&mut h, PadButton::East);
    assert_eq!(screen(&h), Screen::MainMenu);
    assert!(focused(&h, "Free Flight"));

    // A flick of the left stick is an arrow; wobbling near the end of travel is not a second.
    pad.stick_y(&mut h, -0.9);
    pad.stick_y(&mut h, -0.5);
    pad.stick_y(&mut h, -0.8);
    assert!(focused(&h, "Missions"));
    pad.stick_y(&mut h, 0.0);
    pad.stick_y(&mut h, -1.0);
    assert!(focused(&h, "Join a Server"));
    pad.stick_y(&mut h, 0.0);
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::Join);
    pad.tap(&mut h, PadButton::East);
    assert_eq!(screen(&h), Screen::MainMenu);

    // Holding the D-pad: one step at once, the next after the repeat delay (0.4 s).
    assert!(focused(&h, "Free Flight"));
    pad.frame(
        &mut h,
        &[DeviceEvent::Button {
            slot: PAD,
            code: 0,
            named: Some(PadButton::DPadDown),
            pressed: true,
        }],
    );
    assert!(focused(&h, "Missions"));
    for _ in 0..6 {
        pad.frame(&mut h, &[]);
    }
    assert!(focused(&h, "Missions"), "not before the delay (0.3 s held)");
    for _ in 0..3 {
        pad.frame(&mut h, &[]);
    }
    assert!(focused(&h, "Join a Server"), "one repeat by 0.45 s");
    pad.frame(
        &mut h,
        &[DeviceEvent::Button {
            slot: PAD,
            code: 0,
            named: Some(PadButton::DPadDown),
            pressed: false,
        }],
    );

    // Released in the frame at 0.5 s: held until then, so that frame brings the second repeat.
    assert!(focused(&h, "Settings"));
    pad.frame(&mut h, &[]);
    assert!(focused(&h, "Settings"), "released: no more");

    // Into the flight (the session is the window's part), then Start pauses.
    for _ in 0..3 {
        pad.tap(&mut h, PadButton::DPadUp);
    }
    assert!(focused(&h, "Free Flight"));
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::FreeFlight);
    click(&mut h, "Fly");
    h.state_mut().session(Event::SessionReady);
    h.run();
    assert_eq!(screen(&h), Screen::Flight);
    effects(&mut h);
    pad.tap(&mut h, PadButton::East);
    pad.tap(&mut h, PadButton::DPadDown);
    pad.tap(&mut h, PadButton::South);
    assert_eq!(
        screen(&h),
        Screen::Flight,
        "B, D-pad and A fly the aircraft"
    );
    assert!(effects(&mut h).is_empty());
    pad.tap(&mut h, PadButton::Start);
    assert_eq!(screen(&h), Screen::Pause);
    assert!(focused(&h, "Resume"));
    pad.tap(&mut h, PadButton::Start);
    assert_eq!(screen(&h), Screen::Flight, "Start resumes");
    pad.tap(&mut h, PadButton::Start);
    assert_eq!(screen(&h), Screen::Pause);
    pad.tap(&mut h, PadButton::DPadDown);
    assert!(focused(&h, "Settings"));
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::Settings);
    pad.tap(&mut h, PadButton::East);
    assert_eq!(screen(&h), Screen::Pause);
    pad.tap(&mut h, PadButton::South);
    assert_eq!(screen(&h), Screen::Flight, "A on Resume");
}

/// The mission list shows every given mission (a broken one marked), and opening one shows its
/// brief: the description, the header's facts, *Fly* disabled with the reason; a broken one
/// shows why it cannot be read.
#[test]
fn mission_select_lists_the_missions_and_opens_a_brief() {
    let mut g = Game::new();
    let fact = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    g.ui.missions = vec![
        MissionChoice {
            id: "fl-base-pack:f5e_intercept".into(),
            title: "Tiger by the Tail".into(),
            pack: "fl-base-pack".into(),
            brief: String::new(),
            facts: vec![
                fact("Map", "world (at home)"),
                fact("Time", "09:30 local"),
                fact("Weather", "Partly cloudy"),
                fact("Your aircraft", "F-5E Tiger II (fl-base:f5e)"),
                fact("Start", "on the ground"),
                fact("Friendly", "0"),
                fact("Hostile", "1"),
            ],
            broken: None,
            objectives: vec![
                (true, "Destroy bandit1".into()),
                (false, "Do not lose your aircraft".into()),
            ],
            map: vec![
                BriefMark {
                    east_m: -1200.0,
                    north_m: 0.0,
                    label: "player1".into(),
                    kind: MarkKind::Player,
                },
                BriefMark {
                    east_m: 9000.0,
                    north_m: 10000.0,
                    label: "bandit1".into(),
                    kind: MarkKind::Target,
                },
            ],
        },
        MissionChoice {
            id: "fl-trainer:free_flight_nevada".into(),
            title: "Free Flight — Nevada Airfield".into(),
            pack: "fl-trainer".into(),
            brief: "Fly, and land again when you like.".into(),
            facts: vec![fact("Your aircraft", "FL-1 Jet Trainer")],
            ..Default::default()
        },
        MissionChoice {
            id: "p:b_not_yaml".into(),
            title: "b_not_yaml".into(),
            pack: "p".into(),
            broken: Some("line 2: did not find expected node content".into()),
            ..Default::default()
        },
    ];
    let mut h = harness(g);
    click(&mut h, "Missions");
    assert_eq!(screen(&h), Screen::MissionSelect);
    assert!(shown(&h, "Tiger by the Tail (fl-base-pack)"));
    assert!(shown(&h, "Free Flight — Nevada Airfield (fl-trainer)"));
    assert!(shown(&h, "b_not_yaml (p) — cannot be flown"));
    assert!(focused(&h, "Tiger by the Tail (fl-base-pack)"));

    click(&mut h, "Tiger by the Tail (fl-base-pack)");
    assert_eq!(screen(&h), Screen::MissionBrief);
    assert_eq!(
        h.state().screens.selected_mission(),
        Some("fl-base-pack:f5e_intercept")
    );
    assert!(shown(&h, "Tiger by the Tail"));
    assert!(shown(&h, "The mission has no description."));
    for (k, v) in [
        ("Time", "09:30 local"),
        ("Weather", "Partly cloudy"),
        ("Your aircraft", "F-5E Tiger II (fl-base:f5e)"),
        ("Start", "on the ground"),
        ("Hostile", "1"),
    ] {
        assert!(shown(&h, k), "{k}");
        assert!(shown(&h, v), "{v}");
    }
    for line in [
        "Objectives",
        "• Destroy bandit1",
        "• Do not lose your aircraft (or the mission fails)",
    ] {
        assert!(shown(&h, line), "{line}");
    }
    assert!(
        !h.get_by_role_and_label(Role::Button, "Fly This Mission")
            .accesskit_node()
            .is_disabled(),
        "a mission that validates can be flown"
    );
    assert!(focused(&h, "Fly This Mission"));
    press(&mut h, Key::Escape);
    assert_eq!(screen(&h), Screen::MissionSelect);

    click(&mut h, "Free Flight — Nevada Airfield (fl-trainer)");
    assert!(shown(&h, "Fly, and land again when you like."));
    click(&mut h, "Back");

    click(&mut h, "b_not_yaml (p) — cannot be flown");
    assert_eq!(screen(&h), Screen::MissionBrief);
    let why = text_containing(&h, "cannot be flown:");
    assert!(why.contains("line 2: did not find"), "{why}");
    assert!(
        h.get_by_role_and_label(Role::Button, "Fly This Mission")
            .accesskit_node()
            .is_disabled(),
        "a broken mission cannot be flown"
    );
    click(&mut h, "Back");
    assert!(
        effects(&mut h).is_empty(),
        "listing missions starts nothing"
    );
    click(&mut h, "Tiger by the Tail (fl-base-pack)");
    click(&mut h, "Fly This Mission");
    assert_eq!(screen(&h), Screen::Loading);
    assert!(
        effects(&mut h).contains(&Effect::StartSession(SessionKind::SinglePlayer {
            mission: Some("fl-base-pack:f5e_intercept".into())
        }))
    );
}

/// A mission's debrief: the result, the objectives ticked off, kills and losses; *Retry
/// Mission* starts the same mission again.
#[test]
fn a_mission_debrief_shows_the_result_and_retries() {
    let mut h = harness(Game::new());
    click(&mut h, "Missions");
    click(&mut h, "Intercept (fl-base)");
    click(&mut h, "Fly This Mission");
    h.state_mut().session(Event::SessionReady);
    h.state_mut().ui.debrief = Some(DebriefStats {
        time_flown_s: 95.0,
        ended: "You ended the flight.".into(),
        mission: Some(MissionDebrief {
            name: "Intercept".into(),
            result: "Mission accomplished".into(),
            elapsed_s: Some(92.0),
            objectives: vec![
                ("[x]".into(), "Destroy bandit1".into()),
                ("[x]".into(), "Do not lose your aircraft".into()),
            ],
            kills: 1,
            losses: 0,
        }),
        ..Default::default()
    });
    h.state_mut()
        .session(Event::MissionEnded("Mission accomplished".into()));
    h.run();
    assert_eq!(screen(&h), Screen::Debrief);
    for text in [
        "Intercept: Mission accomplished",
        "Mission time 1:32",
        "[x] Destroy bandit1",
        "[x] Do not lose your aircraft",
        "Kills 1   Losses 0",
    ] {
        assert!(shown(&h, text), "{text}");
    }
    assert!(focused(&h, "Retry Mission"));
    effects(&mut h);
    press(&mut h, Key::Enter);
    assert_eq!(screen(&h), Screen::Loading);
    let fx = effects(&mut h);
    assert!(fx.contains(&Effect::StopSession), "{fx:?}");
    assert!(
        fx.contains(&Effect::StartSession(SessionKind::SinglePlayer {
            mission: Some("fl-base:intercept".into())
        })),
        "{fx:?}"
    );
}
