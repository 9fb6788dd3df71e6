//! Terrain chunks on the GPU: plain-data chunk meshes (an f64 origin, f32 positions relative to
//! it, normals, a land-cover class per vertex) uploaded once per key, drawn camera-relative with
//! reverse-Z through shaders/terrain.wgsl, and evicted when unused for a while.
//!
//! Owns the GPU copies of chunks only: which chunks exist and what they hold is decided by the
//! caller (fl-terrain's chunk selection and builder, through the client or fl-view). Must not:
//! import an engine crate, or wait for anything but the GPU queue.

use std::collections::BTreeMap;

use glam::DVec3;

use crate::gpu::Gpu;

/// A chunk's key, chosen by the caller (fl-terrain uses the packed tile key). Unique per chunk.
pub type TerrainKey = u64;

/// Most vertices in one chunk (a 33 × 33 grid with skirts has 1,221).
pub const MAX_CHUNK_VERTICES: usize = 1 << 20;
/// Most indices in one chunk.
pub const MAX_CHUNK_INDICES: usize = 6 << 20;
/// Most chunks held on the GPU; past it the least recently drawn are dropped.
pub const MAX_RESIDENT_CHUNKS: usize = 8_192;
/// Frames a chunk may go undrawn before it is dropped.
pub const EVICT_AFTER_FRAMES: u64 = 600;

/// One chunk's mesh, as the renderer takes it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TerrainChunk {
    /// The caller's key (uploading a key again replaces the chunk).
    pub key: TerrainKey,
    /// World position the vertices are relative to, m.
    pub origin: DVec3,
    /// Vertex positions relative to `origin`, m.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, world axes.
    pub normals: Vec<[f32; 3]>,
    /// ESA WorldCover class per vertex (10 trees, 20 shrubland, 30 grassland, 40 cropland,
    /// 50 built-up, 60 bare/sparse, 70 snow/ice, 80 water, 90 wetland, 95 mangroves,
    /// 100 moss/lichen; 0 unknown).
    pub land_cover: Vec<u8>,
    /// Triangle list, counter-clockwise seen from above.
    pub indices: Vec<u32>,
}

/// Why a chunk was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    /// Positions, normals and land cover differ in length.
    #[error("terrain chunk {key}: {positions} positions, {normals} normals, {classes} classes")]
    Mismatch {
        /// The chunk.
        key: TerrainKey,
        /// Positions.
        positions: usize,
        /// Normals.
        normals: usize,
        /// Land-cover classes.
        classes: usize,
    },
    /// Too many vertices or indices, none, or an index past the vertices.
    #[error("terrain chunk {key}: {what}")]
    Invalid {
        /// The chunk.
        key: TerrainKey,
        /// What is wrong.
        what: String,
    },
}

/// The GPU vertex (28 bytes): `class` is the vertex's class, then its blended albedo
/// ([`crate::land_cover::blended_albedo`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct TerrainVertex {
    position: [f32; 3],
    normal: [f32; 3],
    class: [u8; 4],
}

pub(crate) const TERRAIN_VERTEX_ATTRS: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Uint8x4];
pub(crate) const TERRAIN_OFFSET_ATTRS: [wgpu::VertexAttribute; 1] =
    wgpu::vertex_attr_array![3 => Float32x4];

#[derive(Debug)]
pub(crate) struct GpuChunk {
    pub origin: DVec3,
    pub radius: f64,
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    pub last_used: u64,
}

/// The chunks on the GPU.
#[derive(Debug, Default)]
pub(crate) struct TerrainStore {
    pub chunks: BTreeMap<TerrainKey, GpuChunk>,
    pub frame: u64,
}

impl TerrainStore {
    /// Checks and uploads `chunk` (replacing one of the same key).
    pub fn upload(&mut self, gpu: &Gpu, chunk: &TerrainChunk) -> Result<(), ChunkError> {
        use wgpu::util::DeviceExt;
        let key = chunk.key;
        let n = chunk.positions.len();
        if chunk.normals.len() != n || chunk.land_cover.len() != n {
            return Err(ChunkError::Mismatch {
                key,
                positions: n,
                normals: chunk.normals.len(),
                classes: chunk.land_cover.len(),
            });
        }
        let invalid = |what: String| Err(ChunkError::Invalid { key, what });
        if n == 0 || n > MAX_CHUNK_VERTICES {
            return invalid(format!("{n} vertices (1 ..= {MAX_CHUNK_VERTICES})"));
        }
        let ni = chunk.indices.len();
        if ni == 0 || ni > MAX_CHUNK_INDICES || !ni.is_multiple_of(3) {
            return invalid(format!(
                "{ni} indices (a multiple of 3, 3 ..= {MAX_CHUNK_INDICES})"
            ));
        }
        if let Some(bad) = chunk.indices.iter().find(|&&i| i as usize >= n) {
            return invalid(format!("index {bad} past {n} vertices"));
        }
        if !chunk.origin.is_finite() {
            return invalid("origin is not finite".into());
        }
        let mut radius = 0.0f64;
        let mut vertices = Vec::with_capacity(n);
        for ((p, nrm), c) in chunk
            .positions
            .iter()
            .zip(&chunk.normals)
            .zip(&chunk.land_cover)
        {
            if !p.iter().chain(nrm).all(|v| v.is_finite()) {
                return invalid("a position or normal is not finite".into());
            }
            radius = radius.max(glam::Vec3::from_array(*p).as_dvec3().length());
            vertices.push(TerrainVertex {
                position: *p,
                normal: *nrm,
                class: [*c, 0, 0, 0],
            });
        }
        // The class's colour blended with the neighbours' (land_cover.rs) in bytes 1–3.
        let blended = crate::land_cover::blended_albedo(&chunk.land_cover, &chunk.indices);
        for (v, rgb) in vertices.iter_mut().zip(blended) {
            v.class[1..].copy_from_slice(&rgb);
        }
        let device = &gpu.device;
        let frame = self.frame;
        self.chunks.insert(
            key,
            GpuChunk {
                origin: chunk.origin,
                radius,
                vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("terrain vertices"),
                    contents: bytemuck::cast_slice(&vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                }),
                indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("terrain indices"),
                    contents: bytemuck::cast_slice(&chunk.indices),
                    usage: wgpu::BufferUsages::INDEX,
                }),
                index_count: ni as u32,
                last_used: frame,
            },
        );
        self.trim();
        Ok(())
    }

    /// Drops chunks past the resident bound, least recently drawn first (ties: lowest key).
    fn trim(&mut self) {
        if self.chunks.len() <= MAX_RESIDENT_CHUNKS {
            return;
        }
        let mut by_age: Vec<(u64, TerrainKey)> =
            self.chunks.iter().map(|(k, c)| (c.last_used, *k)).collect();
        by_age.sort_unstable();
        let excess = self.chunks.len() - MAX_RESIDENT_CHUNKS;
        for (_, k) in by_age.into_iter().take(excess) {
            self.chunks.remove(&k);
        }
    }

    /// After a frame: drops chunks not drawn for [`EVICT_AFTER_FRAMES`] frames.
    pub fn end_frame(&mut self) {
        let now = self.frame;
        self.chunks
            .retain(|_, c| now.saturating_sub(c.last_used) <= EVICT_AFTER_FRAMES);
        self.frame += 1;
    }
}
