//! `fighters-legacy`: the game client. Without `--headless` it opens the game window (menus,
//! free flight, the HUD); `--headless` runs the whole client loop (session, 60 Hz input,
//! prediction, interpolation) without one and prints one JSON summary.
//!
//! ```text
//! fighters-legacy [--single-player | --connect HOST[:PORT]] [--aircraft TYPE] [--mods DIR]...
//!                 [--pack DIR]... [--autopilot NAME --seconds N [--screenshot PNG]]
//!                 [--mission PACK:STEM --seconds N]
//! fighters-legacy --headless [--connect HOST[:PORT] | --single-player | --linksim]
//!                 [--seconds N] [--autopilot NAME] [--aircraft TYPE]
//! fighters-legacy --headless --pack DIR --mission PACK:STEM [--seconds N] [--fast] [--seed S]
//! ```
//!
//! Content loads as on the server: the user's mods folder (`<data dir>/mods`), then `--mods`,
//! then `--pack`; single player hands the same stack to the embedded server.

use anyhow::{Context, Result, bail};
use clap::Parser;
use fighters_legacy::address::parse_target;
use fighters_legacy::content::{self, ContentOptions};
use fighters_legacy::headless::{HeadlessError, HeadlessOptions, Mode, run};
use fighters_legacy::local_server::LocalServerError;
use fighters_legacy::session::SessionConfig;
use fighters_legacy::sim::SimSetupError;
use fl_net::quic::Fingerprint;
use fl_server::mission_director::{MissionDirector, OnEnd, ScheduledDestroy};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The fighters-legacy client.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Run without a window and print a JSON summary.
    #[arg(long)]
    headless: bool,
    /// Windowed: fly straight into single player and, after --seconds in flight, save the
    /// picture (world and HUD) to this PNG and exit.
    #[arg(long, value_name = "PNG")]
    screenshot: Option<PathBuf>,
    /// Windowed: the window's size, WIDTHxHEIGHT pixels, for this run (default: the
    /// settings' resolution, 1280x720 unless changed).
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// Windowed: the settings file (default: the OS config dir's fighters-legacy/user.toml;
    /// an older settings.toml beside it is read when it does not exist yet).
    #[arg(long, value_name = "TOML")]
    settings: Option<PathBuf>,
    /// The controls' bindings file (default, windowed: the OS config dir's
    /// fighters-legacy/bindings.toml). A bad file is moved aside and the defaults used.
    #[arg(long, value_name = "TOML")]
    bindings: Option<PathBuf>,
    /// Join a server (default port 4778).
    #[arg(long, value_name = "HOST[:PORT]", conflicts_with_all = ["single_player", "linksim"])]
    connect: Option<String>,
    /// Fly against the embedded server on loopback (the default).
    #[arg(long, conflicts_with = "linksim")]
    single_player: bool,
    /// Fly against an in-process server over a simulated link, in virtual time (the server's
    /// truth is known, so the summary includes interpolation error and an exactness check).
    #[arg(long)]
    linksim: bool,
    /// How long to fly (headless: default 10). A join still under way is waited for (at most
    /// --join-timeout). Windowed, it makes a scripted flight: straight into single player,
    /// flown by --autopilot, exiting after this many seconds in flight.
    #[arg(long)]
    seconds: Option<f64>,
    /// Seconds a join may take (connection, hello and admission) before it ends with the
    /// server's address and the stage it was waiting for.
    #[arg(long, default_value_t = 10.0)]
    join_timeout: f64,
    /// Seconds of silence from the server after which the session ends (after 1 s it shows
    /// "connection interrupted" and keeps flying on prediction). Also QUIC's idle timeout.
    #[arg(long, default_value_t = 15.0)]
    idle_timeout: f64,
    /// Who flies: aerobatics, level, orbit, idle, attack, dive (headless default: aerobatics;
    /// windowed scripted default: level).
    #[arg(long)]
    autopilot: Option<String>,
    /// Client frames per second.
    #[arg(long, default_value_t = 120.0)]
    fps: f64,
    /// The name other players see (headless default: Headless; windowed: the settings').
    #[arg(long)]
    callsign: Option<String>,
    /// Join password (or set FL_JOIN_PASSWORD, which keeps it out of the process list).
    #[arg(long)]
    password: Option<String>,
    /// Trust-on-first-use file (default: ~/.config/fighters-legacy/known_hosts).
    #[arg(long)]
    known_hosts: Option<PathBuf>,
    /// Accept only this server fingerprint (SHA-256, hex with or without colons).
    #[arg(long)]
    pin: Option<String>,
    /// --linksim: one-way latency, ms.
    #[arg(long, default_value_t = 50.0)]
    latency_ms: f64,
    /// --linksim: extra one-way delay, uniform 0..=N ms.
    #[arg(long, default_value_t = 0.0)]
    jitter_ms: f64,
    /// --linksim: per-datagram loss probability.
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// --linksim: AI aircraft to interpolate (their error against the truth is reported).
    #[arg(long, default_value_t = 1)]
    targets: usize,
    /// --linksim: seed of the simulated network; --mission: the mission's seed (combat draws;
    /// --fast: the simulated network's too).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run this mission (`<pack id>:<file stem>`, e.g. fl-base-pack:ia_dogfight) on the server,
    /// started before the pilot joins its first player slot. Headless: the summary gets a
    /// `mission` object; the run stops a second after the mission ends; a refused mission exits
    /// 1. Windowed: a scripted flight (--seconds) through the mission's list and brief.
    #[arg(long, value_name = "PACK:STEM", conflicts_with_all = ["connect", "linksim"])]
    mission: Option<String>,
    /// --mission: fly in virtual time against an in-process server (a perfect simulated link),
    /// so a 10-minute mission runs in seconds.
    #[arg(long, requires = "mission")]
    fast: bool,
    /// Test hook (--mission): destroy mission object OBJECT when the mission time reaches
    /// SECONDS, through the server's damage path (repeatable). See docs/testing.md.
    #[arg(long, value_name = "OBJECT@SECONDS", hide = true, requires = "mission")]
    mission_destroy: Vec<String>,
    /// --single-player: AI aircraft in the embedded world.
    #[arg(long, default_value_t = 0)]
    ai: usize,
    /// The aircraft to fly (a type id, e.g. fl-base:f5e): the single-player aircraft, and the
    /// type asked for when joining a server. Must be a loaded type that flies.
    #[arg(long, value_name = "TYPE", conflicts_with = "linksim")]
    aircraft: Option<String>,
    /// A mods directory to scan besides the user's mods folder (repeatable).
    #[arg(long = "mods", value_name = "DIR", conflicts_with = "linksim")]
    mods_dirs: Vec<PathBuf>,
    /// A content pack directory to load (repeatable).
    #[arg(long = "pack", value_name = "DIR", conflicts_with = "linksim")]
    packs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    fl_server::logging::init("warn");
    match main_inner(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("fighters-legacy: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The session's settings from the command line (`callsign` when none is given); the join
/// password from `--password`, else `FL_JOIN_PASSWORD`.
fn session_config(args: &Args, callsign: &str) -> SessionConfig {
    SessionConfig {
        callsign: args.callsign.clone().unwrap_or_else(|| callsign.to_owned()),
        password: args
            .password
            .clone()
            .or_else(|| std::env::var("FL_JOIN_PASSWORD").ok())
            .filter(|p| !p.is_empty()),
        handshake_timeout: Duration::from_secs_f64(args.join_timeout),
        idle_timeout: Duration::from_secs_f64(args.idle_timeout),
        ..SessionConfig::default()
    }
}

fn ms(v: f64, what: &str) -> Result<Duration> {
    if !(v.is_finite() && v >= 0.0) {
        bail!("--{what} must be a non-negative number of milliseconds");
    }
    Ok(Duration::from_secs_f64(v / 1000.0))
}

fn main_inner(args: Args) -> Result<bool> {
    if !args.headless {
        return windowed(args);
    }
    // Headless flies an autopilot, but a bindings file given is still checked the way the game
    // reads it: a bad one is moved aside with a warning, never an error.
    if let Some(path) = &args.bindings {
        for w in fl_input::store::load(path).warnings {
            tracing::warn!("bindings: {w}");
        }
    }
    let seconds = args.seconds.unwrap_or(10.0);
    if !(seconds.is_finite() && seconds >= 0.0) {
        bail!("--seconds must be a non-negative number");
    }
    if !(args.join_timeout.is_finite() && args.join_timeout > 0.0 && args.join_timeout <= 3600.0) {
        bail!("--join-timeout must be a number of seconds above 0 and at most 3600");
    }
    if !(args.idle_timeout.is_finite() && (2.0..=600.0).contains(&args.idle_timeout)) {
        bail!("--idle-timeout must be a number of seconds from 2 to 600");
    }
    if !(args.fps.is_finite() && args.fps >= 1.0) {
        bail!("--fps must be at least 1");
    }
    let mode = if let Some(target) = &args.connect {
        let (host, port) = parse_target(target).context("--connect")?;
        Mode::Connect { host, port }
    } else if args.linksim {
        if !(0.0..=1.0).contains(&args.loss) {
            bail!("--loss must be between 0 and 1");
        }
        Mode::LinkSim {
            one_way_latency: ms(args.latency_ms, "latency-ms")?,
            jitter: ms(args.jitter_ms, "jitter-ms")?,
            loss: args.loss,
            targets: args.targets,
            seed: args.seed,
        }
    } else {
        Mode::SinglePlayer
    };
    let pin = match &args.pin {
        Some(p) => Some(
            p.parse::<Fingerprint>()
                .map_err(|e| anyhow::anyhow!("--pin: {e}"))?,
        ),
        None => None,
    };
    let session = session_config(&args, "Headless");
    let mut opts = HeadlessOptions {
        mode,
        seconds,
        autopilot: args.autopilot.unwrap_or_else(|| "aerobatics".to_owned()),
        frame_rate: args.fps,
        session,
        known_hosts: args.known_hosts,
        pin,
        ..HeadlessOptions::default()
    };
    opts.local.ai_aircraft = args.ai;
    if !matches!(opts.mode, Mode::LinkSim { .. }) {
        let content = content::load(
            &ContentOptions {
                user_mods: true,
                mods_dirs: args.mods_dirs,
                pack_dirs: args.packs,
            },
            args.aircraft.as_deref(),
        )?;
        if let Some(id) = &args.aircraft {
            opts.session.requested_entity_type = id.clone();
            opts.local.server.player_entity_type = id.clone();
        }
        opts.session.packs = content::manifest(&content);
        opts.session.pack_hashes = content::pack_hashes(&content);
        opts.local.content = Some(content.clone());
        opts.content = Some(content);
    }
    if let Some(id) = &args.mission {
        let Some(content) = opts.content.clone() else {
            bail!("--mission needs the content stack");
        };
        let checked = match content.load_mission(id) {
            Ok(m) => m,
            Err(refused) => {
                eprintln!("fighters-legacy: {refused}");
                for f in &refused.findings {
                    eprintln!("  {f}");
                }
                return Ok(false);
            }
        };
        for w in &checked.warnings {
            tracing::warn!("{w}");
        }
        let mut director = MissionDirector::new(vec![checked], OnEnd::Hold, 0, args.seed);
        for hook in &args.mission_destroy {
            director.schedule_destroy(parse_destroy(hook)?);
        }
        opts.mission = Some(director);
        if args.fast {
            opts.mode = Mode::Fast;
        }
    }
    let summary = match run(&opts) {
        Ok(s) => s,
        Err(e @ HeadlessError::LocalServer(LocalServerError::Mission(_)))
        | Err(e @ HeadlessError::Sim(SimSetupError::Mission(_))) => {
            eprintln!("fighters-legacy: {}", fl_net::error_chain(&e));
            return Ok(false);
        }
        Err(e) => return Err(anyhow::Error::new(e).context("headless run")),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&summary).context("encoding the summary")?
    );
    if let Some(e) = &summary.session.ended {
        eprintln!("fighters-legacy: {e}");
    }
    Ok(summary.succeeded())
}

/// Parses the test hook `OBJECT@SECONDS`.
fn parse_destroy(s: &str) -> Result<ScheduledDestroy> {
    let (object, seconds) = s
        .rsplit_once('@')
        .with_context(|| format!("--mission-destroy {s:?}: expected OBJECT@SECONDS"))?;
    let seconds: f64 = seconds
        .trim()
        .parse()
        .with_context(|| format!("--mission-destroy {s:?}: {seconds:?} is not seconds"))?;
    if object.is_empty() || !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
        bail!("--mission-destroy {s:?}: expected OBJECT@SECONDS, 0 to 86400 seconds");
    }
    Ok(ScheduledDestroy {
        object: object.to_owned(),
        at_tick: (seconds * fighters_legacy::TICK_HZ as f64).round() as u64,
    })
}

/// Parses `WIDTHxHEIGHT`.
fn parse_size(s: &str) -> Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .with_context(|| format!("--size {s:?}: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let px = |v: &str| -> Result<u32> {
        let n: u32 = v
            .trim()
            .parse()
            .with_context(|| format!("--size {s:?}: {v:?} is not a number of pixels"))?;
        if !(64..=16_384).contains(&n) {
            bail!("--size {s:?}: each side must be 64 to 16384 pixels");
        }
        Ok(n)
    };
    Ok((px(w)?, px(h)?))
}

/// The game window (everything but `--headless`).
fn windowed(args: Args) -> Result<bool> {
    use fighters_legacy::app::{self, AppOptions, Scripted};
    if args.linksim {
        bail!("--linksim runs only with --headless");
    }
    if args.mission.is_some() && (args.seconds.is_none() && args.screenshot.is_none()) {
        bail!(
            "--mission in the window flies a scripted flight: give --seconds (or choose the \
             mission from the Missions screen)"
        );
    }
    if args.fast || !args.mission_destroy.is_empty() {
        bail!("--fast and --mission-destroy run only with --headless");
    }
    if !(args.join_timeout.is_finite() && args.join_timeout > 0.0 && args.join_timeout <= 3600.0) {
        bail!("--join-timeout must be a number of seconds above 0 and at most 3600");
    }
    if !(args.idle_timeout.is_finite() && (2.0..=600.0).contains(&args.idle_timeout)) {
        bail!("--idle-timeout must be a number of seconds from 2 to 600");
    }
    let size = args.size.as_deref().map(parse_size).transpose()?;
    let scripted = match (args.seconds, &args.screenshot) {
        (None, None) => None,
        (seconds, screenshot) => {
            let seconds = seconds.unwrap_or(10.0);
            if !(seconds.is_finite() && (0.0..=86_400.0).contains(&seconds)) {
                bail!("--seconds must be a number of seconds from 0 to 86400");
            }
            if args.connect.is_some() {
                bail!(
                    "a scripted flight (--seconds, --screenshot) flies single player; drop --connect"
                );
            }
            let autopilot = args.autopilot.clone().unwrap_or_else(|| "level".to_owned());
            if fighters_legacy::autopilot::by_name(&autopilot).is_none() {
                bail!(
                    "unknown autopilot {autopilot:?} (known: {})",
                    fighters_legacy::autopilot::AUTOPILOTS.join(", ")
                );
            }
            Some(Scripted {
                autopilot,
                seconds,
                screenshot: screenshot.clone(),
                mission: args.mission.clone(),
            })
        }
    };
    if scripted.is_none() && args.autopilot.is_some() {
        bail!("--autopilot flies a scripted flight: give --seconds too (or use --headless)");
    }
    let pin = match &args.pin {
        Some(p) => Some(
            p.parse::<Fingerprint>()
                .map_err(|e| anyhow::anyhow!("--pin: {e}"))?,
        ),
        None => None,
    };
    if let Some(target) = &args.connect {
        parse_target(target).context("--connect")?;
    }
    let local = fighters_legacy::local_server::LocalServerConfig {
        ai_aircraft: args.ai,
        ..Default::default()
    };
    let session = session_config(&args, "Pilot");
    let opts = AppOptions {
        content_options: ContentOptions {
            user_mods: true,
            mods_dirs: args.mods_dirs,
            pack_dirs: args.packs,
        },
        aircraft: args.aircraft,
        local,
        session,
        callsign_given: args.callsign.is_some(),
        client: fighters_legacy::client::ClientConfig::default(),
        pin,
        known_hosts: args.known_hosts,
        connect: args.connect,
        scripted,
        settings_path: args
            .settings
            .or_else(fighters_legacy::settings::default_path),
        bindings_path: args.bindings.or_else(fl_input::store::default_path),
        size,
    };
    let outcome = app::run(opts)?;
    if let Some(p) = &outcome.screenshot {
        println!("screenshot: {}", p.display());
    }
    if let Some(t) = outcome.first_flight_frame {
        println!(
            "first flight frame {:.2} s after launch; {} frames",
            t.as_secs_f64(),
            outcome.frames
        );
    }
    Ok(true)
}
