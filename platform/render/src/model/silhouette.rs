//! Builtin category silhouettes: what is drawn for a type that has no model (or whose model
//! failed to load), so nothing is ever invisible. Simple box shapes in the body frame (X right,
//! Y up, Z aft, origin at the reference point), sized like a typical member of the category.

use std::path::PathBuf;

use glam::{Quat, Vec3};

use super::{AlphaMode, Material, MeshData, ModelData, Node, Primitive, Vertex};
use crate::frame::Category;

/// Appends an axis-aligned box (centre, half extents) with outward normals and CCW faces.
fn push_box(p: &mut Primitive, centre: Vec3, half: Vec3) {
    let faces: [(Vec3, Vec3, Vec3); 6] = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    for (n, u, v) in faces {
        let base = p.vertices.len() as u32;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let pos = centre + half * (n + u * su + v * sv);
            p.vertices.push(Vertex {
                position: pos.to_array(),
                normal: n.to_array(),
                uv: [0.5 + 0.5 * su, 0.5 - 0.5 * sv],
                tangent: [u.x, u.y, u.z, 1.0],
            });
        }
        p.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}

/// The silhouette model of a category.
pub fn silhouette(category: Category) -> ModelData {
    let mut p = Primitive {
        vertices: Vec::new(),
        indices: Vec::new(),
        material: Some(0),
        has_tangents: true,
    };
    let (color, boxes): ([f32; 4], &[(Vec3, Vec3)]) = match category {
        // Fuselage, wing, tailplane, fin: about a fighter's size, nose at −Z.
        Category::Aircraft => (
            [0.42, 0.45, 0.5, 1.0],
            &[
                (Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.6, 0.6, 7.5)),
                (Vec3::new(0.0, 0.0, 1.0), Vec3::new(4.5, 0.1, 1.8)),
                (Vec3::new(0.0, 0.0, 6.0), Vec3::new(2.6, 0.08, 1.0)),
                (Vec3::new(0.0, 1.6, 6.0), Vec3::new(0.08, 1.4, 1.0)),
            ],
        ),
        Category::GroundVehicle => (
            [0.36, 0.38, 0.3, 1.0],
            &[
                (Vec3::new(0.0, 0.9, 0.0), Vec3::new(1.4, 0.8, 3.2)),
                (Vec3::new(0.0, 2.0, 0.5), Vec3::new(0.9, 0.4, 1.2)),
            ],
        ),
        Category::Ship => (
            [0.4, 0.42, 0.45, 1.0],
            &[
                (Vec3::new(0.0, 1.0, 0.0), Vec3::new(6.0, 3.0, 40.0)),
                (Vec3::new(0.0, 6.0, 5.0), Vec3::new(3.5, 2.5, 8.0)),
            ],
        ),
        Category::Missile => (
            [0.8, 0.8, 0.78, 1.0],
            &[
                (Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.1, 0.1, 1.5)),
                (Vec3::new(0.0, 0.0, 1.3), Vec3::new(0.35, 0.02, 0.2)),
                (Vec3::new(0.0, 0.0, 1.3), Vec3::new(0.02, 0.35, 0.2)),
            ],
        ),
        Category::Structure => (
            [0.55, 0.52, 0.48, 1.0],
            &[(Vec3::new(0.0, 5.0, 0.0), Vec3::new(10.0, 5.0, 10.0))],
        ),
    };
    for &(c, h) in boxes {
        push_box(&mut p, c, h);
    }
    ModelData {
        path: PathBuf::from(format!("builtin:silhouette/{category:?}")),
        meshes: vec![MeshData {
            name: Some(format!("{category:?}")),
            primitives: vec![p],
        }],
        nodes: vec![Node {
            name: Some(format!("silhouette_{category:?}").to_lowercase()),
            parent: None,
            children: Vec::new(),
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            mesh: Some(0),
        }],
        roots: vec![0],
        materials: vec![Material {
            name: Some("silhouette".into()),
            base_color: color,
            metallic: 0.1,
            roughness: 0.7,
            alpha: AlphaMode::Opaque,
            ..Material::default()
        }],
        images: Vec::new(),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_category_has_a_closed_outward_shape() {
        for c in Category::ALL {
            let m = silhouette(c);
            let (lo, hi) = m.bounds().expect("non-empty");
            assert!((hi - lo).min_element() > 0.1, "{c:?} is flat");
            // Outward winding: each triangle's geometric normal agrees with its vertex normal.
            for p in &m.meshes[0].primitives {
                for t in p.indices.chunks_exact(3) {
                    let [a, b, cc] =
                        [t[0], t[1], t[2]].map(|i| Vec3::from(p.vertices[i as usize].position));
                    let n = (b - a).cross(cc - a);
                    assert!(
                        n.dot(Vec3::from(p.vertices[t[0] as usize].normal)) > 0.0,
                        "{c:?}"
                    );
                }
            }
        }
        // The aircraft's nose is forward (−Z): the fuselage reaches further forward than the fin.
        let (lo, _) = silhouette(Category::Aircraft).bounds().expect("bounds");
        assert!(lo.z < -7.0);
    }
}
