// Terrain chunks: a vertex grid per chunk, positions relative to the chunk's origin, moved
// camera-relative by a per-chunk offset (origin − camera, subtracted in f64 on the CPU). Colour
// from the ESA WorldCover class, turned to rock on steep slopes and to snow high up; lit by the
// sun, the extra lights and the sky's hemisphere light; the same aerial perspective (haze and
// fog, coloured by the sky table) as the models in pbr.wgsl.
//
// `Frame`, `frame`, PI, the air's constants and `lut_uv` come from common.wgsl, `sun_shadow`
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

// Linear albedo of an ESA WorldCover class (0 and unknown classes: dry ground).
fn class_albedo(c: u32) -> vec3<f32> {
    switch c {
        case 10u: { return vec3<f32>(0.035, 0.045, 0.025); }  // tree cover
        case 20u: { return vec3<f32>(0.160, 0.145, 0.105); }  // shrubland (desert scrub)
        case 30u: { return vec3<f32>(0.170, 0.180, 0.085); }  // grassland
        case 40u: { return vec3<f32>(0.120, 0.170, 0.060); }  // cropland
        case 50u: { return vec3<f32>(0.200, 0.195, 0.190); }  // built-up
        case 60u: { return vec3<f32>(0.300, 0.260, 0.200); }  // bare / sparse
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
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let albedo = in.albedo;
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

    // Aerial perspective, as pbr.wgsl: extinction at the mean height of the path, in-scatter
    // from the sky table.
    if (frame.sun_dir.w > 0.5) {
        let dist = length(in.rel_pos);
        let v = -in.rel_pos / max(dist, 1e-6);
        let h = max(frame.up_alt.w + 0.5 * dot(in.rel_pos, frame.up_alt.xyz), 0.0);
        let air = RAYLEIGH * exp(-h / 8000.0) + vec3<f32>(MIE_EXTINCT * exp(-h / 1200.0));
        let fog_path = max(dist - frame.counts.w, 0.0);
        let t = exp(-air * dist - vec3<f32>(frame.fog.x * exp(-h / 1500.0) * fog_path));
        // In-scatter colour: the sky just above the planet's limb as seen from the camera (for a
        // camera near the ground that is the horizon; from high up the limb lies well below it,
        // and the air grazing the ground there is what veils distant terrain).
        let dir = -v;
        let up = frame.up_alt.xyz;
        let e = dot(dir, up);
        let dip = acos(clamp(frame.fog.z / (frame.fog.z + max(frame.up_alt.w, 0.0)), 0.0, 1.0));
        let lowest = sin(0.0087 - dip);
        let flat = normalize(dir - up * e + up * 1e-6);
        let e_c = max(e, lowest);
        let dir_h = normalize(flat * sqrt(max(1.0 - e_c * e_c, 0.0)) + up * e_c);
        var sky = textureSampleLevel(sky_lut, lut_sampler, lut_uv(dir_h), 0.0).rgb;
        let lum = dot(sky, vec3<f32>(0.2126, 0.7152, 0.0722));
        sky = mix(sky, vec3<f32>(lum * 1.1), 0.7 * frame.fog.y);
        color = color * t + sky * (vec3<f32>(1.0) - t);
    }
    return vec4<f32>(color, 1.0);
}
