//! The net graph (F3) on the real path and on screen.
//!
//! - A single-player client flies against the embedded server over loopback QUIC for three
//!   seconds (127.0.0.1 only, the flight bounded to 5 s), sampled once per frame: the graph holds
//!   plausible RTT, snapshot-interval, delay and bytes-per-second samples, and the HUD's network
//!   items carry the server's MOTD and a loopback ping.
//! - A golden image (480×270, offscreen, lavapipe here) of the overlay over fl-render's noon sky
//!   from a synthetic, known sample set; drawn twice to prove determinism, mean FLIP ≤ 0.01.
//!   `FL_UPDATE_GOLDEN=1` rewrites `client/tests/golden/netgraph.png`. Without a graphics
//!   adapter the GPU test records a skip (`FL_REQUIRE_GPU=1` fails instead).

use std::path::Path;
use std::time::{Duration, Instant};

use fighters_legacy::autopilot::Level;
use fighters_legacy::client::{Client, ClientConfig};
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use fighters_legacy::netgraph::{self, NetGraph, NetSample};
use fighters_legacy::session::{ClientSession, SessionConfig, SessionState};
use fl_net::quic::TrustPolicy;
use fl_render::sun::UtcTime;
use fl_render::{Camera, Frame, Gpu, OffscreenTarget, Renderer, SkyParams, UiFrame, UiPainter};
use glam::DVec3;

#[test]
fn single_player_fills_the_graph_with_plausible_samples() {
    let mut local = LocalServerConfig::default();
    local.server.motd = "Welcome to the range\nFly safe".into();
    let server = LocalServer::start(local, Duration::from_secs(20)).expect("local server");
    let info = server.info().expect("ready");
    assert!(info.addr.ip().is_loopback());
    let started = Instant::now();
    let session = ClientSession::connect_quic(
        info.addr,
        "localhost",
        TrustPolicy::Pinned(info.fingerprint),
        SessionConfig::default(),
        Duration::ZERO,
    )
    .expect("connect");
    let mut client = Client::new(session, ClientConfig::default(), None);
    let mut pilot = Level;
    let mut graph = NetGraph::new();
    let limit = Duration::from_secs(5);
    let mut in_world_at = None;
    let mut frames = 0u64;
    loop {
        let now = started.elapsed();
        client.frame(now, &mut pilot);
        graph.sample(now, &client);
        frames += 1;
        let state = client.session().state();
        assert_ne!(state, SessionState::Ended, "{:?}", client.end_reason());
        if state == SessionState::InWorld && in_world_at.is_none() {
            in_world_at = Some(now);
        }
        if in_world_at.is_some_and(|t| now >= t + Duration::from_secs(3)) || now >= limit {
            break;
        }
        std::thread::sleep(Duration::from_millis(8));
    }
    let now = started.elapsed();
    let in_world_at = in_world_at.expect("in the world within 5 s");
    let flown = (now - in_world_at).as_secs_f64();
    let sample = NetSample::from_client(&client);
    let extras = netgraph::extras_from_client(&client, now, 1.2, 300.0);
    let rtt: Vec<f32> = graph.rtt_ms().iter().map(|(_, v)| v).collect();
    let intervals: Vec<f32> = graph
        .snapshot_interval_ms()
        .iter()
        .map(|(_, v)| v)
        .collect();
    let delay: Vec<f32> = graph
        .interpolation_delay_ms()
        .iter()
        .map(|(_, v)| v)
        .collect();
    let (rate_in, rate_out) = graph.bytes_per_s().last().expect("a rate").1;
    let mean_interval = intervals.iter().sum::<f32>() / intervals.len().max(1) as f32;
    println!(
        "{frames} frames, {flown:.2} s in the world: {} RTT samples (last {:.2} ms), {} snapshot \
         intervals (mean {mean_interval:.1} ms, jitter {:.2} ms), {} delay samples (last {:.1} \
         ms), {rate_in:.0} B/s in, {rate_out:.0} B/s out, {} snapshots, {} corrections; extras \
         {extras:?}",
        rtt.len(),
        rtt.last().copied().unwrap_or(f32::NAN),
        intervals.len(),
        graph.jitter_ms().last().map_or(f32::NAN, |(_, v)| v),
        delay.len(),
        delay.last().copied().unwrap_or(f32::NAN),
        sample.snapshots_applied,
        sample.corrections,
    );

    // RTT: sampled through the flight (level samples at ≥ 9.8 ms, frames every ≥ 8 ms), on
    // loopback well under 50 ms and never zero-length nonsense.
    assert!(
        rtt.len() as f64 >= 0.5 * flown / 0.02,
        "{} RTT samples",
        rtt.len()
    );
    assert!(rtt.iter().all(|&v| v > 0.0 && v < 50.0), "{rtt:?}");
    // Snapshots: one interval per frame that applied any; the server sends 60 a second to its
    // only pilot, so the intervals average between one tick and a few frames.
    assert!(intervals.len() >= 50, "{} intervals", intervals.len());
    assert!(intervals.len() as u64 <= sample.snapshots_applied);
    assert!(
        (10.0..=40.0).contains(&mean_interval),
        "mean interval {mean_interval} ms"
    );
    // The interpolation delay: within the bridge's clamp.
    let cfg = ClientConfig::default().interpolation;
    let (lo, hi) = (
        cfg.min_delay.as_secs_f32() * 1e3,
        cfg.max_delay.as_secs_f32() * 1e3,
    );
    assert!(!delay.is_empty());
    assert!(
        delay.iter().all(|&v| v >= lo - 0.01 && v <= hi + 0.01),
        "{delay:?} outside {lo}..{hi}"
    );
    // Bytes: snapshots in, inputs (with their redundant copies) out at 60 Hz; the rate over
    // the last second agrees with the link's own counters over the flight.
    assert!(rate_in > 500.0 && rate_in < 1e6, "{rate_in} B/s in");
    assert!(rate_out > 500.0 && rate_out < 1e6, "{rate_out} B/s out");
    let mean_out = sample.bytes_out as f64 / now.as_secs_f64();
    assert!(
        f64::from(rate_out) > 0.5 * mean_out && f64::from(rate_out) < 3.0 * mean_out,
        "{rate_out} B/s out now vs {mean_out:.0} B/s over the run"
    );
    // The HUD's items: a loopback ping, the server's MOTD (its lines joined), no throttle.
    assert!(extras.ping_ms.is_some_and(|p| p < 50.0), "{extras:?}");
    assert!(
        extras
            .loss_percent
            .is_some_and(|l| (0.0..=100.0).contains(&l))
    );
    assert_eq!(
        extras.motd.as_deref(),
        Some("Welcome to the range / Fly safe")
    );
    assert!(!extras.server_throttled && extras.notices.is_empty());
    client.disconnect("test over");
    client.frame(started.elapsed(), &mut pilot);
    drop(server);
}

const W: u32 = 480;
const H: u32 = 270;
const THRESHOLD: f32 = 0.01;

fn golden_dirs() -> fl_golden::GoldenDirs {
    fl_golden::GoldenDirs::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("netgraph-golden"),
    )
}

/// Twelve seconds of a known connection at 144 fps: RTT wandering about 40 ms with a 95 ms
/// spike at 7 s; 60 Hz snapshots arriving up to 6 ms late, two lost at 4 s and a gap of six
/// at 8 s; a burst of five 2 mm corrections at 3 s, one of 1.2 m at 6.5 s and 0.3 mm ones
/// every second; the delay following the jitter; 6 kB/s in (12 kB/s from 5 s) and 2.5 kB/s
/// out; the server throttling between 9 and 10.5 s.
fn synthetic() -> NetGraph {
    let mut g = NetGraph::new();
    let mut s = NetSample {
        in_world: true,
        ..NetSample::default()
    };
    let fps = 144.0;
    let lost = |tick: u64| (240..242).contains(&tick) || (480..486).contains(&tick);
    // Each snapshot's lateness, ms: a fixed pattern (no randomness).
    let late = |tick: u64| ((tick * 7919) % 13) as f64 * 0.5;
    let mut next_tick = 0u64;
    let mut bytes_in = 0.0f64;
    let mut bytes_out = 0.0f64;
    let dt = 1.0 / fps;
    for f in 0..(12.0 * fps) as u64 {
        let t = f as f64 * dt;
        while (next_tick as f64 / 60.0 + late(next_tick) * 1e-3) <= t {
            if !lost(next_tick) {
                s.snapshots_applied += 1;
                s.last_snapshot_tick = Some(next_tick);
            }
            next_tick += 1;
        }
        let rtt_ms = if (7.0..7.4).contains(&t) {
            95.0
        } else {
            40.0 + 6.0 * (t * 0.9).sin() + 2.0 * (t * 3.1).sin()
        };
        s.rtt = Some(Duration::from_secs_f64(rtt_ms * 1e-3));
        let delay_ms = 36.0 + 8.0 * (t * 0.5).sin().abs() + if t > 8.0 { 12.0 } else { 0.0 };
        s.interpolation_delay = Some(Duration::from_secs_f64(delay_ms * 1e-3));
        bytes_in += if t < 5.0 { 6000.0 } else { 12000.0 } * dt;
        bytes_out += 2500.0 * dt;
        s.bytes_in = bytes_in as u64;
        s.bytes_out = bytes_out as u64;
        let frame = |a: f64| t <= a && a < t + dt;
        for k in 0..5 {
            if frame(3.0 + f64::from(k) * 0.05) {
                s.corrections += 1;
                s.correction_error_sum_m += 0.002;
            }
        }
        if frame(6.5) {
            s.corrections += 1;
            s.correction_error_sum_m += 1.2;
        }
        if (1..12).any(|k| frame(f64::from(k) + 0.25)) {
            s.corrections += 1;
            s.correction_error_sum_m += 0.0003;
        }
        s.server_throttle = (9.0..10.5).contains(&t).then_some((85, 2));
        g.push(Duration::from_secs_f64(t), &s);
    }
    g
}

fn sky_frame() -> Frame {
    let planet = fl_render::frame::PLANET_RADIUS_M;
    let (lat, lon) = (36.0f64.to_radians(), (-115.0f64).to_radians());
    let (_, north, up) = fl_render::sun::east_north_up(lat, lon);
    let pos = DVec3::new(0.0, -planet, 0.0)
        + fl_render::sun::geodetic_direction(lat, lon) * (planet + 1000.0);
    // Looking north, 9° down: the horizon crosses the overlay, bright haze below deep blue.
    let pitch = (-9.0f64).to_radians();
    let dir = north * pitch.cos() + up * pitch.sin();
    Frame {
        camera: Camera::looking_at(pos, pos + dir, up, 60f64.to_radians())
            .with_aspect(f64::from(W) / f64::from(H)),
        sky: SkyParams::at(UtcTime::new(2026, 6, 21, 19, 42, 0.0)),
        lights: Vec::new(),
        instances: Vec::new(),
        terrain: Vec::new(),
    }
}

/// Where the window puts the overlay: the top-right corner, at the preferred size.
fn overlay_rect() -> egui::Rect {
    let size = NetGraph::preferred_size(H as f32, 1.6);
    let margin = 6.0;
    egui::Rect::from_min_size(egui::pos2(W as f32 - margin - size.x, margin), size)
}

fn render(gpu: &Gpu, renderer: &mut Renderer, graph: &NetGraph) -> image::RgbaImage {
    let target = OffscreenTarget::new(&gpu.device, W, H).expect("target");
    renderer
        .render_offscreen(gpu, &sky_frame(), &target)
        .expect("render");
    let ctx = egui::Context::default();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(W as f32, H as f32),
        )),
        ..Default::default()
    };
    let out = ctx.run_ui(input, |ui| graph.draw(ui.painter(), overlay_rect()));
    let ui = UiFrame::from_output(&ctx, out);
    UiPainter::for_offscreen(gpu)
        .paint_offscreen(gpu, &target, ui)
        .expect("paint net graph");
    target.read_rgba(&gpu.device, &gpu.queue).expect("readback")
}

#[test]
fn net_graph_golden_image_from_a_known_sample_set() {
    let graph = synthetic();
    // The sample set is what it says before it is drawn.
    let n: u32 = graph.corrections().iter().map(|(_, k)| k.count).sum();
    assert_eq!(
        n,
        5 + 1 + 10,
        "corrections in the last 10 s (0.3 mm ones at 2.25 to 11.25 s)"
    );
    assert!(
        graph
            .corrections()
            .iter()
            .any(|(_, k)| (k.size_m - 1.2).abs() < 1e-6)
    );
    assert!(
        graph.snapshot_interval_ms().iter().any(|(_, v)| v > 100.0),
        "the 6-tick gap"
    );
    assert!(!graph.server_throttle().is_empty());

    let Some(gpu) = fl_fixtures::adapter_or_skip(Gpu::new()) else {
        return;
    };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let img = render(&gpu, &mut renderer, &graph);
    let dirs = golden_dirs();
    let path = dirs.output_path("netgraph-render.png");
    img.save(&path).expect("write render");
    eprintln!("render netgraph: {}", path.display());
    let again = render(&gpu, &mut renderer, &graph);
    assert!(img == again, "the net graph is not deterministic");
    // The overlay is there: its panel darkens the sky it covers.
    let r = overlay_rect();
    let inside = img.get_pixel(r.center().x as u32, (r.top() + 3.0) as u32).0;
    let outside = img
        .get_pixel((r.left() - 20.0) as u32, (r.top() + 3.0) as u32)
        .0;
    assert!(
        u32::from(inside[0]) + u32::from(inside[1]) + u32::from(inside[2])
            < u32::from(outside[0]) + u32::from(outside[1]) + u32::from(outside[2]),
        "{inside:?} vs {outside:?}"
    );
    dirs.check("netgraph", &img, THRESHOLD);
}
