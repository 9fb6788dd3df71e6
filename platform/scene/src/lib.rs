//! fl-scene: the world as the game and the viewer draw it — fl-terrain's streamed chunks handed
//! to fl-render ([`stream_sink`]), the ground under a moving camera read off the render thread
//! ([`GroundProbe`]), and the conversion of a chunk mesh to the renderer's plain data. Owns no
//! window and no simulation: the game client and fl-view decide where the camera is.

pub mod ground_probe;
pub mod models;
pub mod stream_sink;

pub use ground_probe::GroundProbe;

use fl_render::TerrainChunk;
use fl_terrain::chunks::ChunkMesh;
use glam::DVec3;

/// A chunk mesh from fl-terrain as the renderer's plain data (key: the packed tile key).
pub fn to_render_chunk(m: ChunkMesh) -> TerrainChunk {
    TerrainChunk {
        key: m.key.packed(),
        origin: DVec3::from_array(m.origin),
        positions: m.positions,
        normals: m.normals,
        land_cover: m.land_cover,
        indices: m.indices,
    }
}
