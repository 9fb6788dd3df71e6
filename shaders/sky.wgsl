// Sky and atmosphere: a sky-view lookup table ray-marched once per frame (single scattering,
// Rayleigh + Mie + ozone over a spherical planet; the same model as atmosphere.rs), then the
// full-screen sky that samples it and adds the sun's disc. The table is small (192 x 108), so
// the expensive march costs the same at any resolution, which keeps lavapipe at 1280x720 cheap.
//
// `Frame`, `frame`, PI, the air's constants and `lut_uv` come from common.wgsl (appended).

@group(0) @binding(1) var sky_lut: texture_2d<f32>;
@group(0) @binding(2) var lut_sampler: sampler;

const ATMO_H: f32 = 100000.0;
const RAYLEIGH_H: f32 = 8000.0;
const MIE_SCATTER: f32 = 3.996e-6;
const MIE_H: f32 = 1200.0;
const MIE_G: f32 = 0.8;
const OZONE: vec3<f32> = vec3<f32>(0.650e-6, 1.881e-6, 0.085e-6);
const GROUND_ALBEDO: f32 = 0.12;
const SUN_COS_RADIUS: f32 = 0.9999891; // cos(0.2675 deg)
const MOON_SIN_RADIUS: f32 = 0.0045204; // sin(0.259 deg)

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

// One triangle covering the screen, at depth 0 (the reverse-Z far plane).
@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> VsOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    let ndc = uv * 2.0 - 1.0;
    var out: VsOut;
    out.pos = vec4<f32>(ndc, 0.0, 1.0);
    out.ndc = ndc;
    return out;
}

fn extinction(h: f32) -> vec3<f32> {
    let hh = max(h, 0.0);
    let o = max(1.0 - abs(h - 25000.0) / 15000.0, 0.0);
    return RAYLEIGH * exp(-hh / RAYLEIGH_H) + vec3<f32>(MIE_EXTINCT * exp(-hh / MIE_H)) + OZONE * o;
}

// Distances to a sphere around the origin (x < 0 when missed).
fn ray_sphere(o: vec3<f32>, d: vec3<f32>, r: f32) -> vec2<f32> {
    let b = dot(o, d);
    let c = dot(o, o) - r * r;
    let disc = b * b - c;
    if (disc < 0.0) {
        return vec2<f32>(-1.0, -1.0);
    }
    let s = sqrt(disc);
    return vec2<f32>(-b - s, -b + s);
}

fn sun_transmittance(p: vec3<f32>, sun: vec3<f32>, planet_r: f32) -> vec3<f32> {
    let g = ray_sphere(p, sun, planet_r);
    if (g.x > 0.0) {
        return vec3<f32>(0.0);
    }
    let t = ray_sphere(p, sun, planet_r + ATMO_H).y;
    let n = 8;
    let dt = max(t, 0.0) / f32(n);
    var depth = vec3<f32>(0.0);
    for (var i = 0; i < n; i = i + 1) {
        let q = p + sun * ((f32(i) + 0.5) * dt);
        depth = depth + extinction(length(q) - planet_r) * dt;
    }
    return exp(-depth);
}

// Sky-view table: u = azimuth from the sun's (0..2pi), v = elevation, squeezed towards the
// horizon where the sky changes fastest.
fn lut_direction(uv: vec2<f32>) -> vec3<f32> {
    let az = uv.x * 2.0 * PI;
    let v = uv.y * 2.0 - 1.0;
    let el = sign(v) * v * v * 0.5 * PI;
    return vec3<f32>(cos(el) * cos(az), sin(el), cos(el) * sin(az));
}

@fragment
fn fs_lut(in: VsOut) -> @location(0) vec4<f32> {
    // Texture v grows downwards, clip-space y upwards.
    let uv = vec2<f32>(in.ndc.x * 0.5 + 0.5, 0.5 - in.ndc.y * 0.5);
    let dir = lut_direction(uv);
    let planet_r = frame.fog.z;
    let e_sun = frame.fog.w;
    // Local frame: up = +Y, the sun in the x-y plane.
    let cos_sun = dot(frame.sun_dir.xyz, frame.up_alt.xyz);
    let sun = vec3<f32>(sqrt(max(1.0 - cos_sun * cos_sun, 0.0)), cos_sun, 0.0);
    let alt = clamp(frame.up_alt.w, 1.0, ATMO_H - 1.0);
    let origin = vec3<f32>(0.0, planet_r + alt, 0.0);
    let top = ray_sphere(origin, dir, planet_r + ATMO_H);
    let ground = ray_sphere(origin, dir, planet_r);
    var t_end = max(top.y, 0.0);
    let hits_ground = ground.x > 0.0;
    if (hits_ground) {
        t_end = ground.x;
    }
    let mu = dot(dir, sun);
    let phase_r = 3.0 / (16.0 * PI) * (1.0 + mu * mu);
    let g2 = MIE_G * MIE_G;
    let phase_m = 3.0 / (8.0 * PI) * ((1.0 - g2) * (1.0 + mu * mu))
        / ((2.0 + g2) * pow(1.0 + g2 - 2.0 * MIE_G * mu, 1.5));
    let n = 24;
    let dt = t_end / f32(n);
    var view_t = vec3<f32>(1.0);
    var l = vec3<f32>(0.0);
    for (var i = 0; i < n; i = i + 1) {
        let p = origin + dir * ((f32(i) + 0.5) * dt);
        let h = length(p) - planet_r;
        let st = sun_transmittance(p, sun, planet_r);
        let scatter = RAYLEIGH * exp(-max(h, 0.0) / RAYLEIGH_H) * phase_r
            + vec3<f32>(MIE_SCATTER * exp(-max(h, 0.0) / MIE_H) * phase_m);
        l = l + view_t * scatter * st * dt;
        view_t = view_t * exp(-extinction(h) * dt);
    }
    l = l * e_sun;
    if (hits_ground) {
        let p = origin + dir * t_end;
        let n_g = normalize(p);
        let st = sun_transmittance(p + n_g * 1.0, sun, planet_r);
        l = l + view_t * st * e_sun * max(dot(n_g, sun), 0.0) * GROUND_ALBEDO / PI;
    }
    return vec4<f32>(l, 1.0);
}

// The table's coordinates for a world direction.
@fragment
fn fs_sky(in: VsOut) -> @location(0) vec4<f32> {
    if (frame.sun_dir.w < 0.5) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let p = frame.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let dir = normalize(p.xyz / p.w);
    var l = textureSampleLevel(sky_lut, lut_sampler, lut_uv(dir), 0.0).rgb;
    let cloud = frame.fog.y;
    let lum = dot(l, vec3<f32>(0.2126, 0.7152, 0.0722));
    l = mix(l, vec3<f32>(lum * 1.1), 0.7 * cloud);
    // The sun's disc: its irradiance spread over its solid angle, dimmed by the air and cloud.
    let cos_view_sun = dot(dir, frame.sun_dir.xyz);
    if (cos_view_sun > SUN_COS_RADIUS && frame.sun_irr.w > 0.5) {
        let solid_angle = 2.0 * PI * (1.0 - SUN_COS_RADIUS);
        l = l + frame.sun_irr.rgb / solid_angle;
    }
    l = l + moon_disc(dir);
    return vec4<f32>(l, 1.0);
}

// The moon's disc: a Lambertian sphere lit from the sun's direction (the sun is far enough that
// its direction from the moon is the same as from here), so the phase draws itself.
fn moon_disc(dir: vec3<f32>) -> vec3<f32> {
    if (frame.moon_dir.w < 0.5) {
        return vec3<f32>(0.0);
    }
    let m = frame.moon_dir.xyz;
    let along = dot(dir, m);
    if (along <= 0.0) {
        return vec3<f32>(0.0);
    }
    // Where on the disc (0 centre, 1 limb), as seen from here.
    let off = (dir - m * along) / MOON_SIN_RADIUS;
    let r2 = dot(off, off);
    if (r2 >= 1.0) {
        return vec3<f32>(0.0);
    }
    // The sphere's normal at that point faces back towards us (−m) and out to the limb.
    let n = off - m * sqrt(1.0 - r2);
    let lit = max(dot(n, frame.sun_dir.xyz), 0.0);
    return frame.moon_rad.rgb * lit;
}
