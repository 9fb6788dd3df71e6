//! The settings that are one of a few named values (vsync, fullscreen, the detail levels), the
//! window size and the HUD colour: their names in `user.toml`, their labels on the Settings
//! screen, and parsing them back.
//!
//! Owns the spelling of these values. Must not: apply them (the window does) or read files.

use std::fmt;

/// A setting that is one of a few named values.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// Every value, in the order the Settings screen lists them.
    const ALL: &'static [Self];
    /// Other names accepted when reading (older or friendlier spellings).
    const ALIASES: &'static [(&'static str, Self)] = &[];

    /// The name written in the file.
    fn name(self) -> &'static str;

    /// The Settings screen's label.
    fn label(self) -> &'static str;

    /// The value named `s` (case and surrounding spaces ignored).
    fn from_name(s: &str) -> Option<Self> {
        let s = s.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .or_else(|| {
                Self::ALIASES
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(s))
                    .map(|&(_, v)| v)
            })
    }

    /// The names a file may use, for messages: `"on", "adaptive" or "off"`.
    fn names() -> String {
        let names: Vec<String> = Self::ALL
            .iter()
            .map(|v| format!("{:?}", v.name()))
            .collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            Some((last, _)) => last.clone(),
            None => String::new(),
        }
    }
}

/// How frames wait for the display. The window maps these one to one onto
/// `fl_render::surface::Vsync` (`On`, `Adaptive`, `Off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VsyncMode {
    /// Wait for the display's refresh: no tearing.
    #[default]
    On,
    /// Wait, but tear rather than wait a whole refresh when a frame is late.
    Adaptive,
    /// Present at once (lowest latency; may tear). "fast" is accepted as another name.
    Off,
}

impl Choice for VsyncMode {
    const ALL: &'static [Self] = &[VsyncMode::On, VsyncMode::Adaptive, VsyncMode::Off];
    const ALIASES: &'static [(&'static str, Self)] = &[("fast", VsyncMode::Off)];

    fn name(self) -> &'static str {
        match self {
            VsyncMode::On => "on",
            VsyncMode::Adaptive => "adaptive",
            VsyncMode::Off => "off",
        }
    }

    fn label(self) -> &'static str {
        match self {
            VsyncMode::On => "On",
            VsyncMode::Adaptive => "Adaptive",
            VsyncMode::Off => "Off (fastest)",
        }
    }
}

/// Whether the window fills the screen. Borderless only: exclusive fullscreen changes the
/// display's mode, which is slow to switch, and a borderless window at the monitor's own size
/// looks the same with today's compositors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fullscreen {
    /// A normal window of [`Resolution`] size.
    #[default]
    Off,
    /// A borderless window covering the monitor the window is on.
    Borderless,
}

impl Choice for Fullscreen {
    const ALL: &'static [Self] = &[Fullscreen::Off, Fullscreen::Borderless];
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("windowed", Fullscreen::Off),
        ("on", Fullscreen::Borderless),
    ];

    fn name(self) -> &'static str {
        match self {
            Fullscreen::Off => "off",
            Fullscreen::Borderless => "borderless",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Fullscreen::Off => "Windowed",
            Fullscreen::Borderless => "Fullscreen (borderless)",
        }
    }
}

/// How finely the terrain is drawn: the screen-space error (pixels) the terrain stream allows
/// before it splits a chunk (`fl_terrain::chunks::ChunkView::max_error_px`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TerrainDetail {
    Low,
    #[default]
    Medium,
    High,
}

impl TerrainDetail {
    /// The terrain stream's allowed error, pixels (Medium is what the game always used).
    pub fn max_error_px(self) -> f64 {
        match self {
            TerrainDetail::Low => 4.0,
            TerrainDetail::Medium => 2.0,
            TerrainDetail::High => 1.0,
        }
    }
}

impl Choice for TerrainDetail {
    const ALL: &'static [Self] = &[
        TerrainDetail::Low,
        TerrainDetail::Medium,
        TerrainDetail::High,
    ];

    fn name(self) -> &'static str {
        match self {
            TerrainDetail::Low => "low",
            TerrainDetail::Medium => "medium",
            TerrainDetail::High => "high",
        }
    }

    fn label(self) -> &'static str {
        match self {
            TerrainDetail::Low => "Low",
            TerrainDetail::Medium => "Medium",
            TerrainDetail::High => "High",
        }
    }
}

/// Which level of detail aircraft and objects are drawn with. The renderer chooses a model's
/// `_lod<N>` mesh from its size on screen, or draws the full mesh when told to; a finer bias
/// between the two needs the renderer's LOD thresholds to be adjustable (docs/settings.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelDetail {
    /// By size on screen (`fl_render::LodHint::Auto`).
    #[default]
    Auto,
    /// Always the full mesh (`LodHint::Base`): sharper far away, slower with many aircraft.
    Full,
}

impl Choice for ModelDetail {
    const ALL: &'static [Self] = &[ModelDetail::Auto, ModelDetail::Full];

    fn name(self) -> &'static str {
        match self {
            ModelDetail::Auto => "auto",
            ModelDetail::Full => "full",
        }
    }

    fn label(self) -> &'static str {
        match self {
            ModelDetail::Auto => "By distance",
            ModelDetail::Full => "Always full",
        }
    }
}

/// The window's size when it is not fullscreen, physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    pub width: u32,
    pub height: u32,
}

impl Resolution {
    /// The smallest window the settings ask for (the command line's `--size` may go lower).
    pub const MIN: Resolution = Resolution {
        width: 640,
        height: 360,
    };
    /// The largest (wgpu's usual texture limit).
    pub const MAX: Resolution = Resolution {
        width: 16_384,
        height: 16_384,
    };
    /// The sizes the Settings screen offers (a size from the file or `--size` is added).
    pub const PRESETS: [Resolution; 6] = [
        Resolution::new(1280, 720),
        Resolution::new(1600, 900),
        Resolution::new(1920, 1080),
        Resolution::new(2560, 1080),
        Resolution::new(2560, 1440),
        Resolution::new(3840, 2160),
    ];

    pub const fn new(width: u32, height: u32) -> Resolution {
        Resolution { width, height }
    }

    /// Parses `WIDTHxHEIGHT` (`1920x1080`; `X` and spaces around the numbers allowed). The
    /// sides are not clamped here.
    pub fn parse(s: &str) -> Result<Resolution, String> {
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT (e.g. \"1920x1080\")"))?;
        let side = |v: &str| -> Result<u32, String> {
            v.trim()
                .parse::<u32>()
                .map_err(|_| format!("{s:?}: {:?} is not a number of pixels", v.trim()))
        };
        Ok(Resolution::new(side(w)?, side(h)?))
    }

    /// Each side brought within [`Resolution::MIN`] ..= [`Resolution::MAX`].
    pub fn clamped(self) -> Resolution {
        Resolution::new(
            self.width.clamp(Self::MIN.width, Self::MAX.width),
            self.height.clamp(Self::MIN.height, Self::MAX.height),
        )
    }
}

impl Default for Resolution {
    fn default() -> Self {
        Resolution::new(1280, 720)
    }
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// The HUD's symbology colour: one of a few named colours or any RGB (`"#rrggbb"`). Caution
/// amber and warning red keep their own colours whatever this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HudColour(pub [u8; 3]);

impl HudColour {
    /// The named colours (green is the HUD's classic phosphor, `hud::GREEN`).
    pub const NAMED: [(&'static str, &'static str, HudColour); 4] = [
        ("green", "Green", HudColour([90, 255, 120])),
        ("amber", "Amber", HudColour([255, 190, 40])),
        ("white", "White", HudColour([235, 240, 235])),
        ("cyan", "Cyan", HudColour([110, 230, 255])),
    ];

    /// The name this colour has, when it is a named one.
    pub fn name(self) -> Option<&'static str> {
        Self::NAMED
            .iter()
            .find(|(_, _, c)| *c == self)
            .map(|(n, _, _)| *n)
    }

    /// `green`, `AMBER`, `#5aff78` or `#5AFF78`.
    pub fn parse(s: &str) -> Result<HudColour, String> {
        let t = s.trim();
        if let Some((_, _, c)) = Self::NAMED
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(t))
        {
            return Ok(*c);
        }
        let bad = || {
            let names: Vec<&str> = Self::NAMED.iter().map(|(n, _, _)| *n).collect();
            format!(
                "{s:?} is not a colour (one of {} or \"#rrggbb\")",
                names.join(", ")
            )
        };
        let hex = t.strip_prefix('#').ok_or_else(bad)?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
        Ok(HudColour([byte(0)?, byte(2)?, byte(4)?]))
    }

    pub fn to_color32(self) -> egui::Color32 {
        let [r, g, b] = self.0;
        egui::Color32::from_rgb(r, g, b)
    }
}

impl Default for HudColour {
    fn default() -> Self {
        Self::NAMED[0].2
    }
}

impl fmt::Display for HudColour {
    /// The name when it has one, else `#rrggbb`: what the file stores.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => {
                let [r, g, b] = self.0;
                write!(f, "#{r:02x}{g:02x}{b:02x}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_read_their_names_aliases_and_any_case() {
        for v in VsyncMode::ALL {
            assert_eq!(VsyncMode::from_name(v.name()), Some(*v));
        }
        assert_eq!(VsyncMode::from_name(" FAST "), Some(VsyncMode::Off));
        assert_eq!(VsyncMode::from_name("sometimes"), None);
        assert_eq!(
            Fullscreen::from_name("Borderless"),
            Some(Fullscreen::Borderless)
        );
        assert_eq!(Fullscreen::from_name("windowed"), Some(Fullscreen::Off));
        assert_eq!(TerrainDetail::from_name("high"), Some(TerrainDetail::High));
        assert_eq!(ModelDetail::from_name("full"), Some(ModelDetail::Full));
        assert_eq!(VsyncMode::names(), "\"on\", \"adaptive\" or \"off\"");
    }

    #[test]
    fn terrain_detail_medium_is_the_old_fixed_error() {
        assert_eq!(TerrainDetail::default().max_error_px(), 2.0);
        assert!(TerrainDetail::High.max_error_px() < TerrainDetail::Low.max_error_px());
    }

    #[test]
    fn resolutions_parse_print_and_clamp() {
        assert_eq!(
            Resolution::parse(" 1920 x 1080"),
            Ok(Resolution::new(1920, 1080))
        );
        assert_eq!(Resolution::parse("800X600"), Ok(Resolution::new(800, 600)));
        assert!(Resolution::parse("1920").is_err());
        assert!(Resolution::parse("-1x5").is_err());
        assert!(Resolution::parse("axb").is_err());
        assert_eq!(Resolution::new(2560, 1440).to_string(), "2560x1440");
        assert_eq!(
            Resolution::new(10, 99_999).clamped(),
            Resolution::new(640, 16_384)
        );
    }

    #[test]
    fn hud_colours_by_name_or_hex() {
        assert_eq!(HudColour::parse("Amber"), Ok(HudColour([255, 190, 40])));
        assert_eq!(HudColour::parse("#0a0B0c"), Ok(HudColour([10, 11, 12])));
        for bad in ["purple", "#12345", "#1234567", "12ab34", "#gg0000", ""] {
            assert!(HudColour::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(HudColour::default().to_string(), "green");
        assert_eq!(HudColour([1, 2, 255]).to_string(), "#0102ff");
        assert_eq!(
            HudColour::default().to_color32(),
            crate::hud::GREEN,
            "the default is the HUD's own green"
        );
    }
}
