//! Particles: engine smoke, contrails, afterburner flames, tracers, explosions and smoke
//! columns, handed to the renderer as a plain list ([`crate::Renderer::set_particles`]) and drawn
//! as camera-facing billboards in one instanced draw after the opaque geometry and the sky
//! (shaders/particles.wgsl). Also the contrail rule the client uses to decide whether an engine
//! leaves a contrail ([`contrail_forms`]).
//!
//! Blending is premultiplied alpha (`One, OneMinusSrcAlpha`), which lets one pipeline draw both
//! kinds of particle: smoke and contrails write their lit colour times opacity with alpha =
//! opacity ("over"); flames, tracers and explosions write their radiance with alpha 0 (added).
//! The list is sorted far to near on the CPU so the "over" particles compose correctly; the
//! depth test (reverse-Z, `Greater`, no depth write) hides particles behind opaque geometry.

use glam::{DVec3, Vec3};

use crate::shaders::{self, Wgsl};
use crate::target::{DEPTH_FORMAT, HDR_FORMAT};

/// The WGSL of the particle pipeline.
pub(crate) const PARTICLES: Wgsl = Wgsl {
    file: "shaders/particles.wgsl",
    text: include_str!("../../../shaders/particles.wgsl"),
    shared: &[shaders::COMMON],
};

/// Most particles drawn in one frame (48 bytes each: 3 MiB). The nearest are kept.
pub const MAX_PARTICLES: usize = 65_536;

/// How long a tracer's streak lasts on screen, seconds: a tracer is drawn `speed × this` long
/// (at 1,000 m/s a 30 m streak), never shorter than its width.
pub const TRACER_STREAK_S: f32 = 0.03;

/// A tracer is never drawn narrower than this on screen (pixels of the scene target, radius):
/// a round's real width is sub-pixel beyond a few hundred metres. shaders/particles.wgsl.
pub const TRACER_MIN_WIDTH_PX: f32 = 1.5;
/// A tracer widened to [`TRACER_MIN_WIDTH_PX`] dims by its true width over the drawn one, but
/// never below this (so a distant burst stays visible).
pub const TRACER_MIN_GAIN: f32 = 0.5;

/// What a particle is; decides how it is lit and blended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParticleKind {
    /// Engine smoke, smoke columns, dust: lit by the sun and the sky, blended "over".
    Smoke,
    /// Condensation trail: like smoke (lit, "over"), white by default.
    Contrail,
    /// Afterburner flame: emissive, added.
    Flame,
    /// Tracer round: emissive, added, stretched along the velocity.
    Tracer,
    /// Explosion fireball: emissive with a hot white core, added.
    Explosion,
}

impl ParticleKind {
    fn code(self) -> f32 {
        match self {
            ParticleKind::Smoke => 0.0,
            ParticleKind::Contrail => 1.0,
            ParticleKind::Flame => 2.0,
            ParticleKind::Tracer => 3.0,
            ParticleKind::Explosion => 4.0,
        }
    }

    /// The kind's usual colour: an albedo (linear RGB, 0…1) for smoke and contrails, a radiance
    /// in scene units for the emissive kinds (the sun at the top of the atmosphere is
    /// [`crate::atmosphere::SUN_IRRADIANCE`] = 4; a white surface in noon sun is about 1.2).
    pub fn default_color(self) -> Vec3 {
        match self {
            ParticleKind::Smoke => Vec3::new(0.25, 0.24, 0.23),
            ParticleKind::Contrail => Vec3::new(0.9, 0.9, 0.92),
            ParticleKind::Flame => Vec3::new(6.0, 3.0, 1.2),
            ParticleKind::Tracer => Vec3::new(12.0, 6.0, 1.5),
            ParticleKind::Explosion => Vec3::new(8.0, 3.5, 0.8),
        }
    }
}

/// One particle of one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Particle {
    /// What it is.
    pub kind: ParticleKind,
    /// World position, metres (f64; the renderer subtracts the camera in f64, as for models).
    pub position: DVec3,
    /// World velocity, m/s (tracers are stretched along it; other kinds ignore it).
    pub velocity: Vec3,
    /// Radius, metres (a tracer's half width).
    pub size_m: f32,
    /// Albedo (smoke, contrail) or radiance (flame, tracer, explosion); see
    /// [`ParticleKind::default_color`].
    pub color: Vec3,
    /// Opacity 0…1 (for the emissive kinds: a brightness scale).
    pub opacity: f32,
}

impl Particle {
    /// A particle of `kind` at `position`, of radius `size_m`, at rest, in the kind's colour,
    /// fully opaque.
    pub fn new(kind: ParticleKind, position: DVec3, size_m: f32) -> Particle {
        Particle {
            kind,
            position,
            velocity: Vec3::ZERO,
            size_m,
            color: kind.default_color(),
            opacity: 1.0,
        }
    }

    /// The same particle moving at `velocity` (m/s).
    pub fn with_velocity(mut self, velocity: Vec3) -> Particle {
        self.velocity = velocity;
        self
    }

    /// The same particle with opacity `opacity`.
    pub fn with_opacity(mut self, opacity: f32) -> Particle {
        self.opacity = opacity;
        self
    }
}

/// Half width of a tracer round's glow, metres: a thin bright line near the camera; far away
/// the shader widens it to [`TRACER_MIN_WIDTH_PX`].
pub const TRACER_HALF_WIDTH_M: f32 = 0.1;

impl Particle {
    /// A tracer round whose head is at `head`, flying `velocity`, `flown_m` metres from where it
    /// was fired. Its streak ([`TRACER_STREAK_S`] of flight) trails behind the head and never
    /// reaches back past the muzzle: a round just fired from beside the camera would otherwise
    /// be drawn as a streak half of whose length lies between the gun and the eye, a bar across
    /// the screen. The shader stretches a tracer symmetrically about its position along its
    /// velocity, so the particle sits at the streak's middle with its velocity scaled to the
    /// streak's length (a round not yet clear of the muzzle is a dot).
    pub fn tracer(head: DVec3, velocity: Vec3, flown_m: f32) -> Particle {
        let speed = velocity.length();
        let full_m = speed * TRACER_STREAK_S;
        // `f32::clamp` panics on NaN bounds: only a finite, moving round has a streak.
        let (centre, velocity) = if full_m.is_finite() && full_m > 0.0 && flown_m.is_finite() {
            let len_m = flown_m.clamp(0.0, full_m);
            let dir = (velocity / speed).as_dvec3();
            (
                head - dir * f64::from(0.5 * len_m),
                velocity * (len_m / full_m),
            )
        } else {
            (head, Vec3::ZERO)
        };
        Particle::new(ParticleKind::Tracer, centre, TRACER_HALF_WIDTH_M).with_velocity(velocity)
    }
}

/// Colour of a burning target's smoke (darker than engine smoke).
pub const DARK_SMOKE: Vec3 = Vec3::new(0.08, 0.075, 0.07);

/// A column of dark smoke ([`DARK_SMOKE`]) rising from `base` along `up` (unit) to `height_m`: `count` puffs growing
/// from `width_m / 2` at the bottom to `width_m` at the top and thinning out, drifting with
/// `wind` (metres of sideways drift at the top). Deterministic: the same arguments give the
/// same puffs.
pub fn smoke_column(
    base: DVec3,
    up: DVec3,
    height_m: f64,
    width_m: f32,
    wind: DVec3,
    count: usize,
) -> Vec<Particle> {
    let count = count.min(MAX_PARTICLES);
    let up = up.normalize_or(DVec3::Y);
    (0..count)
        .map(|i| {
            let f = (i as f64 + 0.5) / count.max(1) as f64;
            // A fixed wobble (golden-ratio phases) so the column is not a straight rod.
            let phase = i as f64 * 2.399_963;
            let side = up.any_orthonormal_vector();
            let side2 = up.cross(side);
            let wobble = (side * phase.cos() + side2 * phase.sin()) * (0.15 * f64::from(width_m));
            let position = base + up * (height_m * f) + wind * (f * f) + wobble * f;
            Particle {
                kind: ParticleKind::Smoke,
                position,
                velocity: Vec3::ZERO,
                size_m: width_m * (0.5 + 0.5 * f as f32),
                color: DARK_SMOKE,
                opacity: (0.9 * (1.0 - f as f32)).max(0.1),
            }
        })
        .collect()
}

/// Whether a jet engine leaves a contrail at `altitude_m` (above mean sea level) in air at
/// `temperature_k`: the Schmidt–Appleman criterion, simplified.
///
/// The pressure comes from the ISA at that altitude; the mixing-line slope is
/// `G = EI(H₂O) · c_p · p / (ε · Q · (1 − η))` for kerosene (EI 1.25, Q 43.2 MJ/kg) and an
/// overall propulsion efficiency η = 0.3; the threshold temperature for dry ambient air is
/// Schumann's (1996) fit `T = −46.46 + 9.43 ln(G − 0.053) + 0.72 ln²(G − 0.053)` °C. A contrail
/// forms where the air is colder than that (≈ −42 °C at 10 km, ≈ −37 °C at sea level, where
/// the ISA is far warmer). Taking the air as dry makes the rule the strict one: humid air forms
/// contrails a few kelvin warmer, and whether they persist needs ice supersaturation, which the
/// weather message does not carry. Non-finite input: no contrail.
pub fn contrail_forms(altitude_m: f64, temperature_k: f64) -> bool {
    if !altitude_m.is_finite() || !temperature_k.is_finite() {
        return false;
    }
    temperature_k < contrail_threshold_k(isa_pressure_pa(altitude_m))
}

/// The Schmidt–Appleman threshold temperature (kelvin) for dry air at `pressure_pa` (see
/// [`contrail_forms`]).
pub fn contrail_threshold_k(pressure_pa: f64) -> f64 {
    const EI_H2O: f64 = 1.25;
    const CP: f64 = 1004.0;
    const EPSILON: f64 = 0.622;
    const Q: f64 = 43.2e6;
    const ETA: f64 = 0.3;
    let g = EI_H2O * CP * pressure_pa.max(0.0) / (EPSILON * Q * (1.0 - ETA));
    // Below G ≈ 0.053 Pa/K (above ~40 km) the fit is undefined: far too thin air for contrails.
    let x = (g - 0.053).max(1e-6).ln();
    273.15 - 46.46 + 9.43 * x + 0.72 * x * x
}

/// ISA pressure at a geopotential altitude (troposphere and the isothermal layer to 20 km,
/// extended above), pascals.
pub fn isa_pressure_pa(altitude_m: f64) -> f64 {
    let h = altitude_m.clamp(-1_000.0, 80_000.0);
    if h <= 11_000.0 {
        101_325.0 * (1.0 - 2.255_77e-5 * h).powf(5.255_88)
    } else {
        22_632.1 * (-(h - 11_000.0) / 6_341.62).exp()
    }
}

/// Per-instance data, as `PIn` in particles.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuParticle {
    pos_size: [f32; 4],
    color: [f32; 4],
    vel_kind: [f32; 4],
}

const PARTICLE_ATTRS: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x4];

/// The particle pipeline, its instance buffer and the list set for the next frames.
#[derive(Debug)]
pub(crate) struct ParticlePass {
    pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    capacity: u64,
    list: Vec<Particle>,
    count: u32,
}

impl ParticlePass {
    /// Builds the pipeline; `frame_bgl` is the renderer's frame bind group layout (uniforms, sky
    /// table, sampler) used as group 0.
    pub(crate) fn new(
        device: &wgpu::Device,
        frame_bgl: &wgpu::BindGroupLayout,
        cache: Option<&wgpu::PipelineCache>,
    ) -> Result<ParticlePass, crate::RenderError> {
        let module = shaders::compile(device, PARTICLES)?;
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles"),
            bind_group_layouts: &[Some(frame_bgl)],
            immediate_size: 0,
        });
        let premultiplied = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        };
        let pipeline = shaders::pipeline(
            device,
            PARTICLES,
            "fs_main",
            &wgpu::RenderPipelineDescriptor {
                label: Some("particles"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: size_of::<GpuParticle>() as u64,
                        step_mode: wgpu::VertexStepMode::Instance,
                        attributes: &PARTICLE_ATTRS,
                    })],
                },
                primitive: wgpu::PrimitiveState::default(),
                // Tested against the opaque depth, never written: particles do not hide each
                // other (they are sorted instead).
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::Greater),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: HDR_FORMAT,
                        blend: Some(wgpu::BlendState {
                            color: premultiplied,
                            alpha: premultiplied,
                        }),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache,
            },
        )?;
        let capacity = 1024;
        Ok(ParticlePass {
            pipeline,
            buffer: Self::buffer(device, capacity),
            capacity,
            list: Vec::new(),
            count: 0,
        })
    }

    fn buffer(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles"),
            size: capacity * size_of::<GpuParticle>() as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Replaces the list drawn from the next frame on.
    pub(crate) fn set(&mut self, particles: &[Particle]) {
        self.list.clear();
        self.list.extend_from_slice(particles);
    }

    /// Uploads the list relative to `camera` (f64, then f32), far to near, dropping non-finite
    /// or invisible particles and keeping the nearest [`MAX_PARTICLES`].
    pub(crate) fn prepare(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, camera: DVec3) {
        let mut rows: Vec<(f64, GpuParticle)> = self
            .list
            .iter()
            .filter(|p| {
                p.position.is_finite()
                    && p.velocity.is_finite()
                    && p.color.is_finite()
                    && p.size_m.is_finite()
                    && p.size_m > 0.0
                    && p.opacity.is_finite()
                    && p.opacity > 0.0
            })
            .map(|p| {
                let rel = p.position - camera;
                let c = p.color.max(Vec3::ZERO);
                (
                    rel.length_squared(),
                    GpuParticle {
                        pos_size: rel.as_vec3().extend(p.size_m).to_array(),
                        color: c.extend(p.opacity.min(1.0)).to_array(),
                        vel_kind: p.velocity.extend(p.kind.code()).to_array(),
                    },
                )
            })
            .collect();
        if rows.len() > MAX_PARTICLES {
            tracing::warn!(
                count = rows.len(),
                "more than {MAX_PARTICLES} particles; the farthest are not drawn"
            );
            rows.sort_by(|a, b| a.0.total_cmp(&b.0));
            rows.truncate(MAX_PARTICLES);
        }
        // Far to near, so "over" blending composes; the sort is stable and total (NaN-free).
        rows.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.count = rows.len() as u32;
        if rows.is_empty() {
            return;
        }
        if rows.len() as u64 > self.capacity {
            self.capacity = (rows.len() as u64).next_power_of_two();
            self.buffer = Self::buffer(device, self.capacity);
        }
        let data: Vec<GpuParticle> = rows.into_iter().map(|(_, g)| g).collect();
        queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&data));
    }

    /// Draws what [`ParticlePass::prepare`] uploaded; group 0 must be the frame bind group.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.buffer.slice(..));
        pass.draw(0..6, 0..self.count);
    }

    /// Particles drawn by the last frame.
    pub(crate) fn drawn(&self) -> usize {
        self.count as usize
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tracer_streak_trails_its_head_and_stops_at_the_muzzle() {
        use super::*;
        let v = Vec3::new(0.0, 0.0, -1000.0);
        let head = DVec3::new(5.0, 100.0, -50.0);
        let ends = |p: &Particle| {
            let half = p.velocity.as_dvec3() * f64::from(0.5 * TRACER_STREAK_S);
            (p.position - half, p.position + half)
        };
        // Far out: a full streak (30 m at 1,000 m/s) behind the head.
        let (tail, front) = ends(&Particle::tracer(head, v, 500.0));
        assert!((front - head).length() < 1e-4, "{front:?}");
        assert!(
            (tail - DVec3::new(5.0, 100.0, -20.0)).length() < 1e-4,
            "{tail:?}"
        );
        // Just fired, 4 m out: the streak is those 4 m, never behind the gun.
        let (tail, front) = ends(&Particle::tracer(head, v, 4.0));
        assert!((front - head).length() < 1e-4);
        assert!(
            (tail - DVec3::new(5.0, 100.0, -46.0)).length() < 1e-4,
            "{tail:?}"
        );
        // Not yet flown, or nonsense: a dot at the head.
        for flown in [0.0, -3.0, f32::NAN] {
            let p = Particle::tracer(head, v, flown);
            assert_eq!((p.position, p.velocity), (head, Vec3::ZERO), "{flown}");
        }
        let p = Particle::tracer(head, Vec3::NAN, 10.0);
        assert_eq!((p.position, p.velocity), (head, Vec3::ZERO));
        assert_eq!(p.size_m, TRACER_HALF_WIDTH_M);
    }

    #[test]
    fn the_shader_uses_the_same_tracer_constants() {
        let text = PARTICLES.text;
        for (name, value) in [
            ("STREAK_S", TRACER_STREAK_S),
            ("TRACER_MIN_PX", TRACER_MIN_WIDTH_PX),
            ("TRACER_MIN_GAIN", TRACER_MIN_GAIN),
        ] {
            let decl = format!("const {name}: f32 = ");
            let at = text.find(&decl).map(|i| i + decl.len());
            let written = at.and_then(|i| text[i..].split(';').next()?.trim().parse::<f32>().ok());
            assert_eq!(written, Some(value), "{name} in shaders/particles.wgsl");
        }
    }

    use super::*;

    #[test]
    fn contrails_form_in_cold_high_air_only() {
        // ISA at 10 km is 223.15 K: contrails; the threshold there is about 231 K.
        assert!(contrail_forms(10_000.0, 223.15));
        let t10 = contrail_threshold_k(isa_pressure_pa(10_000.0));
        assert!((229.0..234.0).contains(&t10), "{t10}");
        // A warm day at 10 km (240 K): none.
        assert!(!contrail_forms(10_000.0, 240.0));
        // ISA at 3 km (268.65 K) and at sea level (288.15 K): none.
        assert!(!contrail_forms(3_000.0, 268.65));
        assert!(!contrail_forms(0.0, 288.15));
        // Very cold low air (an arctic winter, −45 °C at the surface): contrails.
        assert!(contrail_forms(0.0, 228.0));
        // The threshold falls with pressure (higher is harder at the same temperature).
        assert!(contrail_threshold_k(20_000.0) < contrail_threshold_k(60_000.0));
        // Hostile input.
        assert!(!contrail_forms(f64::NAN, 200.0));
        assert!(!contrail_forms(10_000.0, f64::INFINITY));
        assert!(contrail_threshold_k(0.0).is_finite());
    }

    #[test]
    fn isa_pressure_matches_the_table() {
        assert!((isa_pressure_pa(0.0) - 101_325.0).abs() < 1.0);
        assert!((isa_pressure_pa(5_000.0) - 54_020.0).abs() < 100.0);
        assert!((isa_pressure_pa(11_000.0) - 22_632.0).abs() < 50.0);
        assert!((isa_pressure_pa(15_000.0) - 12_045.0).abs() < 50.0);
    }

    #[test]
    fn a_smoke_column_rises_and_thins() {
        let c = smoke_column(DVec3::ZERO, DVec3::Y, 300.0, 20.0, DVec3::X * 50.0, 30);
        assert_eq!(c.len(), 30);
        assert!(c.windows(2).all(|w| w[1].position.y > w[0].position.y));
        assert!(c[29].opacity < c[0].opacity && c[29].size_m > c[0].size_m);
        assert!(c[29].position.y < 300.0 && c[29].position.x > 30.0);
        assert_eq!(
            c,
            smoke_column(DVec3::ZERO, DVec3::Y, 300.0, 20.0, DVec3::X * 50.0, 30)
        );
        assert!(
            smoke_column(DVec3::ZERO, DVec3::Y, 1.0, 1.0, DVec3::ZERO, usize::MAX).len()
                <= MAX_PARTICLES
        );
    }
}
