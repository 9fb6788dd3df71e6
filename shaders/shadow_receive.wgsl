// Shared by the pipelines that receive the sun's shadow (pbr, terrain); they declare
// `shadow_map` and `shadow_sampler` at group 0, bindings 3 and 4. Appended by
// platform/render/src/shaders.rs like common.wgsl.

// The sun's shadow (platform/render/src/shadow.rs): 1 lit … 0 in shadow. 3 × 3 percentage-closer
// filter; the receiver is pushed `bias_m` metres (at least 1.5 texels) along its normal and
// `bias_m` towards the sun against acne (models use 0.6 m: their casters are the coarser
// `_shadow` or LOD meshes, which would otherwise shadow the detailed mesh they wrap); faded out
// over the outer tenth of the map so its square edge does not show.
fn sun_shadow(rel_pos: vec3<f32>, n: vec3<f32>, bias_m: f32) -> f32 {
    if (frame.shadow.x < 0.5) {
        return 1.0;
    }
    let p = frame.shadow_view_proj * vec4<f32>(rel_pos + n * max(1.5 * frame.shadow.y, bias_m), 1.0);
    let edge = max(abs(p.x), abs(p.y));
    if (edge >= 1.0 || p.z <= 0.0 || p.z >= 1.0) {
        return 1.0;
    }
    let uv = vec2<f32>(p.x * 0.5 + 0.5, 0.5 - p.y * 0.5);
    let texel = 1.0 / frame.shadow.z;
    // The map's depth spans 4 km (shadow.rs SHADOW_DEPTH_M).
    let ref_z = p.z - bias_m / 4000.0;
    var lit = 0.0;
    for (var j = -1; j <= 1; j = j + 1) {
        for (var i = -1; i <= 1; i = i + 1) {
            let o = vec2<f32>(f32(i), f32(j)) * texel;
            lit = lit + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + o, ref_z);
        }
    }
    return mix(lit / 9.0, 1.0, smoothstep(0.9, 1.0, edge));
}
