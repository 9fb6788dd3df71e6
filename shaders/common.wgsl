// Shared by every pipeline that reads the frame (sky, pbr, terrain, particles, tonemap): the
// frame uniforms (`FrameUniforms` in platform/render/src/renderer.rs — keep the two in sync), their
// binding, the constants of the air, where a direction falls in the sky-view table, and the
// aerial perspective every pipeline drawing into the air uses.
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
    output: vec4<f32>,      // output width, height (pixels); the scene may be drawn at another size
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

// Mean of exp(−h / scale) along a straight path from height h0 to h1 (m): the exact integral of
// an exponential layer over a linear climb, so a path from a high camera down to the ground
// gets the thick air near the ground (the density at the path's mean height would miss most of
// it).
fn mean_density(h0: f32, h1: f32, scale: f32) -> f32 {
    let dh = h1 - h0;
    let d0 = exp(-max(h0, 0.0) / scale);
    if (abs(dh) < 1.0) {
        return d0;
    }
    let d1 = exp(-max(h1, 0.0) / scale);
    return max(scale * (d0 - d1) / dh, 0.0);
}

// Aerial perspective, one function for everything drawn in the air (terrain, models, particles),
// so an aircraft and the ground behind it at the same distance fade into the same haze.
// `color` is the surface's radiance, `rel_pos` its camera-relative position, `coverage` how much
// of the pixel it covers (1 for opaque surfaces, a particle's alpha: an added glow covers
// nothing, so it only fades). Extinction: Rayleigh and Mie over the path's exact mean density,
// plus the weather's fog past its start distance (counts.w; scale height 1.5 km). In-scatter:
// the sky table in the direction of the point, but never below just above the planet's limb as
// seen from the camera — near the ground that is the horizon; from high up the limb lies well
// below it and its bright grazing air is what veils distant ground (the table below the limb
// shows the ground itself, not the air in front of it). Greyed by cloud cover like the sky.
fn aerial_perspective(color: vec3<f32>, rel_pos: vec3<f32>, coverage: f32,
                      lut: texture_2d<f32>, samp: sampler) -> vec3<f32> {
    if (frame.sun_dir.w < 0.5) {
        return color;
    }
    let dist = length(rel_pos);
    let up = frame.up_alt.xyz;
    let radius = frame.fog.z;
    let h0 = max(frame.up_alt.w, 0.0);
    // The end's height above the sphere, without the cancellation of |c + rel| − |c| in f32.
    let c = radius + h0;
    let along = dot(rel_pos, up);
    let far = length(up * c + rel_pos);
    let h1 = h0 + (2.0 * c * along + dist * dist) / (far + c);
    let air = RAYLEIGH * mean_density(h0, h1, 8000.0)
        + vec3<f32>(MIE_EXTINCT * mean_density(h0, h1, 1200.0));
    let fog_path = max(dist - frame.counts.w, 0.0);
    let fog = frame.fog.x * mean_density(h0, h1, 1500.0) * fog_path;
    let t = exp(-air * dist - vec3<f32>(fog));
    let dir = rel_pos / max(dist, 1e-6);
    let e = dot(dir, up);
    let dip = acos(clamp(radius / (radius + h0), 0.0, 1.0));
    let lowest = sin(0.0087 - dip);
    let flat = normalize(dir - up * e + up * 1e-6);
    let e_c = max(e, lowest);
    let dir_h = normalize(flat * sqrt(max(1.0 - e_c * e_c, 0.0)) + up * e_c);
    var sky = textureSampleLevel(lut, samp, lut_uv(dir_h), 0.0).rgb;
    let lum = dot(sky, vec3<f32>(0.2126, 0.7152, 0.0722));
    sky = mix(sky, vec3<f32>(lum * 1.1), 0.7 * frame.fog.y);
    return color * t + sky * (vec3<f32>(1.0) - t) * coverage;
}
