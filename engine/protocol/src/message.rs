//! Byte-0 dispatch: [`Message`] is any message body, [`Packet`] a message plus its TLV
//! extension block. `Packet::decode` never panics on any input; `Packet::encode` produces the
//! exact spec layout.

use crate::field::{FieldError, Source, Visitor};
use crate::ids::MsgId;
use crate::msg::admin::{AdminCommand, AdminResponse, AdminResponseChunk};
use crate::msg::combat::{CombatEvent, Datalink, GmWorldState, WingmanAck, WingmanCommand};
use crate::msg::crew::{CrewRoster, SeatRequest, SeatResult};
use crate::msg::discovery::{LanBeacon, ServerInfo, ServerQuery};
use crate::msg::handshake::{ConnectAck, ConnectRefusal, ConnectRequest, Hello, Motd};
use crate::msg::social::{
    Chat, ChatEvent, MatchState, PlayerRoster, RadioCommand, RadioTransmission, Scoreboard,
    TeamRequest,
};
use crate::msg::voice::{VoiceFrame, VoiceNetDef, VoiceRelay};
use crate::msg::world::{
    AlertLevelChange, ClientInput, FactionDef, Haptic, Heartbeat, MissionOutcome, MissionRoster,
    MusicState, PeerDelay, ServerNotice, WeatherState,
};
use crate::msg::{RecordSource, Reflect, WireMessage};
use crate::snapshot::WorldSnapshot;
use crate::tlv::Extensions;
use crate::{DecodeError, EncodeError};

macro_rules! messages {
    ($($Variant:ident($T:ty)),* $(,)?) => {
        /// Any message body.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        pub enum Message {
            /// Snapshots are decoded by [`crate::snapshot`] (their TLV block may be compressed).
            WorldSnapshot(WorldSnapshot),
            $($Variant($T),)*
        }

        impl Message {
            /// The message id.
            pub fn id(&self) -> MsgId {
                match self {
                    Message::WorldSnapshot(_) => MsgId::WorldSnapshot,
                    $(Message::$Variant(_) => <$T as WireMessage>::ID,)*
                }
            }

            fn decode_body(id: MsgId, bytes: &[u8]) -> Result<(Message, usize), DecodeError> {
                match id {
                    MsgId::WorldSnapshot => Err(DecodeError::malformed(
                        "MsgWorldSnapshot", "decoded through the snapshot codec")),
                    $(MsgId::$Variant => {
                        let (m, end) = <$T as WireMessage>::decode_body(bytes)?;
                        Ok((Message::$Variant(m), end))
                    })*
                }
            }

            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                match self {
                    Message::WorldSnapshot(_) => Err(EncodeError::Invalid {
                        msg: "MsgWorldSnapshot",
                        reason: "encoded through the snapshot codec".into(),
                    }),
                    $(Message::$Variant(m) => m.encode_body(out),)*
                }
            }

            /// Shows the header fields under their spec names (snapshots: the header fields
            /// that are not derived).
            pub fn visit_fields(&self, visitor: &mut dyn Visitor) {
                match self {
                    Message::WorldSnapshot(s) => {
                        visitor.uint("protocolVersion", u64::from(s.protocol_version));
                        visitor.uint("tickIndex", s.tick_index);
                        visitor.uint("flags", u64::from(s.flags));
                    }
                    $(Message::$Variant(m) => m.visit_fields(visitor),)*
                }
            }

            /// Number of fixed records (snapshot records are not covered here).
            pub fn record_count(&self) -> usize {
                match self {
                    Message::WorldSnapshot(_) => 0,
                    $(Message::$Variant(m) => m.record_count(),)*
                }
            }

            /// Shows the `i`-th fixed record.
            pub fn visit_record(&self, i: usize, visitor: &mut dyn Visitor) {
                match self {
                    Message::WorldSnapshot(_) => {}
                    $(Message::$Variant(m) => m.visit_record(i, visitor),)*
                }
            }

            /// Builds any message other than a snapshot from named fields and records.
            pub fn build(
                id: MsgId,
                fields: &mut dyn Source,
                records: &mut dyn RecordSource,
            ) -> Result<Message, FieldError> {
                match id {
                    MsgId::WorldSnapshot => Err(FieldError::Other(
                        "snapshots are built from SI records, not fields".into())),
                    $(MsgId::$Variant => Ok(Message::$Variant(<$T as Reflect>::build(fields, records)?)),)*
                }
            }
        }

        $(impl From<$T> for Message {
            fn from(m: $T) -> Message {
                Message::$Variant(m)
            }
        })*
    };
}

messages! {
    Hello(Hello),
    ConnectAck(ConnectAck),
    ClientInput(ClientInput),
    WeatherState(WeatherState),
    ServerNotice(ServerNotice),
    AdminCommand(AdminCommand),
    AdminResponse(AdminResponse),
    Motd(Motd),
    ConnectRefusal(ConnectRefusal),
    AdminResponseChunk(AdminResponseChunk),
    Heartbeat(Heartbeat),
    PeerDelay(PeerDelay),
    WingmanCommand(WingmanCommand),
    WingmanAck(WingmanAck),
    CombatEvent(CombatEvent),
    FactionDef(FactionDef),
    ConnectRequest(ConnectRequest),
    Datalink(Datalink),
    CrewRoster(CrewRoster),
    SeatRequest(SeatRequest),
    SeatResult(SeatResult),
    MusicState(MusicState),
    Haptic(Haptic),
    MissionOutcome(MissionOutcome),
    RadioCommand(RadioCommand),
    RadioTransmission(RadioTransmission),
    MissionRoster(MissionRoster),
    PlayerRoster(PlayerRoster),
    MatchState(MatchState),
    Scoreboard(Scoreboard),
    TeamRequest(TeamRequest),
    Chat(Chat),
    ChatEvent(ChatEvent),
    GmWorldState(GmWorldState),
    VoiceNetDef(VoiceNetDef),
    VoiceFrame(VoiceFrame),
    VoiceRelay(VoiceRelay),
    AlertLevelChange(AlertLevelChange),
    LanBeacon(LanBeacon),
    ServerQuery(ServerQuery),
    ServerInfo(ServerInfo),
}

impl From<WorldSnapshot> for Message {
    fn from(m: WorldSnapshot) -> Message {
        Message::WorldSnapshot(m)
    }
}

/// A message and the extension block that follows its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub message: Message,
    pub ext: Extensions,
}

impl Packet {
    /// A packet without extensions.
    pub fn new(message: impl Into<Message>) -> Self {
        Self {
            message: message.into(),
            ext: Extensions::new(),
        }
    }

    /// Decodes any packet by its first byte.
    pub fn decode(bytes: &[u8]) -> Result<Packet, DecodeError> {
        let first = *bytes.first().ok_or(DecodeError::Empty)?;
        let id = MsgId::from_u8(first).ok_or(DecodeError::UnknownMsgId(first))?;
        if id == MsgId::WorldSnapshot {
            let (snapshot, ext) = WorldSnapshot::decode(bytes)?;
            return Ok(Packet {
                message: Message::WorldSnapshot(snapshot),
                ext,
            });
        }
        let (message, end) = Message::decode_body(id, bytes)?;
        Ok(Packet {
            message,
            ext: Extensions::parse(&bytes[end.min(bytes.len())..]),
        })
    }

    /// Encodes the packet.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        self.message.encode_with(&self.ext)
    }
}

impl Message {
    /// Encodes the message without extensions.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        self.encode_with(&Extensions::new())
    }

    /// Whether an extension block can follow this message. A legacy-length `LanBeacon` or
    /// `ServerInfo` (no `build` tail) cannot carry one: its TLV bytes would read as the tail.
    /// Nor can the count-less concatenated-record messages (`FactionDef`, `MissionRoster`),
    /// where TLV bytes would read as more records.
    pub fn accepts_extensions(&self) -> bool {
        match self {
            Message::LanBeacon(m) => m.build.is_some(),
            Message::ServerInfo(m) => m.build.is_some(),
            Message::FactionDef(_) | Message::MissionRoster(_) => false,
            _ => true,
        }
    }

    /// Encodes the message followed by `ext`.
    pub fn encode_with(&self, ext: &Extensions) -> Result<Vec<u8>, EncodeError> {
        if let Message::WorldSnapshot(s) = self {
            return s.encode(ext);
        }
        if !ext.is_empty() && !self.accepts_extensions() {
            return Err(EncodeError::Invalid {
                msg: self.id().name(),
                reason: "this message cannot carry an extension block (see accepts_extensions)"
                    .into(),
            });
        }
        let mut out = Vec::new();
        self.encode_body(&mut out)?;
        out.extend_from_slice(ext.as_bytes());
        Ok(out)
    }
}
