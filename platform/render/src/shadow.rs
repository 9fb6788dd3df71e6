//! Sun shadows for things near the camera: one shadow map (a single cascade) from the sun,
//! orthographic, covering a square of [`SHADOW_EXTENT_M`] around a point a quarter of it ahead
//! of the camera, drawn from the model instances in that square (each family's `_shadow` mesh
//! when it has one, else its coarsest level of detail) and sampled by the terrain and model
//! shaders with a 3 × 3 percentage-closer filter (shaders/shadow.wgsl draws the map; pbr.wgsl
//! and terrain.wgsl sample it).
//!
//! The light matrix is camera-relative like everything else on the GPU; its centre is snapped to
//! whole shadow-map texels in f64 world coordinates, so shadow edges do not crawl as the camera
//! moves. Terrain does not cast (hills are shaded by their slope only).

use glam::{DMat3, DVec3, Mat4, Vec3, Vec4};

use crate::shaders::{self, Wgsl};
use crate::target::DEPTH_FORMAT;

/// The WGSL of the shadow-map pipeline.
pub(crate) const SHADOW: Wgsl = Wgsl {
    file: "shaders/shadow.wgsl",
    text: include_str!("../../../shaders/shadow.wgsl"),
    shared: &[],
};

/// Side of the shadow map, texels.
pub const SHADOW_MAP_SIZE: u32 = 2048;
/// Side of the square the shadow map covers, metres (≈ 0.2 m per texel).
pub const SHADOW_EXTENT_M: f64 = 400.0;
/// Depth of the shadow map's box along the sun, metres, centred on the covered square: casters
/// up to half of it sunward of the centre are caught.
pub const SHADOW_DEPTH_M: f64 = 4000.0;

/// The shadow map's camera-relative view-projection for a sun in `sun_dir` (world, towards the
/// sun), a camera at `camera` looking along `forward`; `None` when the sun is below the local
/// horizon (`up`) or a direction is degenerate: no shadows then.
pub(crate) fn light_matrix(
    camera: DVec3,
    forward: DVec3,
    up: DVec3,
    sun_dir: DVec3,
) -> Option<Mat4> {
    let s = sun_dir.try_normalize()?;
    let up = up.try_normalize()?;
    if s.dot(up) <= 0.0 || !camera.is_finite() {
        return None;
    }
    // Ahead of the camera along the ground, where what is seen lies.
    let ahead = (forward - up * forward.dot(up)).normalize_or_zero();
    let centre = camera + ahead * (SHADOW_EXTENT_M * 0.25);
    // Light axes: z towards the sun, x and y across.
    let helper = if s.dot(up).abs() < 0.99 {
        up
    } else {
        up.any_orthonormal_vector()
    };
    let x = helper.cross(s).normalize();
    let y = s.cross(x);
    let basis = DMat3::from_cols(x, y, s);
    // Snap the centre to whole texels across the light (f64 world), so edges stay put.
    let texel = SHADOW_EXTENT_M / f64::from(SHADOW_MAP_SIZE);
    let lc = basis.transpose() * centre;
    let snapped = DVec3::new(
        (lc.x / texel).round() * texel,
        (lc.y / texel).round() * texel,
        lc.z,
    );
    let rel = (basis * snapped - camera).as_vec3();
    // View: light axes as rows, the eye at the snapped centre (camera-relative). The light
    // looks along −s, as a camera looks along its −Z.
    let (xf, yf, zf) = (x.as_vec3(), y.as_vec3(), s.as_vec3());
    let view = Mat4::from_cols(
        Vec4::new(xf.x, yf.x, zf.x, 0.0),
        Vec4::new(xf.y, yf.y, zf.y, 0.0),
        Vec4::new(xf.z, yf.z, zf.z, 0.0),
        Vec4::new(-xf.dot(rel), -yf.dot(rel), -zf.dot(rel), 1.0),
    );
    // Orthographic, depth 0 at `d` sunward of the centre to 1 at `d` beyond it.
    let h = (SHADOW_EXTENT_M * 0.5) as f32;
    let d = (SHADOW_DEPTH_M * 0.5) as f32;
    let proj = Mat4::from_cols(
        Vec4::new(1.0 / h, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 1.0 / h, 0.0, 0.0),
        Vec4::new(0.0, 0.0, -0.5 / d, 0.0),
        Vec4::new(0.0, 0.0, 0.5, 1.0),
    );
    Some(proj * view)
}

/// The shadow map, its pipeline and the light's uniform buffer.
#[derive(Debug)]
pub(crate) struct ShadowPass {
    pipeline: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    bind: wgpu::BindGroup,
    /// The depth map, sampled by the frame bind group (binding 3).
    pub(crate) view: wgpu::TextureView,
    /// A comparison sampler for it (binding 4).
    pub(crate) sampler: wgpu::Sampler,
    instances: wgpu::Buffer,
    capacity: u64,
}

/// One instanced draw into the shadow map.
pub(crate) struct ShadowDraw<'a> {
    pub vertices: &'a wgpu::Buffer,
    pub indices: &'a wgpu::Buffer,
    pub index_count: u32,
    pub instances: std::ops::Range<u32>,
}

impl ShadowPass {
    pub(crate) fn new(
        device: &wgpu::Device,
        vertex_stride: u64,
        cache: Option<&wgpu::PipelineCache>,
    ) -> Result<ShadowPass, crate::RenderError> {
        let module = shaders::compile(device, SHADOW)?;
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow light"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow light"),
            size: 64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow light"),
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("shadow"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let pipeline = shaders::pipeline(
            device,
            SHADOW,
            "vs_main",
            &wgpu::RenderPipelineDescriptor {
                label: Some("shadow"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[
                        Some(wgpu::VertexBufferLayout {
                            array_stride: vertex_stride,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &wgpu::vertex_attr_array![0 => Float32x3],
                        }),
                        Some(wgpu::VertexBufferLayout {
                            array_stride: 64,
                            step_mode: wgpu::VertexStepMode::Instance,
                            attributes: &wgpu::vertex_attr_array![
                                4 => Float32x4, 5 => Float32x4, 6 => Float32x4, 7 => Float32x4
                            ],
                        }),
                    ],
                },
                // Both faces: thin wings and fins cast from either side.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: wgpu::DepthBiasState {
                        constant: 2,
                        slope_scale: 2.0,
                        clamp: 0.0,
                    },
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: None,
                multiview_mask: None,
                cache,
            },
        )?;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d {
                width: SHADOW_MAP_SIZE,
                height: SHADOW_MAP_SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let capacity = 256;
        Ok(ShadowPass {
            pipeline,
            uniform,
            bind,
            view,
            sampler,
            instances: Self::instance_buffer(device, capacity),
            capacity,
        })
    }

    fn instance_buffer(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow casters"),
            size: capacity * 64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Uploads the casters' model matrices (the caller bounds their number).
    pub(crate) fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, m: &[Mat4]) {
        if m.is_empty() {
            return;
        }
        if m.len() as u64 > self.capacity {
            self.capacity = (m.len() as u64).next_power_of_two();
            self.instances = Self::instance_buffer(device, self.capacity);
        }
        let data: Vec<[f32; 16]> = m.iter().map(|x| x.to_cols_array()).collect();
        queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&data));
    }

    /// Clears the map (to "nothing casts") and, with a light matrix, draws `draws` into it.
    pub(crate) fn encode(
        &self,
        queue: &wgpu::Queue,
        enc: &mut wgpu::CommandEncoder,
        light: Option<Mat4>,
        draws: &[ShadowDraw<'_>],
    ) {
        if let Some(m) = light {
            queue.write_buffer(&self.uniform, 0, bytemuck::cast_slice(&m.to_cols_array()));
        }
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow map"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if light.is_none() || draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        for d in draws {
            pass.set_vertex_buffer(0, d.vertices.slice(..));
            pass.set_index_buffer(d.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..d.index_count, 0, d.instances.clone());
        }
    }
}

/// The uniforms the receiving shaders read: the light matrix and (on, texel size in metres,
/// map size, covered side in metres).
pub(crate) fn receiver_uniforms(light: Option<Mat4>) -> ([[f32; 4]; 4], [f32; 4]) {
    match light {
        Some(m) => (
            m.to_cols_array_2d(),
            [
                1.0,
                (SHADOW_EXTENT_M / f64::from(SHADOW_MAP_SIZE)) as f32,
                SHADOW_MAP_SIZE as f32,
                SHADOW_EXTENT_M as f32,
            ],
        ),
        None => (Mat4::IDENTITY.to_cols_array_2d(), [0.0; 4]),
    }
}

/// Whether a world point lies in the column the shadow map covers (within its square across the
/// sun and its depth along it) — for choosing casters. `light` is camera-relative.
pub(crate) fn covers(light: &Mat4, rel: Vec3, radius: f32) -> bool {
    let p = *light * rel.extend(1.0);
    let r_xy = radius / (SHADOW_EXTENT_M as f32 * 0.5);
    let r_z = radius / SHADOW_DEPTH_M as f32;
    p.x.abs() <= 1.0 + r_xy && p.y.abs() <= 1.0 + r_xy && p.z >= -r_z && p.z <= 1.0 + r_z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_light_looks_down_the_sun_and_snaps_to_texels() {
        let cam = DVec3::new(1000.3, 50.0, -200.7);
        let sun = DVec3::new(1.0, 1.0, 0.0).normalize();
        let m = light_matrix(cam, DVec3::NEG_Z, DVec3::Y, sun).expect("sun up");
        // A point and one 100 m sunward of it land on the same texel, the sunward one nearer.
        let p = Vec3::new(0.0, -50.0, -50.0);
        let a = m * p.extend(1.0);
        let b = m * (p + sun.as_vec3() * 100.0).extend(1.0);
        assert!(
            (a.x - b.x).abs() < 1e-4 && (a.y - b.y).abs() < 1e-4,
            "{a} {b}"
        );
        assert!(b.z < a.z && (0.0..=1.0).contains(&a.z), "{a} {b}");
        assert!(covers(&m, p, 1.0) && !covers(&m, Vec3::new(5_000.0, 0.0, 0.0), 1.0));
        // Moving the camera by less than a texel keeps the map where it was (in world terms).
        let m2 = light_matrix(cam + DVec3::X * 0.01, DVec3::NEG_Z, DVec3::Y, sun).expect("up");
        let world = Vec3::new(3.0, -50.0, -40.0);
        let a2 = m2 * (world - Vec3::X * 0.01).extend(1.0);
        let a1 = m * world.extend(1.0);
        assert!((a1 - a2).abs().max_element() < 1e-4, "{a1} {a2}");
        // Sun below the horizon, or nonsense: none.
        assert!(light_matrix(cam, DVec3::NEG_Z, DVec3::Y, DVec3::new(1.0, -0.1, 0.0)).is_none());
        assert!(light_matrix(cam, DVec3::NEG_Z, DVec3::Y, DVec3::ZERO).is_none());
        assert!(light_matrix(DVec3::NAN, DVec3::NEG_Z, DVec3::Y, sun).is_none());
        // Sun straight overhead works.
        assert!(light_matrix(cam, DVec3::NEG_Z, DVec3::Y, DVec3::Y).is_some());
    }
}
