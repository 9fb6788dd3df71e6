//! The one place an admin result becomes wire messages: at most 123 bytes travel as one
//! `MsgAdminResponse`; longer results as a `MsgAdminResponseChunk` sequence (505-byte bodies,
//! `seqNum` 0.., `kChunkFlagEnd` on the last), both carrying the request's `reqId`. Text is
//! split on UTF-8 codepoint boundaries and capped at the clients' 64 KB reassembly limit.
//!
//! Owns the framing only; it does not send (the caller owns the transport).

use fl_protocol::FixedStr;
use fl_protocol::Message;
use fl_protocol::msg::admin::{
    AdminResponse, AdminResponseChunk, CHUNK_FLAG_END, CHUNK_PAYLOAD_MAX,
    MAX_REASSEMBLED_RESPONSE_BYTES, RESPONSE_FAST_PATH_MAX,
};

/// What replaces the tail of a result too long for a client to reassemble.
pub const TRUNCATION_MARK: &str = "\n[output truncated]";

/// `text` with NULs removed (a NUL would end the wire string early) and cut to the 64 KB cap on
/// a codepoint boundary, marked when cut.
pub fn bounded(text: &str) -> String {
    let clean: String = if text.contains('\0') {
        text.replace('\0', "")
    } else {
        text.to_owned()
    };
    if clean.len() <= MAX_REASSEMBLED_RESPONSE_BYTES {
        return clean;
    }
    let keep = fl_protocol::field::truncate_utf8(
        &clean,
        MAX_REASSEMBLED_RESPONSE_BYTES - TRUNCATION_MARK.len(),
    );
    format!("{keep}{TRUNCATION_MARK}")
}

/// Splits `text` into pieces of at most `max` bytes, never inside a codepoint.
pub fn split_utf8(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let piece = fl_protocol::field::truncate_utf8(rest, max.max(4));
        out.push(piece);
        rest = &rest[piece.len()..];
    }
    out
}

/// The messages that carry `text` as the answer to request `req_id`.
pub fn responses(req_id: u16, text: &str) -> Vec<Message> {
    let text = bounded(text);
    if text.len() <= RESPONSE_FAST_PATH_MAX {
        return vec![
            AdminResponse {
                req_id,
                text: FixedStr::new(&text),
            }
            .into(),
        ];
    }
    let pieces = split_utf8(&text, CHUNK_PAYLOAD_MAX);
    let last = pieces.len().saturating_sub(1);
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            AdminResponseChunk {
                flags: if i == last { CHUNK_FLAG_END } else { 0 },
                req_id,
                seq_num: i.min(usize::from(u16::MAX)) as u16,
                body: FixedStr::new(body),
            }
            .into()
        })
        .collect()
}

/// Reassembles what [`responses`] produced (tests and tools): the text, or None when the
/// sequence is not one complete answer to `req_id`.
pub fn reassemble(req_id: u16, messages: &[Message]) -> Option<String> {
    match messages {
        [Message::AdminResponse(r)] if r.req_id == req_id => Some(r.text.as_str().to_owned()),
        chunks => {
            let mut out = String::new();
            for (i, m) in chunks.iter().enumerate() {
                let Message::AdminResponseChunk(c) = m else {
                    return None;
                };
                if c.req_id != req_id || usize::from(c.seq_num) != i {
                    return None;
                }
                out.push_str(c.body.as_str());
                if out.len() > MAX_REASSEMBLED_RESPONSE_BYTES {
                    return None;
                }
                if c.flags & CHUNK_FLAG_END != 0 {
                    return (i + 1 == chunks.len()).then_some(out);
                }
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(text: &str) -> Vec<Message> {
        let msgs = responses(9, text);
        // Every message survives encoding and decoding unchanged.
        for m in &msgs {
            let bytes = m.encode().expect("encodes");
            let back = fl_protocol::Packet::decode(&bytes).expect("decodes");
            assert_eq!(&back.message, m);
        }
        assert_eq!(
            reassemble(9, &msgs).as_deref(),
            Some(bounded(text).as_str())
        );
        msgs
    }

    #[test]
    fn fast_path_up_to_123_bytes_then_chunks() {
        assert!(matches!(
            roundtrip("").as_slice(),
            [Message::AdminResponse(_)]
        ));
        assert!(matches!(
            roundtrip(&"a".repeat(123)).as_slice(),
            [Message::AdminResponse(_)]
        ));
        let m = roundtrip(&"a".repeat(124));
        assert!(
            matches!(m.as_slice(), [Message::AdminResponseChunk(c)] if c.flags == CHUNK_FLAG_END && c.seq_num == 0),
            "{m:?}"
        );
    }

    #[test]
    fn chunk_boundaries_at_505_and_506() {
        assert_eq!(roundtrip(&"b".repeat(505)).len(), 1);
        let m = roundtrip(&"b".repeat(506));
        assert_eq!(m.len(), 2);
        let Message::AdminResponseChunk(first) = &m[0] else {
            panic!("{m:?}")
        };
        assert_eq!(
            (first.flags, first.seq_num, first.body.as_str().len()),
            (0, 0, 505)
        );
        let Message::AdminResponseChunk(last) = &m[1] else {
            panic!("{m:?}")
        };
        assert_eq!(
            (last.flags, last.seq_num, last.body.as_str()),
            (CHUNK_FLAG_END, 1, "b")
        );
        assert_eq!(roundtrip(&"b".repeat(1010)).len(), 2);
        assert_eq!(roundtrip(&"b".repeat(1011)).len(), 3);
    }

    #[test]
    fn multibyte_text_splits_on_codepoints() {
        // 3-byte characters: 505 is not a multiple of 3, so a naive cut would split one.
        let text = "€".repeat(400);
        let m = roundtrip(&text);
        for msg in &m {
            let Message::AdminResponseChunk(c) = msg else {
                panic!("{msg:?}")
            };
            assert!(c.body.as_str().len() <= 505);
            assert!(c.body.as_str().chars().all(|ch| ch == '€'));
        }
        assert_eq!(m.len(), 3, "1200 bytes in 504-byte pieces");
        // 4-byte characters right at the fast-path edge: 31 × 4 = 124 bytes.
        assert_eq!(roundtrip(&"🛩".repeat(30)).len(), 1);
        assert!(matches!(
            roundtrip(&"🛩".repeat(31)).as_slice(),
            [Message::AdminResponseChunk(_)]
        ));
    }

    #[test]
    fn output_is_capped_at_64_kb_and_marked() {
        let huge = "x".repeat(200_000);
        let m = roundtrip(&huge);
        let text = reassemble(9, &m).expect("reassembles");
        assert!(text.len() <= MAX_REASSEMBLED_RESPONSE_BYTES);
        assert!(text.ends_with(TRUNCATION_MARK));
        // Nothing from a NUL on is lost: NULs are dropped, not terminators.
        assert_eq!(reassemble(9, &responses(9, "a\0b")).as_deref(), Some("ab"));
    }
}
