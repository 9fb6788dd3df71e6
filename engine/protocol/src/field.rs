//! Field codecs: how one fixed-size wire field (integer, float, `char[N]`, byte array, enum
//! ordinal) is read from and written to its bytes, and how it is shown to a generic visitor.
//!
//! This module owns the little-endian primitive encodings and the `char[N]` string rule. It does
//! not know any message layout (that is `layout.rs` and the message modules) and performs no I/O.

use std::fmt;

/// Why one field could not be read or built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// An enum byte that names no known ordinal, for a field whose rule is "reject".
    #[error("unknown ordinal {0}")]
    BadOrdinal(u64),
    /// A value given to a builder does not fit the wire type.
    #[error("value {value} does not fit {ty}")]
    OutOfRange { value: String, ty: &'static str },
    /// A builder was given the wrong kind of value (e.g. text for an integer).
    #[error("expected {0}")]
    WrongType(&'static str),
    /// Anything else a builder wants to say (the message names the problem).
    #[error("{0}")]
    Other(String),
}

/// Receives the fields of a message one by one, by their spec names (used to print JSON).
pub trait Visitor {
    /// An unsigned integer (any width up to 64 bits).
    fn uint(&mut self, name: &'static str, value: u64);
    /// A signed integer.
    fn int(&mut self, name: &'static str, value: i64);
    /// A 64-bit float.
    fn float64(&mut self, name: &'static str, value: f64);
    /// A 32-bit float (kept at its own width, so NaN payloads survive).
    fn float32(&mut self, name: &'static str, value: f32);
    /// A fixed array of 64-bit floats.
    fn floats64(&mut self, name: &'static str, values: &[f64]);
    /// A fixed array of 32-bit floats.
    fn floats32(&mut self, name: &'static str, values: &[f32]);
    /// A `char[N]` string, already decoded.
    fn text(&mut self, name: &'static str, value: &str);
    /// Opaque bytes.
    fn bytes(&mut self, name: &'static str, value: &[u8]);
    /// A single-bit flag.
    fn flag(&mut self, name: &'static str, value: bool);
}

/// Supplies field values by spec name (used to build a message from JSON). A missing field reads
/// as zero / empty; the implementation decides how to treat unknown or ill-typed input.
pub trait Source {
    /// An unsigned integer of at most `max` (a larger value is an error).
    fn uint(&mut self, name: &'static str, max: u64) -> Result<u64, FieldError>;
    /// A signed integer within `min..=max`.
    fn int(&mut self, name: &'static str, min: i64, max: i64) -> Result<i64, FieldError>;
    /// An enum ordinal; `valid` lists the known ones (the caller still checks).
    fn ordinal(&mut self, name: &'static str, valid: &[u8]) -> Result<u64, FieldError> {
        let _ = valid;
        self.uint(name, u64::from(u8::MAX))
    }
    fn float64(&mut self, name: &'static str) -> Result<f64, FieldError>;
    fn float32(&mut self, name: &'static str) -> Result<f32, FieldError>;
    /// Exactly `out.len()` floats.
    fn floats64(&mut self, name: &'static str, out: &mut [f64]) -> Result<(), FieldError>;
    /// Exactly `out.len()` floats.
    fn floats32(&mut self, name: &'static str, out: &mut [f32]) -> Result<(), FieldError>;
    fn text(&mut self, name: &'static str) -> Result<String, FieldError>;
    /// Text that may be absent altogether (absent ≠ empty).
    fn optional_text(&mut self, name: &'static str) -> Result<Option<String>, FieldError>;
    /// Exactly `out.len()` bytes (shorter input is zero-padded, longer is an error).
    fn bytes(&mut self, name: &'static str, out: &mut [u8]) -> Result<(), FieldError>;
    fn flag(&mut self, name: &'static str) -> Result<bool, FieldError>;
    /// Variable-length bytes of at most `max` (absent = empty).
    fn blob(&mut self, name: &'static str, max: usize) -> Result<Vec<u8>, FieldError>;
    /// A count field: `None` when absent (the encoder derives it from the records).
    fn count(&mut self, name: &'static str) -> Result<Option<u64>, FieldError>;
}

/// A value with a fixed little-endian wire representation of `SIZE` bytes.
pub trait WireField: Sized {
    /// Bytes on the wire.
    const SIZE: usize;
    /// Reads from exactly `SIZE` bytes.
    fn read(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Writes into exactly `SIZE` bytes (which the caller has zeroed).
    fn write(&self, bytes: &mut [u8]);
    /// Shows the value to a visitor under its spec name.
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor);
    /// Builds the value from a source.
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError>;
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

macro_rules! uint_field {
    ($($t:ty),*) => {$(
        impl WireField for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8]) -> Result<Self, FieldError> {
                Ok(<$t>::from_le_bytes(array(bytes)))
            }
            fn write(&self, bytes: &mut [u8]) {
                bytes[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
            fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
                visitor.uint(name, u64::from(*self));
            }
            fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
                let v = source.uint(name, u64::from(<$t>::MAX))?;
                <$t>::try_from(v).map_err(|_| FieldError::OutOfRange {
                    value: v.to_string(),
                    ty: stringify!($t),
                })
            }
        }
    )*};
}
uint_field!(u8, u16, u32, u64);

impl WireField for i32 {
    const SIZE: usize = 4;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(i32::from_le_bytes(array(bytes)))
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes[..4].copy_from_slice(&self.to_le_bytes());
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.int(name, i64::from(*self));
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        let v = source.int(name, i64::from(i32::MIN), i64::from(i32::MAX))?;
        i32::try_from(v).map_err(|_| FieldError::OutOfRange {
            value: v.to_string(),
            ty: "i32",
        })
    }
}

impl WireField for f32 {
    const SIZE: usize = 4;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(f32::from_le_bytes(array(bytes)))
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes[..4].copy_from_slice(&self.to_le_bytes());
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.float32(name, *self);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        source.float32(name)
    }
}

impl WireField for f64 {
    const SIZE: usize = 8;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(f64::from_le_bytes(array(bytes)))
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes[..8].copy_from_slice(&self.to_le_bytes());
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.float64(name, *self);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        source.float64(name)
    }
}

impl<const N: usize> WireField for [f32; N] {
    const SIZE: usize = 4 * N;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(std::array::from_fn(|i| {
            f32::from_le_bytes(array(&bytes[i * 4..]))
        }))
    }
    fn write(&self, bytes: &mut [u8]) {
        for (i, v) in self.iter().enumerate() {
            bytes[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.floats32(name, self);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        let mut out = [0.0f32; N];
        source.floats32(name, &mut out)?;
        Ok(out)
    }
}

impl<const N: usize> WireField for [f64; N] {
    const SIZE: usize = 8 * N;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(std::array::from_fn(|i| {
            f64::from_le_bytes(array(&bytes[i * 8..]))
        }))
    }
    fn write(&self, bytes: &mut [u8]) {
        for (i, v) in self.iter().enumerate() {
            bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.floats64(name, self);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        let mut out = [0.0f64; N];
        source.floats64(name, &mut out)?;
        Ok(out)
    }
}

impl<const N: usize> WireField for [u8; N] {
    const SIZE: usize = N;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(array(bytes))
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes[..N].copy_from_slice(self);
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.bytes(name, self);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        let mut out = [0u8; N];
        source.bytes(name, &mut out)?;
        Ok(out)
    }
}

/// A `char[N]` wire string: at most `N − 1` bytes of UTF-8 followed by NUL padding.
///
/// Construction cuts the text at its first NUL and then truncates it on a UTF-8 character
/// boundary to `N − 1` bytes, so the value held is always exactly what the wire will carry.
/// Decoding stops at the first NUL (or after `N` bytes if there is none) and replaces invalid
/// UTF-8 with U+FFFD, which is fine for display and never fails.
#[derive(Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct FixedStr<const N: usize>(String);

impl<const N: usize> FixedStr<N> {
    /// Usable bytes (the terminator takes one).
    pub const CAPACITY: usize = N - 1;

    /// Makes a wire string from `text`, cut at its first NUL and truncated to fit.
    pub fn new(text: &str) -> Self {
        let text = text.split('\0').next().unwrap_or_default();
        Self(truncate_utf8(text, Self::CAPACITY).to_owned())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Decodes the first NUL-terminated string in `bytes` (lossy UTF-8).
    pub fn from_wire(bytes: &[u8]) -> Self {
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Self::new(&String::from_utf8_lossy(&bytes[..end]))
    }
}

/// The longest prefix of `text` that is at most `max` bytes and ends on a character boundary.
pub fn truncate_utf8(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl<const N: usize> fmt::Debug for FixedStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<const N: usize> fmt::Display for FixedStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<const N: usize> From<&str> for FixedStr<N> {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl<const N: usize> std::ops::Deref for FixedStr<N> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<const N: usize> WireField for FixedStr<N> {
    const SIZE: usize = N;
    fn read(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(Self::from_wire(&bytes[..N]))
    }
    fn write(&self, bytes: &mut [u8]) {
        // The value never exceeds N − 1 bytes and the caller zeroed the field: NUL padding.
        bytes[..self.0.len()].copy_from_slice(self.0.as_bytes());
    }
    fn visit(&self, name: &'static str, visitor: &mut dyn Visitor) {
        visitor.text(name, &self.0);
    }
    fn build(name: &'static str, source: &mut dyn Source) -> Result<Self, FieldError> {
        Ok(Self::new(&source.text(name)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_str_truncates_on_a_char_boundary() {
        // "é" is two bytes; capacity 3 cannot hold "aé" + "é" (5 bytes), and cutting at 3 would
        // split the second "é", so the result stops at 3 = "aé".
        let s: FixedStr<4> = FixedStr::new("aéé");
        assert_eq!(s.as_str(), "aé");
        let mut wire = [0u8; 4];
        s.write(&mut wire);
        assert_eq!(wire, [b'a', 0xC3, 0xA9, 0]);
    }

    #[test]
    fn fixed_str_cuts_at_the_first_nul() {
        assert_eq!(FixedStr::<8>::new("ab\0cd").as_str(), "ab");
    }

    #[test]
    fn fixed_str_decode_stops_at_nul_and_is_lossy() {
        let s = FixedStr::<6>::from_wire(&[b'h', 0xFF, b'i', 0, b'x', b'y']);
        assert_eq!(s.as_str(), "h\u{FFFD}i");
        // No NUL at all: the whole field is taken, then cut to capacity.
        let s = FixedStr::<3>::from_wire(b"abc");
        assert_eq!(s.as_str(), "ab");
    }

    #[test]
    fn lossy_replacement_that_outgrows_the_field_is_truncated() {
        // Three invalid bytes become three 3-byte U+FFFD; capacity 3 keeps one.
        let s = FixedStr::<4>::from_wire(&[0xFF, 0xFE, 0xFD, 0]);
        assert_eq!(s.as_str(), "\u{FFFD}");
    }
}
