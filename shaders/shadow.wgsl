// The sun's shadow map: depth only, model instances (camera-relative model matrices, as
// pbr.wgsl) seen orthographically from the sun. See platform/render/src/shadow.rs.

struct Light {
    view_proj: mat4x4<f32>,
};

@group(0) @binding(0) var<uniform> light: Light;

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(4) m0: vec4<f32>,
    @location(5) m1: vec4<f32>,
    @location(6) m2: vec4<f32>,
    @location(7) m3: vec4<f32>,
};

@vertex
fn vs_main(in: VsIn) -> @builtin(position) vec4<f32> {
    let model = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    return light.view_proj * (model * vec4<f32>(in.position, 1.0));
}
