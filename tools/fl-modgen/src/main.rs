//! `fl-modgen`: regenerates (or, with `--check`, verifies) the generated files of our own
//! content pack. `cargo run -p fl-modgen` rewrites `mods/fl-trainer`'s models and sounds in the
//! checkout; docs/modding.md explains.

use anyhow::{Result, bail};
use clap::Parser;
use std::path::PathBuf;

/// Writes the jet trainer's glTF models and engine sounds into the pack directory.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The pack directory (default: mods/fl-trainer of this checkout).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write nothing; fail (exit 1) listing every generated file that is missing or differs.
    #[arg(long)]
    check: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let pack = args.out.unwrap_or_else(fl_modgen::default_pack_dir);
    if args.check {
        let drift = fl_modgen::drift(&pack);
        if !drift.is_empty() {
            for d in &drift {
                eprintln!("fl-modgen: {}: {d}", pack.display());
            }
            bail!(
                "{} generated file(s) out of date; run `cargo run -p fl-modgen`",
                drift.len()
            );
        }
        println!(
            "fl-modgen: {}: all {} generated files up to date",
            pack.display(),
            fl_modgen::generate().len()
        );
        return Ok(());
    }
    for path in fl_modgen::write(&pack)? {
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!("wrote {} ({size} bytes)", path.display());
    }
    Ok(())
}
