//! fl-protocol — the fighters-legacy wire contract as plain Rust values.
//!
//! Every message of `spec/network-protocol.txt` is a typed struct with an exact
//! encode/decode; [`Packet::decode`] dispatches on byte 0 and never panics on any input;
//! every allocation a decoder makes is bounded by the packet length (or, for compressed
//! snapshots, by the 4 MiB payload limit). The crate performs no I/O and depends on no other
//! crate of this project. See `docs/protocol.md` for layouts, worked bytes and decisions.

pub mod ack;
pub mod enums;
mod error;
pub mod field;
pub mod ids;
pub mod layout;
mod message;
pub mod msg;
pub mod snapshot;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tlv;

pub use error::{DecodeError, EncodeError};
pub use field::FixedStr;
pub use ids::{MsgId, PROTOCOL_VERSION};
pub use message::{Message, Packet};
pub use tlv::{Ext, Extensions};
