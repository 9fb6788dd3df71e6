//! fl-render: the wgpu renderer. Takes plain data (camera, sky, meshes, textures, terrain chunk
//! grids, instances) and draws it to a window surface or an offscreen target. Must not import any
//! engine crate or the client: it never sees an entity, a packet or a flight model.
//!
//! Conventions (docs/render.md): world right-handed, Y up, metres, f64 on the CPU; every GPU
//! position is relative to the camera (subtracted in f64, then cast to f32); reverse-Z depth
//! (Depth32Float, clear 0, `Greater`, infinite far plane); HDR colour, tonemapped at the end.

pub mod atmosphere;
pub mod camera;
mod error;
pub mod frame;
pub mod gpu;
pub mod land_cover;
pub mod model;
pub mod moon;
pub mod particles;
pub mod pipeline_cache;
pub mod renderer;
mod shaders;
pub mod shadow;
pub mod sun;
pub mod surface;
pub mod target;
pub mod terrain;
pub mod ui;
mod upload;

pub use error::RenderError;
pub use frame::{
    Camera, Category, DirectionalLight, Frame, Instance, LodHint, NodePose, SkyParams, Weather,
};
pub use gpu::{Gpu, GpuInfo};
pub use particles::{Particle, ParticleKind, TRACER_HALF_WIDTH_M, contrail_forms};
pub use pipeline_cache::{CacheStart, DiskPipelineCache, PipelineCacheError};
pub use renderer::{FrameStats, ModelHandle, Renderer};
pub use target::{OffscreenTarget, RENDER_SCALE_RANGE};
pub use terrain::{ChunkError, TerrainChunk, TerrainKey};
pub use ui::{UiFrame, UiPainter};
