//! One model on show: where it stands, the orbit camera around it, the lighting, and the toggles
//! (level of detail, battle damage, articulation) — turned into an `fl_render::Frame`. Shared by
//! the offscreen shot and the window, so both show the same picture for the same settings.

use fl_render::model::{ModelData, ModelFamily};
use fl_render::sun::{UtcTime, east_north_up, geodetic_direction};
use fl_render::{
    Camera, DirectionalLight, Frame, Instance, LodHint, ModelHandle, NodePose, SkyParams,
};
use glam::{DMat3, DQuat, DVec3, Quat, Vec3};

use crate::error::ViewError;

/// Vertical field of view of the orbit camera.
pub const FOV_DEG: f64 = 40.0;
/// Where the model is shown: over Nevada (the pack's theater), 2 km up, nose north.
pub const SHOW_LAT_DEG: f64 = 36.27;
/// See [`SHOW_LAT_DEG`].
pub const SHOW_LON_DEG: f64 = -115.64;
/// See [`SHOW_LAT_DEG`].
pub const SHOW_ALT_M: f64 = 2000.0;
/// Daylight: 2026-06-21 19:00 UTC, about local noon in Nevada.
pub const DAYLIGHT: (i32, u32, u32, u32, u32) = (2026, 6, 21, 19, 0);

/// How the model is lit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lighting {
    /// Black background, a key, fill, rim and under light that follow the camera.
    Studio,
    /// The sky and sun over Nevada on a summer noon (aerial perspective included).
    Daylight,
}

/// A local axis of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Node-local X.
    X,
    /// Node-local Y.
    Y,
    /// Node-local Z.
    Z,
}

/// `--pose NODE=AXIS:DEG`: turn a named node about one of its local axes from its file pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseArg {
    /// The node's name in the glTF file.
    pub node: String,
    /// The axis.
    pub axis: Axis,
    /// The angle, degrees.
    pub degrees: f32,
}

impl std::str::FromStr for PoseArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let form = "expected NODE=AXIS:DEGREES, e.g. flap_l=x:20";
        let (node, rest) = s.split_once('=').ok_or(form)?;
        let (axis, deg) = rest.split_once(':').ok_or(form)?;
        let axis = match axis.trim().to_ascii_lowercase().as_str() {
            "x" => Axis::X,
            "y" => Axis::Y,
            "z" => Axis::Z,
            _ => return Err(format!("axis {axis:?}: use x, y or z ({form})")),
        };
        let degrees: f32 = deg.trim().parse().map_err(|_| form.to_owned())?;
        if !degrees.is_finite() || degrees.abs() > 360.0 {
            return Err("the angle must be within ±360 degrees".to_owned());
        }
        if node.trim().is_empty() {
            return Err(form.to_owned());
        }
        Ok(PoseArg {
            node: node.trim().to_owned(),
            axis,
            degrees,
        })
    }
}

/// The `--pose` arguments as node poses of `model`; an unknown node is an error listing the
/// model's nodes.
pub fn resolve_poses(model: &ModelData, poses: &[PoseArg]) -> Result<Vec<NodePose>, ViewError> {
    poses
        .iter()
        .map(|p| {
            let Some(i) = model.node_index(&p.node) else {
                let names: Vec<&str> = model
                    .nodes
                    .iter()
                    .filter_map(|n| n.name.as_deref())
                    .collect();
                return Err(ViewError::argument(
                    "pose",
                    &p.node,
                    format!(
                        "{} has no node of that name; its nodes are: {}",
                        model.path.display(),
                        names.join(", ")
                    ),
                ));
            };
            let node = &model.nodes[i];
            let axis = match p.axis {
                Axis::X => Vec3::X,
                Axis::Y => Vec3::Y,
                Axis::Z => Vec3::Z,
            };
            Ok(NodePose {
                node: u32::try_from(i).unwrap_or(u32::MAX),
                rotation: node.rotation * Quat::from_axis_angle(axis, p.degrees.to_radians()),
                translation: node.translation,
            })
        })
        .collect()
}

/// Where the model stands and how big it is, in body coordinates.
#[derive(Debug, Clone)]
pub struct ModelScene {
    /// The uploaded family (or silhouette).
    pub handle: ModelHandle,
    /// Centre of the base mesh's bounds, body frame.
    pub centre_body: DVec3,
    /// Radius of a sphere around the bounds, metres.
    pub radius_m: f64,
    /// How many `_lodN` files the family has.
    pub lod_files: usize,
    /// Whether the base mesh has battle-damage nodes (`<name>_b`).
    pub has_damage: bool,
    /// Articulation from `--pose`.
    pub poses: Vec<NodePose>,
    /// The base model's node names (for the window title and the docs' advice).
    pub node_names: Vec<String>,
}

impl ModelScene {
    /// The scene of a model family uploaded as `handle`.
    pub fn new(handle: ModelHandle, family: &ModelFamily, poses: Vec<NodePose>) -> Self {
        let (lo, hi) = family
            .base
            .bounds()
            .unwrap_or((Vec3::splat(-1.0), Vec3::splat(1.0)));
        let mut blo = DVec3::splat(f64::INFINITY);
        let mut bhi = DVec3::splat(f64::NEG_INFINITY);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let b = family.body_from_mesh.transform_point3(c).as_dvec3();
            blo = blo.min(b);
            bhi = bhi.max(b);
        }
        let has_damage = (0..family.base.nodes.len()).any(|i| family.base.is_damage_node(i));
        ModelScene {
            handle,
            centre_body: (blo + bhi) * 0.5,
            radius_m: ((bhi - blo).length() * 0.5).max(0.1),
            lod_files: family.lods.len(),
            has_damage,
            poses,
            node_names: family
                .base
                .nodes
                .iter()
                .filter_map(|n| n.name.clone())
                .collect(),
        }
    }

    /// A scene for a silhouette (body-frame model of a typical size).
    pub fn silhouette(handle: ModelHandle, radius_m: f64) -> Self {
        ModelScene {
            handle,
            centre_body: DVec3::ZERO,
            radius_m,
            lod_files: 0,
            has_damage: false,
            poses: Vec::new(),
            node_names: Vec::new(),
        }
    }

    /// The distance at which the bounding sphere fills the view with a margin.
    pub fn default_distance(&self, aspect: f64) -> f64 {
        let half_v = (FOV_DEG.to_radians() * 0.5).tan();
        let half = half_v.min(half_v * aspect);
        // The sphere around the box is generous (an aircraft is flat): 0.8 of its framing
        // distance fills the view without cutting the model.
        self.radius_m / half.atan().sin() * 0.8
    }
}

/// What the viewer shows: orbit angles, distance and the toggles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewState {
    /// Camera azimuth around the model, degrees from straight ahead of the nose, positive
    /// towards the right wing.
    pub yaw_deg: f64,
    /// Camera elevation above the model's horizontal plane, degrees (−89…89).
    pub pitch_deg: f64,
    /// Distance from the model's centre, metres.
    pub distance_m: f64,
    /// Level of detail.
    pub lod: LodHint,
    /// Battle-damage nodes shown.
    pub damaged: bool,
    /// `--pose` articulation applied.
    pub articulated: bool,
    /// Lighting.
    pub lighting: Lighting,
    /// Models drawn as wireframes (where the device can; see `Renderer::set_wireframe`).
    pub wireframe: bool,
}

impl ViewState {
    /// The next level of detail: base, `_lod0` … `_lodN-1`, automatic, base again.
    pub fn next_lod(&mut self, lod_files: usize) {
        self.lod = match self.lod {
            LodHint::Base if lod_files > 0 => LodHint::Lod(0),
            LodHint::Lod(n) if usize::from(n) + 1 < lod_files => LodHint::Lod(n + 1),
            LodHint::Base | LodHint::Lod(_) => LodHint::Auto,
            LodHint::Auto => LodHint::Base,
        };
    }
}

/// The model's body frame on show: position and body-to-world rotation (nose north, wings
/// level on the local horizon).
pub fn show_pose() -> (DVec3, DQuat, DVec3) {
    let (lat, lon) = (SHOW_LAT_DEG.to_radians(), SHOW_LON_DEG.to_radians());
    let (east, north, up) = east_north_up(lat, lon);
    let r = fl_render::frame::PLANET_RADIUS_M;
    let position = DVec3::new(0.0, -r, 0.0) + geodetic_direction(lat, lon) * (r + SHOW_ALT_M);
    // Body X right (east), Y up, Z aft (south).
    let q = DQuat::from_mat3(&DMat3::from_cols(east, up, -north)).normalize();
    (position, q, up)
}

/// The orbit camera around a model whose body frame is at [`show_pose`] and whose bounds
/// centre is `centre_body`.
pub fn orbit_camera(centre_body: DVec3, state: &ViewState, aspect: f64) -> Camera {
    let (position, q, _) = show_pose();
    let centre = position + q * centre_body;
    let (yaw, pitch) = (
        state.yaw_deg.to_radians(),
        state.pitch_deg.clamp(-89.0, 89.0).to_radians(),
    );
    // Body: forward −Z, right +X, up +Y.
    let dir_body = DVec3::new(
        yaw.sin() * pitch.cos(),
        pitch.sin(),
        -yaw.cos() * pitch.cos(),
    );
    let eye = centre + q * dir_body * state.distance_m.max(0.01);
    let mut camera =
        Camera::looking_at(eye, centre, q * DVec3::Y, FOV_DEG.to_radians()).with_aspect(aspect);
    camera.near_m = (state.distance_m * 0.01).clamp(0.01, 1.0);
    camera
}

/// The frame for `state` at aspect ratio `aspect`.
pub fn model_frame(scene: &ModelScene, state: &ViewState, aspect: f64) -> Frame {
    let (position, q, _) = show_pose();
    let camera = orbit_camera(scene.centre_body, state, aspect);
    let (sky, lights) = match state.lighting {
        Lighting::Studio => {
            let light = |cam: DVec3, rgb: f32| DirectionalLight {
                direction: (camera.orientation * cam.normalize()).as_vec3(),
                color: Vec3::splat(rgb),
            };
            (
                SkyParams::studio(),
                vec![
                    light(DVec3::new(-0.5, 0.7, 0.6), 2.6),
                    light(DVec3::new(0.8, 0.1, 0.5), 0.9),
                    light(DVec3::new(0.2, 0.6, -0.9), 1.2),
                    light(DVec3::new(0.0, -1.0, 0.2), 0.35),
                ],
            )
        }
        Lighting::Daylight => {
            let (y, mo, d, h, mi) = DAYLIGHT;
            (
                SkyParams::at(UtcTime::new(y, mo, d, h, mi, 0.0)),
                Vec::new(),
            )
        }
    };
    let mut inst = Instance::new(scene.handle, position, q);
    inst.lod = state.lod;
    inst.damaged = state.damaged;
    if state.articulated {
        inst.articulation = scene.poses.clone();
    }
    Frame {
        camera,
        sky,
        lights,
        instances: vec![inst],
        terrain: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_arguments() {
        let p: PoseArg = "flap_l=x:20".parse().expect("valid");
        assert_eq!(
            (p.node.as_str(), p.axis, p.degrees),
            ("flap_l", Axis::X, 20.0)
        );
        for bad in [
            "flap",
            "flap=x",
            "flap=w:3",
            "=x:3",
            "flap=x:nan",
            "flap=x:1000",
        ] {
            assert!(bad.parse::<PoseArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn lod_cycle_visits_every_level() {
        let mut s = ViewState {
            yaw_deg: 0.0,
            pitch_deg: 0.0,
            distance_m: 10.0,
            lod: LodHint::Base,
            damaged: false,
            articulated: false,
            lighting: Lighting::Studio,
            wireframe: false,
        };
        let mut seen = vec![s.lod];
        for _ in 0..4 {
            s.next_lod(2);
            seen.push(s.lod);
        }
        assert_eq!(
            seen,
            [
                LodHint::Base,
                LodHint::Lod(0),
                LodHint::Lod(1),
                LodHint::Auto,
                LodHint::Base
            ]
        );
    }

    #[test]
    fn the_orbit_camera_looks_at_the_centre_from_ahead_at_yaw_zero() {
        let (pos, q, _) = show_pose();
        let state = ViewState {
            yaw_deg: 0.0,
            pitch_deg: 0.0,
            distance_m: 30.0,
            lod: LodHint::Auto,
            damaged: false,
            articulated: false,
            lighting: Lighting::Studio,
            wireframe: false,
        };
        let camera = orbit_camera(DVec3::ZERO, &state, 1.0);
        let nose = q * DVec3::NEG_Z;
        let to_eye = (camera.position - pos).normalize();
        assert!(
            to_eye.dot(nose) > 0.999,
            "yaw 0 puts the eye ahead of the nose"
        );
        assert!(camera.forward().dot(-nose) > 0.999);
        // Yaw 90: the eye is off the right wing (body +X).
        let right = orbit_camera(
            DVec3::ZERO,
            &ViewState {
                yaw_deg: 90.0,
                ..state
            },
            1.0,
        );
        assert!((right.position - pos).normalize().dot(q * DVec3::X) > 0.999);
    }
}
