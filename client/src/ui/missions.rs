//! The mission list (every loaded pack's missions, a broken one marked as such) and a
//! mission's brief (its description, the facts of its header, the objectives and a map of what
//! the player may know, or why it cannot be flown).

use egui::{Context, RichText};

use super::{
    BriefMark, MarkKind, PANEL, UiState, dim_background, error_line, heading, panel, wide_button,
};
use crate::screens::{Event, Screens};

pub(super) fn select(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    panel(ctx, "missions", 560.0 * s, PANEL, s, |ui| {
        heading(ui, "Missions");
        let mut first = None;
        if state.missions.is_empty() {
            ui.label("No loaded pack has missions. Add a pack with missions to your mods folder.");
        }
        for m in &state.missions {
            let label = match m.broken {
                None => format!("{} ({})", m.title, m.pack),
                Some(_) => format!("{} ({}) — cannot be flown", m.title, m.pack),
            };
            let r = wide_button(ui, &label);
            if r.clicked() {
                events.push(Event::SelectMission(m.id.clone()));
            }
            first.get_or_insert(r);
        }
        let back = wide_button(ui, "Back");
        if back.clicked() {
            events.push(Event::Back);
        }
        state.focus_first(first.as_ref().unwrap_or(&back));
    });
}

pub(super) fn brief(
    ctx: &Context,
    screens: &Screens,
    state: &mut UiState,
    events: &mut Vec<Event>,
) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    let mission = screens
        .selected_mission()
        .and_then(|id| state.missions.iter().find(|m| m.id == id))
        .cloned();
    panel(ctx, "brief", 640.0 * s, PANEL, s, |ui| {
        let fly_enabled = match &mission {
            Some(m) => {
                heading(ui, &m.title);
                ui.label(RichText::new(format!("From {}", m.pack)).weak());
                if let Some(why) = &m.broken {
                    error_line(ui, &format!("This mission cannot be flown: {why}"));
                } else if m.brief.is_empty() {
                    ui.label(RichText::new("The mission has no description.").weak());
                } else {
                    ui.label(m.brief.as_str());
                }
                if !m.facts.is_empty() {
                    ui.add_space(4.0 * s);
                    egui::Grid::new("fl-brief-facts")
                        .num_columns(2)
                        .spacing(egui::vec2(16.0, 4.0) * s)
                        .show(ui, |ui| {
                            for (k, v) in &m.facts {
                                ui.label(RichText::new(k.as_str()).strong());
                                ui.label(v.as_str());
                                ui.end_row();
                            }
                        });
                    ui.add_space(4.0 * s);
                }
                if !m.objectives.is_empty() {
                    ui.label(RichText::new("Objectives").strong());
                    for (win, text) in &m.objectives {
                        let line = if *win {
                            format!("• {text}")
                        } else {
                            format!("• {text} (or the mission fails)")
                        };
                        ui.label(line);
                    }
                    ui.add_space(4.0 * s);
                }
                if !m.map.is_empty() {
                    brief_map(ui, &m.map, s);
                    ui.add_space(4.0 * s);
                }
                m.broken.is_none()
            }
            None => {
                heading(ui, "Mission brief");
                ui.label("This mission is no longer loaded. Go back and choose another.");
                false
            }
        };
        let fly = ui.add_enabled(fly_enabled, egui::Button::new("Fly This Mission"));
        if fly.clicked() {
            events.push(Event::FlyMission);
        }
        let back = wide_button(ui, "Back");
        if back.clicked() {
            events.push(Event::Back);
        }
        state.focus_first(if fly_enabled { &fly } else { &back });
    });
}

/// Side of the brief map's square, points at layout scale 1.
const MAP_SIZE: f32 = 240.0;
/// The runway of the builtin `home` airfield, m east of the anchor (drawn for scale).
const RUNWAY_HALF_LENGTH_M: f32 = 1250.0;

/// A north-up sketch of the mission area: the anchor (its airfield's runway), the player, the
/// friendlies and the known targets, scaled to fit with a scale bar.
fn brief_map(ui: &mut egui::Ui, marks: &[BriefMark], s: f32) {
    use egui::{Align2, Color32, FontId, Sense, Stroke, pos2, vec2};
    let size = MAP_SIZE * s;
    let (rect, _) = ui.allocate_exact_size(vec2(size, size), Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0 * s, Color32::from_rgb(24, 32, 28));
    // Metres from the anchor to the farthest mark (the runway at least), with a margin.
    let reach = marks
        .iter()
        .map(|m| m.east_m.abs().max(m.north_m.abs()) as f32)
        .fold(RUNWAY_HALF_LENGTH_M, f32::max)
        * 1.15;
    let scale = 0.5 * size / reach;
    let at = |east: f32, north: f32| rect.center() + vec2(east * scale, -north * scale);
    let runway = Stroke::new((3.0 * s).max(1.0), Color32::from_gray(150));
    painter.line_segment(
        [
            at(-RUNWAY_HALF_LENGTH_M, 0.0),
            at(RUNWAY_HALF_LENGTH_M, 0.0),
        ],
        runway,
    );
    let font = FontId::proportional(11.0 * s);
    for m in marks {
        let p = at(m.east_m as f32, m.north_m as f32);
        let colour = match m.kind {
            MarkKind::Player => Color32::from_rgb(90, 255, 120),
            MarkKind::Friendly => Color32::from_rgb(110, 170, 255),
            MarkKind::Target => Color32::from_rgb(255, 90, 70),
        };
        painter.circle_filled(p, 4.0 * s, colour);
        painter.text(
            p + vec2(6.0 * s, 0.0),
            Align2::LEFT_CENTER,
            &m.label,
            font.clone(),
            colour,
        );
    }
    painter.text(
        rect.center_top() + vec2(0.0, 4.0 * s),
        Align2::CENTER_TOP,
        "N",
        font.clone(),
        Color32::from_gray(200),
    );
    // A scale bar of a round number of kilometres, about a quarter of the map.
    let km = [1.0f32, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
        .into_iter()
        .find(|km| km * 1000.0 * scale >= 0.2 * size)
        .unwrap_or(1000.0);
    let y = rect.bottom() - 10.0 * s;
    let x0 = rect.left() + 10.0 * s;
    let x1 = x0 + km * 1000.0 * scale;
    painter.line_segment(
        [pos2(x0, y), pos2(x1, y)],
        Stroke::new(s.max(1.0), Color32::from_gray(200)),
    );
    painter.text(
        pos2(x1 + 4.0 * s, y),
        Align2::LEFT_CENTER,
        format!("{km} km"),
        font,
        Color32::from_gray(200),
    );
}
