//! Property tests over every message kind: random valid messages survive encode → decode
//! unchanged, and decoding arbitrary or mutated bytes never panics (a decoded packet then
//! re-encodes to a packet that decodes to itself).

use fl_protocol::testing::{random_extensions, random_message};
use fl_protocol::{MsgId, Packet};
use proptest::prelude::*;

fn valid_packet(id: MsgId, seed: u64) -> Packet {
    let mut p = Packet::new(random_message(id, seed));
    // Snapshots' ext block is part of the (possibly compressed) body; others' follows it.
    if p.message.accepts_extensions() {
        p.ext = random_extensions(seed.rotate_left(17));
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_message_round_trips(seed in any::<u64>()) {
        for &id in MsgId::ALL {
            let packet = valid_packet(id, seed);
            let bytes = packet.encode().expect("valid messages encode");
            prop_assert_eq!(bytes[0], id.to_u8());
            let back = Packet::decode(&bytes)
                .unwrap_or_else(|e| panic!("{id:?} did not decode: {e}\n{packet:?}"));
            prop_assert_eq!(&back, &packet, "{:?}", id);
            prop_assert_eq!(back.encode().expect("re-encodes"), bytes);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        id in prop::sample::select(MsgId::ALL.to_vec()),
        tail in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let mut bytes = vec![id.to_u8()];
        bytes.extend_from_slice(&tail);
        if let Ok(p) = Packet::decode(&bytes) {
            // Compared as bytes, not as values: random bytes may decode to a NaN float,
            // which never equals itself, while its bits must survive the round trip.
            let again = p.encode().expect("a decoded packet encodes");
            let decoded = Packet::decode(&again).expect("and decodes");
            prop_assert_eq!(decoded.encode().expect("and encodes again"), again);
        }
    }

    #[test]
    fn mutated_valid_packets_never_panic(
        seed in any::<u64>(),
        id in prop::sample::select(MsgId::ALL.to_vec()),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = valid_packet(id, seed).encode().expect("encodes");
        let mut mutated = bytes.clone();
        for (at, value) in &edits {
            let i = at.index(mutated.len());
            mutated[i] = *value;
        }
        let _ = Packet::decode(&mutated);
        let truncated = &bytes[..cut.index(bytes.len() + 1)];
        let _ = Packet::decode(truncated);
    }
}

#[test]
fn empty_and_unknown_ids_are_typed_errors() {
    assert_eq!(Packet::decode(&[]), Err(fl_protocol::DecodeError::Empty));
    assert_eq!(
        Packet::decode(&[0x3F]),
        Err(fl_protocol::DecodeError::UnknownMsgId(0x3F))
    );
    // Every id's bare byte is rejected cleanly when its body is missing.
    for &id in MsgId::ALL {
        let r = Packet::decode(&[id.to_u8()]);
        assert!(r.is_err(), "{id:?} accepted a 1-byte packet: {r:?}");
    }
}
