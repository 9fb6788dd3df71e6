//! "Match and people": the pure rules behind the roster, chat, the match clock, team balance
//! and reconnect grace. Everything here is plain data driven by tick counts the caller passes
//! in (world ticks for the match, service ticks for rate limits), so it is deterministic and
//! unit-tested without a transport.
//!
//! Owns: callsign and chat sanitising, callsign uniqueness, the per-peer chat token bucket,
//! the blocked-word filter, the recent-chat ring, the match phase machine and team scores, the
//! balance rules, and the grace records of dropped pilots. Must not: touch the world, the peer
//! table or the network (that is `server::social`), read the wall clock, or allocate in
//! proportion to anything a peer sends (every container here is bounded).

use fl_protocol::enums::{ChatChannel, MatchPhase};
use std::collections::{BTreeMap, VecDeque};

/// Longest callsign in bytes: the roster's 32-byte field less its NUL.
pub const MAX_CALLSIGN_BYTES: usize = 31;
/// What a pilot with no usable callsign is called.
pub const DEFAULT_CALLSIGN: &str = "Pilot";
/// Longest chat line in bytes (`MsgChat`'s limit).
pub const MAX_CHAT_BYTES: usize = fl_protocol::msg::social::MAX_CHAT_BYTES;
/// Lines the recent-chat ring keeps.
pub const CHAT_HISTORY: usize = 100;
/// World ticks between scoreboard broadcasts (~2 s).
pub const SCOREBOARD_EVERY_TICKS: u64 = 120;
/// World ticks the Ending phase lasts (the result is shown, scores are frozen).
pub const ENDING_TICKS: u64 = 300;
/// Service ticks a peer waits between two team requests (excess ones are dropped).
pub const TEAM_REQUEST_COOLDOWN_TICKS: u64 = 60;
/// Most grace records kept at once (the oldest is dropped beyond).
pub const MAX_GRACE_RECORDS: usize = 1024;
/// Most blocked words the moderation filter takes.
pub const MAX_BLOCKED_WORDS: usize = 256;

/// Cuts `s` to at most `max` bytes on a character boundary.
pub fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A displayable callsign: control characters stripped, trimmed, at most
/// [`MAX_CALLSIGN_BYTES`] on a character boundary; empty → [`DEFAULT_CALLSIGN`].
pub fn sanitize_callsign(raw: &str) -> String {
    let clean: String = raw.chars().filter(|c| !c.is_control()).collect();
    let cut = truncate_utf8(clean.trim(), MAX_CALLSIGN_BYTES).trim();
    if cut.is_empty() {
        DEFAULT_CALLSIGN.to_owned()
    } else {
        cut.to_owned()
    }
}

/// `base` if nobody has it, else `base (2)`, `base (3)`, … (the base cut so the whole stays
/// within [`MAX_CALLSIGN_BYTES`]). Names compare case-insensitively.
pub fn unique_callsign(base: &str, taken: impl Fn(&str) -> bool) -> String {
    unique_callsign_from(base, 2, taken).0
}

/// [`unique_callsign`] trying suffixes from `first` on (a caller naming many participants
/// after one base passes the next suffix back, so naming n of them is not quadratic). Returns
/// the name and the suffix after the one used.
pub fn unique_callsign_from(base: &str, first: u32, taken: impl Fn(&str) -> bool) -> (String, u32) {
    let free = |name: &str| !taken(name);
    if first <= 2 && free(base) {
        return (base.to_owned(), 2);
    }
    for n in first.max(2).. {
        let suffix = format!(" ({n})");
        let stem = truncate_utf8(base, MAX_CALLSIGN_BYTES.saturating_sub(suffix.len())).trim_end();
        let name = format!("{stem}{suffix}");
        if free(&name) {
            return (name, n.saturating_add(1));
        }
    }
    unreachable!("u32 suffixes outnumber any peer table")
}

/// A chat line as the server routes it, from the raw bytes the client sent (before the NUL):
/// `None` for invalid UTF-8 or a line with nothing left. Control characters and characters
/// outside the Basic Multilingual Plane are stripped, the rest trimmed and cut at
/// [`MAX_CHAT_BYTES`] on a character boundary.
pub fn sanitize_chat(raw: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(raw).ok()?;
    let clean: String = text
        .chars()
        .filter(|&c| !c.is_control() && u32::from(c) <= 0xFFFF)
        .take(MAX_CHAT_BYTES)
        .collect();
    let cut = truncate_utf8(clean.trim(), MAX_CHAT_BYTES).trim();
    (!cut.is_empty()).then(|| cut.to_owned())
}

/// The moderation hook: every whole word (a maximal run of alphanumerics) that matches a
/// blocked word case-insensitively becomes `***`.
pub fn censor(text: &str, blocked: &[String]) -> String {
    if blocked.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let lower = word.to_lowercase();
            if blocked.iter().any(|b| b.to_lowercase() == lower) {
                out.push_str("***");
            } else {
                out.push_str(word);
            }
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Chat settings (`[chat]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatConfig {
    /// Lines a peer may send per second, sustained.
    pub rate_per_s: f64,
    /// Lines a peer may send at once.
    pub burst: u32,
    /// Words replaced by `***` (whole words, case-insensitive).
    pub blocked_words: Vec<String>,
}

impl Default for ChatConfig {
    fn default() -> Self {
        Self {
            rate_per_s: 1.0,
            burst: 5,
            blocked_words: Vec::new(),
        }
    }
}

/// The timed match (`[match]` present): limits in world ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchRules {
    /// Team score that ends the match (0 = none).
    pub score_limit: u16,
    /// Length of the Active phase (0 = untimed).
    pub time_limit_ticks: u64,
    /// Length of the Warmup (0 = straight to Active).
    pub warmup_ticks: u64,
    /// Length of the PostMatch phase before the next Warmup (0 = at once).
    pub post_match_ticks: u64,
}

/// Everything this module is configured with (`ServerConfig::social`).
#[derive(Debug, Clone, PartialEq)]
pub struct SocialConfig {
    pub chat: ChatConfig,
    /// `None`: the sandbox, one untimed Active phase forever.
    pub rules: Option<MatchRules>,
    /// Most pilots per faction (0 = no cap).
    pub max_per_team: u32,
    /// How far a team switch may leave the target team above the smallest team.
    pub max_team_imbalance: u32,
    /// World ticks a dropped pilot's grace record lives (0 = no reconnect matching).
    pub reconnect_grace_ticks: u64,
}

impl Default for SocialConfig {
    fn default() -> Self {
        Self {
            chat: ChatConfig::default(),
            rules: None,
            max_per_team: 0,
            max_team_imbalance: 1,
            reconnect_grace_ticks: 60 * 60,
        }
    }
}

/// A per-peer token bucket on the service clock. One line is [`LINE_UNITS`] units; a tick
/// refills `rate_per_s × 1000` units (60 ticks a second), so rates in thousandths of a line per
/// second are exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatBucket {
    units: u64,
    last: u64,
}

/// Units of a [`ChatBucket`] per line.
pub const LINE_UNITS: u64 = 60_000;

impl ChatBucket {
    /// A full bucket at service tick `now`.
    pub fn full(cfg: &ChatConfig, now: u64) -> Self {
        Self {
            units: u64::from(cfg.burst) * LINE_UNITS,
            last: now,
        }
    }

    /// Takes one line at service tick `now`; false when the bucket is empty.
    pub fn take(&mut self, cfg: &ChatConfig, now: u64) -> bool {
        let cap = u64::from(cfg.burst) * LINE_UNITS;
        let per_tick = ((cfg.rate_per_s * 1000.0).round().max(1.0)) as u64;
        let elapsed = now.saturating_sub(self.last);
        self.units = self
            .units
            .saturating_add(elapsed.saturating_mul(per_tick))
            .min(cap);
        self.last = now;
        if self.units >= LINE_UNITS {
            self.units -= LINE_UNITS;
            true
        } else {
            false
        }
    }
}

/// One line of the recent-chat history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatLine {
    /// World tick it was routed.
    pub tick: u64,
    /// Participant id of the sender (`NO_OWNING_PEER`: a system line).
    pub sender: u32,
    /// The sender's callsign then (empty for a system line).
    pub callsign: String,
    pub channel: ChatChannel,
    pub text: String,
}

/// The last [`CHAT_HISTORY`] routed lines, oldest first.
#[derive(Debug, Clone, Default)]
pub struct ChatLog {
    lines: VecDeque<ChatLine>,
}

impl ChatLog {
    pub fn push(&mut self, line: ChatLine) {
        if self.lines.len() >= CHAT_HISTORY {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    pub fn lines(&self) -> impl ExactSizeIterator<Item = &ChatLine> {
        self.lines.iter()
    }
}

/// What a [`MatchClock`] step changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchChange {
    pub phase_changed: bool,
    /// A new match began (scores reset): tallies should be cleared too.
    pub new_match: bool,
}

/// The match phase machine and team scores, on world ticks.
#[derive(Debug, Clone)]
pub struct MatchClock {
    rules: Option<MatchRules>,
    phase: MatchPhase,
    /// World tick the phase ends (0 = untimed).
    phase_end: u64,
    /// Score per faction index (every configured faction has an entry).
    scores: BTreeMap<u16, i32>,
    matches_started: u64,
}

impl MatchClock {
    /// A clock for the factions `factions`, starting at world tick `now`.
    pub fn new(
        rules: Option<MatchRules>,
        factions: impl IntoIterator<Item = u16>,
        now: u64,
    ) -> Self {
        let mut c = Self {
            rules,
            phase: MatchPhase::Active,
            phase_end: 0,
            scores: factions.into_iter().map(|f| (f, 0)).collect(),
            matches_started: 0,
        };
        c.start_match(now);
        c
    }

    fn start_match(&mut self, now: u64) {
        self.matches_started += 1;
        for s in self.scores.values_mut() {
            *s = 0;
        }
        match self.rules {
            None => {
                self.phase = MatchPhase::Active;
                self.phase_end = 0;
            }
            Some(r) if r.warmup_ticks > 0 => {
                self.phase = MatchPhase::Warmup;
                self.phase_end = now + r.warmup_ticks;
            }
            Some(_) => self.begin_active(now),
        }
    }

    fn begin_active(&mut self, now: u64) {
        self.phase = MatchPhase::Active;
        self.phase_end = match self.rules {
            Some(r) if r.time_limit_ticks > 0 => now + r.time_limit_ticks,
            _ => 0,
        };
    }

    fn begin_ending(&mut self, now: u64) {
        self.phase = MatchPhase::Ending;
        self.phase_end = now + ENDING_TICKS;
    }

    pub fn phase(&self) -> MatchPhase {
        self.phase
    }

    /// World tick the phase ends; 0 = untimed.
    pub fn phase_end_tick(&self) -> u64 {
        self.phase_end
    }

    pub fn score_limit(&self) -> u16 {
        self.rules.map_or(0, |r| r.score_limit)
    }

    pub fn scores(&self) -> &BTreeMap<u16, i32> {
        &self.scores
    }

    /// Matches begun so far (1 after construction).
    pub fn matches_started(&self) -> u64 {
        self.matches_started
    }

    /// Whether kills count now.
    pub fn scoring(&self) -> bool {
        self.phase == MatchPhase::Active
    }

    /// A kill: `killer` scored against `victim`'s faction. An enemy kill (both factions
    /// configured and different) scores +1, a team kill −1; anything else nothing. Returns
    /// whether a score changed. Ignored outside the Active phase.
    pub fn on_kill(&mut self, killer: u16, victim: u16, team_kill: bool, suicide: bool) -> bool {
        if !self.scoring() || suicide || killer == 0 {
            return false;
        }
        let delta = if team_kill {
            -1
        } else if victim != 0 && victim != killer && self.scores.contains_key(&victim) {
            1
        } else {
            return false;
        };
        match self.scores.get_mut(&killer) {
            Some(s) => {
                *s = s.saturating_add(delta);
                true
            }
            None => false,
        }
    }

    /// Advances to world tick `now`: phase timeouts and the score limit.
    pub fn step(&mut self, now: u64) -> MatchChange {
        let mut change = MatchChange::default();
        let Some(rules) = self.rules else {
            return change;
        };
        // At most a few transitions per tick (a zero-length phase falls straight through).
        for _ in 0..4 {
            let timed_out = self.phase_end != 0 && now >= self.phase_end;
            match self.phase {
                MatchPhase::Warmup if timed_out => self.begin_active(now),
                MatchPhase::Active
                    if timed_out
                        || (rules.score_limit > 0
                            && self
                                .scores
                                .values()
                                .any(|&s| s >= i32::from(rules.score_limit))) =>
                {
                    self.begin_ending(now)
                }
                MatchPhase::Ending if timed_out => {
                    self.phase = MatchPhase::PostMatch;
                    self.phase_end = now + rules.post_match_ticks;
                }
                MatchPhase::PostMatch if timed_out => {
                    self.start_match(now);
                    change.new_match = true;
                }
                _ => break,
            }
            change.phase_changed = true;
        }
        change
    }
}

/// Whether moving one pilot from `from` to `to` keeps the teams within `max_imbalance`:
/// afterwards the target team may exceed the smallest team by at most that much (a move to a
/// team no bigger than the one left never unbalances). `counts` holds every faction.
pub fn switch_keeps_balance(
    counts: &BTreeMap<u16, u32>,
    from: u16,
    to: u16,
    max_imbalance: u32,
) -> bool {
    let before_from = counts.get(&from).copied().unwrap_or(0);
    let before_to = counts.get(&to).copied().unwrap_or(0);
    if before_to < before_from {
        return true;
    }
    let after = |f: u16, n: u32| {
        if f == from {
            n.saturating_sub(1)
        } else if f == to {
            n + 1
        } else {
            n
        }
    };
    let smallest = counts.iter().map(|(&f, &n)| after(f, n)).min().unwrap_or(0);
    after(to, before_to) <= smallest + max_imbalance
}

/// Whether every faction is at `max_per_team` (0 = no cap; no factions = never full).
pub fn match_full(counts: &BTreeMap<u16, u32>, max_per_team: u32) -> bool {
    max_per_team > 0 && !counts.is_empty() && counts.values().all(|&n| n >= max_per_team)
}

/// What a dropped pilot gets back when it reconnects within the grace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraceRecord {
    pub faction: u16,
    pub callsign: String,
    pub kills: u32,
    pub deaths: u32,
    pub team_kills: u32,
    pub score: i32,
    /// The mission player slot it held (kept free for it during the grace).
    pub mission_slot: Option<usize>,
    /// World tick the record lapses.
    pub expires: u64,
    /// The match it was earned in (a record from an earlier match restores no tallies).
    pub match_number: u64,
}

/// Grace records by connect identity, bounded by [`MAX_GRACE_RECORDS`].
#[derive(Debug, Clone, Default)]
pub struct GraceBook {
    records: BTreeMap<String, GraceRecord>,
}

impl GraceBook {
    pub fn insert(&mut self, identity: String, record: GraceRecord) {
        if self.records.len() >= MAX_GRACE_RECORDS && !self.records.contains_key(&identity) {
            // Drop the one closest to lapsing.
            if let Some(k) = self
                .records
                .iter()
                .min_by_key(|(k, r)| (r.expires, (*k).clone()))
                .map(|(k, _)| k.clone())
            {
                self.records.remove(&k);
            }
        }
        self.records.insert(identity, record);
    }

    /// The record of `identity` if it is still good at world tick `now` (left in place).
    pub fn peek(&self, identity: &str, now: u64) -> Option<&GraceRecord> {
        self.records.get(identity).filter(|r| now < r.expires)
    }

    /// The record of `identity` if it is still good at world tick `now` (removed either way).
    pub fn take(&mut self, identity: &str, now: u64) -> Option<GraceRecord> {
        self.records.remove(identity).filter(|r| now < r.expires)
    }

    /// Drops lapsed records; returns them (their mission slots are free again).
    pub fn expire(&mut self, now: u64) -> Vec<GraceRecord> {
        let lapsed: Vec<String> = self
            .records
            .iter()
            .filter(|(_, r)| now >= r.expires)
            .map(|(k, _)| k.clone())
            .collect();
        lapsed
            .into_iter()
            .filter_map(|k| self.records.remove(&k))
            .collect()
    }

    /// Whether a live record holds mission slot `slot`.
    pub fn holds_slot(&self, slot: usize) -> bool {
        self.records.values().any(|r| r.mission_slot == Some(slot))
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callsigns_are_cleaned_bounded_and_defaulted() {
        assert_eq!(sanitize_callsign("  Vi\u{7}per\n "), "Viper");
        assert_eq!(sanitize_callsign("\u{1b}\t "), "Pilot");
        let long = "é".repeat(40);
        let s = sanitize_callsign(&long);
        assert!(s.len() <= MAX_CALLSIGN_BYTES && s.is_char_boundary(s.len()));
        assert_eq!(s.chars().count(), 15);
    }

    #[test]
    fn callsigns_are_made_unique_within_the_field() {
        let taken = ["Viper", "viper (2)"];
        let is_taken = |n: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(n));
        assert_eq!(unique_callsign("Ghost", is_taken), "Ghost");
        assert_eq!(unique_callsign("Viper", is_taken), "Viper (3)");
        // Naming many after one base continues from the suffix handed back.
        let (n, next) = unique_callsign_from("Viper", 2, is_taken);
        assert_eq!((n.as_str(), next), ("Viper (3)", 4));
        let (n, _) = unique_callsign_from("Viper", next, is_taken);
        assert_eq!(n, "Viper (4)");
        let long = "x".repeat(31);
        let u = unique_callsign(&long, |n| n == long);
        assert_eq!(u.len(), 31);
        assert!(u.ends_with(" (2)"));
    }

    #[test]
    fn chat_is_validated_stripped_and_cut() {
        assert_eq!(sanitize_chat(b"hi\x07 there\n"), Some("hi there".into()));
        assert_eq!(sanitize_chat(b"\xff\xfeabc"), None, "invalid UTF-8 dropped");
        assert_eq!(sanitize_chat(b" \x01\x02 "), None, "nothing left");
        assert_eq!(
            sanitize_chat("a😀b".as_bytes()),
            Some("ab".into()),
            "BMP only"
        );
        let long = "ü".repeat(300);
        let s = sanitize_chat(long.as_bytes()).expect("kept");
        assert!(s.len() <= MAX_CHAT_BYTES && s.len() == 240);
    }

    #[test]
    fn blocked_words_are_whole_word_and_case_insensitive() {
        let b = vec!["darn".to_owned()];
        assert_eq!(
            censor("Darn it, darnation DARN!", &b),
            "*** it, darnation ***!"
        );
        assert_eq!(censor("fine", &[]), "fine");
    }

    #[test]
    fn the_chat_bucket_allows_a_burst_then_the_rate() {
        let cfg = ChatConfig {
            rate_per_s: 2.0,
            burst: 3,
            blocked_words: Vec::new(),
        };
        let mut b = ChatBucket::full(&cfg, 0);
        assert_eq!((0..10).filter(|_| b.take(&cfg, 0)).count(), 3);
        assert!(!b.take(&cfg, 29), "half a second less a tick: not yet");
        assert!(b.take(&cfg, 30), "one line back after half a second");
        // A long silence refills to the burst, no further.
        assert_eq!((0..10).filter(|_| b.take(&cfg, 100_000)).count(), 3);
    }

    #[test]
    fn the_chat_log_keeps_the_last_hundred() {
        let mut log = ChatLog::default();
        for i in 0..150 {
            log.push(ChatLine {
                tick: i,
                sender: 0,
                callsign: "a".into(),
                channel: ChatChannel::All,
                text: "x".into(),
            });
        }
        assert_eq!(log.lines().len(), CHAT_HISTORY);
        assert_eq!(log.lines().next().map(|l| l.tick), Some(50));
    }

    #[test]
    fn the_sandbox_is_one_untimed_active_phase() {
        let mut c = MatchClock::new(None, [1, 2], 0);
        assert_eq!(c.phase(), MatchPhase::Active);
        assert_eq!(c.phase_end_tick(), 0);
        assert_eq!(c.step(1_000_000), MatchChange::default());
        assert!(c.on_kill(1, 2, false, false));
        assert!(c.on_kill(2, 2, true, false));
        assert!(!c.on_kill(1, 1, false, true), "suicide scores nothing");
        assert!(!c.on_kill(1, 0, false, false), "a neutral is no enemy");
        assert_eq!(c.scores().get(&1), Some(&1));
        assert_eq!(c.scores().get(&2), Some(&-1));
    }

    #[test]
    fn a_timed_match_runs_its_phases_and_starts_again() {
        let rules = MatchRules {
            score_limit: 2,
            time_limit_ticks: 1000,
            warmup_ticks: 100,
            post_match_ticks: 50,
        };
        let mut c = MatchClock::new(Some(rules), [1, 2], 0);
        assert_eq!((c.phase(), c.phase_end_tick()), (MatchPhase::Warmup, 100));
        assert!(!c.on_kill(1, 2, false, false), "warmup kills do not score");
        assert!(!c.step(99).phase_changed);
        assert!(c.step(100).phase_changed);
        assert_eq!((c.phase(), c.phase_end_tick()), (MatchPhase::Active, 1100));
        c.on_kill(1, 2, false, false);
        c.on_kill(1, 2, false, false);
        assert!(c.step(200).phase_changed, "score limit reached");
        assert_eq!(
            (c.phase(), c.phase_end_tick()),
            (MatchPhase::Ending, 200 + ENDING_TICKS)
        );
        assert!(!c.on_kill(2, 1, false, false), "frozen");
        c.step(200 + ENDING_TICKS);
        assert_eq!(c.phase(), MatchPhase::PostMatch);
        let ch = c.step(250 + ENDING_TICKS);
        assert!(ch.new_match);
        assert_eq!(c.phase(), MatchPhase::Warmup);
        assert_eq!(c.scores().get(&1), Some(&0));
        assert_eq!(c.matches_started(), 2);
        // The time limit ends an Active phase too.
        let mut c = MatchClock::new(
            Some(MatchRules {
                time_limit_ticks: 10,
                ..rules
            }),
            [1],
            0,
        );
        c.step(100);
        assert_eq!(c.phase(), MatchPhase::Active);
        c.step(110);
        assert_eq!(c.phase(), MatchPhase::Ending);
    }

    #[test]
    fn balance_refuses_a_switch_that_leaves_the_target_too_big() {
        let counts: BTreeMap<u16, u32> = [(1, 2), (2, 2)].into();
        assert!(switch_keeps_balance(&counts, 1, 2, 2));
        assert!(!switch_keeps_balance(&counts, 1, 2, 1), "3 vs 1");
        let counts: BTreeMap<u16, u32> = [(1, 3), (2, 1)].into();
        assert!(
            switch_keeps_balance(&counts, 1, 2, 0),
            "toward the small team"
        );
        assert!(!switch_keeps_balance(&counts, 2, 1, 1));
        let full: BTreeMap<u16, u32> = [(1, 2), (2, 2)].into();
        assert!(match_full(&full, 2));
        assert!(!match_full(&full, 3));
        assert!(!match_full(&full, 0));
    }

    #[test]
    fn grace_records_lapse_and_are_bounded() {
        let rec = |expires| GraceRecord {
            faction: 2,
            callsign: "V".into(),
            kills: 1,
            deaths: 0,
            team_kills: 0,
            score: 10,
            mission_slot: Some(3),
            expires,
            match_number: 1,
        };
        let mut g = GraceBook::default();
        g.insert("a".into(), rec(100));
        assert!(g.holds_slot(3));
        assert_eq!(g.take("a", 100), None, "lapsed");
        g.insert("a".into(), rec(100));
        assert_eq!(g.take("a", 99).map(|r| r.faction), Some(2));
        for i in 0..(MAX_GRACE_RECORDS + 10) {
            g.insert(format!("id{i}"), rec(1000 + i as u64));
        }
        assert_eq!(g.len(), MAX_GRACE_RECORDS);
        assert_eq!(g.expire(1_000_000).len(), MAX_GRACE_RECORDS);
        assert!(g.is_empty());
    }
}
