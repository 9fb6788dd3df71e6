//! Players talking and keeping score: `MsgChat`, `MsgChatEvent`, `MsgRadioCommand`,
//! `MsgRadioTransmission`, `MsgPlayerRoster`, `MsgMatchState`, `MsgScoreboard` and
//! `MsgTeamRequest`.

use crate::enums::{ChatChannel, MatchPhase, PeerRole};
use crate::field::{FieldError, FixedStr, Source, Visitor, WireField};
use crate::ids::MsgId;
use crate::layout::wire_struct;
use crate::msg::handshake::write_terminated_text;
use crate::msg::{RecordSource, Reflect, WireMessage, check_len, counted_message, fixed_message};
use crate::{DecodeError, EncodeError};

/// Longest chat text in bytes (`kMaxChatBytes`, terminator excluded). Longer text is cut on a
/// character boundary, both when encoding and when decoding.
pub const MAX_CHAT_BYTES: usize = 240;

fn read_chat_text(bytes: &[u8], start: usize) -> (String, usize) {
    let rest = &bytes[start.min(bytes.len())..];
    let (len, next) = match rest.iter().position(|&b| b == 0) {
        Some(nul) => (nul, start + nul + 1),
        None => (rest.len(), bytes.len()),
    };
    let text = String::from_utf8_lossy(&rest[..len]);
    (
        crate::field::truncate_utf8(&text, MAX_CHAT_BYTES).to_owned(),
        next,
    )
}

/// Client → server chat line: a 4-byte header then NUL-terminated UTF-8.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chat {
    pub channel: ChatChannel,
    pub text: String,
}

impl WireMessage for Chat {
    const ID: MsgId = MsgId::Chat;
    fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        check_len("MsgChat", bytes, 4)?;
        let channel = ChatChannel::read(&bytes[1..2])
            .map_err(|e| DecodeError::field("MsgChat", "channel", e))?;
        let (text, next) = read_chat_text(bytes, 4);
        Ok((Chat { channel, text }, next))
    }
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&[MsgId::Chat.to_u8(), self.channel.to_u8(), 0, 0]);
        write_terminated_text(out, &self.text, MAX_CHAT_BYTES);
        Ok(())
    }
}

impl Reflect for Chat {
    fn visit_fields(&self, visitor: &mut dyn Visitor) {
        self.channel.visit("channel", visitor);
        visitor.text("text", &self.text);
    }
    fn build(fields: &mut dyn Source, _records: &mut dyn RecordSource) -> Result<Self, FieldError> {
        Ok(Chat {
            channel: ChatChannel::build("channel", fields)?,
            text: fields.text("text")?,
        })
    }
}

/// Server → client routed chat line: an 8-byte header then NUL-terminated UTF-8.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatEvent {
    pub channel: ChatChannel,
    /// Participant id; 0xFFFFFFFF = a system line with no sender.
    pub sender_peer_id: u32,
    pub text: String,
}

impl WireMessage for ChatEvent {
    const ID: MsgId = MsgId::ChatEvent;
    fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        check_len("MsgChatEvent", bytes, 8)?;
        let channel = ChatChannel::read(&bytes[1..2])
            .map_err(|e| DecodeError::field("MsgChatEvent", "channel", e))?;
        let sender_peer_id = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let (text, next) = read_chat_text(bytes, 8);
        Ok((
            ChatEvent {
                channel,
                sender_peer_id,
                text,
            },
            next,
        ))
    }
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&[MsgId::ChatEvent.to_u8(), self.channel.to_u8(), 0, 0]);
        out.extend_from_slice(&self.sender_peer_id.to_le_bytes());
        write_terminated_text(out, &self.text, MAX_CHAT_BYTES);
        Ok(())
    }
}

impl Reflect for ChatEvent {
    fn visit_fields(&self, visitor: &mut dyn Visitor) {
        self.channel.visit("channel", visitor);
        visitor.uint("senderPeerId", u64::from(self.sender_peer_id));
        visitor.text("text", &self.text);
    }
    fn build(fields: &mut dyn Source, _records: &mut dyn RecordSource) -> Result<Self, FieldError> {
        Ok(ChatEvent {
            channel: ChatChannel::build("channel", fields)?,
            sender_peer_id: u32::build("senderPeerId", fields)?,
            text: fields.text("text")?,
        })
    }
}

wire_struct! {
    /// Client → server radio command (`atc request_takeoff [facility]`, …).
    pub struct RadioCommand ("MsgRadioCommand", 64) {
        @0 msgId = 0x19;
        @1 reserved pad 1;
        @2 reqId req_id: u16;
        @4 command command: FixedStr<60>;
    }
}

wire_struct! {
    /// Server → client spoken radio line.
    pub struct RadioTransmission ("MsgRadioTransmission", 224) {
        @0 msgId = 0x1A;
        /// Radio net index; 0xFF = none.
        @1 netId net_id: u8;
        @2 displaySeconds display_seconds: u16;
        @4 speaker speaker: FixedStr<28>;
        /// Stable TTS / pack-OGG key; empty = subtitle only.
        @32 voiceKey voice_key: FixedStr<32>;
        @64 text text: FixedStr<160>;
    }
}

/// `PlayerRosterEntry::flags`: the participant left (remove the row).
pub const ROSTER_FLAG_LEAVE: u8 = 0x01;
/// `PlayerRosterEntry::flags`: the participant is an AI bot.
pub const ROSTER_FLAG_BOT: u8 = 0x02;

wire_struct! {
    /// Server → client roster upserts and leaves.
    pub struct PlayerRoster ("MsgPlayerRosterHeader", 4) {
        @0 msgId = 0x1C;
        @1 count count u8;
        @2 reserved pad 2;
    }
    extra {
        pub entries: Vec<PlayerRosterEntry>,
    }
}

wire_struct! {
    /// One participant of the roster.
    pub struct PlayerRosterEntry ("PlayerRosterEntry", 40) {
        /// Peer id, or `BOT_PARTICIPANT_BASE + n` for a bot.
        @0 participantId participant_id: u32;
        @4 factionIndex faction_index: u16;
        @6 role role: PeerRole;
        /// `ROSTER_FLAG_*`.
        @7 flags flags: u8;
        @8 callsign callsign: FixedStr<32>;
    }
}

counted_message!(PlayerRoster => PlayerRoster, entries: PlayerRosterEntry,
    count "count" u8, max u8::MAX as usize);

wire_struct! {
    /// Server → client match phase, limits and team scores.
    pub struct MatchState ("MsgMatchState", 80) {
        @0 msgId = 0x1D;
        @1 phase phase: MatchPhase;
        /// 0 = no limit.
        @2 scoreLimit score_limit: u16;
        @4 teamCount count u8;
        @5 reserved pad 3;
        /// Tick the phase ends; 0 = untimed.
        @8 phaseEndTick phase_end_tick: u64;
        @16 modeId mode_id: FixedStr<32>;
        @48 modeName mode_name: FixedStr<32>;
    }
    extra {
        pub teams: Vec<MatchTeamScore>,
    }
}

wire_struct! {
    /// One team's score in `MsgMatchState`.
    pub struct MatchTeamScore ("MatchTeamScore", 8) {
        @0 factionIndex faction_index: u16;
        @2 reserved pad 2;
        @4 score score: i32;
    }
}

counted_message!(MatchState => MatchState, teams: MatchTeamScore,
    count "teamCount" u8, max u8::MAX as usize);

wire_struct! {
    /// Server → client per-participant scores (unreliable, self-describing upserts).
    pub struct Scoreboard ("MsgScoreboardHeader", 8) {
        @0 msgId = 0x1E;
        @1 count count u8;
        @2 reserved pad 2;
        @4 reserved2 pad 4;
    }
    extra {
        pub rows: Vec<ScoreboardRow>,
    }
}

wire_struct! {
    /// One participant's line of the scoreboard.
    pub struct ScoreboardRow ("ScoreboardRow", 16) {
        @0 participantId participant_id: u32;
        @4 score score: i32;
        @8 kills kills: u16;
        @10 deaths deaths: u16;
        @12 pingMs ping_ms: u16;
        @14 factionIndex faction_index: u16;
    }
}

counted_message!(Scoreboard => Scoreboard, rows: ScoreboardRow,
    count "count" u8, max u8::MAX as usize);

wire_struct! {
    /// Client → server mid-match team switch request.
    pub struct TeamRequest ("MsgTeamRequest", 4) {
        @0 msgId = 0x1F;
        @1 reserved pad 1;
        @2 factionIndex faction_index: u16;
    }
}

fixed_message!(
    RadioCommand => RadioCommand,
    RadioTransmission => RadioTransmission,
    TeamRequest => TeamRequest,
);
