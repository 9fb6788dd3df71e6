// Exposure and tonemapping: the HDR scene (linear radiance) to the display target. The target
// is an sRGB format, so this writes linear values and the hardware encodes them.
//
// `Frame`, `frame`, PI, the air's constants and `lut_uv` come from common.wgsl (appended).

@group(0) @binding(1) var hdr: texture_2d<f32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// ACES filmic curve (K. Narkowicz's fit): keeps highlights from clipping harshly.
fn aces(x: vec3<f32>) -> vec3<f32> {
    let a = 2.51;
    let b = 0.03;
    let c = 2.43;
    let d = 0.59;
    let e = 0.14;
    return clamp((x * (a * x + b)) / (x * (c * x + d) + e), vec3<f32>(0.0), vec3<f32>(1.0));
}

// One scene texel, with NaN made black before it can spread through the filter below.
fn texel(p: vec2<i32>) -> vec3<f32> {
    let c = textureLoad(hdr, p, 0).rgb;
    return select(c, vec3<f32>(0.0), c != c);
}

// The scene's radiance under an output pixel. At render scale 1 that is exactly one texel; at
// any other scale a bilinear filter between the four nearest texel centres (at scale 2 the
// output pixel's centre is their common corner, so this is the exact 2×2 box average). Loads,
// not a sampler: the HDR format's filterability then never matters.
fn scene_at(pos: vec2<f32>) -> vec3<f32> {
    let dims = vec2<f32>(textureDimensions(hdr));
    if all(dims == frame.output.xy) {
        return texel(vec2<i32>(pos));
    }
    let p = pos * dims / frame.output.xy - 0.5;
    let base = floor(p);
    let f = p - base;
    let hi = vec2<i32>(dims) - 1;
    let i0 = clamp(vec2<i32>(base), vec2<i32>(0), hi);
    let i1 = clamp(vec2<i32>(base) + 1, vec2<i32>(0), hi);
    let top = mix(texel(i0), texel(vec2<i32>(i1.x, i0.y)), f.x);
    let bottom = mix(texel(vec2<i32>(i0.x, i1.y)), texel(i1), f.x);
    return mix(top, bottom, f.y);
}

@fragment
fn fs_tonemap(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let c = scene_at(pos.xy);
    return vec4<f32>(aces(max(c, vec3<f32>(0.0)) * frame.sky_irr.w), 1.0);
}
