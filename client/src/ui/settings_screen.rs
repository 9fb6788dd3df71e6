//! The Settings screen: units, field of view, UI scale, vsync, the frame-rate cap and the
//! callsign, edited in place on `UiState::settings`; *Back* saves (the state machine's
//! `Effect::SaveSettings`).

use egui::{Context, RichText, Slider, TextEdit, Ui};

use super::{PANEL, UiState, clamp_scale, dim_background, heading, panel};
use crate::hud::Units;
use crate::screens::Event;
use crate::settings::{
    FOV_RANGE_DEG, FPS_CAP_RANGE, GameSettings, UI_SCALE_RANGE, VsyncMode, sanitize_callsign,
};

pub(super) fn show(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    let mut scale_dragging = false;
    let state_scale = s;
    panel(ctx, "settings", 600.0 * s, PANEL, s, |ui| {
        heading(ui, "Settings");
        let set = &mut state.settings;

        ui.label(RichText::new("Units").strong());
        let units = ui
            .horizontal(|ui| {
                let a = ui.selectable_value(&mut set.units, Units::Imperial, "Knots and Feet");
                ui.selectable_value(&mut set.units, Units::Metric, "Metric (km/h, m)");
                a
            })
            .inner;

        ui.add(
            Slider::new(
                &mut set.fov_deg,
                *FOV_RANGE_DEG.start()..=*FOV_RANGE_DEG.end(),
            )
            .step_by(1.0)
            .suffix("°")
            .text("Field of view"),
        );
        let scale = ui.add(
            Slider::new(
                &mut set.ui_scale,
                *UI_SCALE_RANGE.start()..=*UI_SCALE_RANGE.end(),
            )
            .step_by(0.05)
            .suffix("×")
            .text("UI scale"),
        );
        scale_dragging = scale.dragged();

        ui.label(RichText::new("Vsync").strong());
        ui.horizontal(|ui| {
            for mode in VsyncMode::ALL {
                ui.selectable_value(&mut set.vsync, mode, mode.label());
            }
        });
        frame_cap(ui, set);

        let label = ui.label(RichText::new("Callsign").strong());
        let mut callsign = set.callsign.clone();
        let edit = ui
            .add(TextEdit::singleline(&mut callsign).char_limit(64))
            .labelled_by(label.id);
        if edit.changed() {
            set.callsign = sanitize_callsign(&callsign);
        }

        ui.add_space(6.0);
        ui.label(RichText::new("Changes are saved when you leave this screen.").weak());
        let back = ui
            .horizontal(|ui| {
                let back = ui
                    .add(egui::Button::new("Back").min_size(egui::vec2(140.0, 42.0) * state_scale));
                let restore = ui.button("Restore Defaults").clicked();
                (back, restore)
            })
            .inner;
        if back.1 {
            // The player's name and server list are not "settings" to reset.
            let keep = (
                std::mem::take(&mut set.callsign),
                std::mem::take(&mut set.recent_servers),
            );
            *set = GameSettings {
                callsign: keep.0,
                recent_servers: keep.1,
                ..GameSettings::default()
            };
        }
        if back.0.clicked() {
            events.push(Event::Back);
        }
        state.focus_first(&units);
    });
    if !scale_dragging {
        state.layout_scale = clamp_scale(state.settings.ui_scale);
    }
}

fn frame_cap(ui: &mut Ui, set: &mut GameSettings) {
    let mut capped = set.fps_cap != 0;
    if ui.checkbox(&mut capped, "Limit the frame rate").changed() {
        set.fps_cap = if capped { 144 } else { 0 };
    }
    if capped {
        let mut cap = set
            .fps_cap
            .clamp(*FPS_CAP_RANGE.start(), *FPS_CAP_RANGE.end());
        ui.add(
            Slider::new(&mut cap, *FPS_CAP_RANGE.start()..=*FPS_CAP_RANGE.end())
                .logarithmic(true)
                .suffix(" FPS")
                .text("Frame rate cap"),
        );
        set.fps_cap = cap;
    }
}
