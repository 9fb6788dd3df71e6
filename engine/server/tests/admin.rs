//! The admin commands end to end through the real `MsgAdminCommand` path (token, dispatch,
//! `MsgAdminResponse` / chunk framing) over LinkSim: every command and its refusals, long output
//! reassembled from chunks, the brute-force lockout, the shutdown countdown's notices, the ban
//! list surviving a restart, and the `fl-server` binary's stdin console. Loopback only; every
//! wait is bounded.

mod common;
mod process;

use common::{Harness, TestClient};
use fl_net::Channel;
use fl_net::linksim::LinkConfig;
use fl_protocol::Message;
use fl_protocol::enums::{ConnectRefusalCode, PeerRole};
use fl_protocol::msg::admin::{AdminCommand, CHUNK_FLAG_END};
use fl_protocol::tlv::Extensions;
use fl_server::admin::bans::BanList;
use fl_server::admin::wire::reassemble;
use fl_server::server::ServerConfig;
use std::net::IpAddr;

const TOKEN: &str = "op-secret";

fn ip(n: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, n])
}

fn config() -> ServerConfig {
    ServerConfig {
        operator_password: Some(TOKEN.into()),
        ..ServerConfig::default()
    }
}

fn admitted(h: &mut Harness, from: IpAddr) -> TestClient {
    let mut c = h.connect(from, LinkConfig::default());
    h.run(3, &mut [&mut c]);
    c.request(PeerRole::Pilot, Extensions::new());
    h.run(10, &mut [&mut c]);
    assert!(c.admitted().is_some(), "admitted from {from}");
    c
}

fn send_command(c: &mut TestClient, req_id: u16, token: &str, line: &str) {
    let cmd = AdminCommand {
        req_id,
        token: token.into(),
        command: line.into(),
    };
    c.send_raw(
        Channel::Reliable,
        &Message::from(cmd).encode().expect("encodes"),
    );
}

/// The admin responses to `req_id` the client has heard so far.
fn responses(c: &TestClient, req_id: u16) -> Vec<Message> {
    c.messages
        .iter()
        .filter(|p| match &p.message {
            Message::AdminResponse(r) => r.req_id == req_id,
            Message::AdminResponseChunk(r) => r.req_id == req_id,
            _ => false,
        })
        .map(|p| p.message.clone())
        .collect()
}

/// Sends `line` with the right token and returns the reassembled answer (the others keep being
/// pumped meanwhile).
struct Admin {
    client: TestClient,
    next_req: u16,
}

impl Admin {
    fn ask(&mut self, h: &mut Harness, others: &mut [&mut TestClient], line: &str) -> String {
        self.next_req += 1;
        let req = self.next_req;
        send_command(&mut self.client, req, TOKEN, line);
        for _ in 0..30 {
            let mut all: Vec<&mut TestClient> = vec![&mut self.client];
            all.extend(others.iter_mut().map(|c| &mut **c));
            h.step(&mut all);
            let got = responses(&self.client, req);
            if let Some(text) = reassemble(req, &got) {
                return text;
            }
        }
        panic!(
            "no complete answer to {line:?}: {:?}",
            responses(&self.client, req)
        );
    }
}

fn admin_client(h: &mut Harness) -> Admin {
    Admin {
        client: admitted(h, ip(1)),
        next_req: 0,
    }
}

#[test]
fn every_command_and_its_refusals() {
    let mut h = Harness::new(11, config());
    let mut admin = admin_client(&mut h);
    let mut victim = admitted(&mut h, ip(2));
    let mut others: [&mut TestClient; 1] = [&mut victim];

    let status = admin.ask(&mut h, &mut others, "status");
    assert!(status.starts_with("tick "), "{status}");
    assert!(status.contains("peers 2 (2 in game)"), "{status}");

    let peers = admin.ask(&mut h, &mut others, "peers");
    assert!(peers.contains("2 peer(s)"), "{peers}");
    // Callsigns are unique (the second "tester" is "tester (2)"), spaces shown as `_`.
    assert!(peers.contains("tester_(2) 127.0.0.2:"), "{peers}");
    assert!(peers.contains(" pilot "), "{peers}");

    let ts = admin.ask(&mut h, &mut others, "tickstats");
    assert!(ts.contains("total ") && ts.contains("snapshots "), "{ts}");

    // Refusals: each says what was wrong, with the usage where the grammar was at fault.
    for (line, needle) in [
        ("frobnicate", "unknown command: frobnicate"),
        ("", "empty command"),
        ("kick", "usage: kick <peerId|IP> [reason]"),
        ("kick 999", "no peer 999"),
        ("kick 10.9.9.9", "no peer is connected from 10.9.9.9"),
        ("ban 999", "no peer 999"),
        ("unban 10.9.9.9", "not banned"),
        ("unban nobody", "not an IP address"),
        ("kill 99999", "no entity 99999"),
        ("kill @999", "no peer 999"),
        ("tp 1 2", "missing y"),
        ("spawn builtin:nothing 0,0", "unknown entity type"),
        ("shutdown cancel", "no shutdown is scheduled"),
        ("mission fl-base-pack:nope", "no mission director"),
        ("help frob", "unknown command"),
    ] {
        let answer = admin.ask(&mut h, &mut others, line);
        assert!(answer.contains(needle), "{line:?}: {answer}");
    }

    // help: the list is long, so it arrives as chunks ending with the end flag.
    let help = admin.ask(&mut h, &mut others, "help");
    for name in [
        "status",
        "peers",
        "kick",
        "ban",
        "unban",
        "bans",
        "say",
        "mute",
        "unmute",
        "spawn",
        "kill",
        "tp",
        "pause",
        "resume",
        "mission",
        "shutdown",
        "tickstats",
    ] {
        assert!(help.contains(&format!("\n{name}")), "{name} in {help}");
    }
    let req = admin.next_req;
    let chunks = responses(&admin.client, req);
    assert!(chunks.len() >= 2, "{chunks:?}");
    assert!(
        matches!(chunks.last(), Some(Message::AdminResponseChunk(c)) if c.flags == CHUNK_FLAG_END)
    );
    let usage = admin.ask(&mut h, &mut others, "help tp");
    assert!(usage.starts_with("usage: tp "), "{usage}");
    assert_eq!(
        admin.ask(&mut h, &mut others, "help teleport"),
        usage,
        "aliases"
    );

    // say: a system line (no sender) reaches the other peers; mute / unmute one peer.
    assert_eq!(
        admin.ask(&mut h, &mut others, "say restart at 20:00"),
        "said: restart at 20:00"
    );
    let heard = others[0].messages.iter().any(|p| {
        matches!(&p.message, Message::ChatEvent(e)
            if e.sender_peer_id == fl_protocol::enums::ids::NO_OWNING_PEER
                && e.text == "restart at 20:00")
    });
    assert!(heard, "the other peer heard the operator's line");
    let victim_peer = h.server.peers_at(ip(2))[0];
    assert_eq!(
        admin.ask(&mut h, &mut others, &format!("mute {victim_peer}")),
        format!("muted peer {victim_peer}")
    );
    assert!(h.server.is_chat_muted(victim_peer));
    assert_eq!(
        admin.ask(&mut h, &mut others, &format!("unmute {victim_peer}")),
        format!("unmuted peer {victim_peer}")
    );
    assert!(!h.server.is_chat_muted(victim_peer));
    assert!(
        admin
            .ask(&mut h, &mut others, "mute 999")
            .contains("no peer 999")
    );

    // pause / resume.
    assert_eq!(admin.ask(&mut h, &mut others, "pause"), "paused");
    assert!(h.server.is_paused());
    let frozen = h.server.world().tick();
    admin.ask(&mut h, &mut others, "status");
    assert_eq!(h.server.world().tick(), frozen, "paused world stands still");
    assert_eq!(admin.ask(&mut h, &mut others, "resume"), "resumed");
    assert!(!h.server.is_paused());

    // spawn, tp, kill.
    let before = h.server.world().len();
    let spawned = admin.ask(
        &mut h,
        &mut others,
        "spawn builtin:jet-trainer 36.25,-115.0,2500 --faction 2 --heading 90",
    );
    assert!(
        spawned.starts_with("spawned builtin:jet-trainer entity="),
        "{spawned}"
    );
    assert_eq!(h.server.world().len(), before + 1);
    let idx: u32 = spawned
        .split("entity=")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|s| s.parse().ok())
        .expect("entity index in the answer");
    let (_, e) = h.server.world().by_index(idx).expect("spawned entity");
    assert_eq!(e.faction, 2);
    let moved = admin.ask(&mut h, &mut others, &format!("tp {idx} 10,20,4000"));
    assert!(
        moved.starts_with(&format!("moved entity {idx}/")),
        "{moved}"
    );
    let (_, e) = h.server.world().by_index(idx).expect("still there");
    let g = fl_flight::geodetic::from_world(h.server.world().planet(), e.position());
    assert!((g.lat_deg() - 10.0).abs() < 0.01, "{}", g.lat_deg());
    assert!((g.lon_deg() - 20.0).abs() < 0.01, "{}", g.lon_deg());
    assert!((g.alt_m - 4000.0).abs() < 50.0, "{}", g.alt_m);
    let killed = admin.ask(&mut h, &mut others, &format!("kill {idx}"));
    assert!(
        killed.starts_with(&format!("killed entity {idx}/")),
        "{killed}"
    );
    assert_eq!(h.server.world().len(), before);

    // A peer's own aircraft by @peer: teleported, then killed (they respawn later).
    let victim_id = h.server.peers_at(ip(2))[0];
    let moved = admin.ask(
        &mut h,
        &mut others,
        &format!("teleport @{victim_id} 1000 5000 -20"),
    );
    assert!(moved.starts_with("moved entity"), "{moved}");
    let killed = admin.ask(&mut h, &mut others, &format!("kill @{victim_id}"));
    assert!(killed.starts_with("killed entity"), "{killed}");

    // mission without a director shows the state.
    let m = admin.ask(&mut h, &mut others, "mission");
    assert!(m.contains("no missions configured"), "{m}");

    // kick with a reason.
    let kicked = admin.ask(&mut h, &mut others, &format!("kick {victim_id} too loud"));
    assert_eq!(kicked, format!("kicked peer {victim_id}"));
    h.run(10, &mut [&mut admin.client, &mut victim]);
    assert!(
        victim
            .disconnected
            .as_deref()
            .is_some_and(|r| r.ends_with("too loud")),
        "{:?}",
        victim.disconnected
    );
}

#[test]
fn bans_refuse_kick_list_expire_and_lift() {
    let mut h = Harness::new(12, config());
    let mut admin = admin_client(&mut h);
    let mut victim = admitted(&mut h, ip(2));
    let victim_id = h.server.peers_at(ip(2))[0];
    h.server.set_unix_time(1_000_000);

    let answer = admin.ask(
        &mut h,
        &mut [&mut victim],
        &format!("ban {victim_id} 2h griefing"),
    );
    assert_eq!(answer, "banned 127.0.0.2 for 2h; kicked 1 peer(s)");
    h.run(10, &mut [&mut admin.client, &mut victim]);
    assert!(victim.disconnected.is_some());
    let answer = admin.ask(&mut h, &mut [], "ban 10.1.2.3 bot farm");
    assert_eq!(answer, "banned 10.1.2.3 for good; kicked 0 peer(s)");
    let bans = admin.ask(&mut h, &mut [], "bans");
    assert!(bans.starts_with("2 ban(s):"), "{bans}");
    assert!(bans.contains("127.0.0.2 2h left griefing"), "{bans}");
    assert!(bans.contains("10.1.2.3 permanent bot farm"), "{bans}");

    let mut again = h.connect(ip(2), LinkConfig::default());
    h.run(5, &mut [&mut admin.client, &mut again]);
    assert_eq!(
        again.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::Banned)
    );

    // The timed ban ends when the wall clock the runtime hands over passes it.
    h.server.set_unix_time(1_000_000 + 7200);
    let mut back = admitted(&mut h, ip(2));
    let bans = admin.ask(&mut h, &mut [&mut back], "bans");
    assert!(bans.starts_with("1 ban(s):"), "{bans}");
    assert_eq!(
        admin.ask(&mut h, &mut [&mut back], "unban 10.1.2.3"),
        "unbanned 10.1.2.3"
    );
    assert_eq!(admin.ask(&mut h, &mut [&mut back], "bans"), "no bans");
}

#[test]
fn bans_persist_across_a_restart() {
    let dir = std::env::temp_dir().join(format!("fl-admin-bans-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("bans.txt");

    let mut h = Harness::new(13, config());
    h.server
        .set_ban_list(BanList::load(&file).expect("a missing file is an empty list"));
    let mut admin = admin_client(&mut h);
    assert_eq!(
        admin.ask(&mut h, &mut [], "ban 127.0.0.5 cheating"),
        "banned 127.0.0.5 for good; kicked 0 peer(s)"
    );
    let text = std::fs::read_to_string(&file).expect("written");
    assert!(text.contains("127.0.0.5 - cheating"), "{text}");

    // A new server over the same file refuses the address.
    let mut h = Harness::new(14, config());
    h.server.set_ban_list(BanList::load(&file).expect("loads"));
    let mut c = h.connect(ip(5), LinkConfig::default());
    h.run(5, &mut [&mut c]);
    assert_eq!(
        c.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::Banned)
    );

    // A damaged file is an error naming the line, and is left as it was.
    std::fs::write(&file, "127.0.0.5 - ok\nnonsense here\n").expect("write");
    let e = BanList::load(&file).expect_err("damaged");
    assert!(e.to_string().contains("bans.txt:2"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "127.0.0.5 - ok\nnonsense here\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn many_peers_come_back_as_a_chunked_answer() {
    let mut h = Harness::new(15, config());
    let mut admin = admin_client(&mut h);
    let mut crowd: Vec<TestClient> = (10..26).map(|n| admitted(&mut h, ip(n))).collect();
    let mut others: Vec<&mut TestClient> = crowd.iter_mut().collect();
    let text = admin.ask(&mut h, &mut others, "peers");
    assert!(text.starts_with("17 peer(s)"), "{text}");
    assert_eq!(text.lines().count(), 18, "{text}");
    for n in 10..26 {
        assert!(text.contains(&format!("127.0.0.{n}:")), "{n}: {text}");
    }
    let chunks = responses(&admin.client, admin.next_req);
    assert!(chunks.len() >= 2, "{} chunk(s)", chunks.len());
    for (i, m) in chunks.iter().enumerate() {
        let Message::AdminResponseChunk(c) = m else {
            panic!("{m:?}")
        };
        assert_eq!(usize::from(c.seq_num), i);
        assert_eq!(c.flags & CHUNK_FLAG_END != 0, i + 1 == chunks.len());
    }
}

#[test]
fn wrong_tokens_get_no_answer_and_lock_the_address_out() {
    let mut h = Harness::new(16, config());
    let mut c = admitted(&mut h, ip(3));
    // Four failures, then the right token: answered, and the count starts again.
    for req in 0..4u16 {
        send_command(&mut c, req, "wrong", "status");
        h.run(2, &mut [&mut c]);
    }
    send_command(&mut c, 100, TOKEN, "status");
    h.run(5, &mut [&mut c]);
    assert!(reassemble(100, &responses(&c, 100)).is_some());
    assert!(
        (0..4).all(|r| responses(&c, r).is_empty()),
        "no answer to a bad token"
    );
    for req in 0..4u16 {
        send_command(&mut c, 200 + req, "wrong", "status");
        h.run(2, &mut [&mut c]);
    }
    assert!(
        c.disconnected.is_none(),
        "the count was cleared by the success"
    );
    // The fifth consecutive failure kicks and locks the address out.
    send_command(&mut c, 300, "wrong", "status");
    h.run(10, &mut [&mut c]);
    assert!(c.disconnected.is_some());
    let mut again = h.connect(ip(3), LinkConfig::default());
    h.run(5, &mut [&mut again]);
    assert_eq!(
        again.refusal().map(|r| r.code),
        Some(ConnectRefusalCode::AdminLockout)
    );
}

fn notices(c: &TestClient) -> Vec<(u16, String)> {
    c.messages
        .iter()
        .filter_map(|p| match &p.message {
            Message::ServerNotice(n) => Some((n.seconds_remaining, n.text.to_string())),
            _ => None,
        })
        .collect()
}

#[test]
fn shutdown_notices_follow_the_spec_cadence() {
    // Default interval (300 s) over a 90 s countdown: at once, T-60 (always), then 0.
    let mut h = Harness::new(17, config());
    let mut admin = admin_client(&mut h);
    let mut pilot = admitted(&mut h, ip(2));
    let answer = admin.ask(
        &mut h,
        &mut [&mut pilot],
        "shutdown --in 90s --reason patch 1.2",
    );
    assert!(answer.starts_with("shutting down in 1m 30s"), "{answer}");
    let status = admin.ask(&mut h, &mut [&mut pilot], "status");
    assert!(
        status.contains("shutdown in 1m 30s") || status.contains("shutdown in 1m 29s"),
        "{status}"
    );
    let mut ticks = 0;
    while !h.server.shutdown_complete() {
        h.step(&mut [&mut admin.client, &mut pilot]);
        ticks += 1;
        assert!(ticks < 100 * 60, "the countdown did not end");
    }
    h.run(5, &mut [&mut admin.client, &mut pilot]);
    assert_eq!(
        notices(&pilot),
        vec![
            (90, "patch 1.2 -- shutting down in 90 seconds.".to_owned()),
            (60, "patch 1.2 -- shutting down in 1 minute.".to_owned()),
            (0, "patch 1.2 -- shutting down now.".to_owned()),
        ]
    );

    // A set interval: every 20 s from the start; cancel stops it; a long reason is cut to 59
    // bytes on a character boundary.
    let mut h = Harness::new(18, config());
    let mut admin = admin_client(&mut h);
    let reason = "ü".repeat(40);
    admin.ask(
        &mut h,
        &mut [],
        &format!("shutdown --in 50s --interval 20s --reason {reason}"),
    );
    h.run(45 * 60, &mut [&mut admin.client]);
    let seen = notices(&admin.client);
    let secs: Vec<u16> = seen.iter().map(|n| n.0).collect();
    assert_eq!(secs, vec![50, 30, 10]);
    assert!(
        seen.iter()
            .all(|n| n.1.len() <= 59 && n.1.starts_with("üü")),
        "{seen:?}"
    );
    assert_eq!(
        admin.ask(&mut h, &mut [], "shutdown cancel"),
        "shutdown cancelled"
    );
    h.run(10 * 60, &mut [&mut admin.client]);
    assert!(!h.server.shutdown_complete());
    assert_eq!(h.server.shutdown_remaining_s(), None);
    let after: Vec<u16> = notices(&admin.client).iter().map(|n| n.0).collect();
    assert_eq!(
        after.len(),
        4,
        "only the cancel notice was added: {after:?}"
    );

    // --now: one notice of 0, done at once.
    admin.ask(&mut h, &mut [], "shutdown --now");
    assert!(h.server.shutdown_complete());
    assert_eq!(notices(&admin.client).last().map(|n| n.0), Some(0));
}

#[test]
fn the_binary_reads_commands_from_stdin_and_survives_its_end() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    let dir = std::env::temp_dir().join(format!("fl-admin-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut child = process::Owned::new(
        Command::new(env!("CARGO_BIN_EXE_fl-server"))
            .args([
                "--config",
                "server.toml",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
            ])
            .args(["--data-dir", "data", "--workers", "1"])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fl-server starts"),
    );
    let rx = process::stdout_lines(&mut child);
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no {what} line within a minute"))
    };
    let listening = next("listening");
    assert!(
        listening.starts_with("listening on 127.0.0.1:"),
        "{listening}"
    );

    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"status\nfrobnicate\n\npause\n")
        .expect("write commands");
    stdin.flush().expect("flush");
    let status = next("status");
    assert!(
        status.starts_with("tick ") && status.contains("peers 0"),
        "{status}"
    );
    let unknown = next("unknown");
    assert_eq!(unknown, "unknown command: frobnicate; try help");
    assert_eq!(next("pause"), "paused");

    // EOF on stdin ends the console, not the server.
    drop(stdin);
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        child.try_wait().expect("wait").is_none(),
        "fl-server exited when stdin closed"
    );
    let exit = process::terminate(&mut child, Duration::from_secs(15));
    assert!(exit.success(), "{exit:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_binary_stops_itself_after_a_shutdown_from_stdin() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = std::env::temp_dir().join(format!("fl-admin-bin2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("server.toml"),
        "[admission]\nban_file = \"state/bans.txt\"\n",
    )
    .expect("config");
    let mut child = process::Owned::new(
        Command::new(env!("CARGO_BIN_EXE_fl-server"))
            .args([
                "--config",
                "server.toml",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
            ])
            .args(["--data-dir", "data", "--workers", "1"])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fl-server starts"),
    );
    let rx = process::stdout_lines(&mut child);
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no {what} line within a minute"))
    };
    assert!(next("listening").starts_with("listening on "));
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"ban 10.9.8.7 2d spam\nshutdown --in 1s\n")
        .expect("write");
    stdin.flush().expect("flush");
    assert_eq!(next("ban"), "banned 10.9.8.7 for 2d; kicked 0 peer(s)");
    assert!(next("shutdown").starts_with("shutting down in 1s"));
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "fl-server did not stop after its countdown"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
    let bans = std::fs::read_to_string(dir.join("state/bans.txt")).expect("ban file written");
    assert!(
        bans.contains("10.9.8.7 ") && bans.contains(" spam"),
        "{bans}"
    );

    // A damaged ban file stops the next start, naming the line, and is left alone.
    std::fs::write(dir.join("state/bans.txt"), "10.9.8.7 - spam\n???\n").expect("write");
    let mut bad = process::Owned::new(
        Command::new(env!("CARGO_BIN_EXE_fl-server"))
            .args([
                "--config",
                "server.toml",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
            ])
            .args(["--data-dir", "data", "--workers", "1"])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = bad.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = bad.kill();
            let _ = bad.wait();
            panic!("fl-server started over a damaged ban file");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut bad.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert!(err.contains("bans.txt:2"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("state/bans.txt")).expect("read"),
        "10.9.8.7 - spam\n???\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mission_switches_between_the_configured_missions() {
    use fl_server::mission_director::{DirectorEvent, MissionDirector, OnEnd};
    const DOGFIGHT: &str = "fl-base-pack:ia_dogfight";
    const GUNNERY: &str = "fl-base-pack:f5e_gunnery";
    let Some(content) = common::fixture_content("admin mission switching") else {
        return;
    };
    let types = fl_server::types::TypeRegistry::from_content(&content, 1);
    let mut h = Harness::with_types(19, config(), types);
    let missions = [DOGFIGHT, GUNNERY]
        .iter()
        .map(|id| content.load_mission(id).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut d = MissionDirector::new(missions, OnEnd::Restart, 30, 1);
    d.start(&mut h.server).expect("starts");
    // An operator connection needs no aircraft.
    let mut admin = Admin {
        client: h.connect(ip(1), LinkConfig::default()),
        next_req: 0,
    };
    h.run(3, &mut [&mut admin.client]);

    let shown = admin.ask(&mut h, &mut [], "mission");
    assert!(
        shown.contains(&format!("mission: {DOGFIGHT} (running)")),
        "{shown}"
    );
    assert!(shown.contains(GUNNERY), "{shown}");
    let refused = admin.ask(&mut h, &mut [], "map fl-base-pack:nope");
    assert!(refused.contains("is not configured"), "{refused}");
    assert_eq!(
        admin.ask(&mut h, &mut [], &format!("mission {GUNNERY}")),
        format!("mission: switching to {GUNNERY} after this tick")
    );
    // The director (the runtime's after-tick hook) carries it out.
    let events = d.after_tick(&mut h.server);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, DirectorEvent::Started { id, .. } if id == GUNNERY)),
        "{events:?}"
    );
    assert_eq!(
        h.server.mission_status().map(|m| m.id),
        Some(GUNNERY.into())
    );
    admin.ask(&mut h, &mut [], "mission next");
    d.after_tick(&mut h.server);
    assert_eq!(
        h.server.mission_status().map(|m| m.id),
        Some(DOGFIGHT.into())
    );
    let status = admin.ask(&mut h, &mut [], "status");
    assert!(
        status.contains(&format!("mission {DOGFIGHT} (running)")),
        "{status}"
    );
}
