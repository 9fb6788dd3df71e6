//! Match and people end to end over the simulated network (docs/multiplayer.md): the roster
//! as the one name source, chat routing with its sanitising, rate limit, mute and moderation,
//! the match clock and team scores, the scoreboard, team switches, the join cap, and the
//! reconnect grace — and hostile input against all of them.

mod common;

use common::{Harness, TestClient};
use fl_ai::{Loiter, LoiterParams};
use fl_flight::math::Vec3;
use fl_net::linksim::LinkConfig;
use fl_net::{Channel, ClientTransport};
use fl_protocol::enums::{ChatChannel, ConnectRefusalCode, MatchPhase, PeerRole, WeaponType, ids};
use fl_protocol::msg::handshake::ConnectRequest;
use fl_protocol::msg::social::{
    Chat, ChatEvent, MatchState, PlayerRosterEntry, ROSTER_FLAG_BOT, ROSTER_FLAG_LEAVE, Scoreboard,
    TeamRequest,
};
use fl_protocol::tlv::{Ext, Extensions};
use fl_protocol::{Message, PROTOCOL_VERSION};
use fl_server::combat::damage::Credit;
use fl_server::pool::EntityId;
use fl_server::server::{ServerConfig, SpawnPoint};
use fl_server::social::{MatchRules, SCOREBOARD_EVERY_TICKS};
use fl_server::world::Pilot;
use std::net::IpAddr;

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

/// Connects from 127.0.0.`n` and asks to fly as `callsign`, with `ext` on the request.
fn join_as(h: &mut Harness, n: u8, callsign: &str, ext: Extensions) -> TestClient {
    let mut c = h.connect(ip(n), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    let req = ConnectRequest {
        requested_role: PeerRole::Pilot,
        protocol_version: PROTOCOL_VERSION,
        callsign: callsign.into(),
        ..Default::default()
    };
    c.send_raw(
        Channel::Reliable,
        &Message::from(req).encode_with(&ext).expect("encodes"),
    );
    h.run(10, &mut [&mut c]);
    c
}

fn join(h: &mut Harness, n: u8, callsign: &str) -> TestClient {
    let c = join_as(h, n, callsign, Extensions::new());
    assert!(c.admitted().is_some(), "{callsign} admitted");
    c
}

fn identity(id: &str) -> Extensions {
    let mut e = Extensions::new();
    e.push(&Ext::ConnectIdentity(id.into())).expect("fits");
    e
}

fn peer_id(c: &TestClient) -> u32 {
    c.admitted().expect("admitted").peer_id
}

fn own(c: &TestClient) -> EntityId {
    let a = c.admitted().expect("admitted");
    EntityId {
        index: a.assigned_entity_idx,
        generation: a.assigned_entity_gen,
    }
}

fn chats(c: &TestClient) -> Vec<&ChatEvent> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::ChatEvent(e) => Some(e),
            _ => None,
        })
        .collect()
}

fn chat_texts_from(c: &TestClient, sender: u32) -> Vec<String> {
    chats(c)
        .into_iter()
        .filter(|e| e.sender_peer_id == sender)
        .map(|e| e.text.clone())
        .collect()
}

fn roster(c: &TestClient) -> Vec<PlayerRosterEntry> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::PlayerRoster(r) => Some(r.entries.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn match_states(c: &TestClient) -> Vec<&MatchState> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::MatchState(m) => Some(m),
            _ => None,
        })
        .collect()
}

fn scoreboards(c: &TestClient) -> Vec<&Scoreboard> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::Scoreboard(s) => Some(s),
            _ => None,
        })
        .collect()
}

fn say(c: &mut TestClient, channel: ChatChannel, text: &str) {
    let bytes = Message::from(Chat {
        channel,
        text: text.into(),
    })
    .encode()
    .expect("encodes");
    c.send_raw(Channel::Reliable, &bytes);
}

/// A `MsgChat` with raw text bytes (whatever they are).
fn say_raw(c: &mut TestClient, text: &[u8]) {
    let mut bytes = vec![0x20, 0, 0, 0];
    bytes.extend_from_slice(text);
    bytes.push(0);
    c.send_raw(Channel::Reliable, &bytes);
}

fn ask_team(c: &mut TestClient, faction: u16) {
    let bytes = Message::from(TeamRequest {
        faction_index: faction,
    })
    .encode()
    .expect("encodes");
    c.send_raw(Channel::Reliable, &bytes);
}

#[test]
fn the_roster_names_everyone_once_and_a_late_joiner_gets_all_of_it() {
    let mut h = Harness::new(1, ServerConfig::default());
    let mut a = join(&mut h, 1, "  Vi\u{7}per ");
    let mut b = join(&mut h, 2, "viper");
    let mut c = join(&mut h, 3, "");
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let (pa, pb, pc) = (peer_id(&a), peer_id(&b), peer_id(&c));
    assert_eq!(h.server.callsign_of(pa), Some("Viper"));
    assert_eq!(
        h.server.callsign_of(pb),
        Some("viper (2)"),
        "unique, case-insensitively"
    );
    assert_eq!(h.server.callsign_of(pc), Some("Pilot"));

    // The late joiner's roster holds everyone, itself included, with factions.
    let full = roster(&c);
    let ids: Vec<u32> = full.iter().map(|e| e.participant_id).collect();
    assert_eq!(ids, vec![pa, pb, pc]);
    assert_eq!(full[0].callsign.as_str(), "Viper");
    assert_eq!(full[0].faction_index, 1);
    assert_eq!(full[1].faction_index, 2);
    // The first pilot heard both upserts.
    let upserts: Vec<u32> = roster(&a).iter().map(|e| e.participant_id).collect();
    assert_eq!(upserts, vec![pa, pb, pc]);
    assert!(
        chats(&a)
            .iter()
            .any(|e| e.sender_peer_id == ids::NO_OWNING_PEER && e.text == "viper (2) joined")
    );

    // A leave is an entry with the LEAVE flag, and a system line.
    b.transport.disconnect("bye");
    a.messages.clear();
    h.run(10, &mut [&mut a, &mut c]);
    let leaves = roster(&a);
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].participant_id, pb);
    assert_ne!(leaves[0].flags & ROSTER_FLAG_LEAVE, 0);
    assert!(chats(&a).iter().any(|e| e.text == "viper (2) left"));
    // The name is free again.
    let d = join(&mut h, 4, "VIPER");
    assert_eq!(h.server.callsign_of(peer_id(&d)), Some("VIPER (2)"));
    let e = join(&mut h, 5, &"x".repeat(40));
    assert_eq!(h.server.callsign_of(peer_id(&e)).map(str::len), Some(31));
}

#[test]
fn a_large_roster_is_chunked_to_a_late_joiner() {
    let mut h = Harness::new(2, ServerConfig::default());
    let t = h
        .server
        .types()
        .index_of("builtin:jet-trainer")
        .expect("type");
    for i in 0..300 {
        let at = SpawnPoint {
            x: f64::from(i % 20) * 500.0,
            z: f64::from(i / 20) * 500.0 + 5000.0,
            altitude_m: 3000.0,
            heading_deg: 0.0,
            speed_mps: 180.0,
            anchor: None,
        };
        let ctrl = Loiter::new(LoiterParams {
            centre: Some(Vec3::new(at.x, at.altitude_m, at.z)),
            radius_m: 2000.0,
            ..LoiterParams::default()
        })
        .expect("loiter");
        h.server
            .spawn_aircraft(t, 2, Pilot::Ai(Box::new(ctrl)), at)
            .expect("room");
    }
    h.run(31, &mut []);
    let mut c = join(&mut h, 1, "Late");
    h.run(2, &mut [&mut c]);
    let msgs: Vec<usize> = c
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::PlayerRoster(r) => Some(r.entries.len()),
            _ => None,
        })
        .collect();
    assert_eq!(msgs, vec![255, 46], "301 entries in two messages");
    let all = roster(&c);
    let bots: Vec<&PlayerRosterEntry> = all
        .iter()
        .filter(|e| e.flags & ROSTER_FLAG_BOT != 0)
        .collect();
    assert_eq!(bots.len(), 300);
    assert!(
        bots.iter()
            .all(|e| ids::BOT_PARTICIPANT_BASE <= e.participant_id
                && e.participant_id < ids::BOT_PARTICIPANT_BASE + 300)
    );
    assert_eq!(bots[0].callsign.as_str(), "jet-trainer");
    assert_eq!(bots[1].callsign.as_str(), "jet-trainer (2)");
    // The scoreboard splits at 255 rows too.
    let rows: Vec<usize> = scoreboards(&c).iter().map(|s| s.rows.len()).collect();
    assert_eq!(rows, vec![255, 46]);
}

#[test]
fn chat_reaches_everyone_or_the_team_and_is_sanitised() {
    let mut cfg = ServerConfig::default();
    cfg.social.chat.blocked_words = vec!["darn".into()];
    // Room for every line of this test at once (the limit has its own test).
    cfg.social.chat.burst = 20;
    let mut h = Harness::new(3, cfg);
    let mut a = join(&mut h, 1, "A"); // blue
    let mut b = join(&mut h, 2, "B"); // red
    let mut c = join(&mut h, 3, "C"); // blue
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let pa = peer_id(&a);
    for x in [&mut a, &mut b, &mut c] {
        x.messages.clear();
    }
    say(&mut a, ChatChannel::All, "hello all");
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    say(&mut a, ChatChannel::Team, "blue only");
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    assert_eq!(
        chat_texts_from(&a, pa),
        vec!["hello all", "blue only"],
        "own echo"
    );
    assert_eq!(
        chat_texts_from(&b, pa),
        vec!["hello all"],
        "red hears no blue team line"
    );
    assert_eq!(chat_texts_from(&c, pa), vec!["hello all", "blue only"]);
    let team = chats(&c)
        .into_iter()
        .find(|e| e.text == "blue only")
        .expect("line");
    assert_eq!(team.channel, ChatChannel::Team);

    // Control characters, invalid UTF-8, empty lines, overlong lines, blocked words.
    a.messages.clear();
    say(&mut a, ChatChannel::All, "ti\u{7}ck\u{1b} ");
    say_raw(&mut a, b"bad \xff\xfe bytes");
    say(&mut a, ChatChannel::All, " \u{1}\u{2} ");
    say(&mut a, ChatChannel::All, "Darn it");
    h.run(200, &mut [&mut a, &mut b, &mut c]);
    say(&mut a, ChatChannel::All, &"é".repeat(200));
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let got = chat_texts_from(&b, pa);
    assert_eq!(got[got.len() - 3..got.len() - 1], ["tick", "*** it"]);
    let long = got.last().expect("long line");
    assert!(
        long.len() <= 240 && long.chars().all(|ch| ch == 'é'),
        "{long}"
    );
    assert_eq!(h.server.social_counters().chat_invalid, 2);

    // The recent history keeps the routed lines with their senders' callsigns.
    let recent: Vec<_> = h.server.recent_chat().collect();
    let mine = recent.iter().find(|l| l.text == "blue only").expect("kept");
    assert_eq!((mine.sender, mine.callsign.as_str()), (pa, "A"));
    assert_eq!(mine.channel, ChatChannel::Team);

    // The operator's line.
    h.server.system_chat("server restarts in 5 minutes");
    h.run(3, &mut [&mut a, &mut b, &mut c]);
    assert!(chats(&b).iter().any(
        |e| e.sender_peer_id == ids::NO_OWNING_PEER && e.text == "server restarts in 5 minutes"
    ));
}

#[test]
fn a_chat_flood_is_cut_to_the_burst_and_the_others_still_talk() {
    let mut h = Harness::new(4, ServerConfig::default());
    let mut a = join(&mut h, 1, "Flood");
    let mut b = join(&mut h, 2, "Calm");
    h.run(5, &mut [&mut a, &mut b]);
    let (pa, pb) = (peer_id(&a), peer_id(&b));
    for i in 0..500 {
        say(
            &mut a,
            ChatChannel::All,
            &format!("spam {i} {}", "z".repeat(200)),
        );
    }
    say(&mut b, ChatChannel::All, "still here");
    h.run(20, &mut [&mut a, &mut b]);
    let burst = h.server.config().social.chat.burst as usize;
    assert_eq!(
        chat_texts_from(&b, pa).len(),
        burst,
        "the flooder's burst only"
    );
    assert_eq!(chat_texts_from(&a, pb), vec!["still here"]);
    assert_eq!(
        h.server.social_counters().chat_rate_limited,
        500 - burst as u64
    );
    assert!(h.server.recent_chat().len() <= fl_server::social::CHAT_HISTORY);
    // A second later the flooder has a line again (1 line/s by default).
    h.run(60, &mut [&mut a, &mut b]);
    say(&mut a, ChatChannel::All, "sorry");
    h.run(5, &mut [&mut a, &mut b]);
    assert_eq!(
        chat_texts_from(&b, pa).last().map(String::as_str),
        Some("sorry")
    );
}

#[test]
fn a_muted_pilot_is_told_once_and_heard_by_nobody() {
    let mut h = Harness::new(5, ServerConfig::default());
    let mut a = join(&mut h, 1, "Loud");
    let mut b = join(&mut h, 2, "Ear");
    h.run(5, &mut [&mut a, &mut b]);
    let pa = peer_id(&a);
    assert!(h.server.set_chat_muted(pa, true));
    assert!(!h.server.set_chat_muted(9999, true), "no such peer");
    a.messages.clear();
    for _ in 0..3 {
        say(&mut a, ChatChannel::All, "can you hear me");
    }
    h.run(10, &mut [&mut a, &mut b]);
    assert!(chat_texts_from(&b, pa).is_empty());
    let told: Vec<_> = chats(&a)
        .into_iter()
        .filter(|e| e.sender_peer_id == ids::NO_OWNING_PEER)
        .collect();
    assert_eq!(told.len(), 1, "told once");
    assert_eq!(told[0].text, "You are muted.");
    assert_eq!(h.server.social_counters().chat_muted, 3);
    h.server.set_chat_muted(pa, false);
    say(&mut a, ChatChannel::All, "back");
    h.run(5, &mut [&mut a, &mut b]);
    assert_eq!(chat_texts_from(&b, pa), vec!["back"]);
}

/// Destroys `victim` on behalf of `by` (flown by `owner`, of `faction`).
fn kill(h: &mut Harness, victim: EntityId, by: EntityId, owner: u32, faction: u16) {
    let (world, combat) = h.server.world_and_combat_mut();
    let tick = world.tick();
    let credit = Credit {
        by,
        owner: Some(owner),
        faction,
        weapon: WeaponType::Gun,
        tick,
    };
    assert!(combat.damage(world, victim, 1e9, credit), "damaged");
}

#[test]
fn the_sandbox_counts_team_scores_and_the_scoreboard_shows_tallies() {
    let mut h = Harness::new(6, ServerConfig::default());
    let mut a = join(&mut h, 1, "A"); // blue
    let mut b = join(&mut h, 2, "B"); // red
    let mut c = join(&mut h, 3, "C"); // blue
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let state = match_states(&c);
    assert_eq!(state.len(), 1, "unicast on admit");
    assert_eq!(
        (
            state[0].phase,
            state[0].phase_end_tick,
            state[0].score_limit
        ),
        (MatchPhase::Active, 0, 0)
    );
    assert_eq!(h.server.match_phase(), MatchPhase::Active);
    let (ea, eb, ec) = (own(&a), own(&b), own(&c));
    let (pa, pb, pc) = (peer_id(&a), peer_id(&b), peer_id(&c));
    a.messages.clear();
    // Blue kills red: +1 blue. Blue kills blue: −1 blue.
    kill(&mut h, eb, ea, pa, 1);
    h.run(2, &mut [&mut a, &mut b, &mut c]);
    assert_eq!(h.server.team_scores().get(&1), Some(&1));
    kill(&mut h, ec, ea, pa, 1);
    h.run(2, &mut [&mut a, &mut b, &mut c]);
    assert_eq!(h.server.team_scores().get(&1), Some(&0));
    assert_eq!(h.server.team_scores().get(&2), Some(&0));
    let heard: Vec<i32> = match_states(&a)
        .iter()
        .map(|m| {
            m.teams
                .iter()
                .find(|t| t.faction_index == 1)
                .expect("blue")
                .score
        })
        .collect();
    assert_eq!(heard, vec![1, 0], "broadcast on change");

    // The scoreboard every 120 ticks: kills, deaths, score per pilot.
    h.run(
        SCOREBOARD_EVERY_TICKS as usize + 1,
        &mut [&mut a, &mut b, &mut c],
    );
    let sb = scoreboards(&a).last().copied().expect("scoreboard").clone();
    let row = |p: u32| {
        sb.rows
            .iter()
            .find(|r| r.participant_id == p)
            .cloned()
            .expect("row")
    };
    let ra = row(pa);
    assert_eq!((ra.kills, ra.deaths, ra.faction_index), (1, 0, 1));
    assert_eq!(ra.score, 0, "+10 for the kill, −10 for the team kill");
    assert_eq!(row(pb).deaths, 1);
    assert_eq!(row(pc).faction_index, 1);
}

#[test]
fn a_timed_match_runs_warmup_active_ending_postmatch_and_again() {
    let mut cfg = ServerConfig::default();
    cfg.social.rules = Some(MatchRules {
        score_limit: 1,
        time_limit_ticks: 600,
        warmup_ticks: 60,
        post_match_ticks: 60,
    });
    let mut h = Harness::new(7, cfg);
    let mut a = join(&mut h, 1, "A");
    let mut b = join(&mut h, 2, "B");
    assert_eq!(h.server.match_phase(), MatchPhase::Warmup);
    let warm = match_states(&b)[0].clone();
    assert_eq!(warm.phase, MatchPhase::Warmup);
    assert_eq!(warm.phase_end_tick, 60);
    assert_eq!(warm.mode_id.as_str(), "team-deathmatch");
    // A warmup kill scores nothing.
    kill(&mut h, own(&b), own(&a), peer_id(&a), 1);
    h.run(2, &mut [&mut a, &mut b]);
    assert_eq!(h.server.team_scores().get(&1), Some(&0));
    while h.server.world().tick() < 61 {
        h.run(1, &mut [&mut a, &mut b]);
    }
    assert_eq!(h.server.match_phase(), MatchPhase::Active);
    assert_eq!(h.server.match_phase_end_tick(), 60 + 600);
    // B respawned after the warmup kill (respawn delay 180 ticks).
    h.run(200, &mut [&mut a, &mut b]);
    kill(&mut h, own(&b), own(&a), peer_id(&a), 1);
    h.run(2, &mut [&mut a, &mut b]);
    assert_eq!(
        h.server.match_phase(),
        MatchPhase::Ending,
        "the score limit"
    );
    let end = h.server.match_phase_end_tick();
    while h.server.world().tick() <= end {
        h.run(1, &mut [&mut a, &mut b]);
    }
    assert_eq!(h.server.match_phase(), MatchPhase::PostMatch);
    h.run(61, &mut [&mut a, &mut b]);
    assert_eq!(h.server.match_phase(), MatchPhase::Warmup);
    assert_eq!(h.server.matches_started(), 2);
    assert_eq!(h.server.team_scores().get(&1), Some(&0), "scores reset");
    assert_eq!(
        h.server.combat().peer_stats(peer_id(&a)).map(|s| s.kills),
        Some(0),
        "tallies reset"
    );
    let phases: Vec<MatchPhase> = match_states(&a).iter().map(|m| m.phase).collect();
    assert_eq!(
        phases,
        vec![
            MatchPhase::Warmup,
            MatchPhase::Active,
            MatchPhase::Ending,
            MatchPhase::PostMatch,
            MatchPhase::Warmup
        ]
    );
}

#[test]
fn team_switches_keep_balance_and_respawn_on_the_new_side() {
    let mut h = Harness::new(8, ServerConfig::default());
    let mut a = join(&mut h, 1, "A"); // blue
    let mut b = join(&mut h, 2, "B"); // red
    h.run(5, &mut [&mut a, &mut b]);
    let pa = peer_id(&a);
    // 0 vs 2 would be unbalanced.
    ask_team(&mut a, 2);
    h.run(5, &mut [&mut a, &mut b]);
    assert_eq!(h.server.faction_of(pa), Some(1));
    assert!(chats(&a).iter().any(|e| e.text.contains("unbalanced")));
    let mut c = join(&mut h, 3, "C"); // blue
    h.run(70, &mut [&mut a, &mut b, &mut c]);
    b.messages.clear();
    let before = own(&c);
    let acks_before = c
        .messages
        .iter()
        .filter(|p| matches!(p.message, Message::ConnectAck(_)))
        .count();
    ask_team(&mut c, 2);
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let pc = peer_id(&c);
    assert_eq!(h.server.faction_of(pc), Some(2), "1 vs 2 is within one");
    let acks: Vec<_> = c
        .messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::ConnectAck(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(acks.len(), acks_before + 1, "a fresh MsgConnectAck");
    assert!(acks[acks.len() - 1].types.is_empty(), "types unchanged");
    let after = own(&c);
    assert_ne!(after, before);
    assert!(h.server.world().get(before).is_none());
    assert_eq!(h.server.world().get(after).map(|e| e.faction), Some(2));
    let up = roster(&b);
    assert!(
        up.iter()
            .any(|e| e.participant_id == pc && e.faction_index == 2)
    );
    assert!(chats(&b).iter().any(|e| e.text == "C switched to Red"));
}

#[test]
fn hostile_team_requests_are_refused_or_dropped_without_harm() {
    let mut h = Harness::new(9, ServerConfig::default());
    let mut a = join(&mut h, 1, "A");
    let mut b = join(&mut h, 2, "B");
    let mut c = join(&mut h, 3, "C");
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    ask_team(&mut a, 77);
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    assert_eq!(h.server.faction_of(peer_id(&a)), Some(1));
    assert_eq!(h.server.social_counters().team_requests_refused, 1);
    h.run(60, &mut [&mut a, &mut b, &mut c]);
    for i in 0..200u16 {
        ask_team(&mut a, i % 3);
    }
    h.run(5, &mut [&mut a, &mut b, &mut c]);
    let n = h.server.social_counters();
    assert_eq!(n.team_requests_rate_limited, 199, "one heard per cooldown");
    assert!(n.team_switches <= 1);
    // A team request from a peer that never joined is ignored.
    let mut stranger = h.connect(ip(9), LinkConfig::default());
    h.run(3, &mut [&mut stranger]);
    ask_team(&mut stranger, 2);
    h.run(3, &mut [&mut a, &mut stranger]);
    assert_eq!(h.server.admitted_count(), 3);
}

#[test]
fn a_full_match_refuses_a_new_pilot() {
    let mut cfg = ServerConfig::default();
    cfg.social.max_per_team = 1;
    let mut h = Harness::new(10, cfg);
    let _a = join(&mut h, 1, "A");
    let _b = join(&mut h, 2, "B");
    let c = join_as(&mut h, 3, "C", Extensions::new());
    assert!(c.admitted().is_none());
    assert_eq!(
        c.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::MatchFull)
    );
}

#[test]
fn a_reconnecting_pilot_gets_its_side_name_and_tallies_back_within_the_grace() {
    let mut cfg = ServerConfig::default();
    cfg.social.reconnect_grace_ticks = 600;
    let mut h = Harness::new(11, cfg);
    let mut a = join(&mut h, 1, "A"); // blue
    let mut v = join_as(&mut h, 2, "Viper", identity("guid-1")); // red
    h.run(5, &mut [&mut a, &mut v]);
    let pv = peer_id(&v);
    assert_eq!(h.server.faction_of(pv), Some(2));
    let tick = h.server.world().tick();
    h.server
        .combat_mut()
        .set_peer_tallies(pv, 3, 1, 0, 30, tick);
    v.transport.disconnect("network hiccup");
    h.run(10, &mut [&mut a]);
    assert_eq!(h.server.grace_records(), 1);
    // Meanwhile someone takes the callsign's place in the queue: a blue pilot (picks red,
    // the smaller team, would the grace not hold the faction).
    let v2 = join_as(&mut h, 3, "Someone else", identity("guid-1"));
    let p2 = peer_id(&v2);
    assert_ne!(p2, pv);
    assert_eq!(h.server.callsign_of(p2), Some("Viper"));
    assert_eq!(h.server.faction_of(p2), Some(2));
    let s = h.server.combat().peer_stats(p2).copied().expect("tallies");
    assert_eq!((s.kills, s.losses, s.score), (3, 1, 30));
    assert_eq!(h.server.grace_records(), 0);
    assert_eq!(h.server.social_counters().reconnects_restored, 1);

    // After the grace it is a fresh join.
    let mut v2 = v2;
    v2.transport.disconnect("gone for lunch");
    h.run(700, &mut [&mut a]);
    assert_eq!(h.server.grace_records(), 0, "lapsed");
    let v3 = join_as(&mut h, 4, "Maverick", identity("guid-1"));
    let p3 = peer_id(&v3);
    assert_eq!(h.server.callsign_of(p3), Some("Maverick"));
    assert!(
        h.server
            .combat()
            .peer_stats(p3)
            .is_none_or(|s| s.kills == 0)
    );
}

#[test]
fn a_kicked_pilot_gets_no_grace_and_no_identity_means_no_matching() {
    let mut h = Harness::new(12, ServerConfig::default());
    let mut a = join(&mut h, 1, "NoId");
    h.run(5, &mut [&mut a]);
    a.transport.disconnect("bye");
    h.run(10, &mut []);
    assert_eq!(h.server.grace_records(), 0, "no identity, nothing to match");
    // Malformed packets past the budget get a peer kicked: no grace record.
    let mut k = join_as(&mut h, 2, "Kicked", identity("guid-k"));
    h.run(5, &mut [&mut k]);
    for _ in 0..100 {
        k.send_raw(Channel::Reliable, &[0x01, 0xff]);
    }
    h.run(10, &mut [&mut k]);
    assert_eq!(h.server.admitted_count(), 0, "kicked");
    assert_eq!(h.server.grace_records(), 0);
}

#[test]
fn bots_join_the_roster_and_the_scoreboard_and_leave_it() {
    let mut h = Harness::new(13, ServerConfig::default());
    let mut a = join(&mut h, 1, "A");
    let t = h
        .server
        .types()
        .index_of("builtin:jet-trainer")
        .expect("type");
    let at = SpawnPoint {
        x: 0.0,
        z: 8000.0,
        altitude_m: 3000.0,
        heading_deg: 0.0,
        speed_mps: 180.0,
        anchor: None,
    };
    let ctrl = Loiter::new(LoiterParams {
        centre: Some(Vec3::new(at.x, at.altitude_m, at.z)),
        radius_m: 2000.0,
        ..LoiterParams::default()
    })
    .expect("loiter");
    let bot = h
        .server
        .spawn_aircraft(t, 2, Pilot::Ai(Box::new(ctrl)), at)
        .expect("room");
    h.run(31, &mut [&mut a]);
    let entry = roster(&a)
        .into_iter()
        .find(|e| e.flags & ROSTER_FLAG_BOT != 0)
        .expect("bot upsert");
    assert_eq!(entry.participant_id, ids::BOT_PARTICIPANT_BASE);
    assert_eq!(entry.faction_index, 2);
    kill(&mut h, bot, own(&a), peer_id(&a), 1);
    h.run(SCOREBOARD_EVERY_TICKS as usize, &mut [&mut a]);
    let sb = scoreboards(&a).last().copied().expect("scoreboard").clone();
    let row = sb
        .rows
        .iter()
        .find(|r| r.participant_id == entry.participant_id)
        .expect("bot row");
    assert_eq!(row.deaths, 1);
    assert_eq!(h.server.team_scores().get(&1), Some(&1));
    h.server.world_mut().despawn(bot);
    a.messages.clear();
    h.run(31, &mut [&mut a]);
    let gone = roster(&a);
    assert!(
        gone.iter()
            .any(|e| e.participant_id == entry.participant_id && e.flags & ROSTER_FLAG_LEAVE != 0)
    );
}

/// Joins from 127.0.0.`n` as a pilot reporting the fixture pack, with identity `id`.
fn join_with_pack(h: &mut Harness, n: u8, callsign: &str, id: Option<&str>) -> TestClient {
    let mut c = h.connect(ip(n), LinkConfig::default());
    h.run(3, &mut [&mut c]);
    let req = ConnectRequest {
        requested_role: PeerRole::Pilot,
        protocol_version: PROTOCOL_VERSION,
        callsign: callsign.into(),
        packs: vec![fl_protocol::msg::handshake::PackManifestEntry {
            id: "fl-base-pack".into(),
            version: "0.1.0".into(),
            content_hash: [0; 32],
        }],
        ..Default::default()
    };
    let ext = id.map_or_else(Extensions::new, identity);
    c.send_raw(
        Channel::Reliable,
        &Message::from(req).encode_with(&ext).expect("encodes"),
    );
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some(), "admitted: {:?}", c.refusal());
    c
}

#[test]
fn a_reconnecting_pilot_gets_its_mission_slot_back_and_nobody_takes_it_meanwhile() {
    let Some(content) = common::fixture_content("reconnect into a mission slot") else {
        return;
    };
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    let mut h = Harness::with_types(14, ServerConfig::default(), types);
    h.server.start_mission(&checked, 1).expect("starts");
    let mut v = join_with_pack(&mut h, 1, "Viper", Some("guid-m"));
    let slot_entity = h.server.mission_entity("player1").expect("bound");
    assert_eq!(own(&v), slot_entity);
    let side = h.server.faction_of(peer_id(&v));
    v.transport.disconnect("dropped");
    h.run(10, &mut []);
    assert_eq!(h.server.grace_records(), 1);
    // Another pilot joins meanwhile: the slot is kept, so it flies the default type.
    let x = join_with_pack(&mut h, 2, "Other", None);
    assert!(h.server.mission_entity("player1").is_none(), "still free");
    assert_ne!(
        h.server.world().get(own(&x)).map(|e| e.type_index),
        h.server.world().get(slot_entity).map(|e| e.type_index),
    );
    let v2 = join_with_pack(&mut h, 3, "Whoever", Some("guid-m"));
    let back = h.server.mission_entity("player1").expect("bound again");
    assert_eq!(own(&v2), back);
    assert_eq!(h.server.faction_of(peer_id(&v2)), side);
    assert_eq!(h.server.callsign_of(peer_id(&v2)), Some("Viper"));
}

#[test]
fn a_pilot_seated_in_a_new_mission_run_is_upserted_with_the_slots_side() {
    let Some(content) = common::fixture_content("roster upsert on a mission seat") else {
        return;
    };
    let checked = content
        .load_mission("fl-base-pack:f5e_gunnery")
        .unwrap_or_else(|e| panic!("{e}"));
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    let mut h = Harness::with_types(15, ServerConfig::default(), types);
    let mut v = join_with_pack(&mut h, 1, "Viper", None);
    let pv = peer_id(&v);
    h.server.start_mission(&checked, 1).expect("starts");
    v.messages.clear();
    assert_eq!(h.server.seat_pilots_in_mission(), 1);
    h.run(3, &mut [&mut v]);
    let side = h.server.faction_of(pv).expect("admitted");
    let up = roster(&v);
    assert_eq!(up.len(), 1);
    assert_eq!((up[0].participant_id, up[0].faction_index), (pv, side));
}
