//! Keyboard keys and mouse buttons as bindable names: [`KeyName`] (a winit logical key's name,
//! canonical so `w` and `W` are one key) and [`MouseButton`].
//!
//! Owns the name table and the canonical form. Must not hold key state (the mapper's) or read
//! the window.

use winit::keyboard::{Key, NamedKey};

/// Characters of a key name kept at most (a hostile file cannot grow one).
const MAX_KEY_CHARS: usize = 8;

/// The named (non-character) keys a binding may use, with their `bindings.toml` names
/// (winit's own names) and how the help shows them.
const NAMED: &[(NamedKey, &str, &str)] = &[
    (NamedKey::ArrowUp, "ArrowUp", "Up"),
    (NamedKey::ArrowDown, "ArrowDown", "Down"),
    (NamedKey::ArrowLeft, "ArrowLeft", "Left"),
    (NamedKey::ArrowRight, "ArrowRight", "Right"),
    (NamedKey::PageUp, "PageUp", "Page Up"),
    (NamedKey::PageDown, "PageDown", "Page Down"),
    (NamedKey::Home, "Home", "Home"),
    (NamedKey::End, "End", "End"),
    (NamedKey::Insert, "Insert", "Insert"),
    (NamedKey::Delete, "Delete", "Delete"),
    (NamedKey::Backspace, "Backspace", "Backspace"),
    (NamedKey::Enter, "Enter", "Enter"),
    (NamedKey::Tab, "Tab", "Tab"),
    (NamedKey::Space, "Space", "Space"),
    (NamedKey::Escape, "Escape", "Esc"),
    (NamedKey::Shift, "Shift", "Shift"),
    (NamedKey::Control, "Control", "Ctrl"),
    (NamedKey::Alt, "Alt", "Alt"),
    (NamedKey::AltGraph, "AltGraph", "AltGr"),
    (NamedKey::Super, "Super", "Super"),
    (NamedKey::CapsLock, "CapsLock", "Caps Lock"),
    (NamedKey::NumLock, "NumLock", "Num Lock"),
    (NamedKey::ScrollLock, "ScrollLock", "Scroll Lock"),
    (NamedKey::PrintScreen, "PrintScreen", "Print Screen"),
    (NamedKey::Pause, "Pause", "Pause"),
    (NamedKey::ContextMenu, "ContextMenu", "Menu"),
    (NamedKey::F1, "F1", "F1"),
    (NamedKey::F2, "F2", "F2"),
    (NamedKey::F3, "F3", "F3"),
    (NamedKey::F4, "F4", "F4"),
    (NamedKey::F5, "F5", "F5"),
    (NamedKey::F6, "F6", "F6"),
    (NamedKey::F7, "F7", "F7"),
    (NamedKey::F8, "F8", "F8"),
    (NamedKey::F9, "F9", "F9"),
    (NamedKey::F10, "F10", "F10"),
    (NamedKey::F11, "F11", "F11"),
    (NamedKey::F12, "F12", "F12"),
    (NamedKey::F13, "F13", "F13"),
    (NamedKey::F14, "F14", "F14"),
    (NamedKey::F15, "F15", "F15"),
    (NamedKey::F16, "F16", "F16"),
    (NamedKey::F17, "F17", "F17"),
    (NamedKey::F18, "F18", "F18"),
    (NamedKey::F19, "F19", "F19"),
    (NamedKey::F20, "F20", "F20"),
    (NamedKey::F21, "F21", "F21"),
    (NamedKey::F22, "F22", "F22"),
    (NamedKey::F23, "F23", "F23"),
    (NamedKey::F24, "F24", "F24"),
];

/// A keyboard key as bindings name it: winit's logical key, canonical (letters upper case;
/// `=` is `+` and `_` is `-`, so the plus key throttles up with or without Shift, on layouts
/// where `+` is Shift+`=` and where it is a key of its own).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyName(String);

impl KeyName {
    /// Escape: always back / pause, never bindable (it also cancels a capture).
    pub fn escape() -> KeyName {
        KeyName("Escape".to_owned())
    }

    /// The name of a winit key (`None` for dead and unidentified keys).
    pub fn from_key(key: &Key) -> Option<KeyName> {
        match key {
            Key::Named(n) => NAMED
                .iter()
                .find(|(k, _, _)| k == n)
                .map(|(_, name, _)| KeyName((*name).to_owned())),
            Key::Character(c) => Self::character(c),
            _ => None,
        }
    }

    fn character(c: &str) -> Option<KeyName> {
        if c.is_empty()
            || c.chars().count() > MAX_KEY_CHARS
            || c.chars().any(|ch| ch.is_control() || ch.is_whitespace())
        {
            return None;
        }
        let canonical = match c {
            "=" => "+".to_owned(),
            "_" => "-".to_owned(),
            other => other.to_uppercase(),
        };
        Some(KeyName(canonical))
    }

    /// Parses a `bindings.toml` key name: a named key (`"PageUp"`) or a character (`"W"`).
    pub fn parse(s: &str) -> Option<KeyName> {
        if let Some((_, name, _)) = NAMED.iter().find(|(_, name, _)| *name == s) {
            return Some(KeyName((*name).to_owned()));
        }
        // One character; named keys are longer than one character and were matched above.
        if s.chars().count() == 1 {
            Self::character(s)
        } else {
            None
        }
    }

    /// The name in `bindings.toml`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// How the help and the Settings screen show it.
    pub fn label(&self) -> &str {
        NAMED
            .iter()
            .find(|(_, name, _)| *name == self.0)
            .map_or(self.0.as_str(), |(_, _, label)| label)
    }

    pub fn is_escape(&self) -> bool {
        self.0 == "Escape"
    }
}

impl std::fmt::Display for KeyName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MouseButton {
    Left,
    Right,
    Middle,
    Back,
    Forward,
    Other(u16),
}

impl MouseButton {
    /// The name in `bindings.toml`: `MouseLeft`, …, `Mouse7`.
    pub fn name(self) -> String {
        match self {
            MouseButton::Left => "MouseLeft".to_owned(),
            MouseButton::Right => "MouseRight".to_owned(),
            MouseButton::Middle => "MouseMiddle".to_owned(),
            MouseButton::Back => "MouseBack".to_owned(),
            MouseButton::Forward => "MouseForward".to_owned(),
            MouseButton::Other(n) => format!("Mouse{n}"),
        }
    }

    pub fn parse(s: &str) -> Option<MouseButton> {
        Some(match s {
            "MouseLeft" => MouseButton::Left,
            "MouseRight" => MouseButton::Right,
            "MouseMiddle" => MouseButton::Middle,
            "MouseBack" => MouseButton::Back,
            "MouseForward" => MouseButton::Forward,
            other => {
                let n = other.strip_prefix("Mouse")?;
                if n.is_empty() || n.len() > 5 || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                MouseButton::Other(n.parse().ok()?)
            }
        })
    }

    /// How the help shows it.
    pub fn label(self) -> String {
        match self {
            MouseButton::Left => "left mouse button".to_owned(),
            MouseButton::Right => "right mouse button".to_owned(),
            MouseButton::Middle => "middle mouse button".to_owned(),
            MouseButton::Back => "mouse back".to_owned(),
            MouseButton::Forward => "mouse forward".to_owned(),
            MouseButton::Other(n) => format!("mouse button {n}"),
        }
    }
}

impl From<winit::event::MouseButton> for MouseButton {
    fn from(b: winit::event::MouseButton) -> Self {
        use winit::event::MouseButton as W;
        match b {
            W::Left => MouseButton::Left,
            W::Right => MouseButton::Right,
            W::Middle => MouseButton::Middle,
            W::Back => MouseButton::Back,
            W::Forward => MouseButton::Forward,
            W::Other(n) => MouseButton::Other(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: &str) -> Key {
        Key::Character(c.into())
    }

    #[test]
    fn letters_are_one_key_in_either_case_and_plus_minus_ignore_shift() {
        assert_eq!(KeyName::from_key(&ch("w")), KeyName::from_key(&ch("W")));
        assert_eq!(KeyName::from_key(&ch("w")).map(|k| k.0), Some("W".into()));
        assert_eq!(KeyName::from_key(&ch("=")), KeyName::parse("+"));
        assert_eq!(KeyName::from_key(&ch("_")), KeyName::parse("-"));
        assert_eq!(KeyName::from_key(&ch("")), None);
        assert_eq!(KeyName::from_key(&ch("\u{7}")), None);
        assert_eq!(KeyName::from_key(&Key::Dead(None)), None);
    }

    #[test]
    fn named_keys_round_trip_and_have_labels() {
        for (key, name, label) in NAMED {
            let k = KeyName::from_key(&Key::Named(*key)).expect("named key");
            assert_eq!(k.as_str(), *name);
            assert_eq!(KeyName::parse(name), Some(k.clone()));
            assert_eq!(k.label(), *label);
        }
        assert_eq!(KeyName::parse("Hyper9"), None);
        assert_eq!(KeyName::parse(""), None);
        assert_eq!(KeyName::parse("WW"), None);
        assert!(KeyName::parse("Escape").is_some_and(|k| k.is_escape()));
        assert_eq!(KeyName::from_key(&Key::Named(NamedKey::Hyper)), None);
    }

    #[test]
    fn mouse_buttons_round_trip() {
        for b in [
            MouseButton::Left,
            MouseButton::Right,
            MouseButton::Middle,
            MouseButton::Back,
            MouseButton::Forward,
            MouseButton::Other(7),
        ] {
            assert_eq!(MouseButton::parse(&b.name()), Some(b));
        }
        assert_eq!(MouseButton::parse("Mouse"), None);
        assert_eq!(MouseButton::parse("Mouse99999999"), None);
        assert_eq!(MouseButton::parse("Mouse-1"), None);
        assert_eq!(MouseButton::parse("Left"), None);
    }
}
