//! `fl-wire`: decode one wire message to JSON, or encode that JSON back to hex.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::io::Read;
use std::path::PathBuf;

/// Packet inspector for the fighters-legacy wire protocol.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Decode one message (raw bytes from FILE or stdin, or --hex) and print it as JSON.
    Decode {
        /// The message as hex digits (whitespace and a 0x prefix are ignored).
        #[arg(long, conflicts_with = "file")]
        hex: Option<String>,
        /// A file holding the raw message bytes; `-` or nothing reads stdin.
        file: Option<PathBuf>,
        /// Print the JSON on one line.
        #[arg(long)]
        compact: bool,
    },
    /// Read the JSON form (from FILE or stdin) and print the message as hex.
    Encode {
        /// A JSON file; `-` or nothing reads stdin.
        file: Option<PathBuf>,
    },
}

/// Inputs larger than this are refused: no single message can be bigger (a 4 MiB snapshot body
/// plus headers), and reading stdin must stay bounded.
const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

fn read_input(file: Option<&PathBuf>) -> Result<Vec<u8>> {
    let mut data = Vec::new();
    match file {
        Some(path) if path.as_os_str() != "-" => {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            f.take(MAX_INPUT_BYTES + 1)
                .read_to_end(&mut data)
                .with_context(|| format!("cannot read {}", path.display()))?;
        }
        _ => {
            std::io::stdin()
                .take(MAX_INPUT_BYTES + 1)
                .read_to_end(&mut data)
                .context("cannot read stdin")?;
        }
    }
    if data.len() as u64 > MAX_INPUT_BYTES {
        bail!("input exceeds {MAX_INPUT_BYTES} bytes");
    }
    Ok(data)
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Decode { hex, file, compact } => {
            let bytes = match hex {
                Some(h) => fl_wire::json::unhex(&h).map_err(anyhow::Error::msg)?,
                None => read_input(file.as_ref())?,
            };
            let value = fl_wire::decode_to_json(&bytes)?;
            let text = if compact {
                serde_json::to_string(&value)?
            } else {
                serde_json::to_string_pretty(&value)?
            };
            println!("{text}");
        }
        Command::Encode { file } => {
            let data = read_input(file.as_ref())?;
            let value: serde_json::Value =
                serde_json::from_slice(&data).context("input is not valid JSON")?;
            let bytes = fl_wire::encode_from_json(&value)?;
            println!("{}", fl_wire::json::hex(&bytes));
        }
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fl-wire: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
