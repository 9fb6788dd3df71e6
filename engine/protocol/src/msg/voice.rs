//! Voice comms: `MsgVoiceNetDef` (+ net records), `MsgVoiceFrame` and `MsgVoiceRelay`. The
//! audio payload is opaque here (a 20 ms Opus frame); only its length is checked.

use crate::enums::RadioNetKind;
use crate::field::{FieldError, FixedStr, Source, Visitor};
use crate::ids::MsgId;
use crate::layout::{Counts, Fixed, push_fixed, wire_struct};
use crate::msg::{
    RecordSource, Reflect, WireMessage, check_given_count, counted_message, decode_fixed,
};
use crate::{DecodeError, EncodeError};

/// Longest voice payload (`kMaxVoiceFrameBytes`).
pub const MAX_VOICE_FRAME_BYTES: usize = 400;
/// `MsgVoiceNetDef::flags`: the server has voice enabled.
pub const VOICE_SERVER_ENABLED: u8 = 0x01;
/// Voice frame flag: first frame of a transmission.
pub const VOICE_FLAG_START: u8 = 0x01;
/// Voice frame flag: end of transmission (an empty payload with it is a squelch marker).
pub const VOICE_FLAG_END: u8 = 0x02;
/// Net flags.
pub const VOICE_NET_FLAG_POSITIONAL: u8 = 0x01;
pub const VOICE_NET_FLAG_RADIO_EFFECT: u8 = 0x02;
pub const VOICE_NET_FLAG_DEFAULT: u8 = 0x04;

wire_struct! {
    /// Server → client radio-net table.
    pub struct VoiceNetDef ("MsgVoiceNetDef", 4) {
        @0 msgId = 0x23;
        @1 netCount count u8;
        /// `VOICE_SERVER_ENABLED`.
        @2 flags flags: u8;
        @3 reserved pad 1;
    }
    extra {
        pub nets: Vec<VoiceNetRecord>,
    }
}

wire_struct! {
    /// One radio net; its index in the table is its wire `netId`.
    pub struct VoiceNetRecord ("MsgVoiceNetRecord", 68) {
        @0 netId net_id: u8;
        @1 kind kind: RadioNetKind;
        /// `VOICE_NET_FLAG_*`.
        @2 flags flags: u8;
        @3 reserved pad 1;
        /// Proximity radius / rolloff ceiling; 0 = unlimited.
        @4 rangeM range_m: f32;
        @8 gain gain: f32;
        @12 id id: FixedStr<24>;
        @36 name name: FixedStr<32>;
    }
}

counted_message!(VoiceNetDef => VoiceNetDef, nets: VoiceNetRecord,
    count "netCount" u8, max u8::MAX as usize);

wire_struct! {
    /// Client → server: one Opus frame to relay on a net.
    pub struct VoiceFrame ("MsgVoiceFrame", 8) {
        @0 msgId = 0x24;
        @1 netId net_id: u8;
        /// Per-(speaker, net) counter, half-window compared.
        @2 seq seq: u16;
        @4 payloadBytes count u16;
        /// `VOICE_FLAG_*`.
        @6 flags flags: u8;
        @7 reserved pad 1;
    }
    extra {
        /// Opaque Opus payload (≤ 400 bytes).
        pub payload: Vec<u8>,
    }
}

wire_struct! {
    /// Server → client: a relayed frame plus who said it.
    pub struct VoiceRelay ("MsgVoiceRelay", 16) {
        @0 msgId = 0x25;
        @1 netId net_id: u8;
        @2 seq seq: u16;
        /// Participant id of the speaker.
        @4 senderPeerId sender_peer_id: u32;
        /// The speaker's entity, or 0xFFFFFFFF.
        @8 senderEntityIdx sender_entity_idx: u32;
        @12 payloadBytes count u16;
        @14 flags flags: u8;
        @15 reserved pad 1;
    }
    extra {
        pub payload: Vec<u8>,
    }
}

/// Implements the codec for a fixed header whose one count is the payload length.
macro_rules! payload_message {
    ($T:ident => $Id:ident) => {
        impl WireMessage for $T {
            const ID: MsgId = MsgId::$Id;
            fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
                let (mut m, counts) = decode_fixed::<$T>(bytes)?;
                let len = counts.get(0) as usize;
                if len > MAX_VOICE_FRAME_BYTES {
                    return Err(DecodeError::malformed(
                        Self::NAME,
                        format!("payload of {len} bytes exceeds {MAX_VOICE_FRAME_BYTES}"),
                    ));
                }
                let end = Self::SIZE + len;
                crate::msg::check_len(Self::NAME, bytes, end)?;
                m.payload = bytes[Self::SIZE..end].to_vec();
                Ok((m, end))
            }
            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                let len = crate::msg::count_fits(
                    Self::NAME,
                    "payload bytes",
                    self.payload.len(),
                    MAX_VOICE_FRAME_BYTES,
                )?;
                push_fixed(out, self, &Counts::new(&[len]));
                out.extend_from_slice(&self.payload);
                Ok(())
            }
        }

        impl Reflect for $T {
            fn visit_fields(&self, visitor: &mut dyn Visitor) {
                self.visit_fixed(visitor, &Counts::new(&[self.payload.len() as u32]));
                visitor.bytes("payload", &self.payload);
            }
            fn build(
                fields: &mut dyn Source,
                _records: &mut dyn RecordSource,
            ) -> Result<Self, FieldError> {
                let (mut m, given) = Self::build_fixed(fields)?;
                let payload = fields.blob("payload", MAX_VOICE_FRAME_BYTES)?;
                check_given_count("payloadBytes", given.get(0), payload.len())?;
                m.payload = payload;
                Ok(m)
            }
        }
    };
}

payload_message!(VoiceFrame => VoiceFrame);
payload_message!(VoiceRelay => VoiceRelay);
