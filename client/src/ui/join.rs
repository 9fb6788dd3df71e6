//! The Join screen — address, Connect, and the server browser (LAN servers, favourites and
//! recent servers with their live details; select and Join, or double-click) — and the
//! trust-on-first-use prompt that shows a new server's fingerprint.
//!
//! An address is checked with the same parser as `--connect` before any session starts: a bad
//! one stays on this screen with the reason under the field.

use egui::{Color32, Context, Frame, Id, Key, Margin, RichText, TextEdit};

use super::{PANEL, UiState, dim_background, error_line, heading, panel, wide_button};
use crate::address::parse_target;
use crate::browser::Origin;
use crate::screens::Event;

pub(super) fn show(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    panel(ctx, "join", 900.0 * s, PANEL, s, |ui| {
        heading(ui, "Join a Server");
        let label = ui.label("Server address");
        let field = ui
            .add(
                TextEdit::singleline(&mut state.join.address)
                    .hint_text("host or host:port")
                    .char_limit(300)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
        state.focus_first(&field);
        if field.changed() {
            state.join.error = None;
        }
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        if let Some(e) = &state.join.error {
            error_line(ui, e);
        }
        let (connect, favourite) = ui.columns(2, |c| {
            (
                wide_button(&mut c[0], "Connect").clicked(),
                wide_button(&mut c[1], "Add to Favourites").clicked(),
            )
        });
        if entered || connect {
            let typed = state.join.address.clone();
            try_connect(state, &typed, events);
        }
        if favourite {
            let typed = state.join.address.trim().to_owned();
            match parse_target(&typed) {
                Ok(_) => {
                    if !state.settings.player.favourite_servers.contains(&typed) {
                        state.settings.toggle_favourite(&typed);
                        events.push(Event::FavouritesChanged);
                    }
                }
                Err(e) => state.join.error = Some(e.to_string()),
            }
        }
        ui.add_space(6.0 * s);
        server_list(ui, state, events);
        ui.add_space(6.0 * s);
        let chosen = state.join.selected.clone();
        let join = ui
            .add_enabled_ui(chosen.is_some(), |ui| wide_button(ui, "Join"))
            .inner;
        if join.clicked()
            && let Some(address) = chosen
        {
            try_connect(state, &address, events);
        }
        if wide_button(ui, "Back").clicked() {
            events.push(Event::Back);
        }
    });
}

/// The browser's table: LAN servers, favourites, recent servers, with what their query
/// replies said. A click selects a row, a double click joins it.
fn server_list(ui: &mut egui::Ui, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    ui.horizontal(|ui| {
        ui.label(RichText::new("Servers").strong());
        if ui
            .button("Refresh")
            .on_hover_text("Ask every listed server for its details again")
            .clicked()
        {
            state.join.refresh = true;
        }
    });
    let Some(browser) = &state.browser else {
        return;
    };
    if let Some(e) = browser.lan_error() {
        error_line(ui, e);
    }
    let rows = browser.rows(std::time::Instant::now());
    if rows.is_empty() {
        ui.label(
            RichText::new(
                "No servers yet: servers on your network appear here; type an address \
                 above and add it to your favourites to keep it.",
            )
            .small(),
        );
        return;
    }
    let mut select = None;
    let mut join = None;
    let mut toggle = None;
    egui::Grid::new("fl-server-browser")
        .num_columns(7)
        .striped(true)
        .spacing(egui::vec2(12.0 * s, 4.0 * s))
        .show(ui, |ui| {
            for h in [
                "Favourite",
                "Server",
                "From",
                "Map / mission",
                "Players",
                "Ping",
                "",
            ] {
                ui.label(RichText::new(h).small().strong());
            }
            ui.end_row();
            for row in &rows {
                let fav = state
                    .settings
                    .player
                    .favourite_servers
                    .iter()
                    .any(|f| f == &row.address);
                let star = ui
                    .small_button(if fav { "Remove" } else { "Add" })
                    .on_hover_text(if fav {
                        "Remove from favourites"
                    } else {
                        "Add to favourites"
                    });
                if star.clicked() {
                    toggle = Some(row.address.clone());
                }
                let selected = state.join.selected.as_deref() == Some(row.address.as_str());
                let origin = match row.origin {
                    Origin::Lan => "LAN",
                    Origin::Favourite => "Favourite",
                    Origin::Recent => "Recent",
                };
                let name = ui
                    .selectable_label(selected, &row.name)
                    .on_hover_text(format!("{origin}: {} — double-click to join", row.address));
                if name.clicked() {
                    select = Some(row.address.clone());
                }
                if name.double_clicked() {
                    join = Some(row.address.clone());
                }
                ui.label(RichText::new(origin).small());
                let d = row.details.as_ref();
                let map = d
                    .map(|d| {
                        if !d.mission.is_empty() {
                            d.mission.clone()
                        } else if !d.mode_id.is_empty() {
                            d.mode_id.clone()
                        } else {
                            "free flight".to_owned()
                        }
                    })
                    .unwrap_or_else(|| "—".to_owned());
                ui.label(map);
                let players = d
                    .map(|d| (d.player_count, d.max_players))
                    .or(row.beacon_players)
                    .map(|(p, m)| format!("{p}/{m}"))
                    .unwrap_or_else(|| "—".to_owned());
                ui.label(players);
                ui.label(
                    d.map(|d| format!("{} ms", d.ping.as_millis()))
                        .unwrap_or_else(|| "—".to_owned()),
                );
                let mut notes: Vec<String> = Vec::new();
                if let Some(d) = d {
                    if d.passworded {
                        notes.push("password".into());
                    }
                    if d.shutting_down {
                        notes.push(if d.shutdown_seconds > 0 {
                            format!("shutting down in {} s", d.shutdown_seconds)
                        } else {
                            "shutting down".into()
                        });
                    }
                    if let Some(b) = &d.build {
                        notes.push(format!("build {b}"));
                    }
                } else if !row.status.is_empty() {
                    notes.push(row.status.clone());
                }
                ui.label(RichText::new(notes.join(", ")).small());
                ui.end_row();
            }
        });
    if let Some(a) = select {
        state.join.selected = Some(a);
    }
    if let Some(a) = toggle {
        state.settings.toggle_favourite(&a);
        events.push(Event::FavouritesChanged);
    }
    if let Some(a) = join {
        state.join.selected = Some(a.clone());
        try_connect(state, &a, events);
    }
}

/// Starts the join when `address` parses; otherwise says why on the form.
fn try_connect(state: &mut UiState, address: &str, events: &mut Vec<Event>) {
    match parse_target(address) {
        Ok(_) => {
            state.join.error = None;
            events.push(Event::Connect(address.trim().to_owned()));
        }
        Err(e) => state.join.error = Some(e.to_string()),
    }
}

/// A fingerprint as upper-case byte pairs joined by colons, eight pairs a line; `None` when it
/// is not hex (colons, spaces and case ignored) or has an odd number of digits.
pub fn format_fingerprint(hex: &str) -> Option<String> {
    let digits: Vec<char> = hex
        .chars()
        .filter(|c| !matches!(c, ':' | ' '))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if digits.is_empty()
        || !digits.len().is_multiple_of(2)
        || digits.len() > 128
        || !digits.iter().all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let pairs: Vec<String> = digits.chunks(2).map(|p| p.iter().collect()).collect();
    let lines: Vec<String> = pairs.chunks(8).map(|l| l.join(":")).collect();
    Some(lines.join("\n"))
}

/// The prompt over the Loading screen: the server is new to this client; trust its identity?
pub(super) fn tofu_prompt(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let Some(prompt) = state.tofu_prompt.clone() else {
        return;
    };
    let s = state.layout_scale;
    egui::Modal::new(Id::unique("fl-ui-tofu"))
        .backdrop_color(Color32::from_black_alpha(140))
        .frame(
            Frame::new()
                .fill(PANEL)
                .inner_margin(Margin::same((20.0 * s).round().clamp(0.0, 127.0) as i8)),
        )
        .show(ctx, |ui| {
            super::apply_style(ui, s);
            ui.set_max_width(560.0 * s);
            heading(ui, "New server");
            ui.label(format!(
                "You have not joined {} before. Its identity fingerprint (SHA-256) is:",
                prompt.address
            ));
            match format_fingerprint(&prompt.fingerprint_hex) {
                Some(f) => {
                    ui.label(RichText::new(f).monospace().strong());
                }
                None => error_line(
                    ui,
                    &format!(
                        "(not a fingerprint: {:?})",
                        prompt.fingerprint_hex.chars().take(80).collect::<String>()
                    ),
                ),
            }
            ui.label(
                "If you know the server's operator, compare it with theirs. \
                 Trusting it saves it; the game warns you if it ever changes.",
            );
            ui.horizontal(|ui| {
                let trust = ui.button("Trust and Connect");
                state.focus_first(&trust);
                if trust.clicked() {
                    events.push(Event::TrustServer);
                }
                if ui.button("Don't Connect").clicked() {
                    events.push(Event::DeclineServer);
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_grouped_and_checked() {
        assert_eq!(format_fingerprint("ab01"), Some("AB:01".into()));
        assert_eq!(format_fingerprint("AB:01"), Some("AB:01".into()));
        let sixty_four = "0123456789abcdef".repeat(4);
        let f = format_fingerprint(&sixty_four).expect("valid");
        assert_eq!(f.lines().count(), 4);
        assert!(f.starts_with("01:23:45:67:89:AB:CD:EF\n"));
        assert_eq!(format_fingerprint("abc"), None);
        assert_eq!(format_fingerprint("zz"), None);
        assert_eq!(format_fingerprint(""), None);
        assert_eq!(format_fingerprint(&"a".repeat(1000)), None);
    }
}
