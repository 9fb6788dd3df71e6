//! The atmosphere on the CPU: the single-scattering model the sky shader (shaders/sky.wgsl)
//! evaluates per texel, used here for what is constant over a frame — the sun's colour after
//! the air it crosses to reach the camera, the sky's ambient light, and the automatic exposure.
//!
//! Model: Rayleigh and Mie scattering with exponential density profiles and an ozone layer
//! (Bruneton/Hillaire's Earth constants), a spherical planet, a 100 km shell. Radiance units are
//! scene units in which the sun's irradiance above the atmosphere is [`SUN_IRRADIANCE`].

use glam::{DVec3, Vec3};

use crate::frame::SkyParams;

/// Sun irradiance at the top of the atmosphere, scene units (the shader uses the same value).
pub const SUN_IRRADIANCE: f32 = 4.0;
/// Height of the atmosphere's shell, metres.
pub const ATMOSPHERE_HEIGHT_M: f32 = 100_000.0;
/// Rayleigh scattering at sea level, per metre (R, G, B).
pub const RAYLEIGH: Vec3 = Vec3::new(5.802e-6, 13.558e-6, 33.1e-6);
/// Rayleigh density scale height, metres.
pub const RAYLEIGH_H: f32 = 8_000.0;
/// Mie scattering at sea level, per metre.
pub const MIE_SCATTER: f32 = 3.996e-6;
/// Mie extinction at sea level, per metre.
pub const MIE_EXTINCT: f32 = 4.40e-6;
/// Mie density scale height, metres.
pub const MIE_H: f32 = 1_200.0;
/// Ozone absorption at the layer's peak, per metre.
pub const OZONE: Vec3 = Vec3::new(0.650e-6, 1.881e-6, 0.085e-6);
/// Albedo of the ground seen below the horizon.
pub const GROUND_ALBEDO: f32 = 0.12;
/// The sky's diffuse light on the ground over its single-scattered part: multiple scattering
/// and the light the ground sends back up for the sky to return. Chosen so that in a clear sky
/// with the sun 60° up the diffuse light on level ground is ≈ 13 % of the direct sun's (clear
/// desert air measures ≈ 100–120 W/m² diffuse against ≈ 850–900 W/m² direct), which the
/// single-scattering sum alone puts at 5 %.
pub const MULTIPLE_SCATTERING: f32 = 2.5;

fn extinction(h: f32) -> Vec3 {
    let r = (-h.max(0.0) / RAYLEIGH_H).exp();
    let m = (-h.max(0.0) / MIE_H).exp();
    let o = (1.0 - (h - 25_000.0).abs() / 15_000.0).max(0.0);
    RAYLEIGH * r + Vec3::splat(MIE_EXTINCT * m) + OZONE * o
}

/// Distance along `dir` from `origin` (planet centre at 0) to the sphere of `radius`, or
/// `None` if the ray misses it or it lies behind.
fn ray_sphere(origin: Vec3, dir: Vec3, radius: f32) -> Option<(f32, f32)> {
    let b = origin.dot(dir);
    let c = origin.length_squared() - radius * radius;
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    let (t0, t1) = (-b - s, -b + s);
    (t1 > 0.0).then_some((t0, t1))
}

/// Transmittance from a point at `altitude_m` towards a direction `cos_zenith` from local up,
/// to space (zero where the planet is in the way).
pub fn transmittance(planet_radius_m: f32, altitude_m: f32, cos_zenith: f32) -> Vec3 {
    let r0 = planet_radius_m + altitude_m.clamp(0.0, ATMOSPHERE_HEIGHT_M - 1.0);
    let origin = Vec3::new(0.0, r0, 0.0);
    let cz = cos_zenith.clamp(-1.0, 1.0);
    let dir = Vec3::new((1.0 - cz * cz).max(0.0).sqrt(), cz, 0.0);
    // Below the geometric horizon the planet is in the way.
    let horizon = -(1.0 - (planet_radius_m / r0).powi(2)).max(0.0).sqrt();
    if cz < horizon {
        return Vec3::ZERO;
    }
    let Some((_, t1)) = ray_sphere(origin, dir, planet_radius_m + ATMOSPHERE_HEIGHT_M) else {
        return Vec3::ONE;
    };
    const N: usize = 40;
    let dt = t1 / N as f32;
    let mut depth = Vec3::ZERO;
    for i in 0..N {
        let p = origin + dir * ((i as f32 + 0.5) * dt);
        depth += extinction(p.length() - planet_radius_m) * dt;
    }
    (-depth).exp()
}

/// What the shaders need that is constant over a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkyLighting {
    /// Local up at the camera (world).
    pub up: Vec3,
    /// Camera altitude above the planet's surface, metres.
    pub altitude_m: f32,
    /// Direct sun irradiance reaching the camera's altitude (after the air and cloud).
    pub sun_irradiance: Vec3,
    /// Sky irradiance on an up-facing surface.
    pub sky_irradiance: Vec3,
    /// Irradiance on a down-facing surface (light from the ground).
    pub ground_irradiance: Vec3,
    /// Exposure multiplier used by the tonemapper.
    pub exposure: f32,
}

/// Single-scattered sky radiance seen from `altitude_m` along `dir` (local frame: Y up), sun in
/// `sun` (unit, local frame). Coarse: for the ambient estimate only.
fn sky_radiance(planet_radius_m: f32, altitude_m: f32, dir: Vec3, sun: Vec3) -> Vec3 {
    let origin = Vec3::new(0.0, planet_radius_m + altitude_m, 0.0);
    let top = planet_radius_m + ATMOSPHERE_HEIGHT_M;
    let Some((_, t_top)) = ray_sphere(origin, dir, top) else {
        return Vec3::ZERO;
    };
    let t_end = match ray_sphere(origin, dir, planet_radius_m) {
        Some((t0, _)) if t0 > 0.0 => t0,
        _ => t_top,
    };
    let mu = dir.dot(sun);
    let phase_r = 3.0 / (16.0 * std::f32::consts::PI) * (1.0 + mu * mu);
    let g = 0.8f32;
    let phase_m = 3.0 / (8.0 * std::f32::consts::PI) * ((1.0 - g * g) * (1.0 + mu * mu))
        / ((2.0 + g * g) * (1.0 + g * g - 2.0 * g * mu).powf(1.5));
    const N: usize = 16;
    let dt = t_end / N as f32;
    let mut view_t = Vec3::ONE;
    let mut l = Vec3::ZERO;
    for i in 0..N {
        let p = origin + dir * ((i as f32 + 0.5) * dt);
        let r = p.length();
        let h = r - planet_radius_m;
        let sun_t = transmittance(planet_radius_m, h, p.dot(sun) / r);
        let rd = (-h.max(0.0) / RAYLEIGH_H).exp();
        let md = (-h.max(0.0) / MIE_H).exp();
        let scatter = RAYLEIGH * rd * phase_r + Vec3::splat(MIE_SCATTER * md * phase_m);
        let step_t = (-extinction(h) * dt).exp();
        l += view_t * scatter * sun_t * dt;
        view_t *= step_t;
    }
    l * SUN_IRRADIANCE
}

fn luminance(c: Vec3) -> f32 {
    c.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

/// The moon's uniforms for the sky shader: its direction (w = 1 when drawn) and the radiance of
/// the full disc after the air between it and the camera (the phase is shaded on the GPU from
/// the sun's direction). Nothing when there is no moon, no atmosphere or the moon is below the
/// camera's horizon.
pub fn moon_uniforms(sky: &SkyParams, camera_position: DVec3) -> ([f32; 4], [f32; 4]) {
    let Some(moon) = sky
        .moon_direction
        .filter(|m| m.is_finite() && sky.atmosphere)
    else {
        return ([0.0; 4], [0.0; 4]);
    };
    let moon = moon.normalize_or(DVec3::Y);
    let rel = camera_position - sky.planet_centre;
    let up = rel.normalize_or(DVec3::Y);
    let altitude = (rel.length() - sky.planet_radius_m) as f32;
    let cos_zenith = moon.dot(up) as f32;
    // The horizon dips below the local horizontal as the camera climbs.
    let dip = (sky.planet_radius_m / rel.length().max(sky.planet_radius_m)).acos() as f32;
    if cos_zenith < -dip.sin() {
        return ([0.0; 4], [0.0; 4]);
    }
    let t = transmittance(sky.planet_radius_m as f32, altitude, cos_zenith);
    let solid_angle = std::f64::consts::TAU * (1.0 - crate::moon::MOON_ANGULAR_RADIUS_RAD.cos());
    let radiance =
        (f64::from(SUN_IRRADIANCE) * crate::moon::FULL_MOON_IRRADIANCE_RATIO / solid_angle) as f32;
    let cloud = sky.weather.cloud_cover.clamp(0.0, 1.0);
    let rad = t * radiance * (1.0 - 0.8 * cloud);
    (
        moon.as_vec3().extend(1.0).to_array(),
        rad.extend(0.0).to_array(),
    )
}

/// The frame's lighting for a camera at `camera_position` under `sky`.
pub fn sky_lighting(sky: &SkyParams, camera_position: DVec3) -> SkyLighting {
    let rel = camera_position - sky.planet_centre;
    let up = rel.normalize_or(DVec3::Y);
    let planet_radius = sky.planet_radius_m as f32;
    let altitude = (rel.length() - sky.planet_radius_m) as f32;
    let sun = sky.sun_direction.normalize_or(DVec3::Y);
    let cos_sun = sun.dot(up) as f32;
    let cloud = sky.weather.cloud_cover.clamp(0.0, 1.0);
    let intensity = sky.sun_intensity.max(0.0);
    if !sky.atmosphere {
        return SkyLighting {
            up: up.as_vec3(),
            altitude_m: altitude,
            sun_irradiance: Vec3::splat(SUN_IRRADIANCE * intensity),
            sky_irradiance: Vec3::splat(0.05),
            ground_irradiance: Vec3::splat(0.02),
            exposure: sky.exposure.unwrap_or(1.0),
        };
    }
    let sun_t = transmittance(planet_radius, altitude, cos_sun);
    let clear_sun = sun_t * SUN_IRRADIANCE * intensity;
    let sun_irradiance = clear_sun * (1.0 - 0.8 * cloud);
    // Sky irradiance on an up-facing surface: the hemisphere sampled coarsely (cosine-weighted
    // sums over elevation rings), in the local frame with the sun in the x-y plane.
    let sun_local = Vec3::new((1.0 - cos_sun * cos_sun).max(0.0).sqrt(), cos_sun, 0.0);
    let mut sky_sum = Vec3::ZERO;
    const RINGS: usize = 4;
    const SECTORS: usize = 8;
    let d_el = std::f32::consts::FRAC_PI_2 / RINGS as f32;
    let d_az = std::f32::consts::TAU / SECTORS as f32;
    for i in 0..RINGS {
        let el = (i as f32 + 0.5) * d_el;
        for j in 0..SECTORS {
            let az = (j as f32 + 0.5) * d_az;
            let dir = Vec3::new(el.cos() * az.cos(), el.sin(), el.cos() * az.sin());
            let l = sky_radiance(planet_radius, altitude.max(1.0), dir, sun_local);
            // dω = cos(el) d_el d_az; the cosine to the surface normal is sin(el).
            sky_sum += l * el.sin() * el.cos() * d_el * d_az;
        }
    }
    // Single scattering leaves out the light scattered more than once, which is about half of
    // the sky's diffuse light at the ground: without it, shadows were lit by a twentieth of the
    // direct sun and read black.
    sky_sum *= MULTIPLE_SCATTERING;
    // Cloud: the sky greys, and of the direct light the cloud takes from the sun (on level
    // ground) about 60 % comes through as diffuse light.
    let lost = luminance(clear_sun - sun_irradiance) * cos_sun.max(0.0);
    let grey = Vec3::splat(luminance(sky_sum));
    let sky_irradiance = sky_sum.lerp(grey, 0.7 * cloud) * intensity + Vec3::splat(0.6 * lost);
    let direct_on_ground = sun_irradiance * cos_sun.max(0.0);
    let ground_irradiance = (direct_on_ground + sky_irradiance) * GROUND_ALBEDO;
    // Exposure: a white Lambertian surface facing the sky and the sun lands just below the
    // tonemapper's shoulder (bright, not clipped), which leaves the sky a photograph's blue.
    let scene = luminance(direct_on_ground + sky_irradiance) / std::f32::consts::PI;
    let exposure = sky
        .exposure
        .unwrap_or_else(|| (1.3 / scene.max(0.02)).clamp(0.2, 6.0));
    SkyLighting {
        up: up.as_vec3(),
        altitude_m: altitude,
        sun_irradiance,
        sky_irradiance,
        ground_irradiance,
        exposure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sun_reddens_towards_the_horizon() {
        let r = 6_371_000.0;
        let noon = transmittance(r, 0.0, 1.0);
        let low = transmittance(r, 0.0, 0.05);
        // Overhead most light gets through, blue less than red.
        assert!(noon.x > 0.85 && noon.z > 0.6 && noon.z < noon.x, "{noon}");
        // Near the horizon, much less, and red dominates.
        assert!(low.x < 0.6 && low.z < 0.2 * low.x, "{low}");
        // Below the horizon at sea level the planet blocks the sun.
        assert_eq!(transmittance(r, 0.0, -0.2), Vec3::ZERO);
        // From 10 km up the air is thinner.
        assert!(transmittance(r, 10_000.0, 0.05).z > low.z);
    }

    /// Clear-sky daylight: the sky's diffuse light on level ground is a tenth to a third of the
    /// direct sun's (shadows read blue-grey, not black), bluer than the sun's; with the sun low
    /// it is a larger share; overcast, the diffuse light is most of what there is.
    #[test]
    fn shadows_get_a_daylight_share_of_sky_light() {
        let at = |el_deg: f32, cloud: f32| {
            let e = el_deg.to_radians();
            let mut sky =
                SkyParams::with_sun(DVec3::new(f64::from(e.cos()), f64::from(e.sin()), 0.0));
            sky.weather.cloud_cover = cloud;
            let l = sky_lighting(&sky, DVec3::new(0.0, 1000.0, 0.0));
            let direct = l.sun_irradiance * e.sin().max(0.0);
            (
                luminance(l.sky_irradiance),
                luminance(direct),
                l.sky_irradiance,
            )
        };
        let (sky, sun, c) = at(60.0, 0.0);
        eprintln!("60 deg: sky {sky} sun {sun} ratio {} colour {c}", sky / sun);
        assert!(
            sky > 0.1 * sun && sky < 0.35 * sun,
            "noon: sky {sky} against sun {sun}"
        );
        assert!(c.z > c.x, "sky light is blue: {c}");
        let (sky_low, sun_low, _) = at(10.0, 0.0);
        eprintln!(
            "10 deg: sky {sky_low} sun {sun_low} ratio {}",
            sky_low / sun_low
        );
        assert!(
            sky_low / sun_low > sky / sun,
            "low sun: {sky_low} against {sun_low}"
        );
        let (sky_oc, sun_oc, _) = at(60.0, 0.9);
        eprintln!("overcast: sky {sky_oc} sun {sun_oc}");
        assert!(
            sky_oc > sun_oc,
            "overcast: sky {sky_oc} against sun {sun_oc}"
        );
    }

    #[test]
    fn the_sky_is_blue_at_noon_and_dim_at_night() {
        let centre = DVec3::new(0.0, -crate::frame::PLANET_RADIUS_M, 0.0);
        let noon = sky_lighting(&SkyParams::with_sun(DVec3::Y), DVec3::new(0.0, 100.0, 0.0));
        assert!(
            noon.sky_irradiance.z > noon.sky_irradiance.x,
            "{:?}",
            noon.sky_irradiance
        );
        let night = sky_lighting(
            &SkyParams::with_sun(DVec3::new(0.0, -1.0, 0.0)),
            DVec3::new(0.0, 100.0, 0.0),
        );
        assert!(night.sun_irradiance.length() < 1e-6);
        assert!(luminance(night.sky_irradiance) < 0.01 * luminance(noon.sky_irradiance));
        // Cloud cover dims the sun.
        let mut cloudy = SkyParams::with_sun(DVec3::Y);
        cloudy.weather.cloud_cover = 1.0;
        let c = sky_lighting(&cloudy, DVec3::new(0.0, 100.0, 0.0));
        assert!(c.sun_irradiance.x < 0.3 * noon.sun_irradiance.x);
        let _ = centre;
    }
}
