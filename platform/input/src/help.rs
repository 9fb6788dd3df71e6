//! The controls help, generated from the bindings: the README's table and the Loading screen's
//! list show exactly what the defaults (or the player's bindings) are.
//!
//! Owns the rows' order and wording. Must not hold bindings or state.

use crate::action::Action;
use crate::binding::{Bindings, Slot, Source};

/// One line of the help: keys, gamepad, what it does ("" where nothing is bound).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpRow {
    pub keys: String,
    pub pad: String,
    pub what: String,
}

/// The rows: the keyboard actions, the gamepad actions, and what they do.
const ROWS: &[(&[Action], &[Action], &str)] = &[
    (
        &[Action::PitchDown, Action::PitchUp],
        &[Action::Pitch],
        "stick forward / back (nose down / up)",
    ),
    (
        &[Action::RollLeft, Action::RollRight],
        &[Action::Roll],
        "roll left / right",
    ),
    (
        &[Action::YawLeft, Action::YawRight],
        &[Action::Yaw],
        "rudder left / right",
    ),
    (
        &[Action::ThrottleUp, Action::ThrottleDown],
        &[Action::ThrottleUp, Action::ThrottleDown],
        "throttle up / down",
    ),
    (&[Action::Afterburner], &[Action::Afterburner], ""),
    (&[Action::Gear], &[Action::Gear], ""),
    (&[Action::Flaps], &[Action::Flaps], ""),
    (&[Action::SpeedBrake], &[Action::SpeedBrake], ""),
    (&[Action::WheelBrake], &[Action::WheelBrake], ""),
    (&[Action::Gun], &[Action::Gun], ""),
    (&[Action::FireStore], &[Action::FireStore], ""),
    (
        &[Action::StationPrev, Action::StationNext],
        &[Action::StationPrev, Action::StationNext],
        "previous / next weapon station",
    ),
    (&[Action::RadarMode], &[Action::RadarMode], ""),
    (&[Action::Designate], &[Action::Designate], ""),
    (&[Action::ChaffFlare], &[Action::ChaffFlare], ""),
    (&[Action::Ecm], &[Action::Ecm], ""),
    (&[Action::Hook], &[Action::Hook], ""),
    (&[Action::Canopy], &[Action::Canopy], ""),
    (&[Action::Eject], &[Action::Eject], ""),
    (&[Action::Respawn], &[Action::Respawn], ""),
    (&[Action::CameraNext], &[Action::CameraNext], ""),
    (
        &[Action::ViewPrev, Action::ViewNext],
        &[Action::ViewPrev, Action::ViewNext],
        "view the previous / next aircraft",
    ),
    (&[Action::NetGraph], &[Action::NetGraph], ""),
    (&[Action::Screenshot], &[Action::Screenshot], ""),
    (&[Action::Chat], &[Action::Chat], ""),
    (&[Action::Pause], &[Action::Pause], ""),
];

/// The bindings of `actions` in `slot` of `source`, joined by " / " (empty when none is bound;
/// a missing one shows as "–" so the halves stay in order).
fn cell(b: &Bindings, source: &Source, actions: &[Action], slot: Slot) -> String {
    let labels: Vec<Option<String>> = actions
        .iter()
        .map(|a| b.get(source, *a, slot).map(|b| b.input.label()))
        .collect();
    if labels.iter().all(Option::is_none) {
        return String::new();
    }
    labels
        .into_iter()
        .map(|l| l.unwrap_or_else(|| "–".to_owned()))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Both slots of `actions`: "W / S or Up / Down".
fn both(b: &Bindings, source: &Source, actions: &[Action]) -> String {
    let p = cell(b, source, actions, Slot::Primary);
    let a = cell(b, source, actions, Slot::Alternate);
    match (p.is_empty(), a.is_empty()) {
        (_, true) => p,
        (true, false) => a,
        (false, false) => format!("{p} or {a}"),
    }
}

/// The help for `bindings`: one row per control, then mouse look and the fixed pause keys.
pub fn help_rows(bindings: &Bindings) -> Vec<HelpRow> {
    let mut rows: Vec<HelpRow> = ROWS
        .iter()
        .map(|(keys, pad, what)| HelpRow {
            keys: both(bindings, &Source::Keyboard, keys),
            pad: both(bindings, &Source::Gamepad, pad),
            what: if what.is_empty() {
                keys[0].label().to_owned()
            } else {
                (*what).to_owned()
            },
        })
        .filter(|r| !(r.keys.is_empty() && r.pad.is_empty()))
        .collect();
    rows.push(HelpRow {
        keys: "mouse, wheel".to_owned(),
        pad: String::new(),
        what: "look around, zoom (chase and free cameras)".to_owned(),
    });
    rows.push(HelpRow {
        keys: "Esc".to_owned(),
        pad: "Start".to_owned(),
        what: "pause menu (always)".to_owned(),
    });
    rows
}

/// The help as the README's Markdown table (keys | gamepad | control).
pub fn help_markdown(bindings: &Bindings) -> String {
    let mut s = String::from("| keys | gamepad | control |\n|---|---|---|\n");
    for r in help_rows(bindings) {
        s.push_str(&format!("| {} | {} | {} |\n", r.keys, r.pad, r.what));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::Binding;

    #[test]
    fn the_default_help_reads_as_before_for_the_flight_keys() {
        let rows = help_rows(&Bindings::defaults());
        let row = |what: &str| {
            rows.iter()
                .find(|r| r.what == what)
                .map(|r| (r.keys.as_str(), r.pad.as_str()))
        };
        assert_eq!(
            row("stick forward / back (nose down / up)"),
            Some(("W / S or Up / Down", "left stick forward / back"))
        );
        assert_eq!(
            row("throttle up / down"),
            Some(("+ / - or Page Up / Page Down", "RT / LT"))
        );
        assert_eq!(row("wheel brakes (hold)"), Some(("Space", "A")));
        assert_eq!(row("gun (hold)"), Some(("Ctrl or left mouse button", "LB")));
        assert_eq!(row("net graph"), Some(("F3", "")));
        // Every bindable action but the axes has a row.
        for a in Action::ALL.into_iter().filter(|a| !a.needs_axis()) {
            assert!(
                ROWS.iter().any(|(k, _, _)| k.contains(&a)),
                "{a} has no help row"
            );
        }
    }

    #[test]
    fn the_help_follows_the_bindings() {
        let mut b = Bindings::defaults();
        b.set(
            &Source::Keyboard,
            Action::Gear,
            Slot::Primary,
            Binding::key("L"),
        )
        .expect("valid");
        b.set(&Source::Keyboard, Action::Chat, Slot::Primary, None)
            .expect("valid");
        b.set(&Source::Keyboard, Action::Chat, Slot::Alternate, None)
            .expect("valid");
        let rows = help_rows(&b);
        assert!(
            rows.iter()
                .any(|r| r.what == "gear up / down" && r.keys == "L")
        );
        assert!(!rows.iter().any(|r| r.what == "chat"));
    }

    #[test]
    fn the_readme_shows_the_default_controls() {
        let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let text = std::fs::read_to_string(&readme).unwrap_or_default();
        assert!(
            text.contains(&help_markdown(&Bindings::defaults())),
            "README.md's controls table differs from the default bindings; paste:\n{}",
            help_markdown(&Bindings::defaults())
        );
    }
}
