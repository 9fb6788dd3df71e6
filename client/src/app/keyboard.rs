//! The window's side of fl-input, until the controls issue's bindings replace the defaults: the
//! keyboard (with any gamepads added to it) as the [`Pilot`] the client asks once per 60 Hz input
//! tick, and the gamepads' menu keys and hot-plug notices for the window.
//!
//! Owns the adapter from [`fl_input::Controls`] to [`PilotInput`], the spawn-trim sync, the gilrs
//! poll (a gilrs that cannot start is a warning: the keyboard flies alone) and the turning of
//! [`UiKey`]s into egui key events. Must not: hold key maps, ramps or deadzones (fl-input's), or
//! read the clock (the window passes its time in).

use std::collections::VecDeque;
use std::time::Duration;

use fl_input::{FlightInput, MenuNav, PadEvent, Ticker, UiKey};

use crate::client::{Pilot, PilotView};
use crate::input_clock::PilotInput;

pub use fl_input::{Action, KEYS_HELP, PAD_HELP, action_for};

/// How long a gamepad's hot-plug notice stays on the HUD (as long as a server notice).
pub const NOTICE_DISPLAY: Duration = crate::netgraph::NOTICE_DISPLAY;
/// Hot-plug notices kept at most.
const MAX_NOTICES: usize = 8;

/// The keyboard and the gamepads as a pilot.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyboardPilot {
    input: FlightInput,
    /// Throttle, gear and flaps were taken from the aircraft as it spawned.
    synced: bool,
}

impl KeyboardPilot {
    /// Controls for an air start: gear up, 80 % throttle (the server trims the spawn).
    pub fn airborne() -> Self {
        Self {
            input: FlightInput::airborne(),
            synced: false,
        }
    }

    /// Takes throttle, gear and flaps from the first predicted state (the spawn's trim), so the
    /// aircraft does not lurch from the defaults. Only once: after that the player has them.
    fn sync(&mut self, state: &fl_flight::AircraftState) {
        if self.synced {
            return;
        }
        self.synced = true;
        let now = self.input.controls();
        let throttle = if state.spool.is_finite() {
            state.spool as f32
        } else {
            now.throttle
        };
        let flaps = if state.flaps.is_finite() {
            state.flaps as f32
        } else {
            now.flaps
        };
        self.input.set_trim(throttle, state.gear > 0.5, flaps);
    }

    /// A key went down (`repeat`: the OS's auto-repeat, which must not re-toggle).
    pub fn press(&mut self, a: Action, repeat: bool) {
        self.input.press(a, repeat);
    }

    pub fn release(&mut self, a: Action) {
        self.input.release(a);
    }

    /// Lets go of every key (the window lost focus, the game paused).
    pub fn release_all(&mut self) {
        self.input.release_keys();
    }

    /// A gamepad event; `flying`: the Flight screen is up (only then do buttons act).
    pub fn pad_event(&mut self, ev: &PadEvent, flying: bool) {
        self.input.pad_event(ev, flying);
    }

    /// The controls as they stand.
    pub fn controls(&self) -> fl_input::Controls {
        self.input.controls()
    }
}

impl Pilot for KeyboardPilot {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        if let Some(state) = view.state {
            self.sync(state);
        }
        pilot_input(&self.input.tick())
    }
}

/// fl-input's controls as the client's input.
pub fn pilot_input(c: &fl_input::Controls) -> PilotInput {
    PilotInput {
        throttle: c.throttle,
        pitch: c.pitch,
        roll: c.roll,
        yaw: c.yaw,
        afterburner: c.afterburner,
        wheel_brake: c.wheel_brake,
        flaps: c.flaps,
        speedbrake: if c.speedbrake { 1.0 } else { 0.0 },
        gear_down: c.gear_down,
        ..PilotInput::default()
    }
}

/// The egui key events for gamepad menu keys. `flying`: the Flight screen is up, where only
/// Start (pause) becomes Escape — A and B are flight controls there and the stick flies. Each
/// key is a press and a release, as a tapped key.
pub fn egui_events(keys: &[UiKey], flying: bool) -> Vec<egui::Event> {
    let mut out = Vec::with_capacity(keys.len() * 2);
    for k in keys {
        let key = match (k, flying) {
            (UiKey::Pause, _) => egui::Key::Escape,
            (_, true) => continue,
            (UiKey::Up, false) => egui::Key::ArrowUp,
            (UiKey::Down, false) => egui::Key::ArrowDown,
            (UiKey::Left, false) => egui::Key::ArrowLeft,
            (UiKey::Right, false) => egui::Key::ArrowRight,
            (UiKey::Enter, false) => egui::Key::Enter,
            (UiKey::Back, false) => egui::Key::Escape,
        };
        for pressed in [true, false] {
            out.push(egui::Event::Key {
                key,
                physical_key: None,
                pressed,
                repeat: false,
                modifiers: egui::Modifiers::NONE,
            });
        }
    }
    out
}

/// The window's gamepads: gilrs (when it started), menu navigation and hot-plug notices.
#[derive(Debug)]
pub struct Gamepads {
    source: Option<fl_input::Gamepads>,
    nav: MenuNav,
    ticker: Ticker,
    events: Vec<PadEvent>,
    /// Hot-plug notices with the window time they came at, oldest first.
    notices: VecDeque<(Duration, String)>,
}

impl Gamepads {
    /// Starts gilrs; when it cannot, says so in the log and goes on without gamepads.
    pub fn start() -> Self {
        let source = match fl_input::Gamepads::new() {
            Ok(g) => Some(g),
            Err(e) => {
                tracing::warn!("{e}; the keyboard and mouse still work");
                None
            }
        };
        Self {
            source,
            ..Self::without_devices()
        }
    }

    /// No gamepad backend at all (tests feed events with [`Gamepads::feed`]).
    pub fn without_devices() -> Self {
        Self {
            source: None,
            nav: MenuNav::new(),
            ticker: Ticker::new(),
            events: Vec::new(),
            notices: VecDeque::new(),
        }
    }

    /// Once per frame: reads the pads (at window time `now`), hands their events to `pilot` and
    /// to the menu navigation, and returns the egui key events to add to this frame's input.
    /// `flying`: the Flight screen is up.
    pub fn poll(
        &mut self,
        now: Duration,
        flying: bool,
        pilot: Option<&mut KeyboardPilot>,
    ) -> Vec<egui::Event> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        if let Some(s) = &mut self.source {
            s.poll(&mut events);
        }
        let out = self.feed(&events, now, flying, pilot);
        self.events = events;
        out
    }

    /// [`Gamepads::poll`] with the events given.
    pub fn feed(
        &mut self,
        events: &[PadEvent],
        now: Duration,
        flying: bool,
        mut pilot: Option<&mut KeyboardPilot>,
    ) -> Vec<egui::Event> {
        // The time since the last frame passed with the pads as they were: tick, then apply.
        self.nav.tick(self.ticker.advance(now));
        for ev in events {
            if let Some(n) = ev.notice() {
                tracing::info!("{n}");
                if self.notices.len() >= MAX_NOTICES {
                    self.notices.pop_front();
                }
                self.notices.push_back((now, n));
            }
            if let Some(p) = pilot.as_deref_mut() {
                p.pad_event(ev, flying);
            }
            self.nav.event(ev);
        }
        egui_events(&self.nav.drain(), flying)
    }

    /// The hot-plug notices of the last [`NOTICE_DISPLAY`] before `now`, oldest first.
    pub fn notices(&self, now: Duration) -> impl Iterator<Item = String> + '_ {
        self.notices
            .iter()
            .filter(move |(t, _)| *t <= now && now.saturating_sub(*t) < NOTICE_DISPLAY)
            .map(|(_, n)| n.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_flight::math::Vec3;
    use fl_input::{PadAxis, PadButton, PadId};

    fn view(state: Option<&fl_flight::AircraftState>) -> PilotView<'_> {
        PilotView {
            seq: 0,
            ticks: 0,
            state,
            planet_radius_m: 6_371_000.0,
        }
    }

    fn parked() -> fl_flight::AircraftState {
        let mut s = fl_flight::AircraftState::flying(Vec3::new(0.0, 0.0, 0.0), 0.0, 0.0, 1_000.0);
        s.spool = 0.05;
        s.gear = 1.0;
        s.flaps = 0.5;
        s
    }

    #[test]
    fn the_first_state_trims_throttle_gear_and_flaps_once() {
        let mut p = KeyboardPilot::airborne();
        let spawn = parked();
        let first = p.command(&view(Some(&spawn)));
        assert!((first.throttle - 0.05).abs() < 1e-6, "{}", first.throttle);
        assert!(first.gear_down);
        assert_eq!(first.flaps, 0.5);
        // Later states do not take the controls back from the player.
        p.press(Action::Gear, false);
        p.press(Action::ThrottleUp, false);
        let mut later = spawn;
        later.spool = 0.9;
        later.flaps = 0.0;
        let next = p.command(&view(Some(&later)));
        assert!(!next.gear_down, "the player's gear toggle stands");
        assert_eq!(next.flaps, 0.5);
        assert!(
            next.throttle > 0.05 && next.throttle < 0.1,
            "{}",
            next.throttle
        );
    }

    #[test]
    fn no_state_keeps_the_air_start_defaults_and_nonsense_is_ignored() {
        let mut p = KeyboardPilot::airborne();
        let c = p.command(&view(None));
        assert!((c.throttle - 0.8).abs() < 1e-6 && !c.gear_down && c.flaps == 0.0);
        let mut q = KeyboardPilot::airborne();
        let mut bad = parked();
        bad.spool = f64::NAN;
        bad.flaps = f64::INFINITY;
        let c = q.command(&view(Some(&bad)));
        assert!((c.throttle - 0.8).abs() < 1e-6, "{}", c.throttle);
        assert_eq!(c.flaps, 0.0);
        assert!(c.gear_down);
    }

    #[test]
    fn controls_become_the_clients_input() {
        let c = fl_input::Controls {
            pitch: 0.25,
            roll: -0.5,
            yaw: 1.0,
            throttle: 0.75,
            afterburner: true,
            gear_down: true,
            flaps: 0.5,
            speedbrake: true,
            wheel_brake: true,
        };
        let i = pilot_input(&c);
        assert_eq!(
            (i.pitch, i.roll, i.yaw, i.throttle),
            (0.25, -0.5, 1.0, 0.75)
        );
        assert!(i.afterburner && i.gear_down && i.wheel_brake);
        assert_eq!((i.flaps, i.speedbrake), (0.5, 1.0));
        assert!(!i.gun && !i.eject && i.station.is_none());
    }

    fn keys_of(events: &[egui::Event]) -> Vec<(egui::Key, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                egui::Event::Key { key, pressed, .. } => Some((*key, *pressed)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn menu_keys_become_egui_key_taps_and_only_start_acts_in_flight() {
        use egui::Key as K;
        let all = [
            UiKey::Up,
            UiKey::Down,
            UiKey::Left,
            UiKey::Right,
            UiKey::Enter,
            UiKey::Back,
            UiKey::Pause,
        ];
        let menus = keys_of(&egui_events(&all, false));
        let expected: Vec<(K, bool)> = [
            K::ArrowUp,
            K::ArrowDown,
            K::ArrowLeft,
            K::ArrowRight,
            K::Enter,
            K::Escape,
            K::Escape,
        ]
        .into_iter()
        .flat_map(|k| [(k, true), (k, false)])
        .collect();
        assert_eq!(menus, expected);
        assert_eq!(
            keys_of(&egui_events(&all, true)),
            [(K::Escape, true), (K::Escape, false)]
        );
    }

    #[test]
    fn hot_plug_is_noticed_and_the_keyboard_keeps_flying() {
        let pad = PadId(0);
        let mut pads = Gamepads::without_devices();
        let mut pilot = KeyboardPilot::airborne();
        let t = |s: u64| Duration::from_secs(s);
        pads.feed(
            &[
                PadEvent::Connected {
                    pad,
                    name: "Test Pad".into(),
                },
                PadEvent::Axis {
                    pad,
                    axis: PadAxis::LeftX,
                    value: 1.0,
                },
            ],
            t(1),
            true,
            Some(&mut pilot),
        );
        assert_eq!(pilot.controls().roll, 1.0);
        let ui = pads.feed(
            &[PadEvent::Disconnected {
                pad,
                name: "Test Pad".into(),
            }],
            t(2),
            true,
            Some(&mut pilot),
        );
        assert!(ui.is_empty());
        assert_eq!(pilot.controls().roll, 0.0, "the pad let go");
        assert_eq!(
            pads.notices(t(3)).collect::<Vec<_>>(),
            [
                "Gamepad \"Test Pad\" connected",
                "Gamepad \"Test Pad\" disconnected — the keyboard still flies"
            ]
        );
        assert_eq!(pads.notices(t(16)).count(), 1, "the first has gone");
        assert_eq!(pads.notices(t(30)).count(), 0);
        pilot.press(Action::RollLeft, false);
        for _ in 0..20 {
            pilot.command(&view(None));
        }
        assert_eq!(pilot.controls().roll, -1.0);
    }

    #[test]
    fn a_pad_drives_the_menus_and_pauses_the_flight() {
        let pad = PadId(2);
        let mut pads = Gamepads::without_devices();
        let press = |b| PadEvent::Button {
            pad,
            button: b,
            pressed: true,
        };
        let ui = pads.feed(
            &[press(PadButton::DPadDown), press(PadButton::South)],
            Duration::ZERO,
            false,
            None,
        );
        assert_eq!(
            keys_of(&ui),
            [
                (egui::Key::ArrowDown, true),
                (egui::Key::ArrowDown, false),
                (egui::Key::Enter, true),
                (egui::Key::Enter, false)
            ]
        );
        // Held for half a second of frames at 100 fps: the arrow repeats (after 0.4 s).
        let mut repeats = 0;
        for f in 1..=50 {
            repeats += keys_of(&pads.feed(&[], Duration::from_millis(10 * f), false, None)).len();
        }
        assert_eq!(
            repeats,
            2 * 2,
            "two repeats (at 0.4 s and 0.5 s), each a tap"
        );
        let ui = pads.feed(
            &[press(PadButton::Start)],
            Duration::from_secs(1),
            true,
            None,
        );
        assert_eq!(
            keys_of(&ui),
            [(egui::Key::Escape, true), (egui::Key::Escape, false)]
        );
    }
}
