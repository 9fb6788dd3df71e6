//! fl-render: the wgpu renderer. Takes plain data (camera, sky, meshes, textures, terrain chunk
//! grids, instances) and draws it to a window surface or an offscreen target. Must not import any
//! engine crate or the client: it never sees an entity, a packet or a flight model.

pub mod model;
