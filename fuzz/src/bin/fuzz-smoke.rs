//! A stable-toolchain fuzz smoke run: mutates valid seeds of every decoder family for a fixed
//! time or iteration budget with a fixed seed, and replays any files given (e.g. libFuzzer
//! crash artifacts). Exits non-zero on the first violated invariant, printing the input as hex.

use anyhow::{Context, Result, bail};
use clap::Parser;
use fl_fuzz::{Family, Mutator};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(about = "Deterministic fuzz smoke run over every decoder family")]
struct Args {
    /// Wall-clock budget per family, in seconds.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Iteration cap per family.
    #[arg(long, default_value_t = 2_000_000)]
    iterations: u64,
    /// Mutation seed.
    #[arg(long, default_value_t = 0x5EED)]
    seed: u64,
    /// Only this family (decode_packet, decode_snapshot, parse_tlv, wire_json, quic_stream,
    /// quic_datagrams, toml_read, flight_model, content_defs, client_input).
    #[arg(long)]
    family: Option<String>,
    /// Inputs to replay through every selected family instead of mutating.
    replay: Vec<PathBuf>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn run_one(family: Family, input: &[u8]) -> Result<()> {
    if catch_unwind(AssertUnwindSafe(|| family.check(input))).is_err() {
        bail!(
            "{} violated an invariant on input {}",
            family.name(),
            hex(input)
        );
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run(Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fuzz-smoke: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let families: Vec<Family> = match &args.family {
        Some(name) => {
            vec![Family::from_name(name).with_context(|| format!("unknown family {name}"))?]
        }
        None => Family::ALL.to_vec(),
    };
    if !args.replay.is_empty() {
        for path in &args.replay {
            let data =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            for &f in &families {
                run_one(f, &data)?;
            }
        }
        println!(
            "replayed {} inputs: no invariant violated",
            args.replay.len()
        );
        return Ok(());
    }
    // Keep panics of the code under test quiet: the runner reports the failing input itself.
    std::panic::set_hook(Box::new(|_| {}));
    for family in families {
        let seeds = family.seeds();
        let mut mutator = Mutator::new(args.seed ^ family.name().len() as u64);
        let start = Instant::now();
        let budget = Duration::from_secs_f64(args.seconds);
        let mut corpus = seeds.clone();
        let mut n = 0u64;
        for s in &seeds {
            run_one(family, s)?;
        }
        while n < args.iterations && start.elapsed() < budget {
            let base = &corpus[(n as usize) % corpus.len()];
            let splice = &seeds[(n as usize * 7 + 3) % seeds.len()];
            let input = mutator.mutate(base, splice);
            run_one(family, &input)?;
            // Keep a bounded rolling corpus so mutations compound.
            if n.is_multiple_of(16) && corpus.len() < 4096 {
                corpus.push(input);
            }
            n += 1;
        }
        println!(
            "{:<16} {n:>9} inputs in {:>5.1} s: no invariant violated",
            family.name(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
