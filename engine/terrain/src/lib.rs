//! fl-terrain: heights and land cover on the cube-sphere planet, from the pack's tiles and a
//! builtin procedural base. Read by the simulation (ground contact) and the renderer alike. Must
//! not: depend on a GPU, a window, or on what a cache happens to hold for any height the
//! simulation reads.
//!
//! * [`airfield`]: the builtin airfields (flat runway and apron, blended into the terrain);
//! * [`cube`]: the cube-sphere mapping (faces, warp, lat/lon, tile keys), the C++ original's;
//! * [`tile`]: a tile's PNG files and names;
//! * [`pack`]: the stack's theaters and tile files, and each pack's terrain digest;
//! * [`store`]: decoded tiles in a byte-bounded cache, synchronous and background loading;
//! * [`stream`]: per-frame terrain streaming (what to draw, request, upload and evict);
//! * [`base`]: the procedural planet under every pack;
//! * `skirt`: the land a pack's theaters continue into (the base around them);
//! * [`terrain`]: the surface (finest level, level and theater edge blends, base), the floor.
//!
//! See docs/terrain.md.

pub mod airfield;
pub mod base;
pub mod chunks;
pub mod cube;
pub mod pack;
mod skirt;
pub mod store;
pub mod stream;
pub mod terrain;
pub mod tile;

pub use airfield::{Airfield, AirfieldSpec};
pub use base::Base;
pub use cube::TileKey;
pub use pack::{Bounds, PackTerrain, TerrainIndex, Theater, WORLD_TERRAIN_ID, empty_digest};
pub use skirt::{SKIRT_FULL_M, SKIRT_REACH_M};
pub use store::{CacheStats, Layer, Loaded, TileData, TileLoader, TileStore};
pub use terrain::{HeightInfo, Terrain, TerrainConfig};
