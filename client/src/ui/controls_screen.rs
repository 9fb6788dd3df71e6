//! The Settings screen's Controls tab: for now the keyboard's and the gamepad's controls as
//! fl-input's default bindings define them (`help_rows`). The rebinding UI (bindings.toml, press to
//! bind, per-axis tuning) is to be built here, on the same `UiState`.
//!
//! Owns the Controls tab's widgets. Must not: read or write bindings files or apply bindings
//! (fl-input and the window do), or draw the other tabs (`settings_screen`).

use egui::{Grid, RichText, Ui};

use super::UiState;

/// Draws the tab into the Settings panel's `ui`. Takes the whole `UiState` so the rebinding UI
/// can keep its own state there (the binding being captured, a conflict prompt).
pub(super) fn show(ui: &mut Ui, _state: &mut UiState) {
    let rows = fl_input::help_rows(&fl_input::Bindings::defaults());
    Grid::new("controls-help")
        .num_columns(3)
        .striped(true)
        .spacing(egui::vec2(16.0, 4.0))
        .show(ui, |ui| {
            ui.label(RichText::new("Keyboard and mouse").strong());
            ui.label(RichText::new("Gamepad").strong());
            ui.label(RichText::new("Control").strong());
            ui.end_row();
            for r in &rows {
                ui.label(RichText::new(&r.keys).monospace());
                ui.label(RichText::new(&r.pad).monospace());
                ui.label(&r.what);
                ui.end_row();
            }
        });
    ui.add_space(4.0);
    ui.label(
        RichText::new("Rebinding keys and axes comes in a later version.")
            .weak()
            .small(),
    );
}
