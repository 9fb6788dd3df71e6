//! The operator channel: `MsgAdminCommand`, `MsgAdminResponse`, `MsgAdminResponseChunk`.

use crate::field::FixedStr;
use crate::layout::wire_struct;
use crate::msg::fixed_message;

/// `MsgAdminResponseChunk::flags` bit: the final chunk of a response.
pub const CHUNK_FLAG_END: u8 = 0x01;
/// Longest result sent on the fast path (`MsgAdminResponse`).
pub const RESPONSE_FAST_PATH_MAX: usize = 123;
/// Usable bytes of one chunk body.
pub const CHUNK_PAYLOAD_MAX: usize = 505;
/// Reassembled responses longer than this are discarded by clients.
pub const MAX_REASSEMBLED_RESPONSE_BYTES: usize = 64 * 1024;
/// Longest operator password `MsgAdminCommand::token` can carry (`char[30]`, NUL-terminated):
/// a longer password can never authenticate.
pub const ADMIN_TOKEN_MAX_BYTES: usize = FixedStr::<30>::CAPACITY;

wire_struct! {
    /// Client → server operator-authenticated command.
    pub struct AdminCommand ("MsgAdminCommand", 128) {
        @0 msgId = 0x06;
        @1 reserved pad 1;
        /// Correlation id echoed in every response packet.
        @2 reqId req_id: u16;
        /// Operator password (29 usable bytes).
        @4 token token: FixedStr<30>;
        @34 command command: FixedStr<94>;
    }
}

wire_struct! {
    /// Server → client command result of at most 123 bytes.
    pub struct AdminResponse ("MsgAdminResponse", 128) {
        @0 msgId = 0x07;
        @1 reserved pad 1;
        @2 reqId req_id: u16;
        @4 text text: FixedStr<124>;
    }
}

wire_struct! {
    /// Server → client streaming chunk of a long command result.
    pub struct AdminResponseChunk ("MsgAdminResponseChunk", 512) {
        @0 msgId = 0x0A;
        /// `CHUNK_FLAG_END` on the last chunk.
        @1 flags flags: u8;
        @2 reqId req_id: u16;
        /// 0-based, diagnostic only.
        @4 seqNum seq_num: u16;
        @6 body body: FixedStr<506>;
    }
}

fixed_message!(
    AdminCommand => AdminCommand,
    AdminResponse => AdminResponse,
    AdminResponseChunk => AdminResponseChunk,
);
