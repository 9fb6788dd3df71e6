//! The mission list (every loaded pack's missions) and a mission's brief.

use egui::{Context, RichText};

use super::{PANEL, UiState, dim_background, heading, panel, wide_button};
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
            let r = wide_button(ui, &format!("{} ({})", m.title, m.pack));
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
                ui.label(m.brief.as_str());
                state.missions_flyable
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
