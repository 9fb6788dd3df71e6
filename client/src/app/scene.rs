//! What the flight screen draws: the renderer's [`Frame`] from the client's [`RenderFrame`] (every
//! entity as its type's model, the own one too unless the eye is in its cockpit), the camera and
//! the sky, plus the model of each entity type, loaded from the content stack the first time the
//! type is seen (its category's silhouette when it has no model or the model cannot be read —
//! never invisible).
//!
//! Owns the type → model table. Must not move the camera or touch the terrain stream.

use std::collections::BTreeMap;

use fl_content::Content;
use fl_render::sun::UtcTime;
use fl_render::{Camera, Frame, Gpu, Instance, ModelHandle, Renderer, SkyParams, Weather};
use fl_scene::models::{ModelSource, load_family, render_category, resolve_model};
use glam::{DQuat, DVec3};

use crate::bridge::RenderFrame;
use fl_protocol::msg::handshake::EntityTypeDef;

use super::camera::Eye;

/// A type's model on the GPU and where its pilot's eye sits.
#[derive(Debug, Clone, Copy)]
pub struct TypeModel {
    pub handle: ModelHandle,
    /// The cockpit eye in the body frame, when the model says (`camera` node / anchor).
    pub eye_body: Option<DVec3>,
}

/// The models of the entity types seen so far.
#[derive(Debug, Default)]
pub struct SceneModels {
    by_type: BTreeMap<u32, TypeModel>,
}

impl SceneModels {
    /// The model of type `type_index` (loaded and uploaded on first use).
    pub fn get(
        &mut self,
        gpu: &Gpu,
        renderer: &mut Renderer,
        content: &Content,
        types: &BTreeMap<u32, EntityTypeDef>,
        type_index: u32,
    ) -> TypeModel {
        if let Some(m) = self.by_type.get(&type_index) {
            return *m;
        }
        let m = load_type(gpu, renderer, content, types.get(&type_index));
        self.by_type.insert(type_index, m);
        m
    }
}

fn load_type(
    gpu: &Gpu,
    renderer: &mut Renderer,
    content: &Content,
    def: Option<&EntityTypeDef>,
) -> TypeModel {
    let silhouette = |renderer: &Renderer, category| TypeModel {
        handle: renderer.silhouette(category),
        eye_body: None,
    };
    let Some(def) = def else {
        return silhouette(renderer, fl_render::Category::Aircraft);
    };
    let src: ModelSource = match resolve_model(content, def.id.as_str()) {
        Ok(s) => s,
        Err(e) => {
            // A type the server knows and this client does not (other packs): a silhouette.
            tracing::warn!("{e}; drawing a silhouette");
            let category = content
                .entity_type(def.id.as_str())
                .map_or(fl_render::Category::Aircraft, |t| {
                    render_category(t.def.category)
                });
            return silhouette(renderer, category);
        }
    };
    let Some((_, file)) = &src.mesh else {
        return silhouette(renderer, src.category);
    };
    match load_family(&src, file) {
        Ok(family) => {
            for w in &family.warnings {
                tracing::warn!("model {}: {w}", src.id);
            }
            let eye_body = family
                .camera_anchor
                .map(|a| DVec3::new(f64::from(a.x), f64::from(a.y), f64::from(a.z)));
            TypeModel {
                handle: renderer.upload_family(gpu, &family),
                eye_body,
            }
        }
        Err(e) => {
            tracing::warn!("{e}; drawing the {:?} silhouette", src.category);
            silhouette(renderer, src.category)
        }
    }
}

/// The sky of a flight: time and weather.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    pub time: UtcTime,
    pub weather: Weather,
}

/// Converts the flight model's vector to the renderer's.
pub fn dvec(v: fl_flight::math::Vec3) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

/// Converts the flight model's rotation to the renderer's.
pub fn dquat(q: fl_flight::math::Quat) -> DQuat {
    DQuat::from_xyzw(q.x, q.y, q.z, q.w)
}

/// Every entity of `frame` as an instance of its type's model (`model_of`); the own aircraft
/// left out when `hide_own` (the eye is in its cockpit), and entities with a broken pose skipped.
pub fn instances(
    frame: &RenderFrame,
    hide_own: bool,
    mut model_of: impl FnMut(u32) -> TypeModel,
) -> Vec<Instance> {
    frame
        .entities
        .iter()
        .filter(|e| !(hide_own && e.own))
        .filter(|e| {
            e.position.x.is_finite() && e.position.y.is_finite() && e.position.z.is_finite()
        })
        .map(|e| {
            Instance::new(
                model_of(e.type_index).handle,
                dvec(e.position),
                dquat(e.orientation),
            )
        })
        .collect()
}

/// The renderer's frame: `eye` looking under `sky`, drawing `instances` and the uploaded
/// terrain chunks `terrain`.
pub fn build_frame(
    eye: &Eye,
    vertical_fov_deg: f64,
    aspect: f64,
    sky: &Sky,
    instances: Vec<Instance>,
    terrain: Vec<u64>,
) -> Frame {
    let fov = vertical_fov_deg.clamp(20.0, 120.0).to_radians();
    let camera = Camera {
        near_m: eye.near_m,
        ..Camera::looking_at(eye.position, eye.position + eye.forward, eye.up, fov)
    }
    .with_aspect(aspect);
    let mut sky_params = SkyParams::at(sky.time);
    sky_params.weather = sky.weather;
    Frame {
        camera,
        sky: sky_params,
        lights: Vec::new(),
        instances,
        terrain,
    }
}
