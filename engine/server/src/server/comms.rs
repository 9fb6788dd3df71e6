//! Session comms: heartbeats answered with `MsgPeerDelay` (and feeding the ack window and the
//! delay estimate), the password-gated admin channel (failures count toward the per-IP
//! lockout; authenticated commands go through `crate::admin`), server notices, and the weather
//! broadcast.

use super::{Server, send};
use crate::admission::constant_time_eq;
use fl_net::{Channel, PeerId};
use fl_protocol::FixedStr;
use fl_protocol::ack::AckStamp;
use fl_protocol::msg::admin::AdminCommand;
use fl_protocol::msg::world::{Heartbeat, PeerDelay, ServerNotice};
use fl_protocol::tlv::Extensions;

impl Server {
    /// Broadcasts a shutdown notice to every admitted peer.
    pub fn broadcast_notice(&mut self, seconds_remaining: u16, text: &str) {
        let notice = ServerNotice {
            seconds_remaining,
            text: FixedStr::new(text),
        };
        let ids: Vec<PeerId> = self.peers.keys().copied().collect();
        for peer in ids {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                notice.clone().into(),
                &Extensions::new(),
            );
        }
    }

    pub(super) fn on_heartbeat(&mut self, peer: PeerId, hb: &Heartbeat, now: u64) {
        let Some(slot) = self.peers.get_mut(&peer) else {
            return;
        };
        let stamp = AckStamp {
            high: hb.tick_index.min(now),
            mask: hb.ack_mask,
        };
        slot.snapshots.baselines.on_ack(stamp);
        let delay = now.saturating_sub(stamp.high);
        slot.last_delay_ticks = delay;
        slot.jitter.observe_delay(delay);
        let reply = PeerDelay {
            delay_ticks: delay.min(u64::from(u16::MAX)) as u16,
        };
        send(
            self.transport.as_mut(),
            peer,
            Channel::Unreliable,
            reply.into(),
            &Extensions::new(),
        );
    }

    pub(super) fn on_admin(&mut self, peer: PeerId, cmd: &AdminCommand) {
        let Some(addr) = self.peers.get(&peer).map(|p| p.addr) else {
            return;
        };
        let ok = self
            .cfg
            .operator_password
            .as_deref()
            .is_some_and(|pw| constant_time_eq(pw.as_bytes(), cmd.token.as_bytes()));
        if !ok {
            tracing::warn!(peer, %addr, "admin authentication failed");
            if self
                .admission
                .admin_auth_failed(addr.ip(), self.service_ticks)
            {
                self.kick(peer, "Access denied.");
            }
            return;
        }
        self.admission.admin_auth_succeeded(addr.ip());
        // The registry shared with every other frontend; one place frames the answer.
        let outcome = crate::admin::dispatch(self, cmd.command.as_str());
        tracing::debug!(peer, %addr, command = cmd.command.as_str(), done = outcome.is_done(), "admin command over the network");
        if !self.peers.contains_key(&peer) {
            // The command removed its own issuer (kick or ban of oneself): nobody to answer.
            return;
        }
        for reply in crate::admin::wire::responses(cmd.req_id, outcome.text()) {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Reliable,
                reply,
                &Extensions::new(),
            );
        }
    }

    pub(super) fn send_weather(&mut self) {
        let Some((msg, ext)) = self.weather.broadcast(self.world.tick()) else {
            return;
        };
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.admitted.is_some())
            .map(|(&id, _)| id)
            .collect();
        for peer in ids {
            send(
                self.transport.as_mut(),
                peer,
                Channel::Unreliable,
                msg.clone().into(),
                &ext,
            );
        }
    }
}
