//! Triangle surfaces built from lofted cross-sections: the one geometry kernel of the generator.
//!
//! Owns: lofting rings of points into a skin (optionally closed around, optionally ending in an
//! apex), orienting each skin so its front faces (counter-clockwise, glTF's rule) face away from
//! (or, for ducts, towards) the rings' centres, smooth area-weighted normals within a skin, flat
//! caps, mirroring across the symmetry plane (winding kept front-facing), and splitting a
//! surface into one triangle list per material. Everything is f64 and uses only IEEE-exact
//! operations and `libm`, so the output is the same bits on every platform.

/// A point or direction, metres (x, y, z).
pub type V3 = [f64; 3];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn length(a: V3) -> f64 {
    libm::sqrt(dot(a, a))
}

/// `a` scaled to unit length; a zero vector stays zero.
pub fn normalize(a: V3) -> V3 {
    let l = length(a);
    if l > 1e-12 {
        scale(a, 1.0 / l)
    } else {
        [0.0; 3]
    }
}

/// Which way a skin's front faces point, relative to the centre of each ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facing {
    /// Away from the centre: an outer skin seen from outside.
    Outward,
    /// Towards the centre: the inside of a duct or a cockpit tub, seen from within.
    Inward,
}

/// A triangle surface with one material per triangle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    /// Vertex positions.
    pub pos: Vec<V3>,
    /// Unit vertex normals.
    pub nrm: Vec<V3>,
    /// Triangles (counter-clockwise seen from the front).
    pub tri: Vec<[u32; 3]>,
    /// Material of each triangle.
    pub mat: Vec<usize>,
}

/// One material's triangles with their own vertices: what becomes a glTF primitive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    /// Vertex positions.
    pub pos: Vec<V3>,
    /// Unit vertex normals.
    pub nrm: Vec<V3>,
    /// Triangle indices.
    pub idx: Vec<u32>,
}

impl Surface {
    /// Appends `other` (its own vertices; no welding).
    pub fn append(&mut self, other: &Surface) {
        let base = self.pos.len() as u32;
        self.pos.extend_from_slice(&other.pos);
        self.nrm.extend_from_slice(&other.nrm);
        self.tri.extend(
            other
                .tri
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
        self.mat.extend_from_slice(&other.mat);
    }

    /// The mirror image across the x = 0 plane, still front-facing outwards.
    pub fn mirrored_x(&self) -> Surface {
        Surface {
            pos: self.pos.iter().map(|p| [-p[0], p[1], p[2]]).collect(),
            nrm: self.nrm.iter().map(|n| [-n[0], n[1], n[2]]).collect(),
            // A reflection reverses the winding; swapping two corners restores it.
            tri: self.tri.iter().map(|t| [t[0], t[2], t[1]]).collect(),
            mat: self.mat.clone(),
        }
    }

    /// Moved by `d`.
    pub fn translated(&self, d: V3) -> Surface {
        let mut s = self.clone();
        for p in &mut s.pos {
            *p = add(*p, d);
        }
        s
    }

    /// One patch per material, in material order (vertices shared only within a material).
    pub fn split(&self) -> Vec<(usize, Patch)> {
        let mut mats: Vec<usize> = self.mat.clone();
        mats.sort_unstable();
        mats.dedup();
        mats.into_iter()
            .map(|m| {
                let mut remap = vec![u32::MAX; self.pos.len()];
                let mut patch = Patch::default();
                for (t, &tm) in self.tri.iter().zip(&self.mat) {
                    if tm != m {
                        continue;
                    }
                    for &v in t {
                        let v = v as usize;
                        if remap[v] == u32::MAX {
                            remap[v] = patch.pos.len() as u32;
                            patch.pos.push(self.pos[v]);
                            patch.nrm.push(self.nrm[v]);
                        }
                        patch.idx.push(remap[v]);
                    }
                }
                (m, patch)
            })
            .collect()
    }

    /// Geometric (winding) normal of triangle `i`, scaled by twice its area.
    pub fn face_normal(&self, i: usize) -> V3 {
        let [a, b, c] = self.tri[i].map(|v| self.pos[v as usize]);
        cross(sub(b, a), sub(c, a))
    }

    fn smooth_normals(&mut self) {
        let mut acc = vec![[0.0; 3]; self.pos.len()];
        for i in 0..self.tri.len() {
            let n = self.face_normal(i);
            for &v in &self.tri[i] {
                acc[v as usize] = add(acc[v as usize], n);
            }
        }
        self.nrm = acc.into_iter().map(normalize).collect();
    }
}

/// Skins `rings` (each the same number of points, in the same rotational order) into a surface.
/// `closed`: the last point of a ring joins the first. `apex_front`/`apex_back`: a point the first
/// or last ring closes onto (a nose tip). `mat(i, j)` gives the material of the quad between rings
/// `i` and `i + 1` starting at point `j` (the apex fans count as ring −1 and `rings.len() − 1`).
/// The winding is chosen so front faces point as `facing` says relative to each ring's centroid.
pub fn loft(
    rings: &[Vec<V3>],
    closed: bool,
    apex_front: Option<V3>,
    apex_back: Option<V3>,
    facing: Facing,
    mat: &dyn Fn(isize, usize) -> usize,
) -> Surface {
    let mut s = Surface::default();
    let Some(n) = rings.first().map(Vec::len) else {
        return s;
    };
    if n < 2 || rings.iter().any(|r| r.len() != n) {
        return s;
    }
    let centres: Vec<V3> = rings
        .iter()
        .map(|r| scale(r.iter().fold([0.0; 3], |a, p| add(a, *p)), 1.0 / n as f64))
        .collect();
    for r in rings {
        s.pos.extend_from_slice(r);
    }
    let segs = if closed { n } else { n - 1 };
    let at = |i: usize, j: usize| (i * n + j % n) as u32;
    // Each triangle remembers the ring centre it is judged against.
    let mut judge: Vec<V3> = Vec::new();
    for i in 0..rings.len().saturating_sub(1) {
        let c = scale(add(centres[i], centres[i + 1]), 0.5);
        for j in 0..segs {
            let (a, b, cc, d) = (at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
            let m = mat(i as isize, j);
            s.tri.push([a, b, cc]);
            s.tri.push([a, cc, d]);
            s.mat.extend([m, m]);
            judge.extend([c, c]);
        }
    }
    if let Some(p) = apex_front {
        let v = s.pos.len() as u32;
        s.pos.push(p);
        for j in 0..segs {
            s.tri.push([v, at(0, j + 1), at(0, j)]);
            s.mat.push(mat(-1, j));
            judge.push(centres[0]);
        }
    }
    if let Some(p) = apex_back {
        let last = rings.len() - 1;
        let v = s.pos.len() as u32;
        s.pos.push(p);
        for j in 0..segs {
            s.tri.push([v, at(last, j), at(last, j + 1)]);
            s.mat.push(mat(last as isize, j));
            judge.push(centres[last]);
        }
    }
    // Orientation by area-weighted vote: the rings' point order decides the winding, and a
    // caller should not have to reason about it.
    let mut vote = 0.0;
    for (i, c) in judge.iter().enumerate() {
        let [a, b, d] = s.tri[i].map(|v| s.pos[v as usize]);
        let centroid = scale(add(add(a, b), d), 1.0 / 3.0);
        vote += dot(s.face_normal(i), sub(centroid, *c));
    }
    let want_out = facing == Facing::Outward;
    if (vote < 0.0) == want_out {
        for t in &mut s.tri {
            t.swap(1, 2);
        }
    }
    s.smooth_normals();
    s
}

/// A flat cap over the polygon `ring` (convex enough to fan from its centroid), its own
/// vertices with the flat normal, facing along `towards`.
pub fn cap(ring: &[V3], towards: V3, mat: usize) -> Surface {
    let n = ring.len();
    let mut s = Surface::default();
    if n < 3 {
        return s;
    }
    let c = scale(
        ring.iter().fold([0.0; 3], |a, p| add(a, *p)),
        1.0 / n as f64,
    );
    let mut normal = [0.0; 3];
    for j in 0..n {
        normal = add(normal, cross(sub(ring[j], c), sub(ring[(j + 1) % n], c)));
    }
    let flip = dot(normal, towards) < 0.0;
    let normal = normalize(if flip { scale(normal, -1.0) } else { normal });
    s.pos.push(c);
    s.pos.extend_from_slice(ring);
    s.nrm = vec![normal; n + 1];
    for j in 0..n {
        let (a, b) = (1 + j as u32, 1 + ((j + 1) % n) as u32);
        s.tri.push(if flip { [0, b, a] } else { [0, a, b] });
        s.mat.push(mat);
    }
    s
}

/// A closed cylinder from `a` to `b` of radius `r` with `n` sides.
pub fn cylinder(a: V3, b: V3, r: f64, n: usize, mat: usize) -> Surface {
    let axis = normalize(sub(b, a));
    let helper = if libm::fabs(axis[1]) < 0.9 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let u = normalize(cross(axis, helper));
    let v = cross(axis, u);
    let ring = |c: V3| -> Vec<V3> {
        (0..n)
            .map(|j| {
                let t = 2.0 * core::f64::consts::PI * j as f64 / n as f64;
                add(
                    c,
                    add(scale(u, r * libm::cos(t)), scale(v, r * libm::sin(t))),
                )
            })
            .collect()
    };
    let (ra, rb) = (ring(a), ring(b));
    let mut s = loft(
        &[ra.clone(), rb.clone()],
        true,
        None,
        None,
        Facing::Outward,
        &|_, _| mat,
    );
    s.append(&cap(&ra, scale(axis, -1.0), mat));
    s.append(&cap(&rb, axis, mat));
    s
}

/// An axis-aligned box from `lo` to `hi`, flat-shaded.
pub fn cuboid(lo: V3, hi: V3, mat: usize) -> Surface {
    let mut s = Surface::default();
    let faces: [(V3, [V3; 4]); 6] = [
        (
            [1.0, 0.0, 0.0],
            [
                [hi[0], lo[1], lo[2]],
                [hi[0], hi[1], lo[2]],
                [hi[0], hi[1], hi[2]],
                [hi[0], lo[1], hi[2]],
            ],
        ),
        (
            [-1.0, 0.0, 0.0],
            [
                [lo[0], lo[1], lo[2]],
                [lo[0], lo[1], hi[2]],
                [lo[0], hi[1], hi[2]],
                [lo[0], hi[1], lo[2]],
            ],
        ),
        (
            [0.0, 1.0, 0.0],
            [
                [lo[0], hi[1], lo[2]],
                [lo[0], hi[1], hi[2]],
                [hi[0], hi[1], hi[2]],
                [hi[0], hi[1], lo[2]],
            ],
        ),
        (
            [0.0, -1.0, 0.0],
            [
                [lo[0], lo[1], lo[2]],
                [hi[0], lo[1], lo[2]],
                [hi[0], lo[1], hi[2]],
                [lo[0], lo[1], hi[2]],
            ],
        ),
        (
            [0.0, 0.0, 1.0],
            [
                [lo[0], lo[1], hi[2]],
                [hi[0], lo[1], hi[2]],
                [hi[0], hi[1], hi[2]],
                [lo[0], hi[1], hi[2]],
            ],
        ),
        (
            [0.0, 0.0, -1.0],
            [
                [lo[0], lo[1], lo[2]],
                [lo[0], hi[1], lo[2]],
                [hi[0], hi[1], lo[2]],
                [hi[0], lo[1], lo[2]],
            ],
        ),
    ];
    for (n, quad) in faces {
        s.append(&cap(&quad, n, mat));
    }
    s
}

/// Rotates `p` about the x axis through `pivot` by `angle` radians (y towards z).
pub fn rotate_x(p: V3, pivot: V3, angle: f64) -> V3 {
    let d = sub(p, pivot);
    let (s, c) = (libm::sin(angle), libm::cos(angle));
    add(pivot, [d[0], d[1] * c - d[2] * s, d[1] * s + d[2] * c])
}

impl Surface {
    /// Every vertex (and normal) rotated about the x axis through `pivot`.
    pub fn rotated_x(&self, pivot: V3, angle: f64) -> Surface {
        let mut s = self.clone();
        for p in &mut s.pos {
            *p = rotate_x(*p, pivot, angle);
        }
        for n in &mut s.nrm {
            *n = rotate_x(*n, [0.0; 3], angle);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consistent(s: &Surface) -> bool {
        (0..s.tri.len()).all(|i| {
            let f = s.face_normal(i);
            s.tri[i].iter().all(|&v| dot(f, s.nrm[v as usize]) > 0.0)
        })
    }

    #[test]
    fn a_cylinder_faces_out_and_its_normals_agree_with_its_winding() {
        let s = cylinder([0.0; 3], [0.0, 0.0, 2.0], 1.0, 12, 0);
        assert!(consistent(&s));
        for i in 0..s.tri.len() {
            let [a, b, c] = s.tri[i].map(|v| s.pos[v as usize]);
            let centroid = scale(add(add(a, b), c), 1.0 / 3.0);
            assert!(dot(s.face_normal(i), sub(centroid, [0.0, 0.0, 1.0])) > 0.0);
        }
    }

    #[test]
    fn mirroring_keeps_faces_outward() {
        let s = cylinder([1.0, 0.0, 0.0], [3.0, 0.0, 0.0], 0.5, 8, 0).mirrored_x();
        assert!(consistent(&s));
        for i in 0..s.tri.len() {
            let [a, b, c] = s.tri[i].map(|v| s.pos[v as usize]);
            let centroid = scale(add(add(a, b), c), 1.0 / 3.0);
            assert!(dot(s.face_normal(i), sub(centroid, [-2.0, 0.0, 0.0])) > 0.0);
        }
    }

    #[test]
    fn an_inward_loft_faces_its_axis() {
        let ring = |z: f64| -> Vec<V3> {
            (0..8)
                .map(|j| {
                    let t = j as f64 * core::f64::consts::PI / 4.0;
                    [libm::cos(t), libm::sin(t), z]
                })
                .collect()
        };
        let s = loft(
            &[ring(0.0), ring(1.0)],
            true,
            None,
            None,
            Facing::Inward,
            &|_, _| 0,
        );
        assert!(consistent(&s));
        assert!(
            s.nrm
                .iter()
                .zip(&s.pos)
                .all(|(n, p)| n[0] * p[0] + n[1] * p[1] < 0.0)
        );
    }

    #[test]
    fn split_keeps_every_triangle_once() {
        let mut s = cuboid([0.0; 3], [1.0; 3], 2);
        s.append(&cylinder([0.0; 3], [0.0, 1.0, 0.0], 0.2, 6, 0));
        let parts = s.split();
        assert_eq!(parts.iter().map(|(m, _)| *m).collect::<Vec<_>>(), [0, 2]);
        let tris: usize = parts.iter().map(|(_, p)| p.idx.len() / 3).sum();
        assert_eq!(tris, s.tri.len());
    }
}
