//! The flight HUD over a real fl-render sky, offscreen (lavapipe here), at known attitudes built
//! from real states through `instruments::read`: level flight, a 30° climb in a 60° bank,
//! inverted, and high AoA with the stall warning. Golden images (480×270) are compared with
//! NVIDIA FLIP (`FL_UPDATE_GOLDEN=1` rewrites them). Beside the images: the ladder's horizon
//! is the rendered horizon (pixel rows), and the HUD's projection is fl-render's camera
//! projection (the horizon and the flight-path marker through `CameraMatrices`).
//! Without a graphics adapter the GPU tests record a skip (`FL_REQUIRE_GPU=1` fails instead).

use std::path::Path;

use fighters_legacy::hud::projection::Projection;
use fighters_legacy::hud::{self, HudExtras, HudSettings, Units};
use fighters_legacy::instruments::{self, Reading};
use fl_flight::env::{FlatFloor, WindField};
use fl_flight::geodetic::{Enu, Geodetic, orientation, to_world};
use fl_flight::gravity::Planet;
use fl_flight::{AircraftModel, AircraftState, StepEnv};
use fl_render::sun::UtcTime;
use fl_render::{Camera, Frame, Gpu, OffscreenTarget, Renderer, SkyParams, UiFrame, UiPainter};
use glam::{DQuat, DVec3, Vec4};

const W: u32 = 480;
const H: u32 = 270;
const DEG: f64 = std::f64::consts::PI / 180.0;
const G0: f64 = 9.806_65;
/// Mean FLIP allowed against a reference.
const THRESHOLD: f32 = 0.01;

fn gpu() -> Option<Gpu> {
    fl_fixtures::adapter_or_skip(Gpu::new())
}

fn golden_dirs() -> fl_golden::GoldenDirs {
    fl_golden::GoldenDirs::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("hud-golden"),
    )
}

fn model() -> AircraftModel {
    let content = fl_content::Content::builtin().expect("builtin content");
    let (m, _) = content
        .load_flight_model(fl_content::builtin::JET_TRAINER_FLIGHT_MODEL)
        .expect("builtin trainer");
    (*m).clone()
}

/// Where and how the aircraft flies: 36° N 115° W (Nevada), `alt_m` up, nose on
/// heading/pitch/roll (degrees), `speed` m/s along a path `climb` degrees up on the same
/// heading, pulling `g`.
struct Flight {
    alt_m: f64,
    attitude: (f64, f64, f64),
    speed: f64,
    climb: f64,
    g: f64,
}

fn state(planet: &Planet, m: &AircraftModel, f: &Flight) -> AircraftState {
    let pos = to_world(planet, Geodetic::from_degrees(36.0, -115.0, f.alt_m));
    let enu = Enu::at(planet, pos);
    let (heading, pitch, roll) = f.attitude;
    let dir = enu.horizontal_direction(heading * DEG) * (f.climb * DEG).cos()
        + enu.up * (f.climb * DEG).sin();
    let mut s = AircraftState::flying(pos, 0.0, 0.0, m.max_fuel_kg * 0.5);
    s.orientation = orientation(&enu, heading * DEG, pitch * DEG, roll * DEG);
    s.velocity = dir * f.speed;
    // The accelerometer: lift along the body's NACA −z.
    s.specific_force = fl_flight::math::Vec3::new(0.0, 0.0, -f.g * G0);
    s
}

fn read(planet: &Planet, m: &AircraftModel, s: &AircraftState) -> Reading {
    let (wind, floor) = (WindField::default(), FlatFloor::default());
    let env = StepEnv {
        planet,
        wind: &wind,
        floor: &floor,
        tick: 0,
        entity: 0,
        aero: true,
    };
    instruments::read(m, s, &env)
}

/// The 3D camera looking out of the nose: the aircraft's own position and orientation.
fn camera(s: &AircraftState, fov_deg: f64) -> Camera {
    let q = s.orientation;
    Camera {
        position: DVec3::new(s.position.x, s.position.y, s.position.z),
        orientation: DQuat::from_xyzw(q.x, q.y, q.z, q.w),
        vertical_fov_rad: fov_deg * DEG,
        aspect: f64::from(W) / f64::from(H),
        near_m: 0.25,
    }
}

fn frame(s: &AircraftState, fov_deg: f64) -> Frame {
    Frame {
        camera: camera(s, fov_deg),
        // Local noon over Nevada at midsummer: the sun high in the south, the sky at its
        // brightest (the hardest background for green symbology).
        sky: SkyParams::at(UtcTime::new(2026, 6, 21, 19, 42, 0.0)),
        lights: Vec::new(),
        instances: Vec::new(),
        terrain: Vec::new(),
    }
}

fn screen() -> egui::Rect {
    egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(W as f32, H as f32))
}

/// The scene for `s`, with the HUD for `reading` over it when `hud` is given.
fn render(
    gpu: &Gpu,
    renderer: &mut Renderer,
    s: &AircraftState,
    hud: Option<(&Reading, &HudExtras, &HudSettings)>,
    fov_deg: f64,
) -> image::RgbaImage {
    let target = OffscreenTarget::new(&gpu.device, W, H).expect("target");
    renderer
        .render_offscreen(gpu, &frame(s, fov_deg), &target)
        .expect("render");
    if let Some((reading, extras, settings)) = hud {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(screen()),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| {
            hud::draw(ui.painter(), screen(), reading, extras, settings);
        });
        let ui = UiFrame::from_output(&ctx, out);
        UiPainter::for_offscreen(gpu)
            .paint_offscreen(gpu, &target, ui)
            .expect("paint hud");
    }
    target.read_rgba(&gpu.device, &gpu.queue).expect("readback")
}

fn level() -> Flight {
    Flight {
        alt_m: 3_000.0,
        attitude: (0.0, 3.0, 0.0),
        speed: 160.0,
        climb: 0.0,
        g: 1.0,
    }
}

#[test]
fn hud_golden_images_at_four_attitudes() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let planet = Planet::default();
    let m = model();
    let stall_deg = m.alpha_stall / DEG;
    let imperial = HudSettings::default();
    let metric = HudSettings {
        units: Units::Metric,
        ..HudSettings::default()
    };

    struct Case {
        name: &'static str,
        flight: Flight,
        setup: fn(&mut AircraftState),
        extras: HudExtras,
        settings: HudSettings,
        check: fn(&Reading),
    }
    let cases = [
        Case {
            name: "hud_level",
            flight: level(),
            setup: |s| s.spool = 0.8,
            extras: HudExtras {
                max_g: 1.8,
                bingo_fuel_kg: 300.0,
                ping_ms: Some(42.0),
                loss_percent: Some(0.3),
                motd: Some("Welcome to the Nevada range".into()),
                ..HudExtras::default()
            },
            settings: imperial,
            check: |r| {
                assert!(r.pitch_rad.abs() - 3.0 * DEG < 1e-9 && r.roll_rad.abs() < 1e-9);
                assert!(!r.stall_warning);
            },
        },
        Case {
            name: "hud_climb_30_bank_60",
            flight: Flight {
                alt_m: 2_000.0,
                attitude: (45.0, 34.0, 60.0),
                speed: 220.0,
                climb: 30.0,
                g: 2.0,
            },
            setup: |s| {
                s.spool = 1.0;
                s.afterburner = 1.0;
            },
            extras: HudExtras {
                max_g: 3.2,
                bingo_fuel_kg: 300.0,
                ..HudExtras::default()
            },
            settings: imperial,
            check: |r| {
                assert!((r.roll_rad - 60.0 * DEG).abs() < 1e-9, "{r:?}");
                assert!(r.vertical_speed_mps > 100.0, "climbing: {r:?}");
            },
        },
        Case {
            name: "hud_inverted",
            flight: Flight {
                alt_m: 4_000.0,
                attitude: (270.0, -2.0, 180.0),
                speed: 180.0,
                climb: 0.0,
                g: -1.0,
            },
            setup: |s| s.spool = 0.9,
            extras: HudExtras {
                max_g: 4.1,
                ping_ms: Some(180.0),
                loss_percent: Some(4.5),
                server_throttled: true,
                notices: vec!["Server restarting in 5 minutes".into()],
                ..HudExtras::default()
            },
            settings: imperial,
            check: |r| {
                assert!((r.roll_rad.abs() - 180.0 * DEG).abs() < 1e-6, "{r:?}");
                assert!(r.g < 0.0);
            },
        },
        Case {
            name: "hud_high_aoa_stall",
            flight: Flight {
                alt_m: 600.0,
                attitude: (120.0, 10.0 + 0.95 * stall_deg, 0.0),
                speed: 80.0,
                climb: 10.0,
                g: 1.0,
            },
            setup: |s| {
                s.spool = 1.0;
                s.gear = 1.0;
                s.flaps = 0.5;
                s.fuel_kg = 150.0;
            },
            extras: HudExtras {
                max_g: 2.0,
                bingo_fuel_kg: 300.0,
                ..HudExtras::default()
            },
            settings: metric,
            check: |r| {
                assert!(r.stall_warning && r.stall_fraction >= 0.9, "{r:?}");
                assert_eq!(hud::aoa_band(r.stall_fraction), hud::AoaBand::Warning);
            },
        },
        Case {
            name: "hud_combat_cues",
            flight: Flight {
                alt_m: 3_000.0,
                attitude: (30.0, 5.0, 40.0),
                speed: 200.0,
                climb: 0.0,
                g: 3.0,
            },
            setup: |s| {
                s.spool = 0.9;
                // Pulling: the gun sight lags the nose.
                s.body_rates = fl_flight::math::Vec3::new(0.0, 0.15, 0.02);
            },
            extras: HudExtras {
                max_g: 5.0,
                combat: Some(combat_cues()),
                scopes: Some(scopes()),
                ..HudExtras::default()
            },
            settings: imperial,
            check: |r| assert!(r.roll_rad > 0.5, "{r:?}"),
        },
        Case {
            // Built by `hud::cues` from a constructed `MsgDatalink` and own combat state.
            name: DATALINK_CASE,
            flight: Flight {
                alt_m: 3_000.0,
                attitude: (30.0, 5.0, 20.0),
                speed: 200.0,
                climb: 0.0,
                g: 2.0,
            },
            setup: |s| s.spool = 0.9,
            extras: HudExtras {
                max_g: 4.0,
                ..HudExtras::default()
            },
            settings: metric,
            check: |r| assert!(r.roll_rad > 0.2, "{r:?}"),
        },
        Case {
            // A mission: the next objective top left, two radio calls wrapped above a notice.
            name: "hud_mission",
            flight: level(),
            setup: |s| s.spool = 0.8,
            extras: HudExtras {
                max_g: 1.2,
                objective: Some("OBJ DESTROY DRONE".into()),
                radio: vec![
                    (
                        "drone".into(),
                        "Range control: drone is up, orbiting left at three thousand. Range is \
                         hot."
                            .into(),
                    ),
                    (
                        "drone".into(),
                        "Range control: hits observed on the drone. Keep on it.".into(),
                    ),
                ],
                notices: vec!["Server restarting in 5 minutes".into()],
                ..HudExtras::default()
            },
            settings: imperial,
            check: |r| assert!(r.roll_rad.abs() < 1e-9, "{r:?}"),
        },
    ];

    let dirs = golden_dirs();
    let mut images = Vec::new();
    for case in &cases {
        let mut s = state(&planet, &m, &case.flight);
        (case.setup)(&mut s);
        let r = read(&planet, &m, &s);
        (case.check)(&r);
        let mut extras = case.extras.clone();
        if case.name == DATALINK_CASE {
            let (cues, scopes) = datalink_cues(&s, &planet);
            assert!(cues.target.is_some() && cues.envelope.is_some() && scopes.is_some());
            extras.combat = Some(cues);
            extras.scopes = scopes;
        } else if let Some(cues) = &mut extras.combat {
            // The gun sight from the state itself, for a target 600 m away.
            cues.gun = hud::combat::gun_pipper(&s, planet.gravity(s.position), 1_000.0, 600.0);
            assert!(cues.gun.is_some());
        }
        let extras = &extras;
        let fov = case.settings.vertical_fov_deg;
        let hud = Some((&r, extras, &case.settings));
        let scene = render(&gpu, &mut renderer, &s, None, fov);
        let img = render(&gpu, &mut renderer, &s, hud, fov);
        let path = dirs.output_path(&format!("{}-render.png", case.name));
        img.save(&path).expect("write render");
        eprintln!("render {}: {}", case.name, path.display());
        // The HUD is there: many pixels changed.
        let changed = img
            .pixels()
            .zip(scene.pixels())
            .filter(|(a, b)| a.0 != b.0)
            .count();
        assert!(
            changed > 2_000,
            "{}: only {changed} pixels changed",
            case.name
        );
        // The same inputs draw the same image (no clock, no state).
        let again = render(&gpu, &mut renderer, &s, hud, fov);
        assert!(img == again, "{}: the HUD is not deterministic", case.name);
        images.push((case.name, img));
    }
    // Every case rendered and checked before the first golden comparison can fail.
    for (name, img) in &images {
        dirs.check(name, img, THRESHOLD);
    }
}

/// A missile shot and a gun solution on one target: the box, the seeker diamond, the launch zone
/// with the target inside it, the weapon, the feed and a kill message.
fn combat_cues() -> hud::combat::CombatCues {
    use hud::combat::{CombatCues, Envelope, SeekerCue, TargetCue, WeaponStatus};
    CombatCues {
        weapon: Some(WeaponStatus {
            label: "AIM-9P".into(),
            count: 2,
            detail: String::new(),
        }),
        gun: None,
        target: Some(TargetCue {
            right_rad: 0.06,
            up_rad: 0.04,
            range_m: 2_400.0,
            closure_mps: 60.0,
            locked: true,
        }),
        seeker: Some(SeekerCue {
            right_rad: 0.06,
            up_rad: 0.04,
            tracking: true,
        }),
        envelope: Some(Envelope {
            min_m: 550.0,
            no_escape_m: 1_800.0,
            max_m: 4_500.0,
            range_m: 2_400.0,
        }),
        feed: vec![
            "Viper 1 [AIM-9P] Bandit 2".into(),
            "Bandit 3 [GUN] Viper 4".into(),
        ],
        message: Some("KILL Bandit 2".into()),
    }
}

/// The golden case whose cues `hud::cues` builds from data.
const DATALINK_CASE: &str = "hud_datalink_cues";

/// The cues as flight builds them: an F-5E-like loadout (a gun with 212 rounds, one AIM-9P of
/// two left, the second selected), and a team picture with a locked foe 2.4 km ahead a little
/// right and up, a friend off the left, an unknown coasting, a search and a lock strobe.
fn datalink_cues(
    s: &AircraftState,
    planet: &Planet,
) -> (hud::combat::CombatCues, Option<hud::scopes::Scopes>) {
    use fl_combat::own::{OwnCombat, OwnStore, StoreKind};
    use fl_flight::math::Vec3;
    use fl_protocol::enums::{ContactState, Identification, SensorType, ThreatLevel};
    use fl_protocol::msg::combat::{
        Datalink, DatalinkThreat, DatalinkTrack, TRACK_FLAG_FIRING_QUALITY,
    };
    use hud::cues::{CueInputs, StationInfo};
    let ahead = |x: f64, y: f64, z: f64| {
        let w = s.orientation.rotate(Vec3::new(x, y, z));
        [w.x as f32, w.y as f32, w.z as f32]
    };
    let track = |idx, rel_pos, ident, state, flags| DatalinkTrack {
        target_idx: idx,
        type_index: 0,
        target_gen: 1,
        faction_index: 2,
        state,
        ident,
        sensor_type_mask: 1,
        flags,
        rel_pos,
        rel_vel: [0.0, 0.0, 0.0],
    };
    let threat = |rel_pos, level| DatalinkThreat {
        emitter_idx: 40,
        emitter_type_index: 0,
        emitter_gen: 1,
        emitter_faction_index: 2,
        channel: SensorType::Radar,
        level,
        ident: Identification::Foe,
        flags: 0,
        rel_pos,
    };
    let dl = Datalink {
        flags: 0,
        tick_index: 600,
        origin: [s.position.x, s.position.y, s.position.z],
        tracks: vec![
            track(
                3,
                ahead(160.0, 90.0, -2_400.0),
                Identification::Foe,
                ContactState::Locked,
                TRACK_FLAG_FIRING_QUALITY,
            ),
            track(
                4,
                ahead(-3_500.0, 0.0, -6_000.0),
                Identification::Friend,
                ContactState::Detected,
                0,
            ),
            track(
                5,
                ahead(-6_000.0, 200.0, -6_000.0),
                Identification::Unknown,
                ContactState::Coasting,
                0,
            ),
        ],
        threats: vec![
            threat(ahead(400.0, 90.0, -2_400.0), ThreatLevel::Lock),
            threat(ahead(-9_000.0, 0.0, 5_000.0), ThreatLevel::Search),
        ],
    };
    let info = |label: &str, rounds, muzzle, reach, seeker| {
        Some(StationInfo {
            label: label.into(),
            rounds,
            muzzle_mps: muzzle,
            reach_m: reach,
            seeker,
        })
    };
    let stations = vec![
        info("M39", 280, Some(1_000.0), None, false),
        info("AIM-9P", 1, None, Some((550.0, 4_500.0)), true),
        info("AIM-9P", 1, None, Some((550.0, 4_500.0)), true),
    ];
    let store = |station, kind, weapon_key, rounds| OwnStore {
        station,
        kind,
        weapon_key,
        rounds,
        full_rounds: rounds,
        gun_units: 0,
        rate_milli_rpm: 0,
        mass_kg: 1.0,
        drag_cd0: 0.0,
    };
    let combat = OwnCombat {
        station_count: 3,
        selected: Some(2),
        chaff: 12,
        flares: 15,
        stores: vec![
            store(0, StoreKind::Gun, 0, 212),
            store(2, StoreKind::Releasable, 1, 1),
        ],
        ..OwnCombat::default()
    };
    hud::cues::build(&CueInputs {
        state: s,
        gravity: planet.gravity(s.position),
        own_index: Some(9),
        combat: Some(&combat),
        stations: &stations,
        datalink: Some(&dl),
        designated: None,
        radar_mode: "STT",
    })
}

/// The B-scope and the RWR: a locked foe ahead, a friend, an unknown coasting off the left, and
/// three strobes (a search, a lock and a launch).
fn scopes() -> hud::scopes::Scopes {
    use hud::scopes::{Ident, RwrStrobe, ScopeContact, Scopes, StrobeLevel};
    let deg = |d: f64| d.to_radians();
    let contact = |az: f64, range_m: f64, ident, locked, coasting, heading: f64| ScopeContact {
        azimuth_rad: deg(az),
        range_m,
        ident,
        locked,
        coasting,
        heading_rad: Some(deg(heading)),
    };
    Scopes {
        contacts: vec![
            contact(4.0, 2_400.0, Ident::Foe, true, false, 170.0),
            contact(-30.0, 7_000.0, Ident::Friend, false, false, 10.0),
            contact(-45.0, 8_500.0, Ident::Unknown, false, true, 90.0),
        ],
        strobes: vec![
            RwrStrobe {
                bearing_rad: deg(10.0),
                level: StrobeLevel::Lock,
                channel: 'R',
                ident: Ident::Foe,
            },
            RwrStrobe {
                bearing_rad: deg(-120.0),
                level: StrobeLevel::Search,
                channel: 'R',
                ident: Ident::Foe,
            },
            RwrStrobe {
                bearing_rad: deg(150.0),
                level: StrobeLevel::Launch,
                channel: 'R',
                ident: Ident::Foe,
            },
        ],
        radar_mode: "STT".into(),
    }
}

/// The row in column `x` where the sky meets the ground: the largest brightness step within
/// `window` rows of `near`.
fn horizon_row(img: &image::RgbaImage, x: u32, near: f32, window: u32) -> f32 {
    let lum = |y: u32| {
        let p = img.get_pixel(x, y).0;
        0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])
    };
    let lo = (near as i64 - i64::from(window)).max(0) as u32;
    let hi = ((near as i64 + i64::from(window)) as u32).min(img.height() - 2);
    (lo..=hi)
        .max_by(|&a, &b| {
            let da = (lum(a) - lum(a + 1)).abs();
            let db = (lum(b) - lum(b + 1)).abs();
            da.total_cmp(&db)
        })
        .map_or(-1.0, |y| y as f32 + 1.0)
}

/// The screen row of the line through `p` along `axis` at column `x`.
fn row_on_line(p: egui::Pos2, axis: egui::Vec2, x: f32) -> f32 {
    p.y + (x - p.x) * axis.y / axis.x
}

#[test]
fn the_ladder_horizon_lies_on_the_rendered_horizon() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = Renderer::new(&gpu).expect("renderer");
    let planet = Planet::default();
    let m = model();
    for attitude in [(0.0, 8.0, 25.0), (200.0, -5.0, -20.0), (90.0, 0.0, 0.0)] {
        let flight = Flight {
            alt_m: 300.0,
            attitude,
            speed: 150.0,
            climb: 0.0,
            g: 1.0,
        };
        let s = state(&planet, &m, &flight);
        let r = read(&planet, &m, &s);
        let scene = render(&gpu, &mut renderer, &s, None, 60.0);
        let proj = Projection::new(screen(), 60.0, r.roll_rad);
        let zero = proj.rung_centre(0.0, r.pitch_rad).expect("in view");
        // The planet's horizon dips below the level line by acos(R / (R + h)).
        let dip = (planet.radius_m / (planet.radius_m + flight.alt_m)).acos();
        let seen = proj.rung_centre(-dip, r.pitch_rad).expect("in view");
        for x in [100u32, 380] {
            let xf = x as f32 + 0.5;
            let ladder = row_on_line(zero, proj.rung_axis(), xf);
            let expected = row_on_line(seen, proj.rung_axis(), xf);
            assert!(
                (10.0..H as f32 - 10.0).contains(&expected),
                "{attitude:?} column {x}: the horizon is in view ({expected})"
            );
            let rendered = horizon_row(&scene, x, expected, 30);
            eprintln!(
                "{attitude:?} x={x}: ladder 0° at {ladder:.1}, dipped {expected:.1}, rendered {rendered}"
            );
            assert!(
                (rendered - expected).abs() <= 1.5,
                "{attitude:?} column {x}: rendered horizon at row {rendered}, the HUD's \
                 projection of the dipped horizon at {expected:.1}"
            );
            assert!(
                (rendered - ladder).abs() <= 1.5 + (expected - ladder).abs(),
                "{attitude:?} column {x}: ladder 0° at {ladder:.1}, horizon at {rendered}"
            );
        }
    }
}

/// A world point seen by `camera` on a `W`×`H` image (pixels, y down), or `None` behind it.
fn project(camera: &Camera, dir: DVec3) -> Option<egui::Pos2> {
    let mats = fl_render::camera::CameraMatrices::new(camera);
    let d = (dir * 1_000.0).as_vec3();
    let c = mats.view_proj * Vec4::new(d.x, d.y, d.z, 1.0);
    (c.w > 0.0).then(|| {
        egui::pos2(
            (c.x / c.w * 0.5 + 0.5) * W as f32,
            (0.5 - c.y / c.w * 0.5) * H as f32,
        )
    })
}

#[test]
fn the_hud_projection_is_the_render_camera_projection() {
    let planet = Planet::default();
    let m = model();
    for (attitude, climb, fov) in [
        ((30.0, 12.0, 40.0), 5.0, 60.0),
        ((300.0, -20.0, -75.0), -10.0, 45.0),
        ((0.0, 2.0, 170.0), 0.0, 80.0),
    ] {
        let flight = Flight {
            alt_m: 1_000.0,
            attitude,
            speed: 150.0,
            climb,
            g: 1.0,
        };
        let s = state(&planet, &m, &flight);
        let r = read(&planet, &m, &s);
        let cam = camera(&s, fov);
        let proj = Projection::new(screen(), fov, r.roll_rad);
        // Level directions around the compass land on the ladder's 0° line.
        let pos = DVec3::new(s.position.x, s.position.y, s.position.z);
        let up = (pos - DVec3::new(0.0, -planet.radius_m, 0.0)).normalize();
        let east = DVec3::Y.cross(up).normalize();
        let north = up.cross(east);
        let zero = proj.rung_centre(0.0, r.pitch_rad).expect("in view");
        let axis = proj.rung_axis();
        let normal = egui::vec2(-axis.y, axis.x);
        let mut seen = 0;
        for az in (0..360).step_by(5) {
            let a = f64::from(az) * DEG;
            let dir = east * a.sin() + north * a.cos();
            let Some(p) = project(&cam, dir) else {
                continue;
            };
            if !screen().expand(50.0).contains(p) {
                continue;
            }
            let off = (p - zero).dot(normal);
            assert!(
                off.abs() < 0.05,
                "{attitude:?}: level azimuth {az} at {p:?} is {off} px off the 0° line"
            );
            seen += 1;
        }
        assert!(seen >= 2, "{attitude:?}: the horizon was in view");
        // The 10° line's centre: the direction 10° above the nose's heading.
        let h = r.heading_rad;
        let dir10 =
            (east * h.sin() + north * h.cos()) * (10.0 * DEG).cos() + up * (10.0 * DEG).sin();
        if let (Some(p), Some(q)) = (
            project(&cam, dir10),
            proj.rung_centre(10.0 * DEG, r.pitch_rad),
        ) {
            assert!(
                (p - q).length() < 0.05,
                "{attitude:?}: 10° rung {q:?} vs {p:?}"
            );
        }
        // The flight-path marker is the velocity's projection.
        let v = DVec3::new(s.velocity.x, s.velocity.y, s.velocity.z).normalize();
        let (right, upa) = r.flight_path_rad.expect("moving");
        let want = project(&cam, v).expect("ahead");
        let got = proj.flight_path(right, upa).expect("ahead");
        assert!(
            (want - got).length() < 0.05,
            "{attitude:?}: marker {got:?}, velocity at {want:?}"
        );
    }
}
