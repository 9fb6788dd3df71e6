//! Playing together on the real path: the game's sessions joined over QUIC on 127.0.0.1 to a
//! real server thread, as two players' clients would be. Names come from the roster, a chat
//! line is echoed to its sender and reaches the other player, a team line stays in its team,
//! the scoreboard and the match state arrive, the operator console's long answer is reassembled
//! from its chunks, a team switch the balance allows reaches everyone's roster, and a player
//! whose connection dropped gets their team back on rejoining (where a stranger would not).
//! A few seconds in all; loopback only.

use fighters_legacy::local_server::{LocalServer, LocalServerConfig, LocalServerInfo};
use fighters_legacy::session::{ClientSession, SessionConfig, SessionEvent, SessionState};
use fl_net::quic::TrustPolicy;
use fl_protocol::enums::ChatChannel;
use fl_server::server::ServerConfig;
use std::time::{Duration, Instant};

const OPERATOR: &str = "op-secret";

fn server() -> (LocalServer, LocalServerInfo) {
    let server = LocalServer::start(
        LocalServerConfig {
            server: ServerConfig {
                operator_password: Some(OPERATOR.into()),
                motd: String::new(),
                ..ServerConfig::default()
            },
            ..LocalServerConfig::default()
        },
        Duration::from_secs(30),
    )
    .expect("the server starts");
    let info = server.info().expect("ready");
    (server, info)
}

fn join(info: &LocalServerInfo, callsign: &str, identity: &str) -> ClientSession {
    ClientSession::connect_quic(
        info.addr,
        "localhost",
        TrustPolicy::Pinned(info.fingerprint),
        SessionConfig {
            callsign: callsign.into(),
            identity: Some(identity.into()),
            ..SessionConfig::default()
        },
        Duration::ZERO,
    )
    .expect("connect")
}

/// Services every session in real time until `done` holds (at most `limit`); false if it never
/// did.
fn drive(
    sessions: &mut [&mut ClientSession],
    started: Instant,
    limit: Duration,
    mut done: impl FnMut(&[&mut ClientSession]) -> bool,
) -> bool {
    let end = Instant::now() + limit;
    let mut ev: Vec<SessionEvent> = Vec::new();
    loop {
        for s in sessions.iter_mut() {
            ev.clear();
            s.update(started.elapsed(), &mut ev);
        }
        if done(sessions) {
            return true;
        }
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn saw_chat(s: &ClientSession, from: &str, text: &str) -> bool {
    s.social()
        .chat()
        .any(|l| l.sender_name == from && l.text == text)
}

#[test]
fn two_players_see_each_other_talk_keep_score_and_rejoin_their_team() {
    let (_server, info) = server();
    let started = Instant::now();
    let mut a = join(&info, "Viper", "id-viper");
    let mut b = join(&info, "Goose", "id-goose");

    // Both in the world, each roster naming both players.
    assert!(
        drive(
            &mut [&mut a, &mut b],
            started,
            Duration::from_secs(20),
            |s| {
                s.iter().all(|s| {
                    s.state() == SessionState::InWorld
                        && s.social().roster().values().filter(|p| !p.bot).count() == 2
                })
            }
        ),
        "both players in the roster: a {:?}, b {:?}",
        a.social().roster(),
        b.social().roster()
    );
    let a_id = a.social().own_id().expect("a's id");
    let b_id = b.social().own_id().expect("b's id");
    assert_eq!(b.social().callsign(a_id), Some("Viper"));
    assert_eq!(a.social().callsign(b_id), Some("Goose"));
    let a_team = a.social().own_faction().expect("a's team");
    let b_team = b.social().own_faction().expect("b's team");
    assert_ne!(a_team, b_team, "the second player balances the teams");

    // All chat: the sender's echo and the other player both show it, named from the roster.
    a.send_chat(ChatChannel::All, "hello everyone")
        .expect("sent");
    assert!(
        drive(
            &mut [&mut a, &mut b],
            started,
            Duration::from_secs(10),
            |s| {
                saw_chat(s[0], "Viper", "hello everyone")
                    && saw_chat(s[1], "Viper", "hello everyone")
            }
        ),
        "the All line reached both"
    );
    // Team chat stays in the team: the sender's echo arrives, the other team never hears it.
    b.send_chat(ChatChannel::Team, "blue is weak")
        .expect("sent");
    b.send_chat(ChatChannel::All, "marker").expect("sent");
    assert!(drive(
        &mut [&mut a, &mut b],
        started,
        Duration::from_secs(10),
        |s| saw_chat(s[0], "Goose", "marker") && saw_chat(s[1], "Goose", "blue is weak")
    ));
    assert!(
        !saw_chat(&a, "Goose", "blue is weak"),
        "a team line reached the other team"
    );

    // The scoreboard (every ~2 s) lists both; the match state names the teams.
    assert!(
        drive(
            &mut [&mut a, &mut b],
            started,
            Duration::from_secs(10),
            |s| {
                s.iter().all(|s| {
                    let rows = s.social().scoreboard();
                    rows.iter().any(|r| r.participant_id == a_id)
                        && rows.iter().any(|r| r.participant_id == b_id)
                        && s.social().match_info().is_some()
                })
            }
        ),
        "scoreboard and match state"
    );

    // The operator console: `help` is longer than one response and arrives in chunks, put
    // back together; a wrong token gets no answer at all.
    a.send_admin("wrong", "status").expect("sent");
    a.send_admin(OPERATOR, "help").expect("sent");
    assert!(
        drive(
            &mut [&mut a, &mut b],
            started,
            Duration::from_secs(10),
            |s| {
                s[0].social()
                    .console()
                    .lines()
                    .any(|l| l.text.starts_with("shutdown"))
            }
        ),
        "the help text's last command: {:?}",
        a.social()
            .console()
            .lines()
            .map(|l| &l.text)
            .collect::<Vec<_>>()
    );
    let console: Vec<&str> = a
        .social()
        .console()
        .lines()
        .map(|l| l.text.as_str())
        .collect();
    assert!(console.iter().any(|l| l.starts_with("kick")), "{console:?}");
    assert!(
        !console.iter().any(|l| l.starts_with("tick ")),
        "the wrong token's `status` was answered: {console:?}"
    );

    // Which of the two joined first is a race; the teams are by faction index: a tie goes to
    // the lower one.
    let (low, high) = (a_team.min(b_team), a_team.max(b_team));
    let (mut stay, mut away, away_name, away_identity, away_id) = if a_team == high {
        (b, a, "Viper", "id-viper", a_id)
    } else {
        (a, b, "Goose", "id-goose", b_id)
    };

    // A third player: with even teams the lower is taken. Iceman asks to switch to the other
    // team, which the balance allows (2 against 1).
    let mut c = join(&info, "Iceman", "id-iceman");
    assert!(drive(
        &mut [&mut stay, &mut away, &mut c],
        started,
        Duration::from_secs(20),
        |s| s[2].state() == SessionState::InWorld && s[2].social().own_faction().is_some()
    ));
    assert_eq!(c.social().own_faction(), Some(low));
    c.send_team_request(high).expect("sent");
    assert!(
        drive(
            &mut [&mut stay, &mut away, &mut c],
            started,
            Duration::from_secs(10),
            |s| {
                s[2].social().own_faction() == Some(high)
                    && s[0]
                        .social()
                        .roster()
                        .values()
                        .any(|p| p.callsign == "Iceman" && p.faction_index == high)
            }
        ),
        "the team switch reached the roster"
    );

    // The player on the higher team drops: the teams are even again, so a fresh join would
    // take the lower team; rejoining with the same identity within the grace gives the
    // player their own team back.
    away.disconnect("network went away");
    drop(away);
    assert!(drive(
        &mut [&mut stay, &mut c],
        started,
        Duration::from_secs(10),
        |s| !s[0].social().roster().contains_key(&away_id)
    ));
    let mut back = join(&info, away_name, away_identity);
    assert!(
        drive(
            &mut [&mut stay, &mut c, &mut back],
            started,
            Duration::from_secs(20),
            |s| s[2].state() == SessionState::InWorld && s[2].social().own_faction().is_some()
        ),
        "rejoined"
    );
    assert_eq!(
        back.social().own_faction(),
        Some(high),
        "the grace record gave the team back"
    );
    assert!(drive(
        &mut [&mut stay, &mut c, &mut back],
        started,
        Duration::from_secs(10),
        |s| s[0]
            .social()
            .roster()
            .values()
            .any(|p| p.callsign == away_name && p.faction_index == high)
    ));

    // A stranger (no identity to match) joining now is balanced onto the lower team.
    let mut d = join(&info, "Jester", "id-jester");
    assert!(drive(
        &mut [&mut stay, &mut c, &mut back, &mut d],
        started,
        Duration::from_secs(20),
        |s| s[3].state() == SessionState::InWorld && s[3].social().own_faction().is_some()
    ));
    assert_eq!(d.social().own_faction(), Some(low));
}
