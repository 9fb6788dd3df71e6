//! `validate-pack`: a modder's check of a content pack, exactly as the server and the client load
//! it (the builtin layer plus the pack, and any packs it depends on).

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Loads the pack(s) through the same content stack as fl-server and the client, prints one line
/// per finding (`file:line: error|warning: `key`: message`), what the pack ships that this build
/// does not use yet, and a summary with the loaded types. Exits 1 on any error, 0 otherwise
/// (warnings alone do not fail).
#[derive(Debug, Parser)]
#[command(name = "validate-pack", version)]
struct Args {
    /// Pack directories (each holding a manifest.toml).
    #[arg(required = true)]
    packs: Vec<PathBuf>,
    /// Mods directories whose packs are loaded too (e.g. the packs yours depends on).
    #[arg(long = "mods")]
    mods_dirs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    flight_tools::validate_pack(&args.packs, &args.mods_dirs).print()
}
