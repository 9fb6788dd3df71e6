//! A binary glTF 2.0 (`.glb`) writer for the generator's models: named nodes with translations,
//! meshes of per-material triangle lists (f32 positions and normals, u16 or u32 indices) and PBR
//! metallic-roughness materials. Nothing else of glTF is written. The JSON's keys keep their
//! insertion order and floats print the shortest round-trip form, so equal input gives equal
//! bytes.

use crate::mesh::{Patch, Surface, V3};
use serde_json::{Value, json};

/// A PBR metallic-roughness material.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name (shown by tools; the renderer ignores it).
    pub name: &'static str,
    /// Linear base colour and alpha.
    pub base: [f64; 4],
    /// Metallic factor.
    pub metallic: f64,
    /// Roughness factor.
    pub roughness: f64,
    /// Linear emissive colour.
    pub emissive: [f64; 3],
    /// Blended (glass). fl-render draws it opaque for now, so glass colours are chosen to read
    /// as dark glass either way.
    pub blend: bool,
    /// Drawn from both sides (thin panels).
    pub double_sided: bool,
}

/// A node of the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    /// The node's name (articulation and `camera_anchor` address nodes by name).
    pub name: String,
    /// Translation from the parent, metres.
    pub translation: V3,
    /// The node's geometry, in its own frame.
    pub surface: Option<Surface>,
    /// Child node indices.
    pub children: Vec<usize>,
}

/// Rounds to the f32 the file stores (through a 1e-5 grid first: the geometry is
/// computed in f64 and small differences in the last bits must not reach the file).
fn q(v: f64) -> f32 {
    (libm::round(v * 1e5) / 1e5) as f32
}

fn num(v: f64) -> Value {
    // Shortest form of the f32 value, printed as f64 digits (serde_json prints f64).
    let f = q(v);
    json!(f64::from(f))
}

struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn align(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
    }

    fn vec3(&mut self, data: &[V3], with_bounds: bool, unit: bool) -> usize {
        self.align();
        let offset = self.bytes.len();
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in data {
            let p = if unit { crate::mesh::normalize(*p) } else { *p };
            for k in 0..3 {
                let v = q(p[k]);
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
                self.bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": data.len() * 12,
            "target": 34962,
        }));
        let mut acc = json!({
            "bufferView": self.views.len() - 1,
            "componentType": 5126,
            "count": data.len(),
            "type": "VEC3",
        });
        if with_bounds {
            acc["min"] = json!(lo.map(f64::from));
            acc["max"] = json!(hi.map(f64::from));
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    fn indices(&mut self, idx: &[u32], vertices: usize) -> usize {
        self.align();
        let offset = self.bytes.len();
        let small = vertices <= usize::from(u16::MAX);
        for &i in idx {
            if small {
                self.bytes.extend_from_slice(&(i as u16).to_le_bytes());
            } else {
                self.bytes.extend_from_slice(&i.to_le_bytes());
            }
        }
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": self.bytes.len() - offset,
            "target": 34963,
        }));
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1,
            "componentType": if small { 5123 } else { 5125 },
            "count": idx.len(),
            "type": "SCALAR",
        }));
        self.accessors.len() - 1
    }
}

/// Writes a `.glb`: `nodes[roots]` form the scene; materials are indexed by the surfaces'
/// material ids.
pub fn write(nodes: &[Node], roots: &[usize], materials: &[Material], generator: &str) -> Vec<u8> {
    let mut bin = Bin {
        bytes: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
    };
    let mut meshes = Vec::new();
    let mut node_json = Vec::new();
    for node in nodes {
        let mut n = json!({ "name": node.name });
        if node.translation != [0.0; 3] {
            n["translation"] = json!(node.translation.map(|v| f64::from(q(v))));
        }
        if !node.children.is_empty() {
            n["children"] = json!(node.children);
        }
        if let Some(s) = &node.surface {
            let prims: Vec<Value> = s
                .split()
                .into_iter()
                .map(|(m, Patch { pos, nrm, idx })| {
                    let p = bin.vec3(&pos, true, false);
                    let nn = bin.vec3(&nrm, false, true);
                    let i = bin.indices(&idx, pos.len());
                    json!({
                        "attributes": { "POSITION": p, "NORMAL": nn },
                        "indices": i,
                        "material": m,
                        "mode": 4,
                    })
                })
                .collect();
            meshes.push(json!({ "name": node.name, "primitives": prims }));
            n["mesh"] = json!(meshes.len() - 1);
        }
        node_json.push(n);
    }
    bin.align();
    let mats: Vec<Value> = materials
        .iter()
        .map(|m| {
            let mut v = json!({
                "name": m.name,
                "pbrMetallicRoughness": {
                    "baseColorFactor": m.base.map(num),
                    "metallicFactor": num(m.metallic),
                    "roughnessFactor": num(m.roughness),
                },
            });
            if m.emissive != [0.0; 3] {
                v["emissiveFactor"] = json!(m.emissive.map(num));
            }
            if m.blend {
                v["alphaMode"] = json!("BLEND");
            }
            if m.double_sided {
                v["doubleSided"] = json!(true);
            }
            v
        })
        .collect();
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": generator },
        "scene": 0,
        "scenes": [ { "nodes": roots } ],
        "nodes": node_json,
        "materials": mats,
        "buffers": [ { "byteLength": bin.bytes.len() } ],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    if !meshes.is_empty() {
        doc["meshes"] = json!(meshes);
    }
    if bin.bytes.is_empty() {
        // A node-only file (no geometry) has no buffer.
        if let Some(o) = doc.as_object_mut() {
            o.remove("buffers");
            o.remove("bufferViews");
            o.remove("accessors");
        }
    }
    let mut text = doc.to_string().into_bytes();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let has_bin = !bin.bytes.is_empty();
    let total = 12 + 8 + text.len() + if has_bin { 8 + bin.bytes.len() } else { 0 };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if has_bin {
        out.extend_from_slice(&(bin.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin.bytes);
    }
    out
}
