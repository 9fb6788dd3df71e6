//! The plain data that crosses the seam between scripts and the host: what a script reads
//! (its own aircraft, contacts, entities), what it returns (controls) and what it asks of the
//! world (events), plus the [`ScriptHost`] trait the server implements.
//!
//! Owns: the shapes and the bounds of that data. Must not: know the server's entity types.
//! Frames: positions and velocities are world-frame (right-handed, Y up, planet centre at
//! (0, −R, 0), metres and m/s); quaternions rotate body (+X nose, +Y up, +Z right wing) into
//! world.

use fl_flight::math::{Quat, Vec3};

/// The scripted aircraft's own state, handed to `compute_control` as `state`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AircraftView {
    /// Entity index (pool index), `state.idx`.
    pub idx: u32,
    /// World position, m.
    pub pos: Vec3,
    /// World velocity, m/s.
    pub vel: Vec3,
    /// Orientation, body → world.
    pub quat: Quat,
    /// Faction (0 = neutral).
    pub faction: u8,
    /// Hit points left.
    pub hp: f64,
    /// Hit points when intact.
    pub max_hp: f64,
    /// 0 intact, 1 light, 2 heavy, 3 critical, 4 destroyed.
    pub damage_level: u8,
    /// Destroyed (controllers are normally not called then).
    pub dead: bool,
    /// Flown by a player.
    pub player_owned: bool,
    /// Owning peer id, 0 for the server/AI.
    pub owner_id: u32,
    /// Entity type index in the server's registry.
    pub type_index: u32,
}

impl Default for AircraftView {
    fn default() -> Self {
        Self {
            idx: 0,
            pos: Vec3::ZERO,
            vel: Vec3::ZERO,
            quat: Quat::IDENTITY,
            faction: 0,
            hp: 1.0,
            max_hp: 1.0,
            damage_level: 0,
            dead: false,
            player_owned: false,
            owner_id: 0,
            type_index: 0,
        }
    }
}

/// How firmly a sensor holds a contact (`contact.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactState {
    /// Seen in a search lobe: bearing, no firing-quality track (`"detected"`).
    Detected,
    /// Held in a track lobe (`"locked"`).
    Locked,
    /// Was held; geometry lost; running out its hold time on last-known state (`"coasting"`).
    Coasting,
}

impl ContactState {
    /// The name scripts compare against.
    pub fn as_str(self) -> &'static str {
        match self {
            ContactState::Detected => "detected",
            ContactState::Locked => "locked",
            ContactState::Coasting => "coasting",
        }
    }
}

/// One sensor contact of the scripted entity (honest sensing: last-known values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The target's entity index.
    pub idx: u32,
    /// Last-known world position, m.
    pub pos: Vec3,
    /// Last-known world velocity, m/s.
    pub vel: Vec3,
    /// The target's faction (0 = neutral).
    pub faction: u8,
    /// Seconds since the target was last actually seen (0 while seen).
    pub age_s: f64,
    /// The reaction delay has elapsed: the pilot has noticed it.
    pub reacted: bool,
    /// Track quality.
    pub state: ContactState,
}

/// One hit of a ground-truth radius query (`nearby_entities`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NearbyEntity {
    /// Entity index.
    pub idx: u32,
    /// World position, m.
    pub pos: Vec3,
}

/// Ground truth about one entity (`get_entity`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntityInfo {
    /// Entity index.
    pub idx: u32,
    /// World position, m.
    pub pos: Vec3,
    /// World velocity, m/s.
    pub vel: Vec3,
    /// Orientation, body → world.
    pub quat: Quat,
    /// Faction (0 = neutral).
    pub faction: u8,
    /// Destroyed.
    pub dead: bool,
    /// Flown by a player.
    pub player_owned: bool,
}

/// The spec's music states (`MsgMusicState`'s GameState ordinal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MusicState {
    /// Ordinal 0, script name `"menu"`.
    Menu = 0,
    /// Ordinal 1, script name `"patrol"`.
    FlightPatrol = 1,
    /// Ordinal 2, script name `"combat"`.
    FlightCombat = 2,
    /// Ordinal 3, script name `"success"`.
    MissionSuccess = 3,
    /// Ordinal 4, script name `"debrief"`.
    Debrief = 4,
}

impl MusicState {
    /// The state a script's name asks for (the C++ original's vocabulary), if it is one.
    pub fn from_script_name(name: &str) -> Option<Self> {
        Some(match name {
            "menu" => MusicState::Menu,
            "patrol" => MusicState::FlightPatrol,
            "combat" => MusicState::FlightCombat,
            "success" => MusicState::MissionSuccess,
            "debrief" => MusicState::Debrief,
            _ => return None,
        })
    }

    /// The wire ordinal.
    pub fn ordinal(self) -> u32 {
        self as u32
    }
}

/// What a `world.*` call asks of the mission.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldAction {
    /// `world.mission_success()`.
    MissionSuccess,
    /// `world.mission_failure()`.
    MissionFailure,
    /// `world.score_objective(faction, points)`.
    ScoreObjective {
        /// The coalition credited.
        faction: u8,
        /// Points (−1000…1000).
        points: i32,
    },
    /// `world.set_music_state(name)`.
    SetMusic(MusicState),
}

/// Something a script did that the host acts on, in call order.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptEvent {
    /// A world action.
    World(WorldAction),
    /// `say(text)`: a radio line (≤ 160 bytes, the wire's text field).
    Say(String),
    /// `print(...)`: a log line (≤ 512 bytes).
    Print(String),
}

/// The world a script runs against. The server implements it over its entity table and
/// sensing; tests use mocks. Queries are read-only; events come after each call.
pub trait ScriptHost {
    /// The scripted entity's contacts (honest sensing). Empty when sensing was not evaluated.
    fn detected_contacts(&self) -> Vec<Contact>;
    /// Entities within `radius_m` of (x, z) in the world XZ plane (ground truth; may include a
    /// few outside the exact circle).
    fn nearby_entities(&self, x: f64, z: f64, radius_m: f64) -> Vec<NearbyEntity>;
    /// Ground truth about entity `idx`, `None` if there is none.
    fn get_entity(&self, idx: u32) -> Option<EntityInfo>;
    /// Mission time, s: `world.get_elapsed_time()` and `os.clock()`.
    fn elapsed_s(&self) -> f64;
    /// Receives each event the last call produced, in order.
    fn event(&mut self, event: ScriptEvent);
}

/// A host with no world: no contacts, no entities, time 0, events dropped.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullHost;

impl ScriptHost for NullHost {
    fn detected_contacts(&self) -> Vec<Contact> {
        Vec::new()
    }
    fn nearby_entities(&self, _: f64, _: f64, _: f64) -> Vec<NearbyEntity> {
        Vec::new()
    }
    fn get_entity(&self, _: u32) -> Option<EntityInfo> {
        None
    }
    fn elapsed_s(&self) -> f64 {
        0.0
    }
    fn event(&mut self, _: ScriptEvent) {}
}

/// The controls a controller script returns, bounded: sticks in [−1, 1], throttle and
/// speedbrake in [0, 1]; NaN or ±∞ read as 0; a missing field is 0 / false / `None`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScriptControls {
    /// +1 rolls right.
    pub aileron: f64,
    /// +1 pulls (nose up).
    pub elevator: f64,
    /// +1 yaws the nose right.
    pub rudder: f64,
    /// 0 idle … 1 MIL.
    pub throttle: f64,
    /// 0 retracted … 1 deployed.
    pub speedbrake: f64,
    /// Afterburner on.
    pub afterburner: bool,
    /// Gear down.
    pub gear_down: bool,
    /// Gun trigger held (level).
    pub trigger: bool,
    /// Release the selected store (the server edge-detects).
    pub release: bool,
    /// Absolute station to select (0…254); `None` keeps the current selection.
    pub weapon_station: Option<u8>,
}
