//! The multiplayer overlays: the chat box and the recent chat lines over the flight, the
//! scoreboard (Tab held), the Pause screen's player list (mute, team switch) and the operator
//! console (docs/ui.md, *Playing together*).
//!
//! Owns: drawing them from a [`SocialView`] the window copies from the session, the chat and
//! console input, and the admin token typed with `login` (in memory only, never saved). Must
//! not: touch the session (what the player asks for is queued as [`SocialRequest`]s that the
//! window sends), or persist anything.

use std::collections::BTreeMap;
use std::time::Duration;

use egui::{
    Align2, Color32, Context, Frame, Grid, Id, Key, Margin, Order, RichText, ScrollArea, TextEdit,
    Ui, vec2,
};
use fl_protocol::enums::ChatChannel;

use super::{ACCENT, apply_style, clock};
use crate::session::social::{ChatLine, LAG_PING_MS, Social, clamp_chat_input, phase_name};

/// How long a chat line stays over the flight while the chat box is closed.
pub const CHAT_FADE: Duration = Duration::from_secs(10);
/// The last part of [`CHAT_FADE`] over which a line fades out.
const CHAT_FADE_OUT: Duration = Duration::from_secs(2);
/// Chat lines shown over the flight at most (more while the box is open).
const CHAT_LINES_CLOSED: usize = 6;
const CHAT_LINES_OPEN: usize = 14;
/// Console lines shown (the newest).
const CONSOLE_LINES_SHOWN: usize = 400;

/// Team chat's colour (and its `[TEAM]` mark).
const TEAM: Color32 = Color32::from_rgb(130, 230, 150);
/// System lines.
const SYSTEM: Color32 = Color32::from_rgb(255, 210, 120);
/// The player's own row and name.
const OWN: Color32 = Color32::from_rgb(255, 235, 130);
/// The lag marker.
const LAG: Color32 = Color32::from_rgb(255, 120, 90);

/// What the overlays show, copied by the window from the session each frame it changed.
#[derive(Debug, Clone, Default)]
pub struct SocialView {
    /// The session's social state (roster, chat, scores, match, mutes, console).
    pub social: Social,
    /// Faction names by index (the server's `MsgFactionDef`).
    pub factions: BTreeMap<u16, String>,
    /// The newest server tick and the tick rate (for the phase's time left).
    pub tick: Option<u64>,
    pub tick_rate_hz: u8,
    /// The player's own link (the session's link stats).
    pub own_ping_ms: Option<f64>,
    pub own_loss_percent: Option<f64>,
    /// Session time now (chat lines fade by it).
    pub now: Duration,
    /// Whether a multiplayer session is up (the overlays show only then).
    pub online: bool,
}

impl SocialView {
    fn team_name(&self, faction: u16) -> String {
        self.factions
            .get(&faction)
            .cloned()
            .unwrap_or_else(|| format!("Team {faction}"))
    }
}

/// Something the player asked for that the window sends through the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocialRequest {
    Chat(ChatChannel, String),
    /// Mute (true) or unmute a participant's chat.
    Mute(u32, bool),
    /// Switch to this faction (`MsgTeamRequest`).
    Team(u16),
    /// An operator command with the token typed at `login`.
    Admin {
        token: String,
        command: String,
    },
    /// A line of the client's own for the console (what was typed, a local answer).
    ConsoleNote(String),
}

/// The overlays' own state.
#[derive(Debug, Default)]
pub struct SocialUi {
    /// The chat box is open on this channel.
    chat_open: Option<ChatChannel>,
    pub chat_text: String,
    focus_chat: bool,
    /// Tab is held in flight.
    pub scoreboard_held: bool,
    console_open: bool,
    pub console_text: String,
    focus_console: bool,
    /// The operator password from `login` (this session's memory only).
    admin_token: Option<String>,
    /// The Pause screen's team choice.
    team_choice: Option<u16>,
    /// What the window is to send, in order.
    pub requests: Vec<SocialRequest>,
}

impl SocialUi {
    /// Opens the chat box on `channel` (T or the chat binding: All; Y: Team).
    pub fn open_chat(&mut self, channel: ChatChannel) {
        self.chat_open = Some(channel);
        self.chat_text.clear();
        self.focus_chat = true;
    }

    pub fn chat_channel(&self) -> Option<ChatChannel> {
        self.chat_open
    }

    pub fn close_chat(&mut self) {
        self.chat_open = None;
        self.chat_text.clear();
    }

    pub fn console_open(&self) -> bool {
        self.console_open
    }

    /// Opens or closes the operator console (the backquote key, the Pause screen's button).
    pub fn toggle_console(&mut self) {
        self.console_open = !self.console_open;
        self.focus_console = self.console_open;
    }

    /// Whether the player is typing (chat or console): the flight keys must not fly.
    pub fn typing(&self) -> bool {
        self.chat_open.is_some() || self.console_open
    }

    /// Whether `login` set a token.
    pub fn logged_in(&self) -> bool {
        self.admin_token.is_some()
    }

    /// Everything closed and forgotten (the session ended): the token too.
    pub fn reset(&mut self) {
        *self = SocialUi::default();
    }

    /// Takes the requests queued since the last call.
    pub fn take_requests(&mut self) -> Vec<SocialRequest> {
        std::mem::take(&mut self.requests)
    }

    /// One console line typed: `login <token>` keeps the token, `logout` forgets it, `clear`
    /// empties the log, anything else goes to the server with the token.
    fn console_submit(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        if let Some(token) = line.strip_prefix("login ").map(str::trim) {
            self.admin_token = Some(token.to_owned());
            self.requests.push(SocialRequest::ConsoleNote(
                "> login ******** (kept in memory for this session)".to_owned(),
            ));
        } else if line == "logout" {
            self.admin_token = None;
            self.requests
                .push(SocialRequest::ConsoleNote("> logout".to_owned()));
        } else if let Some(token) = &self.admin_token {
            self.requests.push(SocialRequest::Admin {
                token: token.clone(),
                command: line.to_owned(),
            });
        } else {
            self.requests.push(SocialRequest::ConsoleNote(format!(
                "> {line}: not logged in (type login <token> first)"
            )));
        }
    }
}

fn margin(s: f32, x: f32, y: f32) -> Margin {
    Margin::symmetric(
        (x * s).round().clamp(0.0, 127.0) as i8,
        (y * s).round().clamp(0.0, 127.0) as i8,
    )
}

/// The line as shown: "[TEAM] Name: text", "Name: text", or the system text.
pub fn chat_line_text(line: &ChatLine) -> String {
    let team = if line.channel == ChatChannel::Team {
        "[TEAM] "
    } else {
        ""
    };
    if line.is_system() {
        format!("{team}* {}", line.text)
    } else {
        format!("{team}{}: {}", line.sender_name, line.text)
    }
}

fn line_colour(line: &ChatLine) -> Color32 {
    if line.is_system() {
        SYSTEM
    } else if line.channel == ChatChannel::Team {
        TEAM
    } else {
        Color32::from_gray(235)
    }
}

/// The flight's overlays (`paused`: only the console, over the Pause panel). Returns whether
/// Escape was taken (it closed the chat box or the console instead of pausing or resuming).
pub(super) fn flight_overlays(
    ctx: &Context,
    view: &SocialView,
    state: &mut SocialUi,
    s: f32,
    paused: bool,
) -> bool {
    if !view.online {
        return false;
    }
    if paused {
        // The chat box and the scoreboard belong to the flight; the Pause panel lists the
        // players itself.
        state.chat_open = None;
        state.scoreboard_held = false;
        return console(ctx, view, state, s);
    }
    let board = state.scoreboard_held && state.chat_open.is_none();
    // The scoreboard covers the middle: the fading chat lines wait until it is let go.
    let mut took_escape = if board {
        false
    } else {
        chat(ctx, view, state, s)
    };
    if board {
        scoreboard(ctx, view, s);
    }
    took_escape |= console(ctx, view, state, s);
    took_escape
}

/// The chat lines and, while open, the chat box, bottom left.
fn chat(ctx: &Context, view: &SocialView, state: &mut SocialUi, s: f32) -> bool {
    let open = state.chat_open;
    let now = view.now;
    let lines: Vec<&ChatLine> = view.social.visible_chat().collect();
    let shown: Vec<(&ChatLine, f32)> = if open.is_some() {
        let from = lines.len().saturating_sub(CHAT_LINES_OPEN);
        lines[from..].iter().map(|l| (*l, 1.0)).collect()
    } else {
        let recent: Vec<(&ChatLine, f32)> = lines
            .iter()
            .filter(|l| l.received_at <= now && now - l.received_at < CHAT_FADE)
            .map(|l| {
                let age = now - l.received_at;
                let left = CHAT_FADE.saturating_sub(age);
                let alpha = (left.as_secs_f32() / CHAT_FADE_OUT.as_secs_f32()).clamp(0.0, 1.0);
                (*l, alpha)
            })
            .collect();
        let from = recent.len().saturating_sub(CHAT_LINES_CLOSED);
        recent[from..].to_vec()
    };
    if shown.is_empty() && open.is_none() {
        return false;
    }
    if shown.iter().any(|(_, a)| *a < 1.0) {
        ctx.request_repaint();
    }
    let mut took_escape = false;
    egui::Area::new(Id::unique("fl-ui-chat"))
        .anchor(Align2::LEFT_BOTTOM, vec2(16.0 * s, -150.0 * s))
        .order(Order::Foreground)
        .show(ctx, |ui| {
            apply_style(ui, s);
            let fill = if open.is_some() {
                Color32::from_black_alpha(170)
            } else {
                Color32::from_black_alpha(90)
            };
            Frame::new()
                .fill(fill)
                .inner_margin(margin(s, 10.0, 6.0))
                .show(ui, |ui| {
                    // A fixed width (long lines wrap), so the box never jumps with its text.
                    ui.set_width((ctx.content_rect().width() * 0.45).clamp(200.0, 480.0 * s));
                    ui.spacing_mut().item_spacing.y = 2.0 * s;
                    for (line, alpha) in &shown {
                        ui.label(
                            RichText::new(chat_line_text(line))
                                .color(line_colour(line).gamma_multiply(*alpha)),
                        );
                    }
                    if let Some(channel) = open {
                        took_escape = chat_box(ui, state, channel);
                    }
                });
        });
    took_escape
}

/// The input line; Enter sends, Escape cancels. Returns whether Escape closed it.
fn chat_box(ui: &mut Ui, state: &mut SocialUi, channel: ChatChannel) -> bool {
    let (label, colour) = match channel {
        ChatChannel::All => ("Say (all):", Color32::WHITE),
        ChatChannel::Team => ("Say (team):", TEAM),
    };
    let mut took_escape = false;
    ui.horizontal(|ui| {
        let l = ui.label(RichText::new(label).color(colour).strong());
        let field = ui
            .add(
                TextEdit::singleline(&mut state.chat_text)
                    .desired_width(f32::INFINITY)
                    .hint_text("Enter sends, Esc cancels"),
            )
            .labelled_by(l.id);
        if field.changed() {
            clamp_chat_input(&mut state.chat_text);
        }
        if state.focus_chat {
            field.request_focus();
            state.focus_chat = false;
        }
        let (enter, escape) = ui.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
        if escape {
            state.close_chat();
            took_escape = true;
        } else if enter && (field.lost_focus() || field.has_focus()) {
            let text = state.chat_text.trim().to_owned();
            if !text.is_empty() {
                state.requests.push(SocialRequest::Chat(channel, text));
            }
            state.close_chat();
        }
    });
    took_escape
}

/// The scoreboard, centred: match, teams with scores, rows by score.
fn scoreboard(ctx: &Context, view: &SocialView, s: f32) {
    let social = &view.social;
    let own = social.own_id();
    egui::Area::new(Id::unique("fl-ui-scoreboard"))
        .anchor(Align2::CENTER_CENTER, vec2(0.0, 0.0))
        .order(Order::Foreground)
        .interactable(false)
        .show(ctx, |ui| {
            apply_style(ui, s);
            Frame::new()
                .fill(Color32::from_rgba_premultiplied(10, 14, 20, 225))
                .stroke(egui::Stroke::new(1.0, Color32::from_gray(70)))
                .inner_margin(margin(s, 18.0, 14.0))
                .show(ui, |ui| {
                    ui.set_min_width(520.0 * s);
                    ui.label(RichText::new("Scoreboard").heading().color(ACCENT));
                    if let Some(m) = social.match_info() {
                        let mode = if m.mode_name.is_empty() {
                            m.mode_id.as_str()
                        } else {
                            m.mode_name.as_str()
                        };
                        let mut line = format!("{mode}  ·  {}", phase_name(m.phase));
                        if let Some(left) =
                            view.tick.and_then(|t| m.remaining_s(t, view.tick_rate_hz))
                        {
                            line.push_str(&format!("  ·  {} left", clock(left)));
                        }
                        if m.score_limit > 0 {
                            line.push_str(&format!("  ·  first to {}", m.score_limit));
                        }
                        ui.label(line);
                        if !m.teams.is_empty() {
                            let teams: Vec<String> = m
                                .teams
                                .iter()
                                .map(|(f, score)| format!("{} {score}", view.team_name(*f)))
                                .collect();
                            ui.label(RichText::new(teams.join("   —   ")).strong());
                        }
                    }
                    ui.add_space(6.0 * s);
                    let rows = social.scoreboard();
                    if rows.is_empty() {
                        ui.label(RichText::new("No scores yet.").weak());
                    }
                    Grid::new("fl-ui-scoreboard-grid")
                        .num_columns(7)
                        .spacing(vec2(18.0 * s, 4.0 * s))
                        .show(ui, |ui| {
                            for h in ["Player", "Team", "Score", "Kills", "Deaths", "Ping", ""] {
                                ui.label(RichText::new(h).weak());
                            }
                            ui.end_row();
                            for r in &rows {
                                let mine = Some(r.participant_id) == own;
                                let colour = if mine { OWN } else { Color32::from_gray(230) };
                                let cell = |t: String| RichText::new(t).color(colour);
                                let mut name = social.display_name(r.participant_id);
                                if social
                                    .roster()
                                    .get(&r.participant_id)
                                    .is_some_and(|p| p.bot)
                                {
                                    name.push_str(" (bot)");
                                }
                                let name = if mine {
                                    cell(format!("» {name}")).strong()
                                } else {
                                    cell(name)
                                };
                                ui.label(name);
                                ui.label(cell(view.team_name(r.faction_index)));
                                ui.label(cell(r.score.to_string()));
                                ui.label(cell(r.kills.to_string()));
                                ui.label(cell(r.deaths.to_string()));
                                ui.label(cell(format!("{} ms", r.ping_ms)));
                                if r.lagging() {
                                    ui.label(RichText::new("LAG").color(LAG).strong())
                                        .on_hover_text(format!("ping above {LAG_PING_MS} ms"));
                                } else {
                                    ui.label("");
                                }
                                ui.end_row();
                            }
                        });
                    if view.own_ping_ms.is_some() || view.own_loss_percent.is_some() {
                        ui.add_space(6.0 * s);
                        let ping = view
                            .own_ping_ms
                            .map_or("—".to_owned(), |p| format!("{p:.0} ms"));
                        let loss = view
                            .own_loss_percent
                            .map_or("—".to_owned(), |l| format!("{l:.1} %"));
                        ui.label(
                            RichText::new(format!("Your link: ping {ping}, loss {loss}")).weak(),
                        );
                    }
                });
        });
}

/// The operator console: the log, what is still arriving, and the input line. Returns
/// whether Escape closed it.
fn console(ctx: &Context, view: &SocialView, state: &mut SocialUi, s: f32) -> bool {
    if !state.console_open {
        return false;
    }
    let mut took_escape = false;
    let c = view.social.console();
    egui::Area::new(Id::unique("fl-ui-console"))
        .anchor(Align2::CENTER_TOP, vec2(0.0, 24.0 * s))
        .order(Order::Foreground)
        .show(ctx, |ui| {
            apply_style(ui, s);
            Frame::new()
                .fill(Color32::from_rgba_premultiplied(6, 8, 12, 235))
                .stroke(egui::Stroke::new(1.0, Color32::from_gray(80)))
                .inner_margin(margin(s, 12.0, 10.0))
                .show(ui, |ui| {
                    let width = (ctx.content_rect().width() * 0.8).min(900.0 * s);
                    ui.set_width(width);
                    ui.label(RichText::new("Operator console").strong().color(ACCENT));
                    ScrollArea::vertical()
                        .max_height(ctx.content_rect().height() * 0.4)
                        .auto_shrink([false, true])
                        .stick_to_bottom(true)
                        .show(ui, |ui| {
                            let n = c.line_count();
                            for l in c.lines().skip(n.saturating_sub(CONSOLE_LINES_SHOWN)) {
                                let t = RichText::new(&l.text).monospace();
                                ui.label(if l.req_id.is_none() { t.weak() } else { t });
                            }
                            if n == 0 {
                                ui.label(
                                    RichText::new(
                                        "Type login <token>, then a command (e.g. status).",
                                    )
                                    .weak(),
                                );
                            }
                        });
                    let pending = c.pending().count();
                    if pending > 0 {
                        ui.label(
                            RichText::new(format!("{pending} reply(ies) still arriving…")).weak(),
                        );
                    }
                    ui.horizontal(|ui| {
                        let l = ui.label(if state.logged_in() { "#" } else { ">" });
                        let field = ui
                            .add(
                                TextEdit::singleline(&mut state.console_text)
                                    .desired_width(width - 40.0 * s)
                                    .char_limit(fl_protocol::FixedStr::<94>::CAPACITY)
                                    .font(egui::TextStyle::Monospace),
                            )
                            .labelled_by(l.id);
                        if state.focus_console {
                            field.request_focus();
                            state.focus_console = false;
                        }
                        let (enter, escape) =
                            ui.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
                        if escape {
                            state.console_open = false;
                            took_escape = true;
                        } else if enter && (field.lost_focus() || field.has_focus()) {
                            let line = std::mem::take(&mut state.console_text);
                            state.console_submit(&line);
                            state.focus_console = true;
                        }
                    });
                });
        });
    took_escape
}

/// The Pause screen's part: the players (mute / unmute), the team switch, and the console.
pub(super) fn pause_section(ui: &mut Ui, view: &SocialView, state: &mut SocialUi, s: f32) {
    let social = &view.social;
    ui.add_space(6.0 * s);
    ui.label(RichText::new("Players").strong());
    let own = social.own_id();
    Grid::new("fl-ui-pause-roster")
        .num_columns(3)
        .spacing(vec2(12.0 * s, 4.0 * s))
        .show(ui, |ui| {
            for p in social.roster().values() {
                let mine = Some(p.id) == own;
                let mut name = if p.callsign.is_empty() {
                    social.display_name(p.id)
                } else {
                    p.callsign.clone()
                };
                if p.bot {
                    name.push_str(" (bot)");
                }
                let text = if mine {
                    RichText::new(format!("{name} (you)")).color(OWN).strong()
                } else {
                    RichText::new(name.clone())
                };
                ui.label(text);
                ui.label(RichText::new(view.team_name(p.faction_index)).weak());
                if mine || p.bot {
                    ui.label("");
                } else {
                    let muted = social.is_muted(p.id);
                    let (label, hover) = if muted {
                        ("Unmute", format!("Show {name}'s chat again"))
                    } else {
                        ("Mute", format!("Hide {name}'s chat"))
                    };
                    if ui.button(label).on_hover_text(hover).clicked() {
                        state.requests.push(SocialRequest::Mute(p.id, !muted));
                    }
                }
                ui.end_row();
            }
        });
    if social.roster().is_empty() {
        ui.label(RichText::new("No roster from the server yet.").weak());
    }
    // The team switch: the factions the match or the roster know, the own one preselected.
    let mut teams: Vec<u16> = social
        .match_info()
        .map(|m| m.teams.iter().map(|(f, _)| *f).collect())
        .unwrap_or_default();
    if teams.is_empty() {
        teams = view.factions.keys().copied().collect();
    }
    if teams.len() > 1 {
        let current = social.own_faction();
        let mut choice = state
            .team_choice
            .filter(|c| teams.contains(c))
            .or_else(|| teams.iter().copied().find(|t| Some(*t) != current))
            .unwrap_or(teams[0]);
        ui.horizontal(|ui| {
            let l = ui.label("Team");
            egui::ComboBox::from_id_salt("fl-ui-team-choice")
                .selected_text(view.team_name(choice))
                .show_ui(ui, |ui| {
                    for t in &teams {
                        ui.selectable_value(&mut choice, *t, view.team_name(*t));
                    }
                })
                .response
                .labelled_by(l.id);
            let switch = ui.add_enabled(Some(choice) != current, egui::Button::new("Switch Team"));
            if switch.clicked() {
                state.requests.push(SocialRequest::Team(choice));
            }
        });
        state.team_choice = Some(choice);
    }
}
