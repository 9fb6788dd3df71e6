//! The WGSL sources (one file per pipeline in the repository's `shaders/`, plus shared files that
//! are appended to the pipelines that use them), compiled so that a shader or pipeline error names
//! the file and line — in the shared file when that is where it is.

use crate::RenderError;

/// One WGSL file, embedded at build time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wgsl {
    /// Repository-relative file name, for errors.
    pub file: &'static str,
    /// Its text.
    pub text: &'static str,
    /// Shared files appended after `text` (WGSL declarations may follow their use, so the
    /// pipeline's own line numbers stay as they are in its file).
    pub shared: &'static [Wgsl],
}

/// The frame uniforms, their binding, the air's constants and the sky-table lookup.
pub(crate) const COMMON: Wgsl = Wgsl {
    file: "shaders/common.wgsl",
    text: include_str!("../../../shaders/common.wgsl"),
    shared: &[],
};
/// The sun's shadow lookup for the pipelines that receive it.
pub(crate) const SHADOW_RECEIVE: Wgsl = Wgsl {
    file: "shaders/shadow_receive.wgsl",
    text: include_str!("../../../shaders/shadow_receive.wgsl"),
    shared: &[],
};

pub(crate) const SKY: Wgsl = Wgsl {
    file: "shaders/sky.wgsl",
    text: include_str!("../../../shaders/sky.wgsl"),
    shared: &[COMMON],
};
pub(crate) const PBR: Wgsl = Wgsl {
    file: "shaders/pbr.wgsl",
    text: include_str!("../../../shaders/pbr.wgsl"),
    shared: &[COMMON, SHADOW_RECEIVE],
};
pub(crate) const TERRAIN: Wgsl = Wgsl {
    file: "shaders/terrain.wgsl",
    text: include_str!("../../../shaders/terrain.wgsl"),
    shared: &[COMMON, SHADOW_RECEIVE],
};
pub(crate) const TONEMAP: Wgsl = Wgsl {
    file: "shaders/tonemap.wgsl",
    text: include_str!("../../../shaders/tonemap.wgsl"),
    shared: &[COMMON],
};

/// Compiles `src`; a parse or validation error becomes [`RenderError::Shader`] with the line
/// and column the compiler reports.
pub(crate) fn compile(device: &wgpu::Device, src: Wgsl) -> Result<wgpu::ShaderModule, RenderError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(src.file),
        source: wgpu::ShaderSource::Wgsl(assemble(src).into()),
    });
    let error = pollster::block_on(scope.pop());
    let info = pollster::block_on(module.get_compilation_info());
    if let Some(msg) = info
        .messages
        .iter()
        .find(|m| m.message_type == wgpu::CompilationMessageType::Error)
    {
        let (line, column) = msg
            .location
            .map_or((0, 0), |l| (l.line_number, l.line_position));
        let (file, line) = locate(src, line);
        return Err(RenderError::Shader {
            file,
            line,
            column,
            message: msg.message.clone(),
        });
    }
    if let Some(e) = error {
        return Err(RenderError::Shader {
            file: src.file,
            line: 0,
            column: 0,
            message: e.to_string(),
        });
    }
    Ok(module)
}

/// The pipeline's own text followed by its shared files, each starting on a fresh line.
fn assemble(src: Wgsl) -> String {
    let mut text = String::from(src.text);
    for part in src.shared {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(part.text);
    }
    text
}

/// The file and line (1-based) of line `line` of [`assemble`]'s text.
fn locate(src: Wgsl, line: u32) -> (&'static str, u32) {
    let mut first = 1u32;
    for part in std::iter::once(&src).chain(src.shared.iter()) {
        let lines = part.text.lines().count() as u32;
        if line < first + lines {
            return (part.file, line.saturating_sub(first) + 1);
        }
        first += lines;
    }
    (src.file, line)
}

/// The line of `fn <entry>` in `src` (1-based), to name where a pipeline's entry point is.
pub(crate) fn entry_line(src: Wgsl, entry: &str) -> u32 {
    let needle = format!("fn {entry}(");
    src.text
        .lines()
        .position(|l| l.contains(&needle))
        .map_or(0, |i| i as u32 + 1)
}

/// Creates a render pipeline; a validation error names the file and the entry point's line.
pub(crate) fn pipeline(
    device: &wgpu::Device,
    src: Wgsl,
    entry: &str,
    desc: &wgpu::RenderPipelineDescriptor<'_>,
) -> Result<wgpu::RenderPipeline, RenderError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let p = device.create_render_pipeline(desc);
    match pollster::block_on(scope.pop()) {
        None => Ok(p),
        Some(e) => Err(RenderError::Shader {
            file: src.file,
            line: entry_line(src, entry),
            column: 1,
            message: format!("pipeline for `{entry}`: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shader_error_names_the_file_and_line() {
        let Some(gpu) = fl_fixtures::adapter_or_skip(crate::Gpu::new()) else {
            return;
        };
        let broken = Wgsl {
            file: "shaders/broken.wgsl",
            text: "// line 1\n@fragment\nfn fs() -> @location(0) vec4<f32> {\n    return vec4<f32>(1.0, undefined_name, 0.0, 1.0);\n}\n",
            shared: &[],
        };
        match compile(&gpu.device, broken) {
            Err(RenderError::Shader { file, line, .. }) => {
                assert_eq!(file, "shaders/broken.wgsl");
                assert_eq!(line, 4);
            }
            other => panic!("expected a shader error, got {other:?}"),
        }
        // An error in a shared file names that file and its own line.
        const BROKEN_SHARED: Wgsl = Wgsl {
            file: "shaders/broken_shared.wgsl",
            text: "// line 1\nfn helper() -> f32 {\n    return not_declared;\n}\n",
            shared: &[],
        };
        let user = Wgsl {
            file: "shaders/user.wgsl",
            text: "// line 1\n@fragment\nfn fs() -> @location(0) vec4<f32> {\n    return vec4<f32>(helper());\n}\n",
            shared: &[BROKEN_SHARED],
        };
        match compile(&gpu.device, user) {
            Err(RenderError::Shader { file, line, .. }) => {
                assert_eq!((file, line), ("shaders/broken_shared.wgsl", 3));
            }
            other => panic!("expected a shader error, got {other:?}"),
        }
        // The real files compile.
        for src in [SKY, PBR, TERRAIN, TONEMAP] {
            assert!(compile(&gpu.device, src).is_ok(), "{}", src.file);
        }
    }

    #[test]
    fn entry_points_are_found() {
        assert!(entry_line(PBR, "fs_main") > 1);
        assert!(entry_line(SKY, "fs_lut") > 1);
        assert_eq!(entry_line(TONEMAP, "no_such_entry"), 0);
    }
}
