//! Match and people, on the server: the roster (`MsgPlayerRoster`, the one name source), chat
//! routing (`MsgChat` → `MsgChatEvent`, rate limit, mute, moderation, system lines, recent
//! history), the match clock and team scores (`MsgMatchState`), the scoreboard
//! (`MsgScoreboard`), team switches (`MsgTeamRequest`), the join cap (`MatchFull`) and the
//! reconnect grace (`ConnectIdentity`).
//!
//! The rules live in `crate::social` (pure, unit-tested); this only applies them to the peer
//! table and the world and delivers the messages. Must not: decide combat (kills come from
//! `crate::combat`'s queue, read before it is broadcast), read the wall clock, or let a peer's
//! input grow anything without bound.

use super::{Server, send};
use crate::admission::Refusal;
use crate::combat::events::SCORE_KILL;
use crate::pool::EntityId;
use crate::social::{
    ChatBucket, ChatLine, ChatLog, GraceBook, GraceRecord, MatchClock, SCOREBOARD_EVERY_TICKS,
    SocialConfig, TEAM_REQUEST_COOLDOWN_TICKS, censor, match_full, sanitize_callsign,
    sanitize_chat, switch_keeps_balance, unique_callsign, unique_callsign_from,
};
use crate::world::{Body, Pilot};
use fl_net::{Channel, PeerId};
use fl_protocol::FixedStr;
use fl_protocol::Message;
use fl_protocol::enums::{ChatChannel, ConnectRefusalCode, MatchPhase, PeerRole, ids};
use fl_protocol::msg::social::{
    Chat, ChatEvent, MatchState, MatchTeamScore, PlayerRoster, PlayerRosterEntry, ROSTER_FLAG_BOT,
    ROSTER_FLAG_LEAVE, Scoreboard, ScoreboardRow,
};
use fl_protocol::tlv::Extensions;
use std::collections::{BTreeMap, BTreeSet};

/// Most entries (roster) or rows (scoreboard) one message carries (its count is a byte).
const MAX_PER_MESSAGE: usize = u8::MAX as usize;
/// World ticks between two looks for AI aircraft joining or leaving the roster.
const BOT_SYNC_EVERY_TICKS: u64 = 30;
/// Milliseconds per tick (60 Hz), for the scoreboard's ping.
const MS_PER_TICK: u64 = 1000 / 60;

/// Counters of what the social layer refused (for metrics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocialCounters {
    /// Chat lines over a peer's rate limit (dropped silently).
    pub chat_rate_limited: u64,
    /// Chat lines that were not valid UTF-8 or had nothing left after sanitising.
    pub chat_invalid: u64,
    /// Chat lines of muted peers.
    pub chat_muted: u64,
    /// Chat lines routed (system lines included).
    pub chat_routed: u64,
    /// Team requests inside a peer's cooldown (dropped silently).
    pub team_requests_rate_limited: u64,
    /// Team requests refused (no such team, unbalancing, mission slot).
    pub team_requests_refused: u64,
    /// Team switches granted.
    pub team_switches: u64,
    /// Pilots given their grace record back.
    pub reconnects_restored: u64,
}

#[derive(Debug)]
struct PeerSocial {
    identity: Option<String>,
    bucket: ChatBucket,
    muted: bool,
    /// The muted peer was told once.
    mute_told: bool,
    /// Service tick from which a team request is heard again.
    next_team_request: u64,
}

#[derive(Debug)]
struct Bot {
    id: u32,
    faction: u16,
    callsign: String,
    kills: u32,
    deaths: u32,
    score: i32,
}

/// Kills kept for an operator's status page.
pub const RECENT_KILLS: usize = 50;

/// One kill as an operator reads it (names as they were at the time).
#[derive(Debug, Clone, PartialEq)]
pub struct KillLine {
    pub tick: u64,
    /// The credited shooter's name; empty for the environment (a crash).
    pub killer: String,
    pub victim: String,
    /// The weapon class (`gun`, `missile`, …); empty for none.
    pub weapon: String,
    pub team_kill: bool,
}

/// The social state of the server.
#[derive(Debug)]
pub(crate) struct SocialState {
    cfg: SocialConfig,
    clock: MatchClock,
    log: ChatLog,
    grace: GraceBook,
    peers: BTreeMap<PeerId, PeerSocial>,
    bots: BTreeMap<EntityId, Bot>,
    next_bot: u32,
    counters: SocialCounters,
    kills: std::collections::VecDeque<KillLine>,
}

impl SocialState {
    pub(crate) fn new(cfg: SocialConfig, factions: impl IntoIterator<Item = u16>) -> Self {
        Self {
            clock: MatchClock::new(cfg.rules, factions, 0),
            cfg,
            log: ChatLog::default(),
            grace: GraceBook::default(),
            peers: BTreeMap::new(),
            bots: BTreeMap::new(),
            next_bot: 0,
            counters: SocialCounters::default(),
            kills: std::collections::VecDeque::with_capacity(RECENT_KILLS),
        }
    }

    /// Whether a live grace record keeps mission slot `slot` for its pilot.
    pub(crate) fn grace_holds_slot(&self, slot: usize) -> bool {
        self.grace.holds_slot(slot)
    }
}

/// What `admit` takes from the social layer for a joining pilot.
pub(super) struct JoinPlan {
    pub faction: Option<u16>,
    pub callsign: String,
    pub mission_slot: Option<usize>,
    pub restored: Option<GraceRecord>,
}

impl Server {
    // ---- public API -------------------------------------------------------------------------

    /// The match phase now.
    pub fn match_phase(&self) -> MatchPhase {
        self.social.clock.phase()
    }

    /// World tick the match phase ends (0 = untimed).
    pub fn match_phase_end_tick(&self) -> u64 {
        self.social.clock.phase_end_tick()
    }

    /// Team scores by faction index.
    pub fn team_scores(&self) -> &BTreeMap<u16, i32> {
        self.social.clock.scores()
    }

    /// Matches begun since the server started (1 at first).
    pub fn matches_started(&self) -> u64 {
        self.social.clock.matches_started()
    }

    /// What the social layer dropped, refused and routed.
    pub fn social_counters(&self) -> SocialCounters {
        self.social.counters
    }

    /// The recent chat, oldest first (the last [`crate::social::CHAT_HISTORY`] routed lines,
    /// system lines included; private notices are not kept).
    pub fn recent_chat(&self) -> impl ExactSizeIterator<Item = &ChatLine> {
        self.social.log.lines()
    }

    /// The last [`RECENT_KILLS`] kills, oldest first.
    pub fn recent_kills(&self) -> impl ExactSizeIterator<Item = &KillLine> {
        self.social.kills.iter()
    }

    /// What an operator calls entity `e` flown by `owner`: the pilot's or the bot's callsign,
    /// else its type.
    fn kill_name(&self, e: EntityId, owner: Option<u32>) -> String {
        if let Some(name) = owner.and_then(|p| self.callsign_of(p)) {
            return name.to_owned();
        }
        if let Some(b) = self.social.bots.get(&e) {
            return b.callsign.clone();
        }
        format!("entity {}", e.index)
    }

    /// An admitted peer's callsign.
    pub fn callsign_of(&self, peer: PeerId) -> Option<&str> {
        self.peers
            .get(&peer)?
            .admitted
            .as_ref()
            .map(|a| a.callsign.as_str())
    }

    /// An admitted peer's faction.
    pub fn faction_of(&self, peer: PeerId) -> Option<u16> {
        self.peers.get(&peer)?.admitted.as_ref().map(|a| a.faction)
    }

    /// Grace records waiting for their pilots.
    pub fn grace_records(&self) -> usize {
        self.social.grace.len()
    }

    /// The whole roster as a late joiner gets it: admitted peers in peer order, then bots.
    pub fn roster(&self) -> Vec<PlayerRosterEntry> {
        let mut out: Vec<PlayerRosterEntry> = self
            .peers
            .iter()
            .filter_map(|(&p, s)| {
                let a = s.admitted.as_ref()?;
                Some(entry(p, a.faction, a.role, 0, &a.callsign))
            })
            .collect();
        out.extend(self.social.bots.values().map(|b| {
            entry(
                b.id,
                b.faction,
                PeerRole::Pilot,
                ROSTER_FLAG_BOT,
                &b.callsign,
            )
        }));
        out
    }

    /// Mutes (or unmutes) a peer's chat (the operator's `mute`). Returns whether the peer was
    /// found. A muted peer's lines are dropped; it is told once per mute.
    pub fn set_chat_muted(&mut self, peer: PeerId, muted: bool) -> bool {
        match self.social.peers.get_mut(&peer) {
            Some(ps) => {
                ps.muted = muted;
                ps.mute_told = false;
                true
            }
            None => false,
        }
    }

    /// Whether a peer's chat is muted.
    pub fn is_chat_muted(&self, peer: PeerId) -> bool {
        self.social.peers.get(&peer).is_some_and(|p| p.muted)
    }

    /// A system line (no sender) to every admitted peer: the operator's `say`. Sanitised like
    /// a player's line; an empty one is not sent.
    pub fn system_chat(&mut self, text: &str) {
        if let Some(text) = sanitize_chat(text.as_bytes()) {
            self.route_chat(ids::NO_OWNING_PEER, ChatChannel::All, None, text);
        }
    }

    // ---- join and leave ----------------------------------------------------------------------

    /// The social side of a join: a grace record given back for a known identity, or the
    /// match cap checked; the callsign made unique.
    pub(super) fn plan_join(
        &self,
        role: PeerRole,
        callsign: &str,
        identity: Option<&str>,
    ) -> Result<JoinPlan, Refusal> {
        let now = self.world.tick();
        // Only looked at here: the record is used up when the admission succeeds.
        let restored = identity.and_then(|id| self.social.grace.peek(id, now).cloned());
        if restored.is_none() && role == PeerRole::Pilot {
            let counts = self.team_counts(None);
            if match_full(&counts, self.social.cfg.max_per_team) {
                return Err(Refusal {
                    code: ConnectRefusalCode::MatchFull,
                    reason: "Every team is full. Try again later.".into(),
                });
            }
        }
        let wanted = restored
            .as_ref()
            .map_or_else(|| sanitize_callsign(callsign), |r| r.callsign.clone());
        // The joiner is not admitted yet, so its own name is not in the way.
        let callsign = self.unique_name(&wanted);
        let faction = restored
            .as_ref()
            .map(|r| r.faction)
            .filter(|f| self.cfg.factions.iter().any(|x| x.index == *f));
        Ok(JoinPlan {
            faction,
            callsign,
            mission_slot: restored.as_ref().and_then(|r| r.mission_slot),
            restored,
        })
    }

    /// After a successful admission: the peer's social record, its restored tallies.
    pub(super) fn register_join(
        &mut self,
        peer: PeerId,
        identity: Option<String>,
        restored: Option<GraceRecord>,
    ) {
        if let Some(id) = &identity {
            self.social.grace.take(id, 0);
        }
        let bucket = ChatBucket::full(&self.social.cfg.chat, self.service_ticks);
        self.social.peers.insert(
            peer,
            PeerSocial {
                identity,
                bucket,
                muted: false,
                mute_told: false,
                next_team_request: 0,
            },
        );
        if let Some(r) = restored {
            self.social.counters.reconnects_restored += 1;
            if r.match_number == self.social.clock.matches_started() {
                let tick = self.world.tick();
                self.combat
                    .set_peer_tallies(peer, r.kills, r.deaths, r.team_kills, r.score, tick);
            }
            tracing::info!(peer, callsign = %r.callsign, "reconnect: grace record restored");
        }
    }

    /// Right after the join burst: the joiner's roster upsert to everyone else, the whole
    /// roster, match state and scoreboard to the joiner, and a "joined" system line.
    pub(super) fn announce_join(&mut self, peer: PeerId) {
        let Some(a) = self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) else {
            return;
        };
        let me = entry(peer, a.faction, a.role, 0, &a.callsign);
        let line = format!("{} joined", a.callsign);
        self.send_roster_to_all_but(Some(peer), vec![me]);
        let roster = self.roster();
        for chunk in roster.chunks(MAX_PER_MESSAGE) {
            let msg = PlayerRoster {
                entries: chunk.to_vec(),
            };
            self.send_to(peer, Channel::Reliable, msg.into());
        }
        let state = self.match_state_msg();
        self.send_to(peer, Channel::Reliable, state.into());
        for sb in self.scoreboard_msgs() {
            self.send_to(peer, Channel::Unreliable, sb.into());
        }
        self.route_chat(ids::NO_OWNING_PEER, ChatChannel::All, None, line);
    }

    /// A peer's roster entry (its faction or role changed) to every admitted peer.
    pub(super) fn announce_roster_change(&mut self, peer: PeerId) {
        let Some(a) = self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) else {
            return;
        };
        let e = entry(peer, a.faction, a.role, 0, &a.callsign);
        self.send_roster_to_all_but(None, vec![e]);
    }

    /// A peer that dropped (not kicked): its grace record, when it sent an identity.
    pub(super) fn keep_grace(&mut self, peer: PeerId) {
        let grace = self.social.cfg.reconnect_grace_ticks;
        if grace == 0 {
            return;
        }
        let Some(identity) = self
            .social
            .peers
            .get(&peer)
            .and_then(|p| p.identity.clone())
        else {
            return;
        };
        let Some(a) = self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) else {
            return;
        };
        let stats = self.combat.peer_stats(peer).copied().unwrap_or_default();
        let record = GraceRecord {
            faction: a.faction,
            callsign: a.callsign.clone(),
            kills: stats.kills,
            deaths: stats.losses,
            team_kills: stats.team_kills,
            score: stats.score,
            mission_slot: self.mission_slot_of(peer).map(|s| s.slot),
            expires: self.world.tick() + grace,
            match_number: self.social.clock.matches_started(),
        };
        tracing::info!(peer, callsign = %record.callsign, "grace record kept");
        self.social.grace.insert(identity, record);
    }

    /// A peer leaving the table for any reason (called before it is removed): a roster leave
    /// and a "left" line for everyone else.
    pub(super) fn announce_leave(&mut self, peer: PeerId) {
        self.social.peers.remove(&peer);
        let Some(a) = self.peers.get(&peer).and_then(|s| s.admitted.as_ref()) else {
            return;
        };
        let gone = entry(peer, a.faction, a.role, ROSTER_FLAG_LEAVE, &a.callsign);
        let line = format!("{} left", a.callsign);
        self.send_roster_to_all_but(Some(peer), vec![gone]);
        self.route_chat(ids::NO_OWNING_PEER, ChatChannel::All, Some(peer), line);
    }

    // ---- chat ----------------------------------------------------------------------------------

    /// `MsgChat` from an admitted peer; `payload` is the packet as received (the text is
    /// checked for valid UTF-8 there, before the decoder's lossy conversion).
    pub(super) fn on_chat(&mut self, peer: PeerId, chat: &Chat, payload: &[u8]) {
        let now = self.service_ticks;
        let Some(ps) = self.social.peers.get_mut(&peer) else {
            return;
        };
        if ps.muted {
            self.social.counters.chat_muted += 1;
            if !ps.mute_told {
                ps.mute_told = true;
                self.private_line(peer, "You are muted.");
            }
            return;
        }
        if !ps.bucket.take(&self.social.cfg.chat, now) {
            self.social.counters.chat_rate_limited += 1;
            return;
        }
        let raw = payload.get(4..).unwrap_or(&[]);
        let raw = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
        let Some(text) = sanitize_chat(raw) else {
            self.social.counters.chat_invalid += 1;
            return;
        };
        let text = censor(&text, &self.social.cfg.chat.blocked_words);
        self.route_chat(peer, chat.channel, None, text);
    }

    /// Routes a line: All to every admitted peer (the sender's echo included), Team to the
    /// sender's faction; logs it. `skip` leaves one peer out (one that is leaving).
    fn route_chat(
        &mut self,
        sender: u32,
        channel: ChatChannel,
        skip: Option<PeerId>,
        text: String,
    ) {
        let from = self.peers.get(&sender).and_then(|s| s.admitted.as_ref());
        let faction = from.map(|a| a.faction);
        let callsign = from.map(|a| a.callsign.clone()).unwrap_or_default();
        let to: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(p, _)| Some(**p) != skip)
            .filter_map(|(&p, s)| Some((p, s.admitted.as_ref()?.faction)))
            .filter(|(_, f)| channel == ChatChannel::All || Some(*f) == faction)
            .map(|(p, _)| p)
            .collect();
        let msg = ChatEvent {
            channel,
            sender_peer_id: sender,
            text: text.clone(),
        };
        for p in to {
            self.send_to(p, Channel::Reliable, msg.clone().into());
        }
        self.social.counters.chat_routed += 1;
        self.social.log.push(ChatLine {
            tick: self.world.tick(),
            sender,
            callsign,
            channel,
            text,
        });
    }

    /// A system line to one peer only (not logged).
    fn private_line(&mut self, peer: PeerId, text: &str) {
        let msg = ChatEvent {
            channel: ChatChannel::All,
            sender_peer_id: ids::NO_OWNING_PEER,
            text: text.to_owned(),
        };
        self.send_to(peer, Channel::Reliable, msg.into());
    }

    // ---- teams ---------------------------------------------------------------------------------

    /// Admitted peers per configured faction (`except` not counted).
    fn team_counts(&self, except: Option<PeerId>) -> BTreeMap<u16, u32> {
        let mut counts: BTreeMap<u16, u32> =
            self.cfg.factions.iter().map(|f| (f.index, 0)).collect();
        for (&p, s) in &self.peers {
            if Some(p) == except {
                continue;
            }
            if let Some(a) = &s.admitted
                && let Some(n) = counts.get_mut(&a.faction)
            {
                *n += 1;
            }
        }
        counts
    }

    /// `MsgTeamRequest`: granted when the faction exists, differs, the pilot holds no mission
    /// slot and the switch keeps the teams within `max_team_imbalance`. One request per
    /// [`TEAM_REQUEST_COOLDOWN_TICKS`] is heard; the rest are dropped silently.
    pub(super) fn on_team_request(&mut self, peer: PeerId, faction: u16) {
        let now = self.service_ticks;
        let Some(ps) = self.social.peers.get_mut(&peer) else {
            return;
        };
        if now < ps.next_team_request {
            self.social.counters.team_requests_rate_limited += 1;
            return;
        }
        ps.next_team_request = now + TEAM_REQUEST_COOLDOWN_TICKS;
        let Some(current) = self.faction_of(peer) else {
            return;
        };
        if current == faction {
            return;
        }
        let refusal = if !self.cfg.factions.iter().any(|f| f.index == faction) {
            Some("Team switch refused: no such team.")
        } else if self.mission_slot_of(peer).is_some() {
            Some("Team switch refused: your mission slot fixes your side.")
        } else if !switch_keeps_balance(
            &self.team_counts(None),
            current,
            faction,
            self.social.cfg.max_team_imbalance,
        ) {
            Some("Team switch refused: the teams would be unbalanced.")
        } else {
            None
        };
        if let Some(why) = refusal {
            self.social.counters.team_requests_refused += 1;
            self.private_line(peer, why);
            return;
        }
        self.switch_team(peer, faction);
    }

    /// Moves a peer to `faction`: a flying pilot's aircraft is removed and a new one spawns
    /// for the new side at the next spawn point this tick (the respawn path: a fresh
    /// `MsgConnectAck`); a pilot waiting for a respawn keeps waiting and comes back on the new
    /// side. Everyone hears the roster upsert and a system line.
    fn switch_team(&mut self, peer: PeerId, faction: u16) {
        let tick = self.world.tick();
        let Some(a) = self.peers.get_mut(&peer).and_then(|s| s.admitted.as_mut()) else {
            return;
        };
        a.faction = faction;
        let mut ack_now = true;
        if a.type_index.is_some() && a.respawn_at.is_none() {
            if let Some(e) = a.entity {
                self.world.despawn(e);
            }
            a.respawn_at = Some(tick);
            // The respawn sends the ack with the new aircraft.
            ack_now = false;
        }
        let callsign = a.callsign.clone();
        self.social.counters.team_switches += 1;
        if ack_now {
            self.send_connect_ack(peer);
        }
        let name = self
            .cfg
            .factions
            .iter()
            .find(|f| f.index == faction)
            .map_or_else(|| faction.to_string(), |f| f.name.clone());
        tracing::info!(peer, faction, "team switch");
        self.announce_roster_change(peer);
        self.route_chat(
            ids::NO_OWNING_PEER,
            ChatChannel::All,
            None,
            format!("{callsign} switched to {name}"),
        );
    }

    // ---- the tick ------------------------------------------------------------------------------

    /// The social step of a world tick (after combat and the mission, before the kill
    /// broadcast): bots in and out of the roster, kills scored, the match clock, lapsed grace
    /// records, and the periodic scoreboard.
    pub(super) fn step_social(&mut self) {
        let tick = self.world.tick();
        if tick.is_multiple_of(BOT_SYNC_EVERY_TICKS) || !self.combat.kills.is_empty() {
            self.sync_bots();
        }
        let mut scores_changed = false;
        let lines: Vec<KillLine> = self
            .combat
            .kills
            .iter()
            .map(|k| KillLine {
                tick,
                killer: k
                    .instigator
                    .map(|i| self.kill_name(i, k.instigator_owner))
                    .unwrap_or_default(),
                victim: self.kill_name(k.subject, k.subject_owner),
                weapon: k
                    .weapon
                    .map(|w| format!("{w:?}").to_lowercase())
                    .unwrap_or_default(),
                team_kill: k.team_kill,
            })
            .collect();
        for line in lines {
            if self.social.kills.len() == RECENT_KILLS {
                self.social.kills.pop_front();
            }
            self.social.kills.push_back(line);
        }
        for k in &self.combat.kills {
            scores_changed |= self.social.clock.on_kill(
                k.instigator_faction,
                k.subject_faction,
                k.team_kill,
                k.suicide,
            );
            if let Some(b) = self.social.bots.get_mut(&k.subject) {
                b.deaths = b.deaths.saturating_add(1);
            }
            if let Some(i) = k.instigator
                && !k.suicide
                && let Some(b) = self.social.bots.get_mut(&i)
            {
                if k.team_kill {
                    b.score = b.score.saturating_sub(SCORE_KILL);
                } else {
                    b.kills = b.kills.saturating_add(1);
                    b.score = b.score.saturating_add(SCORE_KILL);
                }
            }
        }
        let change = self.social.clock.step(tick);
        if change.new_match {
            self.reset_tallies();
        }
        if change.phase_changed || scores_changed {
            let state = self.match_state_msg();
            self.send_to_all(Channel::Reliable, &state.into());
        }
        if tick.is_multiple_of(60) && !self.social.grace.is_empty() {
            for r in self.social.grace.expire(tick) {
                tracing::info!(callsign = %r.callsign, "grace record lapsed");
            }
        }
        if tick.is_multiple_of(SCOREBOARD_EVERY_TICKS) {
            for sb in self.scoreboard_msgs() {
                self.send_to_all(Channel::Unreliable, &sb.into());
            }
        }
    }

    /// A new match: every participant's tallies back to zero.
    fn reset_tallies(&mut self) {
        let tick = self.world.tick();
        let peers: Vec<PeerId> = self.social.peers.keys().copied().collect();
        for p in peers {
            self.combat.set_peer_tallies(p, 0, 0, 0, 0, tick);
        }
        for b in self.social.bots.values_mut() {
            (b.kills, b.deaths, b.score) = (0, 0, 0);
        }
    }

    /// AI-flown aircraft join the roster as bots (id `BOT_PARTICIPANT_BASE + n`, named after
    /// their mission object or their type) and leave it when they are gone.
    fn sync_bots(&mut self) {
        let live: BTreeMap<EntityId, (u16, u32)> = self
            .world
            .iter()
            .filter(|(_, e)| {
                matches!(e.pilot, Pilot::Ai(_)) && matches!(e.body, Body::Aircraft { .. })
            })
            .map(|(id, e)| (id, (e.faction, e.type_index)))
            .collect();
        let gone: Vec<EntityId> = self
            .social
            .bots
            .keys()
            .filter(|id| !live.contains_key(id))
            .copied()
            .collect();
        let mut changes = Vec::new();
        for id in gone {
            if let Some(b) = self.social.bots.remove(&id) {
                changes.push(entry(
                    b.id,
                    b.faction,
                    PeerRole::Pilot,
                    ROSTER_FLAG_BOT | ROSTER_FLAG_LEAVE,
                    &b.callsign,
                ));
            }
        }
        let mut taken = self.taken_names();
        let mut next_suffix: BTreeMap<String, u32> = BTreeMap::new();
        for (id, (faction, type_index)) in live {
            if self.social.bots.contains_key(&id) {
                continue;
            }
            let base = self.mission_object_id(id).unwrap_or_else(|| {
                self.types.get(type_index).map_or_else(
                    || "AI".to_owned(),
                    |t| t.id.rsplit(':').next().unwrap_or("AI").to_owned(),
                )
            });
            let base = sanitize_callsign(&base);
            let first = next_suffix.get(&base).copied().unwrap_or(2);
            let (callsign, next) =
                unique_callsign_from(&base, first, |n| taken.contains(&n.to_lowercase()));
            taken.insert(callsign.to_lowercase());
            next_suffix.insert(base, next);
            let n = self.social.next_bot;
            self.social.next_bot =
                n.wrapping_add(1) % (ids::NO_OWNING_PEER - ids::BOT_PARTICIPANT_BASE);
            let bot = Bot {
                id: ids::BOT_PARTICIPANT_BASE + n,
                faction,
                callsign,
                kills: 0,
                deaths: 0,
                score: 0,
            };
            changes.push(entry(
                bot.id,
                faction,
                PeerRole::Pilot,
                ROSTER_FLAG_BOT,
                &bot.callsign,
            ));
            self.social.bots.insert(id, bot);
        }
        if !changes.is_empty() {
            self.send_roster_to_all_but(None, changes);
        }
    }

    // ---- messages ------------------------------------------------------------------------------

    /// Every callsign in use (admitted peers and bots), lowercased.
    fn taken_names(&self) -> BTreeSet<String> {
        self.peers
            .values()
            .filter_map(|s| s.admitted.as_ref().map(|a| a.callsign.to_lowercase()))
            .chain(self.social.bots.values().map(|b| b.callsign.to_lowercase()))
            .collect()
    }

    /// `base` made unique among admitted peers and bots (case-insensitively).
    fn unique_name(&self, base: &str) -> String {
        let taken = self.taken_names();
        unique_callsign(base, |n| taken.contains(&n.to_lowercase()))
    }

    fn match_state_msg(&self) -> MatchState {
        let c = &self.social.clock;
        let (id, name) = if self.social.cfg.rules.is_some() {
            ("team-deathmatch", "Team deathmatch")
        } else {
            ("sandbox", "Sandbox")
        };
        MatchState {
            phase: c.phase(),
            score_limit: c.score_limit(),
            phase_end_tick: c.phase_end_tick(),
            mode_id: FixedStr::new(id),
            mode_name: FixedStr::new(name),
            teams: c
                .scores()
                .iter()
                .take(MAX_PER_MESSAGE)
                .map(|(&f, &s)| MatchTeamScore {
                    faction_index: f,
                    score: s,
                })
                .collect(),
        }
    }

    /// The scoreboard: admitted peers, then bots, split into messages of at most 255 rows.
    fn scoreboard_msgs(&self) -> Vec<Scoreboard> {
        let clamp16 = |v: u32| v.min(u32::from(u16::MAX)) as u16;
        let mut rows: Vec<ScoreboardRow> = self
            .peers
            .iter()
            .filter_map(|(&p, s)| {
                let a = s.admitted.as_ref()?;
                let st = self.combat.peer_stats(p).copied().unwrap_or_default();
                Some(ScoreboardRow {
                    participant_id: p,
                    score: st.score,
                    kills: clamp16(st.kills),
                    deaths: clamp16(st.losses),
                    ping_ms: (s.last_delay_ticks.saturating_mul(MS_PER_TICK))
                        .min(u64::from(u16::MAX)) as u16,
                    faction_index: a.faction,
                })
            })
            .collect();
        rows.extend(self.social.bots.values().map(|b| ScoreboardRow {
            participant_id: b.id,
            score: b.score,
            kills: clamp16(b.kills),
            deaths: clamp16(b.deaths),
            ping_ms: 0,
            faction_index: b.faction,
        }));
        rows.chunks(MAX_PER_MESSAGE)
            .map(|c| Scoreboard { rows: c.to_vec() })
            .collect()
    }

    fn send_to(&mut self, peer: PeerId, channel: Channel, msg: Message) {
        send(
            self.transport.as_mut(),
            peer,
            channel,
            msg,
            &Extensions::new(),
        );
    }

    fn send_to_all(&mut self, channel: Channel, msg: &Message) {
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, s)| s.admitted.is_some())
            .map(|(&p, _)| p)
            .collect();
        for p in ids {
            self.send_to(p, channel, msg.clone());
        }
    }

    fn send_roster_to_all_but(&mut self, skip: Option<PeerId>, entries: Vec<PlayerRosterEntry>) {
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(p, s)| Some(**p) != skip && s.admitted.is_some())
            .map(|(&p, _)| p)
            .collect();
        for chunk in entries.chunks(MAX_PER_MESSAGE) {
            let msg: Message = PlayerRoster {
                entries: chunk.to_vec(),
            }
            .into();
            for &p in &ids {
                self.send_to(p, Channel::Reliable, msg.clone());
            }
        }
    }
}

fn entry(id: u32, faction: u16, role: PeerRole, flags: u8, callsign: &str) -> PlayerRosterEntry {
    PlayerRosterEntry {
        participant_id: id,
        faction_index: faction,
        role,
        flags,
        callsign: FixedStr::new(callsign),
    }
}
