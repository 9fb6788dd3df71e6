//! The ground the player sees, streamed as the eye moves: the terrain stream (chunks built on
//! its worker thread, at most [`UPLOADS_PER_FRAME`] uploaded a frame), the ground probe (the
//! height under the eye, for the cameras and the stream's selection), and the planet's
//! geometry the window needs (altitude, local up, latitude and longitude of a world point).
//!
//! Owns the stream and the probe of one flight. Must not build chunks on the render thread or
//! decide where the eye is (`camera`).

use fl_flight::gravity::EARTH_RADIUS_M;
use fl_render::{Gpu, Renderer};
use fl_scene::GroundProbe;
use fl_scene::stream_sink::{BudgetedSource, RendererTerrain, SinkTotals, StreamSink, frame_keys};
use fl_terrain::Terrain;
use fl_terrain::chunks::{ChunkBuilder, ChunkView};
use fl_terrain::stream::{StreamError, StreamSettings, TerrainStream};
use glam::DVec3;

use super::camera::Eye;

/// Most chunk meshes uploaded in one frame (the rest wait for the next frames), so a burst of
/// finished chunks never stalls a frame.
pub const UPLOADS_PER_FRAME: usize = 8;

/// Why the world's terrain could not start.
#[derive(Debug, thiserror::Error)]
pub enum WorldTerrainError {
    #[error("cannot start the terrain builder thread: {0}")]
    Builder(std::io::Error),
    #[error("the terrain stream did not start: {0}")]
    Stream(#[from] StreamError),
    #[error("cannot start the ground probe thread: {0}")]
    Probe(std::io::Error),
}

/// The streamed terrain of one flight.
#[derive(Debug)]
pub struct WorldTerrain {
    stream: TerrainStream<BudgetedSource<ChunkBuilder>>,
    totals: SinkTotals,
    probe: GroundProbe,
    ground_m: f64,
}

impl WorldTerrain {
    /// Starts streaming `terrain` (the roots are built at once), the probe first asked at
    /// `(lat, lon)` degrees.
    pub fn start(
        gpu: &Gpu,
        renderer: &mut Renderer,
        terrain: Terrain,
        (lat, lon): (f64, f64),
    ) -> Result<WorldTerrain, WorldTerrainError> {
        let builder = ChunkBuilder::new(terrain.clone(), EARTH_RADIUS_M)
            .map_err(WorldTerrainError::Builder)?;
        let mut totals = SinkTotals::default();
        let stream = {
            let mut sink = StreamSink::new(RendererTerrain::new(gpu, renderer), &mut totals);
            TerrainStream::new(
                &terrain,
                BudgetedSource::new(builder, UPLOADS_PER_FRAME),
                StreamSettings::default(),
                &mut sink,
            )?
        };
        let probe = GroundProbe::new(terrain, lat, lon).map_err(WorldTerrainError::Probe)?;
        Ok(WorldTerrain {
            stream,
            totals,
            probe,
            ground_m: 0.0,
        })
    }

    /// Height of the ground under the eye as last probed, m above the sphere.
    pub fn ground_m(&self) -> f64 {
        self.ground_m
    }

    /// What the stream uploaded and dropped so far.
    pub fn totals(&self) -> SinkTotals {
        self.totals
    }

    /// One frame: probes the ground under `eye`, lets the stream upload what its worker
    /// finished and returns the chunks to draw from there. The view is `(vertical field of
    /// view in degrees, aspect, viewport height in pixels)`; `max_error_px` is the terrain
    /// detail (the screen-space error a chunk may show before it is split; the settings'
    /// `TerrainDetail`).
    pub fn update(
        &mut self,
        gpu: &Gpu,
        renderer: &mut Renderer,
        eye: &Eye,
        (vertical_fov_deg, aspect, viewport_height_px): (f64, f64, u32),
        max_error_px: f64,
    ) -> Vec<u64> {
        let (lat, lon) = lat_lon_deg(eye.position);
        self.ground_m = self.probe.height(lat, lon);
        let v = |d: DVec3| fl_flight::math::Vec3::new(d.x, d.y, d.z);
        let view = ChunkView {
            position: v(eye.position),
            ground_height_m: self.ground_m,
            forward: Some(v(eye.forward)),
            vertical_fov_rad: vertical_fov_deg.to_radians(),
            aspect,
            viewport_height_px: viewport_height_px.max(1),
            max_error_px,
        };
        let mut sink = StreamSink::new(RendererTerrain::new(gpu, renderer), &mut self.totals);
        frame_keys(self.stream.update(&view, &mut sink))
    }
}

/// The planet's centre in the world frame (fl-flight's: the world origin is the north pole).
pub fn planet_centre() -> DVec3 {
    DVec3::new(0.0, -EARTH_RADIUS_M, 0.0)
}

/// Altitude of a world point above the sphere, m.
pub fn altitude_of(p: DVec3) -> f64 {
    (p - planet_centre()).length() - EARTH_RADIUS_M
}

/// The local vertical at a world point.
pub fn local_up(p: DVec3) -> DVec3 {
    (p - planet_centre()).normalize_or(DVec3::Y)
}

/// Latitude and longitude of a world point, degrees.
pub fn lat_lon_deg(p: DVec3) -> (f64, f64) {
    let (lat, lon) = fl_render::sun::direction_to_geodetic(local_up(p));
    (lat.to_degrees(), lon.to_degrees())
}

/// The world point `altitude_m` above the sphere at `(lat, lon)` degrees.
pub fn world_point(lat_deg: f64, lon_deg: f64, altitude_m: f64) -> DVec3 {
    fl_render::sun::geodetic_direction(lat_deg.to_radians(), lon_deg.to_radians())
        * (EARTH_RADIUS_M + altitude_m)
        + planet_centre()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn altitude_and_position_on_the_sphere_agree() {
        let (lat, lon) = super::super::NEVADA_AIRFIELD;
        let p = world_point(lat, lon, 1_234.0);
        assert!((altitude_of(p) - 1_234.0).abs() < 1e-6);
        let (la, lo) = lat_lon_deg(p);
        assert!(
            (la - lat).abs() < 1e-9 && (lo - lon).abs() < 1e-9,
            "{la} {lo}"
        );
    }
}
