//! `validate-flight-model`: structural and physical checks on flight-model TOMLs.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Checks each flight model and prints one line per problem (file:line: severity: key: message).
/// Exits 1 when any file has an error, 0 otherwise (warnings alone do not fail).
#[derive(Debug, Parser)]
#[command(name = "validate-flight-model", version)]
struct Args {
    /// Flight-model TOML files (not `*.expect.toml`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut r = flight_tools::validate_files(&args.files);
    r.lines.push(format!(
        "{} file(s): {} error(s), {} warning(s)",
        r.files, r.errors, r.warnings
    ));
    r.print()
}
