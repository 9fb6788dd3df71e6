//! What an operator's status page and metrics see of each player: callsign, team, round trip,
//! loss and bytes, read from the peer table and the transport's link statistics.
//!
//! Read-only: it never changes a peer or sends anything.

use super::Server;
use fl_protocol::enums::PeerRole;
use serde::Serialize;

/// One admitted participant's link, as the runtime publishes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerLink {
    pub peer: u32,
    pub callsign: String,
    /// The faction's id from the configuration (its index when the server has none).
    pub team: String,
    pub observer: bool,
    /// Smoothed round trip, ms.
    pub ping_ms: f64,
    /// The worse direction's recent loss, a fraction 0..=1.
    pub loss: f64,
    /// Payload bytes sent to / received from the peer since it connected.
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl Server {
    /// Every admitted peer's link, in peer order.
    pub fn player_links(&self) -> Vec<PlayerLink> {
        self.peers
            .iter()
            .filter_map(|(&peer, slot)| {
                let a = slot.admitted.as_ref()?;
                let link = self.transport.link_stats(peer).unwrap_or_default();
                let team = self
                    .cfg
                    .factions
                    .iter()
                    .find(|f| f.index == a.faction)
                    .map_or_else(|| a.faction.to_string(), |f| f.id.clone());
                Some(PlayerLink {
                    peer,
                    callsign: a.callsign.clone(),
                    team,
                    observer: a.role == PeerRole::Observer,
                    ping_ms: link.rtt.as_secs_f64() * 1000.0,
                    loss: link.loss.max(link.loss_in).clamp(0.0, 1.0),
                    bytes_sent: link.bytes_sent,
                    bytes_received: link.bytes_received,
                })
            })
            .collect()
    }
}
