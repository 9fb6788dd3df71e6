//! `terrain-query`: heights and land cover at latitude/longitude points, read through the same
//! content stack and terrain the server and the client use — a modder's check of their tiles.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints one JSON object per point: {"lat", "lon", "height_m", "level", "land_cover"}.
/// `level` is the finest pack level sampled there, or null where the builtin procedural base
/// alone gives the height (outside every theater). `land_cover` is the ESA WorldCover class.
/// Exits 2 on bad arguments, 1 when the content does not load.
#[derive(Debug, Parser)]
#[command(name = "terrain-query", version, allow_negative_numbers = true)]
struct Args {
    /// Pack directories (each holding a manifest.toml); repeat for several.
    #[arg(long = "pack")]
    packs: Vec<PathBuf>,
    /// Mods directories whose packs are loaded too.
    #[arg(long = "mods")]
    mods_dirs: Vec<PathBuf>,
    /// LAT LON [LAT LON ...], degrees (north and east positive).
    #[arg(required = true, value_name = "LAT LON")]
    points: Vec<f64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let points = match flight_tools::terrain_points(&args.points) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("terrain-query: {e}");
            return ExitCode::from(2);
        }
    };
    for p in &args.packs {
        if !p.join("manifest.toml").is_file() {
            eprintln!(
                "terrain-query: --pack {}: not a pack directory (no manifest.toml)",
                p.display()
            );
            return ExitCode::from(2);
        }
    }
    let load = fl_content::load_stack(&fl_content::StackSources {
        mods_dirs: args.mods_dirs,
        pack_dirs: args.packs,
    });
    for f in &load.findings.items {
        eprintln!("{f}");
    }
    let Some(content) = load.content else {
        eprintln!("terrain-query: the content did not load");
        return ExitCode::FAILURE;
    };
    let terrain = fl_terrain::Terrain::from_content(&content, fl_terrain::TerrainConfig::default());
    for w in &terrain.index().warnings {
        eprintln!("warning: {w}");
    }
    for (lat, lon) in points {
        println!("{}", flight_tools::terrain_point(&terrain, lat, lon));
    }
    for w in terrain.store().bad_tiles() {
        eprintln!("warning: {w}");
    }
    ExitCode::SUCCESS
}
