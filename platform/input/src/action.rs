//! What a binding can drive: every control the client's input message carries, the keyboard's
//! axis emulation (pitch up, throttle down, …) and the game's own actions (camera, pause, …),
//! with the names `bindings.toml` and the Settings screen use.
//!
//! Owns the action list, each action's [`ActionKind`] (axis, held, toggle, …) and its names.
//! Must not hold state or know which input drives an action (that is [`crate::binding`]).

/// One thing the player can bind an input to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Stick aft (+) / forward (−), from an axis.
    Pitch,
    /// Stick right (+) / left (−), from an axis.
    Roll,
    /// Right pedal (+) / left (−), from an axis.
    Yaw,
    /// An absolute throttle lever (idle … military, the afterburner past its detent).
    Throttle,
    /// Stick back (nose up) while held: the keyboard's pitch axis.
    PitchUp,
    /// Stick forward (nose down) while held.
    PitchDown,
    RollLeft,
    RollRight,
    YawLeft,
    YawRight,
    /// Throttle forward while held (an analogue trigger: faster the further pulled).
    ThrottleUp,
    ThrottleDown,
    /// Toggles.
    Afterburner,
    /// Toggles the gear.
    Gear,
    /// Steps the flaps 0 → ½ → 1 → 0.
    Flaps,
    /// Toggles.
    SpeedBrake,
    /// Held.
    WheelBrake,
    /// Held: the gun fires.
    Gun,
    /// Held: release the selected store (the server edge-detects it).
    FireStore,
    /// Pressed: the next weapon station.
    StationNext,
    StationPrev,
    /// Pressed: the next radar mode.
    RadarMode,
    /// Pressed: designate the next hostile track of the datalink (the radar's STT target).
    Designate,
    /// Toggles the arresting hook.
    Hook,
    /// Toggles the canopy.
    Canopy,
    /// Held: dispense chaff and flares.
    ChaffFlare,
    /// Toggles the jammer.
    Ecm,
    /// Held for [`EJECT_HOLD_TICKS`](crate::mapper::EJECT_HOLD_TICKS) to eject.
    Eject,
    /// Held: ask for a respawn (the server edge-detects it).
    Respawn,
    /// The game's: the next camera (cockpit, chase, fly-by, free).
    CameraNext,
    /// View the next aircraft.
    ViewNext,
    ViewPrev,
    /// The pause menu (Esc always pauses besides this binding).
    Pause,
    Screenshot,
    /// Show or hide the net graph.
    NetGraph,
    /// Open the chat line.
    Chat,
}

/// How an action reads its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// A centred axis, −1 … 1 (stick, pedals). Only device axes bind to it.
    Axis,
    /// An absolute lever, 0 … 1 (the throttle). Only device axes bind to it.
    Lever,
    /// Moves an axis or the throttle while held, in proportion to how far its input is
    /// pressed (a key: fully; a trigger: as far as pulled).
    Rate,
    /// On while held.
    Held,
    /// Flips a state on each press.
    Toggle,
    /// Counts presses (flaps step, station and radar select, designation).
    Step,
    /// One of the game's own actions, reported once per press.
    Game,
}

/// Groups for the Settings screen's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActionGroup {
    Flight,
    Systems,
    Weapons,
    Game,
}

impl Action {
    /// Every action, in the order the Settings screen lists them.
    pub const ALL: [Action; 36] = [
        Action::Pitch,
        Action::Roll,
        Action::Yaw,
        Action::Throttle,
        Action::PitchUp,
        Action::PitchDown,
        Action::RollLeft,
        Action::RollRight,
        Action::YawLeft,
        Action::YawRight,
        Action::ThrottleUp,
        Action::ThrottleDown,
        Action::Afterburner,
        Action::Gear,
        Action::Flaps,
        Action::SpeedBrake,
        Action::WheelBrake,
        Action::Hook,
        Action::Canopy,
        Action::Eject,
        Action::Respawn,
        Action::Gun,
        Action::FireStore,
        Action::StationNext,
        Action::StationPrev,
        Action::RadarMode,
        Action::Designate,
        Action::ChaffFlare,
        Action::Ecm,
        Action::CameraNext,
        Action::ViewNext,
        Action::ViewPrev,
        Action::Pause,
        Action::Screenshot,
        Action::NetGraph,
        Action::Chat,
    ];

    pub fn kind(self) -> ActionKind {
        use Action as A;
        match self {
            A::Pitch | A::Roll | A::Yaw => ActionKind::Axis,
            A::Throttle => ActionKind::Lever,
            A::PitchUp
            | A::PitchDown
            | A::RollLeft
            | A::RollRight
            | A::YawLeft
            | A::YawRight
            | A::ThrottleUp
            | A::ThrottleDown => ActionKind::Rate,
            A::WheelBrake | A::Gun | A::FireStore | A::ChaffFlare | A::Eject | A::Respawn => {
                ActionKind::Held
            }
            A::Afterburner | A::Gear | A::SpeedBrake | A::Hook | A::Canopy | A::Ecm => {
                ActionKind::Toggle
            }
            A::Flaps | A::StationNext | A::StationPrev | A::RadarMode | A::Designate => {
                ActionKind::Step
            }
            A::CameraNext
            | A::ViewNext
            | A::ViewPrev
            | A::Pause
            | A::Screenshot
            | A::NetGraph
            | A::Chat => ActionKind::Game,
        }
    }

    /// Only a device axis can drive it (no key or button).
    pub fn needs_axis(self) -> bool {
        matches!(self.kind(), ActionKind::Axis | ActionKind::Lever)
    }

    pub fn group(self) -> ActionGroup {
        use Action as A;
        match self {
            A::Pitch
            | A::Roll
            | A::Yaw
            | A::Throttle
            | A::PitchUp
            | A::PitchDown
            | A::RollLeft
            | A::RollRight
            | A::YawLeft
            | A::YawRight
            | A::ThrottleUp
            | A::ThrottleDown
            | A::Afterburner => ActionGroup::Flight,
            A::Gear
            | A::Flaps
            | A::SpeedBrake
            | A::WheelBrake
            | A::Hook
            | A::Canopy
            | A::Eject
            | A::Respawn => ActionGroup::Systems,
            A::Gun
            | A::FireStore
            | A::StationNext
            | A::StationPrev
            | A::RadarMode
            | A::Designate => ActionGroup::Weapons,
            A::ChaffFlare | A::Ecm => ActionGroup::Weapons,
            A::CameraNext
            | A::ViewNext
            | A::ViewPrev
            | A::Pause
            | A::Screenshot
            | A::NetGraph
            | A::Chat => ActionGroup::Game,
        }
    }

    /// The name in `bindings.toml` (snake case, stable across versions).
    pub fn name(self) -> &'static str {
        use Action as A;
        match self {
            A::Pitch => "pitch",
            A::Roll => "roll",
            A::Yaw => "yaw",
            A::Throttle => "throttle",
            A::PitchUp => "pitch_up",
            A::PitchDown => "pitch_down",
            A::RollLeft => "roll_left",
            A::RollRight => "roll_right",
            A::YawLeft => "yaw_left",
            A::YawRight => "yaw_right",
            A::ThrottleUp => "throttle_up",
            A::ThrottleDown => "throttle_down",
            A::Afterburner => "afterburner",
            A::Gear => "gear",
            A::Flaps => "flaps",
            A::SpeedBrake => "speed_brake",
            A::WheelBrake => "wheel_brake",
            A::Gun => "gun",
            A::FireStore => "fire_store",
            A::StationNext => "station_next",
            A::StationPrev => "station_prev",
            A::RadarMode => "radar_mode",
            A::Designate => "designate",
            A::Hook => "hook",
            A::Canopy => "canopy",
            A::ChaffFlare => "chaff_flare",
            A::Ecm => "ecm",
            A::Eject => "eject",
            A::Respawn => "respawn",
            A::CameraNext => "camera_next",
            A::ViewNext => "view_next",
            A::ViewPrev => "view_prev",
            A::Pause => "pause",
            A::Screenshot => "screenshot",
            A::NetGraph => "net_graph",
            A::Chat => "chat",
        }
    }

    /// The action a `bindings.toml` name stands for.
    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }

    /// What the Settings screen and the help call it.
    pub fn label(self) -> &'static str {
        use Action as A;
        match self {
            A::Pitch => "pitch (stick fore / aft)",
            A::Roll => "roll (stick left / right)",
            A::Yaw => "rudder",
            A::Throttle => "throttle lever",
            A::PitchUp => "nose up",
            A::PitchDown => "nose down",
            A::RollLeft => "roll left",
            A::RollRight => "roll right",
            A::YawLeft => "rudder left",
            A::YawRight => "rudder right",
            A::ThrottleUp => "throttle up",
            A::ThrottleDown => "throttle down",
            A::Afterburner => "afterburner on / off",
            A::Gear => "gear up / down",
            A::Flaps => "flaps: up, half, full",
            A::SpeedBrake => "speed brake in / out",
            A::WheelBrake => "wheel brakes (hold)",
            A::Gun => "gun (hold)",
            A::FireStore => "release the selected store",
            A::StationNext => "next weapon station",
            A::StationPrev => "previous weapon station",
            A::RadarMode => "next radar mode",
            A::Designate => "designate the next target",
            A::Hook => "hook up / down",
            A::Canopy => "canopy open / closed",
            A::ChaffFlare => "chaff and flares (hold)",
            A::Ecm => "jammer on / off",
            A::Eject => "eject (hold 1 s)",
            A::Respawn => "respawn",
            A::CameraNext => "next camera: cockpit, chase, fly-by, free",
            A::ViewNext => "view the next aircraft",
            A::ViewPrev => "view the previous aircraft",
            A::Pause => "pause menu",
            A::Screenshot => "screenshot",
            A::NetGraph => "net graph",
            A::Chat => "chat",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Action::ALL.len());
        for a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(a));
            assert!(!a.label().is_empty());
        }
        assert_eq!(Action::from_name("warp_drive"), None);
    }

    #[test]
    fn only_axes_and_levers_need_an_axis() {
        let axes: Vec<Action> = Action::ALL.into_iter().filter(|a| a.needs_axis()).collect();
        assert_eq!(
            axes,
            [Action::Pitch, Action::Roll, Action::Yaw, Action::Throttle]
        );
        assert_eq!(Action::Gear.kind(), ActionKind::Toggle);
        assert_eq!(Action::ThrottleUp.kind(), ActionKind::Rate);
        assert_eq!(Action::Screenshot.kind(), ActionKind::Game);
        assert_eq!(Action::Designate.kind(), ActionKind::Step);
        assert_eq!(Action::from_name("designate"), Some(Action::Designate));
    }
}
