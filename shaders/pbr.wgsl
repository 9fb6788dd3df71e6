// Models: PBR metallic-roughness (GGX / Smith / Schlick) lit by the sun, up to four extra
// directional lights and a hemisphere of sky and ground light, with base-colour, ORM and normal
// textures, instanced (one model matrix per instance, camera-relative), and the aerial perspective
// that terrain and particles share (`aerial_perspective` in common.wgsl).
//
// Keep `Material` in sync with `MaterialUniforms` in platform/render/src/renderer.rs. `Frame`,
// `frame`, PI, the air's constants, `lut_uv` and `aerial_perspective` come from common.wgsl, `sun_shadow` from
// shadow_receive.wgsl (both appended).

struct Material {
    base_color: vec4<f32>,
    emissive_cutoff: vec4<f32>, // rgb emissive, w alpha cutoff (negative: opaque)
    params: vec4<f32>,          // metallic, roughness, occlusion strength, normal scale
    flags: vec4<f32>,           // use normal map, double sided
};

@group(0) @binding(1) var sky_lut: texture_2d<f32>;
@group(0) @binding(2) var lut_sampler: sampler;
@group(0) @binding(3) var shadow_map: texture_depth_2d;
@group(0) @binding(4) var shadow_sampler: sampler_comparison;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_tex: texture_2d<f32>;
@group(1) @binding(2) var mr_tex: texture_2d<f32>;
@group(1) @binding(3) var occ_tex: texture_2d<f32>;
@group(1) @binding(4) var normal_tex: texture_2d<f32>;
@group(1) @binding(5) var tex_sampler: sampler;


struct VsIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) tangent: vec4<f32>,
    @location(4) m0: vec4<f32>,
    @location(5) m1: vec4<f32>,
    @location(6) m2: vec4<f32>,
    @location(7) m3: vec4<f32>,
};

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) rel_pos: vec3<f32>,  // camera-relative world position
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) tangent: vec4<f32>,
};

@vertex
fn vs_main(in: VsIn) -> VsOut {
    let model = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    let rel = model * vec4<f32>(in.position, 1.0);
    // Uniform scale only, so the model's 3x3 part transforms normals (renormalised below).
    let m3 = mat3x3<f32>(in.m0.xyz, in.m1.xyz, in.m2.xyz);
    var out: VsOut;
    out.pos = frame.view_proj * rel;
    out.rel_pos = rel.xyz;
    out.normal = m3 * in.normal;
    out.uv = in.uv;
    out.tangent = vec4<f32>(m3 * in.tangent.xyz, in.tangent.w);
    return out;
}

fn d_ggx(n_h: f32, a: f32) -> f32 {
    let a2 = a * a;
    let d = n_h * n_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

fn v_smith(n_v: f32, n_l: f32, a: f32) -> f32 {
    let k = a * 0.5;
    let gv = n_v / (n_v * (1.0 - k) + k);
    let gl = n_l / (n_l * (1.0 - k) + k);
    return gv * gl / max(4.0 * n_v * n_l, 1e-4);
}

fn fresnel(f0: vec3<f32>, v_h: f32) -> vec3<f32> {
    return f0 + (vec3<f32>(1.0) - f0) * pow(1.0 - v_h, 5.0);
}

fn direct(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, radiance: vec3<f32>, albedo: vec3<f32>,
          f0: vec3<f32>, metallic: f32, a: f32) -> vec3<f32> {
    let n_l = dot(n, l);
    if (n_l <= 0.0) {
        return vec3<f32>(0.0);
    }
    let h = normalize(l + v);
    let n_v = max(dot(n, v), 1e-3);
    let f = fresnel(f0, max(dot(v, h), 0.0));
    let spec = d_ggx(max(dot(n, h), 0.0), a) * v_smith(n_v, n_l, a) * f;
    let kd = (vec3<f32>(1.0) - f) * (1.0 - metallic);
    return (kd * albedo / PI + spec) * radiance * n_l;
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let base = material.base_color * textureSample(base_tex, tex_sampler, in.uv);
    if (material.emissive_cutoff.w >= 0.0 && base.a < material.emissive_cutoff.w) {
        discard;
    }
    let mr = textureSample(mr_tex, tex_sampler, in.uv);
    let metallic = clamp(material.params.x * mr.b, 0.0, 1.0);
    let roughness = clamp(material.params.y * mr.g, 0.04, 1.0);
    let ao = mix(1.0, textureSample(occ_tex, tex_sampler, in.uv).r, material.params.z);
    var n = normalize(in.normal);
    if (!front && material.flags.y > 0.5) {
        n = -n;
    }
    if (material.flags.x > 0.5 && dot(in.tangent.xyz, in.tangent.xyz) > 1e-8) {
        let t = normalize(in.tangent.xyz - n * dot(n, in.tangent.xyz));
        let b = cross(n, t) * select(1.0, -1.0, in.tangent.w < 0.0);
        var tn = textureSample(normal_tex, tex_sampler, in.uv).xyz * 2.0 - 1.0;
        tn = vec3<f32>(tn.xy * material.params.w, tn.z);
        n = normalize(t * tn.x + b * tn.y + n * tn.z);
    }
    let dist = length(in.rel_pos);
    let v = -in.rel_pos / max(dist, 1e-6);
    let albedo = base.rgb;
    let f0 = mix(vec3<f32>(0.04), albedo, metallic);
    let a = roughness * roughness;

    var color = direct(n, v, frame.sun_dir.xyz, frame.sun_irr.rgb * sun_shadow(in.rel_pos, n, 1.5),
                       albedo, f0, metallic, a);
    let count = i32(frame.counts.x);
    for (var i = 0; i < 4; i = i + 1) {
        if (i < count) {
            color = color + direct(n, v, frame.light_dir[i].xyz, frame.light_col[i].rgb, albedo,
                                   f0, metallic, a);
        }
    }
    // Ambient: sky light from above, ground light from below.
    let irr = mix(frame.ground_irr.rgb, frame.sky_irr.rgb, 0.5 + 0.5 * dot(n, frame.up_alt.xyz));
    let f_amb = fresnel(f0, max(dot(n, v), 0.0));
    color = color + irr * ao * ((vec3<f32>(1.0) - f_amb) * (1.0 - metallic) * albedo + f_amb * 0.5) / PI;
    color = color + material.emissive_cutoff.rgb;

    color = aerial_perspective(color, in.rel_pos, 1.0, sky_lut, lut_sampler);
    return vec4<f32>(color, 1.0);
}
