//! Outlined drawing for the HUD: every line, circle and glyph is drawn twice — first a dark,
//! wider shadow, then the colour on top — so the symbology stays readable over bright sky and
//! cloud as well as dark terrain.
//!
//! Owns: collecting shapes in two layers and handing them to an egui `Painter` in order (all
//! shadows of a group under all its ink). Must not: decide what is drawn or where.

use egui::epaint::{PathShape, PathStroke, TextShape};
use egui::{Align2, Color32, FontId, Painter, Pos2, Shape, Stroke, Vec2, vec2};

/// The outline's colour: near-black, mostly opaque.
pub const SHADOW: Color32 = Color32::from_rgba_premultiplied(0, 8, 0, 200);

/// Shapes of one HUD group, shadows and ink kept apart.
pub struct Canvas<'p> {
    painter: &'p Painter,
    shadow: Vec<Shape>,
    ink: Vec<Shape>,
    /// Line width, points.
    pub line: f32,
    /// Outline width on each side of a line or glyph, points.
    pub outline: f32,
}

impl std::fmt::Debug for Canvas<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Canvas")
            .field("shapes", &self.ink.len())
            .field("line", &self.line)
            .field("outline", &self.outline)
            .finish()
    }
}

impl<'p> Canvas<'p> {
    /// A canvas painting with `painter`, lines `line` wide with an `outline` each side.
    pub fn new(painter: &'p Painter, line: f32, outline: f32) -> Canvas<'p> {
        Canvas {
            painter,
            shadow: Vec::new(),
            ink: Vec::new(),
            line,
            outline,
        }
    }

    /// A straight line.
    pub fn line(&mut self, a: Pos2, b: Pos2, colour: Color32) {
        self.polyline(&[a, b], colour);
    }

    /// Connected straight lines.
    pub fn polyline(&mut self, points: &[Pos2], colour: Color32) {
        if points.len() < 2 || points.iter().any(|p| !p.is_finite()) {
            return;
        }
        let path = |w: f32, c: Color32| {
            Shape::Path(PathShape::line(points.to_vec(), PathStroke::new(w, c)))
        };
        self.shadow
            .push(path(self.line + 2.0 * self.outline, SHADOW));
        // Square-ish ends for the shadow: a dot at each end covers the line's cap.
        for p in [points[0], points[points.len() - 1]] {
            self.shadow.push(Shape::circle_filled(
                p,
                0.5 * self.line + self.outline,
                SHADOW,
            ));
        }
        self.ink.push(path(self.line, colour));
    }

    /// A closed outline through `points`.
    pub fn closed(&mut self, points: &[Pos2], colour: Color32) {
        if points.len() < 3 || points.iter().any(|p| !p.is_finite()) {
            return;
        }
        let path = |w: f32, c: Color32| {
            Shape::Path(PathShape::closed_line(
                points.to_vec(),
                PathStroke::new(w, c),
            ))
        };
        self.shadow
            .push(path(self.line + 2.0 * self.outline, SHADOW));
        self.ink.push(path(self.line, colour));
    }

    /// A line from `a` to `b` in `dashes` dashes with gaps between them.
    pub fn dashed(&mut self, a: Pos2, b: Pos2, dashes: u32, colour: Color32) {
        let n = dashes.max(1);
        // n dashes and n − 1 gaps, the gaps two thirds of a dash.
        let unit = (b - a) / (n as f32 + (n as f32 - 1.0) * 2.0 / 3.0);
        let mut p = a;
        for _ in 0..n {
            self.line(p, p + unit, colour);
            p += unit * (1.0 + 2.0 / 3.0);
        }
    }

    /// A circle's outline.
    pub fn circle(&mut self, centre: Pos2, radius: f32, colour: Color32) {
        if !centre.is_finite() {
            return;
        }
        self.shadow.push(Shape::circle_stroke(
            centre,
            radius,
            Stroke::new(self.line + 2.0 * self.outline, SHADOW),
        ));
        self.ink.push(Shape::circle_stroke(
            centre,
            radius,
            Stroke::new(self.line, colour),
        ));
    }

    /// A rectangle's outline centred on `centre`, `size` points.
    pub fn frame(&mut self, centre: Pos2, size: Vec2, colour: Color32) {
        let h = size * 0.5;
        self.closed(
            &[
                centre + vec2(-h.x, -h.y),
                centre + vec2(h.x, -h.y),
                centre + vec2(h.x, h.y),
                centre + vec2(-h.x, h.y),
            ],
            colour,
        );
    }

    /// Text anchored at `pos` by `anchor`, turned `angle` rad clockwise about that anchor.
    /// Returns its size, points.
    pub fn text(
        &mut self,
        pos: Pos2,
        anchor: Align2,
        text: &str,
        font: FontId,
        colour: Color32,
        angle: f32,
    ) -> Vec2 {
        if text.is_empty() || !pos.is_finite() {
            return Vec2::ZERO;
        }
        let galley = self.painter.layout_no_wrap(text.to_string(), font, colour);
        let size = galley.rect.size();
        let rot = egui::emath::Rot2::from_angle(angle);
        let local = anchor.pos_in_rect(&egui::Rect::from_min_size(Pos2::ZERO, size));
        let origin = pos - rot * local.to_vec2();
        // The outline: the glyphs in the shadow colour, offset all round.
        let o = self.outline;
        for (dx, dy) in [
            (-o, -o),
            (0.0, -o),
            (o, -o),
            (-o, 0.0),
            (o, 0.0),
            (-o, o),
            (0.0, o),
            (o, o),
        ] {
            self.shadow.push(Shape::Text(
                TextShape::new(origin + vec2(dx, dy), galley.clone(), SHADOW)
                    .with_override_text_color(SHADOW)
                    .with_angle(angle),
            ));
        }
        self.ink.push(Shape::Text(
            TextShape::new(origin, galley, colour)
                .with_override_text_color(colour)
                .with_angle(angle),
        ));
        size
    }

    /// Paints everything: the shadows, then the ink.
    pub fn finish(self) {
        self.painter.extend(self.shadow);
        self.painter.extend(self.ink);
    }
}
