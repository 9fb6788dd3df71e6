//! What the flight screen draws: the renderer's [`Frame`] from the client's [`RenderFrame`] (every
//! entity as its type's model; the own one as its cockpit model when the eye is in it), the camera and
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
    /// The cockpit model (the pack's `_cockpit` file), drawn instead of `handle` around the eye.
    pub cockpit: Option<ModelHandle>,
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
        cockpit: None,
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
            let cockpit = family
                .cockpit
                .as_ref()
                .map(|c| renderer.upload_model(gpu, c, family.body_from_mesh));
            TypeModel {
                handle: renderer.upload_family(gpu, &family),
                cockpit,
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

/// Every entity of `frame` as an instance of its type's model (`model_of`); when `in_cockpit`
/// (the eye is in the own aircraft) the own one is its cockpit model, or nothing when its type
/// has none (the outside model would wrap the eye). Entities with a broken pose are skipped.
pub fn instances(
    frame: &RenderFrame,
    in_cockpit: bool,
    mut model_of: impl FnMut(u32) -> TypeModel,
) -> Vec<Instance> {
    frame
        .entities
        .iter()
        .filter(|e| {
            e.position.x.is_finite() && e.position.y.is_finite() && e.position.z.is_finite()
        })
        .filter_map(|e| {
            let m = model_of(e.type_index);
            let handle = if in_cockpit && e.own {
                m.cockpit?
            } else {
                m.handle
            };
            Some(Instance::new(
                handle,
                dvec(e.position),
                dquat(e.orientation),
            ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::{PoseSource, RenderEntity};
    use fl_flight::math::{Quat, Vec3};

    fn entity(idx: u32, own: bool, x: f64) -> RenderEntity {
        RenderEntity {
            idx,
            generation: 0,
            type_index: 7,
            faction: 0,
            own,
            position: Vec3::new(x, 1_000.0, 0.0),
            orientation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            articulation: Default::default(),
            damage_level: 0,
            throttle_pct: 0,
            ab_engaged: false,
            source: PoseSource::Interpolated,
        }
    }

    #[test]
    fn in_the_cockpit_the_own_aircraft_is_drawn_as_its_cockpit() {
        let Some(gpu) = fl_fixtures::adapter_or_skip(Gpu::new()) else {
            return;
        };
        let r = Renderer::new(&gpu).expect("renderer");
        let (outside, pit) = (
            r.silhouette(fl_render::Category::Aircraft),
            r.silhouette(fl_render::Category::Structure),
        );
        let frame = RenderFrame {
            entities: vec![
                entity(0, true, 0.0),
                entity(1, false, 50.0),
                entity(2, false, f64::NAN),
            ],
            ..RenderFrame::default()
        };
        let with_pit = TypeModel {
            handle: outside,
            cockpit: Some(pit),
            eye_body: None,
        };
        let handles = |in_cockpit, m: TypeModel| -> Vec<ModelHandle> {
            instances(&frame, in_cockpit, |_| m)
                .iter()
                .map(|i| i.model)
                .collect()
        };
        // Outside: every aircraft with a sane pose as its model.
        assert_eq!(handles(false, with_pit), [outside, outside]);
        // In the cockpit: the own one is the cockpit; a type without one leaves it out.
        assert_eq!(handles(true, with_pit), [pit, outside]);
        let without = TypeModel {
            cockpit: None,
            ..with_pit
        };
        assert_eq!(handles(true, without), [outside]);
    }
}
