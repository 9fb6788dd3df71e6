//! Fixed-layout wire structs, declared once in the shape of the spec's offset tables.
//!
//! `wire_struct!` turns a table of `@offset specName rust_name: Type;` rows (plus `msgId`,
//! `pad` and `count` rows) into a Rust struct holding only the meaningful fields, and an
//! implementation of [`Fixed`] that reads, writes, visits and builds it, and exposes the layout
//! (every byte accounted for) so tests can compare it with the spec. A compile-time check proves
//! the rows tile the struct exactly. This module knows no particular message.

use crate::field::{FieldError, Source, Visitor};

/// One row of a wire layout: a named byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutEntry {
    /// The spec's field name (`msgId`, `reserved`, `protocolVersion`, …).
    pub name: &'static str,
    /// Byte offset from the start of the struct.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// Up to two record counts carried in a header (`typeCount`, `trackCount` + `threatCount`, …).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    values: [u32; 2],
    len: usize,
}

impl Counts {
    /// Counts in declaration order.
    pub fn new(values: &[u32]) -> Self {
        let mut out = Self::default();
        for &v in values.iter().take(2) {
            out.values[out.len] = v;
            out.len += 1;
        }
        out
    }
    pub(crate) fn push(&mut self, value: u32) {
        if self.len < 2 {
            self.values[self.len] = value;
            self.len += 1;
        }
    }
    /// The `i`-th count (0 if absent).
    pub fn get(&self, i: usize) -> u32 {
        if i < self.len { self.values[i] } else { 0 }
    }
    /// All counts.
    pub fn as_slice(&self) -> &[u32] {
        &self.values[..self.len]
    }
}

/// Counts supplied by a builder: each may be absent (then derived from the records).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GivenCounts {
    values: [Option<u64>; 2],
    len: usize,
}

impl GivenCounts {
    pub(crate) fn push(&mut self, value: Option<u64>) {
        if self.len < 2 {
            self.values[self.len] = value;
            self.len += 1;
        }
    }
    /// The `i`-th given count, if the builder supplied it.
    pub fn get(&self, i: usize) -> Option<u64> {
        if i < self.len { self.values[i] } else { None }
    }
}

/// A struct with a fixed wire size and layout.
pub trait Fixed: Sized {
    /// The spec's name for the struct (e.g. `MsgConnectAck`, `PackManifestEntry`).
    const NAME: &'static str;
    /// Bytes on the wire.
    const SIZE: usize;
    /// Every byte range, in offset order, tiling `0..SIZE` exactly.
    const LAYOUT: &'static [LayoutEntry];
    /// Reads the struct from the first `SIZE` bytes of `bytes` (the caller checked the length),
    /// returning the count fields separately.
    fn read_fixed(bytes: &[u8]) -> Result<(Self, Counts), crate::DecodeError>;
    /// Writes the struct into `out[..SIZE]`, which the caller has zeroed.
    fn write_fixed(&self, out: &mut [u8], counts: &Counts);
    /// Shows every meaningful field (and the counts) to a visitor, in offset order.
    fn visit_fixed(&self, visitor: &mut dyn Visitor, counts: &Counts);
    /// Builds the struct from a source; counts come back as given (or absent).
    fn build_fixed(source: &mut dyn Source) -> Result<(Self, GivenCounts), FieldError>;
}

/// True when `layout` covers `0..size` exactly, in order, without gaps or overlaps.
pub const fn layout_tiles(layout: &[LayoutEntry], size: usize) -> bool {
    let mut next = 0;
    let mut i = 0;
    while i < layout.len() {
        if layout[i].offset != next || layout[i].size == 0 {
            return false;
        }
        next += layout[i].size;
        i += 1;
    }
    next == size
}

/// Declares a fixed-layout wire struct. See the module documentation.
///
/// Rows (each ends with `;`):
/// - `@0 msgId = 0x11;` — the constant message id byte (not a struct field);
/// - `@6 reserved pad 2;` — padding written as zero and ignored on read;
/// - `@4 packCount count u16;` — a record count, derived from the records on encode;
/// - `@8 requestedEntityType requested_entity_type: FixedStr<64>;` — a field.
///
/// `extra { … }` appends hand-written fields (records) that the layout does not cover; they
/// must implement `Default`.
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident ($spec_name:literal, $size:literal) {
            $($body:tt)*
        }
        $(extra { $($extra:tt)* })?
    ) => {
        wire_struct!(@munch
            [$(#[$meta])*] [$Name $spec_name $size] [$($($extra)*)?]
            [] []
            $($body)*
        );
    };
    (@munch $m:tt $n:tt $x:tt [$($f:tt)*] [$($e:tt)*]
        @ $off:literal msgId = $val:literal ; $($rest:tt)*) => {
        wire_struct!(@munch $m $n $x [$($f)*] [$($e)* [id $off $val]] $($rest)*);
    };
    (@munch $m:tt $n:tt $x:tt [$($f:tt)*] [$($e:tt)*]
        @ $off:literal $spec:ident pad $len:literal ; $($rest:tt)*) => {
        wire_struct!(@munch $m $n $x [$($f)*] [$($e)* [pad $off $spec $len]] $($rest)*);
    };
    (@munch $m:tt $n:tt $x:tt [$($f:tt)*] [$($e:tt)*]
        @ $off:literal $spec:ident count $ty:ty ; $($rest:tt)*) => {
        wire_struct!(@munch $m $n $x [$($f)*] [$($e)* [count $off $spec $ty]] $($rest)*);
    };
    (@munch $m:tt $n:tt $x:tt [$($f:tt)*] [$($e:tt)*]
        $(#[doc = $doc:literal])* @ $off:literal $spec:ident $name:ident : $ty:ty ; $($rest:tt)*) => {
        wire_struct!(@munch $m $n $x [$($f)* $(#[doc = $doc])* pub $name: $ty,]
            [$($e)* [field $off $spec $name $ty]] $($rest)*);
    };
    (@munch [$($m:tt)*] [$Name:ident $spec_name:literal $size:literal] [$($x:tt)*]
        [$($f:tt)*] [$($e:tt)*]) => {
        $($m)*
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $Name {
            $($f)*
            $($x)*
        }

        impl $crate::layout::Fixed for $Name {
            const NAME: &'static str = $spec_name;
            const SIZE: usize = $size;
            const LAYOUT: &'static [$crate::layout::LayoutEntry] = &[
                $( wire_struct!(@layout $e) ),*
            ];

            #[allow(unused_mut, unused_variables)]
            fn read_fixed(
                bytes: &[u8],
            ) -> Result<(Self, $crate::layout::Counts), $crate::DecodeError> {
                let mut out = Self::default();
                let mut counts = $crate::layout::Counts::default();
                $( wire_struct!(@read out counts bytes $e); )*
                Ok((out, counts))
            }

            #[allow(unused_mut, unused_variables, unused_assignments)]
            fn write_fixed(&self, out: &mut [u8], counts: &$crate::layout::Counts) {
                let mut next_count = 0usize;
                $( wire_struct!(@write self out counts next_count $e); )*
            }

            #[allow(unused_mut, unused_variables, unused_assignments)]
            fn visit_fixed(
                &self,
                visitor: &mut dyn $crate::field::Visitor,
                counts: &$crate::layout::Counts,
            ) {
                let mut next_count = 0usize;
                $( wire_struct!(@visit self visitor counts next_count $e); )*
            }

            #[allow(unused_mut, unused_variables)]
            fn build_fixed(
                source: &mut dyn $crate::field::Source,
            ) -> Result<(Self, $crate::layout::GivenCounts), $crate::field::FieldError> {
                let mut out = Self::default();
                let mut counts = $crate::layout::GivenCounts::default();
                $( wire_struct!(@build out counts source $e); )*
                Ok((out, counts))
            }
        }

        const _: () = assert!(
            $crate::layout::layout_tiles(
                <$Name as $crate::layout::Fixed>::LAYOUT,
                <$Name as $crate::layout::Fixed>::SIZE,
            ),
            concat!("layout rows of ", stringify!($Name), " do not tile its size"),
        );
    };

    // ---- per-row code ----
    (@layout [id $off:literal $val:literal]) => {
        $crate::layout::LayoutEntry { name: "msgId", offset: $off, size: 1 }
    };
    (@layout [pad $off:literal $spec:ident $len:literal]) => {
        $crate::layout::LayoutEntry { name: stringify!($spec), offset: $off, size: $len }
    };
    (@layout [count $off:literal $spec:ident $ty:ty]) => {
        $crate::layout::LayoutEntry {
            name: stringify!($spec),
            offset: $off,
            size: <$ty as $crate::field::WireField>::SIZE,
        }
    };
    (@layout [field $off:literal $spec:ident $name:ident $ty:ty]) => {
        $crate::layout::LayoutEntry {
            name: stringify!($spec),
            offset: $off,
            size: <$ty as $crate::field::WireField>::SIZE,
        }
    };

    (@read $out:ident $counts:ident $bytes:ident [id $off:literal $val:literal]) => {};
    (@read $out:ident $counts:ident $bytes:ident [pad $off:literal $spec:ident $len:literal]) => {};
    (@read $out:ident $counts:ident $bytes:ident [count $off:literal $spec:ident $ty:ty]) => {
        $counts.push(u32::from(
            <$ty as $crate::field::WireField>::read(
                &$bytes[$off..$off + <$ty as $crate::field::WireField>::SIZE],
            )
            .map_err(|e| $crate::DecodeError::field(Self::NAME, stringify!($spec), e))?,
        ));
    };
    (@read $out:ident $counts:ident $bytes:ident [field $off:literal $spec:ident $name:ident $ty:ty]) => {
        $out.$name = <$ty as $crate::field::WireField>::read(
            &$bytes[$off..$off + <$ty as $crate::field::WireField>::SIZE],
        )
        .map_err(|e| $crate::DecodeError::field(Self::NAME, stringify!($spec), e))?;
    };

    (@write $s:ident $out:ident $counts:ident $n:ident [id $off:literal $val:literal]) => {
        $out[$off] = $val;
    };
    (@write $s:ident $out:ident $counts:ident $n:ident [pad $off:literal $spec:ident $len:literal]) => {};
    (@write $s:ident $out:ident $counts:ident $n:ident [count $off:literal $spec:ident $ty:ty]) => {
        // Callers check counts against the wire type's range before encoding.
        let value = <$ty>::try_from($counts.get($n)).unwrap_or(<$ty>::MAX);
        $n += 1;
        <$ty as $crate::field::WireField>::write(
            &value,
            &mut $out[$off..$off + <$ty as $crate::field::WireField>::SIZE],
        );
    };
    (@write $s:ident $out:ident $counts:ident $n:ident [field $off:literal $spec:ident $name:ident $ty:ty]) => {
        <$ty as $crate::field::WireField>::write(
            &$s.$name,
            &mut $out[$off..$off + <$ty as $crate::field::WireField>::SIZE],
        );
    };

    (@visit $s:ident $v:ident $counts:ident $n:ident [id $off:literal $val:literal]) => {};
    (@visit $s:ident $v:ident $counts:ident $n:ident [pad $off:literal $spec:ident $len:literal]) => {};
    (@visit $s:ident $v:ident $counts:ident $n:ident [count $off:literal $spec:ident $ty:ty]) => {
        $v.uint(stringify!($spec), u64::from($counts.get($n)));
        $n += 1;
    };
    (@visit $s:ident $v:ident $counts:ident $n:ident [field $off:literal $spec:ident $name:ident $ty:ty]) => {
        <$ty as $crate::field::WireField>::visit(&$s.$name, stringify!($spec), $v);
    };

    (@build $out:ident $counts:ident $src:ident [id $off:literal $val:literal]) => {};
    (@build $out:ident $counts:ident $src:ident [pad $off:literal $spec:ident $len:literal]) => {};
    (@build $out:ident $counts:ident $src:ident [count $off:literal $spec:ident $ty:ty]) => {
        $counts.push($src.count(stringify!($spec))?);
    };
    (@build $out:ident $counts:ident $src:ident [field $off:literal $spec:ident $name:ident $ty:ty]) => {
        $out.$name = <$ty as $crate::field::WireField>::build(stringify!($spec), $src)?;
    };
}

/// Declares a `u8` wire enum with its ordinals, and how an unknown ordinal is treated on
/// decode: `reject` (a typed error) or `fallback Variant` (the spec's documented default).
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $Name:ident ($policy:ident $($fallback:ident)?) {
            $( $(#[$vmeta:meta])* $Variant:ident = $value:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $Name {
            $( $(#[$vmeta])* $Variant = $value ),+
        }

        impl $Name {
            /// Every variant, in ordinal order.
            pub const ALL: &'static [$Name] = &[$($Name::$Variant),+];

            /// The variant with this ordinal, if any.
            pub const fn from_u8(value: u8) -> Option<Self> {
                match value {
                    $( $value => Some($Name::$Variant), )+
                    _ => None,
                }
            }

            /// The wire ordinal.
            pub const fn to_u8(self) -> u8 {
                self as u8
            }

            /// The variant's name as the spec spells it.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $Name::$Variant => stringify!($Variant), )+
                }
            }
        }

        impl TryFrom<u8> for $Name {
            type Error = $crate::field::FieldError;
            fn try_from(value: u8) -> Result<Self, Self::Error> {
                Self::from_u8(value).ok_or($crate::field::FieldError::BadOrdinal(u64::from(value)))
            }
        }

        impl From<$Name> for u8 {
            fn from(value: $Name) -> u8 {
                value as u8
            }
        }

        impl Default for $Name {
            fn default() -> Self {
                Self::ALL[0]
            }
        }

        impl $crate::field::WireField for $Name {
            const SIZE: usize = 1;
            fn read(bytes: &[u8]) -> Result<Self, $crate::field::FieldError> {
                wire_enum!(@decode $Name bytes[0], $policy $($fallback)?)
            }
            fn write(&self, bytes: &mut [u8]) {
                bytes[0] = *self as u8;
            }
            fn visit(&self, name: &'static str, visitor: &mut dyn $crate::field::Visitor) {
                visitor.uint(name, u64::from(*self as u8));
            }
            fn build(
                name: &'static str,
                source: &mut dyn $crate::field::Source,
            ) -> Result<Self, $crate::field::FieldError> {
                let valid: &[u8] = &[$($value),+];
                let v = source.ordinal(name, valid)?;
                u8::try_from(v)
                    .ok()
                    .and_then(Self::from_u8)
                    .ok_or($crate::field::FieldError::BadOrdinal(v))
            }
        }
    };
    (@decode $Name:ident $byte:expr, reject) => {
        $Name::try_from($byte)
    };
    (@decode $Name:ident $byte:expr, fallback $fallback:ident) => {
        Ok($Name::from_u8($byte).unwrap_or($Name::$fallback))
    };
}

pub(crate) use {wire_enum, wire_struct};

/// Reads `count` consecutive fixed records starting at `offset`, refusing before allocating
/// if the packet is too short to hold them.
pub(crate) fn read_records<R: Fixed>(
    msg: &'static str,
    bytes: &[u8],
    offset: usize,
    count: usize,
) -> Result<Vec<R>, crate::DecodeError> {
    let need = count
        .checked_mul(R::SIZE)
        .and_then(|n| n.checked_add(offset))
        .unwrap_or(usize::MAX);
    if bytes.len() < need {
        return Err(crate::DecodeError::TooShort {
            msg,
            need,
            got: bytes.len(),
        });
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let start = offset + i * R::SIZE;
        out.push(R::read_fixed(&bytes[start..start + R::SIZE])?.0);
    }
    Ok(out)
}

/// Appends `record` as `R::SIZE` bytes.
pub(crate) fn push_fixed<R: Fixed>(out: &mut Vec<u8>, record: &R, counts: &Counts) {
    let start = out.len();
    out.resize(start + R::SIZE, 0);
    record.write_fixed(&mut out[start..], counts);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiling_detects_gaps_overlaps_and_short_layouts() {
        let e = |offset, size| LayoutEntry {
            name: "x",
            offset,
            size,
        };
        assert!(layout_tiles(&[e(0, 1), e(1, 3)], 4));
        assert!(!layout_tiles(&[e(0, 1), e(2, 2)], 4), "gap");
        assert!(!layout_tiles(&[e(0, 2), e(1, 3)], 4), "overlap");
        assert!(!layout_tiles(&[e(0, 1), e(1, 2)], 4), "short");
    }
}
