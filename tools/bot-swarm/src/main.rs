//! `bot-swarm`: run N bots against an in-process fl-server and print a JSON summary.

use anyhow::Result;
use bot_swarm::{Impairment, SwarmOptions, run_linksim, run_quic};
use clap::{Parser, ValueEnum};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use std::time::Duration;

/// How the bots reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    /// In-process LinkSim in virtual time: deterministic traffic, simulated latency and loss.
    Linksim,
    /// Real QUIC on 127.0.0.1, the server on its wall-clock thread (at most 128 clients).
    Quic,
}

/// Load-test fl-server with bot clients (in-process LinkSim or QUIC on 127.0.0.1; loopback
/// only by construction).
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Transport between the bots and the server.
    #[arg(long, value_enum, default_value_t = Transport::Linksim)]
    transport: Transport,
    /// Bot clients (1..=1024).
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// AI aircraft (0..=5000).
    #[arg(long, default_value_t = 0)]
    ai: usize,
    /// Simulated seconds (after a 2 s warm-up).
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Server simulation worker threads.
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// Per-peer snapshot budget in bytes (0 = unlimited).
    #[arg(long, default_value_t = 1200)]
    budget: usize,
    /// Send snapshots raw.
    #[arg(long)]
    no_compress: bool,
    /// One-way latency of every bot's link, ms (LinkSim only).
    #[arg(long, default_value_t = 0.0)]
    latency_ms: f64,
    /// Loss on every bot's link (0..1) (LinkSim only).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Random seed of the simulated network (and of the impairment relay).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// QUIC only: route every bot through the impairment relay with this profile (lan,
    /// 50ms-20ms-2pct, 150ms-30ms-3pct, bursty-3pct, bottleneck-1mbit, blackout-1s,
    /// blackout-3s, blackout-8s) or the settings in this JSON file; the summary gains the
    /// relay's ground truth.
    #[arg(long, value_name = "PROFILE|FILE.json")]
    impair: Option<String>,
    /// Mount a content pack directory (repeatable); the missile fight needs the fixture pack.
    #[arg(long = "pack", value_name = "DIR")]
    mods: Vec<std::path::PathBuf>,
    /// Empty every aircraft's stations before the measured window (LinkSim only): the
    /// baseline of the armed/unarmed tick ratio.
    #[arg(long)]
    unarmed: bool,
    /// Add a 4-versus-4 missile fight of fl-base:f5e AI (needs --pack with the fixture pack).
    #[arg(long)]
    missile_fight: bool,
    /// All-chat lines each bot says per second (0..=60; the server's default rate limit is 1).
    #[arg(long, default_value_t = 0.0)]
    chat_per_s: f64,
    /// QUIC only: run the server's status page on 127.0.0.1 and poll it once a second
    /// (/api/status and /metrics), as an operator's open page does.
    #[arg(long)]
    status_page: bool,
}

fn main() -> std::process::ExitCode {
    // The server library's warnings (plain text when stderr is not a terminal).
    fl_server::logging::init("warn");
    match run(Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bot-swarm: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(a: Args) -> Result<()> {
    let dir = DirectionConfig {
        latency: Duration::from_secs_f64(a.latency_ms.max(0.0) / 1000.0),
        loss: a.loss,
        ..DirectionConfig::default()
    };
    let opts = SwarmOptions {
        clients: a.clients,
        ai: a.ai,
        seconds: a.seconds,
        workers: a.workers,
        budget_bytes: a.budget,
        compress: !a.no_compress,
        link: LinkConfig::symmetric(dir),
        seed: a.seed,
        impair: None,
        packs: a.mods.clone(),
        armed: !a.unarmed,
        missile_fight: a.missile_fight,
        chat_per_s: a.chat_per_s,
        status_page: a.status_page,
    };
    let report = match a.transport {
        Transport::Linksim => {
            if a.impair.is_some() {
                anyhow::bail!("--impair needs --transport quic (the relay works on real sockets)");
            }
            run_linksim(&opts)?
        }
        Transport::Quic => {
            if a.latency_ms != 0.0 || a.loss != 0.0 {
                anyhow::bail!("--latency-ms and --loss are simulated by LinkSim only");
            }
            let impair = a.impair.as_deref().map(Impairment::from_arg).transpose()?;
            run_quic(&SwarmOptions {
                link: LinkConfig::default(),
                impair,
                ..opts
            })?
        }
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
