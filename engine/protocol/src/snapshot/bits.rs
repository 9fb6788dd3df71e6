//! MSB-first bit packing for snapshot records, with LEB128 varints written as 8-bit groups
//! inside the bit stream (low group first, top bit = "more follows").
//!
//! The writer fills a caller-owned byte slice and remembers overflow instead of panicking; the
//! reader bounds-checks every refill and fails closed on truncation. Byte order never reaches
//! the wire: values are assembled with shifts only.

/// The bit stream ended before a field did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncated;

/// A varint that is not a minimal LEB128 encoding of a `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarintError {
    Truncated,
    /// More than 32 value bits, or more than five groups.
    Overflow,
    /// A redundant trailing zero group (not the minimal encoding).
    Overlong,
}

impl From<Truncated> for VarintError {
    fn from(_: Truncated) -> Self {
        VarintError::Truncated
    }
}

const fn mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Writes bits MSB-first into a byte slice. Bits gather in a 64-bit word that is stored
/// eight bytes at a time, so a record costs a handful of stores rather than one per byte.
#[derive(Debug)]
pub struct BitWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
    /// Pending bits, right-aligned.
    acc: u64,
    nbits: u32,
    overflow: bool,
}

impl<'a> BitWriter<'a> {
    /// A writer that starts at the beginning of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self {
            buf,
            pos: 0,
            acc: 0,
            nbits: 0,
            overflow: false,
        }
    }

    #[inline]
    fn store(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.pos..self.pos + bytes.len()) {
            Some(slot) => slot.copy_from_slice(bytes),
            None => self.overflow = true,
        }
        self.pos += bytes.len();
    }

    /// Writes the low `n` bits of `value` (n ≤ 32), high bit first.
    #[inline]
    pub fn write(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32);
        if n == 0 {
            return;
        }
        let v = u64::from(value) & mask(n);
        let free = 64 - self.nbits;
        if n < free {
            self.acc = (self.acc << n) | v;
            self.nbits += n;
        } else {
            // Fill the word (free ≥ 1 here, and ≤ 32 since n ≤ 32), store it, keep the rest.
            let rest = n - free;
            let word = if free == 64 {
                v
            } else {
                (self.acc << free) | (v >> rest)
            };
            self.store(&word.to_be_bytes());
            self.acc = v & mask(rest);
            self.nbits = rest;
        }
    }

    /// Writes one bit.
    #[inline]
    pub fn flag(&mut self, value: bool) {
        self.write(u32::from(value), 1);
    }

    /// Writes a LEB128 varint as 8-bit groups.
    #[inline]
    pub fn varint(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.write((value & 0x7F) | 0x80, 8);
            value >>= 7;
        }
        self.write(value, 8);
    }

    /// Pads with zero bits to the next byte boundary.
    #[inline]
    pub fn align(&mut self) {
        let r = self.nbits % 8;
        if r > 0 {
            self.write(0, 8 - r);
        }
    }

    /// Aligns and returns the number of bytes written, or `None` if the slice was too small.
    pub fn finish(mut self) -> Option<usize> {
        self.align();
        let bytes = (self.nbits / 8) as usize;
        if bytes > 0 {
            // Left-align the pending whole bytes and store them.
            let word = (self.acc << (64 - self.nbits)).to_be_bytes();
            self.store(&word[..bytes]);
        }
        if self.overflow { None } else { Some(self.pos) }
    }
}

/// Bytes a varint of `value` takes.
pub const fn varint_len(value: u32) -> usize {
    match value {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// Appends a byte-aligned varint to a byte vector (the stitched `originIndex`).
pub fn push_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(((value & 0x7F) | 0x80) as u8);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads bits MSB-first from a byte slice.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Next byte to load into the accumulator.
    pos: usize,
    /// Left-aligned bit buffer: the next bit to read is bit 63.
    acc: u64,
    nbits: u32,
}

impl<'a> BitReader<'a> {
    /// A reader over `data`, starting at its first bit.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            acc: 0,
            nbits: 0,
        }
    }

    #[inline]
    fn refill(&mut self) {
        if self.pos + 8 <= self.data.len() {
            // Fast path: load eight bytes and keep as many whole bytes as fit.
            let mut word = [0u8; 8];
            word.copy_from_slice(&self.data[self.pos..self.pos + 8]);
            let word = u64::from_be_bytes(word);
            let take = (64 - self.nbits) / 8;
            if take == 0 {
                return;
            }
            // take ≥ 1 and nbits ≤ 56 here, so the shift is in range.
            self.acc |= (word >> self.nbits) & !mask(64 - self.nbits - take * 8);
            self.pos += take as usize;
            self.nbits += take * 8;
        } else {
            while self.nbits <= 56 && self.pos < self.data.len() {
                self.acc |= u64::from(self.data[self.pos]) << (56 - self.nbits);
                self.pos += 1;
                self.nbits += 8;
            }
        }
    }

    /// Reads `n` bits (1 ≤ n ≤ 32).
    #[inline]
    pub fn read(&mut self, n: u32) -> Result<u32, Truncated> {
        debug_assert!((1..=32).contains(&n));
        if self.nbits < n {
            self.refill();
            if self.nbits < n {
                return Err(Truncated);
            }
        }
        let value = (self.acc >> (64 - n)) as u32;
        self.acc <<= n;
        self.nbits -= n;
        Ok(value)
    }

    /// Reads one bit.
    #[inline]
    pub fn flag(&mut self) -> Result<bool, Truncated> {
        Ok(self.read(1)? == 1)
    }

    /// Reads a minimal LEB128 varint of at most five 8-bit groups.
    #[inline]
    pub fn varint(&mut self) -> Result<u32, VarintError> {
        let mut value: u32 = 0;
        for group in 0..5u32 {
            let byte = self.read(8)?;
            let payload = byte & 0x7F;
            if group == 4 && (byte & 0x80 != 0 || payload > 0x0F) {
                return Err(VarintError::Overflow);
            }
            value |= payload << (7 * group);
            if byte & 0x80 == 0 {
                if group > 0 && payload == 0 {
                    return Err(VarintError::Overlong);
                }
                return Ok(value);
            }
        }
        Err(VarintError::Overflow)
    }

    /// Skips to the next byte boundary (padding bits are not checked).
    #[inline]
    pub fn align(&mut self) {
        let r = self.nbits % 8;
        self.acc <<= r;
        self.nbits -= r;
    }

    /// Whole bytes consumed so far (after [`BitReader::align`]).
    pub fn bytes_consumed(&self) -> usize {
        self.pos - (self.nbits / 8) as usize
    }

    /// Bytes left, counting the partly read one as consumed.
    pub fn bytes_remaining(&self) -> usize {
        self.data.len() - self.pos + (self.nbits / 8) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_msb_first() {
        let mut buf = [0u8; 2];
        let mut w = BitWriter::new(&mut buf);
        w.write(0b101, 3);
        w.write(0b1, 1);
        w.write(0xAB, 8);
        assert_eq!(w.finish(), Some(2));
        // 101 1 1010 | 1011 0000
        assert_eq!(buf, [0b1011_1010, 0b1011_0000]);
    }

    #[test]
    fn varint_groups_are_low_first_inside_the_bit_stream() {
        let mut buf = [0u8; 4];
        let mut w = BitWriter::new(&mut buf);
        w.flag(true);
        w.varint(300); // 300 = 0b10_0101100 → groups 0xAC, 0x02
        assert_eq!(w.finish(), Some(3));
        // 1 | 1010_1100 | 0000_0010 | pad
        assert_eq!(&buf[..3], &[0b1101_0110, 0b0000_0001, 0b0000_0000]);
        let mut r = BitReader::new(&buf[..3]);
        assert_eq!(r.flag(), Ok(true));
        assert_eq!(r.varint(), Ok(300));
    }

    #[test]
    fn writer_overflow_is_reported_not_panicked() {
        let mut buf = [0u8; 1];
        let mut w = BitWriter::new(&mut buf);
        w.write(0xFFFF, 16);
        assert_eq!(w.finish(), None);
    }

    #[test]
    fn reader_fails_closed_on_truncation() {
        let mut r = BitReader::new(&[0xFF]);
        assert_eq!(r.read(4), Ok(0xF));
        assert_eq!(r.read(5), Err(Truncated));
    }

    #[test]
    fn varint_rejects_overflow_and_overlong() {
        assert_eq!(
            BitReader::new(&[0x80, 0x80, 0x80, 0x80, 0x10]).varint(),
            Err(VarintError::Overflow)
        );
        assert_eq!(
            BitReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]).varint(),
            Ok(u32::MAX)
        );
        assert_eq!(
            BitReader::new(&[0x80, 0x00]).varint(),
            Err(VarintError::Overlong)
        );
        assert_eq!(
            BitReader::new(&[0x80]).varint(),
            Err(VarintError::Truncated)
        );
    }

    #[test]
    fn fast_and_slow_refill_paths_agree() {
        let data: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
        let widths = [1u32, 7, 13, 32, 3, 22, 18, 12, 10, 2, 9, 31];
        let mut fast = BitReader::new(&data);
        let mut values = Vec::new();
        let mut total = 0;
        for &w in widths.iter().cycle() {
            if total + w as usize > data.len() * 8 {
                break;
            }
            values.push(fast.read(w).expect("in range"));
            total += w as usize;
        }
        // Re-read bit by bit.
        let mut slow = BitReader::new(&data);
        for (i, (&w, &expected)) in widths.iter().cycle().zip(&values).enumerate() {
            let mut v = 0u32;
            for _ in 0..w {
                v = (v << 1) | slow.read(1).expect("in range");
            }
            assert_eq!(v, expected, "field {i} width {w}");
        }
    }

    #[test]
    fn align_and_consumed_bytes() {
        let data = [0xAA, 0xBB, 0xCC];
        let mut r = BitReader::new(&data);
        r.read(3).expect("ok");
        r.align();
        assert_eq!(r.bytes_consumed(), 1);
        assert_eq!(r.read(8), Ok(0xBB));
        assert_eq!(r.bytes_remaining(), 1);
    }

    #[test]
    fn varint_len_matches_encoding() {
        for v in [0u32, 127, 128, 16383, 16384, 2_097_151, 2_097_152, u32::MAX] {
            let mut out = Vec::new();
            push_varint(&mut out, v);
            assert_eq!(out.len(), varint_len(v), "{v}");
        }
    }
}
