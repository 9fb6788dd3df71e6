//! Camera-relative transforms and the reverse-Z projection.
//!
//! The world stays f64. Every position sent to the GPU is `world − camera` computed in f64 and
//! only then cast to f32, so precision is finest where the viewer looks: at 5,900 km from the
//! origin an f32 world coordinate has a 0.5 m step, a camera-relative one near the camera
//! micrometres. The view matrix is therefore a pure rotation. Depth is reverse-Z with an infinite
//! far plane: the near plane maps to 1, infinity to 0, cleared to 0 and tested `Greater`, so a
//! Depth32Float buffer keeps ~7 significant digits of *relative* depth at every distance.

use glam::{DMat4, DQuat, DVec3, Mat4};

use crate::frame::Camera;

/// Vertical field of view bounds, radians (1°…170°).
const FOV_MIN: f64 = 1.0 * std::f64::consts::PI / 180.0;
const FOV_MAX: f64 = 170.0 * std::f64::consts::PI / 180.0;

/// The f32 matrices a frame draws with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraMatrices {
    /// World-to-camera rotation (no translation: positions are already camera-relative).
    pub view: Mat4,
    /// Reverse-Z infinite perspective projection.
    pub proj: Mat4,
    /// `proj * view`.
    pub view_proj: Mat4,
}

impl CameraMatrices {
    /// The matrices of `camera`. Non-finite or out-of-range fields are clamped, never a panic.
    pub fn new(camera: &Camera) -> Self {
        let fov = if camera.vertical_fov_rad.is_finite() {
            camera.vertical_fov_rad.clamp(FOV_MIN, FOV_MAX)
        } else {
            60f64.to_radians()
        };
        let aspect = if camera.aspect.is_finite() && camera.aspect > 1e-3 {
            camera.aspect.min(1e3)
        } else {
            1.0
        };
        let near = if camera.near_m.is_finite() && camera.near_m > 1e-4 {
            camera.near_m
        } else {
            0.25
        };
        let rot = sanitize_quat(camera.orientation);
        let view = DMat4::from_quat(rot.inverse()).as_mat4();
        let proj = reverse_z_infinite(fov, aspect, near);
        CameraMatrices {
            view,
            proj,
            view_proj: proj * view,
        }
    }
}

/// Right-handed perspective with clip depth in [0, 1], reversed and with the far plane at
/// infinity: a point at view distance `d` (in front, view z = −d) gets depth `near / d`.
pub fn reverse_z_infinite(vertical_fov: f64, aspect: f64, near: f64) -> Mat4 {
    let f = 1.0 / (0.5 * vertical_fov).tan();
    DMat4::from_cols(
        glam::DVec4::new(f / aspect, 0.0, 0.0, 0.0),
        glam::DVec4::new(0.0, f, 0.0, 0.0),
        glam::DVec4::new(0.0, 0.0, 0.0, -1.0),
        glam::DVec4::new(0.0, 0.0, near, 0.0),
    )
    .as_mat4()
}

/// A unit quaternion, or identity for a zero or non-finite one.
pub fn sanitize_quat(q: DQuat) -> DQuat {
    if q.is_finite() && q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        DQuat::IDENTITY
    }
}

/// The f32 model matrix of a thing at `position` with `orientation` and `scale`, relative to the
/// camera at `camera_position`: the subtraction happens in f64.
pub fn relative_model_matrix(
    camera_position: DVec3,
    position: DVec3,
    orientation: DQuat,
    scale: f64,
) -> Mat4 {
    let rel = position - camera_position;
    DMat4::from_scale_rotation_translation(DVec3::splat(scale), sanitize_quat(orientation), rel)
        .as_mat4()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4;

    #[test]
    fn reverse_z_maps_near_to_one_and_far_towards_zero() {
        let cam = Camera::looking_at(DVec3::ZERO, DVec3::NEG_Z, DVec3::Y, 1.0);
        let m = CameraMatrices::new(&cam);
        let depth = |z: f32| {
            let c = m.view_proj * Vec4::new(0.0, 0.0, -z, 1.0);
            c.z / c.w
        };
        assert!((depth(0.25) - 1.0).abs() < 1e-6);
        assert!(depth(30_000.0) > 0.0 && depth(30_000.0) < 1e-4);
        // Two surfaces 1 m apart at 30 km still get distinct f32 depths, many steps apart.
        let (a, b) = (depth(30_000.0), depth(30_001.0));
        let steps = (a - b) / (f32::EPSILON * a);
        assert!(steps > 100.0, "{a} {b} {steps}");
    }

    #[test]
    fn camera_relative_translation_is_exact_far_from_the_origin() {
        // Nevada: ~5,900 km from the origin. Absolute f32 positions step by 0.5 m there; the
        // relative translation must stay exact to well under a millimetre.
        let centre = DVec3::new(0.0, -6_371_000.0, 0.0);
        let dir = crate::sun::geodetic_direction(36.27f64.to_radians(), -115.64f64.to_radians());
        let aircraft = centre + dir * 6_373_000.0;
        let camera = aircraft + DVec3::new(20.3, 5.17, 30.29);
        let m = relative_model_matrix(camera, aircraft, DQuat::IDENTITY, 1.0);
        let t = m.w_axis.truncate().as_dvec3();
        assert!(
            (t - DVec3::new(-20.3, -5.17, -30.29)).length() < 1e-5,
            "{t}"
        );
        // The naive path (f32 world positions, subtracted on the GPU) is off by decimetres.
        let naive = aircraft.as_vec3() - camera.as_vec3();
        assert!((naive.as_dvec3() - (aircraft - camera)).length() > 0.05);
    }

    #[test]
    fn the_camera_looks_along_its_minus_z() {
        let cam = Camera::looking_at(DVec3::ZERO, DVec3::new(10.0, 0.0, 0.0), DVec3::Y, 1.0);
        assert!((cam.forward() - DVec3::X).length() < 1e-12);
        let m = CameraMatrices::new(&cam);
        let p = m.view_proj * Vec4::new(10.0, 0.0, 0.0, 1.0);
        assert!(p.w > 0.0 && (p.x / p.w).abs() < 1e-6);
        // World +Y lands on screen up.
        let up = m.view_proj * Vec4::new(10.0, 1.0, 0.0, 1.0);
        assert!(up.y / up.w > 0.0);
    }

    #[test]
    fn hostile_camera_fields_do_not_panic() {
        let mut cam = Camera::looking_at(DVec3::ZERO, DVec3::NEG_Z, DVec3::Y, f64::NAN);
        cam.orientation = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        cam.aspect = f64::INFINITY;
        cam.near_m = -1.0;
        let m = CameraMatrices::new(&cam);
        assert!(m.view_proj.is_finite());
    }
}
