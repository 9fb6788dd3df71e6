//! The Settings screen: tabs for Graphics, Audio, HUD, Camera, Network (advanced), Player and
//! Controls, each editing `UiState::settings` in place; *Back* (or Escape / the gamepad's B)
//! leaves, and the state machine's `Effect::SaveSettings` saves. The window applies what it can
//! while the screen is up (docs/settings.md).
//!
//! Owns the layout of the settings' widgets. Must not: save or apply settings, or draw the
//! Controls tab's content (`controls_screen`, where the rebinding UI will live).

use egui::{Context, RichText, Slider, TextEdit, Ui};

use super::{PANEL, UiState, clamp_scale, controls_screen, dim_background, heading, panel};
use crate::hud::Units;
use crate::screens::Event;
use crate::settings::{
    AudioBus, Choice, FOV_RANGE_DEG, FPS_CAP_RANGE, Fullscreen, GameSettings, HudColour,
    ModelDetail, Net, RENDER_SCALE_RANGE, Resolution, TerrainDetail, UI_SCALE_RANGE, VsyncMode,
    net_ranges, sanitize_callsign,
};

/// The Settings screen's tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SettingsTab {
    #[default]
    Graphics,
    Audio,
    Hud,
    Camera,
    Network,
    Player,
    Controls,
}

impl SettingsTab {
    pub const ALL: [SettingsTab; 7] = [
        SettingsTab::Graphics,
        SettingsTab::Audio,
        SettingsTab::Hud,
        SettingsTab::Camera,
        SettingsTab::Network,
        SettingsTab::Player,
        SettingsTab::Controls,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SettingsTab::Graphics => "Graphics",
            SettingsTab::Audio => "Audio",
            SettingsTab::Hud => "HUD",
            SettingsTab::Camera => "Camera",
            SettingsTab::Network => "Network",
            SettingsTab::Player => "Player",
            SettingsTab::Controls => "Controls",
        }
    }
}

pub(super) fn show(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    let mut scale_dragging = false;
    panel(ctx, "settings", 780.0 * s, PANEL, s, |ui| {
        heading(ui, "Settings");
        // The tabs: arrows (the D-pad) move between them, Enter/Space (A) opens one.
        let tabs = ui
            .horizontal_wrapped(|ui| {
                let mut current = None;
                for tab in SettingsTab::ALL {
                    let r = ui.selectable_value(&mut state.settings_tab, tab, tab.label());
                    if tab == state.settings_tab {
                        current = Some(r);
                    }
                }
                current
            })
            .inner;
        if let Some(tab) = &tabs {
            state.focus_first(tab);
        }
        ui.separator();
        match state.settings_tab {
            SettingsTab::Graphics => graphics(ui, &mut state.settings),
            SettingsTab::Audio => audio(ui, &mut state.settings),
            SettingsTab::Hud => scale_dragging = hud(ui, &mut state.settings),
            SettingsTab::Camera => camera(ui, &mut state.settings),
            SettingsTab::Network => network(ui, &mut state.settings.net),
            SettingsTab::Player => player(ui, &mut state.settings),
            SettingsTab::Controls => controls_screen::show(ui, state),
        }

        ui.separator();
        ui.label(RichText::new("Changes are saved when you leave this screen.").weak());
        let (back, restore) = ui
            .horizontal(|ui| {
                let back = ui.add(egui::Button::new("Back").min_size(egui::vec2(140.0, 42.0) * s));
                let restore = ui.button("Restore Defaults").clicked();
                (back, restore)
            })
            .inner;
        if restore {
            state.settings.restore_defaults();
        }
        if back.clicked() {
            events.push(Event::Back);
        }
    });
    if !scale_dragging {
        state.layout_scale = clamp_scale(state.settings.hud.ui_scale);
    }
}

/// A bold line naming the group of controls below it.
fn label(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).strong());
}

/// One selectable button per value of `T`, in a row that wraps.
fn choices<T: Choice>(ui: &mut Ui, value: &mut T) {
    ui.horizontal_wrapped(|ui| {
        for &v in T::ALL {
            ui.selectable_value(value, v, v.label());
        }
    });
}

/// A small grey sentence under a control.
fn note(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).weak().small());
}

fn graphics(ui: &mut Ui, set: &mut GameSettings) {
    let g = &mut set.graphics;
    label(ui, "Display");
    choices::<Fullscreen>(ui, &mut g.fullscreen);

    label(ui, "Window size");
    ui.add_enabled_ui(g.fullscreen == Fullscreen::Off, |ui| {
        ui.horizontal_wrapped(|ui| {
            let mut sizes = Resolution::PRESETS.to_vec();
            if !sizes.contains(&g.resolution) {
                sizes.push(g.resolution);
            }
            for r in sizes {
                ui.selectable_value(&mut g.resolution, r, r.to_string());
            }
        });
    });

    label(ui, "Vsync");
    choices::<VsyncMode>(ui, &mut g.vsync);
    frame_cap(ui, &mut g.fps_cap);

    label(ui, "Terrain detail");
    choices::<TerrainDetail>(ui, &mut g.terrain_detail);
    label(ui, "Aircraft detail");
    choices::<ModelDetail>(ui, &mut g.model_detail);
    label(ui, "Render scale");
    ui.add(
        Slider::new(&mut g.render_scale, RENDER_SCALE_RANGE)
            .step_by(0.05)
            .suffix("×")
            .text("Scene resolution"),
    );
    note(
        ui,
        "The 3D scene's resolution against the window's: below 1 is faster on a weak GPU, above 1 smooths edges. The HUD and menus stay sharp. Shadows are always on.",
    );
}

fn frame_cap(ui: &mut Ui, fps_cap: &mut u32) {
    let mut capped = *fps_cap != 0;
    if ui.checkbox(&mut capped, "Limit the frame rate").changed() {
        *fps_cap = if capped { 144 } else { 0 };
    }
    if capped {
        let mut cap = (*fps_cap).clamp(*FPS_CAP_RANGE.start(), *FPS_CAP_RANGE.end());
        ui.add(
            Slider::new(&mut cap, *FPS_CAP_RANGE.start()..=*FPS_CAP_RANGE.end())
                .logarithmic(true)
                .suffix(" FPS")
                .text("Frame rate cap"),
        );
        *fps_cap = cap;
    }
}

/// A 0 … 1 value as a 0 … 100 % slider (the stored value changes only when the slider does,
/// so a volume from the file is not rounded by showing it).
fn percent(ui: &mut Ui, value: &mut f32, text: &str) {
    let mut pct = (value.clamp(0.0, 1.0) * 100.0).round() as u32;
    if ui
        .add(Slider::new(&mut pct, 0..=100).suffix(" %").text(text))
        .changed()
    {
        *value = pct as f32 / 100.0;
    }
}

fn audio(ui: &mut Ui, set: &mut GameSettings) {
    let a = &mut set.audio;
    for bus in AudioBus::ALL {
        percent(ui, a.volume_mut(bus), bus.label());
    }
    ui.checkbox(
        &mut a.mute_when_unfocused,
        "Mute when the game is in the background",
    );
}

/// Returns whether the UI scale slider is being dragged (the layout keeps its scale meanwhile).
fn hud(ui: &mut Ui, set: &mut GameSettings) -> bool {
    let h = &mut set.hud;
    label(ui, "Units");
    ui.horizontal(|ui| {
        ui.selectable_value(&mut h.units, Units::Imperial, "Knots and Feet");
        ui.selectable_value(&mut h.units, Units::Metric, "Metric (km/h, m)");
    });

    label(ui, "HUD colour");
    ui.horizontal_wrapped(|ui| {
        for (_, name, colour) in HudColour::NAMED {
            let text = RichText::new(name).color(colour.to_color32());
            ui.selectable_value(&mut h.colour, colour, text);
        }
        let custom = h.colour.name().is_none();
        ui.label(if custom { "Custom:" } else { "Custom" });
        ui.color_edit_button_srgb(&mut h.colour.0);
    });

    let scale = ui.add(
        Slider::new(
            &mut h.ui_scale,
            *UI_SCALE_RANGE.start()..=*UI_SCALE_RANGE.end(),
        )
        .step_by(0.05)
        .suffix("×")
        .text("UI scale"),
    );
    scale.dragged()
}

fn camera(ui: &mut Ui, set: &mut GameSettings) {
    ui.add(
        Slider::new(
            &mut set.camera.fov_deg,
            *FOV_RANGE_DEG.start()..=*FOV_RANGE_DEG.end(),
        )
        .step_by(1.0)
        .suffix("°")
        .text("Field of view"),
    );
    note(ui, "Vertical field of view; the HUD's ladder follows it.");
}

fn network(ui: &mut Ui, n: &mut Net) {
    note(
        ui,
        "Advanced: how your own aircraft's corrections are smoothed and how far in the past other aircraft are drawn. The defaults suit most connections; changes apply to the flight at once.",
    );
    label(ui, "Own aircraft");
    ui.add(
        Slider::new(
            &mut n.correction_half_life_ms,
            net_ranges::CORRECTION_HALF_LIFE_MS,
        )
        .suffix(" ms")
        .text("Correction smoothing (half-life)"),
    );
    ui.add(
        Slider::new(&mut n.snap_distance_m, net_ranges::SNAP_DISTANCE_M)
            .logarithmic(true)
            .suffix(" m")
            .text("Snap corrections beyond"),
    );
    ui.add(
        Slider::new(
            &mut n.correction_speed_mps,
            net_ranges::CORRECTION_SPEED_MPS,
        )
        .logarithmic(true)
        .suffix(" m/s")
        .text("Fastest correction"),
    );
    label(ui, "Other aircraft");
    ui.add(
        Slider::new(
            &mut n.interp_send_intervals,
            net_ranges::INTERP_SEND_INTERVALS,
        )
        .step_by(0.1)
        .suffix(" snapshots")
        .text("Interpolation delay"),
    );
    ui.add(
        Slider::new(
            &mut n.interp_jitter_multiplier,
            net_ranges::INTERP_JITTER_MULTIPLIER,
        )
        .step_by(0.1)
        .suffix("×")
        .text("Jitter allowance"),
    );
    ui.add(
        Slider::new(&mut n.interp_min_delay_ms, net_ranges::INTERP_MIN_DELAY_MS)
            .suffix(" ms")
            .text("Shortest delay"),
    );
    ui.add(
        Slider::new(&mut n.interp_max_delay_ms, net_ranges::INTERP_MAX_DELAY_MS)
            .suffix(" ms")
            .text("Longest delay"),
    );
    ui.add(
        Slider::new(
            &mut n.max_extrapolation_ms,
            net_ranges::MAX_EXTRAPOLATION_MS,
        )
        .suffix(" ms")
        .text("Longest extrapolation"),
    );
    if n.interp_max_delay_ms < n.interp_min_delay_ms {
        note(ui, "The longest delay is raised to the shortest.");
    }
    if ui.button("Network Defaults").clicked() {
        *n = Net {
            unknown: std::mem::take(&mut n.unknown),
            ..Net::default()
        };
    }
}

fn player(ui: &mut Ui, set: &mut GameSettings) {
    let p = &mut set.player;
    let label = ui.label(RichText::new("Callsign").strong());
    let mut callsign = p.callsign.clone();
    let edit = ui
        .add(TextEdit::singleline(&mut callsign).char_limit(64))
        .labelled_by(label.id);
    if edit.changed() {
        p.callsign = sanitize_callsign(&callsign);
    }
    note(
        ui,
        "The name other players see; empty lets the server name you.",
    );
    ui.add_space(4.0);
    let n = p.recent_servers.len();
    ui.label(match n {
        0 => "No recent servers.".to_owned(),
        1 => "1 recent server on the Join screen.".to_owned(),
        n => format!("{n} recent servers on the Join screen."),
    });
    if n > 0 && ui.button("Forget Recent Servers").clicked() {
        p.recent_servers.clear();
    }
}
