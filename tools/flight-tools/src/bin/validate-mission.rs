//! `validate-mission`: a modder's (and the pack CI's) check of mission files, against the pack
//! they belong to loaded exactly as the game loads it.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Loads the builtin content and PACK (plus the packs of `--mods`), then reads and validates
/// each mission: structure, values, trigger syntax and ids, types, weapons, sensors, `lua`
/// scripts (PACK's own `ai/`) and builtin controllers. Prints one line per finding
/// (`file:line: error|warning: `key`: message`), a `<pack id>:<stem>: valid|refused` line per
/// mission and a summary. Exits 0 when every mission is valid, 1 otherwise, 2 on bad arguments.
#[derive(Debug, Parser)]
#[command(name = "validate-mission", version)]
struct Args {
    /// The pack directory (holding manifest.toml) the missions belong to.
    pack: PathBuf,
    /// Mission files (e.g. PACK/missions/*.yaml).
    #[arg(required = true)]
    missions: Vec<PathBuf>,
    /// Mods directories whose packs are loaded too (e.g. the packs PACK depends on).
    #[arg(long = "mods")]
    mods_dirs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    flight_tools::validate_missions(&args.pack, &args.mods_dirs, &args.missions).print()
}
