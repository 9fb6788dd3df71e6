//! The message id space (`MsgId`, byte 0 of every packet) and each id's metadata: spec name,
//! direction, channel and minimum size. Transport code routes by this table; it performs no
//! decoding itself.

use crate::layout::wire_enum;

/// The protocol version this crate speaks (`kProtocolVersion`).
pub const PROTOCOL_VERSION: u16 = 1;

/// Channel numbers (`kNetCh*`): a transport lane index, not a protocol constant.
pub mod channel {
    /// Ordered, guaranteed (handshake, chat, rosters, events).
    pub const RELIABLE: u8 = 0;
    /// Best-effort datagrams (snapshots, inputs, heartbeats).
    pub const UNRELIABLE: u8 = 1;
    /// Best-effort datagrams on their own lane (voice).
    pub const VOICE: u8 = 2;
}

/// The UDP port LAN beacons are broadcast to (`kDiscoveryPort`), distinct from the game port.
pub const DISCOVERY_PORT: u16 = 4780;
/// The default game port.
pub const DEFAULT_GAME_PORT: u16 = 4778;

wire_enum! {
    /// Byte 0 of every packet. 0x00–0x3F ride the game transport; 0x40+ are raw UDP.
    pub enum MsgId (reject) {
        Hello = 0x00,
        ConnectAck = 0x01,
        WorldSnapshot = 0x02,
        ClientInput = 0x03,
        WeatherState = 0x04,
        ServerNotice = 0x05,
        AdminCommand = 0x06,
        AdminResponse = 0x07,
        Motd = 0x08,
        ConnectRefusal = 0x09,
        AdminResponseChunk = 0x0A,
        Heartbeat = 0x0B,
        PeerDelay = 0x0C,
        WingmanCommand = 0x0D,
        WingmanAck = 0x0E,
        CombatEvent = 0x0F,
        FactionDef = 0x10,
        ConnectRequest = 0x11,
        Datalink = 0x12,
        CrewRoster = 0x13,
        SeatRequest = 0x14,
        SeatResult = 0x15,
        MusicState = 0x16,
        Haptic = 0x17,
        MissionOutcome = 0x18,
        RadioCommand = 0x19,
        RadioTransmission = 0x1A,
        MissionRoster = 0x1B,
        PlayerRoster = 0x1C,
        MatchState = 0x1D,
        Scoreboard = 0x1E,
        TeamRequest = 0x1F,
        Chat = 0x20,
        ChatEvent = 0x21,
        GmWorldState = 0x22,
        VoiceNetDef = 0x23,
        VoiceFrame = 0x24,
        VoiceRelay = 0x25,
        AlertLevelChange = 0x26,
        LanBeacon = 0x40,
        ServerQuery = 0x41,
        ServerInfo = 0x42,
    }
}

/// Who sends a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    ServerToClient,
    ClientToServer,
}

/// How a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Channel 0, ordered and guaranteed.
    Reliable,
    /// Channel 1, best effort.
    Unreliable,
    /// Channel 2, best effort, voice only.
    Voice,
    /// Outside the game transport (LAN discovery, server query).
    RawUdp,
}

impl Lane {
    /// The transport channel number, or `None` for raw UDP.
    pub fn channel(self) -> Option<u8> {
        match self {
            Lane::Reliable => Some(channel::RELIABLE),
            Lane::Unreliable => Some(channel::UNRELIABLE),
            Lane::Voice => Some(channel::VOICE),
            Lane::RawUdp => None,
        }
    }
}

/// Static facts about one message id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsgInfo {
    pub id: MsgId,
    pub direction: Direction,
    pub lane: Lane,
    /// The smallest valid packet (the fixed struct or header).
    pub min_bytes: usize,
}

impl MsgId {
    /// Direction, lane and minimum size of this message.
    pub const fn info(self) -> MsgInfo {
        use Direction::{ClientToServer as C2S, ServerToClient as S2C};
        use Lane::{RawUdp, Reliable, Unreliable, Voice};
        let (direction, lane, min_bytes) = match self {
            MsgId::Hello => (S2C, Reliable, 4),
            MsgId::ConnectAck => (S2C, Reliable, 24),
            MsgId::WorldSnapshot => (S2C, Unreliable, 24),
            MsgId::ClientInput => (C2S, Unreliable, 80),
            MsgId::WeatherState => (S2C, Unreliable, 32),
            MsgId::ServerNotice => (S2C, Reliable, 64),
            MsgId::AdminCommand => (C2S, Reliable, 128),
            MsgId::AdminResponse => (S2C, Reliable, 128),
            MsgId::Motd => (S2C, Reliable, 5),
            MsgId::ConnectRefusal => (S2C, Reliable, 64),
            MsgId::AdminResponseChunk => (S2C, Reliable, 512),
            MsgId::Heartbeat => (C2S, Unreliable, 16),
            MsgId::PeerDelay => (S2C, Unreliable, 4),
            MsgId::WingmanCommand => (C2S, Reliable, 16),
            MsgId::WingmanAck => (S2C, Reliable, 16),
            MsgId::CombatEvent => (S2C, Reliable, 4),
            MsgId::FactionDef => (S2C, Reliable, 132),
            MsgId::ConnectRequest => (C2S, Reliable, 104),
            MsgId::Datalink => (S2C, Unreliable, 40),
            MsgId::CrewRoster => (S2C, Reliable, 12),
            MsgId::SeatRequest => (C2S, Reliable, 12),
            MsgId::SeatResult => (S2C, Reliable, 12),
            MsgId::MusicState => (S2C, Reliable, 4),
            MsgId::Haptic => (S2C, Reliable, 12),
            MsgId::MissionOutcome => (S2C, Reliable, 8),
            MsgId::RadioCommand => (C2S, Reliable, 64),
            MsgId::RadioTransmission => (S2C, Reliable, 224),
            MsgId::MissionRoster => (S2C, Reliable, 72),
            MsgId::PlayerRoster => (S2C, Reliable, 4),
            MsgId::MatchState => (S2C, Reliable, 80),
            MsgId::Scoreboard => (S2C, Unreliable, 8),
            MsgId::TeamRequest => (C2S, Reliable, 4),
            MsgId::Chat => (C2S, Reliable, 5),
            MsgId::ChatEvent => (S2C, Reliable, 9),
            MsgId::GmWorldState => (S2C, Reliable, 16),
            MsgId::VoiceNetDef => (S2C, Reliable, 4),
            MsgId::VoiceFrame => (C2S, Voice, 8),
            MsgId::VoiceRelay => (S2C, Voice, 16),
            MsgId::AlertLevelChange => (S2C, Reliable, 4),
            MsgId::LanBeacon => (S2C, RawUdp, 78),
            MsgId::ServerQuery => (C2S, RawUdp, 208),
            MsgId::ServerInfo => (S2C, RawUdp, 184),
        };
        MsgInfo {
            id: self,
            direction,
            lane,
            min_bytes,
        }
    }

    /// Looks a spec name (`"ConnectAck"`) up.
    pub fn from_name(name: &str) -> Option<MsgId> {
        MsgId::ALL.iter().copied().find(|id| id.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_named() {
        for (i, a) in MsgId::ALL.iter().enumerate() {
            for b in &MsgId::ALL[i + 1..] {
                assert_ne!(a.to_u8(), b.to_u8());
            }
            assert_eq!(MsgId::from_name(a.name()), Some(*a));
        }
        assert_eq!(MsgId::ALL.len(), 42);
    }

    #[test]
    fn raw_udp_ids_live_above_the_game_transport_range() {
        for id in MsgId::ALL {
            assert_eq!(id.info().lane == Lane::RawUdp, id.to_u8() >= 0x40, "{id:?}");
        }
    }
}
