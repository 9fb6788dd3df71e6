//! What the screens draw around a flight: the banner line in Flight (the HUD is the window's),
//! the Pause panel over the scene, and the Debrief.

use egui::{Align2, Color32, Context, Frame, Grid, Id, Margin, Order, RichText, vec2};

use super::{
    PANEL, PANEL_TRANSLUCENT, UiState, apply_style, clock, dim_background, heading, panel,
    wide_button,
};
use crate::hud::Units;
use crate::screens::{Event, Screens, SessionKind};

/// The window's banner (e.g. "connection interrupted"), top centre, over the scene.
fn banner(ctx: &Context, state: &UiState, s: f32) {
    let Some(text) = &state.banner else {
        return;
    };
    egui::Area::new(Id::unique("fl-ui-banner"))
        .anchor(Align2::CENTER_TOP, vec2(0.0, 64.0 * s))
        .order(Order::Foreground)
        .interactable(false)
        .show(ctx, |ui| {
            apply_style(ui, s);
            Frame::new()
                .fill(Color32::from_rgba_premultiplied(60, 30, 0, 210))
                .inner_margin(Margin::symmetric(
                    (14.0 * s).round().clamp(0.0, 127.0) as i8,
                    (8.0 * s).round().clamp(0.0, 127.0) as i8,
                ))
                .show(ui, |ui| {
                    ui.set_max_width(ctx.content_rect().width() * 0.7);
                    ui.label(RichText::new(text).color(Color32::from_rgb(255, 220, 160)));
                });
        });
}

pub(super) fn flight(ctx: &Context, state: &mut UiState, s: f32) {
    banner(ctx, state, s);
}

pub(super) fn pause(
    ctx: &Context,
    screens: &Screens,
    state: &mut UiState,
    events: &mut Vec<Event>,
) {
    let s = state.layout_scale;
    banner(ctx, state, s);
    let online = matches!(screens.session(), Some(SessionKind::Multiplayer { .. }));
    panel(ctx, "pause", 420.0 * s, PANEL_TRANSLUCENT, s, |ui| {
        heading(ui, "Paused");
        if online {
            ui.label(RichText::new("Online: the flight goes on while this menu is open.").weak());
        }
        let resume = wide_button(ui, "Resume");
        state.focus_first(&resume);
        if resume.clicked() {
            events.push(Event::Resume);
        }
        if wide_button(ui, "Settings").clicked() {
            events.push(Event::OpenSettings);
        }
        if online && state.social_view.online {
            let label = if state.social.console_open() {
                "Close Console"
            } else {
                "Console"
            };
            if wide_button(ui, label).clicked() {
                state.social.toggle_console();
            }
        }
        if wide_button(ui, "End Flight").clicked() {
            events.push(Event::EndFlight);
        }
        if wide_button(ui, "Quit to Menu").clicked() {
            events.push(Event::QuitToMenu);
        }
        if online && state.social_view.online {
            super::social::pause_section(ui, &state.social_view, &mut state.social, s);
        }
    });
}

/// A distance in nautical miles or kilometres.
fn distance(units: Units, m: f64) -> String {
    if !m.is_finite() || m < 0.0 {
        return "—".to_owned();
    }
    match units {
        Units::Imperial => format!("{:.1} NM", m / 1852.0),
        Units::Metric => format!("{:.1} km", m / 1000.0),
    }
}

pub(super) fn debrief(
    ctx: &Context,
    screens: &Screens,
    state: &mut UiState,
    events: &mut Vec<Event>,
) {
    let s = state.layout_scale;
    dim_background(ctx, 170);
    let units = state.settings.hud.units;
    let stats = state.debrief.clone();
    panel(ctx, "debrief", 520.0 * s, PANEL, s, |ui| {
        heading(ui, "Debrief");
        if let Some(outcome) = screens.debrief() {
            ui.label(RichText::new(outcome).strong());
        }
        match &stats {
            Some(d) => {
                Grid::new("fl-ui-debrief-grid")
                    .num_columns(2)
                    .spacing(vec2(24.0 * s, 8.0 * s))
                    .show(ui, |ui| {
                        let mut row = |k: &str, v: String| {
                            ui.label(k);
                            ui.label(RichText::new(v).monospace());
                            ui.end_row();
                        };
                        row("Time flown", clock(d.time_flown_s));
                        row("Distance", distance(units, d.distance_m));
                        row(
                            "Max G",
                            if d.max_g.is_finite() {
                                format!("{:.1} G", d.max_g)
                            } else {
                                "—".to_owned()
                            },
                        );
                        row("Landings", d.landings.to_string());
                        if !d.ended.is_empty() && Some(d.ended.as_str()) != screens.debrief() {
                            row("Ended by", d.ended.clone());
                        }
                    });
            }
            None => {
                ui.label("No flight record.");
            }
        }
        let mission = stats.as_ref().and_then(|d| d.mission.as_ref());
        if let Some(m) = mission {
            ui.add_space(8.0 * s);
            ui.label(RichText::new(format!("{}: {}", m.name, m.result)).strong());
            if let Some(t) = m.elapsed_s {
                ui.label(format!("Mission time {}", clock(t)));
            }
            for (mark, text) in &m.objectives {
                ui.label(RichText::new(format!("{mark} {text}")).monospace());
            }
            ui.label(format!("Kills {}   Losses {}", m.kills, m.losses));
        }
        ui.add_space(8.0 * s);
        let retry = mission.is_some() && screens.can_retry();
        let first = if retry {
            let r = wide_button(ui, "Retry Mission");
            if r.clicked() {
                events.push(Event::Retry);
            }
            Some(r)
        } else {
            None
        };
        let menu = wide_button(ui, "Main Menu");
        state.focus_first(first.as_ref().unwrap_or(&menu));
        if menu.clicked() {
            events.push(Event::QuitToMenu);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_in_the_players_units() {
        assert_eq!(distance(Units::Imperial, 1852.0 * 2.5), "2.5 NM");
        assert_eq!(distance(Units::Metric, 12_340.0), "12.3 km");
        assert_eq!(distance(Units::Metric, f64::NAN), "—");
    }
}
