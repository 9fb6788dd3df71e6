//! The window's glue for the multiplayer overlays: which keys open them (T / the chat
//! binding, Y, Tab held, backquote), the view copied from the session for the screens, the
//! player's requests sent through the session, and which lost sessions may be rejoined.
//!
//! Owns no state of its own (the overlays' is [`crate::ui::SocialUi`], the session's is
//! [`crate::session::social::Social`]). Must not draw or decide screens.

use std::time::Duration;

use fl_protocol::enums::ChatChannel;
use winit::keyboard::{Key, KeyCode, NamedKey, PhysicalKey};

use crate::client::Client;
use crate::messages::EndReason;
use crate::ui::{SocialRequest, SocialUi, UiState};

/// What a key pressed in flight does to the overlays (`None`: nothing, it flies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKey {
    TeamChat,
    Console,
    /// Tab, pressed (true) or released.
    Scoreboard(bool),
}

/// The fixed overlay keys (not rebindable; the All chat is the `chat` binding, T).
pub fn overlay_key(logical: &Key, physical: PhysicalKey, pressed: bool) -> Option<OverlayKey> {
    if physical == PhysicalKey::Code(KeyCode::Backquote) && pressed {
        return Some(OverlayKey::Console);
    }
    match logical {
        Key::Named(NamedKey::Tab) => Some(OverlayKey::Scoreboard(pressed)),
        Key::Character(c) if pressed && c.eq_ignore_ascii_case("y") => Some(OverlayKey::TeamChat),
        _ => None,
    }
}

/// Applies an overlay key; returns whether it opened a text box (the key's own character must
/// then not be typed into it).
pub fn apply_overlay_key(ui: &mut SocialUi, key: OverlayKey) -> bool {
    match key {
        OverlayKey::TeamChat if !ui.typing() => {
            ui.open_chat(ChatChannel::Team);
            true
        }
        OverlayKey::Console if ui.chat_channel().is_none() => {
            ui.toggle_console();
            ui.console_open()
        }
        OverlayKey::Scoreboard(held) => {
            ui.scoreboard_held = held && !ui.typing();
            false
        }
        _ => false,
    }
}

/// Copies what the overlays show from the session (the social state only when it changed).
pub fn refresh_view(ui: &mut UiState, client: &Client, now: Duration, online: bool) {
    let session = client.session();
    let view = &mut ui.social_view;
    let social = session.social();
    if view.social.generation() != social.generation() || !view.online {
        view.social = social.clone();
        view.factions = session
            .factions()
            .values()
            .map(|f| (f.index, f.name.clone()))
            .collect();
    }
    view.online = online;
    view.now = now;
    view.tick = session.last_snapshot_tick();
    view.tick_rate_hz = session.admission().map_or(0, |a| a.tick_rate_hz);
    let link = session.link_stats();
    view.own_ping_ms = Some(link.rtt.as_secs_f64() * 1e3);
    view.own_loss_percent = Some(link.loss.max(link.loss_in) * 100.0);
}

/// Sends what the player asked for; a refusal is noted in the console (admin) or logged.
pub fn send_requests(ui: &mut UiState, client: &mut Client) {
    for r in ui.social.take_requests() {
        let session = client.session_mut();
        let sent = match r {
            SocialRequest::Chat(channel, text) => session.send_chat(channel, &text),
            SocialRequest::Team(faction) => session.send_team_request(faction),
            SocialRequest::Mute(id, muted) => {
                session.social_mut().set_muted(id, muted);
                Ok(())
            }
            SocialRequest::ConsoleNote(text) => {
                session.social_mut().console_mut().note(&text);
                Ok(())
            }
            SocialRequest::Admin { token, command } => {
                session
                    .social_mut()
                    .console_mut()
                    .note(&format!("> {command}"));
                match session.send_admin(&token, &command) {
                    Ok(_) => Ok(()),
                    Err(e) => {
                        session
                            .social_mut()
                            .console_mut()
                            .note(&format!("not sent: {e}"));
                        Err(e)
                    }
                }
            }
        };
        if let Err(e) = sent {
            tracing::warn!("not sent: {e}");
        }
    }
}

/// Whether a multiplayer session that ended this way may be rejoined: the link timed out or
/// broke, or the server went away — not a refusal (kick, ban), a changed identity, a version
/// mismatch, or the player leaving.
pub fn rejoinable(reason: Option<&EndReason>) -> bool {
    matches!(
        reason,
        Some(EndReason::TimedOut | EndReason::Transport(_) | EndReason::ServerShutdown { .. })
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_link_or_a_gone_server_is_rejoinable() {
        assert!(rejoinable(Some(&EndReason::TimedOut)));
        assert!(rejoinable(Some(&EndReason::Transport("reset".into()))));
        assert!(rejoinable(Some(&EndReason::ServerShutdown {
            notice: String::new()
        })));
        assert!(!rejoinable(Some(&EndReason::ClosedByServer(
            "kicked".into()
        ))));
        assert!(!rejoinable(Some(&EndReason::Refused {
            code: fl_protocol::enums::ConnectRefusalCode::Banned,
            reason: String::new(),
        })));
        assert!(!rejoinable(Some(&EndReason::Local("left".into()))));
        assert!(!rejoinable(None));
    }

    #[test]
    fn overlay_keys_open_team_chat_toggle_the_console_and_hold_the_scoreboard() {
        let mut ui = SocialUi::default();
        let y = Key::Character("y".into());
        let k = overlay_key(&y, PhysicalKey::Code(KeyCode::KeyY), true).expect("y");
        assert!(apply_overlay_key(&mut ui, k));
        assert_eq!(ui.chat_channel(), Some(ChatChannel::Team));
        assert!(ui.typing());
        // While typing, Tab does not raise the scoreboard and Y does nothing more.
        let tab = Key::Named(NamedKey::Tab);
        let t = overlay_key(&tab, PhysicalKey::Code(KeyCode::Tab), true).expect("tab");
        apply_overlay_key(&mut ui, t);
        assert!(!ui.scoreboard_held);
        ui.close_chat();
        apply_overlay_key(&mut ui, t);
        assert!(ui.scoreboard_held);
        let up = overlay_key(&tab, PhysicalKey::Code(KeyCode::Tab), false).expect("release");
        apply_overlay_key(&mut ui, up);
        assert!(!ui.scoreboard_held);
        let bq = Key::Character("`".into());
        let c = overlay_key(&bq, PhysicalKey::Code(KeyCode::Backquote), true).expect("`");
        assert!(apply_overlay_key(&mut ui, c));
        assert!(ui.console_open());
        assert!(!apply_overlay_key(&mut ui, c));
        assert!(!ui.console_open());
        assert_eq!(
            overlay_key(
                &Key::Character("g".into()),
                PhysicalKey::Code(KeyCode::KeyG),
                true
            ),
            None
        );
    }
}
