//! Adapter and device setup, the same code on a real GPU and on Mesa's software Vulkan
//! (lavapipe, reported as "llvmpipe"). The instance reads `WGPU_BACKEND` and friends from the
//! environment; `WGPU_POWER_PREF` and `WGPU_ADAPTER_NAME` choose among adapters, so an operator
//! can pick a backend or a GPU without a rebuild.

use crate::RenderError;

/// Environment variable choosing the adapter by (part of) its name, case-insensitive.
pub const ADAPTER_NAME_VAR: &str = "WGPU_ADAPTER_NAME";

/// What the renderer runs on, for logs and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// Adapter name ("llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA GeForce …").
    pub name: String,
    /// Backend ("Vulkan", "Metal", "Dx12", "Gl").
    pub backend: String,
    /// Device type ("Cpu" for a software adapter).
    pub device_type: String,
    /// Whether BC-compressed textures can be sampled (KTX2 block formats).
    pub bc_textures: bool,
    /// Whether models can be drawn as wireframes (`POLYGON_MODE_LINE`: most Vulkan, Metal and
    /// D3D12 adapters and lavapipe have it; WebGL and some GL drivers do not).
    pub wireframe: bool,
}

/// An instance, adapter, device and queue. A clone shares them (wgpu's handles are shared), so
/// a worker thread can record on the same device.
#[derive(Debug, Clone)]
pub struct Gpu {
    /// The wgpu instance (surfaces are created from it).
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// The device's queue.
    pub queue: wgpu::Queue,
    /// What was chosen.
    pub info: GpuInfo,
    /// The application pipeline cache every pipeline is built through, when one is open
    /// ([`crate::pipeline_cache::DiskPipelineCache::open`]).
    pub pipeline_cache: Option<wgpu::PipelineCache>,
}

impl Gpu {
    /// A device for offscreen rendering. No adapter (no GPU, no lavapipe) is
    /// [`RenderError::NoAdapter`], never a panic.
    pub fn new() -> Result<Gpu, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        Gpu::with_instance(instance, None)
    }

    /// A device on one of `backends` only (the rest of the instance options from the
    /// environment). `Backends::empty()` finds no adapter: [`RenderError::NoAdapter`].
    pub fn with_backends(backends: wgpu::Backends) -> Result<Gpu, RenderError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = backends;
        Gpu::with_instance(wgpu::Instance::new(desc), None)
    }

    /// A device on `instance` able to present to `surface` when one is given.
    pub fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Gpu, RenderError> {
        let adapter = match std::env::var(ADAPTER_NAME_VAR) {
            // wgpu's own helper for this variable panics when nothing matches; this does not.
            Ok(wanted) if !wanted.is_empty() => {
                let wanted = wanted.to_lowercase();
                pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
                    .into_iter()
                    .filter(|a| surface.is_none_or(|s| a.is_surface_supported(s)))
                    .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
                    .ok_or_else(|| {
                        RenderError::NoAdapter(format!(
                            "{ADAPTER_NAME_VAR}={wanted:?} matches no adapter"
                        ))
                    })?
            }
            _ => pollster::block_on(
                instance.request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env()
                        .unwrap_or(wgpu::PowerPreference::HighPerformance),
                    force_fallback_adapter: false,
                    compatible_surface: surface,
                    apply_limit_buckets: false,
                }),
            )
            .map_err(|e| RenderError::NoAdapter(e.to_string()))?,
        };
        let ai = adapter.get_info();
        let bc_textures = adapter
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC);
        let mut required_features = wgpu::Features::empty();
        if bc_textures {
            required_features |= wgpu::Features::TEXTURE_COMPRESSION_BC;
        }
        let wireframe = adapter
            .features()
            .contains(wgpu::Features::POLYGON_MODE_LINE);
        if wireframe {
            required_features |= wgpu::Features::POLYGON_MODE_LINE;
        }
        // Lets compiled pipelines be kept on disk between runs (Vulkan, lavapipe included).
        if adapter.features().contains(wgpu::Features::PIPELINE_CACHE) {
            required_features |= wgpu::Features::PIPELINE_CACHE;
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("fl-render device"),
            required_features,
            // The downlevel defaults run everywhere the game should (and on lavapipe); raise
            // only what the adapter offers when a feature needs it.
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| RenderError::Device {
            adapter: ai.name.clone(),
            reason: e.to_string(),
        })?;
        let info = GpuInfo {
            name: ai.name.clone(),
            backend: format!("{:?}", ai.backend),
            device_type: format!("{:?}", ai.device_type),
            bc_textures,
            wireframe,
        };
        tracing::info!(adapter = %info.name, backend = %info.backend, kind = %info.device_type, "graphics device ready");
        Ok(Gpu {
            instance,
            adapter,
            device,
            queue,
            info,
            pipeline_cache: None,
        })
    }
}
