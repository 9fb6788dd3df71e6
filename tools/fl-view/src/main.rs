//! The `fl-view` binary: parse, run, print; every failure prints its chain and exits 2.

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            // wgpu's own start-up chatter (EGL probing, validation hints) hides the viewer's
            // warnings; RUST_LOG shows it again.
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("warn,wgpu_hal=off,wgpu_core=error,wgpu=error")),
        )
        .init();
    let cli = fl_view::Cli::parse();
    match fl_view::run(&cli) {
        Ok(report) => {
            for line in report.lines {
                println!("{line}");
            }
        }
        Err(e) => {
            let e = anyhow::Error::new(e);
            eprintln!("fl-view: error: {e:#}");
            std::process::exit(fl_view::EXIT_FAILURE);
        }
    }
}
