//! Menu navigation by gamepad: D-pad or a flick of the left stick → arrow keys (repeating while
//! held), A (south) → Enter, B (east) → back, Start → pause. [`MenuNav`] turns [`PadEvent`]s into
//! [`UiKey`]s; the window turns those into the key events its UI already answers, so a pad
//! drives every screen exactly as the keyboard does.
//!
//! Owns the nav map, the stick's flick thresholds and the repeat timing, in input ticks
//! ([`Ticker`] turns elapsed time into ticks for the caller). Must not read the clock or know
//! the screens.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::TICK_HZ;
use crate::pad::{PadAxis, PadButton, PadEvent, PadId, PadSet};

/// Ticks a direction is held before it repeats (0.4 s).
pub const REPEAT_DELAY_TICKS: u32 = 24;
/// Ticks between repeats after that, at the least (0.1 s: ten a second).
pub const REPEAT_EVERY_TICKS: u32 = 6;
/// The left stick counts as a direction past this deflection…
pub const FLICK_ON: f32 = 0.6;
/// …until it comes back inside this one (hysteresis: no chatter at the threshold).
pub const FLICK_OFF: f32 = 0.35;
/// Keys kept between drains at most (a stuck flood cannot grow the queue).
const MAX_QUEUED: usize = 64;

/// A key the menus understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UiKey {
    Up,
    Down,
    Left,
    Right,
    /// Press the focused control (A).
    Enter,
    /// Back out (B): Escape in the menus, nothing in flight (B is a flight control there).
    Back,
    /// Start: Escape everywhere — pause in flight, resume on the pause menu.
    Pause,
}

impl UiKey {
    fn from_dpad(b: PadButton) -> Option<UiKey> {
        Some(match b {
            PadButton::DPadUp => UiKey::Up,
            PadButton::DPadDown => UiKey::Down,
            PadButton::DPadLeft => UiKey::Left,
            PadButton::DPadRight => UiKey::Right,
            _ => return None,
        })
    }

    fn from_button(b: PadButton) -> Option<UiKey> {
        Some(match b {
            PadButton::South => UiKey::Enter,
            PadButton::East => UiKey::Back,
            PadButton::Start => UiKey::Pause,
            _ => return None,
        })
    }
}

/// Gamepads as menu keys.
#[derive(Debug, Clone, Default)]
pub struct MenuNav {
    pads: PadSet,
    /// D-pad directions held, the most recent last.
    dpad: Vec<(PadId, UiKey)>,
    /// Each pad's left-stick direction (with hysteresis).
    stick: BTreeMap<PadId, UiKey>,
    /// The direction that repeats, and for how long it has been held.
    held: Option<UiKey>,
    held_ticks: u32,
    next_repeat: u32,
    out: Vec<UiKey>,
}

impl MenuNav {
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, k: UiKey) {
        if self.out.len() < MAX_QUEUED {
            self.out.push(k);
        }
    }

    /// Applies one pad event; a press gives its key at once.
    pub fn event(&mut self, ev: &PadEvent) {
        let pad = ev.pad();
        let edge = self.pads.apply(ev);
        match ev {
            PadEvent::Disconnected { .. } | PadEvent::Connected { .. } => {
                self.dpad.retain(|(p, _)| *p != pad);
                self.stick.remove(&pad);
            }
            PadEvent::Axis {
                axis: PadAxis::LeftX | PadAxis::LeftY,
                ..
            } => {
                let before = self.stick.get(&pad).copied();
                let now = self.flick(pad, before);
                match now {
                    Some(d) => {
                        self.stick.insert(pad, d);
                    }
                    None => {
                        self.stick.remove(&pad);
                    }
                }
                if let Some(d) = now
                    && before != now
                {
                    self.push(d);
                    self.start_repeat(Some(d));
                }
            }
            _ => {}
        }
        if let Some(e) = edge {
            match (UiKey::from_dpad(e.button), e.pressed) {
                (Some(d), true) => {
                    self.dpad.retain(|x| *x != (pad, d));
                    self.dpad.push((pad, d));
                    self.push(d);
                    self.start_repeat(Some(d));
                }
                (Some(d), false) => self.dpad.retain(|x| *x != (pad, d)),
                (None, true) => {
                    if let Some(k) = UiKey::from_button(e.button) {
                        self.push(k);
                    }
                }
                (None, false) => {}
            }
        }
        // What repeats now: the newest D-pad direction held, else a stick's.
        let current = self
            .dpad
            .last()
            .map(|(_, d)| *d)
            .or_else(|| self.stick.values().next().copied());
        if current != self.held {
            self.start_repeat(current);
        }
    }

    fn start_repeat(&mut self, d: Option<UiKey>) {
        self.held = d;
        self.held_ticks = 0;
        self.next_repeat = REPEAT_DELAY_TICKS;
    }

    /// The left stick's direction of `pad`: the dominant axis past [`FLICK_ON`], kept until
    /// its axis comes back inside [`FLICK_OFF`].
    fn flick(&self, pad: PadId, before: Option<UiKey>) -> Option<UiKey> {
        let x = self.pads.raw(pad, PadAxis::LeftX);
        let y = self.pads.raw(pad, PadAxis::LeftY);
        let along = |d: UiKey| match d {
            UiKey::Up => y,
            UiKey::Down => -y,
            UiKey::Left => -x,
            UiKey::Right => x,
            _ => 0.0,
        };
        if let Some(d) = before
            && along(d) > FLICK_OFF
            && along(d) >= x.abs().max(y.abs()) - 1e-6
        {
            return Some(d);
        }
        if x.abs().max(y.abs()) < FLICK_ON {
            return None;
        }
        Some(if x.abs() > y.abs() {
            if x > 0.0 { UiKey::Right } else { UiKey::Left }
        } else if y > 0.0 {
            UiKey::Up
        } else {
            UiKey::Down
        })
    }

    /// `ticks` input ticks passed: a held direction repeats after [`REPEAT_DELAY_TICKS`], then at
    /// most once per [`REPEAT_EVERY_TICKS`] — once per call however many ticks it covers, so a
    /// stalled frame does not fire a burst.
    pub fn tick(&mut self, ticks: u32) {
        let Some(d) = self.held else { return };
        self.held_ticks = self.held_ticks.saturating_add(ticks);
        if self.held_ticks >= self.next_repeat {
            self.push(d);
            self.next_repeat = self.held_ticks.saturating_add(REPEAT_EVERY_TICKS);
        }
    }

    /// The keys produced since the last drain, in order.
    pub fn drain(&mut self) -> Vec<UiKey> {
        std::mem::take(&mut self.out)
    }
}

/// Counts 60 Hz input ticks from the elapsed time a caller passes in (the caller's clock).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ticker {
    done: u64,
}

impl Ticker {
    pub fn new() -> Self {
        Self::default()
    }

    /// The ticks that fell due between the last call and `elapsed` (time since the caller's
    /// start). Time going backwards gives 0.
    pub fn advance(&mut self, elapsed: Duration) -> u32 {
        let due = u64::try_from(elapsed.as_nanos() * u128::from(TICK_HZ) / 1_000_000_000)
            .unwrap_or(u64::MAX);
        let n = due.saturating_sub(self.done);
        self.done = self.done.max(due);
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PadId = PadId(1);

    fn button(button: PadButton, pressed: bool) -> PadEvent {
        PadEvent::Button {
            pad: P,
            button,
            pressed,
        }
    }

    fn stick(x: f32, y: f32) -> [PadEvent; 2] {
        [
            PadEvent::Axis {
                pad: P,
                axis: PadAxis::LeftX,
                value: x,
            },
            PadEvent::Axis {
                pad: P,
                axis: PadAxis::LeftY,
                value: y,
            },
        ]
    }

    /// Runs `n` single ticks and returns what they produced.
    fn ticks(nav: &mut MenuNav, n: u32) -> Vec<UiKey> {
        for _ in 0..n {
            nav.tick(1);
        }
        nav.drain()
    }

    #[test]
    fn buttons_map_to_enter_back_and_pause_once_per_press() {
        let mut nav = MenuNav::new();
        nav.event(&button(PadButton::South, true));
        nav.event(&button(PadButton::South, true));
        nav.event(&button(PadButton::South, false));
        nav.event(&button(PadButton::East, true));
        nav.event(&button(PadButton::Start, true));
        nav.event(&button(PadButton::North, true));
        assert_eq!(nav.drain(), [UiKey::Enter, UiKey::Back, UiKey::Pause]);
        assert_eq!(ticks(&mut nav, 100), [], "buttons do not repeat");
    }

    #[test]
    fn a_held_dpad_repeats_after_a_delay_at_a_bounded_rate() {
        let mut nav = MenuNav::new();
        nav.event(&button(PadButton::DPadDown, true));
        assert_eq!(nav.drain(), [UiKey::Down], "at once");
        assert_eq!(ticks(&mut nav, REPEAT_DELAY_TICKS - 1), []);
        assert_eq!(ticks(&mut nav, 1), [UiKey::Down], "after the delay");
        assert_eq!(ticks(&mut nav, REPEAT_EVERY_TICKS - 1), []);
        assert_eq!(ticks(&mut nav, 1), [UiKey::Down]);
        // 60 more ticks: exactly one per REPEAT_EVERY_TICKS.
        assert_eq!(
            ticks(&mut nav, 60).len(),
            (60 / REPEAT_EVERY_TICKS) as usize
        );
        // A stalled frame covering 10 s repeats once, not a hundred times.
        nav.tick(600);
        assert_eq!(nav.drain(), [UiKey::Down]);
        nav.event(&button(PadButton::DPadDown, false));
        assert_eq!(ticks(&mut nav, 100), [], "released: no more");
    }

    #[test]
    fn a_newer_dpad_direction_takes_over_and_the_older_resumes() {
        let mut nav = MenuNav::new();
        nav.event(&button(PadButton::DPadDown, true));
        nav.event(&button(PadButton::DPadRight, true));
        assert_eq!(nav.drain(), [UiKey::Down, UiKey::Right]);
        assert_eq!(ticks(&mut nav, REPEAT_DELAY_TICKS), [UiKey::Right]);
        nav.event(&button(PadButton::DPadRight, false));
        assert_eq!(nav.drain(), [], "letting go does not press");
        // Down is still held: it repeats again after a fresh delay.
        assert_eq!(ticks(&mut nav, REPEAT_DELAY_TICKS), [UiKey::Down]);
    }

    #[test]
    fn a_stick_flick_is_an_arrow_with_hysteresis() {
        let mut nav = MenuNav::new();
        for e in stick(0.3, 0.2) {
            nav.event(&e);
        }
        assert_eq!(nav.drain(), [], "small moves are not a flick");
        for e in stick(0.1, -0.9) {
            nav.event(&e);
        }
        assert_eq!(nav.drain(), [UiKey::Down]);
        // Wobbling between the two thresholds does not press again.
        for y in [-0.5, -0.8, -0.4, -0.7] {
            for e in stick(0.0, y) {
                nav.event(&e);
            }
        }
        assert_eq!(nav.drain(), []);
        assert_eq!(ticks(&mut nav, REPEAT_DELAY_TICKS), [UiKey::Down], "held");
        for e in stick(0.0, -0.2) {
            nav.event(&e);
        }
        assert_eq!(ticks(&mut nav, 100), [], "back to rest");
        for e in stick(-0.95, 0.0) {
            nav.event(&e);
        }
        assert_eq!(nav.drain(), [UiKey::Left]);
    }

    #[test]
    fn disconnect_stops_a_held_direction() {
        let mut nav = MenuNav::new();
        nav.event(&button(PadButton::DPadUp, true));
        for e in stick(0.0, 1.0) {
            nav.event(&e);
        }
        nav.drain();
        nav.event(&PadEvent::Disconnected {
            pad: P,
            name: "Pad".into(),
        });
        assert_eq!(ticks(&mut nav, 200), []);
        // Reconnected at rest: nothing held, a press works again.
        nav.event(&PadEvent::Connected {
            pad: P,
            name: "Pad".into(),
        });
        nav.event(&button(PadButton::DPadUp, true));
        assert_eq!(nav.drain(), [UiKey::Up]);
    }

    #[test]
    fn the_queue_is_bounded() {
        let mut nav = MenuNav::new();
        for _ in 0..1_000 {
            nav.event(&button(PadButton::South, true));
            nav.event(&button(PadButton::South, false));
        }
        assert_eq!(nav.drain().len(), MAX_QUEUED);
    }

    #[test]
    fn the_ticker_counts_sixtieths_from_the_callers_time() {
        let mut t = Ticker::new();
        assert_eq!(t.advance(Duration::from_millis(10)), 0);
        assert_eq!(t.advance(Duration::from_millis(17)), 1);
        assert_eq!(t.advance(Duration::from_millis(1_017)), 60);
        assert_eq!(t.advance(Duration::from_millis(500)), 0, "time going back");
        assert_eq!(t.advance(Duration::from_millis(1_034)), 1);
        assert_eq!(t.advance(Duration::MAX), u32::MAX);
    }
}
