//! The invariants each fuzz target checks, one function per decoder family, shared by the
//! libFuzzer targets (`cargo fuzz run <family>`) and the stable smoke runner that CI runs.
//! A violated invariant panics: that is the finding.

use fl_protocol::snapshot::SnapshotDecoder;
use fl_protocol::tlv::{Ext, Extensions};
use fl_protocol::{MsgId, Packet};

/// A decoder family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `Packet::decode` on any bytes: never panics; whatever decodes re-encodes to a packet
    /// that decodes to the same value.
    DecodePacket,
    /// The snapshot codec (header, origins, bit stream, zstd body): same invariants, plus the
    /// header-only read agrees with the full decode.
    DecodeSnapshot,
    /// The TLV block: iteration terminates, typed parses of well-formed entries re-encode to
    /// the same payload.
    ParseTlv,
    /// fl-wire: arbitrary JSON text never panics the encoder; bytes that decode to JSON encode
    /// back to the same bytes (uncompressed).
    WireJson,
}

impl Family {
    pub const ALL: [Family; 4] = [
        Family::DecodePacket,
        Family::DecodeSnapshot,
        Family::ParseTlv,
        Family::WireJson,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::DecodePacket => "decode_packet",
            Family::DecodeSnapshot => "decode_snapshot",
            Family::ParseTlv => "parse_tlv",
            Family::WireJson => "wire_json",
        }
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Runs the family's invariants on one input.
    pub fn check(self, data: &[u8]) {
        match self {
            Family::DecodePacket => check_packet(data),
            Family::DecodeSnapshot => check_snapshot(data),
            Family::ParseTlv => check_tlv(data),
            Family::WireJson => check_wire_json(data),
        }
    }

    /// Valid inputs to start mutating from.
    pub fn seeds(self) -> Vec<Vec<u8>> {
        use fl_protocol::testing::{random_extensions, random_message, random_snapshot};
        match self {
            Family::DecodePacket | Family::WireJson => MsgId::ALL
                .iter()
                .flat_map(|&id| (0..4u64).map(move |s| (id, s)))
                .filter_map(|(id, s)| Packet::new(random_message(id, s)).encode().ok())
                .collect(),
            Family::DecodeSnapshot => (0..24u64)
                .filter_map(|s| {
                    let mut p = Packet::new(random_snapshot(s));
                    p.ext = random_extensions(s);
                    p.encode().ok()
                })
                .collect(),
            Family::ParseTlv => (0..24u64)
                .map(|s| random_extensions(s).as_bytes().to_vec())
                .collect(),
        }
    }
}

fn check_packet(data: &[u8]) {
    if let Ok(p) = Packet::decode(data) {
        let bytes = p.encode().expect("a decoded packet must re-encode");
        let again = Packet::decode(&bytes).expect("a re-encoded packet must decode");
        // Compared as bytes: a NaN float field is never equal to itself as a value.
        let twice = again.encode().expect("and re-encode");
        assert_eq!(
            twice, bytes,
            "decode ∘ encode must be the identity on decoded values"
        );
    }
}

fn check_snapshot(data: &[u8]) {
    let mut bytes = data.to_vec();
    if let Some(first) = bytes.first_mut() {
        *first = MsgId::WorldSnapshot.to_u8();
    }
    let header = SnapshotDecoder::header(&bytes);
    let full = SnapshotDecoder::new().decode(&bytes);
    if let Ok((h, _, _)) = &full {
        assert_eq!(header.as_ref().ok(), Some(h), "header-only read must agree");
    }
    check_packet(&bytes);
}

fn check_tlv(data: &[u8]) {
    let ext = Extensions::parse(data);
    assert!(ext.as_bytes().len() <= data.len());
    assert_eq!(
        &data[..ext.as_bytes().len()],
        ext.as_bytes(),
        "the kept block is a prefix"
    );
    for entry in ext.iter() {
        if let Ok(typed) = Ext::parse(entry.tag, entry.data) {
            let mut payload = Vec::new();
            typed.encode_payload(&mut payload);
            let back = Ext::parse(entry.tag, &payload).expect("a typed entry re-parses");
            let mut again = Vec::new();
            back.encode_payload(&mut again);
            assert_eq!(
                again, payload,
                "a typed entry re-encodes to the same payload"
            );
        }
    }
}

fn check_wire_json(data: &[u8]) {
    // As JSON text: the encoder must fail cleanly, never panic.
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = fl_wire::encode_from_json(&value);
    }
    // As bytes: decodable uncompressed packets survive JSON unchanged, when canonical.
    let Ok(packet) = Packet::decode(data) else {
        return;
    };
    if let fl_protocol::Message::WorldSnapshot(s) = &packet.message
        && s.flags & fl_protocol::snapshot::FLAG_COMPRESSED != 0
    {
        return;
    }
    let Ok(canonical) = packet.encode() else {
        return;
    };
    let json = fl_wire::decode_to_json(&canonical).expect("canonical bytes decode to JSON");
    let text = serde_json::to_string(&json).expect("JSON serialises");
    let reparsed: serde_json::Value = serde_json::from_str(&text).expect("and parses");
    let back = fl_wire::encode_from_json(&reparsed).expect("decoded JSON encodes");
    assert_eq!(back, canonical, "JSON must round-trip canonical bytes");
}

/// A deterministic mutator for the smoke runner (libFuzzer brings its own).
#[derive(Debug, Clone)]
pub struct Mutator {
    rng: fl_protocol::testing::Rng,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: fl_protocol::testing::Rng::new(seed),
        }
    }

    /// A mutated copy of `input` (one to four edits).
    pub fn mutate(&mut self, input: &[u8], splice: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..=self.rng.upto(3) {
            let len = out.len();
            match self.rng.upto(7) {
                0 if len > 0 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    out[i] ^= 1 << self.rng.upto(7);
                }
                1 if len > 0 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    const INTERESTING: [u8; 6] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE];
                    out[i] = INTERESTING[self.rng.upto(5) as usize];
                }
                2 => out.truncate(self.rng.upto(len as u64) as usize),
                3 => {
                    let i = self.rng.upto(len as u64) as usize;
                    let b = self.rng.next_u64() as u8;
                    out.insert(i, b);
                }
                4 if len > 1 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    let n = (self.rng.upto(8) as usize).min(len - i);
                    out.drain(i..i + n);
                }
                5 if !splice.is_empty() => {
                    let i = self.rng.upto(len as u64) as usize;
                    let j = self.rng.upto(splice.len() as u64 - 1) as usize;
                    out.truncate(i);
                    out.extend_from_slice(&splice[j..]);
                }
                6 if len >= 4 => {
                    // Overwrite a little-endian length/count with a large or edge value.
                    let i = self.rng.upto(len as u64 - 2) as usize;
                    let v: u16 = [0xFFFF, 0x8000, 0x0100, 0][self.rng.upto(3) as usize];
                    out[i..i + 2].copy_from_slice(&v.to_le_bytes());
                }
                _ => {
                    let b = self.rng.next_u64() as u8;
                    out.push(b);
                }
            }
        }
        out
    }
}
