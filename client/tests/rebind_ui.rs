//! The rebinding screen driven through egui_kittest as the window drives it (issue 12's proof):
//! a key and a device axis bound by "press to bind", a conflict prompt answered with Replace,
//! and the bindings saved to `bindings.toml` when Settings closes and shown again after a
//! "restart" that loads the file.
//!
//! The test plays the window's part: each frame in Settings it hands the flown bindings to
//! `Rebinder::enter`, and on `Effect::SaveSettings` it saves `Rebinder::take_changes` with
//! `store::BindingsFile` (the window's `InputHub::apply_bindings` does the same save).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use fighters_legacy::screens::{Effect, Event, Screen, Screens};
use fighters_legacy::settings::GameSettings;
use fighters_legacy::ui::{UiState, cell_label, show};
use fl_input::store::{self, BindingsFile};
use fl_input::{
    Action, AxisPart, Bindings, DeviceEvent, DeviceInfo, DeviceKind, DeviceSlot, Input, InputEvent,
    KeyName, Slot, Source,
};

struct Game {
    screens: Screens,
    ui: UiState,
    /// The bindings the game flies with (the window's `InputHub::bindings`).
    flown: Bindings,
    file: BindingsFile,
    saves: usize,
}

impl Game {
    fn new(flown: Bindings, file: BindingsFile) -> Game {
        Game {
            screens: Screens::new(),
            ui: UiState::new(GameSettings::default()),
            flown,
            file,
            saves: 0,
        }
    }

    fn apply(&mut self, events: Vec<Event>) {
        for e in events {
            for fx in self.screens.handle(e) {
                if fx == Effect::SaveSettings
                    && let Some(b) = self.ui.controls.take_changes()
                {
                    self.file.save(&b).expect("bindings saved");
                    self.flown = b;
                    self.saves += 1;
                }
            }
        }
    }
}

fn harness(game: Game) -> Harness<'static, Game> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, g: &mut Game| {
                if g.screens.current() == Screen::Settings {
                    g.ui.controls.enter(&g.flown);
                }
                let events = show(ui.ctx(), &g.screens, &mut g.ui);
                g.apply(events);
            },
            game,
        )
}

fn click(h: &mut Harness<'_, Game>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

fn shown(h: &Harness<'_, Game>, label: &str) -> bool {
    h.query_by_label(label).is_some()
}

fn key(h: &mut Harness<'_, Game>, name: &str) {
    let ev = InputEvent::Key {
        key: KeyName::parse(name).expect("a key name"),
        pressed: true,
        repeat: false,
    };
    h.state_mut().ui.controls.event(&ev);
    h.run();
}

/// A device event as the window hands it over: the mapper's devices first (the window copies
/// them into the snapshot), then the capture.
fn device(h: &mut Harness<'_, Game>, ev: DeviceEvent) {
    let c = &mut h.state_mut().ui.controls;
    c.devices.apply(&ev);
    c.event(&InputEvent::Device(ev));
    h.run();
}

const PEDALS: DeviceSlot = DeviceSlot(3);
const RUDDER_AXIS: u32 = 5;

fn open_controls(h: &mut Harness<'_, Game>) {
    click(h, "Settings");
    assert_eq!(h.state().screens.current(), Screen::Settings);
    click(h, "Controls");
}

#[test]
fn keys_and_axes_rebind_conflicts_ask_and_bindings_persist() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bindings.toml");
    let loaded = store::load(&path);
    let mut h = harness(Game::new(loaded.bindings, loaded.file));
    h.run();
    open_controls(&mut h);

    // (1) A key: click the Gear cell, press K.
    assert!(shown(&h, &cell_label(Action::Gear, Slot::Primary, "G")));
    click(&mut h, &cell_label(Action::Gear, Slot::Primary, "G"));
    assert!(h.state().ui.controls.listening());
    assert!(
        h.query_by_label_contains(&format!("Binding {}", Action::Gear.label()))
            .is_some()
    );
    key(&mut h, "K");
    assert!(
        shown(&h, &cell_label(Action::Gear, Slot::Primary, "K")),
        "the cell reads K"
    );
    assert!(!shown(&h, &cell_label(Action::Gear, Slot::Primary, "G")));
    assert!(!h.state().ui.controls.listening());

    // (2) An axis: pedals resting at one end; yaw binds once they move, not on their rest.
    device(
        &mut h,
        DeviceEvent::Connected {
            slot: PEDALS,
            info: DeviceInfo {
                name: "Test Pedals".into(),
                uuid: [7; 16],
                kind: DeviceKind::Joystick,
            },
        },
    );
    let rest = DeviceEvent::Axis {
        slot: PEDALS,
        code: RUDDER_AXIS,
        named: None,
        value: -0.8,
    };
    device(&mut h, rest);
    click(&mut h, "Test Pedals (1)");
    click(&mut h, &cell_label(Action::Yaw, Slot::Primary, "—"));
    assert!(h.state().ui.controls.listening());
    // Noise around the rest does not bind.
    device(
        &mut h,
        DeviceEvent::Axis {
            slot: PEDALS,
            code: RUDDER_AXIS,
            named: None,
            value: -0.7,
        },
    );
    assert!(h.state().ui.controls.listening());
    device(
        &mut h,
        DeviceEvent::Axis {
            slot: PEDALS,
            code: RUDDER_AXIS,
            named: None,
            value: 0.2,
        },
    );
    let axis = Input::Axis(RUDDER_AXIS, AxisPart::Whole).label();
    assert!(
        shown(&h, &cell_label(Action::Yaw, Slot::Primary, &axis)),
        "the pedals bound to yaw"
    );
    // The bound axis is offered for tuning, and the live readout shows it.
    assert!(h.query_all_by_label("Deadzone").next().is_some());
    assert!(
        h.query_by_label_contains(&format!("{} +", Action::Yaw.label()))
            .is_some()
    );

    // (3) A conflict: K (now Gear's) pressed for Flaps.
    click(&mut h, "Keyboard and mouse");
    click(&mut h, &cell_label(Action::Flaps, Slot::Primary, "F"));
    key(&mut h, "K");
    assert!(
        h.query_by_label_contains(&format!(
            "K is already used by {} (primary)",
            Action::Gear.label()
        ))
        .is_some(),
        "the conflict prompt names the other action"
    );
    assert!(
        shown(&h, &cell_label(Action::Flaps, Slot::Primary, "F")),
        "nothing changes before the choice"
    );
    assert!(
        h.state().ui.controls.asking(),
        "the window gives Esc to the prompt"
    );
    click(&mut h, "Replace");
    assert!(!h.state().ui.controls.asking());
    assert!(shown(&h, &cell_label(Action::Flaps, Slot::Primary, "K")));
    assert!(shown(&h, &cell_label(Action::Gear, Slot::Primary, "—")));

    // (4) Leave Settings: the bindings are saved; a restart loads and shows them.
    click(&mut h, "Back");
    assert_eq!(h.state().screens.current(), Screen::MainMenu);
    assert_eq!(h.state().saves, 1);
    drop(h);

    let reloaded = store::load(&path);
    assert!(reloaded.warnings.is_empty(), "{:?}", reloaded.warnings);
    let b = &reloaded.bindings;
    let cell = |action, source: &Source| {
        b.get(source, action, Slot::Primary)
            .map(|b| b.input.clone())
    };
    assert_eq!(
        cell(Action::Flaps, &Source::Keyboard),
        KeyName::parse("K").map(Input::Key)
    );
    assert_eq!(cell(Action::Gear, &Source::Keyboard), None);

    let mut h = harness(Game::new(reloaded.bindings, reloaded.file));
    h.run();
    open_controls(&mut h);
    assert!(shown(&h, &cell_label(Action::Flaps, Slot::Primary, "K")));
    assert!(shown(&h, &cell_label(Action::Gear, Slot::Primary, "—")));
    click(&mut h, "Test Pedals (1)");
    assert!(shown(&h, &cell_label(Action::Yaw, Slot::Primary, &axis)));
}

#[test]
fn escape_cancels_a_capture_and_leaving_unchanged_saves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bindings.toml");
    let loaded = store::load(&path);
    let mut h = harness(Game::new(loaded.bindings, loaded.file));
    h.run();
    open_controls(&mut h);
    click(&mut h, &cell_label(Action::Gear, Slot::Primary, "G"));
    key(&mut h, "Escape");
    assert!(!h.state().ui.controls.listening());
    assert!(shown(&h, &cell_label(Action::Gear, Slot::Primary, "G")));
    assert_eq!(h.state().screens.current(), Screen::Settings);
    click(&mut h, "Back");
    assert_eq!(h.state().saves, 0);
    assert!(!path.exists());
}
