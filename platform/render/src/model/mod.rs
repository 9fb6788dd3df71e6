//! glTF 2.0 models decoded into plain CPU data (meshes, materials, images, nodes) for upload.
//!
//! Owns: reading a `.glb`/`.gltf` with every size checked before anything is allocated from it
//! (hostile files give a typed [`ModelError`] naming the file, never a panic), the node
//! hierarchy with names (articulation, the cockpit's `camera_anchor`), PBR metallic-roughness
//! materials, texture resolution ([`texture`]: KTX2, else the source PNG, else the factors), a
//! model's LOD family, the LOD choice, and the builtin category silhouettes ([`silhouette`]).

pub mod silhouette;
pub mod texture;

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};

pub use texture::{ImageData, TexturePixels};

/// Largest model file read (a 50 MB file already means embedded textures; see the modding guide).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Most vertices in one model (all primitives together).
pub const MAX_VERTICES: usize = 4_000_000;
/// Most indices in one model.
pub const MAX_INDICES: usize = 12_000_000;
/// Most nodes in one model.
pub const MAX_NODES: usize = 10_000;
/// Deepest node hierarchy.
pub const MAX_DEPTH: usize = 64;

/// Why a model could not be loaded. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file could not be read.
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: String },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes is more than the {limit}-byte limit for a model")]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    /// Not glTF 2.0 (or a truncated/corrupt container or JSON).
    #[error("{path}: not a readable glTF 2.0 file: {reason}")]
    Parse { path: PathBuf, reason: String },
    /// glTF whose contents are inconsistent (sizes, indices, references).
    #[error("{path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
    /// A file of the model (the model itself, a sibling, an external buffer) resolves outside
    /// the pack it belongs to (a symbolic link or `..` leading out).
    #[error("{path}: resolves outside the pack ({root}); refused")]
    OutsidePack { path: PathBuf, root: PathBuf },
    /// A count above the loader's limits.
    #[error("{path}: {what} count {count} is over the limit of {limit}")]
    Limit {
        path: PathBuf,
        what: &'static str,
        count: u64,
        limit: u64,
    },
}

/// Something that was wrong but not fatal (a missing or unreadable texture, an unsupported
/// primitive mode). Logged once as a warning when the model loads, and kept here for tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelWarning {
    /// The file concerned (the model, or the texture file).
    pub path: PathBuf,
    /// What happened and what was done instead.
    pub message: String,
}

impl std::fmt::Display for ModelWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// One vertex as uploaded (48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Position, model space, metres.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Texture coordinate set 0.
    pub uv: [f32; 2],
    /// Tangent (xyz) and bitangent sign (w); zero when the file has none.
    pub tangent: [f32; 4],
}

/// A triangle list with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Triangle indices into `vertices`.
    pub indices: Vec<u32>,
    /// Index into [`ModelData::materials`]; `None` is the default grey.
    pub material: Option<usize>,
    /// Whether `tangent` holds the file's tangents (normal maps need them).
    pub has_tangents: bool,
}

/// A glTF mesh: its primitives.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshData {
    /// The mesh's name.
    pub name: Option<String>,
    /// Its primitives.
    pub primitives: Vec<Primitive>,
}

/// A node of the hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's name (articulation and anchors address nodes by name).
    pub name: Option<String>,
    /// Parent node index.
    pub parent: Option<usize>,
    /// Child node indices.
    pub children: Vec<usize>,
    /// Local translation.
    pub translation: Vec3,
    /// Local rotation.
    pub rotation: Quat,
    /// Local scale.
    pub scale: Vec3,
    /// Index into [`ModelData::meshes`].
    pub mesh: Option<usize>,
}

impl Node {
    /// The local transform.
    pub fn local_matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// glTF alpha modes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaMode {
    /// Opaque.
    Opaque,
    /// Cut out below the cutoff.
    Mask(f32),
    /// Blended (drawn opaque for now; canopy glass comes with the cockpit).
    Blend,
}

/// A PBR metallic-roughness material. Texture fields index [`ModelData::images`]; an image
/// that could not be found leaves the field `None` and the factors alone are used.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name.
    pub name: Option<String>,
    /// Linear base colour factor (RGBA).
    pub base_color: [f32; 4],
    /// Metallic factor.
    pub metallic: f32,
    /// Roughness factor.
    pub roughness: f32,
    /// Emissive factor (linear RGB).
    pub emissive: [f32; 3],
    /// Base colour texture (sRGB).
    pub base_color_texture: Option<usize>,
    /// Metallic (B) / roughness (G) texture (linear).
    pub metallic_roughness_texture: Option<usize>,
    /// Occlusion (R) texture (linear; in the pack the same ORM image).
    pub occlusion_texture: Option<usize>,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Tangent-space normal map (linear).
    pub normal_texture: Option<usize>,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Draw both faces.
    pub double_sided: bool,
    /// Alpha mode.
    pub alpha: AlphaMode,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: None,
            base_color: [0.5, 0.5, 0.5, 1.0],
            metallic: 0.0,
            roughness: 0.6,
            emissive: [0.0; 3],
            base_color_texture: None,
            metallic_roughness_texture: None,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            normal_texture: None,
            normal_scale: 1.0,
            double_sided: false,
            alpha: AlphaMode::Opaque,
        }
    }
}

/// A decoded model file.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelData {
    /// The file it came from (or a builtin name).
    pub path: PathBuf,
    /// Meshes.
    pub meshes: Vec<MeshData>,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Root nodes of the scene drawn.
    pub roots: Vec<usize>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Images by glTF image index; `None` where nothing could be loaded.
    pub images: Vec<Option<ImageData>>,
    /// Non-fatal problems met while loading.
    pub warnings: Vec<ModelWarning>,
}

impl ModelData {
    /// The index of the first node called `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
    }

    /// The model-space transform of node `index` (its parents' transforms applied).
    pub fn node_model_matrix(&self, index: usize) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut at = Some(index);
        let mut depth = 0;
        while let Some(i) = at {
            let Some(node) = self.nodes.get(i) else { break };
            m = node.local_matrix() * m;
            at = node.parent;
            depth += 1;
            if depth > MAX_DEPTH {
                break;
            }
        }
        m
    }

    /// Axis-aligned bounds of every drawn vertex in model space (file pose), or `None` if empty.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for (node_index, node) in self.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| self.meshes.get(m)) else {
                continue;
            };
            let m = self.node_model_matrix(node_index);
            for p in &mesh.primitives {
                for v in &p.vertices {
                    let q = m.transform_point3(Vec3::from(v.position));
                    lo = lo.min(q);
                    hi = hi.max(q);
                }
            }
        }
        (lo.x <= hi.x).then_some((lo, hi))
    }

    /// Whether node `index` is a battle-damage variant (`<name>_b` beside a node `<name>`),
    /// drawn only for damaged instances.
    pub fn is_damage_node(&self, index: usize) -> bool {
        self.nodes
            .get(index)
            .and_then(|n| n.name.as_deref())
            .and_then(|n| n.strip_suffix("_b"))
            .is_some_and(|base| self.node_index(base).is_some())
    }

    /// Whether node `index` or one of its parents is a damage variant.
    pub fn under_damage_node(&self, index: usize) -> bool {
        let mut at = Some(index);
        let mut depth = 0;
        while let Some(i) = at {
            if self.is_damage_node(i) {
                return true;
            }
            at = self.nodes.get(i).and_then(|n| n.parent);
            depth += 1;
            if depth > MAX_DEPTH {
                break;
            }
        }
        false
    }
}

fn invalid(path: &Path, reason: impl Into<String>) -> ModelError {
    ModelError::Invalid {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Reads a whole file of at most `limit` bytes, checking the size before reading.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    let io = |e: std::io::Error| ModelError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    // Checked before opening: opening a FIFO would block until a writer comes.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(ModelError::Io {
            path: path.to_path_buf(),
            reason: "not a regular file".to_owned(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len > limit {
        return Err(ModelError::TooLarge {
            path: path.to_path_buf(),
            bytes: len,
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // `take` keeps a file that grows while being read inside the limit.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ModelError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// Loads a `.glb` or `.gltf` file. Textures are resolved beside it (see [`texture`]); each
/// problem with them becomes a warning (logged once), never an error.
pub fn load_gltf(path: &Path) -> Result<ModelData, ModelError> {
    load_gltf_cached(path, &mut texture::ImageCache::default())
}

/// [`load_gltf`] sharing decoded texture files through `cache` (a model's LOD files name the
/// same textures: each is decoded, and warned about, once).
pub fn load_gltf_cached(
    path: &Path,
    cache: &mut texture::ImageCache,
) -> Result<ModelData, ModelError> {
    cache.admit(path).map_err(|root| ModelError::OutsidePack {
        path: path.to_path_buf(),
        root,
    })?;
    let bytes = read_bounded(path, MAX_FILE_BYTES)?;
    let m = parse_gltf(path, &bytes, cache)?;
    for w in &m.warnings {
        tracing::warn!("{w}");
    }
    Ok(m)
}

/// Loads glTF from bytes; `path` names them in errors and anchors relative URIs.
pub fn load_gltf_bytes(path: &Path, bytes: &[u8]) -> Result<ModelData, ModelError> {
    let m = parse_gltf(path, bytes, &mut texture::ImageCache::default())?;
    for w in &m.warnings {
        tracing::warn!("{w}");
    }
    Ok(m)
}

fn parse_gltf(
    path: &Path,
    bytes: &[u8],
    cache: &mut texture::ImageCache,
) -> Result<ModelData, ModelError> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| ModelError::Parse {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let doc = &gltf.document;
    let mut warnings = Vec::new();

    // Buffers: the GLB's BIN chunk or external files beside the model.
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for buffer in doc.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf.blob.clone().ok_or_else(|| {
                invalid(
                    path,
                    "buffer 0 refers to a BIN chunk the file does not have",
                )
            })?,
            gltf::buffer::Source::Uri(uri) => {
                let file = texture::resolve_relative(dir, uri).ok_or_else(|| {
                    invalid(
                        path,
                        format!("buffer {}: unsupported URI {uri:?}", buffer.index()),
                    )
                })?;
                cache.admit(&file).map_err(|root| ModelError::OutsidePack {
                    path: file.clone(),
                    root,
                })?;
                read_bounded(&file, MAX_FILE_BYTES)
                    .map_err(|e| invalid(path, format!("buffer {} ({uri}): {e}", buffer.index())))?
            }
        };
        if (data.len() as u64) < buffer.length() as u64 {
            return Err(invalid(
                path,
                format!(
                    "buffer {} holds {} bytes but declares {}",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                ),
            ));
        }
        buffers.push(data);
    }
    for view in doc.views() {
        let end = (view.offset() as u64).checked_add(view.length() as u64);
        let blen = buffers
            .get(view.buffer().index())
            .map_or(0, |b| b.len() as u64);
        if end.is_none_or(|e| e > blen) {
            return Err(invalid(
                path,
                format!(
                    "bufferView {} runs past the end of its buffer",
                    view.index()
                ),
            ));
        }
    }
    for acc in doc.accessors() {
        check_accessor(path, &acc)?;
    }

    // Meshes.
    let (mut total_vertices, mut total_indices) = (0usize, 0usize);
    let mut meshes = Vec::new();
    for mesh in doc.meshes() {
        let mut primitives = Vec::new();
        for prim in mesh.primitives() {
            if prim.mode() != gltf::mesh::Mode::Triangles {
                warnings.push(ModelWarning {
                    path: path.to_path_buf(),
                    message: format!(
                        "mesh {}: primitive mode {:?} is not drawn (triangles only)",
                        mesh.index(),
                        prim.mode()
                    ),
                });
                continue;
            }
            let p = read_primitive(
                path,
                &prim,
                &buffers,
                &mut total_vertices,
                &mut total_indices,
            )?;
            primitives.push(p);
        }
        meshes.push(MeshData {
            name: mesh.name().map(str::to_owned),
            primitives,
        });
    }

    // Nodes and their hierarchy.
    let node_count = doc.nodes().len();
    if node_count > MAX_NODES {
        return Err(ModelError::Limit {
            path: path.to_path_buf(),
            what: "node",
            count: node_count as u64,
            limit: MAX_NODES as u64,
        });
    }
    let mut nodes: Vec<Node> = doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            let sanitize = |v: Vec3, d: Vec3| if v.is_finite() { v } else { d };
            let rot = Quat::from_array(r);
            Node {
                name: n.name().map(str::to_owned),
                parent: None,
                children: n.children().map(|c| c.index()).collect(),
                translation: sanitize(Vec3::from(t), Vec3::ZERO),
                rotation: if rot.is_finite() && rot.length_squared() > 1e-12 {
                    rot.normalize()
                } else {
                    Quat::IDENTITY
                },
                scale: sanitize(Vec3::from(s), Vec3::ONE),
                mesh: n.mesh().map(|m| m.index()),
            }
        })
        .collect();
    for i in 0..nodes.len() {
        for c in nodes[i].children.clone() {
            if c == i || nodes.get(c).is_none_or(|n| n.parent.is_some()) {
                return Err(invalid(
                    path,
                    format!("node {c} has more than one parent (or is its own child)"),
                ));
            }
            nodes[c].parent = Some(i);
        }
    }
    let roots: Vec<usize> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => scene.nodes().map(|n| n.index()).collect(),
        None => (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect(),
    };
    // A child cycle without a root (a → b → a) has parents everywhere: refuse it, and check depth.
    for (i, _) in nodes.iter().enumerate() {
        let mut at = nodes[i].parent;
        let mut depth = 0;
        while let Some(p) = at {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(invalid(
                    path,
                    format!("node {i}: hierarchy deeper than {MAX_DEPTH} or cyclic"),
                ));
            }
            at = nodes[p].parent;
        }
    }

    // Images, then materials that refer to them.
    let images: Vec<Option<ImageData>> = doc
        .images()
        .map(|img| texture::load_image(path, dir, &img, &buffers, &mut warnings, cache))
        .collect();
    let tex_image = |t: gltf::texture::Texture<'_>| {
        let i = t.source().index();
        images.get(i).and_then(|im| im.as_ref()).map(|_| i)
    };
    let materials = doc
        .materials()
        .map(|m| {
            let pbr = m.pbr_metallic_roughness();
            Material {
                name: m.name().map(str::to_owned),
                base_color: finite4(pbr.base_color_factor(), [1.0; 4]),
                metallic: finite(pbr.metallic_factor(), 1.0).clamp(0.0, 1.0),
                roughness: finite(pbr.roughness_factor(), 1.0).clamp(0.0, 1.0),
                emissive: {
                    let e = m.emissive_factor();
                    let s = finite(m.emissive_strength().unwrap_or(1.0), 1.0);
                    [
                        finite(e[0], 0.0) * s,
                        finite(e[1], 0.0) * s,
                        finite(e[2], 0.0) * s,
                    ]
                },
                base_color_texture: pbr
                    .base_color_texture()
                    .and_then(|t| tex_image(t.texture())),
                metallic_roughness_texture: pbr
                    .metallic_roughness_texture()
                    .and_then(|t| tex_image(t.texture())),
                occlusion_texture: m.occlusion_texture().and_then(|t| tex_image(t.texture())),
                occlusion_strength: m
                    .occlusion_texture()
                    .map_or(1.0, |t| finite(t.strength(), 1.0)),
                normal_texture: m.normal_texture().and_then(|t| tex_image(t.texture())),
                normal_scale: m.normal_texture().map_or(1.0, |t| finite(t.scale(), 1.0)),
                double_sided: m.double_sided(),
                alpha: match m.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => {
                        AlphaMode::Mask(finite(m.alpha_cutoff().unwrap_or(0.5), 0.5))
                    }
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
            }
        })
        .collect();

    Ok(ModelData {
        path: path.to_path_buf(),
        meshes,
        nodes,
        roots,
        materials,
        images,
        warnings,
    })
}

fn finite(v: f32, d: f32) -> f32 {
    if v.is_finite() { v } else { d }
}

fn finite4(v: [f32; 4], d: [f32; 4]) -> [f32; 4] {
    if v.iter().all(|x| x.is_finite()) {
        v
    } else {
        d
    }
}

/// Every accessor must lie inside its view before the reader slices it.
fn check_accessor(path: &Path, acc: &gltf::Accessor<'_>) -> Result<(), ModelError> {
    if acc.sparse().is_some() {
        return Err(invalid(
            path,
            format!(
                "accessor {}: sparse accessors are not supported",
                acc.index()
            ),
        ));
    }
    let count = acc.count() as u64;
    if count > MAX_INDICES as u64 {
        return Err(ModelError::Limit {
            path: path.to_path_buf(),
            what: "accessor element",
            count,
            limit: MAX_INDICES as u64,
        });
    }
    let Some(view) = acc.view() else {
        return Ok(()); // Checked where it is read: our attributes all need data.
    };
    let elem = acc.size() as u64;
    let stride = view.stride().map_or(elem, |s| s as u64);
    if stride < elem && count > 1 {
        return Err(invalid(
            path,
            format!(
                "accessor {}: stride {stride} smaller than its element {elem}",
                acc.index()
            ),
        ));
    }
    let needed = if count == 0 {
        0
    } else {
        (acc.offset() as u64)
            .saturating_add(stride.saturating_mul(count - 1))
            .saturating_add(elem)
    };
    if needed > view.length() as u64 {
        return Err(invalid(
            path,
            format!(
                "accessor {}: {count} elements need {needed} bytes but bufferView {} has {}",
                acc.index(),
                view.index(),
                view.length()
            ),
        ));
    }
    Ok(())
}

fn read_primitive(
    path: &Path,
    prim: &gltf::Primitive<'_>,
    buffers: &[Vec<u8>],
    total_vertices: &mut usize,
    total_indices: &mut usize,
) -> Result<Primitive, ModelError> {
    let has_data = |s: gltf::Semantic| prim.get(&s).is_none_or(|a| a.view().is_some());
    for s in [
        gltf::Semantic::Positions,
        gltf::Semantic::Normals,
        gltf::Semantic::TexCoords(0),
        gltf::Semantic::Tangents,
    ] {
        if !has_data(s.clone()) {
            return Err(invalid(path, format!("attribute {s:?} has no bufferView")));
        }
    }
    if prim.indices().is_some_and(|a| a.view().is_none()) {
        return Err(invalid(path, "indices have no bufferView"));
    }
    let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or_else(|| invalid(path, "a primitive has no POSITION"))?
        .collect();
    let n = positions.len();
    *total_vertices = total_vertices.saturating_add(n);
    if *total_vertices > MAX_VERTICES {
        return Err(ModelError::Limit {
            path: path.to_path_buf(),
            what: "vertex",
            count: *total_vertices as u64,
            limit: MAX_VERTICES as u64,
        });
    }
    let indices: Vec<u32> = match reader.read_indices() {
        Some(ix) => ix.into_u32().collect(),
        None => (0..n as u32).collect(),
    };
    *total_indices = total_indices.saturating_add(indices.len());
    if *total_indices > MAX_INDICES {
        return Err(ModelError::Limit {
            path: path.to_path_buf(),
            what: "index",
            count: *total_indices as u64,
            limit: MAX_INDICES as u64,
        });
    }
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
        return Err(invalid(
            path,
            format!("index {bad} is past the {n} vertices"),
        ));
    }
    if !indices.len().is_multiple_of(3) {
        return Err(invalid(
            path,
            format!(
                "{} indices is not a whole number of triangles",
                indices.len()
            ),
        ));
    }
    let mut normals: Option<Vec<[f32; 3]>> = reader.read_normals().map(|r| r.collect());
    if normals.as_ref().is_some_and(|v| v.len() != n) {
        normals = None;
    }
    let normals = normals.unwrap_or_else(|| smooth_normals(&positions, &indices));
    let uvs: Vec<[f32; 2]> = reader
        .read_tex_coords(0)
        .map(|r| r.into_f32().collect())
        .filter(|v: &Vec<[f32; 2]>| v.len() == n)
        .unwrap_or_else(|| vec![[0.0; 2]; n]);
    let tangents: Option<Vec<[f32; 4]>> = reader
        .read_tangents()
        .map(|r| r.collect())
        .filter(|v: &Vec<[f32; 4]>| v.len() == n);
    let has_tangents = tangents.is_some();
    let vertices = (0..n)
        .map(|i| Vertex {
            position: positions[i].map(|x| finite(x, 0.0)),
            normal: normals[i].map(|x| finite(x, 0.0)),
            uv: uvs[i].map(|x| finite(x, 0.0)),
            tangent: tangents
                .as_ref()
                .map_or([0.0; 4], |t| t[i].map(|x| finite(x, 0.0))),
        })
        .collect();
    Ok(Primitive {
        vertices,
        indices,
        material: prim.material().index(),
        has_tangents,
    })
}

/// Area-weighted vertex normals for a mesh that has none.
pub fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(positions[i as usize]));
        let n = (b - a).cross(c - a);
        for &i in t {
            acc[i as usize] += n;
        }
    }
    acc.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y).to_array())
        .collect()
}

/// How a pack's mesh sits in the body frame of the thing it draws (docs/render.md, "Mesh axes").
///
/// The pack's meshes follow glTF's own convention — +Y up, the front facing +Z — with the origin
/// near the nose, while an instance's transform is that of the engine body frame (X right wing,
/// Y up, Z aft). `body_from_mesh` maps one onto the other: a half turn about Y (the nose goes
/// from +Z to −Z, the right wing from −X to +X) and no translation (the mesh origin is the
/// body's reference point, as in the C++ original, which drew meshes at the entity's origin).
pub fn pack_body_from_mesh() -> Mat4 {
    Mat4::from_rotation_y(std::f32::consts::PI)
}

/// A model with its levels of detail, shadow mesh and cockpit anchor, as the pack lays them out:
/// `<stem>.glb`, `<stem>_lod0.glb`…, `<stem>_shadow.glb`, `<stem>_cockpit.glb`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFamily {
    /// The full-detail model.
    pub base: ModelData,
    /// `_lod0`, `_lod1`, … in order (coarser each), those that loaded.
    pub lods: Vec<ModelData>,
    /// The shadow-casting mesh.
    pub shadow: Option<ModelData>,
    /// The cockpit (`<stem>_cockpit.glb`), drawn instead of the outside model when the eye is
    /// in it; in the same mesh frame as the base.
    pub cockpit: Option<ModelData>,
    /// The pilot's eye: the cockpit file's `camera_anchor` node, in *body* coordinates.
    pub camera_anchor: Option<Vec3>,
    /// Mesh-to-body transform ([`pack_body_from_mesh`] for pack models).
    pub body_from_mesh: Mat4,
    /// Problems with the optional files (each already logged).
    pub warnings: Vec<ModelWarning>,
}

/// Most `_lod<N>` files looked for.
pub const MAX_LODS: usize = 8;

impl ModelFamily {
    /// Loads `<dir>/<stem>.glb` and whichever optional siblings exist. Only the base file's
    /// failure is an error; a broken optional file is a warning and is left out. Files are not
    /// confined to a pack: use [`ModelFamily::load_within`] for a pack's models.
    pub fn load(dir: &Path, stem: &str) -> Result<ModelFamily, ModelError> {
        Self::load_with(dir, stem, texture::ImageCache::default())
    }

    /// As [`ModelFamily::load`], but every file the family reads (siblings, buffers, textures)
    /// must resolve inside `pack_root`, symbolic links followed: the content stack checks the
    /// base file's path, and a hostile pack must not reach past it through a sibling's link or
    /// a `..` URI. A sibling or texture outside is a warning and left out; the base or a buffer
    /// outside is an error.
    pub fn load_within(
        pack_root: &Path,
        dir: &Path,
        stem: &str,
    ) -> Result<ModelFamily, ModelError> {
        Self::load_with(dir, stem, texture::ImageCache::within(pack_root))
    }

    fn load_with(
        dir: &Path,
        stem: &str,
        mut cache: texture::ImageCache,
    ) -> Result<ModelFamily, ModelError> {
        let base = load_gltf_cached(&dir.join(format!("{stem}.glb")), &mut cache)?;
        let mut warnings = base.warnings.clone();
        let mut optional = |name: String| -> Option<ModelData> {
            let p = dir.join(name);
            if !p.exists() {
                return None;
            }
            match load_gltf_cached(&p, &mut cache) {
                Ok(m) => {
                    warnings.extend(m.warnings.iter().cloned());
                    Some(m)
                }
                Err(e) => {
                    tracing::warn!("{e}; left out");
                    warnings.push(ModelWarning {
                        path: p,
                        message: format!("{e}; left out"),
                    });
                    None
                }
            }
        };
        let mut lods = Vec::new();
        for i in 0..MAX_LODS {
            match optional(format!("{stem}_lod{i}.glb")) {
                Some(m) => lods.push(m),
                None => break,
            }
        }
        let shadow = optional(format!("{stem}_shadow.glb"));
        let cockpit = optional(format!("{stem}_cockpit.glb"));
        let body_from_mesh = pack_body_from_mesh();
        let camera_anchor = cockpit.as_ref().and_then(|c| {
            c.node_index("camera_anchor").map(|i| {
                body_from_mesh.transform_point3(c.node_model_matrix(i).transform_point3(Vec3::ZERO))
            })
        });
        Ok(ModelFamily {
            base,
            lods,
            shadow,
            cockpit,
            camera_anchor,
            body_from_mesh,
            warnings,
        })
    }
}

/// Projected radius (pixels) under which each coarser level is used: `_lod0` below 200 px,
/// `_lod1` below 60, `_lod2` below 20, …
pub const LOD_PIXEL_THRESHOLDS: [f32; 4] = [200.0, 60.0, 20.0, 6.0];

/// The level to draw: `None` for the base model, `Some(i)` for `lods[i]`. From the bounding
/// radius's projected size: `radius / (distance · tan(fov/2)) · height/2` pixels.
pub fn choose_lod(
    radius_m: f32,
    distance_m: f32,
    vertical_fov_rad: f32,
    viewport_height_px: u32,
    lod_count: usize,
) -> Option<usize> {
    if lod_count == 0 {
        return None;
    }
    let denom = distance_m.max(1e-3) * (0.5 * vertical_fov_rad).tan().max(1e-4);
    let px = radius_m / denom * viewport_height_px as f32 * 0.5;
    if !px.is_finite() {
        return None;
    }
    let level = LOD_PIXEL_THRESHOLDS.iter().filter(|&&t| px < t).count();
    (level > 0).then(|| (level - 1).min(lod_count - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lod_follows_screen_size() {
        let fov = 60f32.to_radians();
        // A 8 m radius at 10 m fills the screen: base. Far away: the coarsest available.
        assert_eq!(choose_lod(8.0, 10.0, fov, 720, 3), None);
        assert_eq!(choose_lod(8.0, 50.0, fov, 720, 3), Some(0));
        assert_eq!(choose_lod(8.0, 200.0, fov, 720, 3), Some(1));
        assert_eq!(choose_lod(8.0, 5000.0, fov, 720, 3), Some(2));
        assert_eq!(choose_lod(8.0, 5000.0, fov, 720, 1), Some(0));
        assert_eq!(choose_lod(8.0, 5000.0, fov, 720, 0), None);
        // Zoom (a narrow fov) brings the detail back.
        assert_eq!(choose_lod(8.0, 5000.0, 0.1f32.to_radians(), 720, 3), None);
        assert_eq!(choose_lod(8.0, f32::NAN, fov, 720, 3), None);
    }

    #[test]
    fn body_from_mesh_turns_the_nose_to_minus_z() {
        let m = pack_body_from_mesh();
        // The pack's nose at +Z (mesh) is forward, i.e. −Z in the body frame; its right wing
        // (glTF −X when facing +Z) is body +X; up stays up.
        assert!((m.transform_vector3(Vec3::Z) - Vec3::NEG_Z).length() < 1e-6);
        assert!((m.transform_vector3(Vec3::NEG_X) - Vec3::X).length() < 1e-6);
        assert!((m.transform_vector3(Vec3::Y) - Vec3::Y).length() < 1e-6);
    }
}
