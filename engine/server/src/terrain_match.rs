//! Whether a joining client stands on the server's ground: its packs' terrain digests (the
//! `PackManifestEntry.contentHash` of `MsgConnectRequest`) against the server's.
//!
//! Owns the rule (docs/protocol.md, "Pack manifest"): every pack that gives the server's world
//! terrain must be mounted by the client with the same digest; a client pack that gives terrain
//! the server does not have is refused too (the client would predict over hills the server does
//! not see). An all-zero digest means "not computed" (an older client): then the pack versions
//! are compared instead. Must not: read files (the terrain computed the digests).

use crate::admission::Refusal;
use fl_protocol::enums::ConnectRefusalCode;
use fl_protocol::msg::handshake::PackManifestEntry;

/// One pack of the server's stack as the terrain sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerPack {
    pub id: String,
    pub version: String,
    /// The pack's terrain digest ([`fl_terrain::empty_digest`] when it has no terrain).
    pub digest: [u8; 32],
}

/// The server's packs from its terrain (every pack of its stack, in stack order).
pub fn server_packs(terrain: &fl_terrain::Terrain) -> Vec<ServerPack> {
    let digests = terrain.digests();
    terrain
        .index()
        .packs
        .iter()
        .map(|p| ServerPack {
            id: p.id.clone(),
            version: p.version.clone(),
            digest: digests
                .iter()
                .find(|(id, _)| *id == p.id)
                .map_or_else(fl_terrain::empty_digest, |(_, d)| *d),
        })
        .collect()
}

fn refusal(reason: String) -> Refusal {
    Refusal {
        code: ConnectRefusalCode::MissingRequiredPack,
        reason,
    }
}

/// `None` when the client's terrain is the server's; else the refusal naming the pack.
pub fn check(server: &[ServerPack], client: &[PackManifestEntry]) -> Option<Refusal> {
    let empty = fl_terrain::empty_digest();
    for s in server.iter().filter(|s| s.digest != empty) {
        let Some(c) = client.iter().find(|c| c.id.as_str() == s.id) else {
            return Some(refusal(format!(
                "Missing required pack(s): {} (terrain)",
                s.id
            )));
        };
        if c.content_hash == [0; 32] {
            // An older client that does not hash: the version is all there is to compare.
            if c.version.as_str() != s.version {
                return Some(refusal(format!(
                    "Pack {} {}: the server has {}",
                    s.id,
                    c.version.as_str(),
                    s.version
                )));
            }
            tracing::info!(pack = %s.id, "client sent no terrain digest; versions match");
            continue;
        }
        if c.content_hash != s.digest {
            return Some(refusal(format!(
                "Pack {}: terrain differs from the server's",
                s.id
            )));
        }
    }
    for c in client {
        let h = c.content_hash;
        if h == [0; 32] || h == empty {
            continue;
        }
        let known = server
            .iter()
            .any(|s| s.id == c.id.as_str() && s.digest != empty);
        if !known {
            return Some(refusal(format!(
                "Pack {}: terrain the server does not have",
                c.id.as_str()
            )));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::FixedStr;

    fn entry(id: &str, version: &str, hash: [u8; 32]) -> PackManifestEntry {
        PackManifestEntry {
            id: FixedStr::new(id),
            version: FixedStr::new(version),
            content_hash: hash,
        }
    }

    fn server() -> Vec<ServerPack> {
        vec![
            ServerPack {
                id: "fl-base-pack".into(),
                version: "1.2.0".into(),
                digest: [7; 32],
            },
            ServerPack {
                id: "planes-only".into(),
                version: "1".into(),
                digest: fl_terrain::empty_digest(),
            },
        ]
    }

    #[test]
    fn same_terrain_joins_and_each_difference_names_the_pack() {
        let e = fl_terrain::empty_digest();
        let ok = [
            entry("fl-base-pack", "1.2.0", [7; 32]),
            entry("planes-only", "1", e),
        ];
        assert_eq!(check(&server(), &ok), None);
        // A pack without terrain may be missing or differ.
        assert_eq!(check(&server(), &ok[..1]), None);
        let r = check(&server(), &[]).expect("refused");
        assert_eq!(r.code, ConnectRefusalCode::MissingRequiredPack);
        assert_eq!(r.reason, "Missing required pack(s): fl-base-pack (terrain)");
        let r = check(&server(), &[entry("fl-base-pack", "1.2.0", [8; 32])]).expect("refused");
        assert_eq!(
            r.reason,
            "Pack fl-base-pack: terrain differs from the server's"
        );
        // Not computed (an older client): versions decide.
        assert_eq!(
            check(&server(), &[entry("fl-base-pack", "1.2.0", [0; 32])]),
            None
        );
        let r = check(&server(), &[entry("fl-base-pack", "1.1.0", [0; 32])]).expect("refused");
        assert_eq!(r.reason, "Pack fl-base-pack 1.1.0: the server has 1.2.0");
        // Extra terrain on the client.
        let r = check(
            &server(),
            &[
                entry("fl-base-pack", "1.2.0", [7; 32]),
                entry("korea", "1", [9; 32]),
            ],
        )
        .expect("refused");
        assert_eq!(r.reason, "Pack korea: terrain the server does not have");
        let r = check(
            &server(),
            &[
                entry("fl-base-pack", "1.2.0", [7; 32]),
                entry("planes-only", "1", [9; 32]),
            ],
        )
        .expect("refused");
        assert_eq!(
            r.reason,
            "Pack planes-only: terrain the server does not have"
        );
        // Every reason fits the wire's 61 characters for a 20-character pack id.
        for r in [
            "Missing required pack(s): abcdefghijklmnopqrst (terrain)",
            "Pack abcdefghijklmnopqrst: terrain differs from the server's",
        ] {
            assert!(r.len() <= 61, "{r}");
        }
    }
}
