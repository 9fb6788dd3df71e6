//! The window's side of fl-input: one [`InputHub`] for the game's whole life (the device
//! backends, the bindings and the mapper, menu navigation by gamepad, hot-plug notices), and
//! the [`KeyboardPilot`] the client asks once per 60 Hz input tick during a flight.
//!
//! Owns the adapter from [`fl_input::Controls`] to [`PilotInput`] (station and radar presses
//! become the absolute selection the message carries; designate presses step the designated
//! hostile track through the latest datalink), the spawn-trim sync, the backends' poll
//! (one that cannot start is a warning: the keyboard flies alone) and the turning of [`UiKey`]s
//! into egui key events. Must not: hold key maps, ramps or deadzones (fl-input's), or read the
//! clock (the window passes its time in).

use std::collections::VecDeque;
use std::time::Duration;

use fl_input::store::{BindingsFile, StoreError};
use fl_input::{
    Action, Bindings, DeviceEvent, Devices, InputEvent, Mapper, MenuNav, MouseButton, Ticker, UiKey,
};
use fl_protocol::enums::{ContactState, RadarMode};
use fl_protocol::msg::combat::Datalink;
use fl_protocol::tlv::DESIGNATE_NONE;

use crate::client::{Pilot, PilotView};
use crate::hud::cues::next_designation;
use crate::input_clock::PilotInput;
use crate::session::OwnEntity;

/// How long a hot-plug notice stays on the HUD (as long as a server notice).
pub const NOTICE_DISPLAY: Duration = crate::netgraph::NOTICE_DISPLAY;
/// Hot-plug notices kept at most.
const MAX_NOTICES: usize = 8;
/// Weapon stations the station keys step through at most (the server ignores a station the
/// aircraft does not have, and keeps its selection).
pub const MAX_STATIONS: u8 = 16;

/// What one flight's pilot remembers besides the mapper: whether the spawn trim was taken, and
/// the station, radar mode and designated target selected so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PilotState {
    /// Throttle, gear and flaps were taken from the aircraft as it spawned.
    synced: bool,
    station: Option<u8>,
    radar: Option<RadarMode>,
    /// The designated track's entity index and the own aircraft that designated it (a new own
    /// entity, a respawn, drops it).
    designated: Option<(u32, OwnEntity)>,
    /// A designation was made this flight: from then on every input says what stands, a target
    /// or [`DESIGNATE_NONE`] (before it, nothing is sent and STT picks the nearest contact).
    designating: bool,
}

impl PilotState {
    /// The designated target's entity index, if any.
    pub fn designated(&self) -> Option<u32> {
        self.designated.map(|(t, _)| t)
    }

    /// Steps the designation by `presses` designate presses over `datalink`, and drops it when
    /// the own aircraft changed (respawn, or none) or the target left the picture. Returns what
    /// the input carries (`PilotInput::designate`).
    fn designate(
        &mut self,
        presses: u8,
        own: Option<OwnEntity>,
        datalink: Option<&Datalink>,
    ) -> Option<u32> {
        if self.designated.is_some_and(|(_, by)| Some(by) != own) {
            self.designated = None;
        }
        if let Some(me) = own
            && let Some(dl) = datalink
        {
            for _ in 0..presses {
                let next = next_designation(dl, Some(me.idx), self.designated());
                self.designated = next.map(|t| (t, me));
                self.designating = true;
            }
        }
        // A target the picture no longer holds (gone, or its track lost) is not designated:
        // the HUD would box nothing and the server would refuse it anyway.
        if let Some(t) = self.designated()
            && !datalink.is_some_and(|dl| holds(dl, t))
        {
            self.designated = None;
        }
        match self.designated() {
            Some(t) => Some(t),
            None if self.designating => Some(DESIGNATE_NONE),
            None => None,
        }
    }
}

/// Whether `dl` has a live (not lost) track of entity `target`.
fn holds(dl: &Datalink, target: u32) -> bool {
    dl.tracks
        .iter()
        .any(|t| t.target_idx == target && t.state != ContactState::Lost)
}

/// The keyboard and devices (through the mapper) as the pilot of one flight.
#[derive(Debug)]
pub struct KeyboardPilot<'a> {
    mapper: &'a mut Mapper,
    state: &'a mut PilotState,
}

impl<'a> KeyboardPilot<'a> {
    pub fn new(mapper: &'a mut Mapper, state: &'a mut PilotState) -> Self {
        KeyboardPilot { mapper, state }
    }

    /// Takes throttle, gear and flaps from the first predicted state (the spawn's trim), so the
    /// aircraft does not lurch from the defaults. Only once: after that the player has them.
    fn sync(&mut self, state: &fl_flight::AircraftState) {
        if self.state.synced {
            return;
        }
        self.state.synced = true;
        let now = self.mapper.controls();
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
        self.mapper.set_trim(throttle, state.gear > 0.5, flaps);
    }
}

impl Pilot for KeyboardPilot<'_> {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput {
        if let Some(state) = view.state {
            self.sync(state);
        }
        let c = self.mapper.tick();
        self.state.station = step_station(self.state.station, c.station_step);
        for _ in 0..c.radar_step {
            self.state.radar = Some(next_radar(self.state.radar));
        }
        let designate = self
            .state
            .designate(c.designate_step, view.own, view.datalink);
        PilotInput {
            station: self.state.station,
            radar: self.state.radar,
            designate,
            ..pilot_input(&c)
        }
    }
}

/// The station after `step` next (+) / previous (−) presses: from no selection the first press
/// picks the first station; it wraps within [`MAX_STATIONS`].
fn step_station(now: Option<u8>, step: i8) -> Option<u8> {
    if step == 0 {
        return now;
    }
    let n = i32::from(MAX_STATIONS);
    let from = now.map_or(if step > 0 { -1 } else { 0 }, i32::from);
    Some((from + i32::from(step)).rem_euclid(n) as u8)
}

/// The radar mode after one press: off → search → track-while-scan → single target → off.
fn next_radar(now: Option<RadarMode>) -> RadarMode {
    match now {
        None | Some(RadarMode::Silent) => RadarMode::Search,
        Some(RadarMode::Search) => RadarMode::Tws,
        Some(RadarMode::Tws) => RadarMode::Stt,
        Some(RadarMode::Stt) => RadarMode::Silent,
    }
}

/// fl-input's controls as the client's input (station and radar left to the server).
pub fn pilot_input(c: &fl_input::Controls) -> PilotInput {
    PilotInput {
        throttle: c.throttle,
        pitch: c.pitch,
        roll: c.roll,
        yaw: c.yaw,
        gun: c.gun,
        afterburner: c.afterburner,
        fire_store: c.fire_store,
        chaff_flare: c.chaff_flare,
        ecm: c.ecm,
        eject: c.eject,
        wheel_brake: c.wheel_brake,
        respawn: c.respawn,
        flaps: c.flaps,
        speedbrake: if c.speedbrake { 1.0 } else { 0.0 },
        gear_down: c.gear_down,
        hook_down: c.hook_down,
        canopy_open: c.canopy_open,
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
        egui_tap(&mut out, key);
    }
    out
}

/// A tapped key: a press and a release.
fn egui_tap(out: &mut Vec<egui::Event>, key: egui::Key) {
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

/// Adds an Escape tap to `events` unless one is there (the pause binding fired; Start or Esc
/// may already have paused this frame).
pub fn add_pause(events: &mut Vec<egui::Event>) {
    let has_escape = events.iter().any(|e| {
        matches!(
            e,
            egui::Event::Key {
                key: egui::Key::Escape,
                pressed: true,
                ..
            }
        )
    });
    if !has_escape {
        egui_tap(events, egui::Key::Escape);
    }
}

/// The game's input for its whole life: device backends, the mapper with the player's
/// bindings, gamepad menu navigation and hot-plug notices.
#[derive(Debug)]
pub struct InputHub {
    source: Devices,
    mapper: Mapper,
    nav: MenuNav,
    ticker: Ticker,
    events: Vec<DeviceEvent>,
    /// Hot-plug notices with the window time they came at, oldest first.
    notices: VecDeque<(Duration, String)>,
    /// Where the bindings are saved (`None`: not saved, e.g. no config directory).
    file: Option<BindingsFile>,
}

impl InputHub {
    /// Starts every device backend (one that cannot start is a warning in the log), flying
    /// with `bindings`, saved to `file`.
    pub fn start(bindings: Bindings, file: Option<BindingsFile>) -> Self {
        let (source, warnings) = Devices::start();
        for w in warnings {
            tracing::warn!("{w}");
        }
        Self {
            source,
            file,
            ..Self::without_devices(bindings)
        }
    }

    /// No device backend at all (tests feed events with [`InputHub::feed`]).
    pub fn without_devices(bindings: Bindings) -> Self {
        Self {
            source: Devices::none(),
            mapper: Mapper::new(bindings),
            nav: MenuNav::new(),
            ticker: Ticker::new(),
            events: Vec::new(),
            notices: VecDeque::new(),
            file: None,
        }
    }

    pub fn mapper(&self) -> &Mapper {
        &self.mapper
    }

    pub fn mapper_mut(&mut self) -> &mut Mapper {
        &mut self.mapper
    }

    /// The bindings flown now.
    pub fn bindings(&self) -> &Bindings {
        self.mapper.bindings()
    }

    /// Flies with `bindings` from now on and saves them (the Settings screen's "apply"). The
    /// new bindings apply even when saving fails.
    pub fn apply_bindings(&mut self, bindings: Bindings) -> Result<(), StoreError> {
        self.mapper.set_bindings(bindings);
        match &mut self.file {
            Some(f) => f.save(self.mapper.bindings()),
            None => Ok(()),
        }
    }

    /// A pilot for the flight whose state is `state`.
    pub fn pilot<'a>(&'a mut self, state: &'a mut PilotState) -> KeyboardPilot<'a> {
        KeyboardPilot::new(&mut self.mapper, state)
    }

    /// A new flight starts: controls back to an air start (the spawn trims them).
    pub fn new_flight(&mut self) {
        self.mapper.reset_controls();
    }

    /// A key went down or up in the window. `flying`: the Flight screen is up.
    pub fn key(&mut self, key: &winit::keyboard::Key, pressed: bool, repeat: bool, flying: bool) {
        if let Some(ev) = InputEvent::key(key, pressed, repeat) {
            self.mapper.event(&ev, flying);
        }
    }

    /// A mouse button went down or up in the window.
    pub fn mouse(&mut self, button: winit::event::MouseButton, pressed: bool, flying: bool) {
        let ev = InputEvent::Mouse {
            button: MouseButton::from(button),
            pressed,
        };
        self.mapper.event(&ev, flying);
    }

    /// Lets go of every key and mouse button (the window lost focus, the game paused).
    pub fn release_all(&mut self) {
        self.mapper.release_keys();
    }

    /// The game's own actions pressed since the last call (camera, views, pause, …).
    pub fn take_game_actions(&mut self) -> Vec<Action> {
        self.mapper.take_game_actions()
    }

    /// Once per frame: reads the devices (at window time `now`), hands their events to the
    /// mapper and the menu navigation, and returns the egui key events to add to this frame's
    /// input. `flying`: the Flight screen is up.
    pub fn poll(&mut self, now: Duration, flying: bool) -> Vec<egui::Event> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.source.poll(&mut events);
        let out = self.feed(&events, now, flying);
        self.events = events;
        out
    }

    /// [`InputHub::poll`] with the events given.
    pub fn feed(
        &mut self,
        events: &[DeviceEvent],
        now: Duration,
        flying: bool,
    ) -> Vec<egui::Event> {
        // The time since the last frame passed with the pads as they were: tick, then apply.
        self.nav.tick(self.ticker.advance(now));
        for ev in events {
            self.mapper.event(&InputEvent::Device(ev.clone()), flying);
            if let Some(p) = ev.pad_event() {
                self.nav.event(&p);
            }
        }
        for n in self.mapper.take_notices() {
            tracing::info!("{n}");
            if self.notices.len() >= MAX_NOTICES {
                self.notices.pop_front();
            }
            self.notices.push_back((now, n));
        }
        egui_events(&self.nav.drain(), flying)
    }

    /// The device events read by the last [`InputHub::poll`] (the Settings screen's capture
    /// sees them after the mapper).
    pub fn last_events(&self) -> &[DeviceEvent] {
        &self.events
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
    use fl_input::{DeviceInfo, DeviceKind, DeviceSlot, PadAxis, PadButton};
    use winit::keyboard::{Key, NamedKey};

    fn view(state: Option<&fl_flight::AircraftState>) -> PilotView<'_> {
        PilotView {
            seq: 0,
            ticks: 0,
            state,
            planet_radius_m: 6_371_000.0,
            seen: &[],
            faction: None,
            missile_stations: &[],
            datalink: None,
            own: None,
        }
    }

    fn parked() -> fl_flight::AircraftState {
        let mut s = fl_flight::AircraftState::flying(Vec3::new(0.0, 0.0, 0.0), 0.0, 0.0, 1_000.0);
        s.spool = 0.05;
        s.gear = 1.0;
        s.flaps = 0.5;
        s
    }

    fn hub() -> InputHub {
        InputHub::without_devices(Bindings::defaults())
    }

    fn ch(c: &str) -> Key {
        Key::Character(c.into())
    }

    #[test]
    fn the_first_state_trims_throttle_gear_and_flaps_once() {
        let mut h = hub();
        let mut s = PilotState::default();
        let spawn = parked();
        let first = h.pilot(&mut s).command(&view(Some(&spawn)));
        assert!((first.throttle - 0.05).abs() < 1e-6, "{}", first.throttle);
        assert!(first.gear_down);
        assert_eq!(first.flaps, 0.5);
        // Later states do not take the controls back from the player.
        h.key(&ch("g"), true, false, true);
        h.key(&ch("+"), true, false, true);
        let mut later = spawn;
        later.spool = 0.9;
        later.flaps = 0.0;
        let next = h.pilot(&mut s).command(&view(Some(&later)));
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
        let mut h = hub();
        let mut s = PilotState::default();
        let c = h.pilot(&mut s).command(&view(None));
        assert!((c.throttle - 0.8).abs() < 1e-6 && !c.gear_down && c.flaps == 0.0);
        let mut h = hub();
        let mut s = PilotState::default();
        let mut bad = parked();
        bad.spool = f64::NAN;
        bad.flaps = f64::INFINITY;
        let c = h.pilot(&mut s).command(&view(Some(&bad)));
        assert!((c.throttle - 0.8).abs() < 1e-6, "{}", c.throttle);
        assert_eq!(c.flaps, 0.0);
        assert!(c.gear_down);
    }

    #[test]
    fn every_control_reaches_the_clients_input() {
        let mut h = hub();
        let mut s = PilotState::default();
        for k in ["h", "o", "j", "v", "x", "x", "r", "r"] {
            h.key(&ch(k), true, false, true);
            if k == "x" || k == "r" {
                h.key(&ch(k), false, false, true);
            }
        }
        h.key(&Key::Named(NamedKey::Control), true, false, true);
        h.key(&ch("l"), true, false, true);
        h.key(&Key::Named(NamedKey::Backspace), true, false, true);
        let i = h.pilot(&mut s).command(&view(None));
        assert!(i.hook_down && i.canopy_open && i.ecm && i.chaff_flare);
        assert!(i.gun && i.fire_store && i.respawn && !i.eject);
        assert_eq!(
            i.station,
            Some(1),
            "two presses from none: the second station"
        );
        assert_eq!(i.radar, Some(RadarMode::Tws));
        // The selection stays when nothing is pressed; previous wraps.
        let i = h.pilot(&mut s).command(&view(None));
        assert_eq!((i.station, i.radar), (Some(1), Some(RadarMode::Tws)));
        for _ in 0..2 {
            h.key(&ch("z"), true, false, true);
            h.key(&ch("z"), false, false, true);
        }
        let i = h.pilot(&mut s).command(&view(None));
        assert_eq!(i.station, Some(MAX_STATIONS - 1));
        // The mouse's left button is the gun's alternate.
        h.release_all();
        h.mouse(winit::event::MouseButton::Left, true, true);
        assert!(h.pilot(&mut s).command(&view(None)).gun);
    }

    #[test]
    fn station_and_radar_steps() {
        assert_eq!(step_station(None, 0), None);
        assert_eq!(step_station(None, 1), Some(0));
        assert_eq!(step_station(None, -1), Some(MAX_STATIONS - 1));
        assert_eq!(step_station(Some(MAX_STATIONS - 1), 1), Some(0));
        assert_eq!(step_station(Some(3), -2), Some(1));
        let mut r = None;
        let mut seen = Vec::new();
        for _ in 0..4 {
            r = Some(next_radar(r));
            seen.extend(r);
        }
        assert_eq!(
            seen,
            [
                RadarMode::Search,
                RadarMode::Tws,
                RadarMode::Stt,
                RadarMode::Silent
            ]
        );
    }

    /// A foe the own radar holds (the only kind the designate key picks).
    fn foe(idx: u32, state: ContactState) -> fl_protocol::msg::combat::DatalinkTrack {
        fl_protocol::msg::combat::DatalinkTrack {
            target_idx: idx,
            type_index: 0,
            target_gen: 1,
            faction_index: 2,
            state,
            ident: fl_protocol::enums::Identification::Foe,
            sensor_type_mask: 1,
            flags: fl_protocol::msg::combat::TRACK_FLAG_OWN_SENSOR,
            rel_pos: [0.0, 0.0, -3000.0],
            rel_vel: [0.0; 3],
        }
    }

    fn picture(tracks: Vec<fl_protocol::msg::combat::DatalinkTrack>) -> Datalink {
        Datalink {
            flags: 0,
            tick_index: 100,
            origin: [0.0; 3],
            tracks,
            threats: Vec::new(),
        }
    }

    #[test]
    fn designate_presses_step_through_the_datalinks_foes_and_the_input_carries_it() {
        use fl_protocol::enums::Identification;
        let me = OwnEntity {
            idx: 7,
            generation: 1,
        };
        let mut friend = foe(4, ContactState::Detected);
        friend.ident = Identification::Friend;
        // A foe only a teammate's radar holds: the server would refuse it, so the key skips it.
        let mut teammates = foe(6, ContactState::Detected);
        teammates.flags = 0;
        let dl = picture(vec![
            foe(3, ContactState::Detected),
            friend,
            foe(5, ContactState::Coasting),
            teammates,
            foe(7, ContactState::Detected),
        ]);
        let mut h = hub();
        let mut s = PilotState::default();
        let tick = |h: &mut InputHub, s: &mut PilotState, own, dl: Option<&Datalink>| {
            let mut v = view(None);
            v.own = own;
            v.datalink = dl;
            h.pilot(s).command(&v).designate
        };
        let tap = |h: &mut InputHub| {
            h.key(&ch("n"), true, false, true);
            h.key(&ch("n"), false, false, true);
        };
        // Nothing designated yet: nothing is sent (STT keeps picking the nearest by itself).
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), None);
        // Presses with no picture, or no aircraft, designate nothing.
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), None), None);
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, None, Some(&dl)), None);
        // Each press: the next foe the own sensors hold, never the friend, the teammates' foe
        // or the own track, wrapping.
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), Some(3));
        assert_eq!(
            tick(&mut h, &mut s, Some(me), Some(&dl)),
            Some(3),
            "it stands"
        );
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), Some(5));
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), Some(3));
        assert_eq!(s.designated(), Some(3));
        // Two presses in one tick step twice.
        tap(&mut h);
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), Some(3));
        // The target leaves the picture (its track lost, then gone): cleared, and the clear is
        // sent while it stands.
        let lost = picture(vec![
            foe(3, ContactState::Lost),
            foe(5, ContactState::Coasting),
        ]);
        assert_eq!(
            tick(&mut h, &mut s, Some(me), Some(&lost)),
            Some(DESIGNATE_NONE)
        );
        assert_eq!(s.designated(), None);
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&lost)), Some(5));
        let gone = picture(vec![foe(3, ContactState::Detected)]);
        assert_eq!(
            tick(&mut h, &mut s, Some(me), Some(&gone)),
            Some(DESIGNATE_NONE)
        );
        // A respawn (a new own entity) drops the designation even though the target is held.
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(me), Some(&dl)), Some(3));
        let reborn = OwnEntity {
            idx: 7,
            generation: 2,
        };
        assert_eq!(
            tick(&mut h, &mut s, Some(reborn), Some(&dl)),
            Some(DESIGNATE_NONE)
        );
        tap(&mut h);
        assert_eq!(tick(&mut h, &mut s, Some(reborn), Some(&dl)), Some(3));
        assert_eq!(tick(&mut h, &mut s, None, Some(&dl)), Some(DESIGNATE_NONE));
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
        let mut flying = egui_events(&all, true);
        assert_eq!(keys_of(&flying), [(K::Escape, true), (K::Escape, false)]);
        // The pause binding adds no second Escape when Start already paused.
        add_pause(&mut flying);
        assert_eq!(keys_of(&flying).len(), 2);
        let mut none = Vec::new();
        add_pause(&mut none);
        assert_eq!(keys_of(&none), [(K::Escape, true), (K::Escape, false)]);
    }

    fn pad_connected(slot: DeviceSlot) -> DeviceEvent {
        DeviceEvent::Connected {
            slot,
            info: DeviceInfo {
                name: "Test Pad".into(),
                uuid: [0; 16],
                kind: DeviceKind::Gamepad,
            },
        }
    }

    #[test]
    fn hot_plug_is_noticed_and_the_keyboard_keeps_flying() {
        let pad = DeviceSlot(0);
        let mut h = hub();
        let mut s = PilotState::default();
        let t = |s: u64| Duration::from_secs(s);
        h.feed(
            &[
                pad_connected(pad),
                DeviceEvent::Axis {
                    slot: pad,
                    code: 0,
                    named: Some(PadAxis::LeftX),
                    value: 1.0,
                },
            ],
            t(1),
            true,
        );
        assert_eq!(h.mapper().controls().roll, 1.0);
        let ui = h.feed(&[DeviceEvent::Disconnected { slot: pad }], t(2), true);
        assert!(ui.is_empty());
        assert_eq!(h.mapper().controls().roll, 0.0, "the pad let go");
        assert_eq!(
            h.notices(t(3)).collect::<Vec<_>>(),
            [
                "Gamepad \"Test Pad\" connected",
                "Gamepad \"Test Pad\" disconnected — the keyboard still flies"
            ]
        );
        assert_eq!(h.notices(t(16)).count(), 1, "the first has gone");
        assert_eq!(h.notices(t(30)).count(), 0);
        h.key(&ch("a"), true, false, true);
        for _ in 0..20 {
            h.pilot(&mut s).command(&view(None));
        }
        assert_eq!(h.mapper().controls().roll, -1.0);
    }

    #[test]
    fn a_pad_drives_the_menus_and_pauses_the_flight() {
        let pad = DeviceSlot(2);
        let mut h = hub();
        let press = |b| DeviceEvent::Button {
            slot: pad,
            code: 300 + b as u32,
            named: Some(b),
            pressed: true,
        };
        let ui = h.feed(
            &[
                pad_connected(pad),
                press(PadButton::DPadDown),
                press(PadButton::South),
            ],
            Duration::ZERO,
            false,
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
            repeats += keys_of(&h.feed(&[], Duration::from_millis(10 * f), false)).len();
        }
        assert_eq!(
            repeats,
            2 * 2,
            "two repeats (at 0.4 s and 0.5 s), each a tap"
        );
        let ui = h.feed(&[press(PadButton::Start)], Duration::from_secs(1), true);
        assert_eq!(
            keys_of(&ui),
            [(egui::Key::Escape, true), (egui::Key::Escape, false)]
        );
    }

    #[test]
    fn applied_bindings_fly_at_once_and_are_saved_as_differences() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("bindings.toml");
        let loaded = fl_input::store::load(&path);
        let mut h = InputHub::without_devices(loaded.bindings);
        h.file = Some(loaded.file);
        let mut b = h.bindings().clone();
        b.set(
            &fl_input::Source::Keyboard,
            Action::Gear,
            fl_input::Slot::Primary,
            fl_input::Binding::key("L"),
        )
        .expect("valid");
        h.apply_bindings(b.clone()).expect("saved");
        h.key(&ch("l"), true, false, true);
        assert!(h.mapper().controls().gear_down);
        let text = std::fs::read_to_string(&path).expect("written");
        assert!(
            text.contains("primary = \"L\"") && !text.contains("\"W\""),
            "{text}"
        );
        assert_eq!(fl_input::store::load(&path).bindings, b);
    }

    #[test]
    fn a_new_flight_resets_the_controls_but_keeps_the_devices() {
        let mut h = hub();
        h.feed(&[pad_connected(DeviceSlot(0))], Duration::ZERO, true);
        h.key(&ch("g"), true, false, true);
        assert!(h.mapper().controls().gear_down);
        h.new_flight();
        assert!(!h.mapper().controls().gear_down);
        assert_eq!(h.mapper().devices().len(), 1);
    }
}
