//! `fl-server`: the dedicated server. Reads `server.toml` (writing commented defaults when it is
//! missing), applies environment and command-line overrides, loads content, binds QUIC, runs the
//! authoritative world at 60 Hz, and shuts down gracefully on SIGINT/SIGTERM (peers get a
//! shutdown notice). Prints `listening on <addr>:<port> …` only once it is ready. Reads admin
//! commands from stdin, one a line, answering on stdout (EOF only ends the console).

use anyhow::{Context, Result};
use clap::Parser;
use fl_content::{Finding, Severity, StackSources, load_stack, log_loaded};
use fl_net::quic::{QuicError, QuicServer, ServerConfig as QuicConfig};
use fl_server::admin::bans::BanList;
use fl_server::config_file::{ConfigError, FileConfig, load_or_create};
use fl_server::discovery::{Discovery, ServerFacts};
use fl_server::mission_director::MissionDirector;
use fl_server::runtime::{AdminClient, Command, RuntimeConfig, spawn_hooked};
use fl_server::server::Server;
use fl_server::types::TypeRegistry;
use fl_server::world::Pilot;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// The fighters-legacy dedicated server.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Configuration file (written with commented defaults when missing).
    #[arg(long, default_value = "server.toml")]
    config: PathBuf,
    /// Address to listen on (overrides [server] bind and FL_SERVER_BIND).
    #[arg(long)]
    bind: Option<IpAddr>,
    /// Port (overrides [server] port and FL_SERVER_PORT; 0 = any free port).
    #[arg(long)]
    port: Option<u16>,
    /// Directory of the server's persistent TLS identity.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Write tick and traffic metrics to this JSON file every second.
    #[arg(long)]
    metrics_json: Option<PathBuf>,
    /// A mods directory to scan (repeatable; replaces [content] mods_dirs).
    #[arg(long = "mods")]
    mods_dirs: Vec<PathBuf>,
    /// A content pack directory to load directly (repeatable; adds to [content] packs).
    #[arg(long = "pack")]
    packs: Vec<PathBuf>,
    /// Simulation worker threads (0 = one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// AI aircraft to spawn at start (overrides [world] ai_aircraft).
    #[arg(long)]
    ai: Option<usize>,
    /// Where pilots appear: `LAT,LON[,ALTITUDE_M[,HEADING_DEG]]` (degrees north and east,
    /// geodetic metres, compass degrees; overrides [spawn]), e.g. `36.24917,-114.99611,3000,270`.
    #[arg(long, allow_hyphen_values = true)]
    spawn: Option<String>,
    /// Run this mission (`<pack id>:<file stem>`, e.g. fl-base-pack:ia_dogfight; replaces
    /// [mission] file and rotation). What happens when it ends: [mission] on_end.
    #[arg(long, value_name = "PACK:STEM")]
    mission: Option<String>,
    /// Load the configuration and the content stack, print every finding
    /// (`file:line: error|warning: key: message`) and a summary, and exit: 1 on any error, 0
    /// otherwise. Binds nothing and writes nothing.
    #[arg(long)]
    check: bool,
    /// Do not read admin commands from stdin. For a server put in the background of an
    /// interactive shell (`fl-server &`), where reading the terminal would stop the process;
    /// closed or redirected stdin (systemd, nohup, `< /dev/null`) needs nothing.
    #[arg(long)]
    no_console: bool,
    /// Serve the status page, its JSON API and Prometheus metrics on this address (overrides
    /// [http] bind; e.g. 127.0.0.1:8080, port 0 = any free port).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Log format: `text` (default) or `json` (one object per line, for a log collector;
    /// overrides FL_LOG_FORMAT).
    #[arg(long, value_name = "FORMAT", value_parser = parse_log_format)]
    log_format: Option<fl_server::logging::LogFormat>,
}

fn parse_log_format(s: &str) -> Result<fl_server::logging::LogFormat, String> {
    fl_server::logging::LogFormat::parse(s).ok_or_else(|| format!("{s:?} is not text or json"))
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if args.check {
        // The report goes to stdout; the log stays quiet unless asked for.
        fl_server::logging::init("warn");
        return match check(&args) {
            Ok(true) => std::process::ExitCode::SUCCESS,
            Ok(false) => std::process::ExitCode::FAILURE,
            Err(e) => {
                eprintln!("fl-server: {e:#}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    match args.log_format {
        Some(f) => fl_server::logging::init_with("info", f),
        None => fl_server::logging::init("info"),
    }
    match run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fl-server: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A QUIC bind failure as a person can act on it: the address, the cause once, and for a port
/// in use what to change.
fn quic_bind_error(err: QuicError) -> anyhow::Error {
    match &err {
        QuicError::Bind { addr, source } if source.kind() == std::io::ErrorKind::AddrInUse => {
            anyhow::anyhow!(
                "cannot bind UDP {addr}: {source} — another program (another fl-server?) is \
                 using that port; choose another port with --port (or [server] port in the \
                 configuration file)"
            )
        }
        _ => anyhow::Error::new(err).context("binding the QUIC endpoint"),
    }
}

fn write_atomically(path: &PathBuf, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// The configuration with the environment and the command line applied.
fn configure(mut file: FileConfig, args: &Args) -> Result<FileConfig> {
    file.apply_env(|k| std::env::var(k).ok())?;
    if let Some(b) = args.bind {
        file.server.bind = b.to_string();
    }
    if let Some(p) = args.port {
        file.server.port = p;
    }
    if let Some(d) = &args.data_dir {
        file.server.data_dir = d.clone();
    }
    if !args.mods_dirs.is_empty() {
        file.content.mods_dirs = args.mods_dirs.clone();
    }
    file.content.packs.extend(args.packs.iter().cloned());
    if let Some(w) = args.workers {
        file.world.sim_worker_threads = w;
    }
    if let Some(n) = args.ai {
        file.world.ai_aircraft = n;
    }
    if let Some(spawn) = &args.spawn {
        file.spawn.apply_arg(spawn).map_err(anyhow::Error::msg)?;
        file.spawn.check(&args.config)?;
    }
    if let Some(id) = &args.mission {
        file.mission.file = id.clone();
        file.mission.rotation.clear();
    }
    Ok(file)
}

fn stack_sources(file: &FileConfig) -> StackSources {
    StackSources {
        mods_dirs: file.content.mods_dirs.clone(),
        pack_dirs: file.content.packs.clone(),
    }
}

/// A configuration error as a finding: a TOML syntax error with its line and what to change, a
/// refused value with its key.
fn config_finding(path: &std::path::Path, e: &ConfigError) -> Finding {
    let (line, key, message) = match e {
        ConfigError::Parse { message, .. } => {
            // toml's text: "TOML parse error at line N, column C\n  |\n…\n<what>".
            let line = message
                .split_once("at line ")
                .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let what = message.lines().rev().find(|l| !l.trim().is_empty());
            let what = what.unwrap_or(message).trim();
            // serde's refusals of a well-formed value come through the same text.
            let semantic = [
                "invalid type",
                "invalid value",
                "missing field",
                "unknown variant",
            ]
            .iter()
            .any(|p| what.starts_with(p));
            let message = if semantic {
                what.to_owned()
            } else {
                fl_content::findings::syntax_message(what)
            };
            (line, String::new(), message)
        }
        ConfigError::Invalid { key, problem, .. } => (0, (*key).to_owned(), problem.clone()),
        other => (0, String::new(), format!("{other:#}")),
    };
    Finding {
        severity: Severity::Error,
        file: path.to_owned(),
        line,
        key,
        message,
    }
}

/// `--check`: the configuration (read, never written) and the content stack, reported on
/// stdout in the findings format. `Ok(false)` when anything is an error.
fn check(args: &Args) -> Result<bool> {
    let (file, unknown_keys) = if args.config.exists() {
        let text = std::fs::read_to_string(&args.config)
            .with_context(|| format!("reading {}", args.config.display()))?;
        match fl_server::config_file::parse(&args.config, &text) {
            Ok(parsed) => parsed,
            Err(e) => {
                println!("{}", config_finding(&args.config, &e));
                println!("fl-server --check: 1 error(s), 0 warning(s); content not checked");
                return Ok(false);
            }
        }
    } else {
        println!(
            "{}: not found; checking the defaults (a running server writes this file)",
            args.config.display()
        );
        (FileConfig::default(), Vec::new())
    };
    let file = configure(file, args)?;
    let load = load_stack(&stack_sources(&file));
    let mut findings = load.findings;
    // The configuration's own findings count like the content's.
    findings
        .items
        .extend(unknown_keys.into_iter().map(|key| Finding {
            severity: Severity::Warning,
            file: args.config.clone(),
            line: 0,
            key,
            message: "unknown key (ignored)".into(),
        }));
    if let Some(content) = &load.content
        && let Err(e) = content.aircraft_type(&file.world.player_entity_type)
    {
        findings.items.push(Finding {
            severity: Severity::Error,
            file: args.config.clone(),
            line: 0,
            key: "world.player_entity_type".into(),
            message: e.to_string(),
        });
    }
    if let Some(content) = &load.content {
        for id in file.mission.missions() {
            match content.load_mission(&id) {
                Ok(m) => findings.items.extend(m.warnings),
                Err(refused) => {
                    let errors = refused
                        .findings
                        .iter()
                        .any(|f| f.severity == Severity::Error);
                    if !errors {
                        findings
                            .items
                            .push(mission_finding(&args.config, &refused.to_string()));
                    }
                    findings.items.extend(refused.findings);
                }
            }
        }
    }
    for f in &findings.items {
        println!("{f}");
    }
    if let Some(content) = &load.content {
        for line in content.unused_assets_lines() {
            println!("{line}");
        }
    }
    println!(
        "fl-server --check: {}",
        findings.summary(load.content.as_ref())
    );
    Ok(findings.errors() == 0)
}

/// A mission refusal without findings of its own, as a finding against the configuration.
fn mission_finding(config: &std::path::Path, message: &str) -> Finding {
    Finding {
        severity: Severity::Error,
        file: config.to_owned(),
        line: 0,
        key: "mission".into(),
        message: message.to_owned(),
    }
}

/// The [mission] section's director: every mission loaded and checked now (a refused one stops
/// the start-up, naming its findings). `None` without missions.
fn mission_director(
    content: &fl_content::Content,
    file: &FileConfig,
) -> Result<Option<MissionDirector>> {
    let ids = file.mission.missions();
    if ids.is_empty() {
        return Ok(None);
    }
    let mut missions = Vec::new();
    for id in ids {
        match content.load_mission(&id) {
            Ok(m) => {
                for w in &m.warnings {
                    tracing::warn!("{w}");
                }
                missions.push(m);
            }
            Err(refused) => {
                for f in &refused.findings {
                    tracing::error!("{f}");
                }
                return Err(anyhow::Error::new(refused).context("[mission]"));
            }
        }
    }
    Ok(Some(MissionDirector::new(
        missions,
        file.mission.on_end(),
        file.mission.end_delay_ticks(),
        1,
    )))
}

fn run(args: Args) -> Result<()> {
    let loaded = load_or_create(&args.config)?;
    if loaded.created {
        tracing::info!(
            "wrote the default configuration to {}",
            args.config.display()
        );
    }
    for key in &loaded.unknown_keys {
        tracing::warn!("{}: unknown key {key} (ignored)", args.config.display());
    }
    let file = configure(loaded.config, &args)?;

    let load = load_stack(&stack_sources(&file));
    let Some(content) = load.content else {
        for f in &load.findings.items {
            tracing::error!("{f}");
        }
        anyhow::bail!(
            "content failed to load ({} error(s), listed above)",
            load.findings.errors()
        );
    };
    log_loaded(&content);
    content
        .aircraft_type(&file.world.player_entity_type)
        .with_context(|| {
            format!(
                "{}: [world] player_entity_type = {:?}",
                args.config.display(),
                file.world.player_entity_type
            )
        })?;
    let types = TypeRegistry::from_content(&content, 1);

    let bind: IpAddr = file.server.bind.parse().with_context(|| {
        format!(
            "[server] bind = {:?} is not an IP address",
            file.server.bind
        )
    })?;
    let quic = QuicServer::bind(
        SocketAddr::new(bind, file.server.port),
        &file.server.data_dir,
        QuicConfig {
            idle_timeout: file.idle_timeout(),
            max_connections: file.network.max_connections,
            ..QuicConfig::default()
        },
    )
    .map_err(quic_bind_error)?;
    let addr = fl_net::ServerTransport::local_addr(&quic);
    let fingerprint = quic.fingerprint();

    let type_count = types.len();
    let mut server = Server::new(file.server_config(), Box::new(quic), types);
    server.set_terrain(fl_terrain::Terrain::from_content(
        &content,
        fl_terrain::TerrainConfig::default(),
    ));
    let mut director = mission_director(&content, &file)?;
    if let Some(d) = director.as_mut() {
        d.start(&mut server)
            .context("[mission]: starting the mission")?;
        tracing::info!(
            missions = ?d.ids(),
            on_end = %file.mission.on_end,
            end_delay_s = file.mission.end_delay_s,
            "mission running"
        );
    }
    spawn_ai(&mut server, &file);
    if let Some(path) = file.ban_file() {
        // A damaged file stops the start-up (naming the line) rather than being overwritten.
        let bans = BanList::load(path).context("[admission] ban_file")?;
        tracing::info!(bans = bans.len(), file = %path.display(), "ban list loaded");
        server.set_ban_list(bans);
    }
    let entities = server.world().len();

    let facts = Arc::new(Mutex::new(ServerFacts {
        name: file.server.name.clone(),
        game_port: addr.port(),
        max_players: file.network.max_connections.min(255) as u8,
        build: env!("CARGO_PKG_VERSION").to_owned(),
        game_mode_flags: if director.is_some() {
            fl_protocol::enums::game_mode::MISSION
        } else {
            fl_protocol::enums::game_mode::SANDBOX
        } | if file.server.password.is_empty() {
            0
        } else {
            fl_protocol::enums::game_mode::PASSWORDED
        },
        ..ServerFacts::default()
    }));
    let discovery_config = file.discovery_config(addr.ip(), addr.port());
    let query_bind = discovery_config.query_bind;
    let discovery = Discovery::start(discovery_config, facts.clone()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!(
                "cannot bind the query responder on UDP {query_bind}: {e} — another program \
                 (another fl-server?) is using that port; set [discovery] query_port to a free \
                 port, or to 0 (game port + 1, or an ephemeral port when that is taken)"
            )
        } else {
            anyhow::Error::new(e).context("starting LAN discovery / the query responder")
        }
    })?;
    if let Some(q) = discovery.query_addr() {
        tracing::info!("answering server queries on {q}");
    }
    let board = fl_server::http::StatusBoard::new(&file.server.name);
    let http_config = file.http.http_config(args.http);
    let status_board = board.clone();
    let metrics_path = args.metrics_json;
    let on_metrics: Option<fl_server::runtime::MetricsSink> =
        Some(Box::new(move |m: &fl_server::runtime::Metrics| {
            if let Ok(mut f) = facts.lock() {
                f.player_count = m.peers.len().min(255) as u8;
                // The beacon and the query reply advertise a shutdown in progress.
                f.set_shutdown(m.shutdown_seconds);
            }
            board.publish(m);
            if let Some(path) = &metrics_path
                && let Err(e) = write_atomically(path, &m.to_json())
            {
                tracing::warn!("cannot write {}: {e}", path.display());
            }
        }));
    // The director runs after every tick: restarts or rotates the mission once it has ended.
    let hook = director.map(|mut d| {
        Box::new(move |s: &mut Server| {
            d.after_tick(s);
        }) as fl_server::runtime::TickHook
    });
    let handle = spawn_hooked(
        server,
        RuntimeConfig {
            max_catchup_ticks: file.world.max_catchup_ticks,
            ..RuntimeConfig::default()
        },
        on_metrics,
        hook,
    )
    .context("starting the server thread")?;

    let http = http_config
        .map(|c| {
            let exec = http_admin(handle.admin_client());
            fl_server::http::HttpServer::start(c, status_board, Some(exec))
        })
        .transpose()
        .context("starting the status page ([http] bind / --http)")?;

    let (stop_tx, stop_rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .context("installing the signal handler")?;

    println!(
        "listening on {}:{} (QUIC; identity {fingerprint}; {type_count} entity types, {entities} entities)",
        addr.ip(),
        addr.port(),
    );
    if let Some(h) = &http {
        println!("status page on http://{}/", h.local_addr());
    }
    if !args.no_console {
        stdin_console(handle.admin_client());
    }
    loop {
        match stop_rx.recv_timeout(Duration::from_millis(200)) {
            Ok(()) => {
                tracing::info!("shutting down");
                handle.command(Command::Shutdown {
                    seconds: 0,
                    reason: String::new(),
                });
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) if handle.is_finished() => {
                if handle.shut_down_by_countdown() {
                    tracing::info!("shut down by the operator");
                    break;
                }
                anyhow::bail!("the server thread stopped unexpectedly");
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !handle.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(handle);
    drop(http);
    drop(discovery);
    Ok(())
}

/// Longest stdin command line read; longer lines are refused whole.
const MAX_CONSOLE_LINE: u64 = 4096;

/// The stdin console: one admin command a line, each answer printed to stdout. Runs on its own
/// thread and only waits on stdin and on the answer; at EOF (or a read error, or no stdin when
/// daemonised) it ends quietly and the server keeps running.
/// The status page's way to run admin commands: the same registry as every frontend, on the
/// tick thread, waited for on the page's blocking thread only.
fn http_admin(admin: AdminClient) -> fl_server::http::AdminExec {
    Arc::new(
        move |line: &str| match admin.run(line, Duration::from_secs(5)) {
            Some(fl_server::admin::Outcome::Done(text)) => Ok(text),
            Some(other) => Err(other.text().to_owned()),
            None => Err("the server did not answer (stopping?)".to_owned()),
        },
    )
}

fn stdin_console(admin: AdminClient) {
    let spawned = std::thread::Builder::new()
        .name("fl-server-stdin".into())
        .spawn(move || {
            use std::io::{BufRead, Read};
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let n = match (&mut input)
                    .take(MAX_CONSOLE_LINE + 1)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) => {
                        tracing::info!(
                            "stdin closed: the console is off (the server keeps running)"
                        );
                        return;
                    }
                    Ok(n) => n,
                    Err(e) => {
                        tracing::info!("stdin unreadable ({e}): the console is off");
                        return;
                    }
                };
                if n as u64 > MAX_CONSOLE_LINE && buf.last() != Some(&b'\n') {
                    // Skip the rest of the over-long line.
                    let mut rest = Vec::new();
                    loop {
                        rest.clear();
                        match (&mut input)
                            .take(MAX_CONSOLE_LINE)
                            .read_until(b'\n', &mut rest)
                        {
                            Ok(0) => return,
                            Ok(_) if rest.last() == Some(&b'\n') => break,
                            Ok(_) => {}
                            Err(_) => return,
                        }
                    }
                    println!("line longer than {MAX_CONSOLE_LINE} bytes ignored");
                    continue;
                }
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                match admin.run(line, Duration::from_secs(10)) {
                    Some(outcome) => println!("{}", outcome.text()),
                    None => {
                        println!("no answer: the server is stopping");
                        return;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("no stdin console: {e}");
    }
}

fn spawn_ai(server: &mut Server, file: &FileConfig) {
    let Some(t) = server.types().pilot_type(
        &file.world.player_entity_type,
        &file.world.player_entity_type,
    ) else {
        if file.world.ai_aircraft > 0 {
            tracing::warn!("no flyable type: AI aircraft not spawned");
        }
        return;
    };
    let points = server.config().spawn_points.clone();
    // The behaviour line's coordinates are measured from the spawn anchor, like the spawns.
    let ctx = fl_ai::FactoryContext {
        anchor: points
            .first()
            .and_then(|p| p.anchor)
            .map(|a| fl_ai::CoordinateAnchor::new(server.world().planet(), a.lat_deg, a.lon_deg)),
        ..fl_ai::FactoryContext::default()
    };
    for i in 0..file.world.ai_aircraft {
        let ctrl = match fl_ai::build_from_line(&file.world.ai_behaviour, &ctx) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("[world] ai_behaviour: {e}; AI aircraft not spawned");
                return;
            }
        };
        let base = points
            .get(i % points.len().max(1))
            .copied()
            .unwrap_or(fl_server::server::SpawnPoint::FALLBACK);
        let at = fl_server::server::SpawnPoint {
            z: base.z + 8000.0 + (i / points.len().max(1)) as f64 * 500.0,
            heading_deg: 180.0,
            ..base
        };
        let faction = if i % 2 == 0 { 2 } else { 1 };
        if server
            .spawn_aircraft(t, faction, Pilot::Ai(ctrl), at)
            .is_none()
        {
            tracing::warn!("the world is full after {i} AI aircraft");
            break;
        }
    }
}
