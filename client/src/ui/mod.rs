//! Every screen of the game drawn with egui: the main menu, free-flight setup, loading (with the
//! trust-on-first-use prompt), mission list and brief, join, settings, the flight's banners,
//! pause and debrief (docs/ui.md).
//!
//! Owns: drawing the current [`Screen`] and turning what the player does (mouse, keyboard, and
//! the gamepad as the window's synthesized key events) into [`Event`]s, plus the data the
//! screens edit ([`UiState`]). Must not: change [`Screens`] (the window applies the events with
//! [`Screens::handle`] and performs the effects), open windows, or touch the session.
//!
//! Everything is drawn in `egui::Area`s on the given `Context`, so it works whether the window
//! runs `Context::run_ui` or `run_pass`, over whatever the window already drew.

mod controls_screen;
mod flight;
mod free_flight;
mod join;
mod menus;
mod missions;
mod settings_screen;
mod social;

use egui::{
    Align2, Color32, Context, CornerRadius, Frame, Id, Key, LayerId, Margin, Order, Response,
    RichText, Stroke, TextStyle, Ui, vec2,
};

use crate::browser::{BrowserConfig, ServerBrowser};
use crate::screens::{Event, Screen, Screens};
use crate::settings::GameSettings;

pub use controls_screen::{Rebinder, cell_label};
pub use free_flight::{WEATHER_PRESETS, weather_label};
pub use join::format_fingerprint;
pub use settings_screen::SettingsTab;
pub use social::{CHAT_FADE, SocialRequest, SocialUi, SocialView, chat_line_text};

/// An aircraft the free-flight setup offers (filled by the window from the loaded packs).
#[derive(Clone)]
pub struct AircraftChoice {
    /// The type id the session asks for, e.g. `fl-base:f5e`.
    pub type_id: String,
    /// The name shown, e.g. "F-5E Tiger II".
    pub name: String,
    /// The pack it comes from.
    pub pack: String,
    /// A rendered picture of the aircraft (none: a text-only entry).
    pub thumbnail: Option<egui::TextureHandle>,
}

impl std::fmt::Debug for AircraftChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AircraftChoice")
            .field("type_id", &self.type_id)
            .field("name", &self.name)
            .field("pack", &self.pack)
            .field("thumbnail", &self.thumbnail.as_ref().map(|t| t.id()))
            .finish()
    }
}

/// Where a free flight starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StartPosition {
    /// On the Nevada airfield's runway, engines running.
    Runway,
    /// In the air over the airfield at this altitude above mean sea level, metres.
    Air { altitude_m: f64 },
}

/// Altitudes the free-flight setup offers for an air start, metres above mean sea level.
pub const AIR_START_RANGE_M: std::ops::RangeInclusive<f64> = 300.0..=12_000.0;

/// The free-flight setup the window reads when `Effect::StartSession` comes.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeFlightSetup {
    /// The chosen aircraft's type id (`None`: the content's default aircraft).
    pub aircraft: Option<String>,
    pub start: StartPosition,
    /// Local solar time at the airfield, hours, `0 <= h < 24` (the embedded server's weather
    /// `start_hour`).
    pub time_of_day_h: f64,
    /// A weather preset name as the server's configuration spells it ([`WEATHER_PRESETS`]).
    pub weather: String,
}

impl Default for FreeFlightSetup {
    fn default() -> Self {
        FreeFlightSetup {
            aircraft: None,
            start: StartPosition::Runway,
            time_of_day_h: 10.0,
            weather: "clear".to_owned(),
        }
    }
}

/// A mission from a loaded pack (filled by the window).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MissionChoice {
    /// `<pack id>:<file stem>`.
    pub id: String,
    /// The mission's name (the file stem when it cannot be read).
    pub title: String,
    pub pack: String,
    /// The briefing text (the mission's `description`; empty when it has none).
    pub brief: String,
    /// What the mission's header says, as (label, value) lines: map, time, weather, the
    /// player's aircraft and start, friendly and hostile objects.
    pub facts: Vec<(String, String)>,
    /// Why the mission cannot be read or flown (a broken or refused mission is listed with its
    /// reason).
    pub broken: Option<String>,
    /// The objectives as (wins the mission, line), wins first.
    pub objectives: Vec<(bool, String)>,
    /// What the brief's map shows: the objects the player is allowed to know.
    pub map: Vec<BriefMark>,
}

/// One object on the brief's map, metres east and north of the mission's anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct BriefMark {
    pub east_m: f64,
    pub north_m: f64,
    pub label: String,
    pub kind: MarkKind,
}

/// How a brief's map mark is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// The player's slot.
    Player,
    /// The player's side or an ally.
    Friendly,
    /// A target the objectives name.
    Target,
}

/// The Join screen's form. The recent servers it lists are `GameSettings::recent_servers`
/// (one list, saved with the settings).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JoinForm {
    /// The address as typed.
    pub address: String,
    /// Why the last Connect was refused (a bad address), shown under the field.
    pub error: Option<String>,
    /// The server browser's selected row (its address).
    pub selected: Option<String>,
    /// Refresh was pressed: ask every listed server again on the next poll.
    pub refresh: bool,
}

/// A new server's identity, to confirm before joining (set by the window while it waits).
#[derive(Debug, Clone, PartialEq)]
pub struct TofuPrompt {
    /// The server's address as the player typed it.
    pub address: String,
    /// Its certificate's SHA-256 fingerprint, hex (colons and case are ignored).
    pub fingerprint_hex: String,
}

/// The flight's record for the debrief (kept by the window).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DebriefStats {
    /// Seconds flown.
    pub time_flown_s: f64,
    /// Distance flown over the ground, metres.
    pub distance_m: f64,
    /// Highest load factor, g.
    pub max_g: f64,
    pub landings: u32,
    /// What ended the flight, in words (e.g. "You ended the flight.", "Crashed into terrain").
    pub ended: String,
    /// The mission's side of it, when a mission was flown.
    pub mission: Option<MissionDebrief>,
}

/// A mission's debrief: its result, the objectives ticked off, kills and losses.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MissionDebrief {
    /// The mission's name.
    pub name: String,
    /// "Mission accomplished", "Mission failed", or "Not finished" when the player left first.
    pub result: String,
    /// Mission time at the end, s (`None`: the server had not ended it).
    pub elapsed_s: Option<f64>,
    /// (mark, line) per objective: `[x]` met, `[!]` failed, `[ ]` open.
    pub objectives: Vec<(String, String)>,
    /// The player's kills and losses, as the server counted them.
    pub kills: u32,
    pub losses: u32,
}

/// Everything the screens need that is not in [`Screens`].
#[derive(Debug)]
pub struct UiState {
    /// Aircraft for the free-flight setup (filled by the window).
    pub aircraft: Vec<AircraftChoice>,
    /// The free-flight choices (read by the window on `Effect::StartSession`).
    pub free_flight: FreeFlightSetup,
    /// Missions of the loaded packs (filled by the window).
    pub missions: Vec<MissionChoice>,
    pub join: JoinForm,
    /// How the Join screen's server browser starts: `UiState::new` lists no LAN servers (tests
    /// must never bind the fixed discovery port); the window sets
    /// `BrowserConfig::default()` (the discovery port), tests a loopback port.
    pub browser_config: BrowserConfig,
    /// The server browser, alive only while the Join screen is up (dropping it closes the LAN
    /// listener).
    pub browser: Option<ServerBrowser>,
    /// Set by the window when a new server's identity must be confirmed; the prompt answers
    /// `Event::TrustServer` or `Event::DeclineServer`. The window clears it.
    pub tofu_prompt: Option<TofuPrompt>,
    /// The flight's record, shown on the Debrief screen.
    pub debrief: Option<DebriefStats>,
    /// The player's settings, edited in place by the Settings screen (`Effect::SaveSettings`:
    /// the window saves them).
    pub settings: GameSettings,
    /// A warning about the settings file (from `GameSettings::load`, or a failed save), shown
    /// on the main menu until the player dismisses it.
    pub settings_warning: Option<String>,
    /// The Settings screen's open tab (kept while the game runs).
    pub settings_tab: SettingsTab,
    /// The Controls tab's rebinding state (the window fills its bindings and devices).
    pub controls: Rebinder,
    /// A line shown at the top in Flight and Pause (e.g. the session's "connection
    /// interrupted" sentence); set and cleared by the window.
    pub banner: Option<String>,
    /// What the multiplayer overlays show (roster, chat, scores, console), copied by the window
    /// from the session.
    pub social_view: SocialView,
    /// The multiplayer overlays' own state (chat box, scoreboard key, console, requests).
    pub social: SocialUi,
    /// The screen drawn last frame (a new screen takes the keyboard focus).
    last_screen: Option<Screen>,
    /// The next screen's first control should take the focus.
    focus_pending: bool,
    /// Frames the pending focus was asked for.
    focus_tries: u8,
    /// Whether the trust prompt was up last frame (it takes the focus when it comes up).
    prompt_was_up: bool,
    /// The UI scale the layout uses; follows `settings.hud.ui_scale` except while its slider is
    /// being dragged (the slider would move under the pointer).
    layout_scale: f32,
}

impl UiState {
    pub fn new(settings: GameSettings) -> Self {
        let layout_scale = clamp_scale(settings.hud.ui_scale);
        UiState {
            aircraft: Vec::new(),
            free_flight: FreeFlightSetup::default(),
            missions: Vec::new(),
            join: JoinForm::default(),
            browser_config: BrowserConfig { lan_bind: None },
            browser: None,
            tofu_prompt: None,
            debrief: None,
            settings,
            settings_warning: None,
            settings_tab: SettingsTab::default(),
            controls: Rebinder::default(),
            banner: None,
            social_view: SocialView::default(),
            social: SocialUi::default(),
            last_screen: None,
            focus_pending: true,
            focus_tries: 0,
            prompt_was_up: false,
            layout_scale,
        }
    }

    /// Saves the settings to `path` (the window's `Effect::SaveSettings`; `None`: a run without
    /// a settings file, nothing saved). A failure is shown as the settings warning.
    pub fn save_settings(&mut self, path: Option<&std::path::Path>) {
        let Some(path) = path else { return };
        match self.settings.save(path) {
            Ok(()) => tracing::debug!(path = %path.display(), "settings saved"),
            Err(e) => {
                tracing::warn!("settings not saved: {e}");
                self.settings_warning = Some(format!("The settings could not be saved: {e}"));
            }
        }
    }

    /// Gives `response` the focus when the screen is new. Asked again on the next frames until
    /// the widget has it (a new `Area`'s first frame is an invisible sizing pass that cannot
    /// hold the focus), a few frames at most.
    fn focus_first(&mut self, response: &Response) {
        if !self.focus_pending {
            return;
        }
        if response.has_focus() || self.focus_tries >= MAX_FOCUS_TRIES {
            self.focus_pending = false;
        } else {
            self.focus_tries += 1;
            response.request_focus();
        }
    }

    fn want_focus(&mut self) {
        self.focus_pending = true;
        self.focus_tries = 0;
    }
}

fn clamp_scale(s: f32) -> f32 {
    let r = crate::settings::UI_SCALE_RANGE;
    if s.is_finite() {
        s.clamp(*r.start(), *r.end())
    } else {
        1.0
    }
}

/// Frames a new screen asks for its first control's focus at most.
const MAX_FOCUS_TRIES: u8 = 4;

/// Menu panel background.
const PANEL: Color32 = Color32::from_rgba_premultiplied(14, 18, 24, 236);
/// The translucent pause panel (the scene shows through).
const PANEL_TRANSLUCENT: Color32 = Color32::from_rgba_premultiplied(10, 14, 20, 200);
/// Messages about something that went wrong.
const ERROR: Color32 = Color32::from_rgb(255, 140, 110);
/// Headings.
const ACCENT: Color32 = Color32::from_rgb(150, 220, 255);

/// Draws the current screen (over whatever the window already drew: in Flight nothing but
/// server banners/notices, in Pause a translucent panel over the frozen scene) and returns the
/// events the player caused this frame, in order. Never mutates `screens`: the window applies
/// the events with [`Screens::handle`] and performs the effects.
pub fn show(ctx: &Context, screens: &Screens, state: &mut UiState) -> Vec<Event> {
    let screen = screens.current();
    if state.last_screen != Some(screen) {
        state.last_screen = Some(screen);
        state.want_focus();
    }
    let prompt_up = screen == Screen::Loading && state.tofu_prompt.is_some();
    if prompt_up != state.prompt_was_up {
        state.prompt_was_up = prompt_up;
        state.want_focus();
    }
    // A D-pad or arrow press with nothing focused (after a mouse click elsewhere) picks the
    // screen's first control, so a gamepad can always get going.
    let (arrow, escape) = ctx.input(|i| {
        (
            i.key_pressed(Key::ArrowDown)
                || i.key_pressed(Key::ArrowUp)
                || i.key_pressed(Key::ArrowLeft)
                || i.key_pressed(Key::ArrowRight),
            i.key_pressed(Key::Escape),
        )
    });
    if arrow && ctx.memory(|m| m.focused().is_none()) {
        state.want_focus();
    }

    // The Settings screen holds the layout scale while its slider is dragged.
    if screen != Screen::Settings {
        state.layout_scale = clamp_scale(state.settings.hud.ui_scale);
    }
    // The server browser runs while the Join screen is up, and only then.
    if screen == Screen::Join {
        let cfg = state.browser_config;
        let browser = state
            .browser
            .get_or_insert_with(|| ServerBrowser::start(cfg));
        browser.set_listed(
            &state.settings.player.favourite_servers,
            &state.settings.player.recent_servers,
        );
        browser.poll(
            std::time::Instant::now(),
            std::mem::take(&mut state.join.refresh),
        );
        // Beacons and replies arrive without input: look again a few times a second.
        ctx.request_repaint_after(std::time::Duration::from_millis(250));
    } else {
        state.browser = None;
    }
    let mut events = Vec::new();
    let s = state.layout_scale;
    match screen {
        Screen::MainMenu => menus::main_menu(ctx, screens, state, &mut events),
        Screen::FreeFlight => free_flight::show(ctx, state, &mut events),
        Screen::Loading => menus::loading(ctx, screens, state, &mut events),
        Screen::MissionSelect => missions::select(ctx, state, &mut events),
        Screen::MissionBrief => missions::brief(ctx, screens, state, &mut events),
        Screen::Join => join::show(ctx, state, &mut events),
        Screen::Settings => settings_screen::show(ctx, state, &mut events),
        Screen::Flight => flight::flight(ctx, state, s),
        Screen::Pause => flight::pause(ctx, screens, state, &mut events),
        Screen::Debrief => flight::debrief(ctx, screens, state, &mut events),
        Screen::Quit => {}
    }
    let took_escape = if matches!(screen, Screen::Flight | Screen::Pause) {
        social::flight_overlays(
            ctx,
            &state.social_view,
            &mut state.social,
            s,
            screen == Screen::Pause,
        )
    } else {
        false
    };
    if matches!(screen, Screen::Flight | Screen::Quit) {
        // Nothing there takes the keyboard (the flight's keys are the window's).
        state.focus_pending = false;
    }

    // Esc (the gamepad's B) backs out of whatever is up, unless a control already answered.
    if escape && events.is_empty() && !took_escape {
        let back = match screen {
            Screen::MainMenu | Screen::Quit => None,
            Screen::Flight => Some(Event::Escape),
            Screen::Pause => Some(Event::Resume),
            Screen::Debrief => Some(Event::QuitToMenu),
            Screen::Loading if state.tofu_prompt.is_some() => Some(Event::DeclineServer),
            Screen::FreeFlight
            | Screen::Loading
            | Screen::MissionSelect
            | Screen::MissionBrief
            | Screen::Join
            | Screen::Settings => Some(Event::Back),
        };
        events.extend(back);
    }
    if !events.is_empty() || state.focus_pending {
        // The next screen (or the focus) shows on the next frame without waiting for input.
        ctx.request_repaint();
    }
    events
}

/// Text sizes and spacing of the menus at UI scale `s` (only inside the screens' own `Ui`s:
/// the window's and the HUD's styles are left alone).
fn apply_style(ui: &mut Ui, s: f32) {
    let style = ui.style_mut();
    for (ts, font) in style.text_styles.iter_mut() {
        font.size = s * match ts {
            TextStyle::Heading => 34.0,
            TextStyle::Button => 22.0,
            TextStyle::Monospace => 17.0,
            TextStyle::Small => 15.0,
            _ => 20.0,
        };
    }
    style.spacing.button_padding = vec2(14.0, 8.0) * s;
    style.spacing.item_spacing = vec2(10.0, 8.0) * s;
    style.spacing.interact_size = vec2(40.0, 34.0) * s;
    style.spacing.slider_width = 280.0 * s;
    style.spacing.icon_width = 20.0 * s;
    style.spacing.icon_width_inner = 10.0 * s;
    style.spacing.combo_width = 200.0 * s;
    style.spacing.text_edit_width = 320.0 * s;
}

/// Dims whatever the window drew behind a menu screen.
fn dim_background(ctx: &Context, alpha: u8) {
    let rect = ctx.content_rect();
    ctx.layer_painter(LayerId::new(Order::Background, Id::unique("fl-ui-dim")))
        .rect_filled(rect, 0.0, Color32::from_black_alpha(alpha));
}

/// A centred panel `width` points wide (less on a narrow window) holding a screen.
fn panel<R>(
    ctx: &Context,
    id: &str,
    width: f32,
    fill: Color32,
    s: f32,
    add: impl FnOnce(&mut Ui) -> R,
) -> R {
    let screen = ctx.content_rect();
    let width = width.min(screen.width() - 32.0 * s).max(120.0);
    let area_id = Id::unique(("fl-ui", id));
    let shown = egui::Area::new(area_id)
        .anchor(Align2::CENTER_CENTER, vec2(0.0, 0.0))
        .order(Order::Middle)
        .show(ctx, |ui| {
            apply_style(ui, s);
            Frame::new()
                .fill(fill)
                .stroke(Stroke::new(1.0, Color32::from_gray(70)))
                .corner_radius(CornerRadius::same(
                    (10.0 * s).round().clamp(0.0, 255.0) as u8
                ))
                .inner_margin(Margin::same((20.0 * s).round().clamp(0.0, 127.0) as i8))
                .show(ui, |ui| {
                    ui.set_width(width);
                    let max_h = (screen.height() - 80.0 * s).max(100.0);
                    // An area's room is last frame's size (egui's default area size at
                    // first): let a panel whose content grew (a long mission list, thumbnails
                    // arriving) grow up to the window's height before it scrolls.
                    ui.set_max_height(max_h);
                    egui::ScrollArea::vertical()
                        .max_height(max_h)
                        .auto_shrink([false, true])
                        .show(ui, add)
                        .inner
                })
                .inner
        });
    // An anchored area is placed from last frame's size: when the content grew or shrank
    // (an option appeared), draw once more so nothing is left where it no longer is.
    let size = shown.response.rect.size();
    if ctx.data(|d| d.get_temp::<egui::Vec2>(area_id)) != Some(size) {
        ctx.data_mut(|d| d.insert_temp(area_id, size));
        ctx.request_repaint();
    }
    shown.inner
}

/// A screen's title.
fn heading(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).heading().color(ACCENT));
    ui.add_space(4.0);
}

/// A full-width menu button.
fn wide_button(ui: &mut Ui, text: &str) -> Response {
    let h = ui.spacing().interact_size.y * 1.25;
    ui.add_sized([ui.available_width(), h], egui::Button::new(text))
}

/// A line saying what went wrong, in the error colour.
fn error_line(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).color(ERROR));
}

/// `seconds` as `h:mm:ss` or `m:ss`.
fn clock(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "—".to_owned();
    }
    let t = seconds.min(1.0e9).round() as u64;
    let (h, m, s) = (t / 3600, (t / 60) % 60, t % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_formats() {
        assert_eq!(clock(0.0), "0:00");
        assert_eq!(clock(75.4), "1:15");
        assert_eq!(clock(3725.0), "1:02:05");
        assert_eq!(clock(f64::NAN), "—");
        assert_eq!(clock(-1.0), "—");
    }

    #[test]
    fn scale_is_clamped() {
        assert_eq!(clamp_scale(10.0), 3.0);
        assert_eq!(clamp_scale(0.1), 0.5);
        assert_eq!(clamp_scale(f32::NAN), 1.0);
        assert_eq!(UiState::new(GameSettings::default()).layout_scale, 1.0);
    }
}
