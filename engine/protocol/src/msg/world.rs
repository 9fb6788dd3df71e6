//! Flight and world-state messages other than the snapshot: `MsgClientInput`,
//! `MsgHeartbeat`, `MsgPeerDelay`, `MsgWeatherState`, `MsgServerNotice`,
//! `MsgAlertLevelChange`, `MsgFactionDef`, `MsgMissionRoster`, `MsgMusicState`, `MsgHaptic`
//! and `MsgMissionOutcome`.

use crate::enums::{
    AlertLevel, GameState, HapticKind, MissionResultCode, RadarMode, WeatherPreset, ids,
};
use crate::field::FixedStr;
use crate::layout::wire_struct;
use crate::msg::{concatenated_message, fixed_message};

wire_struct! {
    /// Client → server, one per 60 Hz input tick, unreliable.
    pub struct ClientInput ("MsgClientInput", 80) {
        @0 msgId = 0x03;
        /// `enums::buttons` bits.
        @1 buttons buttons: u8;
        @2 protocolVersion protocol_version: u16;
        /// Per-client monotonic counter (half-window compared).
        @4 seqNum seq_num: u32;
        /// Last snapshot tick received: the ack high-water mark.
        @8 tickIndex tick_index: u64;
        @16 throttle throttle: f32;
        /// Nose-up positive.
        @20 elevator elevator: f32;
        /// Right-roll positive.
        @24 aileron aileron: f32;
        /// Right-yaw positive.
        @28 rudder rudder: f32;
        /// Camera look direction (world frame).
        @32 viewAxis view_axis: [f32; 3];
        /// Selective ack: bit b = tick `tickIndex − 1 − b` was decoded.
        @44 ackMask ack_mask: u32;
        /// Absolute station index; 255 = keep.
        @48 selectedStation selected_station: u8;
        /// `RadarMode` ordinal; 255 = keep.
        @49 radarMode radar_mode: u8;
        /// Commanded flaps, 0..255 ⇒ 0..1.
        @50 flaps flaps: u8;
        /// Commanded speed brake, 0..255 ⇒ 0..1.
        @51 speedbrake speedbrake: u8;
        /// `enums::art_buttons` bits (absolute state).
        @52 artButtons art_buttons: u8;
        @53 reservedC pad 3;
        /// Camera eye position (observer interest).
        @56 cameraEye camera_eye: [f64; 3];
    }
}

impl ClientInput {
    /// The requested radar mode: `None` = keep the current one (255) or an unknown ordinal.
    pub fn radar_mode(&self) -> Option<RadarMode> {
        RadarMode::from_u8(self.radar_mode)
    }

    /// Whether the station byte asks to keep the current selection.
    pub fn keeps_station(&self) -> bool {
        self.selected_station == ids::KEEP_CURRENT
    }
}

wire_struct! {
    /// Client → server liveness and ack stamp at ~1 Hz.
    pub struct Heartbeat ("MsgHeartbeat", 16) {
        @0 msgId = 0x0B;
        @1 reserved pad 3;
        @4 ackMask ack_mask: u32;
        @8 tickIndex tick_index: u64;
    }
}

wire_struct! {
    /// Server → client reply to a heartbeat.
    pub struct PeerDelay ("MsgPeerDelay", 4) {
        @0 msgId = 0x0C;
        @1 reserved pad 1;
        /// Estimated delay in ticks; 0 = no estimate yet.
        @2 delayTicks delay_ticks: u16;
    }
}

wire_struct! {
    /// Server → client weather and time of day, every 10 ticks.
    pub struct WeatherState ("MsgWeatherState", 32) {
        @0 msgId = 0x04;
        @1 preset preset: WeatherPreset;
        /// Hours × 10, 0..=239.
        @2 timeOfDayTenths time_of_day_tenths: u16;
        @4 fogDensity fog_density: f32;
        @8 fogStartDist fog_start_dist: f32;
        /// Blowing-toward, world frame, gust included.
        @12 windX wind_x: f32;
        @16 windZ wind_z: f32;
        /// Feeds the deterministic turbulence function on both sides.
        @20 turbulenceAmp turbulence_amp: f32;
        @24 utcJulianDay utc_julian_day: f64;
    }
}

wire_struct! {
    /// Server → client shutdown countdown notice.
    pub struct ServerNotice ("MsgServerNotice", 64) {
        @0 msgId = 0x05;
        @1 reserved pad 1;
        /// 0 = shutting down now.
        @2 secondsRemaining seconds_remaining: u16;
        @4 text text: FixedStr<60>;
    }
}

wire_struct! {
    /// Server → client: one faction's readiness posture.
    pub struct AlertLevelChange ("MsgAlertLevelChange", 4) {
        @0 msgId = 0x26;
        @1 level level: AlertLevel;
        @2 factionIndex faction_index: u16;
    }
}

wire_struct! {
    /// One faction (a `MsgFactionDef` packet is a run of these).
    pub struct FactionDefRecord ("MsgFactionDef", 132) {
        @0 msgId = 0x10;
        @1 reserved pad 1;
        @2 factionIndex faction_index: u16;
        @4 id id: FixedStr<64>;
        /// Empty = fall back to the id.
        @68 name name: FixedStr<64>;
    }
}

/// Server → client faction table (concatenated records).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FactionDef {
    pub records: Vec<FactionDefRecord>,
}

concatenated_message!(FactionDef => FactionDef, FactionDefRecord);

wire_struct! {
    /// One mission object binding (a `MsgMissionRoster` packet is a run of these).
    pub struct MissionRosterRecord ("MsgMissionRoster", 72) {
        @0 msgId = 0x1B;
        @1 reserved pad 1;
        @2 entityGen entity_gen: u16;
        @4 entityIdx entity_idx: u32;
        @8 objectId object_id: FixedStr<64>;
    }
}

/// Server → client mission object table (concatenated records).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MissionRoster {
    pub records: Vec<MissionRosterRecord>,
}

concatenated_message!(MissionRoster => MissionRoster, MissionRosterRecord);

wire_struct! {
    /// Server → client music-state request from a mission script.
    pub struct MusicState ("MsgMusicState", 4) {
        @0 msgId = 0x16;
        @1 state state: GameState;
        @2 reserved pad 2;
    }
}

wire_struct! {
    /// Server → client scripted rumble.
    pub struct Haptic ("MsgHaptic", 12) {
        @0 msgId = 0x17;
        @1 kind kind: HapticKind;
        /// 0..=5000 ms.
        @2 durationMs duration_ms: u16;
        /// Low-frequency motor / left trigger, 0..1.
        @4 a a: f32;
        /// High-frequency motor / right trigger, 0..1.
        @8 b b: f32;
    }
}

wire_struct! {
    /// Server → client terminal mission outcome.
    pub struct MissionOutcome ("MsgMissionOutcome", 8) {
        @0 msgId = 0x18;
        @1 outcome outcome: MissionResultCode;
        @2 triggersFired triggers_fired: u16;
        @4 elapsedSeconds elapsed_seconds: f32;
    }
}

fixed_message!(
    ClientInput => ClientInput,
    Heartbeat => Heartbeat,
    PeerDelay => PeerDelay,
    WeatherState => WeatherState,
    ServerNotice => ServerNotice,
    AlertLevelChange => AlertLevelChange,
    MusicState => MusicState,
    Haptic => Haptic,
    MissionOutcome => MissionOutcome,
);
