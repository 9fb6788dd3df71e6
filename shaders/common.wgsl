// Shared by every pipeline that reads the frame (sky, pbr, terrain, particles, tonemap): the
// frame uniforms (`FrameUniforms` in platform/render/src/renderer.rs — keep the two in sync), their
// binding, the constants of the air, and where a direction falls in the sky-view table.
// platform/render/src/shaders.rs appends this file to each of them (WGSL declarations may come
// after their use), so a line number in an error still names the right file.

struct Frame {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    up_alt: vec4<f32>,
    sun_dir: vec4<f32>,     // w = 1 when the atmosphere is drawn
    sun_irr: vec4<f32>,
    sky_irr: vec4<f32>,
    ground_irr: vec4<f32>,
    fog: vec4<f32>,         // fog density per metre, cloud cover, planet radius, TOA sun irradiance
    sky_x: vec4<f32>,
    sky_z: vec4<f32>,
    light_dir: array<vec4<f32>, 4>,
    light_col: array<vec4<f32>, 4>,
    counts: vec4<f32>,      // light count, viewport width, height, fog start distance
    shadow_view_proj: mat4x4<f32>, // the sun's shadow map (camera-relative)
    shadow: vec4<f32>,      // on, texel size (m), map size (texels), covered side (m)
    moon_dir: vec4<f32>,    // towards the moon (world); w = 1 when it is drawn
    moon_rad: vec4<f32>,    // the full moon disc's radiance after the air
};

@group(0) @binding(0) var<uniform> frame: Frame;

const PI: f32 = 3.14159265;
const RAYLEIGH: vec3<f32> = vec3<f32>(5.802e-6, 13.558e-6, 33.1e-6);
const MIE_EXTINCT: f32 = 4.40e-6;

// Sky-view table coordinates of a world direction: azimuth around the local up from the sun's
// side, elevation warped to give the horizon more texels.
fn lut_uv(dir: vec3<f32>) -> vec2<f32> {
    let up = frame.up_alt.xyz;
    let el = asin(clamp(dot(dir, up), -1.0, 1.0));
    let az = atan2(dot(dir, frame.sky_z.xyz), dot(dir, frame.sky_x.xyz));
    let v = sign(el) * sqrt(abs(el) / (0.5 * PI));
    return vec2<f32>(fract(az / (2.0 * PI) + 1.0), clamp(v * 0.5 + 0.5, 0.0, 1.0));
}
