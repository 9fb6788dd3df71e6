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

@fragment
fn fs_tonemap(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(hdr, vec2<i32>(pos.xy), 0).rgb;
    let safe = select(c, vec3<f32>(0.0), c != c); // NaN never reaches the screen
    return vec4<f32>(aces(max(safe, vec3<f32>(0.0)) * frame.sky_irr.w), 1.0);
}
