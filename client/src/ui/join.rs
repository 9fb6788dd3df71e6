//! The Join screen (address, Connect, recent servers, the refused address's reason) and the
//! trust-on-first-use prompt that shows a new server's fingerprint.
//!
//! An address is checked with the same parser as `--connect` before any session starts: a bad
//! one stays on this screen with the reason under the field.

use egui::{Color32, Context, Frame, Id, Key, Margin, RichText, TextEdit};

use super::{PANEL, UiState, dim_background, error_line, heading, panel, wide_button};
use crate::address::parse_target;
use crate::screens::Event;

pub(super) fn show(ctx: &Context, state: &mut UiState, events: &mut Vec<Event>) {
    let s = state.layout_scale;
    dim_background(ctx, 150);
    panel(ctx, "join", 560.0 * s, PANEL, s, |ui| {
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
        let connect = wide_button(ui, "Connect").clicked();
        if entered || connect {
            let typed = state.join.address.clone();
            try_connect(state, &typed, events);
        }
        if !state.settings.player.recent_servers.is_empty() {
            ui.add_space(6.0 * s);
            ui.label(RichText::new("Recent servers").strong());
            let mut chosen = None;
            for address in &state.settings.player.recent_servers {
                if ui
                    .button(address.as_str())
                    .on_hover_text("Connect to this server")
                    .clicked()
                {
                    chosen = Some(address.clone());
                }
            }
            if let Some(address) = chosen {
                state.join.address = address.clone();
                try_connect(state, &address, events);
            }
        }
        ui.add_space(6.0 * s);
        if wide_button(ui, "Back").clicked() {
            events.push(Event::Back);
        }
    });
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
