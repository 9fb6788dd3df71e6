// Terrain chunks: a vertex grid per chunk, positions relative to the chunk's origin, moved
// camera-relative by a per-chunk offset (origin − camera, subtracted in f64 on the CPU). Colour
// from the ESA WorldCover class, turned to rock on steep slopes and to snow high up; lit by the
// sun, the extra lights and the sky's hemisphere light; the same aerial perspective (haze and
// fog, coloured by the sky table) as the models in pbr.wgsl.
//
// Keep `Frame` in sync with `FrameUniforms` in platform/render/src/renderer.rs.

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
};

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var sky_lut: texture_2d<f32>;
@group(0) @binding(2) var lut_sampler: sampler;

const PI: f32 = 3.14159265;
const RAYLEIGH: vec3<f32> = vec3<f32>(5.802e-6, 13.558e-6, 33.1e-6);
const MIE_EXTINCT: f32 = 4.40e-6;

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) cover: vec4<u32>,
    @location(3) offset: vec4<f32>,   // chunk origin − camera
};

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) rel_pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
};

// Linear albedo of an ESA WorldCover class (0 and unknown classes: dry ground).
fn class_albedo(c: u32) -> vec3<f32> {
    switch c {
        case 10u: { return vec3<f32>(0.040, 0.065, 0.025); }  // tree cover
        case 20u: { return vec3<f32>(0.190, 0.165, 0.110); }  // shrubland (desert scrub)
        case 30u: { return vec3<f32>(0.170, 0.180, 0.085); }  // grassland
        case 40u: { return vec3<f32>(0.120, 0.170, 0.060); }  // cropland
        case 50u: { return vec3<f32>(0.200, 0.195, 0.190); }  // built-up
        case 60u: { return vec3<f32>(0.340, 0.285, 0.210); }  // bare / sparse
        case 70u: { return vec3<f32>(0.800, 0.820, 0.860); }  // snow and ice
        case 80u: { return vec3<f32>(0.015, 0.035, 0.055); }  // water
        case 90u: { return vec3<f32>(0.070, 0.100, 0.060); }  // wetland
        case 95u: { return vec3<f32>(0.035, 0.070, 0.030); }  // mangroves
        case 100u: { return vec3<f32>(0.180, 0.180, 0.120); } // moss and lichen
        default: { return vec3<f32>(0.240, 0.210, 0.150); }
    }
}

@vertex
fn vs_main(in: VsIn) -> VsOut {
    let rel = in.position + in.offset.xyz;
    // Local up and height of this vertex: from the planet's centre (the camera is at
    // altitude up_alt.w above the sphere along up_alt.xyz).
    let radius = frame.fog.z;
    let from_centre = frame.up_alt.xyz * (radius + frame.up_alt.w) + rel;
    let r = length(from_centre);
    let up = from_centre / max(r, 1.0);
    let height = r - radius;
    let n = normalize(in.normal);
    var albedo = class_albedo(in.cover.x);
    // Steep ground shows rock, whatever grows on the flats around it.
    let steep = smoothstep(0.22, 0.45, 1.0 - dot(n, up));
    albedo = mix(albedo, vec3<f32>(0.20, 0.185, 0.165), steep * select(1.0, 0.0, in.cover.x == 80u));
    // Snow on high, not too steep ground.
    let snow = smoothstep(3300.0, 3800.0, height) * (1.0 - smoothstep(0.35, 0.6, 1.0 - dot(n, up)));
    albedo = mix(albedo, vec3<f32>(0.80, 0.82, 0.86), snow);
    var out: VsOut;
    out.pos = frame.view_proj * vec4<f32>(rel, 1.0);
    out.rel_pos = rel;
    out.normal = n;
    out.albedo = albedo;
    return out;
}

fn lut_uv(dir: vec3<f32>) -> vec2<f32> {
    let up = frame.up_alt.xyz;
    let el = asin(clamp(dot(dir, up), -1.0, 1.0));
    let az = atan2(dot(dir, frame.sky_z.xyz), dot(dir, frame.sky_x.xyz));
    let v = sign(el) * sqrt(abs(el) / (0.5 * PI));
    return vec2<f32>(fract(az / (2.0 * PI) + 1.0), clamp(v * 0.5 + 0.5, 0.0, 1.0));
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let albedo = in.albedo;
    var light = frame.sun_irr.rgb * max(dot(n, frame.sun_dir.xyz), 0.0);
    let count = i32(frame.counts.x);
    for (var i = 0; i < 4; i = i + 1) {
        if (i < count) {
            light = light + frame.light_col[i].rgb * max(dot(n, frame.light_dir[i].xyz), 0.0);
        }
    }
    // Ambient: sky light from above, ground light from below.
    light = light + mix(frame.ground_irr.rgb, frame.sky_irr.rgb, 0.5 + 0.5 * dot(n, frame.up_alt.xyz));
    var color = albedo * light / PI;

    // Aerial perspective, as pbr.wgsl: extinction at the mean height of the path, in-scatter
    // from the sky table.
    if (frame.sun_dir.w > 0.5) {
        let dist = length(in.rel_pos);
        let v = -in.rel_pos / max(dist, 1e-6);
        let h = max(frame.up_alt.w + 0.5 * dot(in.rel_pos, frame.up_alt.xyz), 0.0);
        let air = RAYLEIGH * exp(-h / 8000.0) + vec3<f32>(MIE_EXTINCT * exp(-h / 1200.0));
        let fog_path = max(dist - frame.counts.w, 0.0);
        let t = exp(-air * dist - vec3<f32>(frame.fog.x * exp(-h / 1500.0) * fog_path));
        var dir_h = v * -1.0;
        let e = dot(dir_h, frame.up_alt.xyz);
        dir_h = normalize(dir_h - frame.up_alt.xyz * min(e, 0.0));
        var sky = textureSampleLevel(sky_lut, lut_sampler, lut_uv(dir_h), 0.0).rgb;
        let lum = dot(sky, vec3<f32>(0.2126, 0.7152, 0.0722));
        sky = mix(sky, vec3<f32>(lum * 1.1), 0.7 * frame.fog.y);
        color = color * t + sky * (vec3<f32>(1.0) - t);
    }
    return vec4<f32>(color, 1.0);
}
