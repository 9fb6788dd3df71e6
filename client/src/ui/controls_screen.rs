//! The Settings screen's Controls tab: the rebinding screen. One column of bindings at a time
//! (keyboard and mouse, any gamepad, or one device), a primary and an alternate cell per
//! action; clicking a cell starts a "press to bind" ([`fl_input::Capture`]), a conflict asks
//! Replace / Swap / Cancel, a bound axis can be tuned (deadzone, saturation, curve, inversion,
//! the throttle's detent), a device can be reset to its defaults, and every axis of every
//! device is shown live, raw and through its bindings.
//!
//! Owns the [`Rebinder`] (the working copy of the bindings, the capture, the device snapshot)
//! and the tab's widgets. Must not: read or write bindings files or apply bindings (the window
//! does, with [`Rebinder::take_changes`] when Settings closes), read devices (the window
//! copies the mapper's [`DeviceSet`] into [`Rebinder::devices`] and feeds every
//! [`InputEvent`] to [`Rebinder::event`] while a capture listens), or draw the other tabs.

use std::collections::BTreeMap;

use egui::{Grid, ProgressBar, RichText, Role, Slider, Ui, WidgetInfo};
use fl_input::{
    Action, ActionGroup, ActionKind, AxisSettings, Bindings, Capture, CaptureState, Choice,
    DeviceId, DeviceSet, InputEvent, Place, Slot, Source,
};

use super::{ERROR, UiState};

/// The rebinding screen's state, kept in [`UiState::controls`] while the game runs.
#[derive(Debug, Clone)]
pub struct Rebinder {
    /// The working copy the screen edits (the window applies it when Settings closes).
    pub bindings: Bindings,
    /// The column shown.
    pub source: Source,
    /// The "press to bind" in progress (listening or asking about a conflict).
    pub capture: Option<Capture>,
    /// The bound axis whose tuning is shown.
    pub tuning: Option<Place>,
    /// The devices as the window's mapper sees them (copied by the window every frame while
    /// Settings shows; a capture and the readout need them).
    pub devices: DeviceSet,
    /// The working copy differs from what the window flies.
    pub dirty: bool,
    /// Settings is open and `bindings` was taken from the window (see [`Rebinder::enter`]).
    open: bool,
    /// Why the last capture did not bind (shown under the table until the next one).
    last_hint: Option<String>,
}

impl Rebinder {
    /// A screen showing `bindings` (the ones the game flies with).
    pub fn new(bindings: Bindings) -> Self {
        Rebinder {
            bindings,
            source: Source::Keyboard,
            capture: None,
            tuning: None,
            devices: DeviceSet::new(),
            dirty: false,
            open: false,
            last_hint: None,
        }
    }

    /// Settings opened (called every frame while it shows; only the first call after
    /// [`Rebinder::take_changes`] copies `flown`, so edits survive frames).
    pub fn enter(&mut self, flown: &Bindings) {
        if !self.open {
            self.open = true;
            self.bindings = flown.clone();
            self.dirty = false;
            self.capture = None;
            self.tuning = None;
            self.last_hint = None;
        }
    }

    /// Settings closed: the bindings to apply and save when the player changed any. Stops a
    /// capture in progress.
    pub fn take_changes(&mut self) -> Option<Bindings> {
        self.open = false;
        self.capture = None;
        std::mem::take(&mut self.dirty).then(|| self.bindings.clone())
    }

    /// A capture is listening: the window hands keys, buttons and device input to
    /// [`Rebinder::event`] instead of the menus (Esc cancels it, Enter binds Enter).
    pub fn listening(&self) -> bool {
        self.capture
            .as_ref()
            .is_some_and(|c| *c.state() == CaptureState::Listening)
    }

    /// A conflict prompt is open: Esc answers it with Cancel rather than leaving Settings.
    pub fn asking(&self) -> bool {
        self.capture
            .as_ref()
            .is_some_and(|c| matches!(c.state(), CaptureState::Conflict(_)))
    }

    /// Starts "press to bind" for `action`'s `slot` in the column shown.
    pub fn start(&mut self, action: Action, slot: Slot) {
        let source = self.source.clone();
        self.capture = Some(Capture::start(action, slot, Some(source), &self.devices));
        self.last_hint = None;
    }

    /// One input event (after the mapper and [`Rebinder::devices`] had it). Ignored unless a
    /// capture is listening.
    pub fn event(&mut self, ev: &InputEvent) {
        let Some(c) = &mut self.capture else { return };
        let state = c.event(ev, &self.devices, &mut self.bindings).clone();
        self.settle(state);
    }

    /// The conflict prompt's answer.
    pub fn resolve(&mut self, choice: Choice) {
        let Some(c) = &mut self.capture else { return };
        let state = c.resolve(choice, &mut self.bindings).clone();
        self.settle(state);
    }

    fn settle(&mut self, state: CaptureState) {
        let hint = self
            .capture
            .as_ref()
            .and_then(|c| c.hint().map(str::to_owned));
        match state {
            CaptureState::Listening | CaptureState::Conflict(_) => {}
            CaptureState::Done(place) => {
                self.dirty = true;
                let axis = self
                    .bindings
                    .get(&place.source, place.action, place.slot)
                    .is_some_and(|b| b.input.is_axis());
                self.tuning = axis.then_some(place);
                self.capture = None;
                self.last_hint = None;
            }
            CaptureState::Cancelled => {
                self.capture = None;
                self.last_hint = hint;
            }
        }
    }

    /// The text of a cell: the input's label, or "—".
    pub fn cell(&self, action: Action, slot: Slot) -> String {
        self.bindings
            .get(&self.source, action, slot)
            .map_or_else(|| "—".to_owned(), |b| b.input.label())
    }

    /// The columns offered: the keyboard, the gamepad, every bound device and every connected
    /// one.
    pub fn sources(&self) -> Vec<Source> {
        let mut s = self.bindings.sources();
        for (_, d) in self.devices.iter() {
            let src = Source::Device(d.id.clone());
            if !s.contains(&src) {
                s.push(src);
            }
        }
        s
    }

    /// Device names known from the bindings and the connected devices.
    fn names(&self) -> BTreeMap<DeviceId, String> {
        let mut n = self.bindings.device_names.clone();
        for (_, d) in self.devices.iter() {
            n.entry(d.id.clone()).or_insert_with(|| d.info.name.clone());
        }
        n
    }
}

impl Default for Rebinder {
    fn default() -> Self {
        Rebinder::new(Bindings::defaults())
    }
}

/// The accessible label of a cell ("Gear primary: G"), which tests and screen readers use.
pub fn cell_label(action: Action, slot: Slot, text: &str) -> String {
    format!("{} {}: {text}", action.label(), slot.name())
}

fn group_label(g: ActionGroup) -> &'static str {
    match g {
        ActionGroup::Flight => "Flight",
        ActionGroup::Systems => "Systems",
        ActionGroup::Weapons => "Weapons",
        ActionGroup::Game => "Game",
    }
}

/// Draws the tab into the Settings panel's `ui`.
pub(super) fn show(ui: &mut Ui, state: &mut UiState) {
    let r = &mut state.controls;
    let names = r.names();

    ui.label(RichText::new("Device").strong());
    ui.horizontal_wrapped(|ui| {
        for src in r.sources() {
            let label = src.label(&names);
            if ui.selectable_label(r.source == src, label).clicked() && r.source != src {
                r.source = src;
                r.capture = None;
                r.tuning = None;
            }
        }
    });

    prompt(ui, r);
    if let Some(h) = &r.last_hint {
        ui.label(RichText::new(h).color(ERROR));
    }

    table(ui, r);

    let reset = format!("Reset {} to defaults", r.source.label(&names));
    if ui.button(reset).clicked() {
        r.bindings.reset_source(&r.source);
        r.capture = None;
        r.tuning = None;
        r.dirty = true;
    }

    tuning(ui, r);
    readout(ui, r);
}

/// The capture's prompt or the conflict's question, in a modal in the middle of the window: the
/// table scrolls, and a prompt at its top would be out of sight of the cell that was clicked.
fn prompt(ui: &mut Ui, r: &mut Rebinder) {
    let Some(c) = &r.capture else { return };
    if matches!(c.state(), CaptureState::Done(_) | CaptureState::Cancelled) {
        return;
    }
    let mut choice = None;
    egui::Modal::new(egui::Id::unique("rebind-prompt")).show(ui.ctx(), |ui| match c.state() {
        CaptureState::Listening => {
            ui.label(
                RichText::new(format!("Binding {}: {}", c.action().label(), c.prompt())).strong(),
            );
            if let Some(h) = c.hint() {
                ui.label(RichText::new(h).color(ERROR));
            }
            if ui.button("Cancel binding").clicked() {
                choice = Some(Choice::Cancel);
            }
        }
        CaptureState::Conflict(conflict) => {
            let users: Vec<String> = conflict
                .others
                .iter()
                .map(|p| format!("{} ({})", p.action.label(), p.slot.name()))
                .collect();
            ui.label(
                RichText::new(format!(
                    "{} is already used by {}. Bind it to {} anyway?",
                    conflict.binding.input.label(),
                    users.join(", "),
                    conflict.target.action.label()
                ))
                .color(ERROR),
            );
            ui.horizontal(|ui| {
                if ui.button("Replace").clicked() {
                    choice = Some(Choice::Replace);
                }
                if ui.button("Swap").clicked() {
                    choice = Some(Choice::Swap);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(Choice::Cancel);
                }
            });
        }
        CaptureState::Done(_) | CaptureState::Cancelled => {}
    });
    match choice {
        // A listening capture's cancel: nothing to resolve.
        Some(Choice::Cancel) if r.listening() => r.capture = None,
        Some(ch) => r.resolve(ch),
        None => {}
    }
}

/// One row per action, grouped, with the primary and alternate cells.
fn table(ui: &mut Ui, r: &mut Rebinder) {
    let mut start = None;
    let mut clear = None;
    let mut tune = None;
    let mut group = None;
    Grid::new("controls-bindings")
        .num_columns(3)
        .striped(true)
        .spacing(egui::vec2(12.0, 4.0))
        .show(ui, |ui| {
            for action in Action::ALL {
                if group != Some(action.group()) {
                    group = Some(action.group());
                    ui.label(RichText::new(group_label(action.group())).strong());
                    ui.label(RichText::new("Primary").weak());
                    ui.label(RichText::new("Alternate").weak());
                    ui.end_row();
                }
                ui.label(action.label());
                for slot in Slot::BOTH {
                    ui.horizontal(|ui| {
                        let text = r.cell(action, slot);
                        let b = ui.add(egui::Button::new(RichText::new(&text).monospace()));
                        let label = cell_label(action, slot, &text);
                        b.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
                        if b.clicked() {
                            start = Some((action, slot));
                        }
                        let bound = r.bindings.get(&r.source, action, slot);
                        if let Some(bound) = bound {
                            let is_axis = bound.input.is_axis();
                            let x = ui.small_button("Clear");
                            let l = format!("Clear {} {}", action.label(), slot.name());
                            x.widget_info(|| WidgetInfo::labeled(Role::Button, true, &l));
                            if x.clicked() {
                                clear = Some((action, slot));
                            }
                            if is_axis {
                                let t = ui.small_button("Tune");
                                let l = format!("Tune {} {}", action.label(), slot.name());
                                t.widget_info(|| WidgetInfo::labeled(Role::Button, true, &l));
                                if t.clicked() {
                                    tune = Some((action, slot));
                                }
                            }
                        }
                    });
                }
                ui.end_row();
            }
        });
    if let Some((action, slot)) = start {
        r.start(action, slot);
    }
    if let Some((action, slot)) = clear
        && r.bindings.set(&r.source, action, slot, None).is_ok()
    {
        r.dirty = true;
        r.capture = None;
    }
    if let Some((action, slot)) = tune {
        r.tuning = Some(Place {
            source: r.source.clone(),
            action,
            slot,
        });
    }
}

/// The tuning of the selected axis binding.
fn tuning(ui: &mut Ui, r: &mut Rebinder) {
    let Some(place) = r.tuning.clone() else {
        return;
    };
    let Some(b) = r.bindings.get(&place.source, place.action, place.slot) else {
        r.tuning = None;
        return;
    };
    if !b.input.is_axis() || place.source != r.source {
        r.tuning = None;
        return;
    }
    let mut s: AxisSettings = b.axis;
    let before = s;
    ui.separator();
    ui.label(
        RichText::new(format!(
            "{} {} ({})",
            place.action.label(),
            place.slot.name(),
            b.input.label()
        ))
        .strong(),
    );
    ui.add(Slider::new(&mut s.deadzone, 0.0..=0.5).text("Deadzone"));
    ui.add(Slider::new(&mut s.saturation, 0.5..=1.0).text("Saturation"));
    ui.add(Slider::new(&mut s.expo, 0.0..=1.0).text("Curve (expo)"));
    ui.checkbox(&mut s.invert, "Invert");
    if place.action.kind() == ActionKind::Lever && place.action == Action::Throttle {
        let mut on = s.detent.is_some();
        ui.checkbox(&mut on, "Afterburner detent");
        if on {
            let mut d = s.detent.unwrap_or(0.9);
            ui.add(Slider::new(&mut d, 0.5..=1.0).text("Detent at"));
            s.detent = Some(d);
        } else {
            s.detent = None;
        }
    }
    if s != before {
        r.bindings.set_axis_settings(&place, s.sanitized());
        r.dirty = true;
    }
}

/// Every axis of every connected device, raw and through its bindings.
fn readout(ui: &mut Ui, r: &Rebinder) {
    ui.separator();
    ui.label(RichText::new("Devices").strong());
    let devices = fl_input::readout(&r.devices, &r.bindings);
    if devices.is_empty() {
        ui.label(RichText::new("No gamepad, joystick, throttle or pedals connected.").weak());
    }
    for d in devices {
        ui.label(format!("{} ({:?})", d.name, d.kind));
        Grid::new(("axes", d.slot.0))
            .num_columns(3)
            .spacing(egui::vec2(12.0, 2.0))
            .show(ui, |ui| {
                for a in &d.axes {
                    ui.label(&a.label);
                    let raw = if a.raw.is_finite() { a.raw } else { 0.0 };
                    ui.add(
                        ProgressBar::new((raw + 1.0) / 2.0)
                            .desired_width(120.0)
                            .text(format!("{raw:+.2}")),
                    );
                    let through: Vec<String> = a
                        .processed
                        .iter()
                        .map(|(p, v)| format!("{} {v:+.2}", p.action.label()))
                        .collect();
                    ui.label(if through.is_empty() {
                        "unbound".to_owned()
                    } else {
                        through.join(", ")
                    });
                    ui.end_row();
                }
            });
    }
}
