//! The Settings screen's Controls tab: for now the keyboard's and the gamepad's controls as
//! fl-input defines them (`KEYS_HELP`, `PAD_HELP`). The rebinding UI (bindings.toml, press to
//! bind, per-axis tuning) is to be built here, on the same `UiState`.
//!
//! Owns the Controls tab's widgets. Must not: read or write bindings files or apply bindings
//! (fl-input and the window do), or draw the other tabs (`settings_screen`).

use egui::{Grid, RichText, Ui};

use super::UiState;
use crate::app::keyboard::{KEYS_HELP, PAD_HELP};

/// Draws the tab into the Settings panel's `ui`. Takes the whole `UiState` so the rebinding UI
/// can keep its own state there (the binding being captured, a conflict prompt).
pub(super) fn show(ui: &mut Ui, _state: &mut UiState) {
    table(ui, "Keyboard and mouse", "controls-keys", KEYS_HELP);
    ui.add_space(6.0);
    table(ui, "Gamepad", "controls-pad", PAD_HELP);
    ui.add_space(4.0);
    ui.label(
        RichText::new("Rebinding keys and axes comes in a later version.")
            .weak()
            .small(),
    );
}

/// A two-column table of (control, what it does).
fn table(ui: &mut Ui, title: &str, id: &str, rows: &[(&str, &str)]) {
    ui.label(RichText::new(title).strong());
    Grid::new(id)
        .num_columns(2)
        .striped(true)
        .spacing(egui::vec2(16.0, 4.0))
        .show(ui, |ui| {
            for (control, action) in rows {
                ui.label(RichText::new(*control).monospace());
                ui.label(*action);
                ui.end_row();
            }
        });
}
