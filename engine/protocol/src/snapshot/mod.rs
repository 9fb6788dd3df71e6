//! `MsgWorldSnapshot`: the 24-byte header, the shared-origin table, the byte-aligned stitched
//! record stream, the TLV block, and the optional zstd-compressed body.
//!
//! Servers encode each entity once per tick ([`EncodedEntity`]) and assemble every peer's
//! packet with a reusable [`SnapshotWriter`] (stitching = prefixing each body with its origin
//! index). Clients decode with a reusable [`SnapshotDecoder`], which bounds `uncompressedBytes`
//! by [`MAX_PAYLOAD_BYTES`] before allocating and rejects a body whose decoded length differs
//! from the claim. This module does no I/O and keeps no per-peer state.

pub mod bits;
pub mod quant;
pub mod record;

use crate::ids::{MsgId, PROTOCOL_VERSION};
use crate::layout::{Fixed, wire_struct};
use crate::tlv::Extensions;
use crate::{DecodeError, EncodeError};
use bits::{BitReader, push_varint};
pub use quant::{ORIGIN_GRID_M, QuatCode, origin_for};
pub use record::{
    EncodedEntity, EntityState, FullInfo, MIN_RECORD_BYTES, RecordBody, RecordKind, SnapshotRecord,
};

/// Header bytes.
pub const HEADER_BYTES: usize = 24;
/// Bytes of one origin table entry (`double[3]`).
pub const ORIGIN_BYTES: usize = 24;
/// `flags` bit 0: the body after the header is one zstd frame.
pub const FLAG_COMPRESSED: u16 = 0x0001;
/// Largest decompressed body a receiver accepts (`kMaxSnapshotPayloadBytes`).
pub const MAX_PAYLOAD_BYTES: usize = 4 * 1024 * 1024;
/// Bodies smaller than this are never compressed (`kMinSnapshotCompressBytes`).
pub const MIN_COMPRESS_BYTES: usize = 128;
/// zstd level servers use (speed over ratio at 60 Hz).
pub const DEFAULT_COMPRESSION_LEVEL: i32 = 1;
/// Ticks without an update after which a client evicts an entity and a server re-sends a full
/// record (`kSnapshotRetentionTicks`, ~3 s).
pub const RETENTION_TICKS: u64 = 180;
/// Snapshots that repeat a despawn for drop tolerance (`kDespawnRepeatTicks`).
pub const DESPAWN_REPEAT_TICKS: u64 = 4;

const MSG: &str = "MsgWorldSnapshot";

wire_struct! {
    /// The 24-byte snapshot header, as on the wire (counts and lengths included).
    pub struct SnapshotHeader ("MsgWorldSnapshotHeader", 24) {
        @0 msgId = 0x02;
        @1 protocolVersion protocol_version: u8;
        @2 recordCount record_count: u16;
        /// Length of the record stream (of the decompressed body).
        @4 bitstreamBytes bitstream_bytes: u32;
        @8 tickIndex tick_index: u64;
        @16 originCount origin_count: u16;
        /// `FLAG_COMPRESSED` and future bits.
        @18 flags flags: u16;
        /// Decompressed body length when compressed, else 0.
        @20 uncompressedBytes uncompressed_bytes: u32;
    }
}

/// A decoded (or to-be-encoded) snapshot. Counts and lengths are derived from the contents.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorldSnapshot {
    /// The sender's protocol version stamp.
    pub protocol_version: u8,
    pub tick_index: u64,
    /// Header flags; with `FLAG_COMPRESSED` set, [`WorldSnapshot::encode`] compresses the body.
    pub flags: u16,
    /// Shared grid origins the records refer to.
    pub origins: Vec<[f64; 3]>,
    pub records: Vec<SnapshotRecord>,
}

/// How a [`SnapshotWriter`] treats compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Always raw.
    Off,
    /// Compress only when the body is at least [`MIN_COMPRESS_BYTES`] and strictly shrinks
    /// (the server policy).
    WhenSmaller { level: i32 },
    /// Always compress (tools; tests).
    Always { level: i32 },
}

/// What one assembled snapshot came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SnapshotSize {
    /// Body bytes before compression.
    pub raw_body: usize,
    /// Packet bytes as sent.
    pub packet: usize,
    pub compressed: bool,
}

/// Assembles snapshot packets from pre-encoded record bodies, reusing its buffers and its zstd
/// context across ticks and peers.
#[derive(Default)]
pub struct SnapshotWriter {
    origins: Vec<[f64; 3]>,
    stream: Vec<u8>,
    record_count: usize,
    body: Vec<u8>,
    compressor: Option<zstd::bulk::Compressor<'static>>,
    compressor_level: i32,
}

impl std::fmt::Debug for SnapshotWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotWriter")
            .field("origins", &self.origins.len())
            .field("records", &self.record_count)
            .field("stream_bytes", &self.stream.len())
            .finish()
    }
}

impl SnapshotWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new packet (keeps the allocations).
    pub fn begin(&mut self) {
        self.origins.clear();
        self.stream.clear();
        self.record_count = 0;
    }

    /// Records so far.
    pub fn record_count(&self) -> usize {
        self.record_count
    }

    /// The packet size so far, before TLVs and compression (for byte budgets).
    pub fn raw_len(&self) -> usize {
        HEADER_BYTES + self.origins.len() * ORIGIN_BYTES + self.stream.len()
    }

    /// What stitching `body` at `origin` would add to [`SnapshotWriter::raw_len`].
    pub fn cost_of(&self, origin: [f64; 3], body: &RecordBody) -> usize {
        let (index, new) = self.find_origin(origin);
        bits::varint_len(index) + body.as_bytes().len() + if new { ORIGIN_BYTES } else { 0 }
    }

    fn find_origin(&self, origin: [f64; 3]) -> (u32, bool) {
        let bits = origin.map(f64::to_bits);
        match self
            .origins
            .iter()
            .position(|o| o.map(f64::to_bits) == bits)
        {
            Some(i) => (i as u32, false),
            None => (self.origins.len() as u32, true),
        }
    }

    /// Stitches one record body: its origin's index (added to the table on first use), then
    /// the body bytes.
    pub fn push(&mut self, origin: [f64; 3], body: &RecordBody) -> Result<(), EncodeError> {
        if !origin.iter().all(|v| v.is_finite()) {
            return Err(non_finite_origin());
        }
        if self.record_count >= usize::from(u16::MAX) {
            return Err(EncodeError::TooMany {
                msg: MSG,
                what: "records",
                count: self.record_count + 1,
                max: usize::from(u16::MAX),
            });
        }
        let (index, new) = self.find_origin(origin);
        if new {
            if self.origins.len() >= usize::from(u16::MAX) {
                return Err(EncodeError::TooMany {
                    msg: MSG,
                    what: "origins",
                    count: self.origins.len() + 1,
                    max: usize::from(u16::MAX),
                });
            }
            self.origins.push(origin);
        }
        push_varint(&mut self.stream, index);
        self.stream.extend_from_slice(body.as_bytes());
        self.record_count += 1;
        Ok(())
    }

    /// Writes the packet into `out` (cleared first) and reports its size.
    pub fn finish(
        &mut self,
        tick_index: u64,
        ext: &Extensions,
        compression: Compression,
        out: &mut Vec<u8>,
    ) -> Result<SnapshotSize, EncodeError> {
        self.finish_with(PROTOCOL_VERSION as u8, tick_index, 0, ext, compression, out)
    }

    fn finish_with(
        &mut self,
        protocol_version: u8,
        tick_index: u64,
        extra_flags: u16,
        ext: &Extensions,
        compression: Compression,
        out: &mut Vec<u8>,
    ) -> Result<SnapshotSize, EncodeError> {
        let bitstream_bytes =
            u32::try_from(self.stream.len()).map_err(|_| EncodeError::Invalid {
                msg: MSG,
                reason: "record stream exceeds 4 GiB".into(),
            })?;
        self.body.clear();
        for o in &self.origins {
            for v in o {
                self.body.extend_from_slice(&v.to_le_bytes());
            }
        }
        self.body.extend_from_slice(&self.stream);
        self.body.extend_from_slice(ext.as_bytes());
        let raw_body = self.body.len();

        let level = match compression {
            Compression::Off => None,
            Compression::WhenSmaller { level } if raw_body >= MIN_COMPRESS_BYTES => Some(level),
            Compression::WhenSmaller { .. } => None,
            Compression::Always { level } => Some(level),
        };
        let mut header = SnapshotHeader {
            protocol_version,
            record_count: self.record_count as u16,
            bitstream_bytes,
            tick_index,
            origin_count: self.origins.len() as u16,
            flags: extra_flags & !FLAG_COMPRESSED,
            uncompressed_bytes: 0,
        };
        out.clear();
        out.resize(HEADER_BYTES, 0);
        let mut compressed = false;
        if let Some(level) = level {
            if raw_body > MAX_PAYLOAD_BYTES {
                return Err(EncodeError::Invalid {
                    msg: MSG,
                    reason: format!(
                        "body of {raw_body} bytes is too large to compress (max {MAX_PAYLOAD_BYTES})"
                    ),
                });
            }
            if let Some(frame_len) = self.compress_into(level, out) {
                let must = matches!(compression, Compression::Always { .. });
                if must || frame_len < raw_body {
                    compressed = true;
                    header.flags |= FLAG_COMPRESSED;
                    header.uncompressed_bytes = raw_body as u32;
                } else {
                    out.truncate(HEADER_BYTES);
                }
            } else if matches!(compression, Compression::Always { .. }) {
                return Err(EncodeError::Invalid {
                    msg: MSG,
                    reason: "zstd compression failed".into(),
                });
            }
        }
        if !compressed {
            out.extend_from_slice(&self.body);
        }
        header.write_fixed(&mut out[..HEADER_BYTES], &Default::default());
        Ok(SnapshotSize {
            raw_body,
            packet: out.len(),
            compressed,
        })
    }

    /// Appends the zstd frame of `self.body` to `out`; returns its length.
    fn compress_into(&mut self, level: i32, out: &mut Vec<u8>) -> Option<usize> {
        if self.compressor.is_none() || self.compressor_level != level {
            self.compressor = zstd::bulk::Compressor::new(level).ok();
            self.compressor_level = level;
        }
        let compressor = self.compressor.as_mut()?;
        let start = out.len();
        let mut frame = Vec::with_capacity(zstd::zstd_safe::compress_bound(self.body.len()));
        let n = compressor.compress_to_buffer(&self.body, &mut frame).ok()?;
        out.extend_from_slice(&frame[..n]);
        Some(out.len() - start)
    }
}

/// Decodes snapshots, reusing one zstd context.
#[derive(Default)]
pub struct SnapshotDecoder {
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

impl std::fmt::Debug for SnapshotDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotDecoder").finish_non_exhaustive()
    }
}

impl SnapshotDecoder {
    /// A decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads only the header (no decompression): enough for byte-0 dispatch, the version
    /// stamp and the out-of-order tick guard.
    pub fn header(bytes: &[u8]) -> Result<SnapshotHeader, DecodeError> {
        crate::msg::check_len(MSG, bytes, HEADER_BYTES)?;
        if bytes[0] != MsgId::WorldSnapshot.to_u8() {
            return Err(DecodeError::UnknownMsgId(bytes[0]));
        }
        Ok(SnapshotHeader::read_fixed(&bytes[..HEADER_BYTES])?.0)
    }

    /// Decodes a whole snapshot packet.
    pub fn decode(
        &mut self,
        bytes: &[u8],
    ) -> Result<(SnapshotHeader, WorldSnapshot, Extensions), DecodeError> {
        let header = Self::header(bytes)?;
        let payload = &bytes[HEADER_BYTES..];
        let inflated;
        let body: &[u8] = if header.flags & FLAG_COMPRESSED != 0 {
            inflated = self.decompress(&header, payload)?;
            &inflated
        } else {
            if header.uncompressed_bytes != 0 {
                return Err(DecodeError::malformed(
                    MSG,
                    "uncompressedBytes must be 0 for a raw body",
                ));
            }
            payload
        };
        let (origins, records, ext) = parse_body(&header, body)?;
        let snapshot = WorldSnapshot {
            protocol_version: header.protocol_version,
            tick_index: header.tick_index,
            flags: header.flags,
            origins,
            records,
        };
        Ok((header, snapshot, ext))
    }

    fn decompress(
        &mut self,
        header: &SnapshotHeader,
        frame: &[u8],
    ) -> Result<Vec<u8>, DecodeError> {
        let claim = header.uncompressed_bytes as usize;
        if claim > MAX_PAYLOAD_BYTES {
            return Err(DecodeError::malformed(
                MSG,
                format!("uncompressedBytes {claim} exceeds the {MAX_PAYLOAD_BYTES}-byte limit"),
            ));
        }
        if self.decompressor.is_none() {
            let mut d = zstd::bulk::Decompressor::new().map_err(|e| {
                DecodeError::malformed(MSG, format!("cannot create a zstd context: {e}"))
            })?;
            // A single-pass decode needs no window beyond the output; cap it anyway.
            let _ = d.window_log_max(23);
            self.decompressor = Some(d);
        }
        let Some(d) = self.decompressor.as_mut() else {
            return Err(DecodeError::malformed(MSG, "no zstd context"));
        };
        // `decompress` refuses a frame that declares more than `claim` before allocating.
        let out = d
            .decompress(frame, claim)
            .map_err(|e| DecodeError::malformed(MSG, format!("zstd: {e}")))?;
        if out.len() != claim {
            return Err(DecodeError::malformed(
                MSG,
                format!(
                    "decompressed body is {} bytes, header claims {claim}",
                    out.len()
                ),
            ));
        }
        Ok(out)
    }
}

fn non_finite_origin() -> EncodeError {
    EncodeError::Invalid {
        msg: MSG,
        reason: "an origin is not finite (the decoder would refuse the packet)".into(),
    }
}

type Body = (Vec<[f64; 3]>, Vec<SnapshotRecord>, Extensions);

fn parse_body(header: &SnapshotHeader, body: &[u8]) -> Result<Body, DecodeError> {
    let origin_count = usize::from(header.origin_count);
    let table = origin_count * ORIGIN_BYTES;
    let stream_end = table.saturating_add(header.bitstream_bytes as usize);
    if body.len() < stream_end {
        return Err(DecodeError::TooShort {
            msg: MSG,
            need: HEADER_BYTES.saturating_add(stream_end),
            got: HEADER_BYTES + body.len(),
        });
    }
    let record_count = usize::from(header.record_count);
    if record_count * MIN_RECORD_BYTES > header.bitstream_bytes as usize {
        return Err(DecodeError::malformed(
            MSG,
            format!(
                "{record_count} records cannot fit in a {}-byte record stream",
                header.bitstream_bytes
            ),
        ));
    }
    let origins = body[..table]
        .chunks_exact(ORIGIN_BYTES)
        .enumerate()
        .map(|(index, c)| {
            let o: [f64; 3] = std::array::from_fn(|i| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&c[i * 8..i * 8 + 8]);
                f64::from_le_bytes(b)
            });
            // Every position is origin + offset: a NaN or infinite origin would poison every
            // record that refers to it, down to the renderer.
            if o.iter().all(|v| v.is_finite()) {
                Ok(o)
            } else {
                Err(DecodeError::NonFinite {
                    msg: MSG,
                    field: "origin",
                    index,
                })
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let stream = &body[table..stream_end];
    let mut reader = BitReader::new(stream);
    let mut records = Vec::with_capacity(record_count);
    for i in 0..record_count {
        let record = SnapshotRecord::read(&mut reader, origin_count)
            .map_err(|e| DecodeError::malformed(MSG, format!("record {i}: {e}")))?;
        records.push(record);
    }
    if reader.bytes_consumed() != stream.len() {
        return Err(DecodeError::malformed(
            MSG,
            format!(
                "{} bytes of the record stream follow the last record",
                stream.len() - reader.bytes_consumed()
            ),
        ));
    }
    Ok((origins, records, Extensions::parse(&body[stream_end..])))
}

impl WorldSnapshot {
    /// Decodes a snapshot packet (convenience over [`SnapshotDecoder`]).
    pub fn decode(bytes: &[u8]) -> Result<(WorldSnapshot, Extensions), DecodeError> {
        let (_, snapshot, ext) = SnapshotDecoder::new().decode(bytes)?;
        Ok((snapshot, ext))
    }

    /// Encodes the snapshot with `ext` after its records. With [`FLAG_COMPRESSED`] set in
    /// `flags` the body is compressed (level [`DEFAULT_COMPRESSION_LEVEL`]); other flag bits are
    /// written as given.
    pub fn encode(&self, ext: &Extensions) -> Result<Vec<u8>, EncodeError> {
        let mut writer = SnapshotWriter::new();
        for o in &self.origins {
            // Keep the table exactly as given (even duplicates), so indices stay valid.
            if writer.origins.len() >= usize::from(u16::MAX) {
                return Err(EncodeError::TooMany {
                    msg: MSG,
                    what: "origins",
                    count: self.origins.len(),
                    max: usize::from(u16::MAX),
                });
            }
            if !o.iter().all(|v| v.is_finite()) {
                return Err(non_finite_origin());
            }
            writer.origins.push(*o);
        }
        for (i, r) in self.records.iter().enumerate() {
            if r.origin_index as usize >= self.origins.len() {
                return Err(EncodeError::Invalid {
                    msg: MSG,
                    reason: format!(
                        "record {i}: originIndex {} outside the table of {}",
                        r.origin_index,
                        self.origins.len()
                    ),
                });
            }
            if writer.record_count >= usize::from(u16::MAX) {
                return Err(EncodeError::TooMany {
                    msg: MSG,
                    what: "records",
                    count: self.records.len(),
                    max: usize::from(u16::MAX),
                });
            }
            push_varint(&mut writer.stream, r.origin_index);
            writer
                .stream
                .extend_from_slice(RecordBody::encode(r).as_bytes());
            writer.record_count += 1;
        }
        let compression = if self.flags & FLAG_COMPRESSED != 0 {
            Compression::Always {
                level: DEFAULT_COMPRESSION_LEVEL,
            }
        } else {
            Compression::Off
        };
        let mut out = Vec::new();
        writer.finish_with(
            self.protocol_version,
            self.tick_index,
            self.flags,
            ext,
            compression,
            &mut out,
        )?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlv::Ext;

    fn state(idx: u32, x: f64) -> EntityState {
        EntityState {
            idx,
            generation: 1,
            type_index: 1,
            faction_index: 2,
            position: [x, 1000.0, -x],
            orientation: [0.0, 0.0, 0.0, 1.0],
            velocity: [200.0, 0.0, 0.0],
            omega: [0.0; 3],
            throttle_pct: 70,
            fuel_pct: 50,
            ..EntityState::default()
        }
    }

    fn sample() -> (WorldSnapshot, Extensions) {
        let mut snap = WorldSnapshot {
            protocol_version: 1,
            tick_index: 1234,
            ..Default::default()
        };
        for i in 0..40u32 {
            let s = state(i + 1, f64::from(i) * 5000.0);
            let o = origin_for(s.position);
            let oi = match snap.origins.iter().position(|x| *x == o) {
                Some(p) => p,
                None => {
                    snap.origins.push(o);
                    snap.origins.len() - 1
                }
            } as u32;
            let kind = if i % 3 == 0 {
                RecordKind::FULL
            } else {
                RecordKind::DELTA
            };
            snap.records.push(SnapshotRecord::quantize(&s, oi, o, kind));
        }
        let mut ext = Extensions::new();
        ext.push(&Ext::SnapshotPeerCount(3)).expect("fits");
        ext.push(&Ext::SnapshotDespawn(vec![99])).expect("fits");
        (snap, ext)
    }

    #[test]
    fn raw_snapshot_round_trips() {
        let (snap, ext) = sample();
        let bytes = snap.encode(&ext).expect("encodes");
        let (back, back_ext) = WorldSnapshot::decode(&bytes).expect("decodes");
        assert_eq!(back, snap);
        assert_eq!(back_ext, ext);
        assert_eq!(back.encode(&back_ext).expect("encodes"), bytes);
    }

    #[test]
    fn compressed_snapshot_round_trips_and_is_smaller() {
        let (mut snap, ext) = sample();
        let raw = snap.encode(&ext).expect("encodes");
        snap.flags = FLAG_COMPRESSED;
        let packed = snap.encode(&ext).expect("encodes");
        assert!(packed.len() < raw.len());
        let (header, back, back_ext) = SnapshotDecoder::new().decode(&packed).expect("decodes");
        assert_eq!(header.uncompressed_bytes as usize, raw.len() - HEADER_BYTES);
        assert_eq!(back, snap);
        assert_eq!(back_ext, ext);
    }

    #[test]
    fn writer_compresses_only_when_it_wins() {
        let mut w = SnapshotWriter::new();
        w.begin();
        let e = EncodedEntity::encode(&state(1, 10.0));
        w.push(e.origin, &e.full).expect("fits");
        let mut out = Vec::new();
        let size = w
            .finish(
                5,
                &Extensions::new(),
                Compression::WhenSmaller { level: 1 },
                &mut out,
            )
            .expect("ok");
        // One record: far below 128 bytes, stays raw and byte-identical to Off.
        assert!(!size.compressed);
        let mut off = Vec::new();
        w.finish(5, &Extensions::new(), Compression::Off, &mut off)
            .expect("ok");
        assert_eq!(out, off);
    }

    #[test]
    fn decompression_bounds_are_enforced() {
        let (mut snap, ext) = sample();
        snap.flags = FLAG_COMPRESSED;
        let mut packed = snap.encode(&ext).expect("encodes");
        // Claim one byte more than the frame holds.
        let claim = u32::from_le_bytes([packed[20], packed[21], packed[22], packed[23]]);
        packed[20..24].copy_from_slice(&(claim + 1).to_le_bytes());
        assert!(SnapshotDecoder::new().decode(&packed).is_err());
        // Claim more than 4 MiB: refused before any allocation.
        packed[20..24].copy_from_slice(&((MAX_PAYLOAD_BYTES as u32) + 1).to_le_bytes());
        let err = SnapshotDecoder::new().decode(&packed).expect_err("too big");
        assert!(err.to_string().contains("exceeds"), "{err}");
    }

    #[test]
    fn structural_lies_are_rejected() {
        let (snap, ext) = sample();
        let bytes = snap.encode(&ext).expect("encodes");
        let mut more_records = bytes.clone();
        more_records[2] = more_records[2].wrapping_add(1);
        assert!(WorldSnapshot::decode(&more_records).is_err());
        let mut longer_stream = bytes.clone();
        let bsb = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        longer_stream[4..8].copy_from_slice(&(bsb + 1).to_le_bytes());
        assert!(WorldSnapshot::decode(&longer_stream).is_err());
        let mut fewer_origins = bytes;
        fewer_origins[16] = 0;
        fewer_origins[17] = 0;
        assert!(WorldSnapshot::decode(&fewer_origins).is_err());
    }

    #[test]
    fn non_finite_origins_are_rejected_by_the_decoder() {
        let (snap, ext) = sample();
        let bytes = snap.encode(&ext).expect("encodes");
        assert!(snap.origins.len() > 2);
        for (origin, axis, bad) in [
            (0usize, 0usize, f64::NAN),
            (1, 1, f64::INFINITY),
            (2, 2, f64::NEG_INFINITY),
        ] {
            let mut crafted = bytes.clone();
            let at = HEADER_BYTES + origin * ORIGIN_BYTES + axis * 8;
            crafted[at..at + 8].copy_from_slice(&bad.to_le_bytes());
            let err = WorldSnapshot::decode(&crafted).expect_err("non-finite origin");
            assert_eq!(
                err,
                DecodeError::NonFinite {
                    msg: MSG,
                    field: "origin",
                    index: origin
                }
            );
            assert_eq!(
                err.to_string(),
                format!("MsgWorldSnapshot: origin {origin} is not finite")
            );
        }
        // A NaN with a payload (any exponent-all-ones pattern) is caught too.
        let mut crafted = bytes;
        crafted[HEADER_BYTES..HEADER_BYTES + 8]
            .copy_from_slice(&0x7ff0_0000_dead_beef_u64.to_le_bytes());
        assert!(WorldSnapshot::decode(&crafted).is_err());
    }

    #[test]
    fn the_encoder_refuses_a_non_finite_origin() {
        let (mut snap, ext) = sample();
        snap.origins[0][1] = f64::NAN;
        assert!(snap.encode(&ext).is_err());
        let e = EncodedEntity::encode(&state(1, 10.0));
        let mut w = SnapshotWriter::new();
        w.begin();
        assert!(w.push([f64::INFINITY, 0.0, 0.0], &e.full).is_err());
    }

    #[test]
    fn stitching_is_independent_of_record_order() {
        let a = EncodedEntity::encode(&state(1, 0.0));
        let b = EncodedEntity::encode(&state(2, 70_000.0));
        let mut w = SnapshotWriter::new();
        w.begin();
        w.push(b.origin, &b.delta).expect("fits");
        w.push(a.origin, &a.full).expect("fits");
        let mut out = Vec::new();
        w.finish(1, &Extensions::new(), Compression::Off, &mut out)
            .expect("ok");
        let (snap, _) = WorldSnapshot::decode(&out).expect("decodes");
        assert_eq!(snap.records.len(), 2);
        assert_eq!(snap.records[0].idx, 2);
        assert_eq!(
            snap.origins[snap.records[1].origin_index as usize],
            a.origin
        );
        let p = snap.records[0].position_m(snap.origins[snap.records[0].origin_index as usize]);
        assert_eq!(p, [70_000.0, 1000.0, -70_000.0]);
    }
}
