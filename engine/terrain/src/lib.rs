//! fl-terrain: heights and land cover on the cube-sphere planet, from the pack's tiles and a
//! builtin procedural base. Read by the simulation (ground contact) and the renderer alike. Must
//! not: depend on a GPU, a window, or on what a cache happens to hold for any height the
//! simulation reads.

pub mod cube;
