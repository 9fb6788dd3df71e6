//! The renderer: pipelines, uploaded models, and drawing a [`Frame`] into an offscreen target
//! or a window surface.
//!
//! A frame is: the sky-view table (sky.wgsl `fs_lut`), the sun's shadow map (shadow.wgsl, see
//! [`crate::shadow`]; sampled by the terrain and the models), models into the HDR buffer with
//! reverse-Z depth (pbr.wgsl, instanced per model part), the sky behind them (sky.wgsl
//! `fs_sky`, drawn only where the depth is still the cleared far plane), particles over both
//! (particles.wgsl, see [`crate::particles`]), then exposure and tonemapping into the output
//! (tonemap.wgsl).

use std::collections::BTreeMap;
use std::path::Path;

use glam::{DVec3, Mat4, Vec3};

use crate::RenderError;
use crate::atmosphere::{SUN_IRRADIANCE, sky_lighting};
use crate::camera::{CameraMatrices, relative_model_matrix, sanitize_quat};
use crate::frame::{Category, Frame, LodHint, MAX_LIGHTS};
use crate::gpu::Gpu;
use crate::model::{AlphaMode, ModelData, ModelFamily, choose_lod, silhouette};
use crate::shaders::{self, Wgsl};
use crate::surface::{SurfaceFrame, WindowSurface};
use crate::target::{DEPTH_FORMAT, HDR_FORMAT, OFFSCREEN_FORMAT, OffscreenTarget, SceneBuffers};
use crate::terrain::{
    ChunkError, TERRAIN_OFFSET_ATTRS, TERRAIN_VERTEX_ATTRS, TerrainChunk, TerrainKey, TerrainStore,
    TerrainVertex,
};
use crate::upload::{solid_texture, upload_image};

/// Most model parts (instances × drawn nodes) drawn in one frame: 4 MiB of instance data.
pub const MAX_DRAWN_PARTS: usize = 65_536;

/// Size of the sky-view table.
const LUT_SIZE: (u32, u32) = (192, 108);

/// An uploaded model family (or builtin silhouette), referred to by instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelHandle(u32);

/// Frame constants, as `Frame` in the WGSL files.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct FrameUniforms {
    view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    up_alt: [f32; 4],
    sun_dir: [f32; 4],
    sun_irr: [f32; 4],
    sky_irr: [f32; 4],
    ground_irr: [f32; 4],
    fog: [f32; 4],
    sky_x: [f32; 4],
    sky_z: [f32; 4],
    light_dir: [[f32; 4]; 4],
    light_col: [[f32; 4]; 4],
    counts: [f32; 4],
    shadow_view_proj: [[f32; 4]; 4],
    shadow: [f32; 4],
    /// Towards the moon (world); w = 1 when it is drawn.
    moon_dir: [f32; 4],
    /// The full moon disc's radiance after the air between it and the camera.
    moon_rad: [f32; 4],
    /// The output's width and height, pixels (the scene may be drawn at another size).
    output: [f32; 4],
}

/// Material constants, as `Material` in pbr.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct MaterialUniforms {
    base_color: [f32; 4],
    emissive_cutoff: [f32; 4],
    params: [f32; 4],
    flags: [f32; 4],
}

#[derive(Debug)]
struct GpuPrimitive {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    material: wgpu::BindGroup,
    double_sided: bool,
}

/// A drawable node: its primitives and its model-space matrix in the file's pose.
#[derive(Debug)]
struct Part {
    node: usize,
    primitives: Vec<GpuPrimitive>,
    damage: bool,
    has_damage_variant: bool,
}

#[derive(Debug)]
struct GpuModel {
    data_nodes: Vec<crate::model::Node>,
    parts: Vec<Part>,
}

#[derive(Debug)]
struct GpuFamily {
    base: GpuModel,
    lods: Vec<GpuModel>,
    body_from_mesh: Mat4,
    radius: f32,
    /// The `_shadow` mesh, drawn into the sun's shadow map instead of the model.
    shadow: Option<GpuModel>,
}

/// The renderer: create once per device, upload models, draw frames.
#[derive(Debug)]
pub struct Renderer {
    uniform_bgl: wgpu::BindGroupLayout,
    frame_bgl: wgpu::BindGroupLayout,
    material_bgl: wgpu::BindGroupLayout,
    tonemap_bgl: wgpu::BindGroupLayout,
    uniforms: wgpu::Buffer,
    lut_view: wgpu::TextureView,
    lut_sampler: wgpu::Sampler,
    tex_sampler: wgpu::Sampler,
    lut_pipeline: wgpu::RenderPipeline,
    sky_pipeline: wgpu::RenderPipeline,
    pbr_pipeline: wgpu::RenderPipeline,
    pbr_pipeline_two_sided: wgpu::RenderPipeline,
    /// Models as lines (built only when the device has `POLYGON_MODE_LINE`).
    pbr_pipeline_wireframe: Option<wgpu::RenderPipeline>,
    wireframe: bool,
    terrain_pipeline: wgpu::RenderPipeline,
    terrain: TerrainStore,
    /// The caller decides which terrain chunks stay ([`Renderer::set_terrain_caller_owned`]).
    terrain_caller_owned: bool,
    terrain_offsets: wgpu::Buffer,
    terrain_offsets_capacity: u64,
    tonemap_module: wgpu::ShaderModule,
    tonemap_layout: wgpu::PipelineLayout,
    tonemap_pipelines: Vec<(wgpu::TextureFormat, wgpu::RenderPipeline)>,
    white: wgpu::TextureView,
    flat_normal: wgpu::TextureView,
    families: Vec<GpuFamily>,
    silhouettes: Vec<(Category, ModelHandle)>,
    instance_buffer: wgpu::Buffer,
    instance_capacity: u64,
    bc_textures: bool,
    stats: FrameStats,
    particles: crate::particles::ParticlePass,
    shadow: crate::shadow::ShadowPass,
}

fn bgl_entry(binding: u32, ty: wgpu::BindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty,
        count: None,
    }
}

fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    bgl_entry(
        binding,
        wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
    )
}

fn texture_entry(binding: u32, filterable: bool) -> wgpu::BindGroupLayoutEntry {
    bgl_entry(
        binding,
        wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
    )
}

fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    bgl_entry(
        binding,
        wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
    )
}

const VERTEX_ATTRS: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Float32x4];
const INSTANCE_ATTRS: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![4 => Float32x4, 5 => Float32x4, 6 => Float32x4, 7 => Float32x4];

impl Renderer {
    /// Compiles the shaders and builds the pipelines and the builtin silhouettes.
    pub fn new(gpu: &Gpu) -> Result<Renderer, RenderError> {
        let device = &gpu.device;
        let uniform_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame uniforms"),
            entries: &[uniform_entry(0)],
        });
        let frame_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[
                uniform_entry(0),
                texture_entry(1, true),
                sampler_entry(2),
                // The sun's shadow map and its comparison sampler (shadow.rs).
                bgl_entry(
                    3,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                bgl_entry(
                    4,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                ),
            ],
        });
        let material_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                uniform_entry(0),
                texture_entry(1, true),
                texture_entry(2, true),
                texture_entry(3, true),
                texture_entry(4, true),
                sampler_entry(5),
            ],
        });
        let tonemap_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tonemap"),
            entries: &[uniform_entry(0), texture_entry(1, false)],
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame uniforms"),
            size: size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let lut = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("sky-view table"),
            size: wgpu::Extent3d {
                width: LUT_SIZE.0,
                height: LUT_SIZE.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: HDR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let lut_view = lut.create_view(&wgpu::TextureViewDescriptor::default());
        let lut_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("sky table"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let tex_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("material"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });

        let sky = shaders::compile(device, shaders::SKY)?;
        let pbr = shaders::compile(device, shaders::PBR)?;
        let tonemap_module = shaders::compile(device, shaders::TONEMAP)?;
        let layout = |label, bgls: &[&wgpu::BindGroupLayout]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &bgls.iter().map(|b| Some(*b)).collect::<Vec<_>>(),
                immediate_size: 0,
            })
        };
        let lut_layout = layout("sky table", &[&uniform_bgl]);
        let sky_layout = layout("sky", &[&frame_bgl]);
        let pbr_layout = layout("pbr", &[&frame_bgl, &material_bgl]);
        let tonemap_layout = layout("tonemap", &[&tonemap_bgl]);

        let fullscreen = |module: &wgpu::ShaderModule,
                          src: Wgsl,
                          fs: &str,
                          layout: &wgpu::PipelineLayout,
                          format,
                          depth: Option<wgpu::DepthStencilState>|
         -> Result<wgpu::RenderPipeline, RenderError> {
            shaders::pipeline(
                device,
                src,
                fs,
                &wgpu::RenderPipelineDescriptor {
                    label: Some(fs),
                    layout: Some(layout),
                    vertex: wgpu::VertexState {
                        module,
                        entry_point: Some("vs_fullscreen"),
                        compilation_options: Default::default(),
                        buffers: &[],
                    },
                    primitive: wgpu::PrimitiveState::default(),
                    depth_stencil: depth,
                    multisample: wgpu::MultisampleState::default(),
                    fragment: Some(wgpu::FragmentState {
                        module,
                        entry_point: Some(fs),
                        compilation_options: Default::default(),
                        targets: &[Some(format_target(format))],
                    }),
                    multiview_mask: None,
                    cache: gpu.pipeline_cache.as_ref(),
                },
            )
        };
        let lut_pipeline = fullscreen(&sky, shaders::SKY, "fs_lut", &lut_layout, HDR_FORMAT, None)?;
        // The sky is drawn after the models, only where the depth is still the cleared 0.
        let sky_pipeline = fullscreen(
            &sky,
            shaders::SKY,
            "fs_sky",
            &sky_layout,
            HDR_FORMAT,
            Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Equal),
                stencil: Default::default(),
                bias: Default::default(),
            }),
        )?;
        let pbr_pipeline_for = |cull: Option<wgpu::Face>, polygon_mode: wgpu::PolygonMode| {
            shaders::pipeline(
                device,
                shaders::PBR,
                "fs_main",
                &wgpu::RenderPipelineDescriptor {
                    label: Some("pbr"),
                    layout: Some(&pbr_layout),
                    vertex: wgpu::VertexState {
                        module: &pbr,
                        entry_point: Some("vs_main"),
                        compilation_options: Default::default(),
                        buffers: &[
                            Some(wgpu::VertexBufferLayout {
                                array_stride: size_of::<crate::model::Vertex>() as u64,
                                step_mode: wgpu::VertexStepMode::Vertex,
                                attributes: &VERTEX_ATTRS,
                            }),
                            Some(wgpu::VertexBufferLayout {
                                array_stride: 64,
                                step_mode: wgpu::VertexStepMode::Instance,
                                attributes: &INSTANCE_ATTRS,
                            }),
                        ],
                    },
                    primitive: wgpu::PrimitiveState {
                        topology: wgpu::PrimitiveTopology::TriangleList,
                        front_face: wgpu::FrontFace::Ccw,
                        cull_mode: cull,
                        polygon_mode,
                        ..Default::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: DEPTH_FORMAT,
                        depth_write_enabled: Some(true),
                        depth_compare: Some(wgpu::CompareFunction::Greater),
                        stencil: Default::default(),
                        bias: Default::default(),
                    }),
                    multisample: wgpu::MultisampleState::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &pbr,
                        entry_point: Some("fs_main"),
                        compilation_options: Default::default(),
                        targets: &[Some(format_target(HDR_FORMAT))],
                    }),
                    multiview_mask: None,
                    cache: gpu.pipeline_cache.as_ref(),
                },
            )
        };
        let terrain_module = shaders::compile(device, shaders::TERRAIN)?;
        let terrain_pipeline = shaders::pipeline(
            device,
            shaders::TERRAIN,
            "fs_main",
            &wgpu::RenderPipelineDescriptor {
                label: Some("terrain"),
                layout: Some(&sky_layout),
                vertex: wgpu::VertexState {
                    module: &terrain_module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[
                        Some(wgpu::VertexBufferLayout {
                            array_stride: size_of::<TerrainVertex>() as u64,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &TERRAIN_VERTEX_ATTRS,
                        }),
                        Some(wgpu::VertexBufferLayout {
                            array_stride: 16,
                            step_mode: wgpu::VertexStepMode::Instance,
                            attributes: &TERRAIN_OFFSET_ATTRS,
                        }),
                    ],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: Some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Greater),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &terrain_module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(format_target(HDR_FORMAT))],
                }),
                multiview_mask: None,
                cache: gpu.pipeline_cache.as_ref(),
            },
        )?;
        let terrain_offsets_capacity = 256;
        let terrain_offsets = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain offsets"),
            size: terrain_offsets_capacity * 16,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let pbr_pipeline = pbr_pipeline_for(Some(wgpu::Face::Back), wgpu::PolygonMode::Fill)?;
        let pbr_pipeline_two_sided = pbr_pipeline_for(None, wgpu::PolygonMode::Fill)?;
        // Back faces culled: the wireframe shows the edges a modder sees, not the far side.
        let pbr_pipeline_wireframe = if gpu.info.wireframe {
            Some(pbr_pipeline_for(
                Some(wgpu::Face::Back),
                wgpu::PolygonMode::Line,
            )?)
        } else {
            None
        };
        let instance_capacity = 1024;
        let instance_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: instance_capacity * 64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let particles =
            crate::particles::ParticlePass::new(device, &frame_bgl, gpu.pipeline_cache.as_ref())?;
        let shadow = crate::shadow::ShadowPass::new(
            device,
            size_of::<crate::model::Vertex>() as u64,
            gpu.pipeline_cache.as_ref(),
        )?;
        let mut renderer = Renderer {
            white: solid_texture(gpu, "white", [255; 4]),
            flat_normal: solid_texture(gpu, "flat normal", [128, 128, 255, 255]),
            uniform_bgl,
            frame_bgl,
            material_bgl,
            tonemap_bgl,
            uniforms,
            lut_view,
            lut_sampler,
            tex_sampler,
            lut_pipeline,
            sky_pipeline,
            pbr_pipeline,
            pbr_pipeline_two_sided,
            pbr_pipeline_wireframe,
            wireframe: false,
            terrain_pipeline,
            terrain: TerrainStore::default(),
            terrain_caller_owned: false,
            terrain_offsets,
            terrain_offsets_capacity,
            tonemap_module,
            tonemap_layout,
            tonemap_pipelines: Vec::new(),
            families: Vec::new(),
            silhouettes: Vec::new(),
            instance_buffer,
            instance_capacity,
            bc_textures: gpu.info.bc_textures,
            stats: FrameStats::default(),
            particles,
            shadow,
        };
        for c in Category::ALL {
            let h = renderer.upload_model(gpu, &silhouette::silhouette(c), Mat4::IDENTITY);
            renderer.silhouettes.push((c, h));
        }
        renderer.tonemap_pipeline(gpu, OFFSCREEN_FORMAT)?;
        Ok(renderer)
    }

    /// Draws models as wireframes (their triangles' edges) from the next frame on, where the
    /// device can (`GpuInfo::wireframe`). Returns whether models will be drawn as wireframes:
    /// `false` when off, or when asked for on a device without line polygons (models then stay
    /// filled). Terrain and the sky are unchanged.
    pub fn set_wireframe(&mut self, on: bool) -> bool {
        self.wireframe = on && self.pbr_pipeline_wireframe.is_some();
        self.wireframe
    }

    /// Whether this device can draw wireframes.
    pub fn wireframe_supported(&self) -> bool {
        self.pbr_pipeline_wireframe.is_some()
    }

    /// Sets the particles drawn from the next frame on (smoke, contrails, flames, tracers,
    /// explosions; see [`crate::particles`]). The list stays until replaced, so a paused game or
    /// a redrawn screenshot shows the same particles; the client sets it every frame it changes.
    pub fn set_particles(&mut self, particles: &[crate::particles::Particle]) {
        self.particles.set(particles);
    }

    /// What the last frame drew.
    pub fn last_frame_stats(&self) -> FrameStats {
        self.stats
    }

    /// Uploads a terrain chunk under its key (a key uploaded before is replaced). A chunk that
    /// is inconsistent (lengths differ, an index past the vertices, non-finite values, over
    /// [`crate::terrain::MAX_CHUNK_VERTICES`]) is refused and nothing changes. Chunks are
    /// dropped when not drawn for [`crate::terrain::EVICT_AFTER_FRAMES`] frames, and the least
    /// recently drawn past [`crate::terrain::MAX_RESIDENT_CHUNKS`], unless the caller owns
    /// residency ([`Renderer::set_terrain_caller_owned`]).
    pub fn upload_terrain(&mut self, gpu: &Gpu, chunk: &TerrainChunk) -> Result<(), ChunkError> {
        if self.terrain_caller_owned
            && self.terrain.chunks.len() >= crate::terrain::MAX_RESIDENT_CHUNKS
            && !self.terrain.chunks.contains_key(&chunk.key)
        {
            // Refused rather than another chunk dropped behind the caller's back.
            return Err(ChunkError::Invalid {
                key: chunk.key,
                what: format!(
                    "{} chunks already held (the caller owns residency: evict some first)",
                    crate::terrain::MAX_RESIDENT_CHUNKS
                ),
            });
        }
        self.terrain.upload(gpu, chunk)
    }

    /// Who decides which terrain chunks stay on the GPU. `false` (the default): the renderer
    /// drops chunks undrawn for [`crate::terrain::EVICT_AFTER_FRAMES`] frames and the least
    /// recently drawn past [`crate::terrain::MAX_RESIDENT_CHUNKS`]. `true`: the caller (a
    /// streamer that keeps chunks it does not draw every frame, such as stand-ins) does; nothing
    /// is dropped but by [`Renderer::remove_terrain`], and a new key past the bound is refused
    /// ([`ChunkError::Invalid`]).
    pub fn set_terrain_caller_owned(&mut self, on: bool) {
        self.terrain_caller_owned = on;
    }

    /// Whether a chunk of this key is on the GPU (upload it if not).
    pub fn has_terrain(&self, key: TerrainKey) -> bool {
        self.terrain.chunks.contains_key(&key)
    }

    /// Drops a chunk now.
    pub fn remove_terrain(&mut self, key: TerrainKey) {
        self.terrain.chunks.remove(&key);
    }

    /// Chunks on the GPU.
    pub fn terrain_chunk_count(&self) -> usize {
        self.terrain.chunks.len()
    }

    /// The builtin silhouette of a category (for a type without a model).
    pub fn silhouette(&self, category: Category) -> ModelHandle {
        self.silhouettes
            .iter()
            .find(|(c, _)| *c == category)
            .map_or(ModelHandle(0), |(_, h)| *h)
    }

    /// Uploads one model whose mesh-to-body transform is `body_from_mesh` (identity for models
    /// authored in the body frame; [`crate::model::pack_body_from_mesh`] for the pack's).
    pub fn upload_model(
        &mut self,
        gpu: &Gpu,
        data: &ModelData,
        body_from_mesh: Mat4,
    ) -> ModelHandle {
        let base = self.upload_one(gpu, data, &mut TextureViews::new());
        let radius = model_radius(data);
        self.families.push(GpuFamily {
            base,
            lods: Vec::new(),
            body_from_mesh,
            radius,
            shadow: None,
        });
        ModelHandle(self.families.len() as u32 - 1)
    }

    /// Uploads a model family (base, LODs).
    pub fn upload_family(&mut self, gpu: &Gpu, family: &ModelFamily) -> ModelHandle {
        // The LOD files name the same textures as the base: upload each once.
        let mut views = TextureViews::new();
        let base = self.upload_one(gpu, &family.base, &mut views);
        let lods = family
            .lods
            .iter()
            .map(|m| self.upload_one(gpu, m, &mut views))
            .collect();
        let shadow = family
            .shadow
            .as_ref()
            .map(|m| self.upload_one(gpu, m, &mut views));
        self.families.push(GpuFamily {
            base,
            lods,
            body_from_mesh: family.body_from_mesh,
            radius: model_radius(&family.base),
            shadow,
        });
        ModelHandle(self.families.len() as u32 - 1)
    }

    /// Loads `<dir>/<stem>.glb` and its siblings and uploads them; if the base file cannot be
    /// loaded, warns and returns the category's silhouette instead (never invisible).
    pub fn load_family_or_silhouette(
        &mut self,
        gpu: &Gpu,
        dir: &Path,
        stem: &str,
        category: Category,
    ) -> (ModelHandle, Option<ModelFamily>) {
        match ModelFamily::load(dir, stem) {
            Ok(f) => (self.upload_family(gpu, &f), Some(f)),
            Err(e) => {
                tracing::warn!("{e}; drawing the {category:?} silhouette instead");
                (self.silhouette(category), None)
            }
        }
    }

    fn upload_one(&self, gpu: &Gpu, data: &ModelData, views: &mut TextureViews) -> GpuModel {
        use wgpu::util::DeviceExt;
        let device = &gpu.device;
        // Each image once per colour space it is used in: texture files by path (shared across
        // a family's files), images embedded in the model by their index.
        let mut view_of = |index: Option<usize>, srgb: bool| -> Option<wgpu::TextureView> {
            let i = index?;
            let image = data.images.get(i).and_then(|im| im.as_ref());
            let key = match image {
                Some(im) if im.source != data.path => (im.source.clone(), usize::MAX, srgb),
                _ => (data.path.clone(), i, srgb),
            };
            views
                .entry(key)
                .or_insert_with(|| {
                    data.images
                        .get(i)
                        .and_then(|im| im.as_ref())
                        .and_then(|im| upload_image(gpu, im, srgb, self.bc_textures))
                })
                .clone()
        };
        let mut materials = Vec::new();
        for m in &data.materials {
            let base = view_of(m.base_color_texture, true);
            let mr = view_of(m.metallic_roughness_texture, false);
            let occ = view_of(m.occlusion_texture, false);
            let normal = view_of(m.normal_texture, false);
            materials.push((m.clone(), base, mr, occ, normal));
        }
        let default_material = crate::model::Material::default();
        let mut parts = Vec::new();
        for (node_index, node) in data.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| data.meshes.get(m)) else {
                continue;
            };
            let mut prims = Vec::new();
            for p in &mesh.primitives {
                if p.indices.is_empty() {
                    continue;
                }
                let (mat, base, mr, occ, normal) = match p.material.and_then(|i| materials.get(i)) {
                    Some((m, b, r, o, n)) => (m, b.as_ref(), r.as_ref(), o.as_ref(), n.as_ref()),
                    None => (&default_material, None, None, None, None),
                };
                let use_normal_map = normal.is_some() && p.has_tangents;
                let u = MaterialUniforms {
                    base_color: mat.base_color,
                    emissive_cutoff: [
                        mat.emissive[0],
                        mat.emissive[1],
                        mat.emissive[2],
                        match mat.alpha {
                            AlphaMode::Mask(c) => c,
                            _ => -1.0,
                        },
                    ],
                    params: [
                        mat.metallic,
                        mat.roughness,
                        if occ.is_some() {
                            mat.occlusion_strength
                        } else {
                            0.0
                        },
                        mat.normal_scale,
                    ],
                    flags: [
                        f32::from(u8::from(use_normal_map)),
                        f32::from(u8::from(mat.double_sided)),
                        0.0,
                        0.0,
                    ],
                };
                let ubuf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("material"),
                    contents: bytemuck::bytes_of(&u),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("material"),
                    layout: &self.material_bgl,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: ubuf.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(
                                base.unwrap_or(&self.white),
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(mr.unwrap_or(&self.white)),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::TextureView(
                                occ.unwrap_or(&self.white),
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: wgpu::BindingResource::TextureView(
                                normal.unwrap_or(&self.flat_normal),
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 5,
                            resource: wgpu::BindingResource::Sampler(&self.tex_sampler),
                        },
                    ],
                });
                prims.push(GpuPrimitive {
                    vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("vertices"),
                        contents: bytemuck::cast_slice(&p.vertices),
                        usage: wgpu::BufferUsages::VERTEX,
                    }),
                    indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("indices"),
                        contents: bytemuck::cast_slice(&p.indices),
                        usage: wgpu::BufferUsages::INDEX,
                    }),
                    index_count: p.indices.len() as u32,
                    material: bind,
                    double_sided: mat.double_sided,
                });
            }
            let name = node.name.clone().unwrap_or_default();
            parts.push(Part {
                node: node_index,
                primitives: prims,
                damage: data.under_damage_node(node_index),
                has_damage_variant: data.node_index(&format!("{name}_b")).is_some(),
            });
        }
        GpuModel {
            data_nodes: data.nodes.clone(),
            parts,
        }
    }

    fn tonemap_pipeline(
        &mut self,
        gpu: &Gpu,
        format: wgpu::TextureFormat,
    ) -> Result<usize, RenderError> {
        if let Some(i) = self
            .tonemap_pipelines
            .iter()
            .position(|(f, _)| *f == format)
        {
            return Ok(i);
        }
        let p = shaders::pipeline(
            &gpu.device,
            shaders::TONEMAP,
            "fs_tonemap",
            &wgpu::RenderPipelineDescriptor {
                label: Some("tonemap"),
                layout: Some(&self.tonemap_layout),
                vertex: wgpu::VertexState {
                    module: &self.tonemap_module,
                    entry_point: Some("vs_fullscreen"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &self.tonemap_module,
                    entry_point: Some("fs_tonemap"),
                    compilation_options: Default::default(),
                    targets: &[Some(format_target(format))],
                }),
                multiview_mask: None,
                cache: gpu.pipeline_cache.as_ref(),
            },
        )?;
        self.tonemap_pipelines.push((format, p));
        Ok(self.tonemap_pipelines.len() - 1)
    }

    /// Draws `frame` into an offscreen target (read it back with
    /// [`OffscreenTarget::read_rgba`] or [`OffscreenTarget::save_png`]).
    pub fn render_offscreen(
        &mut self,
        gpu: &Gpu,
        frame: &Frame,
        target: &OffscreenTarget,
    ) -> Result<(), RenderError> {
        let size = (target.width(), target.height());
        self.render_into(
            gpu,
            frame,
            &target.scene,
            &target.view,
            OFFSCREEN_FORMAT,
            size,
        )
    }

    /// Draws `frame` into an acquired window frame (then present it).
    pub fn render_to_surface(
        &mut self,
        gpu: &Gpu,
        frame: &Frame,
        surface: &WindowSurface,
        out: &SurfaceFrame,
    ) -> Result<(), RenderError> {
        let size = surface.size();
        self.render_into(
            gpu,
            frame,
            &surface.scene,
            &out.view,
            surface.view_format,
            size,
        )
    }

    fn render_into(
        &mut self,
        gpu: &Gpu,
        frame: &Frame,
        scene: &SceneBuffers,
        output: &wgpu::TextureView,
        output_format: wgpu::TextureFormat,
        output_size: (u32, u32),
    ) -> Result<(), RenderError> {
        let tonemap_index = self.tonemap_pipeline(gpu, output_format)?;
        let device = &gpu.device;
        let camera = &frame.camera;
        let matrices = CameraMatrices::new(camera);
        let lighting = sky_lighting(&frame.sky, camera.position);
        let up = lighting.up;
        let sun = frame.sky.sun_direction.normalize_or(DVec3::Y).as_vec3();
        // The sky frame: x towards the sun's azimuth, z completing a right-handed frame.
        let sun_h = sun - up * sun.dot(up);
        let sky_x = sun_h
            .try_normalize()
            .unwrap_or_else(|| up.any_orthonormal_vector());
        let sky_z = sky_x.cross(up);
        if frame.lights.len() > MAX_LIGHTS {
            tracing::warn!(
                count = frame.lights.len(),
                "more than {MAX_LIGHTS} extra lights; the rest are ignored"
            );
        }
        let mut light_dir = [[0.0; 4]; 4];
        let mut light_col = [[0.0; 4]; 4];
        for (i, l) in frame.lights.iter().take(MAX_LIGHTS).enumerate() {
            let d = l.direction.try_normalize().unwrap_or(Vec3::Y);
            light_dir[i] = d.extend(0.0).to_array();
            light_col[i] = l.color.extend(0.0).to_array();
        }
        let atmosphere = if frame.sky.atmosphere { 1.0 } else { 0.0 };
        // The sun's shadow map (shadow.rs): none when the sun is off or below the horizon.
        let light = (frame.sky.sun_intensity > 0.0)
            .then(|| {
                crate::shadow::light_matrix(
                    camera.position,
                    camera.forward(),
                    up.as_dvec3(),
                    frame.sky.sun_direction,
                )
            })
            .flatten();
        let (shadow_view_proj, shadow) = crate::shadow::receiver_uniforms(light);
        let (moon_dir, moon_rad) = crate::atmosphere::moon_uniforms(&frame.sky, camera.position);
        let u = FrameUniforms {
            view_proj: matrices.view_proj.to_cols_array_2d(),
            inv_view_proj: matrices.view_proj.inverse().to_cols_array_2d(),
            up_alt: up.extend(lighting.altitude_m).to_array(),
            sun_dir: sun.extend(atmosphere).to_array(),
            sun_irr: lighting
                .sun_irradiance
                .extend(if frame.sky.sun_intensity > 0.0 {
                    1.0
                } else {
                    0.0
                })
                .to_array(),
            sky_irr: lighting.sky_irradiance.extend(lighting.exposure).to_array(),
            ground_irr: lighting.ground_irradiance.extend(0.0).to_array(),
            fog: [
                frame.sky.weather.fog_density_per_m.clamp(0.0, 1.0),
                frame.sky.weather.cloud_cover.clamp(0.0, 1.0),
                frame.sky.planet_radius_m as f32,
                SUN_IRRADIANCE,
            ],
            sky_x: sky_x.extend(0.0).to_array(),
            sky_z: sky_z.extend(0.0).to_array(),
            light_dir,
            light_col,
            counts: [
                frame.lights.len().min(MAX_LIGHTS) as f32,
                scene.width as f32,
                scene.height as f32,
                frame.sky.weather.fog_start_m.max(0.0),
            ],
            shadow_view_proj,
            shadow,
            moon_dir,
            moon_rad,
            output: [output_size.0 as f32, output_size.1 as f32, 0.0, 0.0],
        };
        gpu.queue
            .write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&u));

        // Instances: one model matrix per drawn part, grouped so each part is one draw.
        let mut batches = self.build_batches(frame, scene.height);
        // A bounded instance buffer: past MAX_DRAWN_PARTS the rest of the frame is dropped
        // (with a warning) rather than asking the device for an oversized buffer.
        let mut room = MAX_DRAWN_PARTS;
        for b in &mut batches {
            let keep = b.matrices.len().min(room);
            b.matrices.truncate(keep);
            room -= keep;
        }
        if room == 0 {
            tracing::warn!(
                "more than {MAX_DRAWN_PARTS} model parts in one frame; the rest are not drawn"
            );
        }
        batches.retain(|b| !b.matrices.is_empty());
        let total: u64 = batches.iter().map(|b| b.matrices.len() as u64).sum();
        if total > self.instance_capacity {
            self.instance_capacity = total.next_power_of_two();
            self.instance_buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("instances"),
                size: self.instance_capacity * 64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        let mut all: Vec<[f32; 16]> = Vec::with_capacity(total as usize);
        for b in &batches {
            all.extend(b.matrices.iter().map(|m| m.to_cols_array()));
        }
        if !all.is_empty() {
            gpu.queue
                .write_buffer(&self.instance_buffer, 0, bytemuck::cast_slice(&all));
        }

        // Terrain: each chunk's origin relative to the camera (f64, then f32), culled like the
        // instances against the side planes and what lies behind.
        let planes = frustum_side_planes(&matrices.view_proj);
        let forward = camera.forward();
        let frame_no = self.terrain.frame;
        let mut terrain_draws: Vec<(TerrainKey, [f32; 4])> = Vec::new();
        let mut terrain_culled = 0usize;
        for key in &frame.terrain {
            let Some(chunk) = self.terrain.chunks.get_mut(key) else {
                continue;
            };
            chunk.last_used = frame_no;
            let rel = chunk.origin - camera.position;
            let r = chunk.radius;
            let relf = rel.as_vec3();
            if rel.dot(forward) < -r
                || planes
                    .iter()
                    .any(|p| f64::from(p.truncate().dot(relf) + p.w) < -r)
            {
                terrain_culled += 1;
                continue;
            }
            terrain_draws.push((*key, [relf.x, relf.y, relf.z, 0.0]));
        }
        if terrain_draws.len() as u64 > self.terrain_offsets_capacity {
            self.terrain_offsets_capacity = (terrain_draws.len() as u64).next_power_of_two();
            self.terrain_offsets = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("terrain offsets"),
                size: self.terrain_offsets_capacity * 16,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        if !terrain_draws.is_empty() {
            let offsets: Vec<[f32; 4]> = terrain_draws.iter().map(|(_, o)| *o).collect();
            gpu.queue
                .write_buffer(&self.terrain_offsets, 0, bytemuck::cast_slice(&offsets));
        }

        let shadow_batches = match &light {
            Some(l) => self.shadow_batches(frame, l),
            None => Vec::new(),
        };
        let shadow_matrices: Vec<Mat4> = shadow_batches
            .iter()
            .flat_map(|(_, _, m)| m.iter().copied())
            .collect();
        self.shadow.upload(device, &gpu.queue, &shadow_matrices);
        let mut shadow_draws = Vec::new();
        let mut first = 0u32;
        for (family, part, m) in &shadow_batches {
            let model = shadow_model(&self.families[*family]);
            for prim in &model.parts[*part].primitives {
                shadow_draws.push(crate::shadow::ShadowDraw {
                    vertices: &prim.vertices,
                    indices: &prim.indices,
                    index_count: prim.index_count,
                    instances: first..first + m.len() as u32,
                });
            }
            first += m.len() as u32;
        }

        let uniform_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame uniforms"),
            layout: &self.uniform_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: self.uniforms.as_entire_binding(),
            }],
        });
        let frame_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &self.frame_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&self.lut_view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&self.lut_sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&self.shadow.view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&self.shadow.sampler),
                },
            ],
        });
        let tonemap_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tonemap"),
            layout: &self.tonemap_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&scene.hdr_view),
                },
            ],
        });

        self.particles.prepare(device, &gpu.queue, camera.position);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        self.shadow
            .encode(&gpu.queue, &mut enc, light, &shadow_draws);
        if frame.sky.atmosphere {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("sky table"),
                color_attachments: &[Some(color_attachment(&self.lut_view))],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.lut_pipeline);
            pass.set_bind_group(0, &uniform_bind, &[]);
            pass.draw(0..3, 0..1);
        }
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(color_attachment(&scene.hdr_view))],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &scene.depth_view,
                    // Reverse-Z: the far plane (infinity) is 0.
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &frame_bind, &[]);
            if !terrain_draws.is_empty() {
                pass.set_pipeline(&self.terrain_pipeline);
                pass.set_vertex_buffer(1, self.terrain_offsets.slice(..));
                for (i, (key, _)) in terrain_draws.iter().enumerate() {
                    let Some(chunk) = self.terrain.chunks.get(key) else {
                        continue;
                    };
                    pass.set_vertex_buffer(0, chunk.vertices.slice(..));
                    pass.set_index_buffer(chunk.indices.slice(..), wgpu::IndexFormat::Uint32);
                    let i = i as u32;
                    pass.draw_indexed(0..chunk.index_count, 0, i..i + 1);
                }
            }
            pass.set_vertex_buffer(1, self.instance_buffer.slice(..));
            let mut first = 0u32;
            for b in &batches {
                let count = b.matrices.len() as u32;
                let model = match b.lod {
                    None => &self.families[b.family].base,
                    Some(l) => &self.families[b.family].lods[l],
                };
                for prim in &model.parts[b.part].primitives {
                    pass.set_pipeline(match (&self.pbr_pipeline_wireframe, self.wireframe) {
                        (Some(lines), true) => lines,
                        _ if prim.double_sided => &self.pbr_pipeline_two_sided,
                        _ => &self.pbr_pipeline,
                    });
                    pass.set_bind_group(1, &prim.material, &[]);
                    pass.set_vertex_buffer(0, prim.vertices.slice(..));
                    pass.set_index_buffer(prim.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..prim.index_count, 0, first..first + count);
                }
                first += count;
            }
            pass.set_pipeline(&self.sky_pipeline);
            pass.set_bind_group(0, &frame_bind, &[]);
            pass.draw(0..3, 0..1);
            // Particles last: blended over the models, terrain and sky, depth-tested only.
            self.particles.draw(&mut pass);
        }
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("tonemap"),
                color_attachments: &[Some(color_attachment(output))],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.tonemap_pipelines[tonemap_index].1);
            pass.set_bind_group(0, &tonemap_bind, &[]);
            pass.draw(0..3, 0..1);
        }
        gpu.queue.submit([enc.finish()]);
        self.stats.instances = frame.instances.len();
        self.stats.parts = total as usize;
        self.stats.batches = batches.len();
        self.stats.terrain_chunks = terrain_draws.len();
        self.stats.terrain_culled = terrain_culled;
        self.stats.particles = self.particles.drawn();
        if self.terrain_caller_owned {
            // Nothing ages out behind the caller's back (at most MAX_RESIDENT_CHUNKS to touch).
            let now = self.terrain.frame;
            for c in self.terrain.chunks.values_mut() {
                c.last_used = now;
            }
        }
        self.terrain.end_frame();
        Ok(())
    }

    fn build_batches(&mut self, frame: &Frame, viewport_h: u32) -> Vec<Batch> {
        let camera = &frame.camera;
        let planes = frustum_side_planes(&CameraMatrices::new(camera).view_proj);
        let mut culled = 0usize;
        let mut groups: BTreeMap<(usize, Option<usize>, usize), Vec<Mat4>> = BTreeMap::new();
        for inst in &frame.instances {
            let Some(family) = self.families.get(inst.model.0 as usize) else {
                tracing::warn!(
                    handle = inst.model.0,
                    "instance of an unknown model handle skipped"
                );
                continue;
            };
            if !inst.position.is_finite() {
                continue;
            }
            let scale = if inst.scale.is_finite() && inst.scale > 0.0 {
                inst.scale
            } else {
                1.0
            };
            let distance = (inst.position - camera.position).length() as f32;
            let radius = family.radius * scale;
            // Cull what lies wholly behind the camera or outside the four side planes.
            let forward = camera.forward();
            let rel = (inst.position - camera.position).as_vec3();
            if ((inst.position - camera.position).dot(forward) as f32) < -radius
                || planes.iter().any(|p| p.truncate().dot(rel) + p.w < -radius)
            {
                culled += 1;
                continue;
            }
            let lod = match inst.lod {
                LodHint::Base => None,
                LodHint::Lod(i) => {
                    (!family.lods.is_empty()).then(|| (i as usize).min(family.lods.len() - 1))
                }
                LodHint::Auto => choose_lod(
                    radius,
                    distance,
                    camera.vertical_fov_rad as f32,
                    viewport_h,
                    family.lods.len(),
                ),
            };
            let model = match lod {
                None => &family.base,
                Some(l) => &family.lods[l],
            };
            let base = relative_model_matrix(
                camera.position,
                inst.position,
                sanitize_quat(inst.orientation),
                f64::from(scale),
            ) * family.body_from_mesh;
            let node_matrix = |i: usize| -> Mat4 {
                let mut m = Mat4::IDENTITY;
                let mut at = Some(i);
                let mut depth = 0;
                while let Some(n) = at {
                    let Some(node) = model.data_nodes.get(n) else {
                        break;
                    };
                    let local = match inst.articulation.iter().find(|p| p.node as usize == n) {
                        Some(p) if p.rotation.is_finite() && p.translation.is_finite() => {
                            Mat4::from_scale_rotation_translation(
                                node.scale,
                                p.rotation.normalize(),
                                p.translation,
                            )
                        }
                        _ => node.local_matrix(),
                    };
                    m = local * m;
                    at = node.parent;
                    depth += 1;
                    if depth > crate::model::MAX_DEPTH {
                        break;
                    }
                }
                m
            };
            for (pi, part) in model.parts.iter().enumerate() {
                let show = if inst.damaged {
                    part.damage || !part.has_damage_variant
                } else {
                    !part.damage
                };
                if !show || part.primitives.is_empty() {
                    continue;
                }
                groups
                    .entry((inst.model.0 as usize, lod, pi))
                    .or_default()
                    .push(base * node_matrix(part.node));
            }
        }
        self.stats.culled = culled;
        groups
            .into_iter()
            .map(|((family, lod, part), matrices)| Batch {
                family,
                lod,
                part,
                matrices,
            })
            .collect()
    }
}

/// What the last frame drew (for HUDs, benchmarks and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Instances in the frame.
    pub instances: usize,
    /// Instances culled (behind the camera or outside the view).
    pub culled: usize,
    /// Model parts drawn (instances × nodes with meshes).
    pub parts: usize,
    /// Instanced batches (one per model part in view).
    pub batches: usize,
    /// Terrain chunks drawn.
    pub terrain_chunks: usize,
    /// Terrain chunks culled (behind the camera or outside the view).
    pub terrain_culled: usize,
    /// Particles drawn.
    pub particles: usize,
}

/// The left, right, bottom and top planes of a view-projection (camera-relative), normalised so
/// that `n · p + d` is the signed distance of `p` inside the view.
fn frustum_side_planes(m: &Mat4) -> [glam::Vec4; 4] {
    let row = |i: usize| glam::Vec4::new(m.x_axis[i], m.y_axis[i], m.z_axis[i], m.w_axis[i]);
    let (r0, r1, r3) = (row(0), row(1), row(3));
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1].map(|p| {
        let l = p.truncate().length();
        if l > 0.0 { p / l } else { p }
    })
}

/// Uploaded texture views by (file, embedded image index, sRGB).
type TextureViews = BTreeMap<(std::path::PathBuf, usize, bool), Option<wgpu::TextureView>>;

struct Batch {
    family: usize,
    lod: Option<usize>,
    part: usize,
    matrices: Vec<Mat4>,
}

fn format_target(format: wgpu::TextureFormat) -> wgpu::ColorTargetState {
    wgpu::ColorTargetState {
        format,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    }
}

fn color_attachment(view: &wgpu::TextureView) -> wgpu::RenderPassColorAttachment<'_> {
    wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
            store: wgpu::StoreOp::Store,
        },
    }
}

/// Bounding radius around the model origin (for LOD and culling).
fn model_radius(data: &ModelData) -> f32 {
    data.bounds()
        .map_or(1.0, |(lo, hi)| lo.length().max(hi.length()).max(0.1))
}

/// What a family draws into the shadow map: its `_shadow` mesh, else its coarsest level of
/// detail, else its base.
fn shadow_model(f: &GpuFamily) -> &GpuModel {
    f.shadow.as_ref().or(f.lods.last()).unwrap_or(&f.base)
}

impl Renderer {
    /// The shadow casters: instances whose bounding sphere lies in the shadow map's column
    /// (`light`, camera-relative), whether or not they are in view, each part of its
    /// [`shadow_model`] in the file's pose (articulation is not applied to shadows), grouped by
    /// (family, part); at most [`MAX_DRAWN_PARTS`] matrices in all.
    fn shadow_batches(&self, frame: &Frame, light: &Mat4) -> Vec<(usize, usize, Vec<Mat4>)> {
        let camera = frame.camera.position;
        let mut groups: BTreeMap<(usize, usize), Vec<Mat4>> = BTreeMap::new();
        let mut room = MAX_DRAWN_PARTS;
        for inst in &frame.instances {
            let Some(family) = self.families.get(inst.model.0 as usize) else {
                continue;
            };
            if !inst.position.is_finite() {
                continue;
            }
            let scale = if inst.scale.is_finite() && inst.scale > 0.0 {
                inst.scale
            } else {
                1.0
            };
            let rel = (inst.position - camera).as_vec3();
            if !crate::shadow::covers(light, rel, family.radius * scale) {
                continue;
            }
            let model = shadow_model(family);
            let base = relative_model_matrix(
                camera,
                inst.position,
                sanitize_quat(inst.orientation),
                f64::from(scale),
            ) * family.body_from_mesh;
            for (pi, part) in model.parts.iter().enumerate() {
                let show = if inst.damaged {
                    part.damage || !part.has_damage_variant
                } else {
                    !part.damage
                };
                if !show || part.primitives.is_empty() || room == 0 {
                    continue;
                }
                let mut m = Mat4::IDENTITY;
                let mut at = Some(part.node);
                let mut depth = 0;
                while let Some(n) = at {
                    let Some(node) = model.data_nodes.get(n) else {
                        break;
                    };
                    m = node.local_matrix() * m;
                    at = node.parent;
                    depth += 1;
                    if depth > crate::model::MAX_DEPTH {
                        break;
                    }
                }
                groups
                    .entry((inst.model.0 as usize, pi))
                    .or_default()
                    .push(base * m);
                room -= 1;
            }
        }
        groups.into_iter().map(|((f, p), m)| (f, p, m)).collect()
    }
}
