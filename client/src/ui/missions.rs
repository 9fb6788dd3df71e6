//! The mission list (every loaded pack's missions, a broken one marked as such) and a
//! mission's brief (its description and the facts of its header, or why it cannot be read).

use egui::{Context, RichText};

use super::{PANEL, UiState, dim_background, error_line, heading, panel, wide_button};
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
                Some(_) => format!("{} ({}) — cannot be read", m.title, m.pack),
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
                    error_line(ui, &format!("This mission cannot be read: {why}"));
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
                state.missions_flyable && m.broken.is_none()
            }
            None => {
                heading(ui, "Mission brief");
                ui.label("This mission is no longer loaded. Go back and choose another.");
                false
            }
        };
        if !state.missions_flyable {
            ui.label(
                RichText::new("Flying missions comes in a later version; this one lists them.")
                    .italics(),
            );
        }
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
