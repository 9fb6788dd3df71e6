//! `fm-trim`: a flight model's steady-state performance, optionally gated by an expectation file.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Trims a flight model and reports its performance; with `--expect`, gates it against a
/// `*.expect.toml` and exits non-zero on any miss.
#[derive(Debug, Parser)]
#[command(name = "fm-trim", version)]
struct Args {
    /// The aircraft TOML.
    model: PathBuf,
    /// An expectation file (`<name>.expect.toml`).
    #[arg(long)]
    expect: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match &args.expect {
        Some(e) => flight_tools::run_expect(&args.model, e).map(|r| {
            if args.json {
                println!("{}", flight_tools::render_json(&r));
            } else {
                print!("{}", flight_tools::render_table(&r));
            }
            r.failed() == 0
        }),
        None => flight_tools::summary(&args.model).map(|s| {
            print!("{s}");
            true
        }),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
