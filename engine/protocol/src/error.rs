//! The typed errors of decoding and encoding. Every malformed input maps to one of these; no
//! decoder panics. This module owns only the error vocabulary.

use crate::field::FieldError;

/// Why a packet could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A zero-length packet.
    #[error("empty packet")]
    Empty,
    /// The first byte names no message.
    #[error("unknown message id 0x{0:02x}")]
    UnknownMsgId(u8),
    /// The packet ends before a structure it announces.
    #[error("{msg}: packet is {got} bytes, needs at least {need}")]
    TooShort {
        msg: &'static str,
        need: usize,
        got: usize,
    },
    /// One field holds a value the spec forbids.
    #[error("{msg}.{field}: {error}")]
    Field {
        msg: &'static str,
        field: &'static str,
        error: FieldError,
    },
    /// A structural rule of the message is broken (the text names which).
    #[error("{msg}: {reason}")]
    Malformed { msg: &'static str, reason: String },
    /// A floating-point field that must be finite holds NaN or an infinity (`index`: which
    /// entry of a table).
    #[error("{msg}: {field} {index} is not finite")]
    NonFinite {
        msg: &'static str,
        field: &'static str,
        index: usize,
    },
}

impl DecodeError {
    pub(crate) fn field(msg: &'static str, field: &'static str, error: FieldError) -> Self {
        Self::Field { msg, field, error }
    }

    pub(crate) fn malformed(msg: &'static str, reason: impl Into<String>) -> Self {
        Self::Malformed {
            msg,
            reason: reason.into(),
        }
    }
}

/// Why a message value could not be encoded (it cannot be represented on the wire).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// More records than the count field can express, or than the spec allows.
    #[error("{msg}: {count} {what} exceed the maximum of {max}")]
    TooMany {
        msg: &'static str,
        what: &'static str,
        count: usize,
        max: usize,
    },
    /// A value the wire cannot carry (the text names it).
    #[error("{msg}: {reason}")]
    Invalid { msg: &'static str, reason: String },
}
