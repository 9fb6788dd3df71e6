// Particles: camera-facing billboards (tracers stretched along their velocity), one instanced
// draw after the opaque geometry and the sky, premultiplied-alpha blending: smoke and contrails
// are lit by the sun and the sky and blended "over" (alpha = opacity); flames, tracers and
// explosions are emissive and added (alpha 0). Fogged with the aerial perspective terrain and
// models share (`aerial_perspective` in common.wgsl).
//
// Keep `PIn` in sync with `GpuParticle` in platform/render/src/particles.rs. `Frame`, `frame`,
// PI, the air's constants, `lut_uv` and `aerial_perspective` come from common.wgsl (appended).

@group(0) @binding(1) var sky_lut: texture_2d<f32>;
@group(0) @binding(2) var lut_sampler: sampler;

// particles.rs TRACER_STREAK_S
const STREAK_S: f32 = 0.03;
// particles.rs TRACER_MIN_WIDTH_PX and TRACER_MIN_GAIN
const TRACER_MIN_PX: f32 = 1.5;
const TRACER_MIN_GAIN: f32 = 0.5;

const KIND_SMOKE: u32 = 0u;
const KIND_CONTRAIL: u32 = 1u;
const KIND_FLAME: u32 = 2u;
const KIND_TRACER: u32 = 3u;
const KIND_EXPLOSION: u32 = 4u;

struct PIn {
    @location(0) pos_size: vec4<f32>,  // camera-relative position, radius
    @location(1) color: vec4<f32>,     // albedo or radiance, opacity
    @location(2) vel_kind: vec4<f32>,  // world velocity, kind
};

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,        // -1…1 across the quad (y along a tracer)
    @location(1) color: vec4<f32>,
    @location(2) rel_pos: vec3<f32>,
    @location(3) @interpolate(flat) kind: u32,
};

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, in: PIn) -> VsOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0));
    let c = corners[vi];
    let p = in.pos_size.xyz;
    let size = in.pos_size.w;
    let kind = u32(in.vel_kind.w + 0.5);
    let dist = length(p);
    let d = select(vec3<f32>(0.0, 0.0, -1.0), p / dist, dist > 1e-6);
    let vel = in.vel_kind.xyz;
    let speed = length(vel);
    var right: vec3<f32>;
    var up: vec3<f32>;
    var half_len = size;
    var r = cross(d, frame.up_alt.xyz);
    // A tracer's streak lies along the part of its velocity across the line of sight (a quad
    // along the velocity itself collapses to nothing when the round flies straight away).
    let vel_across = vel - d * dot(vel, d);
    let speed_across = length(vel_across);
    let streak = kind == KIND_TRACER && speed > 1e-3 && speed_across > 1e-3 * speed;
    if (streak) {
        up = vel_across / speed_across;
        r = cross(up, d);
        half_len = max(size, 0.5 * speed_across * STREAK_S);
    }
    if (dot(r, r) < 1e-10) {
        r = cross(d, vec3<f32>(1.0, 0.0, 0.0));
        if (dot(r, r) < 1e-10) {
            r = cross(d, vec3<f32>(0.0, 0.0, 1.0));
        }
    }
    right = normalize(r);
    if (!streak) {
        up = cross(right, d);
    }
    var width = size;
    var color = in.color;
    if (kind == KIND_TRACER) {
        // A round is centimetres wide: past a few hundred metres its streak would fall between
        // pixels and flicker out, yet a tracer is seen kilometres away. Never narrower than
        // TRACER_MIN_PX on screen; spread wider, it dims (down to TRACER_MIN_GAIN) so a
        // distant one does not grow brighter than a near one.
        let c0 = frame.view_proj * vec4<f32>(p, 1.0);
        let c1 = frame.view_proj * vec4<f32>(p + right, 1.0);
        if (c0.w > 1e-3 && c1.w > 1e-3) {
            let ndc = c1.xy / c1.w - c0.xy / c0.w;
            let px_per_m = length(ndc * 0.5 * frame.counts.yz);
            let min_w = TRACER_MIN_PX / max(px_per_m, 1e-6);
            if (min_w > width) {
                color.a = color.a * max(width / min_w, TRACER_MIN_GAIN);
                half_len = max(half_len, min_w);
                width = min_w;
            }
        }
    }
    let world = p + right * (c.x * width) + up * (c.y * half_len);
    var out: VsOut;
    out.pos = frame.view_proj * vec4<f32>(world, 1.0);
    out.uv = c;
    out.color = color;
    out.rel_pos = world;
    out.kind = kind;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let r2 = dot(in.uv, in.uv);
    var rgb: vec3<f32>;
    var alpha: f32;
    if (in.kind == KIND_TRACER) {
        // Bright along the axis, fading towards the sides and the ends.
        let across = 1.0 - in.uv.x * in.uv.x;
        let along = 1.0 - in.uv.y * in.uv.y;
        rgb = in.color.rgb * in.color.a * across * across * sqrt(max(along, 0.0));
        alpha = 0.0;
    } else {
        if (r2 >= 1.0) {
            discard;
        }
        let fall = 1.0 - r2;
        if (in.kind == KIND_FLAME) {
            rgb = in.color.rgb * in.color.a * fall * fall;
            alpha = 0.0;
        } else if (in.kind == KIND_EXPLOSION) {
            // A hot, whiter core inside the coloured fireball.
            let core = pow(fall, 4.0);
            let hot = mix(in.color.rgb, vec3<f32>(max(in.color.r, max(in.color.g, in.color.b))), core);
            rgb = hot * in.color.a * fall * (1.0 + 2.0 * core);
            alpha = 0.0;
        } else {
            // Smoke and contrails: a soft puff lit by the sun (forward-scattering medium,
            // roughly half the sun reaches the side we see) and the sky hemisphere.
            alpha = clamp(in.color.a * fall * sqrt(fall), 0.0, 1.0);
            var light = frame.sun_irr.rgb * 0.6 + 0.5 * (frame.sky_irr.rgb + frame.ground_irr.rgb);
            let count = i32(frame.counts.x);
            for (var i = 0; i < 4; i = i + 1) {
                if (i < count) {
                    light = light + frame.light_col[i].rgb * 0.6;
                }
            }
            rgb = in.color.rgb * light / PI * alpha;
        }
    }
    // The in-scatter in proportion to the puff's coverage (alpha).
    rgb = aerial_perspective(rgb, in.rel_pos, alpha, sky_lut, lut_sampler);
    return vec4<f32>(rgb, alpha);
}
