//! The game's cameras: cockpit (the pilot's eye, head pushed down by G and turned by the
//! mouse), chase (an orbit behind the aircraft that follows it smoothly; mouse orbits, wheel
//! zooms), fly-by (a fixed point ahead of the track the aircraft passes) and free (an orbit
//! fixed to the world's axes, not to the aircraft). Every motion is an exponential approach
//! with a time constant, so it looks the same at any frame rate, and the eye is kept above the
//! ground.
//!
//! Owns only the camera's state and math. Must not read the terrain (the window passes the
//! ground height under the last eye, from `fl_scene::GroundProbe`) or know the renderer.

use glam::{DQuat, DVec3};

/// Which camera is looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CameraMode {
    Cockpit,
    Chase,
    FlyBy,
    Free,
}

impl CameraMode {
    /// The next mode in the cycle (the camera key).
    pub fn next(self) -> CameraMode {
        match self {
            CameraMode::Cockpit => CameraMode::Chase,
            CameraMode::Chase => CameraMode::FlyBy,
            CameraMode::FlyBy => CameraMode::Free,
            CameraMode::Free => CameraMode::Cockpit,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CameraMode::Cockpit => "cockpit",
            CameraMode::Chase => "chase",
            CameraMode::FlyBy => "fly-by",
            CameraMode::Free => "free",
        }
    }
}

/// What the camera looks at: an aircraft's pose (body X right, Y up, Z aft).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subject {
    pub position: DVec3,
    pub orientation: DQuat,
    pub velocity: DVec3,
    /// Load factor along body up, g (pushes the cockpit eye down).
    pub load_factor_g: f64,
}

/// Where the eye is and where it looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eye {
    pub position: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    /// Unit up hint.
    pub up: DVec3,
    /// Nearest distance drawn, m (small in the cockpit).
    pub near_m: f64,
}

/// Lowest the eye goes above the ground under it, m.
pub const MIN_EYE_CLEARANCE_M: f64 = 2.0;
/// Time constant of the chase camera's follow, s.
const CHASE_LAG_S: f64 = 0.25;
/// Time constant of the cockpit head's motion under G, s.
const HEAD_LAG_S: f64 = 0.15;
/// Head drop per g above 1, m (a pilot's head sinks under load), at most [`MAX_HEAD_DROP_M`].
const HEAD_DROP_PER_G_M: f64 = 0.012;
const MAX_HEAD_DROP_M: f64 = 0.1;
/// Chase distance limits, m.
pub const MIN_CHASE_M: f64 = 8.0;
pub const MAX_CHASE_M: f64 = 400.0;
/// Fly-by: the point is put this far ahead of the aircraft, and moved when it is this far
/// behind.
const FLYBY_AHEAD_S: f64 = 4.0;
const FLYBY_RESET_M: f64 = 1_500.0;

/// The camera rig: the mode and everything that moves smoothly.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraRig {
    pub mode: CameraMode,
    /// Mouse orbit around the subject, radians (chase and free; head turn in the cockpit).
    pub yaw_rad: f64,
    pub pitch_rad: f64,
    /// Chase / free distance, m.
    pub distance_m: f64,
    /// The cockpit eye in the body frame, m (from the model's camera anchor when it has one).
    pub cockpit_eye_body: DVec3,
    /// The smoothed chase orientation (None: snap on the next update).
    follow: Option<DQuat>,
    head_drop_m: f64,
    flyby_point: Option<DVec3>,
}

impl Default for CameraRig {
    fn default() -> Self {
        Self {
            mode: CameraMode::Chase,
            yaw_rad: 0.0,
            pitch_rad: 0.12,
            distance_m: 22.0,
            cockpit_eye_body: DVec3::new(0.0, 1.0, -3.5),
            follow: None,
            head_drop_m: 0.0,
            flyby_point: None,
        }
    }
}

/// The fraction of the way to a target an exponential approach with time constant `tau`
/// covers in `dt` (frame-rate independent).
fn approach(dt: f64, tau: f64) -> f64 {
    if !(dt.is_finite() && dt > 0.0) {
        return 0.0;
    }
    1.0 - (-dt / tau).exp()
}

fn finite(v: DVec3) -> bool {
    v.is_finite()
}

impl CameraRig {
    /// Cycles the mode (the camera key); the next update snaps where a blend would swing.
    pub fn cycle(&mut self) {
        self.mode = self.mode.next();
        self.follow = None;
        self.flyby_point = None;
        self.yaw_rad = 0.0;
        self.pitch_rad = if self.mode == CameraMode::Cockpit {
            0.0
        } else {
            0.12
        };
    }

    /// Mouse motion (pixels) turns the head (cockpit) or orbits (chase, free).
    pub fn mouse(&mut self, dx: f64, dy: f64) {
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        let k = 0.004;
        self.yaw_rad = (self.yaw_rad - dx * k).rem_euclid(std::f64::consts::TAU);
        let limit = if self.mode == CameraMode::Cockpit {
            1.4
        } else {
            1.5
        };
        self.pitch_rad = (self.pitch_rad + dy * k).clamp(-limit, limit);
    }

    /// Mouse wheel (lines, + = in) zooms the chase and free cameras.
    pub fn zoom(&mut self, lines: f64) {
        if lines.is_finite() {
            self.distance_m =
                (self.distance_m * 0.9f64.powf(lines)).clamp(MIN_CHASE_M, MAX_CHASE_M);
        }
    }

    /// The eye for this frame: `dt` seconds since the last one, `local_up` the planet's up at
    /// the subject, `ground_m` the ground's altitude under the last eye and `eye_altitude` a
    /// function giving a point's altitude above the sphere.
    pub fn update(
        &mut self,
        dt: f64,
        s: &Subject,
        local_up: DVec3,
        ground_m: f64,
        eye_altitude: impl Fn(DVec3) -> f64,
    ) -> Eye {
        let body_up = s.orientation * DVec3::Y;
        let body_fwd = s.orientation * DVec3::NEG_Z;
        let mut eye = match self.mode {
            CameraMode::Cockpit => {
                let g = if s.load_factor_g.is_finite() {
                    s.load_factor_g
                } else {
                    1.0
                };
                let want = ((g - 1.0) * HEAD_DROP_PER_G_M).clamp(-MAX_HEAD_DROP_M, MAX_HEAD_DROP_M);
                self.head_drop_m += (want - self.head_drop_m) * approach(dt, HEAD_LAG_S);
                let head =
                    DQuat::from_rotation_y(self.yaw_rad) * DQuat::from_rotation_x(-self.pitch_rad);
                let look = s.orientation * head;
                Eye {
                    position: s.position
                        + s.orientation * (self.cockpit_eye_body - DVec3::Y * self.head_drop_m),
                    forward: look * DVec3::NEG_Z,
                    up: look * DVec3::Y,
                    near_m: 0.05,
                }
            }
            CameraMode::Chase => {
                // Follows the aircraft's attitude with a lag (the picture rolls with it, but a
                // snap roll does not whip the camera round).
                let target = s.orientation;
                let follow = match self.follow {
                    Some(f) if f.is_finite() => {
                        let t = approach(dt, CHASE_LAG_S);
                        let f = if f.dot(target) < 0.0 { -f } else { f };
                        f.slerp(target, t).normalize()
                    }
                    _ => target,
                };
                self.follow = Some(follow);
                let orbit =
                    DQuat::from_rotation_y(self.yaw_rad) * DQuat::from_rotation_x(-self.pitch_rad);
                let frame = follow * orbit;
                let back = frame * DVec3::Z;
                let position = s.position + back * self.distance_m;
                Eye {
                    position,
                    forward: (s.position + body_up * 1.5 - position).normalize_or(body_fwd),
                    up: frame * DVec3::Y,
                    near_m: 0.5,
                }
            }
            CameraMode::FlyBy => {
                let reset = match self.flyby_point {
                    None => true,
                    Some(p) => {
                        (p - s.position).length() > FLYBY_RESET_M
                            && (p - s.position).dot(s.velocity) < 0.0
                    }
                };
                if reset {
                    let right = s.orientation * DVec3::X;
                    let ahead = if s.velocity.length() > 1.0 {
                        s.velocity * FLYBY_AHEAD_S
                    } else {
                        body_fwd * 200.0
                    };
                    self.flyby_point = Some(s.position + ahead + right * 40.0 + local_up * 10.0);
                }
                let p = self.flyby_point.unwrap_or(s.position + local_up * 50.0);
                Eye {
                    position: p,
                    forward: (s.position - p).normalize_or(body_fwd),
                    up: local_up,
                    near_m: 0.5,
                }
            }
            CameraMode::Free => {
                // An orbit on the local horizon: north-independent, steady however the
                // aircraft turns.
                let east = local_up.cross(DVec3::Y).normalize_or(DVec3::X);
                let north = east.cross(local_up).normalize_or(DVec3::NEG_Z);
                let (sy, cy) = self.yaw_rad.sin_cos();
                let (sp, cp) = self.pitch_rad.sin_cos();
                let dir = (north * cy + east * sy) * cp + local_up * sp;
                let position = s.position - dir * self.distance_m * 3.0;
                Eye {
                    position,
                    forward: (s.position - position).normalize_or(north),
                    up: local_up,
                    near_m: 0.5,
                }
            }
        };
        // Never inside the ground: lift the eye along the local up.
        let alt = eye_altitude(eye.position);
        let floor = ground_m + MIN_EYE_CLEARANCE_M;
        if alt.is_finite() && floor.is_finite() && alt < floor && self.mode != CameraMode::Cockpit {
            eye.position += local_up * (floor - alt);
            if self.mode != CameraMode::FlyBy {
                eye.forward = (s.position - eye.position).normalize_or(eye.forward);
            }
        }
        if !(finite(eye.position) && finite(eye.forward) && finite(eye.up)) {
            // A broken pose (NaN from the network) never reaches the renderer.
            self.follow = None;
            return Eye {
                position: s.position + local_up * 30.0,
                forward: body_fwd.normalize_or(DVec3::NEG_Z),
                up: local_up,
                near_m: 0.5,
            };
        }
        eye
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject {
        Subject {
            position: DVec3::new(0.0, 3_000.0, 0.0),
            orientation: DQuat::IDENTITY,
            velocity: DVec3::new(0.0, 0.0, -200.0),
            load_factor_g: 1.0,
        }
    }

    fn alt(p: DVec3) -> f64 {
        p.y
    }

    #[test]
    fn chase_sits_behind_and_above_and_looks_at_the_aircraft() {
        let mut rig = CameraRig::default();
        let s = subject();
        let e = rig.update(1.0 / 60.0, &s, DVec3::Y, 0.0, alt);
        // Behind = +Z (aft), above = +Y.
        assert!(e.position.z > 15.0 && e.position.y > s.position.y, "{e:?}");
        assert!(e.forward.dot(s.position - e.position) > 0.9 * (s.position - e.position).length());
    }

    #[test]
    fn chase_follows_a_roll_smoothly_and_equally_at_30_and_240_fps() {
        let run = |fps: f64| {
            let mut rig = CameraRig::default();
            let mut s = subject();
            rig.update(1.0 / fps, &s, DVec3::Y, 0.0, alt);
            s.orientation = DQuat::from_rotation_z(1.0);
            let mut e = None;
            for _ in 0..(fps * 0.5).round() as usize {
                e = Some(rig.update(1.0 / fps, &s, DVec3::Y, 0.0, alt));
            }
            e.map(|e| e.up)
        };
        let (a, b) = (
            run(30.0).unwrap_or(DVec3::ZERO),
            run(240.0).unwrap_or(DVec3::ZERO),
        );
        // After two time constants the camera has rolled most of the way, not all of it.
        let rolled = |up: DVec3| up.dot(DVec3::Y).acos();
        assert!(rolled(a) > 0.7 && rolled(a) < 0.95, "{}", rolled(a));
        assert!(
            (rolled(a) - rolled(b)).abs() < 0.02,
            "{} vs {}",
            rolled(a),
            rolled(b)
        );
    }

    #[test]
    fn the_eye_never_goes_below_the_ground() {
        let mut rig = CameraRig::default();
        let mut s = subject();
        s.position.y = 5.0;
        rig.pitch_rad = -1.2;
        let e = rig.update(0.1, &s, DVec3::Y, 4.0, alt);
        assert!(e.position.y >= 4.0 + MIN_EYE_CLEARANCE_M - 1e-9, "{e:?}");
    }

    #[test]
    fn cockpit_head_sinks_under_g_and_looks_ahead() {
        let mut rig = CameraRig {
            mode: CameraMode::Cockpit,
            pitch_rad: 0.0,
            ..CameraRig::default()
        };
        let mut s = subject();
        let level = rig.update(1.0, &s, DVec3::Y, 0.0, alt);
        assert!(level.forward.dot(DVec3::NEG_Z) > 0.999);
        s.load_factor_g = 7.0;
        let pulled = rig.update(1.0, &s, DVec3::Y, 0.0, alt);
        assert!(pulled.position.y < level.position.y - 0.05, "{pulled:?}");
    }

    #[test]
    fn nan_poses_never_reach_the_renderer_and_modes_cycle() {
        let mut rig = CameraRig::default();
        let mut s = subject();
        s.orientation = DQuat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0);
        let e = rig.update(0.1, &s, DVec3::Y, 0.0, alt);
        assert!(e.position.is_finite() && e.forward.is_finite() && e.up.is_finite());
        let mut seen = vec![rig.mode];
        for _ in 0..4 {
            rig.cycle();
            seen.push(rig.mode);
        }
        assert_eq!(seen.first(), seen.last());
        assert_eq!(seen.len(), 5);
        rig.zoom(f64::NAN);
        rig.zoom(100.0);
        assert_eq!(rig.distance_m, MIN_CHASE_M);
    }
}
