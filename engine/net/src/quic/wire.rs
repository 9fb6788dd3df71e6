//! The QUIC transport's own bytes, below the message layer: the reliable stream's header and
//! frames, and the datagram lane/fragment header with bounded reassembly.
//!
//! Owns: byte layouts and the pure logic around them (no I/O, no clock of its own: callers
//! pass `Instant`s). Must not: allocate more than a bound that the limits justify, or trust
//! any length or index that came from the network. The layouts are documented in
//! `docs/transport.md` ("QUIC framing").

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};

use crate::{Channel, MAX_RELIABLE_MESSAGE};

/// The first bytes the client writes on the reliable stream ("FLR" + version 1).
pub(crate) const STREAM_MAGIC: [u8; 4] = *b"FLR\x01";

/// Reliable frame header: payload length, u32 little-endian.
pub(crate) const FRAME_HEADER: usize = 4;

/// Datagram header of a whole (unfragmented) message: the flags byte.
pub(crate) const WHOLE_HEADER: usize = 1;
/// Datagram header of a fragment: flags, message id (u16 LE), index, count.
pub(crate) const FRAGMENT_HEADER: usize = 5;
/// Most fragments one message may have.
pub(crate) const MAX_FRAGMENTS: usize = u8::MAX as usize;

const FLAG_FRAGMENT: u8 = 0x80;
const LANE_MASK: u8 = 0x03;

/// A reliable frame: header and payload in one buffer, ready for one stream write.
pub(crate) fn encode_frame(payload: &[u8]) -> Bytes {
    let mut b = BytesMut::with_capacity(FRAME_HEADER + payload.len());
    // Callers check MAX_RELIABLE_MESSAGE (1 MiB) first, so the length fits a u32.
    b.put_u32_le(payload.len() as u32);
    b.put_slice(payload);
    b.freeze()
}

/// Checks a received frame header; returns the payload length or the reason to close.
pub(crate) fn check_frame_len(header: [u8; FRAME_HEADER]) -> Result<usize, String> {
    let len = u32::from_le_bytes(header) as usize;
    if len > MAX_RELIABLE_MESSAGE {
        Err(format!(
            "protocol violation: reliable frame of {len} bytes exceeds the {MAX_RELIABLE_MESSAGE}-byte limit"
        ))
    } else {
        Ok(len)
    }
}

fn lane_bits(channel: Channel) -> u8 {
    channel.number() & LANE_MASK
}

/// Why a datagram could not be turned into datagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooManyFragments {
    /// The largest message that would have fit.
    pub max: usize,
}

/// Splits an unreliable message into datagrams no larger than `max_datagram`.
pub(crate) fn split(
    channel: Channel,
    msg_id: u16,
    payload: &[u8],
    max_datagram: usize,
) -> Result<Vec<Bytes>, TooManyFragments> {
    let lane = lane_bits(channel);
    if WHOLE_HEADER + payload.len() <= max_datagram {
        let mut b = BytesMut::with_capacity(WHOLE_HEADER + payload.len());
        b.put_u8(lane);
        b.put_slice(payload);
        return Ok(vec![b.freeze()]);
    }
    let chunk = max_datagram.saturating_sub(FRAGMENT_HEADER);
    if chunk == 0 {
        return Err(TooManyFragments { max: 0 });
    }
    let count = payload.len().div_ceil(chunk);
    if count > MAX_FRAGMENTS {
        return Err(TooManyFragments {
            max: MAX_FRAGMENTS * chunk,
        });
    }
    Ok(payload
        .chunks(chunk)
        .enumerate()
        .map(|(i, part)| {
            let mut b = BytesMut::with_capacity(FRAGMENT_HEADER + part.len());
            b.put_u8(lane | FLAG_FRAGMENT);
            b.put_u16_le(msg_id);
            b.put_u8(i as u8); // i < count <= 255
            b.put_u8(count as u8);
            b.put_slice(part);
            b.freeze()
        })
        .collect())
}

/// A parsed datagram.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Datagram {
    Whole {
        channel: Channel,
        payload: Bytes,
    },
    Fragment {
        channel: Channel,
        msg_id: u16,
        index: u8,
        count: u8,
        chunk: Bytes,
    },
}

/// Parses a datagram's header; `None` for anything malformed (dropped by the caller).
pub(crate) fn parse(d: Bytes) -> Option<Datagram> {
    let flags = *d.first()?;
    if flags & !(FLAG_FRAGMENT | LANE_MASK) != 0 {
        return None;
    }
    let channel = match flags & LANE_MASK {
        1 => Channel::Unreliable,
        2 => Channel::Voice,
        _ => return None,
    };
    if flags & FLAG_FRAGMENT == 0 {
        return Some(Datagram::Whole {
            channel,
            payload: d.slice(WHOLE_HEADER..),
        });
    }
    if d.len() <= FRAGMENT_HEADER {
        return None;
    }
    let msg_id = u16::from_le_bytes([d[1], d[2]]);
    let (index, count) = (d[3], d[4]);
    if count < 2 || index >= count {
        return None;
    }
    Some(Datagram::Fragment {
        channel,
        msg_id,
        index,
        count,
        chunk: d.slice(FRAGMENT_HEADER..),
    })
}

/// Bounds of a [`Reassembler`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReassemblyLimits {
    /// Partial messages held at once; the oldest is evicted beyond it.
    pub max_partials: usize,
    /// Bytes held in partial messages; the oldest are evicted beyond it.
    pub max_bytes: usize,
    /// A partial message older than this is dropped.
    pub timeout: Duration,
    /// Largest message accepted.
    pub max_message: usize,
}

#[derive(Debug)]
struct Partial {
    count: u8,
    received: u8,
    bytes: usize,
    started: Instant,
    chunks: Vec<Option<Bytes>>,
}

/// Collects fragments into whole messages, within fixed bounds of memory and time.
#[derive(Debug)]
pub(crate) struct Reassembler {
    limits: ReassemblyLimits,
    partials: BTreeMap<(u8, u16), Partial>,
    bytes: usize,
    /// Partial messages given up (timeout, eviction, inconsistency).
    pub dropped: u64,
}

impl Reassembler {
    pub(crate) fn new(limits: ReassemblyLimits) -> Self {
        Reassembler {
            limits,
            partials: BTreeMap::new(),
            bytes: 0,
            dropped: 0,
        }
    }

    pub(crate) fn held_bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn held_messages(&self) -> usize {
        self.partials.len()
    }

    fn remove(&mut self, key: (u8, u16)) {
        if let Some(p) = self.partials.remove(&key) {
            self.bytes -= p.bytes;
            self.dropped += 1;
        }
    }

    fn expire(&mut self, now: Instant) {
        let timeout = self.limits.timeout;
        let old: Vec<(u8, u16)> = self
            .partials
            .iter()
            .filter(|(_, p)| now.saturating_duration_since(p.started) > timeout)
            .map(|(&k, _)| k)
            .collect();
        for key in old {
            self.remove(key);
        }
    }

    fn evict_oldest(&mut self, keep: (u8, u16)) -> bool {
        let oldest = self
            .partials
            .iter()
            .filter(|(k, _)| **k != keep)
            .min_by_key(|(_, p)| p.started)
            .map(|(&k, _)| k);
        match oldest {
            Some(key) => {
                self.remove(key);
                true
            }
            None => false,
        }
    }

    /// Adds one fragment; returns the whole message when this fragment completed it.
    pub(crate) fn push(
        &mut self,
        now: Instant,
        channel: Channel,
        msg_id: u16,
        index: u8,
        count: u8,
        chunk: Bytes,
    ) -> Option<Vec<u8>> {
        self.expire(now);
        let key = (channel.number(), msg_id);
        if let Some(p) = self.partials.get(&key)
            && p.count != count
        {
            // Inconsistent fragments (or an id reused after a wrap): start over.
            self.remove(key);
        }
        if !self.partials.contains_key(&key) {
            while self.partials.len() >= self.limits.max_partials {
                if !self.evict_oldest(key) {
                    break;
                }
            }
            self.partials.insert(
                key,
                Partial {
                    count,
                    received: 0,
                    bytes: 0,
                    started: now,
                    chunks: vec![None; usize::from(count)],
                },
            );
        }
        let len = chunk.len();
        let p = self.partials.get(&key)?;
        if p.chunks.get(usize::from(index)).is_none_or(|c| c.is_some()) {
            return None; // duplicate (index < count was checked by `parse`)
        }
        if p.bytes + len > self.limits.max_message {
            self.remove(key);
            return None;
        }
        while self.bytes + len > self.limits.max_bytes {
            if !self.evict_oldest(key) {
                self.remove(key);
                return None;
            }
        }
        let p = self.partials.get_mut(&key)?;
        let slot = p.chunks.get_mut(usize::from(index))?;
        *slot = Some(chunk);
        p.received += 1;
        p.bytes += len;
        self.bytes += len;
        if p.received < p.count {
            return None;
        }
        let p = self.partials.remove(&key)?;
        self.bytes -= p.bytes;
        let mut out = Vec::with_capacity(p.bytes);
        for c in p.chunks.into_iter().flatten() {
            out.extend_from_slice(&c);
        }
        Some(out)
    }
}

/// The reliable stream as a peer's bytes arrive: the magic, then frames whose length is checked
/// before anything is allocated. Never panics on any input; whatever it accepts re-encodes to
/// exactly the bytes it consumed. (A fuzz entry point: a violated invariant panics.)
pub fn fuzz_stream(data: &[u8]) {
    let Some(rest) = data.strip_prefix(&STREAM_MAGIC) else {
        return; // the server closes a stream without the magic
    };
    let mut pos = 0;
    let mut frames: Vec<&[u8]> = Vec::new();
    while let Some(header) = rest.get(pos..pos + FRAME_HEADER) {
        let header: [u8; FRAME_HEADER] = header.try_into().expect("FRAME_HEADER bytes");
        let len = match check_frame_len(header) {
            Ok(len) => len,
            Err(why) => {
                assert!(u32::from_le_bytes(header) as usize > MAX_RELIABLE_MESSAGE);
                assert!(why.contains("exceeds"), "{why}");
                break; // the link closes here
            }
        };
        assert!(len <= MAX_RELIABLE_MESSAGE);
        let Some(payload) = rest.get(pos + FRAME_HEADER..pos + FRAME_HEADER + len) else {
            break; // the rest has not arrived yet
        };
        frames.push(payload);
        pos += FRAME_HEADER + len;
    }
    let mut again = STREAM_MAGIC.to_vec();
    for f in &frames {
        again.extend_from_slice(&encode_frame(f));
    }
    assert_eq!(
        again[..],
        data[..STREAM_MAGIC.len() + pos],
        "frames re-encode to the bytes they came from"
    );
}

/// Datagrams as a peer may send them, then the sender's own split of a message: parsing never
/// panics, reassembly stays within its limits whatever arrives (fragments of any id, count,
/// index and age), and a message split by this side reassembles to itself from its fragments
/// in any order. (A fuzz entry point: a violated invariant panics.)
///
/// Input: records of `[length: u8][milliseconds since the previous one: u8][datagram]`.
pub fn fuzz_datagrams(data: &[u8]) {
    let limits = ReassemblyLimits {
        max_partials: 4,
        max_bytes: 4096,
        timeout: Duration::from_millis(100),
        max_message: 2048,
    };
    let mut r = Reassembler::new(limits);
    let mut now = Instant::now();
    let mut rest = data;
    while let [len, dt, tail @ ..] = rest {
        let take = usize::from(*len).min(tail.len());
        let (datagram, next) = tail.split_at(take);
        rest = next;
        now += Duration::from_millis(u64::from(*dt));
        match parse(Bytes::copy_from_slice(datagram)) {
            None => {}
            Some(Datagram::Whole { channel, payload }) => {
                assert_ne!(channel, Channel::Reliable);
                assert_eq!(payload[..], datagram[WHOLE_HEADER..]);
            }
            Some(Datagram::Fragment {
                channel,
                msg_id,
                index,
                count,
                chunk,
            }) => {
                assert!(index < count && count >= 2 && !chunk.is_empty());
                if let Some(msg) = r.push(now, channel, msg_id, index, count, chunk) {
                    assert!(msg.len() <= limits.max_message, "{} bytes", msg.len());
                }
                assert!(r.held_bytes() <= limits.max_bytes, "{}", r.held_bytes());
                assert!(r.held_messages() <= limits.max_partials);
            }
        }
    }

    // This side's split, delivered in an order the input chooses, reassembles exactly.
    let Some((&size, payload)) = data.split_first() else {
        return;
    };
    let max_datagram = FRAGMENT_HEADER + 1 + usize::from(size % 64);
    let Ok(datagrams) = split(Channel::Voice, u16::from(size), payload, max_datagram) else {
        assert!(payload.len() > MAX_FRAGMENTS * (max_datagram - FRAGMENT_HEADER));
        return;
    };
    assert!(datagrams.iter().all(|d| d.len() <= max_datagram));
    let n = datagrams.len();
    let order: Vec<usize> = (0..n).map(|i| (i * 7 + usize::from(size)) % n).collect();
    let mut unique = order.clone();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() != n {
        return; // not a permutation (7 divides n): nothing to check in this order
    }
    let mut r = Reassembler::new(ReassemblyLimits {
        max_partials: 1,
        max_bytes: payload.len().max(1),
        timeout: Duration::from_secs(1),
        max_message: payload.len().max(1),
    });
    let t = Instant::now();
    let mut whole = None;
    for (k, &i) in order.iter().enumerate() {
        match parse(datagrams[i].clone()).expect("our own datagram parses") {
            Datagram::Whole { payload: p, .. } => {
                assert_eq!(n, 1);
                whole = Some(p.to_vec());
            }
            Datagram::Fragment {
                channel,
                msg_id,
                index,
                count,
                chunk,
            } => {
                let out = r.push(t, channel, msg_id, index, count, chunk);
                assert_eq!(
                    out.is_some(),
                    k + 1 == n,
                    "complete exactly at the last one"
                );
                if out.is_some() {
                    whole = out;
                }
            }
        }
    }
    assert_eq!(
        whole.as_deref(),
        Some(payload),
        "the message comes back whole"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ReassemblyLimits {
        ReassemblyLimits {
            max_partials: 4,
            max_bytes: 10_000,
            timeout: Duration::from_secs(1),
            max_message: 8_000,
        }
    }

    fn frags(d: Vec<Bytes>) -> Vec<(Channel, u16, u8, u8, Bytes)> {
        d.into_iter()
            .map(|b| match parse(b) {
                Some(Datagram::Fragment {
                    channel,
                    msg_id,
                    index,
                    count,
                    chunk,
                }) => (channel, msg_id, index, count, chunk),
                other => panic!("expected a fragment, got {other:?}"),
            })
            .collect()
    }

    #[test]
    fn small_messages_travel_whole_with_a_one_byte_header() {
        let d = split(Channel::Voice, 9, b"hello", 1200).expect("fits");
        assert_eq!(d.len(), 1);
        assert_eq!(&d[0][..], b"\x02hello");
        assert_eq!(
            parse(d[0].clone()),
            Some(Datagram::Whole {
                channel: Channel::Voice,
                payload: Bytes::from_static(b"hello")
            })
        );
        // Exactly at the limit: still whole.
        let p = vec![1u8; 1199];
        assert_eq!(
            split(Channel::Unreliable, 0, &p, 1200).map(|d| d.len()),
            Ok(1)
        );
        assert_eq!(
            split(Channel::Unreliable, 0, &[], 1200).map(|d| d.len()),
            Ok(1)
        );
    }

    #[test]
    fn fragments_round_trip_in_any_order_and_respect_the_size() {
        let payload: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let d = split(Channel::Unreliable, 77, &payload, 1162).expect("fits");
        assert_eq!(d.len(), 5000usize.div_ceil(1162 - FRAGMENT_HEADER));
        assert!(d.iter().all(|b| b.len() <= 1162));
        let mut f = frags(d);
        f.reverse();
        let mut r = Reassembler::new(limits());
        let now = Instant::now();
        let n = f.len();
        for (i, (ch, id, idx, count, chunk)) in f.into_iter().enumerate() {
            let out = r.push(now, ch, id, idx, count, chunk);
            if i + 1 < n {
                assert!(out.is_none());
            } else {
                assert_eq!(out.as_deref(), Some(&payload[..]));
            }
        }
        assert_eq!((r.held_bytes(), r.held_messages()), (0, 0));
    }

    #[test]
    fn a_missing_fragment_loses_the_message_and_times_out() {
        let payload = vec![3u8; 3000];
        let mut f = frags(split(Channel::Unreliable, 1, &payload, 1000).expect("fits"));
        f.remove(1);
        let mut r = Reassembler::new(limits());
        let t0 = Instant::now();
        for (ch, id, idx, count, chunk) in f {
            assert!(r.push(t0, ch, id, idx, count, chunk).is_none());
        }
        assert_eq!(r.held_messages(), 1);
        // Any later push expires it.
        let later = t0 + Duration::from_millis(1001);
        let g = frags(split(Channel::Voice, 2, &[1u8; 1500], 1000).expect("fits"));
        let (ch, id, idx, count, chunk) = g[0].clone();
        r.push(later, ch, id, idx, count, chunk);
        assert_eq!(r.held_messages(), 1, "only the new partial remains");
        assert_eq!(r.dropped, 1);
    }

    #[test]
    fn memory_stays_bounded_under_a_flood_of_partials() {
        let mut r = Reassembler::new(limits());
        let now = Instant::now();
        for id in 0..1000u16 {
            // First fragment of a 3-fragment message, never completed.
            let chunk = Bytes::from(vec![0u8; 900]);
            assert!(r.push(now, Channel::Unreliable, id, 0, 3, chunk).is_none());
            assert!(r.held_messages() <= 4);
            assert!(r.held_bytes() <= 10_000);
        }
        // Claims beyond the message limit are refused.
        for i in 0..9 {
            let chunk = Bytes::from(vec![0u8; 1000]);
            r.push(now, Channel::Voice, 5000, i, 9, chunk);
        }
        assert!(r.held_bytes() <= 10_000);
        assert!(r.partials.get(&(2, 5000)).is_none_or(|p| p.bytes <= 8_000));
    }

    #[test]
    fn duplicates_and_inconsistent_counts_are_harmless() {
        let mut r = Reassembler::new(limits());
        let now = Instant::now();
        let a = Bytes::from_static(b"ab");
        assert!(r.push(now, Channel::Voice, 1, 0, 2, a.clone()).is_none());
        assert!(r.push(now, Channel::Voice, 1, 0, 2, a.clone()).is_none());
        assert_eq!(r.held_bytes(), 2);
        // Same id, different count: the old partial is discarded.
        assert!(r.push(now, Channel::Voice, 1, 0, 3, a.clone()).is_none());
        assert_eq!(r.held_bytes(), 2);
        // Lanes are separate id spaces.
        assert!(
            r.push(now, Channel::Unreliable, 1, 1, 2, a.clone())
                .is_none()
        );
        assert_eq!(
            r.push(now, Channel::Unreliable, 1, 0, 2, Bytes::from_static(b"xy")),
            Some(b"xyab".to_vec())
        );
    }

    #[test]
    fn malformed_datagrams_are_rejected() {
        for bad in [
            &b""[..],
            b"\x00abc",               // lane 0
            b"\x03abc",               // lane 3
            b"\x41abc",               // reserved bit
            b"\x81\x00\x00",          // short fragment header
            b"\x81\x00\x00\x00\x01x", // count 1
            b"\x81\x00\x00\x05\x05x", // index >= count
            b"\x81\x00\x00\x00\x02",  // empty chunk
        ] {
            assert_eq!(parse(Bytes::copy_from_slice(bad)), None, "{bad:?}");
        }
    }

    #[test]
    fn frame_lengths_are_checked_before_anything_is_allocated() {
        assert_eq!(check_frame_len(0u32.to_le_bytes()), Ok(0));
        assert_eq!(
            check_frame_len((MAX_RELIABLE_MESSAGE as u32).to_le_bytes()),
            Ok(MAX_RELIABLE_MESSAGE)
        );
        let err = check_frame_len(u32::MAX.to_le_bytes()).expect_err("too big");
        assert!(
            err.contains("4294967295") && err.contains("1048576"),
            "{err}"
        );
        let f = encode_frame(b"abc");
        assert_eq!(&f[..], b"\x03\x00\x00\x00abc");
    }

    #[test]
    fn the_fuzz_entry_points_hold_on_their_seeds() {
        let mut stream = STREAM_MAGIC.to_vec();
        stream.extend_from_slice(&encode_frame(b"abc"));
        stream.extend_from_slice(&encode_frame(b""));
        stream.extend_from_slice(&[9, 0, 0]); // a header still arriving
        fuzz_stream(&stream);
        stream.truncate(STREAM_MAGIC.len());
        stream.extend_from_slice(&u32::MAX.to_le_bytes());
        fuzz_stream(&stream);
        fuzz_stream(b"GET / HTTP/1.1");
        let mut dgrams = Vec::new();
        for (i, d) in split(Channel::Unreliable, 5, &[7u8; 300], 64)
            .expect("fits")
            .iter()
            .enumerate()
        {
            dgrams.push(d.len() as u8);
            dgrams.push(i as u8 * 30);
            dgrams.extend_from_slice(d);
        }
        fuzz_datagrams(&dgrams);
        fuzz_datagrams(&[]);
        fuzz_datagrams(&[0xFF; 600]);
    }

    #[test]
    fn too_many_fragments_is_reported_with_the_limit() {
        let p = vec![0u8; 256 * 95 + 1];
        assert_eq!(
            split(Channel::Unreliable, 0, &p, 100),
            Err(TooManyFragments { max: 255 * 95 })
        );
    }
}
