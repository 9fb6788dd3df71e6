//! Every enum ordinal the wire carries, with its gating rule.
//!
//! Ordinals are a wire contract: renumbering one silently changes what a byte means to every
//! connected peer, so variants are only ever appended. An unknown ordinal is either a typed
//! decode error (`reject`) or the spec's documented fallback (`fallback X`). Fields whose spec
//! asks the receiver to *answer* an unknown value (a wingman order ≥ 6 is answered `Rejected`,
//! unknown combat-event or effect types are skipped) stay raw `u8` in their message and are
//! interpreted with `from_u8`. Bit masks (flags, capabilities) are plain integers with named
//! constants here.

use crate::layout::wire_enum;

wire_enum! {
    /// The role a peer joins as (`requestedRole`, `grantedRole`, roster `role`).
    pub enum PeerRole (reject) {
        Pilot = 0,
        Observer = 1,
    }
}

wire_enum! {
    /// `MsgConnectRefusal::code`. Unknown codes fall back to `Generic` (the reason text still
    /// explains).
    pub enum ConnectRefusalCode (fallback Generic) {
        Generic = 0,
        Banned = 1,
        AccessDenied = 2,
        RateLimited = 3,
        TooManyConnections = 4,
        AdminLockout = 5,
        RoleDenied = 6,
        MissingRequiredPack = 7,
        EntitlementRequired = 8,
        MatchFull = 9,
        BadPassword = 10,
        /// The world is at its entity cap; retryable.
        ServerFull = 11,
        /// No spawnable player aircraft: an operator configuration fault, not retryable.
        NoAirframe = 12,
    }
}

impl ConnectRefusalCode {
    /// Whether trying again later may succeed.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::TooManyConnections | Self::MatchFull | Self::ServerFull
        )
    }
}

wire_enum! {
    /// `MsgWeatherState::preset`.
    pub enum WeatherPreset (reject) {
        Clear = 0,
        PartlyCloudy = 1,
        Overcast = 2,
        Rain = 3,
        Storm = 4,
        Snow = 5,
        Blizzard = 6,
    }
}

wire_enum! {
    /// A faction's airspace readiness posture (`MsgAlertLevelChange::level`).
    pub enum AlertLevel (reject) {
        Peacetime = 0,
        Elevated = 1,
        Conflict = 2,
        WarState = 3,
    }
}

wire_enum! {
    /// `MsgEntityTypeDef::category`; an invalid byte reads as `AirVehicle`.
    pub enum ObjectCategory (fallback AirVehicle) {
        AirVehicle = 0,
        GroundVehicle = 1,
        NavalVehicle = 2,
        Projectile = 3,
        Effect = 4,
        Player = 5,
        Structure = 6,
    }
}

wire_enum! {
    /// `MsgEntityTypeDef::projectileKind`; an invalid byte reads as `None`.
    pub enum ProjectileKind (fallback None) {
        None = 0,
        Missile = 1,
        Bomb = 2,
        Rocket = 3,
    }
}

wire_enum! {
    /// `CrewRosterSeat::occupancy`.
    pub enum SeatOccupancy (reject) {
        Empty = 0,
        Bot = 1,
        Human = 2,
    }
}

wire_enum! {
    /// `MsgSeatResult::code`.
    pub enum SeatResultCode (reject) {
        Granted = 0,
        NoSuchEntity = 1,
        NotCrewed = 2,
        NoSuchSeat = 3,
        SeatOccupiedByHuman = 4,
        FlySeatNotJoinable = 5,
        NotInSeat = 6,
    }
}

wire_enum! {
    /// A datalink track's contact state.
    pub enum ContactState (reject) {
        Lost = 0,
        Detected = 1,
        Locked = 2,
        Coasting = 3,
    }
}

wire_enum! {
    /// The display-safe IFF fact of a track or emitter.
    pub enum Identification (reject) {
        Unknown = 0,
        Friend = 1,
        Foe = 2,
    }
}

wire_enum! {
    /// Sensor kinds (`DatalinkThreat::channel`; `sensorTypeMask` bit = `1 << ordinal`).
    pub enum SensorType (reject) {
        Visual = 0,
        Ir = 1,
        Radar = 2,
        Laser = 3,
    }
}

wire_enum! {
    /// RWR strobe level: search, lock tone, or a radar-guided missile guiding on you.
    pub enum ThreatLevel (reject) {
        Search = 0,
        Lock = 1,
        Launch = 2,
    }
}

wire_enum! {
    /// How a voice net chooses its listeners.
    pub enum RadioNetKind (reject) {
        Global = 0,
        Team = 1,
        Flight = 2,
        Proximity = 3,
        Atc = 4,
    }
}

wire_enum! {
    /// Music state requested by a mission script (`MsgMusicState::state`).
    pub enum GameState (reject) {
        Menu = 0,
        FlightPatrol = 1,
        FlightCombat = 2,
        MissionSuccess = 3,
        Debrief = 4,
    }
}

wire_enum! {
    /// Scripted rumble kind (`MsgHaptic::kind`).
    pub enum HapticKind (reject) {
        Rumble = 0,
        Triggers = 1,
        Stop = 2,
    }
}

wire_enum! {
    /// `MsgMissionOutcome::outcome`.
    pub enum MissionResultCode (reject) {
        Incomplete = 0,
        Success = 1,
        Failure = 2,
    }
}

wire_enum! {
    /// Chat routing.
    pub enum ChatChannel (reject) {
        All = 0,
        Team = 1,
    }
}

wire_enum! {
    /// `MsgMatchState::phase`.
    pub enum MatchPhase (reject) {
        Idle = 0,
        Warmup = 1,
        Active = 2,
        Ending = 3,
        PostMatch = 4,
    }
}

wire_enum! {
    /// Outcome codes of `MsgWingmanAck::result` (machine-readable, localised by the client).
    pub enum WingmanResult (reject) {
        Acknowledged = 0,
        NoFlight = 1,
        NoTarget = 2,
        Unavailable = 3,
        Rejected = 4,
        RateLimited = 5,
        CheckIn = 6,
        Relayed = 7,
        NotLead = 8,
    }
}

wire_enum! {
    /// Formation orders (`MsgWingmanCommand::command`, raw on the wire: an unknown ordinal is
    /// answered with `WingmanResult::Rejected`, so the message must still decode).
    pub enum WingmanCommand (reject) {
        AttackMyTarget = 0,
        EngageBandits = 1,
        Rejoin = 2,
        CoverMe = 3,
        HoldFire = 4,
        ReturnToBase = 5,
    }
}

wire_enum! {
    /// `CombatEventRecord::type` (raw on the wire; unknown types are skipped). `Shots` is our
    /// additive record (docs/protocol.md): the receiving peer's own a = shots, b = hits,
    /// c = damage dealt.
    pub enum CombatEventType (reject) {
        Kill = 0,
        Stats = 1,
        Shots = 2,
    }
}

wire_enum! {
    /// `SnapshotEffects` record type (raw on the wire; unknown types are skipped).
    /// `CountermeasureRelease` is the C++ original's addition after the spec's list.
    pub enum EffectType (reject) {
        WeaponFired = 0,
        MissileLaunch = 1,
        Impact = 2,
        Detonation = 3,
        NuclearFlash = 4,
        CountermeasureRelease = 5,
        /// A burning aircraft (`srcIdx`), repeated while it burns (docs/combat.md).
        Fire = 6,
    }
}

wire_enum! {
    /// Weapon classes (`weaponClass` bytes; 0xFF = none/unknown, kept raw on the wire).
    pub enum WeaponType (reject) {
        Missile = 0,
        Bomb = 1,
        Rocket = 2,
        Gun = 3,
        Pod = 4,
        Fuel = 5,
    }
}

wire_enum! {
    /// Radar operating mode (`MsgClientInput::radarMode`; 255 = keep the current mode).
    pub enum RadarMode (reject) {
        Silent = 0,
        Search = 1,
        Tws = 2,
        Stt = 3,
    }
}

wire_enum! {
    /// Damage levels (`GmEntityRecord::damageLevel`; the snapshot carries 3 bits of it).
    pub enum DamageLevel (reject) {
        Intact = 0,
        Light = 1,
        Heavy = 2,
        Critical = 3,
        Destroyed = 4,
    }
}

wire_enum! {
    /// Articulation channels of the `SnapshotArticulation` TLV: bit n of the mask is channel n.
    /// Append-only. The three gear-compression channels are derived by clients, never sent.
    pub enum ArtChannel (reject) {
        Gear = 0,
        Flaps = 1,
        Speedbrake = 2,
        Hook = 3,
        Canopy = 4,
        Sweep = 5,
        TvcPitch = 6,
        TvcYaw = 7,
        Elevator = 8,
        Aileron = 9,
        Rudder = 10,
        PropRate = 11,
        Bay = 12,
        GearCompressNose = 13,
        GearCompressLeft = 14,
        GearCompressRight = 15,
    }
}

impl ArtChannel {
    /// Signed channels travel as `round(v × 127) + 128`, unsigned ones as `round(v × 255)`.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Self::TvcPitch | Self::TvcYaw | Self::Elevator | Self::Aileron | Self::Rudder
        )
    }

    /// Quantizes an actuator value to its wire byte.
    pub fn quantize(self, value: f64) -> u8 {
        let v = if value.is_nan() { 0.0 } else { value };
        if self.is_signed() {
            // In range by the clamp: −127..=127 then +128.
            ((v.clamp(-1.0, 1.0) * 127.0).round() + 128.0) as u8
        } else {
            (v.clamp(0.0, 1.0) * 255.0).round() as u8
        }
    }

    /// The actuator value a wire byte stands for.
    pub fn dequantize(self, byte: u8) -> f64 {
        if self.is_signed() {
            ((f64::from(byte) - 128.0) / 127.0).clamp(-1.0, 1.0)
        } else {
            f64::from(byte) / 255.0
        }
    }
}

/// `MsgClientInput::buttons` bits.
pub mod buttons {
    pub const GUN: u8 = 0x01;
    pub const AFTERBURNER: u8 = 0x02;
    /// Edge-detected by the server; never manufactured by stale repeat.
    pub const FIRE_STORE: u8 = 0x04;
    pub const CHAFF_FLARE: u8 = 0x08;
    pub const ECM: u8 = 0x10;
    pub const EJECT: u8 = 0x20;
    /// Bit 6, wheel brakes (level). Not in the spec's table; the C++ original's
    /// `kInputButtonWheelBrake` (docs/protocol.md).
    pub const WHEEL_BRAKE: u8 = 0x40;
    /// Bit 7, respawn request (level on the wire, edge-detected by the server: a held key is one
    /// request). Not in the spec's table; the C++ original's `kInputButtonRespawn`.
    pub const RESPAWN: u8 = 0x80;
}

/// `MsgClientInput::artButtons` bits.
pub mod art_buttons {
    pub const GEAR_DOWN: u8 = 0x01;
    pub const HOOK_DOWN: u8 = 0x02;
    pub const CANOPY_OPEN: u8 = 0x04;
}

/// `gameModeFlags` bits of `MsgLanBeacon` and `MsgServerInfo`.
pub mod game_mode {
    pub const CAMPAIGN: u8 = 0x01;
    pub const MISSION: u8 = 0x02;
    pub const SANDBOX: u8 = 0x04;
    pub const SHUTTING_DOWN: u8 = 0x08;
    pub const PASSWORDED: u8 = 0x10;
}

/// Granted-authority capability bits (`ConnectAckAuthority` caps, a `u64` mask).
pub mod capability {
    pub const KICK_BAN: u64 = 1 << 0;
    pub const MUTE: u64 = 1 << 1;
    pub const SERVER_CONFIG: u64 = 1 << 2;
    pub const SPAWN_ANY: u64 = 1 << 3;
    pub const SPAWN_FACTION: u64 = 1 << 4;
    pub const COMMAND_ANY_AI: u64 = 1 << 5;
    pub const COMMAND_FACTION_AI: u64 = 1 << 6;
    pub const FACTION_POSTURE: u64 = 1 << 7;
    pub const GM_MAP: u64 = 1 << 8;
    pub const GM_MAP_FACTION: u64 = 1 << 9;
    pub const SPECTATE_ANY: u64 = 1 << 10;
    pub const GRANT_ROLES: u64 = 1 << 11;
    /// Every defined bit; a received mask is sanitised with `& ALL`.
    pub const ALL: u64 = (1 << 12) - 1;
    /// `factionIndex` meaning "not bound to a faction".
    pub const NO_FACTION_BINDING: u16 = 0xFFFF;
}

/// `CrewRosterSeat::capabilities` bits.
pub mod crew_capability {
    pub const FLY: u16 = 0x01;
    pub const FIRE: u16 = 0x02;
    pub const RADAR: u16 = 0x04;
    pub const COUNTERMEASURES: u16 = 0x08;
    pub const COMMAND: u16 = 0x10;
}

/// `engineFailFlags` bits of a snapshot record (5 bits on the wire).
pub mod engine_fail {
    pub const GENERIC: u8 = 0x01;
    pub const LEFT: u8 = 0x02;
    pub const RIGHT: u8 = 0x04;
    pub const COMPRESSOR_STALL: u8 = 0x08;
    pub const FLAMEOUT: u8 = 0x10;
}

/// Special id values shared by several messages.
pub mod ids {
    /// "No owning peer": AI/server, or a system chat line. Peer id 0 is a real player.
    pub const NO_OWNING_PEER: u32 = 0xFFFF_FFFF;
    /// Participant ids at or above this (and not `NO_OWNING_PEER`) are bots.
    pub const BOT_PARTICIPANT_BASE: u32 = 0x4000_0000;
    /// Seat occupant when nobody human sits there.
    pub const NO_SEAT_PEER: u32 = 0xFFFF_FFFF;
    /// Wingman order addressed to the whole formation.
    pub const FLIGHT_ALL: u32 = 0xFFFF_FFFF;
    /// No designated target.
    pub const NO_TARGET: u32 = 0xFFFF_FFFF;
    /// "The formation I command".
    pub const OWN_FLIGHT: u16 = 0xFFFF;
    /// A voice speaker with no entity.
    pub const NO_VOICE_ENTITY: u32 = 0xFFFF_FFFF;
    /// A radio transmission on no net.
    pub const INVALID_RADIO_NET: u8 = 0xFF;
    /// `weaponClass` "none / unknown".
    pub const NO_WEAPON_CLASS: u8 = 0xFF;
    /// `MsgClientInput::selectedStation` / `radarMode`: keep the current value.
    pub const KEEP_CURRENT: u8 = 255;
    /// No turret (`CrewRosterSeat::turretIndex`).
    pub const NO_TURRET: u8 = 255;
    /// Not in a formation (`GmEntityRecord::formationId`).
    pub const NO_FORMATION: u16 = 0;
}

/// Whether a participant id names a bot.
pub fn is_bot_participant(id: u32) -> bool {
    id >= ids::BOT_PARTICIPANT_BASE && id != ids::NO_OWNING_PEER
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{FieldError, WireField};

    #[test]
    fn reject_policy_is_a_typed_error() {
        assert_eq!(AlertLevel::read(&[3]), Ok(AlertLevel::WarState));
        assert_eq!(AlertLevel::read(&[4]), Err(FieldError::BadOrdinal(4)));
    }

    #[test]
    fn fallback_policy_uses_the_documented_default() {
        assert_eq!(ObjectCategory::read(&[200]), Ok(ObjectCategory::AirVehicle));
        assert_eq!(ProjectileKind::read(&[4]), Ok(ProjectileKind::None));
        assert_eq!(
            ConnectRefusalCode::read(&[99]),
            Ok(ConnectRefusalCode::Generic)
        );
    }

    #[test]
    fn every_ordinal_round_trips() {
        for v in ConnectRefusalCode::ALL {
            assert_eq!(ConnectRefusalCode::from_u8(v.to_u8()), Some(*v));
        }
        assert_eq!(WingmanResult::ALL.len(), 9);
        assert_eq!(ArtChannel::ALL.len(), 16);
    }

    #[test]
    fn articulation_quantization_matches_the_spec_formulae() {
        assert_eq!(ArtChannel::Gear.quantize(1.0), 255);
        assert_eq!(ArtChannel::Gear.quantize(0.5), 128); // round(127.5) half away from zero
        assert_eq!(ArtChannel::Elevator.quantize(-1.0), 1);
        assert_eq!(ArtChannel::Elevator.quantize(0.0), 128);
        assert_eq!(ArtChannel::Elevator.quantize(1.0), 255);
        assert_eq!(ArtChannel::Rudder.quantize(f64::NAN), 128);
        assert!((ArtChannel::Aileron.dequantize(255) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bot_participants() {
        assert!(!is_bot_participant(0));
        assert!(is_bot_participant(0x4000_0001));
        assert!(!is_bot_participant(ids::NO_OWNING_PEER));
    }
}
