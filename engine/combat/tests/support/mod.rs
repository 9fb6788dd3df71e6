//! The harness the flyout flows share: the pack's missiles as specs, target aircraft that fly
//! straight or break, a shot loop that dispenses flares and records the seeker, and a reader
//! for the pack's numbers.

use fl_combat::flyout::countermeasures::Decoy;
use fl_combat::flyout::seeker::LockState;
use fl_combat::flyout::spec::{DEFAULT_TIME_OF_FLIGHT_S, DEG_RAD, FT_M, KT_MPS, NM_M};
use fl_combat::flyout::*;
use fl_flight::atmosphere::G0;
use fl_flight::math::{Quat, Vec3};

pub const DT: f64 = 1.0 / 60.0;
pub const ALT: f64 = 5000.0;

pub fn lobe(half_deg: f64, min_nm: f64, max_nm: f64, pod: f64) -> SeekerLobe {
    SeekerLobe {
        az_half_angle_rad: half_deg * DEG_RAD,
        el_half_angle_rad: half_deg * DEG_RAD,
        min_range_m: min_nm * NM_M,
        max_range_m: max_nm * NM_M,
        pod,
    }
}

/// weapons/aim9p.toml + sensors/aim9p_seeker.toml.
pub fn aim9p_params() -> MissileParams {
    MissileParams {
        motor_burn_s: 5.0,
        max_speed_mps: 1500.0 * KT_MPS,
        max_g: 20.0,
        max_range_m: 9.0 * NM_M,
        min_range_m: 0.3 * NM_M,
        time_of_flight_s: DEFAULT_TIME_OF_FLIGHT_S,
        blast_radius_m: 30.0 * FT_M,
        damage: 60.0,
        flare_susceptibility: 0.6,
        chaff_susceptibility: 0.0,
        notch_susceptibility: 0.0,
        seeker: SeekerParams {
            kind: SeekerKind::Infrared,
            fire_and_forget: true,
            search: lobe(25.0, 0.0, 5.0, 0.55),
            track: lobe(20.0, 0.0, 4.0, 0.90),
            lock_hold_s: 1.0,
        },
        drag_k_m2_per_kg: None,
    }
}

pub fn aim9p() -> MissileSpec {
    MissileSpec::new(aim9p_params()).expect("the pack's AIM-9P is a valid spec")
}

/// weapons/aim7m.toml + sensors/aim7m_seeker.toml.
pub fn aim7m() -> MissileSpec {
    MissileSpec::new(MissileParams {
        motor_burn_s: 10.0,
        max_speed_mps: 2350.0 * KT_MPS,
        max_g: 25.0,
        max_range_m: 20.0 * NM_M,
        min_range_m: 0.5 * NM_M,
        time_of_flight_s: DEFAULT_TIME_OF_FLIGHT_S,
        blast_radius_m: 40.0 * FT_M,
        damage: 90.0,
        flare_susceptibility: 0.0,
        chaff_susceptibility: 0.5,
        notch_susceptibility: 0.5,
        seeker: SeekerParams {
            kind: SeekerKind::SemiActiveRadar,
            fire_and_forget: false,
            search: lobe(25.0, 0.3, 14.0, 0.50),
            track: lobe(20.0, 0.2, 12.0, 0.85),
            lock_hold_s: 1.5,
        },
        drag_k_m2_per_kg: None,
    })
    .expect("the pack's AIM-7M is a valid spec")
}

/// A target aircraft: straight and level, or in a level break turn from `break_at_s`.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub position: Vec3,
    pub velocity: Vec3,
    pub time_s: f64,
    pub break_at_s: f64,
    /// Turn load in g (horizontal acceleration); sign picks the side.
    pub turn_g: f64,
}

impl Target {
    pub fn straight(position: Vec3, velocity: Vec3) -> Self {
        Target {
            position,
            velocity,
            time_s: 0.0,
            break_at_s: f64::INFINITY,
            turn_g: 0.0,
        }
    }

    pub fn step(&mut self) {
        let v0 = self.velocity;
        if self.time_s >= self.break_at_s && self.turn_g != 0.0 {
            let rate = self.turn_g * G0 / v0.length();
            self.velocity = Quat::from_axis_angle(Vec3::Y, rate * DT).rotate(v0);
        }
        self.position += (v0 + self.velocity) * (0.5 * DT);
        self.time_s += DT;
    }

    pub fn view(&self) -> TargetView {
        TargetView::new(self.position, self.velocity)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Hit(Detonation),
    Miss(MissileEvent),
}

pub struct Shot<'a> {
    pub spec: &'a MissileSpec,
    pub missile: MissileState,
    pub target: Target,
    pub seed: u64,
    /// Launcher lock as a function of the step's tick (1 = the first step; 0 = launch).
    pub lock: &'a dyn Fn(u32) -> bool,
    /// Flares as a function of the target's history (dispensed by the test).
    pub flares: Vec<Decoy>,
    pub flare_at_s: Option<f64>,
    /// The target breaks (at its `turn_g`) once the missile is this close.
    pub break_within_m: Option<f64>,
    pub ever_decoyed: bool,
    /// (tick, seeker state, lateral acceleration) after each step.
    pub trace: Vec<(u32, LockState, Vec3)>,
}

pub fn flat() -> FlatGround {
    FlatGround { height_m: 0.0 }
}

impl<'a> Shot<'a> {
    pub fn new(
        spec: &'a MissileSpec,
        env: &FlyoutEnv<'_>,
        shooter: (Vec3, Vec3),
        target: Target,
        lock: &'a dyn Fn(u32) -> bool,
    ) -> Self {
        let missile = launch(
            spec,
            env,
            &LaunchParams {
                id: 1001,
                position: shooter.0,
                velocity: shooter.1,
                nose: shooter.1,
                target: Some(target.view()),
                launcher_lock: lock(0),
            },
        );
        Shot {
            spec,
            missile,
            target,
            seed: 42,
            lock,
            flares: Vec::new(),
            flare_at_s: None,
            break_within_m: None,
            ever_decoyed: false,
            trace: Vec::new(),
        }
    }

    pub fn run(&mut self, env: &FlyoutEnv<'_>) -> Outcome {
        for tick in 1..=(120 * 60) {
            if let Some(d) = self.break_within_m
                && self.target.break_at_s.is_infinite()
                && (self.missile.position - self.target.position).length() < d
            {
                self.target.break_at_s = self.target.time_s;
            }
            self.target.step();
            if let Some(t) = self.flare_at_s
                && self.flares.is_empty()
                && self.target.time_s >= t
            {
                self.flares.push(Decoy {
                    id: 7,
                    position: self.target.position,
                    velocity: self.target.velocity,
                    age_s: 0.0,
                });
            }
            for f in &mut self.flares {
                // The C++ original's decoy: sheds 60 %/s of its speed and falls at 4 m/s².
                f.position += f.velocity * DT;
                f.velocity = f.velocity * (1.0 - 0.6 * DT) - Vec3::Y * (4.0 * DT);
                f.age_s += DT;
            }
            let inputs = MissileInputs {
                seed: self.seed,
                target: Some(self.target.view()),
                launcher_lock: (self.lock)(tick),
                flares: &self.flares,
                chaff: &[],
            };
            let ev = step(self.spec, &mut self.missile, &inputs, env, DT);
            self.ever_decoyed |= self.missile.seeker.state == LockState::Decoyed;
            self.trace
                .push((tick, self.missile.seeker.state, self.missile.lateral_accel));
            match ev {
                MissileEvent::Flying => {}
                MissileEvent::Detonated(d) => return Outcome::Hit(d),
                other => return Outcome::Miss(other),
            }
        }
        Outcome::Miss(MissileEvent::Flying)
    }
}

pub fn always(_: u32) -> bool {
    true
}

pub fn at(x: f64, z: f64) -> Vec3 {
    Vec3::new(x, ALT, z)
}

/// The value of `key` under `[section]` in a pack TOML (the pack's files are flat `key = value`
/// lines with `#` comments; enough for reading numbers back in a test).
pub fn pack_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_string();
            continue;
        }
        if current != section {
            continue;
        }
        if let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().trim_matches('"').to_string());
        }
    }
    None
}

pub struct PackFile(pub String);

impl PackFile {
    pub fn read(pack: &std::path::Path, rel: &str) -> Self {
        match std::fs::read_to_string(pack.join(rel)) {
            Ok(t) => PackFile(t),
            Err(e) => panic!("{rel}: {e}"),
        }
    }
    pub fn num(&self, section: &str, key: &str) -> f64 {
        match pack_value(&self.0, section, key).map(|v| v.parse::<f64>()) {
            Some(Ok(v)) => v,
            other => panic!("[{section}] {key}: {other:?}"),
        }
    }
    pub fn text(&self, section: &str, key: &str) -> String {
        pack_value(&self.0, section, key).unwrap_or_default()
    }
}

/// A missile spec straight from the pack's weapon and seeker files (the integrator's job, done
/// here the simple way).
pub fn pack_missile(pack: &std::path::Path, name: &str) -> MissileParams {
    let w = PackFile::read(pack, &format!("weapons/{name}.toml"));
    let s = PackFile::read(pack, &format!("sensors/{name}_seeker.toml"));
    let lobe = |sec: &str| SeekerLobe {
        az_half_angle_rad: s.num(sec, "az_half_angle_deg") * DEG_RAD,
        el_half_angle_rad: s.num(sec, "el_half_angle_deg") * DEG_RAD,
        min_range_m: s.num(sec, "min_range_nm") * NM_M,
        max_range_m: s.num(sec, "max_range_nm") * NM_M,
        pod: s.num(sec, "pod"),
    };
    let kind = match w.text("seeker", "type").as_str() {
        "ir" => SeekerKind::Infrared,
        "semi-active-radar" => SeekerKind::SemiActiveRadar,
        "active-radar" => SeekerKind::ActiveRadar,
        other => panic!("{name}: seeker type {other:?}"),
    };
    MissileParams {
        motor_burn_s: w.num("performance", "motor_burn_time_s"),
        max_speed_mps: w.num("performance", "max_speed_kts") * KT_MPS,
        max_g: w.num("performance", "max_g"),
        max_range_m: w.num("performance", "max_range_nm") * NM_M,
        min_range_m: w.num("performance", "min_range_nm") * NM_M,
        time_of_flight_s: DEFAULT_TIME_OF_FLIGHT_S,
        blast_radius_m: w.num("warhead", "blast_radius_ft") * FT_M,
        damage: w.num("warhead", "damage"),
        flare_susceptibility: w.num("countermeasures", "flare_susceptibility"),
        chaff_susceptibility: w.num("countermeasures", "chaff_susceptibility"),
        notch_susceptibility: w.num("countermeasures", "notch_susceptibility"),
        seeker: SeekerParams {
            kind,
            fire_and_forget: w.text("seeker", "fire_and_forget") == "true",
            search: lobe("search"),
            track: lobe("track"),
            lock_hold_s: s.num("track", "lock_hold_s"),
        },
        drag_k_m2_per_kg: None,
    }
}
