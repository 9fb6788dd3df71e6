//! The main menu (with the message of a failed or lost session and the settings file's warning)
//! and the Loading screen (live progress lines, Cancel, and the trust-on-first-use prompt).

use egui::{Context, RichText};

use super::{PANEL, UiState, dim_background, error_line, heading, join, panel, wide_button};
use crate::screens::{Event, Screens, SessionKind};

/// Progress lines the Loading screen shows (the newest).
const LOADING_LINES_SHOWN: usize = 12;

pub(super) fn main_menu(
    ctx: &Context,
    screens: &Screens,
    state: &mut UiState,
    events: &mut Vec<Event>,
) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    panel(ctx, "main-menu", 380.0 * s, PANEL, s, |ui| {
        ui.vertical_centered(|ui| {
            ui.label(RichText::new("Fighters Legacy").heading().size(44.0 * s));
        });
        ui.add_space(8.0 * s);
        if let Some(message) = screens.message() {
            ui.group(|ui| {
                error_line(ui, message);
                ui.horizontal(|ui| {
                    if let Some(address) = screens.rejoin()
                        && ui
                            .button("Rejoin")
                            .on_hover_text(format!("Join {address} again"))
                            .clicked()
                    {
                        events.push(Event::Rejoin);
                    }
                    if ui.button("Dismiss").clicked() {
                        events.push(Event::DismissMessage);
                    }
                });
            });
        }
        if let Some(warning) = state.settings_warning.clone() {
            ui.group(|ui| {
                error_line(ui, &warning);
                if ui.button("OK").clicked() {
                    state.settings_warning = None;
                }
            });
        }
        let first = wide_button(ui, "Free Flight");
        state.focus_first(&first);
        if first.clicked() {
            events.push(Event::OpenFreeFlight);
        }
        if wide_button(ui, "Missions").clicked() {
            events.push(Event::Missions);
        }
        if wide_button(ui, "Join a Server").clicked() {
            events.push(Event::OpenJoin);
        }
        if wide_button(ui, "Settings").clicked() {
            events.push(Event::OpenSettings);
        }
        if wide_button(ui, "Quit").clicked() {
            events.push(Event::Quit);
        }
    });
}

pub(super) fn loading(
    ctx: &Context,
    screens: &Screens,
    state: &mut UiState,
    events: &mut Vec<Event>,
) {
    let s = state.layout_scale;
    dim_background(ctx, 170);
    let title = match screens.session() {
        Some(SessionKind::Multiplayer { address }) => format!("Connecting to {address}"),
        Some(SessionKind::SinglePlayer { mission: Some(m) }) => format!("Loading mission {m}"),
        _ => "Starting the flight".to_owned(),
    };
    let prompt_up = state.tofu_prompt.is_some();
    panel(ctx, "loading", 560.0 * s, PANEL, s, |ui| {
        heading(ui, &title);
        let lines = screens.loading_lines();
        if lines.is_empty() {
            ui.label("Please wait…");
        }
        let skip = lines.len().saturating_sub(LOADING_LINES_SHOWN);
        for line in &lines[skip..] {
            ui.label(RichText::new(line).monospace());
        }
        ui.add_space(8.0 * s);
        let cancel = wide_button(ui, "Cancel");
        if !prompt_up {
            state.focus_first(&cancel);
        }
        if cancel.clicked() {
            events.push(Event::Back);
        }
        controls_help(ui, &state.controls.bindings);
    });
    if prompt_up {
        join::tofu_prompt(ctx, state, events);
    }
}

/// The controls a new player needs, from the player's bindings (fl-input's help rows).
fn controls_help(ui: &mut egui::Ui, bindings: &fl_input::Bindings) {
    ui.add_space(8.0);
    ui.label(RichText::new("Controls").strong());
    egui::Grid::new("loading-controls")
        .num_columns(3)
        .striped(true)
        .spacing(egui::vec2(12.0, 2.0))
        .show(ui, |ui| {
            for r in fl_input::help_rows(bindings) {
                ui.label(RichText::new(&r.keys).monospace().small());
                ui.label(RichText::new(&r.pad).monospace().small());
                ui.label(RichText::new(&r.what).small());
                ui.end_row();
            }
        });
}
