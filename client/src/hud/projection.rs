//! The HUD's projection: where a direction seen from the cockpit lands on the screen, through the
//! same pinhole as the 3D camera (fl-render's perspective with the same vertical field of view,
//! looking out of the nose), so the pitch ladder's 0° line lies on the horizon the renderer
//! draws and the flight-path marker on the real velocity vector.
//!
//! Owns: the focal length from the field of view and the screen height, the ladder's rung
//! positions (the nose's vertical plane, rolled about the screen centre by the bank) and the
//! marker's position (fixed to the airframe, not rolled). Must not: draw.

use egui::{Pos2, Rect, Vec2, pos2, vec2};

/// The field of view fl-render accepts, degrees: a wider or narrower one is clamped there, so the
/// HUD clamps it the same way.
pub const FOV_MIN_DEG: f64 = 1.0;
/// See [`FOV_MIN_DEG`].
pub const FOV_MAX_DEG: f64 = 170.0;
/// The field of view used when the setting is not a number, degrees (fl-render's fallback).
pub const FOV_FALLBACK_DEG: f64 = 60.0;
/// Directions this close to 90° off the nose are not projected (they run off to infinity).
const MAX_OFF_AXIS_RAD: f64 = 89.0 * std::f64::consts::PI / 180.0;

/// The screen mapping of one HUD frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// The boresight: the screen centre, where the nose points.
    pub centre: Pos2,
    /// Focal length in screen points: a direction `a` above the nose lands `focal · tan a` above
    /// the centre.
    pub focal: f64,
    /// Bank, rad, positive right wing down (the ladder turns the other way on the screen).
    pub roll_rad: f64,
}

impl Projection {
    /// The projection of a camera with `vertical_fov_deg` filling `screen`, banked `roll_rad`.
    pub fn new(screen: Rect, vertical_fov_deg: f64, roll_rad: f64) -> Projection {
        Projection {
            centre: screen.center(),
            focal: focal_length(f64::from(screen.height()), vertical_fov_deg),
            roll_rad: if roll_rad.is_finite() { roll_rad } else { 0.0 },
        }
    }

    /// A point of the un-banked image plane (`x` right, `y_up` up, points from the centre)
    /// turned about the centre by the bank: a right bank turns the world anticlockwise on the
    /// screen.
    pub fn rolled(&self, x: f64, y_up: f64) -> Pos2 {
        let (s, c) = self.roll_rad.sin_cos();
        let xr = x * c - y_up * s;
        let yr = x * s + y_up * c;
        pos2(
            self.centre.x + xr as f32,
            self.centre.y - yr as f32, // screen y grows downwards
        )
    }

    /// The screen direction of the ladder's rungs (the horizon's direction), unit.
    pub fn rung_axis(&self) -> Vec2 {
        let (s, c) = self.roll_rad.sin_cos();
        vec2(c as f32, -s as f32)
    }

    /// The screen direction "up the ladder" (towards higher pitch lines), unit.
    pub fn ladder_up(&self) -> Vec2 {
        let (s, c) = self.roll_rad.sin_cos();
        vec2(-s as f32, -c as f32)
    }

    /// Height of the pitch line `line_rad` above the boresight in the un-banked image plane
    /// (points), with the nose at `pitch_rad`; `None` when it is 89° or more off the nose.
    pub fn rung_height(&self, line_rad: f64, pitch_rad: f64) -> Option<f64> {
        let off = line_rad - pitch_rad;
        (off.is_finite() && off.abs() < MAX_OFF_AXIS_RAD).then(|| self.focal * off.tan())
    }

    /// The centre of the pitch line `line_rad` on the screen, with the nose at `pitch_rad`.
    pub fn rung_centre(&self, line_rad: f64, pitch_rad: f64) -> Option<Pos2> {
        self.rung_height(line_rad, pitch_rad)
            .map(|h| self.rolled(0.0, h))
    }

    /// Where the velocity vector lands: `right_rad` right of and `up_rad` above the nose in the
    /// aircraft's own axes (fixed to the airframe, so not turned by the bank); `None` when it
    /// points 89° or more away from the nose.
    pub fn flight_path(&self, right_rad: f64, up_rad: f64) -> Option<Pos2> {
        if !(right_rad.is_finite() && up_rad.is_finite()) {
            return None;
        }
        // The body direction (cos u sin r, sin u, −cos u cos r) through the pinhole.
        let (su, cu) = up_rad.sin_cos();
        let (sr, cr) = right_rad.sin_cos();
        let depth = cu * cr;
        if depth < MAX_OFF_AXIS_RAD.cos() {
            return None;
        }
        let x = self.focal * cu * sr / depth;
        let y_up = self.focal * su / depth;
        Some(pos2(self.centre.x + x as f32, self.centre.y - y_up as f32))
    }
}

/// The focal length, in the units of `screen_height`, of a pinhole whose vertical field of view
/// is `vertical_fov_deg` (clamped as fl-render clamps it).
pub fn focal_length(screen_height: f64, vertical_fov_deg: f64) -> f64 {
    let fov = if vertical_fov_deg.is_finite() {
        vertical_fov_deg.clamp(FOV_MIN_DEG, FOV_MAX_DEG)
    } else {
        FOV_FALLBACK_DEG
    };
    0.5 * screen_height / (0.5 * fov.to_radians()).tan()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEG: f64 = std::f64::consts::PI / 180.0;

    fn screen() -> Rect {
        Rect::from_min_size(Pos2::ZERO, vec2(480.0, 270.0))
    }

    #[test]
    fn the_edge_of_the_field_of_view_is_the_edge_of_the_screen() {
        let p = Projection::new(screen(), 60.0, 0.0);
        // 30° above the nose: the top edge.
        let h = p.rung_height(30.0 * DEG, 0.0).expect("in view");
        assert!((h - 135.0).abs() < 1e-9, "{h}");
        assert!((focal_length(270.0, f64::NAN) - focal_length(270.0, 60.0)).abs() < 1e-12);
        assert_eq!(focal_length(270.0, 500.0), focal_length(270.0, 170.0));
    }

    #[test]
    fn nose_up_puts_the_horizon_below_the_centre_and_a_right_bank_tilts_it_anticlockwise() {
        let p = Projection::new(screen(), 60.0, 0.0);
        let c = p.rung_centre(0.0, 10.0 * DEG).expect("in view");
        assert!(c.y > 135.0 && (c.x - 240.0).abs() < 1e-4, "{c:?}");
        let banked = Projection::new(screen(), 60.0, 30.0 * DEG);
        // Right bank: the horizon's right end rises (smaller y) and its left end sinks.
        let right = banked.rolled(100.0, 0.0);
        let left = banked.rolled(-100.0, 0.0);
        assert!(right.y < 135.0 && left.y > 135.0, "{right:?} {left:?}");
        let axis = banked.rung_axis();
        let d = (right - left).normalized();
        assert!((axis - d).length() < 1e-5);
        assert!(banked.ladder_up().dot(axis).abs() < 1e-6);
    }

    #[test]
    fn the_marker_is_fixed_to_the_airframe() {
        let p = Projection::new(screen(), 60.0, 45.0 * DEG);
        let m = p.flight_path(0.0, -3.0 * DEG).expect("ahead");
        // 3° below the nose, straight down the screen whatever the bank.
        assert!((m.x - 240.0).abs() < 1e-4);
        assert!((f64::from(m.y) - 135.0 - p.focal * (3.0 * DEG).tan()).abs() < 1e-3);
        assert_eq!(p.flight_path(100.0 * DEG, 0.0), None);
        assert_eq!(p.flight_path(f64::NAN, 0.0), None);
    }
}
