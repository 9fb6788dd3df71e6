// Terrain chunks: a vertex grid per chunk, positions relative to the chunk's origin, moved
// camera-relative by a per-chunk offset (origin − camera, subtracted in f64 on the CPU). Colour
// from the ESA WorldCover classes blended between neighbouring vertices (land_cover.rs), varied
// by value noise, turned to rock on steep slopes and to snow high up; lit by the
// sun, the extra lights and the sky's hemisphere light; the aerial perspective the models and
// particles share (`aerial_perspective` in common.wgsl).
//
// `Frame`, `frame`, PI, the air's constants, `lut_uv` and `aerial_perspective` come from common.wgsl, `sun_shadow`
// from shadow_receive.wgsl (both appended).

@group(0) @binding(1) var sky_lut: texture_2d<f32>;
@group(0) @binding(2) var lut_sampler: sampler;
@group(0) @binding(3) var shadow_map: texture_depth_2d;
@group(0) @binding(4) var shadow_sampler: sampler_comparison;


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
    @location(3) sun_scale: vec3<f32>,
    // The point on the ground from the planet's centre, m (f32: steps of ≈ 0.5 m, plenty for
    // the noise below, whose finest cells are 40 m).
    @location(4) ground: vec3<f32>,
};

// Transmittance of the air from height `h` (m) towards the sun at sine-elevation `s`:
// Rayleigh and Mie vertical optical depths times the Kasten–Young air mass, fading to nothing
// as the sun sinks below this point's horizon.
fn sun_transmittance(h: f32, s: f32) -> vec3<f32> {
    let el = degrees(asin(clamp(s, -1.0, 1.0)));
    let e = max(el, -3.5);
    let airmass = 1.0 / (max(sin(radians(e)), -0.06) + 0.50572 * pow(e + 6.07995, -1.6364));
    let hh = max(h, 0.0);
    let depth = RAYLEIGH * 8000.0 * exp(-hh / 8000.0) + vec3<f32>(MIE_EXTINCT * 1200.0 * exp(-hh / 1200.0));
    return exp(-depth * min(airmass, 40.0)) * smoothstep(-3.5, -0.5, el);
}

// The land cover's colour: bytes 1–3 of `cover` hold the vertex's class colour blended with its
// neighbours' (platform/render/src/land_cover.rs, which owns the class colours), as √albedo.
fn cover_albedo(c: vec4<u32>) -> vec3<f32> {
    let e = vec3<f32>(f32(c.y), f32(c.z), f32(c.w)) / 255.0;
    return e * e;
}

// Value noise in 0…1 on a lattice of unit cells (hash of the cell corners, smooth blend).
fn hash3(p: vec3<i32>) -> f32 {
    var h = u32(p.x) * 73856093u ^ u32(p.y) * 19349663u ^ u32(p.z) * 83492791u;
    h = (h ^ (h >> 13u)) * 1274126177u;
    h = h ^ (h >> 16u);
    return f32(h & 0xffffu) / 65535.0;
}

fn value_noise(p: vec3<f32>) -> f32 {
    let c = floor(p);
    let f = p - c;
    let w = f * f * (3.0 - 2.0 * f);
    let i = vec3<i32>(c);
    let x00 = mix(hash3(i), hash3(i + vec3<i32>(1, 0, 0)), w.x);
    let x10 = mix(hash3(i + vec3<i32>(0, 1, 0)), hash3(i + vec3<i32>(1, 1, 0)), w.x);
    let x01 = mix(hash3(i + vec3<i32>(0, 0, 1)), hash3(i + vec3<i32>(1, 0, 1)), w.x);
    let x11 = mix(hash3(i + vec3<i32>(0, 1, 1)), hash3(i + vec3<i32>(1, 1, 1)), w.x);
    return mix(mix(x00, x10, w.y), mix(x01, x11, w.y), w.z);
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
    var albedo = cover_albedo(in.cover);
    // Steep ground shows rock, whatever grows on the flats around it.
    let steep = smoothstep(0.22, 0.45, 1.0 - dot(n, up));
    albedo = mix(albedo, vec3<f32>(0.19, 0.17, 0.14), steep * select(1.0, 0.0, in.cover.x == 80u));
    // Snow on high, not too steep ground.
    let snow = smoothstep(3500.0, 4000.0, height) * (1.0 - smoothstep(0.35, 0.6, 1.0 - dot(n, up)));
    albedo = mix(albedo, vec3<f32>(0.80, 0.82, 0.86), snow);
    // The renderer's sun colour is the one at the camera's height; ground far below a high
    // camera (or at sunset) sees the sun through more air: scale by the ratio.
    let cam_t = sun_transmittance(frame.up_alt.w, dot(frame.sun_dir.xyz, frame.up_alt.xyz));
    let here_t = sun_transmittance(height, dot(frame.sun_dir.xyz, up));
    var out: VsOut;
    out.sun_scale = select(vec3<f32>(1.0), here_t / max(cam_t, vec3<f32>(1e-6)), frame.sun_dir.w > 0.5);
    out.pos = frame.view_proj * vec4<f32>(rel, 1.0);
    out.rel_pos = rel;
    out.normal = n;
    out.albedo = albedo;
    out.ground = from_centre;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    // Ground texture: two octaves of value noise (40 m and 170 m cells) vary the land cover's
    // brightness so its blended patches do not read as smooth blobs; each octave fades out
    // before its cells shrink to a few pixels, so distant ground does not shimmer.
    let dist = length(in.rel_pos);
    let fine = (value_noise(in.ground / 40.0) - 0.5) * (1.0 - smoothstep(3000.0, 8000.0, dist));
    let coarse = (value_noise(in.ground / 170.0) - 0.5) * (1.0 - smoothstep(12000.0, 30000.0, dist));
    let albedo = in.albedo * (1.0 + 0.3 * fine + 0.3 * coarse);
    var light = frame.sun_irr.rgb * min(in.sun_scale, vec3<f32>(4.0)) * max(dot(n, frame.sun_dir.xyz), 0.0)
        * sun_shadow(in.rel_pos, n, 0.2);
    let count = i32(frame.counts.x);
    for (var i = 0; i < 4; i = i + 1) {
        if (i < count) {
            light = light + frame.light_col[i].rgb * max(dot(n, frame.light_dir[i].xyz), 0.0);
        }
    }
    // Ambient: sky light from above, ground light from below.
    light = light + mix(frame.ground_irr.rgb, frame.sky_irr.rgb, 0.5 + 0.5 * dot(n, frame.up_alt.xyz));
    var color = albedo * light / PI;

    color = aerial_perspective(color, in.rel_pos, 1.0, sky_lut, lut_sampler);
    return vec4<f32>(color, 1.0);
}
