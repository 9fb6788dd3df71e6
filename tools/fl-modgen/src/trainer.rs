//! The jet trainer's airframe and cockpit, as glTF models: a generic low-wing, tandem two-seat,
//! single-engine jet trainer of the Hawk class, designed here (no real aircraft's drawings).
//!
//! Owns: the airframe's dimensions (the same numbers the pack's flight model uses: 9.4 m span,
//! 12.0 m long, CG 6.3 m aft of the nose, gear 3.6 m ahead of / 0.35 m behind it, 2.9 m track,
//! CG 1.25 m above the ground on its wheels), the paint scheme, the levels of detail and the
//! cockpit with its `camera_anchor`.
//!
//! Axes follow the pack convention (docs/render.md, "Mesh axes"): +Y up, the nose towards +Z,
//! the right wing towards −X. Unlike the fixture pack's meshes, whose origin sits near the nose,
//! our origin is the centre of gravity, the flight model's reference point, so the model turns
//! about the point the simulation turns it about and the wheels touch the ground the flight
//! model's gear stands on.

use crate::glb::{self, Material, Node};
use crate::mesh::{self, Facing, Surface, V3, add, cap, cylinder, loft, scale};
use core::f64::consts::PI;

/// Overall length, nose tip to nozzle, m.
pub const LENGTH_M: f64 = 12.0;
/// Wingspan, m.
pub const SPAN_M: f64 = 9.4;
/// Station (metres aft of the nose tip) of the centre of gravity = the mesh origin.
pub const CG_STATION_M: f64 = 6.3;
/// Height of the CG above the ground with the aircraft on its wheels, m.
pub const CG_HEIGHT_M: f64 = 1.25;
/// Nose wheel ahead of the CG, m.
pub const NOSE_GEAR_AHEAD_M: f64 = 3.6;
/// Main wheels behind the CG, m.
pub const MAIN_GEAR_BEHIND_M: f64 = 0.35;
/// Main wheel track, m.
pub const MAIN_TRACK_M: f64 = 2.9;
/// The front pilot's eye (station, height above the CG line).
pub const EYE: (f64, f64) = (3.55, 0.76);

/// Material indices (the order of [`materials`]).
pub mod mat {
    pub const WHITE: usize = 0;
    pub const RED: usize = 1;
    pub const GLASS: usize = 2;
    pub const ANTIGLARE: usize = 3;
    pub const DUCT: usize = 4;
    pub const NOZZLE: usize = 5;
    pub const GEAR: usize = 6;
    pub const TYRE: usize = 7;
    pub const FRAME: usize = 8;
    pub const PANEL: usize = 9;
    pub const DIAL: usize = 10;
    pub const DIAL_RIM: usize = 11;
    pub const SCREEN: usize = 12;
}

/// The trainer's materials: a gloss white and red scheme, dark tinted glass.
pub fn materials() -> Vec<Material> {
    let m = |name, base: [f64; 4], metallic, roughness| Material {
        name,
        base,
        metallic,
        roughness,
        emissive: [0.0; 3],
        blend: false,
        double_sided: false,
    };
    vec![
        m("paint_white", [0.80, 0.80, 0.78, 1.0], 0.0, 0.35),
        m("paint_red", [0.62, 0.035, 0.03, 1.0], 0.0, 0.35),
        Material {
            // Dark tinted acrylic. Blended in the file; fl-render draws blended materials opaque
            // for now, where this reads as dark, glossy glass.
            blend: true,
            ..m("canopy_glass", [0.02, 0.03, 0.045, 0.55], 0.0, 0.04)
        },
        m("antiglare_black", [0.02, 0.02, 0.02, 1.0], 0.0, 0.8),
        m("intake_dark", [0.015, 0.015, 0.015, 1.0], 0.0, 0.9),
        m("nozzle_metal", [0.18, 0.17, 0.16, 1.0], 0.9, 0.45),
        m("gear_grey", [0.45, 0.46, 0.47, 1.0], 0.7, 0.4),
        m("tyre_rubber", [0.025, 0.025, 0.025, 1.0], 0.0, 0.9),
        m("frame_grey", [0.12, 0.12, 0.13, 1.0], 0.3, 0.5),
        m("panel_grey", [0.05, 0.055, 0.06, 1.0], 0.0, 0.7),
        m("dial_face", [0.01, 0.01, 0.01, 1.0], 0.0, 0.3),
        m("dial_rim", [0.6, 0.6, 0.6, 1.0], 0.8, 0.3),
        Material {
            emissive: [0.03, 0.12, 0.05],
            ..m("screen", [0.01, 0.02, 0.01, 1.0], 0.0, 0.2)
        },
    ]
}

/// How finely the surfaces are divided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detail {
    /// Points around a fuselage ring.
    pub ring: usize,
    /// Fuselage rings from nose to tail.
    pub stations: usize,
    /// Points along each side of an airfoil.
    pub foil: usize,
    /// Sections along a wing or tail half-span.
    pub spans: usize,
    /// Landing gear drawn.
    pub gear: bool,
}

/// The base model, `_lod0`, `_lod1`, `_lod2`.
pub const DETAILS: [Detail; 4] = [
    Detail {
        ring: 32,
        stations: 44,
        foil: 12,
        spans: 7,
        gear: true,
    },
    Detail {
        ring: 20,
        stations: 24,
        foil: 8,
        spans: 4,
        gear: true,
    },
    Detail {
        ring: 12,
        stations: 12,
        foil: 5,
        spans: 3,
        gear: true,
    },
    Detail {
        ring: 8,
        stations: 8,
        foil: 3,
        spans: 2,
        gear: false,
    },
];

/// Mesh z of a station (metres aft of the nose tip).
fn z(s: f64) -> f64 {
    CG_STATION_M - s
}

/// Linear interpolation in a table of (station, values), smoothed by a cubic ease per interval
/// so the lofted skin has no visible kinks at the keys.
fn table<const N: usize>(keys: &[(f64, [f64; N])], s: f64) -> [f64; N] {
    let first = keys[0];
    if s <= first.0 {
        return first.1;
    }
    for w in keys.windows(2) {
        let (a, b) = (w[0], w[1]);
        if s <= b.0 {
            let t = (s - a.0) / (b.0 - a.0);
            // Catmull-Rom style tangent would overshoot at the nose; a blend of linear and
            // smoothstep keeps the profile monotone between keys yet soft.
            let e = 0.5 * t + 0.5 * t * t * (3.0 - 2.0 * t);
            return std::array::from_fn(|k| a.1[k] + (b.1[k] - a.1[k]) * e);
        }
    }
    keys[keys.len() - 1].1
}

/// Fuselage cross-section at station `s`: half-width, top y, bottom y.
fn fuselage_section(s: f64) -> [f64; 3] {
    const KEYS: [(f64, [f64; 3]); 14] = [
        (0.0, [0.0, -0.05, -0.05]),
        (0.25, [0.15, 0.07, -0.17]),
        (0.7, [0.27, 0.19, -0.31]),
        (1.4, [0.39, 0.33, -0.46]),
        (2.2, [0.47, 0.45, -0.57]),
        (2.9, [0.52, 0.52, -0.63]),
        (4.0, [0.56, 0.56, -0.67]),
        (5.2, [0.60, 0.57, -0.69]),
        (6.6, [0.62, 0.57, -0.68]),
        (8.0, [0.57, 0.54, -0.60]),
        (9.4, [0.47, 0.47, -0.45]),
        (10.7, [0.37, 0.38, -0.31]),
        (11.6, [0.31, 0.30, -0.24]),
        (12.0, [0.29, 0.27, -0.21]),
    ];
    table(&KEYS, s)
}

/// A superellipse ring (exponent 2.6: fuller than an ellipse, as a fuselage is) around the
/// section; point 0 on the right side (−x), going over the top.
fn fuselage_ring(s: f64, n: usize) -> Vec<V3> {
    let [w, top, bottom] = fuselage_section(s);
    let yc = 0.5 * (top + bottom);
    let (ht, hb) = (top - yc, yc - bottom);
    (0..n)
        .map(|j| {
            let t = 2.0 * PI * j as f64 / n as f64;
            let (c, sn) = (libm::cos(t), libm::sin(t));
            let e = 2.0 / 2.6;
            let x = -w * c.signum() * libm::pow(libm::fabs(c), e);
            let h = if sn >= 0.0 { ht } else { hb };
            let y = yc + h * sn.signum() * libm::pow(libm::fabs(sn), e);
            [x, y, z(s)]
        })
        .collect()
}

/// Ring angle of point `j` of `n` (0 = right side, π/2 = top).
fn ring_angle(j: f64, n: usize) -> f64 {
    2.0 * PI * j / n as f64
}

fn fuselage(d: Detail) -> Surface {
    // Stations crowd towards the nose, where the curvature is.
    let stations: Vec<f64> = (1..=d.stations)
        .map(|i| {
            let u = i as f64 / d.stations as f64;
            LENGTH_M * (0.55 * u + 0.45 * u * u)
        })
        .collect();
    let rings: Vec<Vec<V3>> = stations.iter().map(|&s| fuselage_ring(s, d.ring)).collect();
    let n = d.ring;
    let mid = |i: isize| -> f64 {
        let a = if i < 0 { 0.0 } else { stations[i as usize] };
        let b = stations[(i + 1).clamp(0, stations.len() as isize - 1) as usize];
        0.5 * (a + b)
    };
    let paint = move |i: isize, j: usize| -> usize {
        let s = mid(i);
        let a = ring_angle(j as f64 + 0.5, n);
        let top = libm::fabs(a - PI / 2.0);
        // Red nose, a red cheat line along each side, black anti-glare ahead of the windscreen.
        if s < 1.3 {
            mat::RED
        } else if (1.3..2.75).contains(&s) && top < 0.55 {
            mat::ANTIGLARE
        } else if (1.6..10.4).contains(&s)
            && d.ring >= 12
            && (libm::fabs(a - PI / n as f64) < 1e-6 || libm::fabs(a - (PI - PI / n as f64)) < 1e-6)
        {
            // One quad wide, just above the widest line of each side.
            mat::RED
        } else {
            mat::WHITE
        }
    };
    let tip = fuselage_section(0.0);
    loft(
        &rings,
        true,
        Some([0.0, tip[1], z(0.0)]),
        None,
        Facing::Outward,
        &paint,
    )
}

/// The canopy's half-width and height above its base line at station `s` (glass before 6.15,
/// then the dorsal spine fairing).
fn canopy_section(s: f64) -> [f64; 2] {
    const KEYS: [(f64, [f64; 2]); 10] = [
        (2.65, [0.26, 0.0]),
        (2.95, [0.40, 0.22]),
        (3.5, [0.45, 0.44]),
        (4.4, [0.46, 0.48]),
        (5.2, [0.45, 0.56]),
        (5.8, [0.42, 0.48]),
        (6.3, [0.36, 0.26]),
        (7.2, [0.30, 0.12]),
        (8.4, [0.20, 0.04]),
        (9.2, [0.12, 0.0]),
    ];
    table(&KEYS, s)
}

/// Half ring of the canopy (from the right sill over the top to the left sill), with a wall
/// at each side going down into the fuselage (whose sides fall away below its top line).
fn canopy_ring(s: f64, n: usize, grow: f64) -> Vec<V3> {
    let [w, h] = canopy_section(s);
    let base = fuselage_section(s)[1] - 0.06;
    let wall = [-(w + grow), base - 0.25, z(s)];
    std::iter::once(wall)
        .chain((0..=n).map(|j| {
            let t = PI * j as f64 / n as f64;
            [
                -(w + grow) * libm::cos(t),
                base + (h + grow) * libm::sin(t),
                z(s),
            ]
        }))
        .chain(std::iter::once([w + grow, base - 0.25, z(s)]))
        .collect()
}

const GLASS_END: f64 = 6.15;

fn canopy(d: Detail) -> Surface {
    let n = (d.ring / 2).max(4);
    let count = (d.stations / 2).max(6);
    let stations: Vec<f64> = (0..=count)
        .map(|i| 2.65 + (9.2 - 2.65) * i as f64 / count as f64)
        .collect();
    let rings: Vec<Vec<V3>> = stations.iter().map(|&s| canopy_ring(s, n, 0.0)).collect();
    let st = stations.clone();
    let mut s = loft(&rings, false, None, None, Facing::Outward, &move |i, _| {
        let mid = 0.5 * (st[i.max(0) as usize] + st[(i + 1) as usize]);
        if mid < GLASS_END {
            mat::GLASS
        } else {
            mat::WHITE
        }
    });
    if d.ring >= 12 {
        // Frames: the windscreen's rear arch and the bow between the two seats.
        for at in [3.05, 4.45, GLASS_END - 0.03] {
            let r: Vec<Vec<V3>> = [at - 0.04, at + 0.04]
                .iter()
                .map(|&s| canopy_ring(s, n, 0.012))
                .collect();
            s.append(&loft(&r, false, None, None, Facing::Outward, &|_, _| {
                mat::FRAME
            }));
        }
    }
    s
}

/// The points of an airfoil ring: (chordwise 0…1, side +1 upper / −1 lower), from the trailing
/// edge over the upper side to the leading edge and back under (cosine spacing: dense at the
/// leading edge, where the curvature is).
fn airfoil(points: usize) -> Vec<(f64, f64)> {
    let xs: Vec<f64> = (0..=points)
        .map(|i| 0.5 * (1.0 - libm::cos(PI * i as f64 / points as f64)))
        .collect();
    let mut out: Vec<(f64, f64)> = xs.iter().rev().map(|&x| (x, 1.0)).collect();
    // The lower side skips the leading edge (shared) and the trailing edge (the ring closes).
    out.extend(xs.iter().skip(1).take(points - 1).map(|&x| (x, -1.0)));
    out
}

/// A lifting surface's planform.
struct Planform {
    /// Root and tip leading-edge stations, chords, thickness ratios.
    root_le: f64,
    tip_le: f64,
    root_chord: f64,
    tip_chord: f64,
    root_t: f64,
    tip_t: f64,
    /// Where the root section sits and where the tip is, relative to it, in the plane normal to
    /// the chord: (lateral, vertical) for the root and the tip.
    root: (f64, f64),
    tip: (f64, f64),
    /// Span fraction from which the surface is painted red.
    red_from: f64,
    /// Vertical surface (the fin): the thickness is along x, the span along y.
    vertical: bool,
}

fn lifting_surface(p: &Planform, d: Detail) -> Surface {
    let mut sections: Vec<f64> = (0..=d.spans).map(|i| i as f64 / d.spans as f64).collect();
    if p.red_from < 1.0 && d.ring >= 12 {
        sections.push(p.red_from);
    }
    sections.sort_by(f64::total_cmp);
    sections.dedup_by(|a, b| libm::fabs(*a - *b) < 1e-9);
    let foil = airfoil(d.foil);
    let lerp = |a: f64, b: f64, u: f64| a + (b - a) * u;
    let rings: Vec<Vec<V3>> = sections
        .iter()
        .map(|&u| {
            let le = lerp(p.root_le, p.tip_le, u);
            let chord = lerp(p.root_chord, p.tip_chord, u);
            let t = lerp(p.root_t, p.tip_t, u);
            let lat = lerp(p.root.0, p.tip.0, u);
            let vert = lerp(p.root.1, p.tip.1, u);
            foil.iter()
                .map(|&(x, side)| {
                    let th = airfoil_half(t, x) * chord * side;
                    if p.vertical {
                        [th, vert, z(le + x * chord)]
                    } else {
                        [lat, vert + th, z(le + x * chord)]
                    }
                })
                .collect()
        })
        .collect();
    let secs = sections.clone();
    let red_from = p.red_from;
    let mut s = loft(&rings, true, None, None, Facing::Outward, &move |i, _| {
        let mid = 0.5 * (secs[i.max(0) as usize] + secs[(i + 1) as usize]);
        if mid > red_from { mat::RED } else { mat::WHITE }
    });
    if let Some(last) = rings.last() {
        let out = if p.vertical {
            [0.0, 1.0, 0.0]
        } else {
            [p.tip.0 - p.root.0, p.tip.1 - p.root.1, 0.0]
        };
        let colour = if red_from < 1.0 { mat::RED } else { mat::WHITE };
        s.append(&cap(last, out, colour));
    }
    s
}

/// Half-thickness of a symmetric NACA 4-digit section of thickness ratio `t` at chordwise `x`
/// (a sliver at the trailing edge, so the ring never folds onto itself).
fn airfoil_half(t: f64, x: f64) -> f64 {
    (5.0 * t
        * (0.2969 * libm::sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x
            - 0.1036 * x * x * x * x))
        .max(0.0015)
}

fn wings(d: Detail) -> Surface {
    let half = SPAN_M / 2.0;
    let dihedral = libm::tan(2.5f64.to_radians());
    let right = lifting_surface(
        &Planform {
            root_le: 4.95,
            tip_le: 4.95 + (half - 0.3) * libm::tan(26f64.to_radians()),
            root_chord: 2.9,
            tip_chord: 1.0,
            root_t: 0.11,
            tip_t: 0.09,
            root: (-0.3, -0.42),
            tip: (-half, -0.42 + (half - 0.3) * dihedral),
            red_from: 0.85,
            vertical: false,
        },
        d,
    );
    let mut s = right.mirrored_x();
    s.append(&right);
    s
}

fn tailplane(d: Detail) -> Surface {
    let half = 2.2;
    let anhedral = libm::tan((-6f64).to_radians());
    let right = lifting_surface(
        &Planform {
            root_le: 10.15,
            tip_le: 10.15 + (half - 0.2) * libm::tan(32f64.to_radians()),
            root_chord: 1.45,
            tip_chord: 0.6,
            root_t: 0.09,
            tip_t: 0.08,
            root: (-0.2, -0.02),
            tip: (-half, -0.02 + (half - 0.2) * anhedral),
            red_from: 0.8,
            vertical: false,
        },
        d,
    );
    let mut s = right.mirrored_x();
    s.append(&right);
    s
}

fn fin(d: Detail) -> Surface {
    let height = 2.2;
    lifting_surface(
        &Planform {
            root_le: 8.9,
            tip_le: 8.9 + height * libm::tan(42f64.to_radians()),
            root_chord: 2.6,
            tip_chord: 0.95,
            root_t: 0.09,
            tip_t: 0.08,
            root: (0.0, 0.2),
            tip: (0.0, 0.2 + height),
            red_from: 0.72,
            vertical: true,
        },
        d,
    )
}

/// The right intake (mirrored for the left): a D-shaped lip on the fuselage side ahead of the
/// wing root, a dark duct behind it, and a fairing that blends back into the fuselage.
fn intake(d: Detail) -> Surface {
    let n = (d.ring / 2).max(6);
    // (station, half-width, half-height, how far the centre stands off the fuselage side).
    let keys: [(f64, f64, f64, f64); 6] = [
        (4.35, 0.17, 0.30, 0.10),
        (4.6, 0.19, 0.31, 0.10),
        (5.1, 0.18, 0.30, 0.07),
        (5.8, 0.14, 0.27, 0.02),
        (6.6, 0.09, 0.22, -0.04),
        (7.4, 0.04, 0.15, -0.08),
    ];
    let ring = |s: f64, w: f64, h: f64, off: f64, k: f64| -> Vec<V3> {
        let [fw, top, bottom] = fuselage_section(s);
        let yc = 0.5 * (top + bottom) + 0.02;
        let xc = -(fw + off);
        (0..n)
            .map(|j| {
                let t = 2.0 * PI * j as f64 / n as f64;
                [xc - w * k * libm::cos(t), yc + h * k * libm::sin(t), z(s)]
            })
            .collect()
    };
    let outer: Vec<Vec<V3>> = keys
        .iter()
        .map(|&(s, w, h, off)| ring(s, w, h, off, 1.0))
        .collect();
    let mut out = loft(&outer, true, None, None, Facing::Outward, &|_, _| {
        mat::WHITE
    });
    let (s0, w0, h0, off0) = keys[0];
    let duct = [
        ring(s0, w0, h0, off0, 1.0),
        ring(s0 + 0.35, w0, h0, off0, 0.8),
    ];
    out.append(&loft(&duct, true, None, None, Facing::Inward, &|_, _| {
        mat::DUCT
    }));
    out.append(&cap(&duct[1], [0.0, 0.0, 1.0], mat::DUCT));
    out
}

/// The exhaust: a metal nozzle lip behind the tail cone and a dark pipe inside it.
fn nozzle(d: Detail) -> Surface {
    let n = d.ring;
    let end = fuselage_ring(LENGTH_M, n);
    let [_, top, bottom] = fuselage_section(LENGTH_M);
    let c = [0.0, 0.5 * (top + bottom), z(LENGTH_M)];
    let shrink = |r: &[V3], k: f64, dz: f64| -> Vec<V3> {
        r.iter()
            .map(|p| {
                let v = mesh::sub(*p, c);
                add(add(c, scale([v[0], v[1], 0.0], k)), [0.0, 0.0, -dz])
            })
            .collect()
    };
    let lip = [
        end.clone(),
        shrink(&end, 0.93, 0.12),
        shrink(&end, 0.86, 0.14),
    ];
    let mut s = loft(&lip, true, None, None, Facing::Outward, &|_, _| mat::NOZZLE);
    let pipe = [shrink(&end, 0.86, 0.14), shrink(&end, 0.78, -0.5)];
    s.append(&loft(&pipe, true, None, None, Facing::Inward, &|_, _| {
        mat::DUCT
    }));
    s.append(&cap(&pipe[1], [0.0, 0.0, -1.0], mat::DUCT));
    s
}

/// A landing-gear leg: strut down from the node's origin to the axle, wheel across the axle.
fn gear_leg(length: f64, wheel_r: f64, wheel_w: f64, d: Detail) -> Surface {
    let n = (d.ring / 3).max(6);
    let axle = [0.0, -length, 0.0];
    let mut s = cylinder([0.0, 0.05, 0.0], axle, 0.055, n, mat::GEAR);
    s.append(&cylinder(
        add(axle, [-wheel_w / 2.0, 0.0, 0.0]),
        add(axle, [wheel_w / 2.0, 0.0, 0.0]),
        wheel_r,
        (d.ring * 2 / 3).max(8),
        mat::TYRE,
    ));
    s.append(&cylinder(
        add(axle, [-wheel_w / 2.0 - 0.01, 0.0, 0.0]),
        add(axle, [wheel_w / 2.0 + 0.01, 0.0, 0.0]),
        wheel_r * 0.55,
        (d.ring / 2).max(6),
        mat::GEAR,
    ));
    s
}

/// The airframe (everything but the gear), one surface.
pub fn airframe(d: Detail) -> Surface {
    let mut s = fuselage(d);
    s.append(&canopy(d));
    s.append(&wings(d));
    s.append(&tailplane(d));
    s.append(&fin(d));
    let right = intake(d);
    s.append(&right.mirrored_x());
    s.append(&right);
    s.append(&nozzle(d));
    s
}

/// The gear nodes: name, strut top (node translation), leg length, wheel radius and width.
pub fn gear_layout() -> [(&'static str, V3, f64, f64, f64); 3] {
    let nose_s = CG_STATION_M - NOSE_GEAR_AHEAD_M;
    let main_s = CG_STATION_M + MAIN_GEAR_BEHIND_M;
    let nose_top = fuselage_section(nose_s)[2] + 0.08;
    let (nose_r, main_r) = (0.21, 0.28);
    let main_top = -0.46;
    [
        (
            "gear_nose",
            [0.0, nose_top, z(nose_s)],
            nose_top + CG_HEIGHT_M - nose_r,
            nose_r,
            0.14,
        ),
        (
            "gear_main_r",
            [-MAIN_TRACK_M / 2.0, main_top, z(main_s)],
            main_top + CG_HEIGHT_M - main_r,
            main_r,
            0.17,
        ),
        (
            "gear_main_l",
            [MAIN_TRACK_M / 2.0, main_top, z(main_s)],
            main_top + CG_HEIGHT_M - main_r,
            main_r,
            0.17,
        ),
    ]
}

/// The exterior model at one level of detail: a root node named `stem` with the airframe and
/// one child node per gear leg (`gear_nose`, `gear_main_l`, `gear_main_r`; each turns about its
/// strut top, so a renderer may pose it retracted).
pub fn exterior(stem: &str, d: Detail, generator: &str) -> Vec<u8> {
    let mut nodes = vec![Node {
        name: stem.to_owned(),
        translation: [0.0; 3],
        surface: Some(airframe(d)),
        children: Vec::new(),
    }];
    if d.gear {
        for (name, top, len, r, w) in gear_layout() {
            nodes.push(Node {
                name: name.to_owned(),
                translation: top,
                surface: Some(gear_leg(len, r, w, d)),
                children: Vec::new(),
            });
            let i = nodes.len() - 1;
            nodes[0].children.push(i);
        }
    }
    glb::write(&nodes, &[0], &materials(), generator)
}

/// The cockpit seen from the front seat: instrument panel with dials and two screens, glare
/// shield, side consoles, stick and throttle, the cockpit tub and the canopy frames, and the
/// `camera_anchor` node at the pilot's eye (in the same axes as the exterior).
pub fn cockpit(generator: &str) -> Vec<u8> {
    let d = DETAILS[0];
    let mut s = Surface::default();
    let (eye_s, eye_y) = EYE;
    // Panel: a slab 0.62 m ahead of the eye, leaning back 15° from vertical.
    let panel_s = eye_s - 0.62;
    let pivot = [0.0, 0.14, z(panel_s)];
    let lean = -(15f64).to_radians();
    let panel = mesh::cuboid(
        [-0.36, 0.14, z(panel_s) - 0.02],
        [0.36, 0.56, z(panel_s) + 0.02],
        mat::PANEL,
    );
    s.append(&panel.rotated_x(pivot, lean));
    // Dials (rim, face) and two screens on the panel's face.
    let face_z = z(panel_s) - 0.02;
    let mut dials = Surface::default();
    for (x, y) in [
        (-0.27, 0.50),
        (-0.16, 0.50),
        (0.16, 0.50),
        (0.27, 0.50),
        (-0.27, 0.38),
        (0.27, 0.38),
        (-0.22, 0.26),
        (0.22, 0.26),
    ] {
        dials.append(&cylinder(
            [x, y, face_z],
            [x, y, face_z - 0.012],
            0.048,
            20,
            mat::DIAL_RIM,
        ));
        dials.append(&cylinder(
            [x, y, face_z - 0.012],
            [x, y, face_z - 0.016],
            0.040,
            20,
            mat::DIAL,
        ));
    }
    for (lo, hi) in [
        ([-0.105, 0.33], [0.105, 0.53]),
        ([-0.09, 0.20], [0.09, 0.31]),
    ] {
        dials.append(&mesh::cuboid(
            [lo[0], lo[1], face_z - 0.008],
            [hi[0], hi[1], face_z],
            mat::SCREEN,
        ));
    }
    s.append(&dials.rotated_x(pivot, lean));
    // Glare shield: a hood over the panel's top, as wide as the cockpit.
    let hood: Vec<Vec<V3>> = [panel_s - 0.12, panel_s + 0.22]
        .iter()
        .map(|&st| {
            (0..=12)
                .map(|j| {
                    let t = PI * j as f64 / 12.0;
                    [-0.40 * libm::cos(t), 0.54 + 0.06 * libm::sin(t), z(st)]
                })
                .collect()
        })
        .collect();
    let mut gs = loft(&hood, false, None, None, Facing::Outward, &|_, _| {
        mat::ANTIGLARE
    });
    gs.append(&cap(&hood[1], [0.0, 0.0, -1.0], mat::ANTIGLARE));
    s.append(&gs);
    // Side consoles, stick, throttle.
    s.append(&mesh::cuboid(
        [-0.44, 0.10, z(eye_s + 0.55)],
        [-0.30, 0.32, z(panel_s + 0.1)],
        mat::PANEL,
    ));
    s.append(&mesh::cuboid(
        [0.30, 0.10, z(eye_s + 0.55)],
        [0.44, 0.32, z(panel_s + 0.1)],
        mat::PANEL,
    ));
    s.append(&cylinder(
        [0.0, -0.05, z(eye_s - 0.28)],
        [0.0, 0.36, z(eye_s - 0.33)],
        0.018,
        10,
        mat::FRAME,
    ));
    s.append(&cylinder(
        [0.0, 0.36, z(eye_s - 0.33)],
        [0.0, 0.46, z(eye_s - 0.34)],
        0.03,
        10,
        mat::ANTIGLARE,
    ));
    s.append(&mesh::cuboid(
        [0.33, 0.32, z(eye_s - 0.05)],
        [0.39, 0.42, z(eye_s - 0.12)],
        mat::FRAME,
    ));
    // The tub: the fuselage's inside below the sills, from the panel to behind the seat.
    let n = d.ring;
    let tub: Vec<Vec<V3>> = [panel_s - 0.05, eye_s + 0.7]
        .iter()
        .map(|&st| {
            fuselage_ring(st, n)
                .into_iter()
                .map(|p| [p[0] * 0.92, p[1].min(fuselage_section(st)[1] - 0.05), p[2]])
                .collect()
        })
        .collect();
    s.append(&loft(&tub, true, None, None, Facing::Inward, &|_, _| {
        mat::PANEL
    }));
    // Canopy frames seen from inside: the windscreen arch and the bow between the seats, and
    // the sills along both sides (thin tubes of the canopy's shape, slightly inside the glass).
    let cn = (d.ring / 2).max(4);
    for at in [3.05, 4.45] {
        let r: Vec<Vec<V3>> = [at - 0.04, at + 0.04]
            .iter()
            .map(|&st| canopy_ring(st, cn, -0.01))
            .collect();
        s.append(&loft(&r, false, None, None, Facing::Inward, &|_, _| {
            mat::FRAME
        }));
    }
    for side in [-1.0, 1.0] {
        let rail: Vec<V3> = (0..=8)
            .map(|i| {
                let st = 2.75 + (GLASS_END - 2.75) * i as f64 / 8.0;
                let w = canopy_section(st)[0];
                [side * (w - 0.02), fuselage_section(st)[1] - 0.04, z(st)]
            })
            .collect();
        for pair in rail.windows(2) {
            s.append(&cylinder(pair[0], pair[1], 0.025, 8, mat::FRAME));
        }
    }
    let nodes = vec![
        Node {
            name: "cockpit".to_owned(),
            translation: [0.0; 3],
            surface: Some(s),
            children: vec![1],
        },
        Node {
            name: "camera_anchor".to_owned(),
            translation: [0.0, eye_y, z(eye_s)],
            surface: None,
            children: Vec::new(),
        },
    ];
    glb::write(&nodes, &[0], &materials(), generator)
}
