//! The plain-data frame the client builds every frame: camera, sun and sky, weather, lights and
//! model instances. Positions are f64 world metres (right-handed, Y up); nothing here refers to
//! an entity, a packet or a flight model.
//!
//! Terrain chunks (a vertex grid relative to a chunk origin in f64, with a land-cover class per
//! vertex) are uploaded once and referred to by key. Particles are handed over beside the frame
//! ([`crate::Renderer::set_particles`]) so that the struct literals other crates build stay
//! valid; egui paint jobs come next.

use glam::{DQuat, DVec3, Quat, Vec3};

use crate::renderer::ModelHandle;
use crate::terrain::TerrainKey;

/// The viewpoint. The camera looks along its local −Z with +Y up and +X right — the same
/// axes as an aircraft's engine body frame, so a camera given an aircraft's orientation looks
/// out of its nose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World position, metres.
    pub position: DVec3,
    /// Camera-to-world rotation.
    pub orientation: DQuat,
    /// Vertical field of view, radians (clamped to 1°…170° when drawn).
    pub vertical_fov_rad: f64,
    /// Width / height of the target.
    pub aspect: f64,
    /// Near plane, metres (the far plane is at infinity). 0.25 m suits a cockpit; larger values
    /// buy nothing with reverse-Z.
    pub near_m: f64,
}

impl Camera {
    /// A camera at `position` looking at `target` with `up` as the rough up direction.
    pub fn looking_at(position: DVec3, target: DVec3, up: DVec3, vertical_fov_rad: f64) -> Self {
        let back = (position - target).normalize_or(DVec3::Z);
        let mut right = up.cross(back);
        if right.length_squared() < 1e-12 {
            right = DVec3::Y.cross(back);
            if right.length_squared() < 1e-12 {
                right = DVec3::X;
            }
        }
        let right = right.normalize();
        let cam_up = back.cross(right);
        let orientation =
            DQuat::from_mat3(&glam::DMat3::from_cols(right, cam_up, back)).normalize();
        Camera {
            position,
            orientation,
            vertical_fov_rad,
            aspect: 1.0,
            near_m: 0.25,
        }
    }

    /// The same camera with another aspect ratio.
    pub fn with_aspect(mut self, aspect: f64) -> Self {
        self.aspect = aspect;
        self
    }

    /// The world direction the camera looks along.
    pub fn forward(&self) -> DVec3 {
        self.orientation * DVec3::NEG_Z
    }
}

/// Weather that changes how the sky and the distance look. Plain numbers: the client fills them
/// from the weather message (see [`Weather::from_message`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weather {
    /// Extra extinction of fog/haze near the ground, per metre (0 = clear; 1e-4 ≈ 30 km
    /// visibility; 1e-3 ≈ 3 km), thinning with height (scale height 1.5 km).
    pub fog_density_per_m: f32,
    /// Distance from the eye at which the fog begins, metres.
    pub fog_start_m: f32,
    /// Fraction of the sky covered by cloud, 0…1: dims and greys the direct sun and the sky.
    pub cloud_cover: f32,
}

impl Weather {
    /// No fog, no cloud.
    pub const CLEAR: Weather = Weather {
        fog_density_per_m: 0.0,
        fog_start_m: 0.0,
        cloud_cover: 0.0,
    };

    /// From `MsgWeatherState`'s fields (spec: `preset` 0 Clear, 1 PartlyCloudy, 2 Overcast,
    /// 3 Rain, 4 Storm, 5 Snow, 6 Blizzard; `fogDensity` an exponential coefficient per metre;
    /// `fogStartDist` metres). The preset sets the cloud cover; an unknown preset is treated as
    /// clear. Non-finite or negative numbers become 0.
    pub fn from_message(preset: u8, fog_density: f32, fog_start_m: f32) -> Weather {
        let cloud_cover = match preset {
            1 => 0.4,
            2 | 5 => 0.9,
            3 | 4 | 6 => 1.0,
            _ => 0.0,
        };
        let clean = |v: f32| if v.is_finite() { v.max(0.0) } else { 0.0 };
        Weather {
            fog_density_per_m: clean(fog_density).min(1.0),
            fog_start_m: clean(fog_start_m),
            cloud_cover,
        }
    }
}

impl Default for Weather {
    fn default() -> Self {
        Weather::CLEAR
    }
}

/// Sun, sky and exposure. Build it with [`SkyParams::at`] from the time and the camera's place
/// (see [`crate::sun`]), or set the sun direction directly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkyParams {
    /// World direction towards the sun (unit).
    pub sun_direction: DVec3,
    /// World position of the planet's centre (fl-flight's planet: (0, −6 371 000, 0)).
    pub planet_centre: DVec3,
    /// Planet radius, metres.
    pub planet_radius_m: f64,
    /// Weather.
    pub weather: Weather,
    /// Exposure: a multiplier applied before the tonemapper; `None` chooses it from the sun's
    /// elevation (bright noon and dim dusk both land in the display's range).
    pub exposure: Option<f32>,
    /// Whether to draw the atmosphere and sun at all (off: a black background, for studio
    /// lighting such as the axis test).
    pub atmosphere: bool,
    /// Scale of the sun's light on surfaces (1 = physical; 0 turns the sun off).
    pub sun_intensity: f32,
    /// World direction towards the moon (unit), or `None` for no moon. [`SkyParams::at`] and
    /// [`SkyParams::at_julian_day`] set it from the ephemeris in [`crate::moon`]; the sky draws
    /// its disc, lit on the side that faces the sun.
    pub moon_direction: Option<DVec3>,
}

/// fl-flight's planet radius, metres.
pub const PLANET_RADIUS_M: f64 = 6_371_000.0;

impl SkyParams {
    /// The sky over the planet of fl-flight (centre at (0, −R, 0)) with the sun in `sun_direction`.
    pub fn with_sun(sun_direction: DVec3) -> Self {
        SkyParams {
            sun_direction: sun_direction.normalize_or(DVec3::Y),
            planet_centre: DVec3::new(0.0, -PLANET_RADIUS_M, 0.0),
            planet_radius_m: PLANET_RADIUS_M,
            weather: Weather::CLEAR,
            exposure: None,
            atmosphere: true,
            sun_intensity: 1.0,
            moon_direction: None,
        }
    }

    /// The sky at a UTC time: the sun's world direction from the ephemeris in [`crate::sun`].
    pub fn at(time: crate::sun::UtcTime) -> Self {
        SkyParams::at_days(time.days_since_j2000())
    }

    /// The sky at a Julian Day (the weather message's shared UTC clock, `utcJulianDay`).
    pub fn at_julian_day(julian_day: f64) -> Self {
        SkyParams::at_days(julian_day - crate::sun::J2000_JULIAN_DAY)
    }

    /// The sky `n` days after J2000.0: the sun and the moon where the ephemerides put them.
    fn at_days(n: f64) -> Self {
        SkyParams {
            moon_direction: Some(crate::moon::moon_direction_at_days(n)),
            ..SkyParams::with_sun(crate::sun::sun_direction_at_days(n))
        }
    }

    /// Studio lighting: no atmosphere, no sun; pair with [`Frame::lights`].
    pub fn studio() -> Self {
        SkyParams {
            atmosphere: false,
            sun_intensity: 0.0,
            exposure: Some(1.0),
            ..SkyParams::with_sun(DVec3::Y)
        }
    }
}

/// An extra directional light (studio lighting, the modder's viewer, tests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionalLight {
    /// World direction *towards* the light.
    pub direction: Vec3,
    /// Linear RGB radiance scale.
    pub color: Vec3,
}

/// Which level of detail to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LodHint {
    /// Chosen from the model's projected size on screen (see [`crate::model::choose_lod`]).
    #[default]
    Auto,
    /// The full-detail base mesh (cockpit and close passes; the modder's viewer).
    Base,
    /// A given `_lod<N>` file; falls back to the nearest coarser available, then the base.
    Lod(u8),
}

/// A pose for one named node of a model: articulation (gear, flaps, control surfaces, canopy).
/// Replaces the node's own rotation and translation; nodes not listed keep the file's pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodePose {
    /// Index of the node in the model's node list (see `ModelData::node_index`).
    pub node: u32,
    /// Local rotation (replaces the node's rotation).
    pub rotation: Quat,
    /// Local translation (replaces the node's translation).
    pub translation: Vec3,
}

/// The category of a thing, for the builtin silhouette drawn when a type has no model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Aeroplanes and helicopters.
    Aircraft,
    /// Tanks, trucks, SAM launchers.
    GroundVehicle,
    /// Boats and ships.
    Ship,
    /// Missiles, rockets and bombs.
    Missile,
    /// Buildings, depots, hangars.
    Structure,
}

impl Category {
    /// Every category.
    pub const ALL: [Category; 5] = [
        Category::Aircraft,
        Category::GroundVehicle,
        Category::Ship,
        Category::Missile,
        Category::Structure,
    ];
}

/// One drawn thing. The transform is that of the thing's body (for an aircraft: the flight
/// model's engine body frame, X right, Y up, Z aft, at its reference point); the model's own
/// mesh-to-body mapping (docs/render.md) is applied by the renderer.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Which uploaded model (or builtin silhouette).
    pub model: ModelHandle,
    /// World position, metres.
    pub position: DVec3,
    /// Body-to-world rotation.
    pub orientation: DQuat,
    /// Uniform scale (1 for real models).
    pub scale: f32,
    /// Node poses (articulation); empty for the file's pose.
    pub articulation: Vec<NodePose>,
    /// Level of detail.
    pub lod: LodHint,
    /// Draw the battle-damaged variant of nodes that have one (`<node>_b`).
    pub damaged: bool,
}

impl Instance {
    /// A model at a place, in the file's pose, with automatic LOD.
    pub fn new(model: ModelHandle, position: DVec3, orientation: DQuat) -> Self {
        Instance {
            model,
            position,
            orientation,
            scale: 1.0,
            articulation: Vec::new(),
            lod: LodHint::Auto,
            damaged: false,
        }
    }
}

/// Everything drawn in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The viewpoint.
    pub camera: Camera,
    /// Sun, sky, weather, exposure.
    pub sky: SkyParams,
    /// Extra directional lights (at most [`MAX_LIGHTS`]; more are ignored with a warning).
    pub lights: Vec<DirectionalLight>,
    /// Models to draw.
    pub instances: Vec<Instance>,
    /// Terrain chunks to draw, by key (uploaded before with
    /// [`crate::Renderer::upload_terrain`]; keys not uploaded are skipped).
    pub terrain: Vec<TerrainKey>,
}

/// The most extra directional lights a frame may carry.
pub const MAX_LIGHTS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weather_from_the_message() {
        let w = Weather::from_message(2, 2e-4, 300.0);
        assert_eq!(
            (w.cloud_cover, w.fog_density_per_m, w.fog_start_m),
            (0.9, 2e-4, 300.0)
        );
        assert_eq!(Weather::from_message(0, 0.0, 0.0), Weather::CLEAR);
        assert_eq!(Weather::from_message(200, f32::NAN, -5.0), Weather::CLEAR);
        assert_eq!(Weather::from_message(4, 1e9, 0.0).fog_density_per_m, 1.0);
    }
}
