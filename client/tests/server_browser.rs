//! The server browser (issue 15, "finding a server") on loopback only, never on the fixed
//! discovery port: every listener binds `127.0.0.1:0` and the servers' beacons are pointed at
//! it.
//!
//! - a real `fl-server` binary (`--port 0`, the beacon enabled by its config file) is found by
//!   the client's LAN listener and queried for its details;
//! - the Join screen (egui_kittest) lists a LAN server heard from a real beacon and its Join
//!   button (and a double-click) produces the Connect event;
//! - hostile beacons (absurd fields, garbage names, wrong version, truncated) are dropped or
//!   cleaned, and a flood of distinct fake servers stays bounded.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use fighters_legacy::browser::lan::{MAX_SERVERS_PER_SOURCE, UNNAMED};
use fighters_legacy::browser::{BrowserConfig, Origin, ServerBrowser};
use fighters_legacy::screens::{Effect, Event, Screen, Screens, SessionKind};
use fighters_legacy::settings::GameSettings;
use fighters_legacy::ui::{UiState, show};
use fl_protocol::ids::PROTOCOL_VERSION;
use fl_protocol::msg::discovery::LanBeacon;
use fl_protocol::{FixedStr, Message};
use fl_server::discovery::{Discovery, DiscoveryConfig, ServerFacts};

fn loopback_any() -> SocketAddr {
    "127.0.0.1:0".parse().expect("addr")
}

/// The newest modification time of the `.rs` files under `dir`.
fn newest_source(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() {
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs") {
            entry.metadata().and_then(|m| m.modified()).ok()
        } else {
            None
        };
        newest = newest.max(t);
    }
    newest
}

/// The `fl-server` binary of this build. `cargo test --workspace` builds it beside the tests,
/// and it is used as it is; only when it is missing or older than the engine's sources (this
/// crate's tests run alone after a change) is it built here — a nested build of one package
/// may resolve features differently and rebuild dependencies, so it never runs needlessly.
fn fl_server_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    // <target>/<profile>/deps/<test> → <target>/<profile>
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("profile dir")
        .to_path_buf();
    let bin = profile_dir.join(format!("fl-server{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&bin).and_then(|m| m.modified()).ok();
    let engine = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine");
    if built.is_some() && built >= newest_source(&engine) {
        return bin;
    }
    let target_dir = profile_dir.parent().expect("target dir").to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "fl-server", "--bin", "fl-server"])
        .arg("--target-dir")
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("cargo runs");
    assert!(status.success(), "building fl-server failed");
    assert!(bin.exists(), "no {}", bin.display());
    bin
}

/// A spawned server, killed when dropped.
struct ServerProcess {
    child: Child,
    _dir: tempfile::TempDir,
    game_addr: SocketAddr,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_server(name: &str, beacon_target: SocketAddr) -> ServerProcess {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.toml"),
        format!(
            "[server]\nname = \"{name}\"\n\n[discovery]\nbeacon_enabled = true\n\
             beacon_target = \"{beacon_target}\"\nbeacon_interval_ms = 200\n"
        ),
    )
    .expect("config written");
    let mut child = Command::new(fl_server_binary())
        .args(["--config", "server.toml", "--data-dir", "data"])
        .args(["--bind", "127.0.0.1", "--port", "0", "--workers", "1"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fl-server starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("a listening line");
    let game_addr: SocketAddr = line
        .strip_prefix("listening on ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("not a listening line: {line}"));
    ServerProcess {
        child,
        _dir: dir,
        game_addr,
    }
}

#[test]
fn a_real_server_is_found_on_the_lan_and_queried_without_joining() {
    let mut browser = ServerBrowser::start(BrowserConfig {
        lan_bind: Some(loopback_any()),
    });
    let listener = browser.lan_addr().expect("listening");
    let server = spawn_server("Browser Test Field", listener);
    let deadline = Instant::now() + Duration::from_secs(60);
    let row = loop {
        browser.poll(Instant::now(), false);
        let rows = browser.rows(Instant::now());
        if let Some(r) = rows.iter().find(|r| r.details.is_some()) {
            break r.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no answered LAN row within a minute: {rows:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(row.origin, Origin::Lan);
    assert_eq!(row.address, server.game_addr.to_string());
    let d = row.details.expect("details");
    assert_eq!(d.name, "Browser Test Field");
    assert_eq!(d.game_port, server.game_addr.port());
    assert_eq!(d.player_count, 0);
    assert!(d.max_players > 0);
    assert!(!d.passworded && !d.shutting_down);
    assert_eq!(d.build.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    assert!(d.ping < Duration::from_secs(2), "ping {:?}", d.ping);
    eprintln!("found {} at {}, ping {:?}", d.name, row.address, d.ping);
}

#[test]
fn the_embedded_single_player_server_answers_no_queries() {
    use fighters_legacy::browser::QueryClient;
    use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
    let server = LocalServer::start(LocalServerConfig::default(), Duration::from_secs(60))
        .expect("the local server starts");
    let game = server.info().expect("ready").addr;
    let mut q = QueryClient::new();
    let t0 = Instant::now();
    let targets = [
        SocketAddr::new(game.ip(), game.port().wrapping_add(1)),
        game,
    ];
    for t in targets {
        assert!(q.query(t, t0, false));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while q.pending() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        q.poll(Instant::now());
    }
    for t in targets {
        let st = q.status(t).expect("asked");
        assert!(st.details.is_none() && st.no_reply, "{t}: {st:?}");
    }
    server.stop();
}

/// What the window keeps (as in `ui_nav.rs`).
struct Game {
    screens: Screens,
    ui: UiState,
    effects: Vec<Effect>,
}

impl Game {
    fn apply(&mut self, events: Vec<Event>) {
        for e in events {
            self.effects.extend(self.screens.handle(e));
        }
    }
}

fn harness() -> Harness<'static, Game> {
    let mut ui = UiState::new(GameSettings::default());
    ui.browser_config = BrowserConfig {
        lan_bind: Some(loopback_any()),
    };
    let mut game = Game {
        screens: Screens::new(),
        ui,
        effects: Vec::new(),
    };
    game.apply(vec![Event::OpenJoin]);
    Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        // Frames 1/60 s apart (kittest's default is 1/4 s: two clicks would be too slow to
        // make a double click).
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(
            |ui, g: &mut Game| {
                let events = show(ui.ctx(), &g.screens, &mut g.ui);
                g.apply(events);
            },
            game,
        )
}

/// Steps frames (the browser polls each one) until `label` shows.
fn wait_for(h: &mut Harness<'_, Game>, label: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while h.query_by_label_contains(label).is_none() {
        assert!(Instant::now() < deadline, "{label:?} never showed");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run();
}

fn picture(h: &mut Harness<'_, Game>, name: &str) {
    match h.render() {
        Ok(img) => {
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("server-browser");
            std::fs::create_dir_all(&dir).expect("tmp dir");
            let path = dir.join(format!("{name}.png"));
            img.save(&path).expect("png written");
            eprintln!("rendered {}", path.display());
        }
        Err(e) => eprintln!("not rendered ({name}): {e}"),
    }
}

#[test]
fn the_join_screen_lists_a_lan_server_and_joins_it() {
    let mut h = harness();
    h.run();
    assert_eq!(h.state().screens.current(), Screen::Join);
    let listener = h
        .state()
        .ui
        .browser
        .as_ref()
        .and_then(|b| b.lan_addr())
        .expect("the browser listens while the Join screen is up");
    // A real beacon (and a real query responder) from the server's discovery code.
    let facts = Arc::new(Mutex::new(ServerFacts {
        name: "Nellis Range".into(),
        game_port: 4778,
        player_count: 3,
        max_players: 16,
        mission: "fl-base-pack:ia_dogfight".into(),
        build: "0.1.0".into(),
        game_mode_flags: fl_protocol::enums::game_mode::PASSWORDED,
        ..ServerFacts::default()
    }));
    let discovery = Discovery::start(
        DiscoveryConfig {
            beacon_enabled: true,
            beacon_target: listener,
            beacon_interval: Duration::from_millis(100),
            query_bind: loopback_any(),
            query_fallback: false,
            ..DiscoveryConfig::default()
        },
        facts,
    )
    .expect("discovery");
    wait_for(&mut h, "Nellis Range");
    wait_for(&mut h, "3/16");
    wait_for(&mut h, "build 0.1.0");
    assert!(h.query_by_label_contains("password").is_some());
    for column in [
        "Favourite",
        "Server",
        "From",
        "Map / mission",
        "Players",
        "Ping",
    ] {
        assert!(h.query_by_label(column).is_some(), "{column} column");
    }
    assert!(
        h.query_by_label("LAN").is_some(),
        "the row says where it came from"
    );
    assert!(
        h.query_by_label_contains("fl-base-pack:ia_dogfight")
            .is_some()
    );
    picture(&mut h, "lan-server-listed");

    h.get_by_label("Nellis Range").click();
    h.run();
    picture(&mut h, "lan-server-selected");
    h.get_by_label("Join").click();
    h.run();
    assert_eq!(
        h.state().effects,
        [Effect::StartSession(SessionKind::Multiplayer {
            address: "127.0.0.1:4778".into()
        })]
    );
    assert_eq!(h.state().screens.current(), Screen::Loading);
    h.run();
    assert!(
        h.state().ui.browser.is_none(),
        "the LAN listener closes with the Join screen"
    );
    drop(discovery);
}

#[test]
fn a_double_click_joins_and_favourites_are_listed_and_saved() {
    let mut h = harness();
    // A favourite on loopback whose query port (game port + 1) is a silent socket here.
    let silent = UdpSocket::bind(loopback_any()).expect("bind");
    let favourite = format!(
        "127.0.0.1:{}",
        silent.local_addr().expect("addr").port() - 1
    );
    h.state_mut().ui.settings.player.favourite_servers = vec![favourite.clone()];
    h.run();
    wait_for(&mut h, &favourite);
    let mut buf = [0u8; 512];
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let (n, _) = silent
        .recv_from(&mut buf)
        .expect("the favourite is queried");
    assert_eq!(n, 208);
    // Its Remove button takes it off the list (and asks the window to save).
    h.get_by_label("Remove").click();
    h.run();
    assert!(h.state().ui.settings.player.favourite_servers.is_empty());
    assert_eq!(h.state().effects, [Effect::SaveSettings]);
    h.state_mut().effects.clear();

    let listener = h
        .state()
        .ui
        .browser
        .as_ref()
        .and_then(|b| b.lan_addr())
        .expect("listening");
    let tx = UdpSocket::bind(loopback_any()).expect("bind");
    tx.send_to(&beacon_bytes("Double Click", 4800, 0, 8), listener)
        .expect("sent");
    wait_for(&mut h, "Double Click");
    // Half a second after the Remove click (else the next two would count as a triple click),
    // two clicks a frame apart: a double click.
    for _ in 0..30 {
        h.step();
    }
    h.get_by_label("Double Click").click();
    h.step();
    h.get_by_label("Double Click").click();
    h.step();
    h.run();
    assert_eq!(
        h.state().effects,
        [Effect::StartSession(SessionKind::Multiplayer {
            address: "127.0.0.1:4800".into()
        })]
    );
}

fn beacon(name: &str, port: u16, players: u8, max: u8) -> LanBeacon {
    LanBeacon {
        protocol_version: PROTOCOL_VERSION,
        game_port: port,
        player_count: players,
        max_players: max,
        game_mode_flags: 0,
        shutdown_seconds: 0,
        query_port: 0,
        name: FixedStr::new(name),
        build: Some(FixedStr::new("0.1.0")),
    }
}

fn beacon_bytes(name: &str, port: u16, players: u8, max: u8) -> Vec<u8> {
    Message::from(beacon(name, port, players, max))
        .encode()
        .expect("encodes")
}

#[test]
fn hostile_beacons_are_dropped_or_cleaned_and_a_flood_stays_bounded() {
    let mut browser = ServerBrowser::start(BrowserConfig {
        lan_bind: Some(loopback_any()),
    });
    let to = browser.lan_addr().expect("listening");
    let tx = UdpSocket::bind(loopback_any()).expect("bind");
    let send = |b: &[u8]| {
        tx.send_to(b, to).expect("sent");
    };
    send(&beacon_bytes("Too Many", 4778, 255, 4));
    send(&beacon_bytes("No Port", 0, 1, 4));
    let mut wrong_version = beacon_bytes("Wrong Version", 4778, 1, 4);
    wrong_version[2] ^= 0x55;
    send(&wrong_version);
    send(&beacon_bytes("Truncated", 4778, 1, 4)[..60]);
    let mut garbage = beacon_bytes("", 4790, 1, 4);
    for (i, b) in garbage[14..78].iter_mut().enumerate() {
        *b = [0xFE, 0x01, 0x9B, 0x7F, 0xE2, 0x80, 0xAE, b'Z'][i % 8];
    }
    send(&garbage);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut dropped = 0;
    while (browser.rows(Instant::now()).is_empty() || dropped < 4) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        browser.poll(Instant::now(), false);
        dropped = browser.lan().map_or(0, |l| l.dropped());
    }
    let rows = browser.rows(Instant::now());
    assert_eq!(
        rows.len(),
        1,
        "only the garbage-named beacon is kept: {rows:?}"
    );
    assert_eq!(dropped, 4);
    let name = &rows[0].name;
    assert!(!name.chars().any(char::is_control), "{name:?}");
    assert!(!name.contains('\u{202E}'), "no bidi overrides: {name:?}");
    assert!(name.contains('Z') && name != UNNAMED, "{name:?}");
    assert_eq!(rows[0].beacon_players, Some((1, 4)));

    // A flood of distinct fake servers from one host.
    let before = browser.lan().map_or(0, |l| l.dropped());
    for i in 0..2000u16 {
        send(&beacon_bytes(&format!("flood {i}"), 10_000 + i, 0, 4));
        if i % 16 == 0 {
            browser.poll(Instant::now(), false);
        }
    }
    for _ in 0..20 {
        browser.poll(Instant::now(), false);
        std::thread::sleep(Duration::from_millis(5));
    }
    let n = browser.rows(Instant::now()).len();
    let refused = browser.lan().map_or(0, |l| l.dropped()) - before;
    eprintln!("flood: {n} rows kept, {refused} beacons refused");
    assert_eq!(n, MAX_SERVERS_PER_SOURCE, "one host's share of the list");
    assert!(refused > 100, "{refused}");
}
