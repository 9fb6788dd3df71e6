//! Match and people as the session hears them: the roster (`MsgPlayerRoster`, the one name
//! source for chat, kill feed and scoreboard), the chat log (`MsgChatEvent`), the scoreboard
//! (`MsgScoreboard` upserts), the match state (`MsgMatchState`), the client-side mute set, and
//! the operator console's log (`MsgAdminResponse` / `MsgAdminResponseChunk` reassembled per
//! `reqId`).
//!
//! Owns only what the server said and what the player chose locally (mutes); everything is
//! bounded against a hostile server (roster and scoreboard sizes, chat and console lines, open
//! reply streams and their bytes). Must not send anything (the session sends) and must not read
//! a clock (times are passed in).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use fl_protocol::enums::{ChatChannel, MatchPhase, PeerRole, ids};
use fl_protocol::msg::admin::{
    AdminResponse, AdminResponseChunk, CHUNK_FLAG_END, MAX_REASSEMBLED_RESPONSE_BYTES,
};
use fl_protocol::msg::social::{
    ChatEvent, MatchState, PlayerRoster, ROSTER_FLAG_BOT, ROSTER_FLAG_LEAVE, Scoreboard,
};

/// Chat lines kept (the oldest go first).
pub const MAX_CHAT_LINES: usize = 200;
/// Roster entries kept; upserts of new participants beyond it are ignored.
pub const MAX_ROSTER: usize = 1024;
/// Scoreboard rows kept; rows of new participants beyond it are ignored.
pub const MAX_SCORE_ROWS: usize = 1024;
/// Console lines kept (the oldest go first).
pub const MAX_CONSOLE_LINES: usize = 1000;
/// Reply streams (`MsgAdminResponseChunk` without their end yet) held at once; a new one
/// beyond it drops the oldest.
pub const MAX_OPEN_STREAMS: usize = 8;
/// A participant whose scoreboard ping is above this (ms) gets the lag marker.
pub const LAG_PING_MS: u16 = 250;
/// Longest chat line the player can send, bytes (the wire's `kMaxChatBytes`).
pub const MAX_CHAT_INPUT_BYTES: usize = fl_protocol::msg::social::MAX_CHAT_BYTES;

/// One participant.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// Peer id for a human, `BOT_PARTICIPANT_BASE + n` for a bot.
    pub id: u32,
    pub faction_index: u16,
    pub role: PeerRole,
    pub bot: bool,
    pub callsign: String,
}

/// One chat line as heard.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatLine {
    pub channel: ChatChannel,
    /// The sender's participant id; `None` for a system line.
    pub sender: Option<u32>,
    /// The sender's callsign when the line was heard ("#<id>" when the roster did not name
    /// it; empty for a system line).
    pub sender_name: String,
    pub text: String,
    /// Session time it was heard.
    pub received_at: Duration,
}

impl ChatLine {
    pub fn is_system(&self) -> bool {
        self.sender.is_none()
    }
}

/// One participant's scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreRow {
    pub participant_id: u32,
    pub score: i32,
    pub kills: u16,
    pub deaths: u16,
    pub ping_ms: u16,
    pub faction_index: u16,
}

impl ScoreRow {
    /// Whether the lag marker shows (ping above [`LAG_PING_MS`]).
    pub fn lagging(&self) -> bool {
        self.ping_ms > LAG_PING_MS
    }
}

/// The match as `MsgMatchState` last described it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchInfo {
    pub phase: MatchPhase,
    /// 0 = no limit.
    pub score_limit: u16,
    /// Tick the phase ends; 0 = untimed.
    pub phase_end_tick: u64,
    pub mode_id: String,
    pub mode_name: String,
    /// (faction index, score), in the message's order.
    pub teams: Vec<(u16, i32)>,
}

impl MatchInfo {
    /// Seconds left in the phase at server tick `tick` (`None`: untimed).
    pub fn remaining_s(&self, tick: u64, tick_rate_hz: u8) -> Option<f64> {
        if self.phase_end_tick == 0 || tick_rate_hz == 0 {
            return None;
        }
        Some(self.phase_end_tick.saturating_sub(tick) as f64 / f64::from(tick_rate_hz))
    }
}

/// A player-facing name for a match phase.
pub fn phase_name(phase: MatchPhase) -> &'static str {
    match phase {
        MatchPhase::Idle => "Waiting",
        MatchPhase::Warmup => "Warm-up",
        MatchPhase::Active => "In play",
        MatchPhase::Ending => "Ending",
        MatchPhase::PostMatch => "Match over",
    }
}

/// One console line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleLine {
    /// The reply's `reqId` (`None`: a line of the client's own, e.g. what was typed).
    pub req_id: Option<u16>,
    pub text: String,
}

/// The operator console: lines of whole replies, and the reply streams still arriving.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Console {
    lines: VecDeque<ConsoleLine>,
    /// Streams without their end chunk yet: (reqId, bytes so far), oldest first.
    open: Vec<(u16, String)>,
    /// Streams that went over the cap: their chunks are ignored until their end.
    overflowed: BTreeSet<u16>,
    /// Streams dropped (over the cap, or pushed out by newer streams).
    pub dropped_streams: u64,
}

impl Console {
    /// The lines, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.lines.iter()
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The `reqId`s of replies still arriving.
    pub fn pending(&self) -> impl Iterator<Item = u16> + '_ {
        self.open.iter().map(|(r, _)| *r)
    }

    /// A line of the client's own (the command typed, a local error).
    pub fn note(&mut self, text: &str) {
        self.push(None, text.to_owned());
    }

    pub fn clear(&mut self) {
        self.lines.clear();
    }

    fn push(&mut self, req_id: Option<u16>, text: String) {
        if self.lines.len() >= MAX_CONSOLE_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(ConsoleLine { req_id, text });
    }

    /// Splits a whole reply on `\n`, strips `\r`, keeps the non-empty lines.
    fn push_text(&mut self, req_id: u16, text: &str) {
        for line in text.split('\n').map(|l| l.trim_end_matches('\r')) {
            if !line.trim().is_empty() {
                self.push(Some(req_id), line.to_owned());
            }
        }
    }

    /// `MsgAdminResponse`: one whole reply (a deferred second reply with the same `reqId` is
    /// appended the same way).
    pub fn on_response(&mut self, r: &AdminResponse) {
        self.push_text(r.req_id, r.text.as_str());
    }

    /// `MsgAdminResponseChunk`: appended to its stream; the stream is shown at its end chunk.
    /// A stream over [`MAX_REASSEMBLED_RESPONSE_BYTES`] is dropped (one note says so) and the
    /// rest of its chunks ignored.
    pub fn on_chunk(&mut self, c: &AdminResponseChunk) {
        let end = c.flags & CHUNK_FLAG_END != 0;
        let req = c.req_id;
        if self.overflowed.contains(&req) {
            if end {
                self.overflowed.remove(&req);
            }
            return;
        }
        let pos = match self.open.iter().position(|(r, _)| *r == req) {
            Some(p) => p,
            None => {
                if self.open.len() >= MAX_OPEN_STREAMS {
                    let (old, _) = self.open.remove(0);
                    self.dropped_streams += 1;
                    self.push(
                        Some(old),
                        format!("(reply {old} dropped: its end never came)"),
                    );
                }
                self.open.push((req, String::new()));
                self.open.len() - 1
            }
        };
        let body = c.body.as_str();
        if self.open[pos].1.len() + body.len() > MAX_REASSEMBLED_RESPONSE_BYTES {
            self.open.remove(pos);
            self.dropped_streams += 1;
            if !end {
                self.overflowed.insert(req);
                // Bounded: a server opening endless overflowing streams is capped here too.
                while self.overflowed.len() > MAX_OPEN_STREAMS {
                    self.overflowed.pop_first();
                }
            }
            self.push(
                Some(req),
                format!(
                    "(reply {req} dropped: longer than {} KB)",
                    MAX_REASSEMBLED_RESPONSE_BYTES / 1024
                ),
            );
            return;
        }
        self.open[pos].1.push_str(body);
        if end {
            let (_, text) = self.open.remove(pos);
            self.push_text(req, &text);
        }
    }
}

/// Everything social the session keeps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Social {
    own_id: Option<u32>,
    roster: BTreeMap<u32, Participant>,
    chat: VecDeque<ChatLine>,
    scores: BTreeMap<u32, ScoreRow>,
    match_info: Option<MatchInfo>,
    muted: BTreeSet<u32>,
    console: Console,
    /// Bumped on every change, so a view can copy only when something changed.
    generation: u64,
    /// Roster upserts and score rows ignored because the caps were reached.
    pub refused_entries: u64,
}

impl Social {
    /// The player's own participant id (the peer id of `MsgConnectAck`).
    pub fn own_id(&self) -> Option<u32> {
        self.own_id
    }

    pub fn set_own_id(&mut self, id: u32) {
        if self.own_id != Some(id) {
            self.own_id = Some(id);
            self.generation += 1;
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn roster(&self) -> &BTreeMap<u32, Participant> {
        &self.roster
    }

    /// The player's own faction, as the roster says.
    pub fn own_faction(&self) -> Option<u16> {
        self.own_id
            .and_then(|id| self.roster.get(&id))
            .map(|p| p.faction_index)
    }

    /// A participant's callsign (`None`: not on the roster, or an empty name).
    pub fn callsign(&self, id: u32) -> Option<&str> {
        self.roster
            .get(&id)
            .map(|p| p.callsign.as_str())
            .filter(|c| !c.is_empty())
    }

    /// The name to show for a participant: the callsign, "Bot <n>" for an unnamed bot, else
    /// "#<id>".
    pub fn display_name(&self, id: u32) -> String {
        match self.callsign(id) {
            Some(c) => c.to_owned(),
            None if fl_protocol::enums::is_bot_participant(id) => {
                format!("Bot {}", id - ids::BOT_PARTICIPANT_BASE)
            }
            None => format!("#{id}"),
        }
    }

    /// Every chat line kept, oldest first (muted senders included).
    pub fn chat(&self) -> impl Iterator<Item = &ChatLine> {
        self.chat.iter()
    }

    /// The chat lines to show, oldest first: muted senders' lines hidden.
    pub fn visible_chat(&self) -> impl Iterator<Item = &ChatLine> {
        self.chat
            .iter()
            .filter(|l| l.sender.is_none_or(|s| !self.muted.contains(&s)))
    }

    /// The scoreboard, best first (score, then kills, then fewer deaths, then id).
    pub fn scoreboard(&self) -> Vec<ScoreRow> {
        let mut rows: Vec<ScoreRow> = self.scores.values().copied().collect();
        rows.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then(b.kills.cmp(&a.kills))
                .then(a.deaths.cmp(&b.deaths))
                .then(a.participant_id.cmp(&b.participant_id))
        });
        rows
    }

    pub fn match_info(&self) -> Option<&MatchInfo> {
        self.match_info.as_ref()
    }

    pub fn is_muted(&self, id: u32) -> bool {
        self.muted.contains(&id)
    }

    pub fn muted(&self) -> &BTreeSet<u32> {
        &self.muted
    }

    /// Mutes or unmutes a participant's chat (client side only; the player's own id and system
    /// lines cannot be muted).
    pub fn set_muted(&mut self, id: u32, muted: bool) {
        if Some(id) == self.own_id || id == ids::NO_OWNING_PEER {
            return;
        }
        let changed = if muted {
            self.muted.insert(id)
        } else {
            self.muted.remove(&id)
        };
        if changed {
            self.generation += 1;
        }
    }

    pub fn console(&self) -> &Console {
        &self.console
    }

    pub fn console_mut(&mut self) -> &mut Console {
        self.generation += 1;
        &mut self.console
    }

    /// `MsgPlayerRoster`: upserts, and the rows flagged `LEAVE` removed (with their scores).
    pub fn on_roster(&mut self, r: &PlayerRoster) {
        for e in &r.entries {
            let id = e.participant_id;
            if id == ids::NO_OWNING_PEER {
                continue;
            }
            if e.flags & ROSTER_FLAG_LEAVE != 0 {
                self.roster.remove(&id);
                self.scores.remove(&id);
                continue;
            }
            if !self.roster.contains_key(&id) && self.roster.len() >= MAX_ROSTER {
                self.refused_entries += 1;
                continue;
            }
            self.roster.insert(
                id,
                Participant {
                    id,
                    faction_index: e.faction_index,
                    role: e.role,
                    bot: e.flags & ROSTER_FLAG_BOT != 0
                        || fl_protocol::enums::is_bot_participant(id),
                    callsign: e.callsign.as_str().to_owned(),
                },
            );
        }
        self.generation += 1;
    }

    /// `MsgChatEvent`: one line, named by the roster now (a later rename does not rewrite it).
    pub fn on_chat(&mut self, c: &ChatEvent, now: Duration) {
        let (sender, sender_name) = if c.sender_peer_id == ids::NO_OWNING_PEER {
            (None, String::new())
        } else {
            (Some(c.sender_peer_id), self.display_name(c.sender_peer_id))
        };
        if self.chat.len() >= MAX_CHAT_LINES {
            self.chat.pop_front();
        }
        self.chat.push_back(ChatLine {
            channel: c.channel,
            sender,
            sender_name,
            text: c.text.clone(),
            received_at: now,
        });
        self.generation += 1;
    }

    /// `MsgScoreboard`: self-describing upserts.
    pub fn on_scoreboard(&mut self, s: &Scoreboard) {
        for r in &s.rows {
            let id = r.participant_id;
            if id == ids::NO_OWNING_PEER {
                continue;
            }
            if !self.scores.contains_key(&id) && self.scores.len() >= MAX_SCORE_ROWS {
                self.refused_entries += 1;
                continue;
            }
            self.scores.insert(
                id,
                ScoreRow {
                    participant_id: id,
                    score: r.score,
                    kills: r.kills,
                    deaths: r.deaths,
                    ping_ms: r.ping_ms,
                    faction_index: r.faction_index,
                },
            );
        }
        self.generation += 1;
    }

    /// `MsgMatchState`: replaces the match description.
    pub fn on_match_state(&mut self, m: &MatchState) {
        self.match_info = Some(MatchInfo {
            phase: m.phase,
            score_limit: m.score_limit,
            phase_end_tick: m.phase_end_tick,
            mode_id: m.mode_id.as_str().to_owned(),
            mode_name: m.mode_name.as_str().to_owned(),
            teams: m.teams.iter().map(|t| (t.faction_index, t.score)).collect(),
        });
        self.generation += 1;
    }

    pub fn on_admin_response(&mut self, r: &AdminResponse) {
        self.console.on_response(r);
        self.generation += 1;
    }

    pub fn on_admin_chunk(&mut self, c: &AdminResponseChunk) {
        self.console.on_chunk(c);
        self.generation += 1;
    }
}

/// Cuts a chat line the player typed to what the wire carries ([`MAX_CHAT_INPUT_BYTES`], on
/// a character boundary), without line breaks.
pub fn clamp_chat_input(text: &mut String) {
    if text.contains(['\n', '\r']) {
        *text = text.replace(['\n', '\r'], " ");
    }
    let keep = fl_protocol::field::truncate_utf8(text, MAX_CHAT_INPUT_BYTES).len();
    text.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::msg::admin::{AdminResponse, AdminResponseChunk};
    use fl_protocol::msg::social::{MatchTeamScore, PlayerRosterEntry, ScoreboardRow};
    use fl_protocol::{FixedStr, Message, Packet};

    /// Encodes and decodes, as the session receives it.
    fn wire(m: impl Into<Message>) -> Message {
        let bytes = m.into().encode().expect("encodes");
        Packet::decode(&bytes).expect("decodes").message
    }

    fn entry(id: u32, faction: u16, flags: u8, callsign: &str) -> PlayerRosterEntry {
        PlayerRosterEntry {
            participant_id: id,
            faction_index: faction,
            role: PeerRole::Pilot,
            flags,
            callsign: FixedStr::new(callsign),
        }
    }

    fn roster(entries: Vec<PlayerRosterEntry>) -> PlayerRoster {
        match wire(PlayerRoster { entries }) {
            Message::PlayerRoster(r) => r,
            other => panic!("{other:?}"),
        }
    }

    fn chat(channel: ChatChannel, sender: u32, text: &str) -> ChatEvent {
        match wire(ChatEvent {
            channel,
            sender_peer_id: sender,
            text: text.into(),
        }) {
            Message::ChatEvent(c) => c,
            other => panic!("{other:?}"),
        }
    }

    fn chunk(req: u16, seq: u16, end: bool, body: &str) -> AdminResponseChunk {
        match wire(AdminResponseChunk {
            flags: if end { CHUNK_FLAG_END } else { 0 },
            req_id: req,
            seq_num: seq,
            body: FixedStr::new(body),
        }) {
            Message::AdminResponseChunk(c) => c,
            other => panic!("{other:?}"),
        }
    }

    fn lines(c: &Console) -> Vec<(Option<u16>, String)> {
        c.lines().map(|l| (l.req_id, l.text.clone())).collect()
    }

    #[test]
    fn the_roster_names_chat_and_leaves_remove_rows() {
        let mut s = Social::default();
        s.set_own_id(3);
        s.on_roster(&roster(vec![
            entry(3, 0, 0, "Maverick"),
            entry(7, 1, 0, "Iceman"),
            entry(ids::BOT_PARTICIPANT_BASE + 2, 1, ROSTER_FLAG_BOT, ""),
        ]));
        assert_eq!(s.roster().len(), 3);
        assert_eq!(s.own_faction(), Some(0));
        assert_eq!(s.display_name(7), "Iceman");
        assert_eq!(s.display_name(ids::BOT_PARTICIPANT_BASE + 2), "Bot 2");
        assert!(s.roster()[&(ids::BOT_PARTICIPANT_BASE + 2)].bot);
        assert_eq!(s.display_name(99), "#99");
        s.on_chat(&chat(ChatChannel::All, 7, "hello"), Duration::from_secs(1));
        s.on_chat(
            &chat(ChatChannel::All, ids::NO_OWNING_PEER, "Match starts"),
            Duration::from_secs(2),
        );
        let c: Vec<&ChatLine> = s.chat().collect();
        assert_eq!(
            (c[0].sender, c[0].sender_name.as_str()),
            (Some(7), "Iceman")
        );
        assert!(c[1].is_system());
        // A leave removes the row and its scores; a later line names the id.
        s.on_scoreboard(&Scoreboard {
            rows: vec![ScoreboardRow {
                participant_id: 7,
                score: 5,
                kills: 1,
                deaths: 0,
                ping_ms: 40,
                faction_index: 1,
            }],
        });
        assert_eq!(s.scoreboard().len(), 1);
        s.on_roster(&roster(vec![entry(7, 1, ROSTER_FLAG_LEAVE, "")]));
        assert_eq!(s.roster().len(), 2);
        assert!(s.scoreboard().is_empty());
        assert_eq!(c_len(&s), 2, "old lines stay, named as they were heard");
    }

    fn c_len(s: &Social) -> usize {
        s.chat().count()
    }

    #[test]
    fn the_roster_and_chat_are_bounded() {
        let mut s = Social::default();
        for chunk in 0..5u32 {
            let entries = (0..255)
                .map(|i| entry(chunk * 255 + i, 0, 0, "x"))
                .collect();
            s.on_roster(&roster(entries));
        }
        assert_eq!(s.roster().len(), MAX_ROSTER);
        assert_eq!(s.refused_entries, 5 * 255 - MAX_ROSTER as u64);
        // An update of a known participant still lands.
        s.on_roster(&roster(vec![entry(0, 2, 0, "renamed")]));
        assert_eq!(s.display_name(0), "renamed");
        for i in 0..(MAX_CHAT_LINES + 10) {
            s.on_chat(&chat(ChatChannel::All, 0, &i.to_string()), Duration::ZERO);
        }
        assert_eq!(s.chat().count(), MAX_CHAT_LINES);
        assert_eq!(s.chat().next().map(|l| l.text.as_str()), Some("10"));
    }

    #[test]
    fn team_lines_keep_their_channel_and_mutes_hide_lines() {
        let mut s = Social::default();
        s.set_own_id(1);
        s.on_roster(&roster(vec![
            entry(1, 0, 0, "Me"),
            entry(2, 0, 0, "Goose"),
            entry(4, 1, 0, "Viper"),
        ]));
        s.on_chat(&chat(ChatChannel::Team, 2, "on your six"), Duration::ZERO);
        s.on_chat(&chat(ChatChannel::All, 4, "gg"), Duration::ZERO);
        s.on_chat(&chat(ChatChannel::All, 1, "my own echo"), Duration::ZERO);
        let team: Vec<&str> = s
            .visible_chat()
            .filter(|l| l.channel == ChatChannel::Team)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(team, ["on your six"]);
        s.set_muted(4, true);
        s.set_muted(1, true); // the own id cannot be muted
        let shown: Vec<&str> = s.visible_chat().map(|l| l.text.as_str()).collect();
        assert_eq!(shown, ["on your six", "my own echo"]);
        assert_eq!(s.chat().count(), 3, "muted lines are kept, only hidden");
        s.set_muted(4, false);
        assert_eq!(s.visible_chat().count(), 3);
    }

    #[test]
    fn the_scoreboard_sorts_and_marks_lag_and_the_match_counts_down() {
        let mut s = Social::default();
        let row = |id, score, kills, ping_ms| ScoreboardRow {
            participant_id: id,
            score,
            kills,
            deaths: 1,
            ping_ms,
            faction_index: 0,
        };
        let board = match wire(Scoreboard {
            rows: vec![row(1, 3, 1, 40), row(2, 10, 4, 300), row(3, 3, 2, 250)],
        }) {
            Message::Scoreboard(b) => b,
            other => panic!("{other:?}"),
        };
        s.on_scoreboard(&board);
        let ids: Vec<u32> = s.scoreboard().iter().map(|r| r.participant_id).collect();
        assert_eq!(ids, [2, 3, 1]);
        let lag: Vec<bool> = s.scoreboard().iter().map(ScoreRow::lagging).collect();
        assert_eq!(lag, [true, false, false], "above 250 ms, not at it");
        let m = match wire(MatchState {
            phase: MatchPhase::Active,
            score_limit: 20,
            phase_end_tick: 6000,
            mode_id: FixedStr::new("tdm"),
            mode_name: FixedStr::new("Team Deathmatch"),
            teams: vec![MatchTeamScore {
                faction_index: 0,
                score: 7,
            }],
        }) {
            Message::MatchState(m) => m,
            other => panic!("{other:?}"),
        };
        s.on_match_state(&m);
        let info = s.match_info().expect("match");
        assert_eq!(info.remaining_s(3000, 60), Some(50.0));
        assert_eq!(info.remaining_s(7000, 60), Some(0.0));
        assert_eq!(info.teams, [(0, 7)]);
        assert_eq!(phase_name(info.phase), "In play");
    }

    #[test]
    fn admin_replies_reassemble_by_req_id() {
        let mut c = Console::default();
        // A whole reply, lines split, \r stripped, empty lines dropped.
        c.on_response(&AdminResponse {
            req_id: 1,
            text: FixedStr::new("ok\r\n\r\nsecond"),
        });
        // Two interleaved streams.
        c.on_chunk(&chunk(2, 0, false, "alpha li"));
        c.on_chunk(&chunk(3, 0, false, "x"));
        c.on_chunk(&chunk(2, 1, true, "ne\nbeta\n"));
        assert_eq!(c.pending().collect::<Vec<_>>(), [3]);
        c.on_chunk(&chunk(3, 1, true, "y"));
        // A deferred second reply with the same reqId is appended.
        c.on_response(&AdminResponse {
            req_id: 1,
            text: FixedStr::new("done"),
        });
        assert_eq!(
            lines(&c),
            [
                (Some(1), "ok".to_owned()),
                (Some(1), "second".to_owned()),
                (Some(2), "alpha line".to_owned()),
                (Some(2), "beta".to_owned()),
                (Some(3), "xy".to_owned()),
                (Some(1), "done".to_owned()),
            ]
        );
    }

    #[test]
    fn a_stream_without_its_end_shows_nothing_and_is_pushed_out_in_time() {
        let mut c = Console::default();
        c.on_chunk(&chunk(9, 0, false, "half a repl"));
        assert_eq!(c.line_count(), 0, "nothing shown before the end chunk");
        assert_eq!(c.pending().collect::<Vec<_>>(), [9]);
        // Another reply completes on its own.
        c.on_chunk(&chunk(10, 0, true, "whole"));
        assert_eq!(lines(&c), [(Some(10), "whole".to_owned())]);
        // Newer streams push the abandoned one out (bounded), with a note.
        for r in 0..MAX_OPEN_STREAMS as u16 {
            c.on_chunk(&chunk(100 + r, 0, false, "…"));
        }
        assert!(!c.pending().any(|r| r == 9));
        assert_eq!(c.pending().count(), MAX_OPEN_STREAMS);
        assert_eq!(c.dropped_streams, 1);
        assert!(c.lines().any(|l| l.text.contains("reply 9 dropped")));
    }

    #[test]
    fn a_stream_over_64_kb_is_dropped_and_its_tail_ignored() {
        let mut c = Console::default();
        let body = "a".repeat(500);
        let mut seq = 0;
        while seq * 500 <= MAX_REASSEMBLED_RESPONSE_BYTES {
            c.on_chunk(&chunk(5, seq as u16, false, &body));
            seq += 1;
        }
        assert_eq!(c.pending().count(), 0);
        assert_eq!(c.dropped_streams, 1);
        // The rest of that stream, end included, shows nothing more.
        c.on_chunk(&chunk(5, 999, false, "more"));
        c.on_chunk(&chunk(5, 1000, true, "tail"));
        let l = lines(&c);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].1.contains("longer than 64 KB"));
        // The same reqId later starts afresh (request ids wrap).
        c.on_chunk(&chunk(5, 0, true, "fresh"));
        assert_eq!(lines(&c).last().map(|l| l.1.as_str()), Some("fresh"));
    }

    #[test]
    fn chat_input_is_cut_to_the_wire_limit_on_a_character_boundary() {
        let mut t = "é".repeat(200); // 400 bytes
        clamp_chat_input(&mut t);
        assert_eq!(t.len(), 240);
        let mut t = format!("{}é", "a".repeat(239));
        clamp_chat_input(&mut t);
        assert_eq!(t.len(), 239);
        let mut t = "two\nlines".to_owned();
        clamp_chat_input(&mut t);
        assert_eq!(t, "two lines");
    }

    #[test]
    fn bad_utf8_in_a_chat_line_decodes_lossily() {
        let mut bytes = ChatEvent {
            channel: ChatChannel::All,
            sender_peer_id: 1,
            text: "ab".into(),
        };
        let mut raw = Message::from(std::mem::take(&mut bytes))
            .encode()
            .expect("encodes");
        let at = raw.iter().rposition(|&b| b == b'b').expect("text");
        raw[at] = 0xFF;
        match Packet::decode(&raw).expect("decodes").message {
            Message::ChatEvent(c) => assert_eq!(c.text, "a\u{FFFD}"),
            other => panic!("{other:?}"),
        }
    }
}
