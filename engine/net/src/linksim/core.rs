//! LinkSim's engine: the virtual clock, the agenda of scheduled actions, links and servers.
//!
//! Owns all simulated state behind the network's one mutex. Every decision that needs
//! randomness is taken when an action runs or a call is made, in `(time, sequence)` order, from
//! the one seeded generator — so the schedule depends only on the seed and the call sequence.
//! Must not: iterate an unordered container, look at the wall clock, or let any queue grow
//! without a bound set by an endpoint's config.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use super::model::*;
use super::{DATAGRAM_OVERHEAD, LinkConfig, LinkId, SimEndpointConfig, SimError};
use crate::{
    Channel, ClientEvent, DisconnectReason, LinkStats, MAX_RELIABLE_MESSAGE, PeerId, SendError,
    ServerEvent,
};

/// The whole simulated world.
#[derive(Debug)]
pub(crate) struct Net {
    now: Duration,
    rng: Rng,
    seq: u64,
    agenda: BTreeMap<(Duration, u64), Action>,
    servers: BTreeMap<u64, Server>,
    listening: BTreeMap<SocketAddr, u64>,
    links: BTreeMap<u64, Link>,
    bound: BTreeSet<SocketAddr>,
    next_id: u64,
    next_port: u16,
}

enum Event {
    Connected,
    Received(Channel, Vec<u8>),
    Disconnected(DisconnectReason),
}

impl Net {
    pub(crate) fn new(seed: u64) -> Self {
        Net {
            now: Duration::ZERO,
            rng: Rng::new(seed),
            seq: 0,
            agenda: BTreeMap::new(),
            servers: BTreeMap::new(),
            listening: BTreeMap::new(),
            links: BTreeMap::new(),
            bound: BTreeSet::new(),
            next_id: 1,
            next_port: FIRST_EPHEMERAL_PORT,
        }
    }

    pub(crate) fn now(&self) -> Duration {
        self.now
    }
    pub(crate) fn link_count(&self) -> usize {
        self.links.len()
    }
    pub(crate) fn agenda_len(&self) -> usize {
        self.agenda.len()
    }
    pub(crate) fn next_action_time(&self) -> Option<Duration> {
        self.agenda.keys().next().map(|&(t, _)| t)
    }

    pub(crate) fn set_now(&mut self, t: Duration) {
        if t > self.now {
            // Run actions in time order, moving the clock to each one so that everything an
            // action schedules is relative to the moment it happened.
            while let Some(entry) = self.agenda.first_entry() {
                let at = entry.key().0;
                if at > t {
                    break;
                }
                let action = entry.remove();
                self.now = self.now.max(at);
                self.run(action);
            }
            self.now = t;
        }
        self.settle();
    }

    /// Runs everything due at or before `now` (actions scheduled with zero delay).
    fn settle(&mut self) {
        while let Some(entry) = self.agenda.first_entry() {
            if entry.key().0 > self.now {
                break;
            }
            let action = entry.remove();
            self.run(action);
        }
    }

    fn schedule(&mut self, at: Duration, action: Action) {
        let key = (at.max(self.now), self.seq);
        self.seq += 1;
        self.agenda.insert(key, action);
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    // ---------------------------------------------------------------- endpoints

    pub(crate) fn add_server(
        &mut self,
        addr: SocketAddr,
        cfg: SimEndpointConfig,
    ) -> Result<u64, SimError> {
        if addr.port() == 0 || self.bound.contains(&addr) {
            return Err(SimError::AddressInUse(addr));
        }
        let id = self.fresh_id();
        self.bound.insert(addr);
        self.listening.insert(addr, id);
        self.servers.insert(
            id,
            Server {
                addr,
                cfg,
                inbox: VecDeque::new(),
                peers: BTreeMap::new(),
                next_peer: 1,
            },
        );
        Ok(id)
    }

    fn ephemeral(&mut self, ip: IpAddr) -> Result<SocketAddr, SimError> {
        for _ in 0..=(u16::MAX - FIRST_EPHEMERAL_PORT) {
            let port = self.next_port;
            self.next_port = if port == u16::MAX {
                FIRST_EPHEMERAL_PORT
            } else {
                port + 1
            };
            let addr = SocketAddr::new(ip, port);
            if !self.bound.contains(&addr) {
                return Ok(addr);
            }
        }
        Err(SimError::NoFreePort(ip))
    }

    pub(crate) fn connect(
        &mut self,
        from: SocketAddr,
        server: SocketAddr,
        cfg: LinkConfig,
        ecfg: SimEndpointConfig,
    ) -> Result<(LinkId, SocketAddr), SimError> {
        self.settle();
        let addr = if from.port() == 0 {
            self.ephemeral(from.ip())?
        } else if self.bound.contains(&from) {
            return Err(SimError::AddressInUse(from));
        } else {
            from
        };
        self.bound.insert(addr);
        let server_id = self.listening.get(&server).copied().unwrap_or(0);
        let server_end = match self.servers.get(&server_id) {
            Some(s) => End::new(State::Pending, s.cfg),
            None => End::new(State::Closed, SimEndpointConfig::default()),
        };
        let id = self.fresh_id();
        self.links.insert(
            id,
            Link {
                client_addr: addr,
                server_id,
                peer: 0,
                cfg,
                ends: [End::new(State::Connecting, ecfg), server_end],
                blackout_until: None,
                blackout_gen: 0,
                client_inbox: VecDeque::new(),
                client_dropped: false,
            },
        );
        self.enqueue_reliable(id, Side::Client, Item::Hello);
        self.update_liveness(id);
        self.settle();
        Ok((LinkId(id), addr))
    }

    pub(crate) fn set_link(&mut self, link: LinkId, cfg: LinkConfig) -> Result<(), SimError> {
        self.settle();
        let l = self.links.get_mut(&link.0).ok_or(SimError::UnknownLink)?;
        l.cfg = cfg;
        self.update_liveness(link.0);
        Ok(())
    }

    pub(crate) fn link_config(&self, link: LinkId) -> Option<LinkConfig> {
        self.links.get(&link.0).map(|l| l.cfg)
    }

    pub(crate) fn blackout(&mut self, link: LinkId, duration: Duration) -> Result<(), SimError> {
        self.settle();
        let now = self.now;
        let l = self.links.get_mut(&link.0).ok_or(SimError::UnknownLink)?;
        let until = now.saturating_add(duration);
        l.blackout_until = Some(l.blackout_until.map_or(until, |u| u.max(until)));
        l.blackout_gen += 1;
        let (gen_, end) = (l.blackout_gen, l.blackout_until.unwrap_or(until));
        self.schedule(end, Action::BlackoutEnd { link: link.0, gen_ });
        self.update_liveness(link.0);
        Ok(())
    }

    pub(crate) fn inbox_drops(&self, link: LinkId) -> Option<[u64; 2]> {
        self.links
            .get(&link.0)
            .map(|l| [l.ends[0].inbox_drops, l.ends[1].inbox_drops])
    }

    pub(crate) fn link_of(&self, server: u64, peer: PeerId) -> Option<LinkId> {
        self.peer_link(server, peer).map(LinkId)
    }

    pub(crate) fn peer_link(&self, server: u64, peer: PeerId) -> Option<u64> {
        self.servers.get(&server)?.peers.get(&peer).copied()
    }

    pub(crate) fn drop_server(&mut self, server: u64) {
        self.settle();
        let Some(srv) = self.servers.remove(&server) else {
            return;
        };
        self.listening.remove(&srv.addr);
        self.bound.remove(&srv.addr);
        let keys: Vec<u64> = self
            .links
            .iter()
            .filter(|(_, l)| l.server_id == server)
            .map(|(&k, _)| k)
            .collect();
        for key in keys {
            self.abandon(key, Side::Server, "server shut down");
        }
    }

    pub(crate) fn drop_client(&mut self, link: u64, addr: SocketAddr) {
        self.settle();
        self.bound.remove(&addr);
        if let Some(l) = self.links.get_mut(&link) {
            l.client_dropped = true;
            l.client_inbox.clear();
        }
        self.abandon(link, Side::Client, "client shut down");
        self.gc(link);
    }

    pub(crate) fn vanish_client(&mut self, link: u64) {
        self.settle();
        if let Some(l) = self.links.get_mut(&link) {
            l.end_mut(Side::Client).state = State::Closed;
        }
        self.update_liveness(link);
    }

    /// The process behind `side` is gone: a single close notice goes out (it may be lost);
    /// a side that was already closing keeps flushing its close.
    fn abandon(&mut self, link: u64, side: Side, reason: &str) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let state = l.end(side).state;
        match state {
            State::Open | State::Connecting => {
                l.end_mut(side).state = State::Closed;
                if l.end(side.other()).state != State::Closed {
                    self.send_close_notice(link, side, reason);
                }
            }
            State::Pending => l.end_mut(side).state = State::Closed,
            State::Closing | State::Closed => {}
        }
        self.update_liveness(link);
    }

    fn send_close_notice(&mut self, link: u64, from: Side, reason: &str) {
        let now = self.now;
        let Some(l) = self.links.get(&link) else {
            return;
        };
        let dir = *l.dir(from);
        let blackout = l.blackout_at(now);
        let lost = self.rng.chance(dir.loss) || blackout;
        if !lost {
            let at = now + dir.latency + self.rng.duration(dir.jitter);
            self.schedule(
                at,
                Action::CloseNotify {
                    link,
                    to: from.other(),
                    reason: reason.to_owned(),
                },
            );
        }
    }

    // ---------------------------------------------------------------- polling

    pub(crate) fn poll_server(&mut self, server: u64, out: &mut Vec<ServerEvent>) {
        self.settle();
        let Some(srv) = self.servers.get_mut(&server) else {
            return;
        };
        let drained: Vec<(u64, ServerEvent)> = srv.inbox.drain(..).collect();
        let mut gone = Vec::new();
        for (key, ev) in drained {
            match &ev {
                ServerEvent::Received {
                    channel, payload, ..
                } => {
                    if let Some(l) = self.links.get_mut(&key) {
                        let end = l.end_mut(Side::Server);
                        unpoll(end, *channel, payload.len());
                    }
                }
                ServerEvent::Disconnected { peer, .. } => {
                    if let Some(srv) = self.servers.get_mut(&server) {
                        srv.peers.remove(peer);
                    }
                    gone.push(key);
                }
                ServerEvent::Connected { .. } => {}
            }
            out.push(ev);
        }
        for key in gone {
            self.gc(key);
        }
    }

    pub(crate) fn poll_client(&mut self, link: u64, out: &mut Vec<ClientEvent>) {
        self.settle();
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        while let Some(ev) = l.client_inbox.pop_front() {
            if let ClientEvent::Received { channel, payload } = &ev {
                unpoll(&mut l.ends[0], *channel, payload.len());
            }
            out.push(ev);
        }
    }

    /// Forgets a link nobody can observe any more.
    fn gc(&mut self, link: u64) {
        let Some(l) = self.links.get(&link) else {
            return;
        };
        let closed = l.ends.iter().all(|e| e.state == State::Closed);
        let server_forgot = match self.servers.get(&l.server_id) {
            None => true,
            Some(srv) => l.peer == 0 || !srv.peers.contains_key(&l.peer),
        };
        if l.client_dropped && closed && server_forgot {
            self.links.remove(&link);
        }
    }

    // ---------------------------------------------------------------- sending

    pub(crate) fn send(
        &mut self,
        link: u64,
        from: Side,
        channel: Channel,
        payload: &[u8],
    ) -> Result<(), SendError> {
        self.settle();
        let l = self.links.get(&link).ok_or(SendError::NotConnected)?;
        let end = l.end(from);
        if end.state != State::Open {
            return Err(SendError::NotConnected);
        }
        match channel {
            Channel::Reliable => {
                if payload.len() > MAX_RELIABLE_MESSAGE {
                    return Err(SendError::TooLarge {
                        size: payload.len(),
                        max: MAX_RELIABLE_MESSAGE,
                    });
                }
                let peer = l.end(from.other());
                let window = end
                    .cfg
                    .max_reliable_backlog
                    .min(peer.cfg.max_reliable_backlog);
                let used = end.outstanding_backlog + peer.unpolled_reliable;
                if used + payload.len() > window {
                    tracing::debug!(
                        link,
                        ?from,
                        used,
                        window,
                        "linksim: reliable backlog overflow"
                    );
                    self.disconnect(
                        link,
                        from,
                        "reliable send queue overflow: the peer is not keeping up",
                    );
                    return Err(SendError::QueueFull);
                }
                self.count_sent(link, from, payload.len());
                self.enqueue_reliable(link, from, Item::Msg(payload.to_vec()));
                self.settle();
                Ok(())
            }
            Channel::Unreliable | Channel::Voice => {
                let max = end.cfg.max_unreliable_message;
                if payload.len() > max {
                    return Err(SendError::TooLarge {
                        size: payload.len(),
                        max,
                    });
                }
                self.send_unreliable(link, from, channel, payload)
            }
        }
    }

    fn count_sent(&mut self, link: u64, from: Side, len: usize) {
        if let Some(l) = self.links.get_mut(&link) {
            let end = l.end_mut(from);
            end.messages_sent += 1;
            end.bytes_sent += len as u64;
        }
    }

    /// Occupies the direction's wire for `frags` datagrams totalling `wire` bytes; returns
    /// when the last bit left.
    fn occupy_wire(&mut self, link: u64, from: Side, wire: usize) -> Duration {
        let now = self.now;
        let Some(l) = self.links.get_mut(&link) else {
            return now;
        };
        let bandwidth = l.dir(from).bandwidth;
        let end = l.end_mut(from);
        let start = end.wire_free_at.max(now);
        let done = start + transmit_time(wire, bandwidth);
        end.wire_free_at = done;
        done
    }

    /// Draws the fate of `frags` datagrams sent now from `from`; true if any was lost.
    fn draw_losses(&mut self, link: u64, from: Side, frags: usize) -> bool {
        let now = self.now;
        let Some(l) = self.links.get_mut(&link) else {
            return true;
        };
        let (loss, blackout) = (l.dir(from).loss, l.blackout_at(now));
        let mut any = false;
        for _ in 0..frags {
            let lost = self.rng.chance(loss) || blackout;
            l.end_mut(from).loss.record(lost);
            any |= lost;
        }
        any
    }

    fn send_unreliable(
        &mut self,
        link: u64,
        from: Side,
        channel: Channel,
        payload: &[u8],
    ) -> Result<(), SendError> {
        let now = self.now;
        let l = self.links.get(&link).ok_or(SendError::NotConnected)?;
        let dir = *l.dir(from);
        let frags = fragments(payload.len(), dir.max_datagram);
        let wire = payload.len() + frags * DATAGRAM_OVERHEAD;
        if dir.bandwidth > 0 && l.end(from).wire_free_at > now + dir.max_queue_delay {
            return Err(SendError::QueueFull);
        }
        self.count_sent(link, from, payload.len());
        let depart = self.occupy_wire(link, from, wire);
        if self.draw_losses(link, from, frags) {
            return Ok(());
        }
        let lane = usize::from(channel == Channel::Voice);
        let mut arrival = depart + dir.latency + self.rng.duration(dir.jitter);
        if self.rng.chance(dir.reorder) {
            let hold = dir.reorder_delay.mul_f64(0.5 + self.rng.unit());
            arrival += hold;
        } else if let Some(l) = self.links.get_mut(&link) {
            let last = &mut l.end_mut(from).last_arrival[lane];
            arrival = arrival.max(*last);
            *last = arrival;
        }
        let duplicate = self.rng.chance(dir.duplicate);
        if duplicate {
            let extra = self.rng.duration(dir.jitter) + Duration::from_micros(1);
            self.schedule(
                arrival + extra,
                Action::Arrive {
                    link,
                    to: from.other(),
                    channel,
                    payload: payload.to_vec(),
                },
            );
        }
        self.schedule(
            arrival,
            Action::Arrive {
                link,
                to: from.other(),
                channel,
                payload: payload.to_vec(),
            },
        );
        self.probe_rtt(link, from, depart, arrival);
        self.settle();
        Ok(())
    }

    /// Schedules an RTT sample for `from` (one outstanding at a time): the datagram's trip
    /// plus an acknowledgement's trip back.
    fn probe_rtt(&mut self, link: u64, from: Side, depart: Duration, arrival: Duration) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        if l.end(from).rtt_probe_pending {
            return;
        }
        l.end_mut(from).rtt_probe_pending = true;
        let back = *l.dir(from.other());
        let ack_at = arrival + back.latency + self.rng.duration(back.jitter);
        self.schedule(
            ack_at,
            Action::RttSample {
                link,
                side: from,
                sample: ack_at - depart,
            },
        );
    }

    fn enqueue_reliable(&mut self, link: u64, from: Side, item: Item) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let (backlog, wire) = match &item {
            Item::Msg(p) => (p.len(), p.len()),
            Item::Close(r) | Item::Refuse(r) => (0, CONTROL_BYTES + r.len()),
            Item::Hello | Item::HelloAck => (0, CONTROL_BYTES),
        };
        let end = l.end_mut(from);
        let seq = end.next_seq;
        end.next_seq += 1;
        end.outstanding_backlog += backlog;
        end.outstanding.insert(
            seq,
            Outgoing {
                item: Some(item),
                backlog,
                wire,
            },
        );
        let now = self.now;
        self.schedule(
            now,
            Action::RelAttempt {
                link,
                from,
                seq,
                attempt: 0,
            },
        );
    }

    pub(crate) fn disconnect(&mut self, link: u64, from: Side, reason: &str) {
        self.settle();
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let end = l.end(from);
        match end.state {
            State::Open | State::Connecting => {
                let announce = from == Side::Client || end.announced;
                l.end_mut(from).state = State::Closing;
                if announce {
                    self.emit(
                        link,
                        from,
                        Event::Disconnected(DisconnectReason::Local(reason.to_owned())),
                    );
                }
                self.enqueue_reliable(link, from, Item::Close(reason.to_owned()));
            }
            State::Pending | State::Closing | State::Closed => {}
        }
        self.update_liveness(link);
        self.settle();
    }

    // ---------------------------------------------------------------- statistics

    pub(crate) fn link_stats(&self, link: u64, side: Side) -> Option<LinkStats> {
        let l = self.links.get(&link)?;
        let end = l.end(side);
        let peer = l.end(side.other());
        let out = l.dir(side);
        let back = l.dir(side.other());
        let rtt = end.srtt.unwrap_or(out.latency + back.latency);
        Some(LinkStats {
            rtt,
            loss: end.loss.fraction(),
            loss_in: peer.loss.fraction(),
            datagrams_in: peer.loss.total - peer.loss.total_lost,
            datagrams_missing: peer.loss.total_lost,
            bytes_sent: end.bytes_sent,
            bytes_received: end.bytes_received,
            messages_sent: end.messages_sent,
            messages_received: end.messages_received,
            max_datagram_size: out.max_datagram,
            reliable_backlog_bytes: end.outstanding_backlog + peer.unpolled_reliable,
            datagram_backlog_bytes: 0,
        })
    }

    // ---------------------------------------------------------------- events

    fn emit(&mut self, link: u64, side: Side, ev: Event) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        match side {
            Side::Client => {
                if l.client_dropped {
                    return;
                }
                l.client_inbox.push_back(match ev {
                    Event::Connected => ClientEvent::Connected,
                    Event::Received(channel, payload) => ClientEvent::Received { channel, payload },
                    Event::Disconnected(reason) => ClientEvent::Disconnected { reason },
                });
            }
            Side::Server => {
                let peer = l.peer;
                let addr = l.client_addr;
                let Some(srv) = self.servers.get_mut(&l.server_id) else {
                    return;
                };
                let ev = match ev {
                    Event::Connected => ServerEvent::Connected { peer, addr },
                    Event::Received(channel, payload) => ServerEvent::Received {
                        peer,
                        channel,
                        payload,
                    },
                    Event::Disconnected(reason) => ServerEvent::Disconnected { peer, reason },
                };
                srv.inbox.push_back((link, ev));
            }
        }
    }

    /// Closes `side` because of something that happened to it (timeout, close received);
    /// emits the one `Disconnected` it owes, if any.
    fn close_end(&mut self, link: u64, side: Side, reason: DisconnectReason) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let end = l.end_mut(side);
        let owed = match end.state {
            State::Connecting => true,
            State::Open => side == Side::Client || end.announced,
            State::Pending | State::Closing | State::Closed => false,
        };
        end.state = State::Closed;
        // A server end still waiting for this client's hello will never hear from it.
        if side == Side::Client && l.end(Side::Server).state == State::Pending {
            l.end_mut(Side::Server).state = State::Closed;
        }
        if owed {
            self.emit(link, side, Event::Disconnected(reason));
        }
        self.update_liveness(link);
    }

    /// Tracks, for each end, since when nothing can reach it; schedules its idle check.
    fn update_liveness(&mut self, link: u64) {
        let now = self.now;
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let blackout = l.blackout_at(now);
        let mut checks = Vec::new();
        for from in [Side::Client, Side::Server] {
            let to = from.other();
            let sender_silent = matches!(l.end(from).state, State::Pending | State::Closed);
            let dead = sender_silent || blackout || l.dir(from).loss >= 1.0;
            let end = l.end_mut(to);
            if matches!(end.state, State::Pending | State::Closed) {
                continue;
            }
            match (dead, end.inbound_dead_since) {
                (true, None) => {
                    end.inbound_dead_since = Some(now);
                    end.inbound_gen += 1;
                    checks.push((now + end.cfg.idle_timeout, to, end.inbound_gen));
                }
                (false, Some(_)) => {
                    end.inbound_dead_since = None;
                    end.inbound_gen += 1;
                }
                _ => {}
            }
        }
        for (at, side, gen_) in checks {
            self.schedule(at, Action::IdleCheck { link, side, gen_ });
        }
    }

    // ---------------------------------------------------------------- actions

    fn run(&mut self, action: Action) {
        match action {
            Action::RelAttempt {
                link,
                from,
                seq,
                attempt,
            } => self.rel_attempt(link, from, seq, attempt),
            Action::RelArrive {
                link,
                to,
                seq,
                item,
            } => self.rel_arrive(link, to, seq, item),
            Action::RelAck {
                link,
                from,
                seq,
                sample,
            } => self.rel_ack(link, from, seq, sample),
            Action::Arrive {
                link,
                to,
                channel,
                payload,
            } => {
                let Some(l) = self.links.get_mut(&link) else {
                    return;
                };
                let end = l.end_mut(to);
                if !end.accepts_data() {
                    return;
                }
                if end.unpolled_unreliable >= end.cfg.max_inbox_unreliable {
                    end.inbox_drops += 1;
                    return;
                }
                end.unpolled_unreliable += 1;
                end.messages_received += 1;
                end.bytes_received += payload.len() as u64;
                self.emit(link, to, Event::Received(channel, payload));
            }
            Action::RttSample { link, side, sample } => {
                if let Some(l) = self.links.get_mut(&link) {
                    let end = l.end_mut(side);
                    end.rtt_probe_pending = false;
                    end.rtt_sample(sample);
                }
            }
            Action::CloseNotify { link, to, reason } => {
                self.close_end(link, to, DisconnectReason::Remote(reason));
                self.gc(link);
            }
            Action::IdleCheck { link, side, gen_ } => {
                let Some(l) = self.links.get(&link) else {
                    return;
                };
                let end = l.end(side);
                if end.inbound_gen == gen_ && end.inbound_dead_since.is_some() {
                    tracing::debug!(link, ?side, "linksim: idle timeout");
                    self.close_end(link, side, DisconnectReason::TimedOut);
                    self.gc(link);
                }
            }
            Action::BlackoutEnd { link, gen_ } => {
                if let Some(l) = self.links.get_mut(&link)
                    && l.blackout_gen == gen_
                {
                    l.blackout_until = None;
                    self.update_liveness(link);
                }
            }
        }
    }

    fn rel_attempt(&mut self, link: u64, from: Side, seq: u64, attempt: u32) {
        let Some(l) = self.links.get(&link) else {
            return;
        };
        let Some(out) = l.end(from).outstanding.get(&seq) else {
            return;
        };
        if out.item.is_none()
            || l.end(from).state == State::Closed
            || l.end(from.other()).state == State::Closed
        {
            return;
        }
        let dir = *l.dir(from);
        let back = *l.dir(from.other());
        let pto = l.end(from).pto();
        let wire_len = out.wire;
        let frags = fragments(wire_len, dir.max_datagram);
        let depart = self.occupy_wire(link, from, wire_len + frags * DATAGRAM_OVERHEAD);
        if self.draw_losses(link, from, frags) {
            let backoff = pto
                .saturating_mul(1u32 << attempt.min(16))
                .min(MAX_RETRANSMIT_INTERVAL.max(pto));
            self.schedule(
                depart + backoff,
                Action::RelAttempt {
                    link,
                    from,
                    seq,
                    attempt: attempt.saturating_add(1),
                },
            );
            return;
        }
        let arrival = depart + dir.latency + self.rng.duration(dir.jitter);
        let ack_at = arrival + back.latency + self.rng.duration(back.jitter);
        let item = self
            .links
            .get_mut(&link)
            .and_then(|l| l.end_mut(from).outstanding.get_mut(&seq))
            .and_then(|out| out.item.take());
        if let Some(item) = item {
            self.schedule(
                arrival,
                Action::RelArrive {
                    link,
                    to: from.other(),
                    seq,
                    item,
                },
            );
            self.schedule(
                ack_at,
                Action::RelAck {
                    link,
                    from,
                    seq,
                    sample: ack_at - depart,
                },
            );
        }
    }

    fn rel_ack(&mut self, link: u64, from: Side, seq: u64, sample: Duration) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let end = l.end_mut(from);
        end.rtt_sample(sample);
        let Some(out) = end.outstanding.remove(&seq) else {
            return;
        };
        end.outstanding_backlog -= out.backlog;
        // A closing end is done once everything it sent, the close last, was acknowledged
        // (acknowledged out of order: earlier items may still be retransmitting).
        if end.state == State::Closing && end.outstanding.is_empty() {
            end.state = State::Closed;
            self.update_liveness(link);
            self.gc(link);
        }
    }

    fn rel_arrive(&mut self, link: u64, to: Side, seq: u64, item: Item) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let end = l.end_mut(to);
        if end.state == State::Closed || seq < end.next_expected {
            return;
        }
        end.reorder_buf.insert(seq, item);
        loop {
            let Some(l) = self.links.get_mut(&link) else {
                return;
            };
            let end = l.end_mut(to);
            let next = end.next_expected;
            let Some(item) = end.reorder_buf.remove(&next) else {
                break;
            };
            end.next_expected += 1;
            self.process_item(link, to, item);
        }
        self.update_liveness(link);
        self.gc(link);
    }

    /// Handles one reliable item, in order.
    fn process_item(&mut self, link: u64, to: Side, item: Item) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let state = l.end(to).state;
        match item {
            Item::Hello => {
                if to == Side::Server && state == State::Pending {
                    self.accept(link);
                }
            }
            Item::HelloAck => {
                if to == Side::Client && state == State::Connecting {
                    let end = l.end_mut(Side::Client);
                    end.state = State::Open;
                    end.announced = true;
                    self.emit(link, to, Event::Connected);
                    self.update_liveness(link);
                }
            }
            Item::Refuse(reason) => {
                if to == Side::Client && state == State::Connecting {
                    self.close_end(link, to, DisconnectReason::Remote(reason));
                }
            }
            Item::Msg(payload) => {
                if state == State::Open {
                    let end = l.end_mut(to);
                    end.unpolled_reliable += payload.len();
                    end.messages_received += 1;
                    end.bytes_received += payload.len() as u64;
                    self.emit(link, to, Event::Received(Channel::Reliable, payload));
                }
            }
            Item::Close(reason) => match state {
                State::Open | State::Connecting => {
                    self.close_end(link, to, DisconnectReason::Remote(reason));
                }
                State::Closing => {
                    l.end_mut(to).state = State::Closed;
                    self.update_liveness(link);
                }
                State::Pending | State::Closed => {
                    l.end_mut(to).state = State::Closed;
                    self.update_liveness(link);
                }
            },
        }
    }

    /// The client's hello reached a listening server: accept it or refuse it.
    fn accept(&mut self, link: u64) {
        let Some(l) = self.links.get_mut(&link) else {
            return;
        };
        let Some(srv) = self.servers.get_mut(&l.server_id) else {
            l.end_mut(Side::Server).state = State::Closed;
            return;
        };
        if srv.peers.len() >= srv.cfg.max_connections {
            tracing::debug!(link, "linksim: refusing a connection (server full)");
            l.end_mut(Side::Server).state = State::Closing;
            self.enqueue_reliable(link, Side::Server, Item::Refuse("server full".to_owned()));
            return;
        }
        let peer = srv.next_peer;
        srv.next_peer += 1;
        srv.peers.insert(peer, link);
        l.peer = peer;
        let end = l.end_mut(Side::Server);
        end.state = State::Open;
        end.announced = true;
        self.emit(link, Side::Server, Event::Connected);
        self.enqueue_reliable(link, Side::Server, Item::HelloAck);
        self.update_liveness(link);
    }
}
