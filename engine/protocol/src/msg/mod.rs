//! Message bodies: one module per family, each message a typed struct with its exact byte
//! layout. This module holds what they share: the [`WireMessage`] codec trait, the
//! [`Reflect`] trait that shows a message as named fields and records (for tools), and the
//! helpers that implement both for the common shapes (a fixed struct; a header plus counted
//! records; concatenated self-describing records).

pub mod admin;
pub mod combat;
pub mod crew;
pub mod discovery;
pub mod handshake;
pub mod social;
pub mod voice;
pub mod world;

use crate::field::{FieldError, Source, Visitor};
use crate::ids::MsgId;
use crate::layout::{Counts, Fixed};
use crate::{DecodeError, EncodeError};

/// A message body with a byte-exact codec. The extension block (if any) follows the body and
/// is handled by [`crate::Packet`].
pub trait WireMessage: Sized {
    /// The message id (byte 0).
    const ID: MsgId;
    /// Decodes the body from a whole packet (byte 0 is the id, already checked); returns the
    /// message and the offset at which the extension block starts.
    fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError>;
    /// Appends the body (starting with the id byte).
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
}

/// Supplies the records of a message to a builder.
pub trait RecordSource {
    /// How many records there are.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A source for the `i`-th record's fields.
    fn record(&mut self, i: usize) -> &mut dyn Source;
    /// Whether the `i`-th record has a field of this name (used to tell two record kinds of
    /// one message apart, e.g. datalink tracks from threats).
    fn record_has(&self, i: usize, name: &str) -> bool;
}

/// A message shown as named header fields plus a list of records, and built back from them.
pub trait Reflect: Sized {
    /// Shows the header fields (including counts) under their spec names.
    fn visit_fields(&self, visitor: &mut dyn Visitor);
    /// Number of records.
    fn record_count(&self) -> usize {
        0
    }
    /// Shows the `i`-th record.
    fn visit_record(&self, _i: usize, _visitor: &mut dyn Visitor) {}
    /// Builds the message from header fields and records.
    fn build(fields: &mut dyn Source, records: &mut dyn RecordSource) -> Result<Self, FieldError>;
}

pub(crate) fn check_len(msg: &'static str, bytes: &[u8], need: usize) -> Result<(), DecodeError> {
    if bytes.len() < need {
        Err(DecodeError::TooShort {
            msg,
            need,
            got: bytes.len(),
        })
    } else {
        Ok(())
    }
}

/// Decodes a fixed struct at the start of `bytes`.
pub(crate) fn decode_fixed<T: Fixed>(bytes: &[u8]) -> Result<(T, Counts), DecodeError> {
    check_len(T::NAME, bytes, T::SIZE)?;
    T::read_fixed(&bytes[..T::SIZE])
}

/// Checks a record count against the count field's range and an optional spec maximum.
pub(crate) fn count_fits(
    msg: &'static str,
    what: &'static str,
    count: usize,
    max: usize,
) -> Result<u32, EncodeError> {
    if count > max {
        return Err(EncodeError::TooMany {
            msg,
            what,
            count,
            max,
        });
    }
    // max never exceeds u32::MAX for any count field.
    Ok(count as u32)
}

/// Builds a record list of `R` from a record source.
pub(crate) fn build_records<R: Fixed>(
    records: &mut dyn RecordSource,
    range: std::ops::Range<usize>,
) -> Result<Vec<R>, FieldError> {
    let mut out = Vec::with_capacity(range.len());
    for i in range {
        out.push(R::build_fixed(records.record(i))?.0);
    }
    Ok(out)
}

/// Rejects a given count that disagrees with the records supplied.
pub(crate) fn check_given_count(
    name: &'static str,
    given: Option<u64>,
    actual: usize,
) -> Result<(), FieldError> {
    match given {
        Some(n) if n != actual as u64 => Err(FieldError::Other(format!(
            "{name} is {n} but {actual} records were given"
        ))),
        _ => Ok(()),
    }
}

/// Implements [`WireMessage`] and [`Reflect`] for a message that is exactly one fixed struct.
macro_rules! fixed_message {
    ($($T:ident => $Id:ident),* $(,)?) => {$(
        impl $crate::msg::WireMessage for $T {
            const ID: $crate::ids::MsgId = $crate::ids::MsgId::$Id;
            fn decode_body(bytes: &[u8]) -> Result<(Self, usize), $crate::DecodeError> {
                let (m, _) = $crate::msg::decode_fixed::<$T>(bytes)?;
                Ok((m, <$T as $crate::layout::Fixed>::SIZE))
            }
            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), $crate::EncodeError> {
                $crate::layout::push_fixed(out, self, &$crate::layout::Counts::default());
                Ok(())
            }
        }
        impl $crate::msg::Reflect for $T {
            fn visit_fields(&self, visitor: &mut dyn $crate::field::Visitor) {
                <$T as $crate::layout::Fixed>::visit_fixed(
                    self, visitor, &$crate::layout::Counts::default());
            }
            fn build(
                fields: &mut dyn $crate::field::Source,
                _records: &mut dyn $crate::msg::RecordSource,
            ) -> Result<Self, $crate::field::FieldError> {
                Ok(<$T as $crate::layout::Fixed>::build_fixed(fields)?.0)
            }
        }
    )*};
}

/// Implements [`WireMessage`] and [`Reflect`] for a header with one count field followed by
/// that many fixed records held in the named `Vec` field.
macro_rules! counted_message {
    ($T:ident => $Id:ident, $field:ident: $R:ty, count $count_name:literal $count_ty:ty, max $max:expr) => {
        impl $crate::msg::WireMessage for $T {
            const ID: $crate::ids::MsgId = $crate::ids::MsgId::$Id;
            fn decode_body(bytes: &[u8]) -> Result<(Self, usize), $crate::DecodeError> {
                let (mut m, counts) = $crate::msg::decode_fixed::<$T>(bytes)?;
                let n = counts.get(0) as usize;
                if n > $max {
                    return Err($crate::DecodeError::malformed(
                        <$T as $crate::layout::Fixed>::NAME,
                        format!("{n} records exceed the maximum of {}", $max),
                    ));
                }
                let start = <$T as $crate::layout::Fixed>::SIZE;
                m.$field = $crate::layout::read_records::<$R>(
                    <$T as $crate::layout::Fixed>::NAME,
                    bytes,
                    start,
                    n,
                )?;
                Ok((m, start + n * <$R as $crate::layout::Fixed>::SIZE))
            }
            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), $crate::EncodeError> {
                let max = ($max as usize).min(<$count_ty>::MAX as usize);
                let n = $crate::msg::count_fits(
                    <$T as $crate::layout::Fixed>::NAME,
                    stringify!($field),
                    self.$field.len(),
                    max,
                )?;
                $crate::layout::push_fixed(out, self, &$crate::layout::Counts::new(&[n]));
                for r in &self.$field {
                    $crate::layout::push_fixed(out, r, &$crate::layout::Counts::default());
                }
                Ok(())
            }
        }
        impl $crate::msg::Reflect for $T {
            fn visit_fields(&self, visitor: &mut dyn $crate::field::Visitor) {
                let n = self.$field.len().min(u32::MAX as usize) as u32;
                <$T as $crate::layout::Fixed>::visit_fixed(
                    self,
                    visitor,
                    &$crate::layout::Counts::new(&[n]),
                );
            }
            fn record_count(&self) -> usize {
                self.$field.len()
            }
            fn visit_record(&self, i: usize, visitor: &mut dyn $crate::field::Visitor) {
                if let Some(r) = self.$field.get(i) {
                    <$R as $crate::layout::Fixed>::visit_fixed(
                        r,
                        visitor,
                        &$crate::layout::Counts::default(),
                    );
                }
            }
            fn build(
                fields: &mut dyn $crate::field::Source,
                records: &mut dyn $crate::msg::RecordSource,
            ) -> Result<Self, $crate::field::FieldError> {
                let (mut m, given) = <$T as $crate::layout::Fixed>::build_fixed(fields)?;
                let n = records.len();
                $crate::msg::check_given_count($count_name, given.get(0), n)?;
                m.$field = $crate::msg::build_records::<$R>(records, 0..n)?;
                Ok(m)
            }
        }
    };
}

/// Implements [`WireMessage`] and [`Reflect`] for a message that is a run of self-describing
/// records, each starting with the message id (`FactionDef`, `MissionRoster`). The packet holds
/// `len / size` records. Without a count there is no way to tell an extension block from more
/// records, so these messages carry none: a remainder shorter than a record is ignored.
macro_rules! concatenated_message {
    ($T:ident => $Id:ident, $R:ty) => {
        impl $crate::msg::WireMessage for $T {
            const ID: $crate::ids::MsgId = $crate::ids::MsgId::$Id;
            fn decode_body(bytes: &[u8]) -> Result<(Self, usize), $crate::DecodeError> {
                let size = <$R as $crate::layout::Fixed>::SIZE;
                $crate::msg::check_len(<$R as $crate::layout::Fixed>::NAME, bytes, size)?;
                let n = bytes.len() / size;
                let records = $crate::layout::read_records::<$R>(
                    <$R as $crate::layout::Fixed>::NAME,
                    bytes,
                    0,
                    n,
                )?;
                Ok(($T { records }, bytes.len()))
            }
            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), $crate::EncodeError> {
                if self.records.is_empty() {
                    return Err($crate::EncodeError::Invalid {
                        msg: <$R as $crate::layout::Fixed>::NAME,
                        reason: "needs at least one record (the packet is its records)".into(),
                    });
                }
                for r in &self.records {
                    $crate::layout::push_fixed(out, r, &$crate::layout::Counts::default());
                }
                Ok(())
            }
        }
        impl $crate::msg::Reflect for $T {
            fn visit_fields(&self, _visitor: &mut dyn $crate::field::Visitor) {}
            fn record_count(&self) -> usize {
                self.records.len()
            }
            fn visit_record(&self, i: usize, visitor: &mut dyn $crate::field::Visitor) {
                if let Some(r) = self.records.get(i) {
                    <$R as $crate::layout::Fixed>::visit_fixed(
                        r,
                        visitor,
                        &$crate::layout::Counts::default(),
                    );
                }
            }
            fn build(
                _fields: &mut dyn $crate::field::Source,
                records: &mut dyn $crate::msg::RecordSource,
            ) -> Result<Self, $crate::field::FieldError> {
                let n = records.len();
                Ok($T {
                    records: $crate::msg::build_records::<$R>(records, 0..n)?,
                })
            }
        }
    };
}

pub(crate) use {concatenated_message, counted_message, fixed_message};
