//! The Free Flight setup: the aircraft of every loaded pack (name, pack and thumbnail), a runway
//! or air start at a chosen altitude, the time of day and the weather, then *Fly*.

use egui::{Context, RichText, Slider, Ui, vec2};

use super::{AIR_START_RANGE_M, PANEL, StartPosition, UiState, dim_background, heading, panel};
use crate::hud::Units;
use crate::hud::units::M_PER_FOOT;
use crate::screens::Event;

/// The weather presets, as the server's configuration names them, with the names shown.
pub const WEATHER_PRESETS: [(&str, &str); 7] = [
    ("clear", "Clear"),
    ("partly_cloudy", "Partly cloudy"),
    ("overcast", "Overcast"),
    ("rain", "Rain"),
    ("storm", "Storm"),
    ("snow", "Snow"),
    ("blizzard", "Blizzard"),
];

/// The name shown for a preset (the preset's own name when unknown).
pub fn weather_label(preset: &str) -> &str {
    WEATHER_PRESETS
        .iter()
        .find(|(k, _)| *k == preset)
        .map_or(preset, |(_, l)| l)
}

/// Side of a thumbnail, points at UI scale 1.
const THUMB: f32 = 72.0;

pub(super) fn show(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    panel(ctx, "free-flight", 680.0 * s, PANEL, s, |ui| {
        heading(ui, "Free Flight");
        let fly = ui
            .horizontal(|ui| {
                let fly = ui.add(
                    egui::Button::new(RichText::new("Fly").strong())
                        .min_size(vec2(140.0 * s, 44.0 * s)),
                );
                let back = ui.add(egui::Button::new("Back").min_size(vec2(120.0 * s, 44.0 * s)));
                if back.clicked() {
                    events.push(Event::Back);
                }
                fly
            })
            .inner;
        state.focus_first(&fly);
        if fly.clicked() {
            events.push(Event::Fly);
        }
        ui.separator();
        aircraft(ui, state, s);
        ui.separator();
        start(ui, state, s);
        ui.separator();
        time_and_weather(ui, state);
    });
}

fn aircraft(ui: &mut Ui, state: &mut UiState, s: f32) {
    ui.label(RichText::new("Aircraft").strong());
    if state.aircraft.is_empty() {
        ui.label("The default aircraft (no pack lists another).");
        return;
    }
    // A choice that is no longer loaded falls back to the first aircraft.
    let known = state
        .free_flight
        .aircraft
        .as_ref()
        .is_some_and(|id| state.aircraft.iter().any(|a| &a.type_id == id));
    if !known {
        state.free_flight.aircraft = state.aircraft.first().map(|a| a.type_id.clone());
    }
    let mut chosen = None;
    ui.horizontal_wrapped(|ui| {
        for a in &state.aircraft {
            let selected = state.free_flight.aircraft.as_deref() == Some(a.type_id.as_str());
            let text = format!("{}\n{}", a.name, a.pack);
            let button = match &a.thumbnail {
                Some(t) => egui::Button::image_and_text(
                    egui::Image::from_texture(t).fit_to_exact_size(vec2(THUMB, THUMB) * s),
                    text,
                ),
                None => egui::Button::new(text),
            };
            let r = ui
                .add(button.selected(selected).min_size(vec2(150.0, 48.0) * s))
                .on_hover_text(a.type_id.as_str());
            if r.clicked() {
                chosen = Some(a.type_id.clone());
            }
        }
    });
    if chosen.is_some() {
        state.free_flight.aircraft = chosen;
    }
}

fn start(ui: &mut Ui, state: &mut UiState, s: f32) {
    ui.label(RichText::new("Start").strong());
    let ff = &mut state.free_flight;
    let in_air = matches!(ff.start, StartPosition::Air { .. });
    ui.horizontal(|ui| {
        if ui.selectable_label(!in_air, "On the runway").clicked() {
            ff.start = StartPosition::Runway;
        }
        if ui.selectable_label(in_air, "In the air").clicked() && !in_air {
            ff.start = StartPosition::Air {
                altitude_m: 3_000.0,
            };
        }
    });
    if let StartPosition::Air { altitude_m } = &mut ff.start {
        let (lo, hi) = (*AIR_START_RANGE_M.start(), *AIR_START_RANGE_M.end());
        if !altitude_m.is_finite() {
            *altitude_m = 3_000.0;
        }
        *altitude_m = altitude_m.clamp(lo, hi);
        // Shown and chosen in the player's units, kept in metres.
        let (factor, suffix, step) = match state.settings.hud.units {
            Units::Imperial => (M_PER_FOOT, " ft", 500.0),
            Units::Metric => (1.0, " m", 100.0),
        };
        let mut shown = (*altitude_m / factor / step).round() * step;
        let lo_shown = (lo / factor / step).ceil() * step;
        let hi_shown = (hi / factor / step).floor() * step;
        let r = ui.add(
            Slider::new(&mut shown, lo_shown..=hi_shown)
                .step_by(step)
                .suffix(suffix)
                .text("Altitude"),
        );
        if r.changed() {
            *altitude_m = (shown * factor).clamp(lo, hi);
        }
        ui.add_space(2.0 * s);
    }
}

fn time_and_weather(ui: &mut Ui, state: &mut UiState) {
    let ff = &mut state.free_flight;
    if !(ff.time_of_day_h.is_finite() && (0.0..24.0).contains(&ff.time_of_day_h)) {
        ff.time_of_day_h = 10.0;
    }
    ui.add(
        Slider::new(&mut ff.time_of_day_h, 0.0..=23.5)
            .step_by(0.5)
            .custom_formatter(|h, _| {
                let m = (h * 60.0).round() as i64;
                format!("{:02}:{:02}", m / 60, m % 60)
            })
            .text("Time of day (local)"),
    );
    ui.label(RichText::new("Weather").strong());
    ui.horizontal_wrapped(|ui| {
        for (key, label) in WEATHER_PRESETS {
            if ui.selectable_label(ff.weather == key, label).clicked() {
                ff.weather = key.to_owned();
            }
        }
    });
}
