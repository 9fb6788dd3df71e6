//! The pack's sounds by purpose: weapon effects ([`Sfx`]: `audio/sfx/gunfire`, `launch`,
//! `release`, `impact`, `explosion`), music ([`MusicTrack`]: `audio/music/menu_theme`, …) and
//! radio calls (`audio/radio/<key>.ogg`, the key being the file's name: `atc.cleared_takeoff`),
//! found through the content stack (the highest pack that has a name wins) and decoded once,
//! with bounds: every file is read path-safe and size-bounded, each purpose has its own length
//! limit, the radio at most [`MAX_RADIO_CALLS`] keys, and the whole bank at most
//! [`MAX_BANK_SAMPLES`] samples. A missing sound is silence; a broken one is a problem
//! recorded (and logged once) — never a failure of the game.
//!
//! Owns the asset names of sounds by purpose and their loading. Must not: play anything
//! (`output`), or read outside a pack (it goes through `fl_content`'s `PackRoot`).

use std::collections::BTreeMap;

use fl_content::{AssetError, AssetKind, Content, PackRoot, ResolvedAsset};

use crate::clip::{self, Clip};
use crate::mixer::Bus;
use crate::spatial::Falloff;

/// Longest weapon effect, seconds.
pub const MAX_SFX_SECONDS: f64 = 10.0;
/// Longest radio call, seconds.
pub const MAX_RADIO_SECONDS: f64 = 20.0;
/// Longest music track, seconds (≈ 46 MB of samples at 48 kHz).
pub const MAX_MUSIC_SECONDS: f64 = 240.0;
/// Radio keys read at most.
pub const MAX_RADIO_CALLS: usize = 256;
/// Directory entries looked at in one pack's `audio/radio`.
const MAX_RADIO_ENTRIES: usize = 4_096;
/// Samples the whole bank may hold (128 MB): a pack of huge files cannot exhaust memory.
pub const MAX_BANK_SAMPLES: usize = 32 * 1024 * 1024;

/// A weapon sound effect (the pack's `audio/sfx` contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sfx {
    /// A gun round (played in bursts while a gun fires).
    Gunfire,
    /// A missile leaving the rails.
    Launch,
    /// A store dropped.
    Release,
    /// A round connecting.
    Impact,
    /// A warhead detonating.
    Explosion,
}

impl Sfx {
    /// Every effect.
    pub const ALL: [Sfx; 5] = [
        Sfx::Gunfire,
        Sfx::Launch,
        Sfx::Release,
        Sfx::Impact,
        Sfx::Explosion,
    ];

    /// Its asset name (`sfx/gunfire` is `audio/sfx/gunfire.ogg`).
    pub fn asset_name(self) -> &'static str {
        match self {
            Sfx::Gunfire => "sfx/gunfire",
            Sfx::Launch => "sfx/launch",
            Sfx::Release => "sfx/release",
            Sfx::Impact => "sfx/impact",
            Sfx::Explosion => "sfx/explosion",
        }
    }

    /// The bus it plays on.
    pub fn bus(self) -> Bus {
        Bus::Weapons
    }

    /// How far it carries.
    pub fn falloff(self) -> Falloff {
        match self {
            Sfx::Gunfire | Sfx::Impact | Sfx::Release => Falloff::GUN,
            Sfx::Launch | Sfx::Explosion => Falloff::EXPLOSION,
        }
    }
}

/// A music track (the pack's `audio/music` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MusicTrack {
    /// The menus.
    Menu,
    /// Flying, nothing happening.
    Patrol,
    /// A fight.
    Combat,
    /// A mission won.
    Victory,
    /// The debrief.
    Debrief,
}

impl MusicTrack {
    /// Every track.
    pub const ALL: [MusicTrack; 5] = [
        MusicTrack::Menu,
        MusicTrack::Patrol,
        MusicTrack::Combat,
        MusicTrack::Victory,
        MusicTrack::Debrief,
    ];

    /// Its asset name.
    pub fn asset_name(self) -> &'static str {
        match self {
            MusicTrack::Menu => "music/menu_theme",
            MusicTrack::Patrol => "music/patrol_01",
            MusicTrack::Combat => "music/combat_01",
            MusicTrack::Victory => "music/victory",
            MusicTrack::Debrief => "music/debrief",
        }
    }

    /// Whether it loops (the fanfare plays once).
    pub fn loops(self) -> bool {
        !matches!(self, MusicTrack::Victory)
    }
}

/// Which parts of the pack's sounds to load (music is large and slow to decode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankParts {
    pub sfx: bool,
    pub music: bool,
    pub radio: bool,
}

impl BankParts {
    /// Everything.
    pub const ALL: BankParts = BankParts {
        sfx: true,
        music: true,
        radio: true,
    };
}

/// The pack's sounds, decoded. Cheap to share (`Arc`); clips are cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct SoundBank {
    sfx: BTreeMap<Sfx, Clip>,
    music: BTreeMap<MusicTrack, Clip>,
    radio: BTreeMap<String, Clip>,
    problems: Vec<String>,
    samples: usize,
}

/// A radio key as a file name may carry it: 1 … 64 of `a-z 0-9 . _ -`, not starting with a dot.
pub fn valid_radio_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && !key.starts_with('.')
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

impl SoundBank {
    /// An empty bank: every lookup is `None` (silence).
    pub fn empty() -> SoundBank {
        SoundBank::default()
    }

    /// Loads every purpose from `content`.
    pub fn load(content: &Content) -> SoundBank {
        SoundBank::load_parts(content, BankParts::ALL)
    }

    /// Loads `parts` from `content`. Never fails: what is missing is silence, what is broken is
    /// in [`SoundBank::problems`] (and logged once).
    pub fn load_parts(content: &Content, parts: BankParts) -> SoundBank {
        let mut bank = SoundBank::default();
        if parts.sfx {
            for s in Sfx::ALL {
                if let Some(c) = bank.read(content, s.asset_name(), MAX_SFX_SECONDS) {
                    bank.sfx.insert(s, c);
                }
            }
        }
        if parts.music {
            for t in MusicTrack::ALL {
                if let Some(c) = bank.read(content, t.asset_name(), MAX_MUSIC_SECONDS) {
                    bank.music.insert(t, c);
                }
            }
        }
        if parts.radio {
            for key in radio_keys(content, &mut bank.problems) {
                if let Some(c) = bank.read(content, &format!("radio/{key}"), MAX_RADIO_SECONDS) {
                    bank.radio.insert(key, c);
                }
            }
        }
        for p in &bank.problems {
            tracing::warn!("sound: {p}");
        }
        bank
    }

    /// Reads and decodes `name`, within the bank's budget; `None` when absent or broken.
    fn read(&mut self, content: &Content, name: &str, max_seconds: f64) -> Option<Clip> {
        match read_audio(content, name, max_seconds) {
            Ok(None) => {
                tracing::debug!("sound {name}: not in any pack");
                None
            }
            Ok(Some(c)) if self.samples + c.samples().len() > MAX_BANK_SAMPLES => {
                self.problems.push(format!(
                    "{name}: left out, the pack's sounds exceed {MAX_BANK_SAMPLES} samples"
                ));
                None
            }
            Ok(Some(c)) => {
                self.samples += c.samples().len();
                Some(c)
            }
            Err(e) => {
                self.problems.push(e);
                None
            }
        }
    }

    /// A weapon effect.
    pub fn sfx(&self, s: Sfx) -> Option<&Clip> {
        self.sfx.get(&s)
    }

    /// A music track.
    pub fn music(&self, t: MusicTrack) -> Option<&Clip> {
        self.music.get(&t)
    }

    /// A radio call by key (`atc.cleared_takeoff`).
    pub fn radio(&self, key: &str) -> Option<&Clip> {
        self.radio.get(key)
    }

    /// The radio keys held, in order.
    pub fn radio_keys(&self) -> impl Iterator<Item = &str> {
        self.radio.keys().map(String::as_str)
    }

    /// What could not be loaded, and why.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Samples held.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Sets a weapon effect (tests, and a game that makes its own).
    pub fn insert_sfx(&mut self, s: Sfx, clip: Clip) {
        self.samples += clip.samples().len();
        self.sfx.insert(s, clip);
    }

    /// Sets a music track (tests, and a game that makes its own).
    pub fn insert_music(&mut self, t: MusicTrack, clip: Clip) {
        self.samples += clip.samples().len();
        self.music.insert(t, clip);
    }

    /// Adds a radio call (tests, and a game that makes its own).
    pub fn insert_radio(&mut self, key: &str, clip: Clip) -> bool {
        if !valid_radio_key(key) || self.radio.len() >= MAX_RADIO_CALLS {
            return false;
        }
        self.samples += clip.samples().len();
        self.radio.insert(key.to_owned(), clip);
        true
    }
}

/// Reads the audio asset `name` through the stack, path-safe and bounded, and decodes it.
/// `Ok(None)`: no pack has it.
pub fn read_audio(content: &Content, name: &str, max_seconds: f64) -> Result<Option<Clip>, String> {
    let (pack, path) = match content.resolve_asset(AssetKind::Audio, name) {
        Ok(ResolvedAsset::File { pack, path }) => (pack, path),
        Ok(ResolvedAsset::Builtin(_)) | Err(AssetError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let root = content
        .packs()
        .into_iter()
        .find(|p| p.id == pack)
        .map(|p| p.root)
        .ok_or_else(|| format!("{name}: pack {pack} is not mounted"))?;
    let root = PackRoot::new(&root).map_err(|e| format!("{name}: {e}"))?;
    let bytes = root
        .read(&path, AssetKind::Audio, clip::MAX_FILE_BYTES)
        .map_err(|e| format!("{name}: {e}"))?;
    clip::decode_limited(&bytes, &path.display().to_string(), max_seconds)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The radio keys the stack's packs have (`audio/radio/<key>.ogg` or `.wav`), each once,
/// bounded; odd file names are skipped with a problem noted.
fn radio_keys(content: &Content, problems: &mut Vec<String>) -> Vec<String> {
    let mut keys = std::collections::BTreeSet::new();
    for pack in content.packs() {
        let dir = pack.root.join("audio/radio");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.take(MAX_RADIO_ENTRIES).flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(key) = name
                .strip_suffix(".ogg")
                .or_else(|| name.strip_suffix(".wav"))
            else {
                continue;
            };
            if !valid_radio_key(key) {
                problems.push(format!(
                    "{}: not a radio key (a-z, 0-9, '.', '_', '-'; at most 64)",
                    dir.join(name).display()
                ));
                continue;
            }
            if keys.len() >= MAX_RADIO_CALLS && !keys.contains(key) {
                problems.push(format!(
                    "{}: more than {MAX_RADIO_CALLS} radio calls; the rest are left out",
                    dir.display()
                ));
                break;
            }
            keys.insert(key.to_owned());
        }
    }
    keys.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radio_keys_are_plain_names() {
        for k in ["atc.cleared_takeoff", "wingman.copy", "a", "lso-2"] {
            assert!(valid_radio_key(k), "{k}");
        }
        for k in [
            "",
            ".hidden",
            "../etc/passwd",
            "a/b",
            "UPPER",
            "spa ce",
            &"x".repeat(65),
        ] {
            assert!(!valid_radio_key(k), "{k}");
        }
        let mut b = SoundBank::empty();
        let c = Clip::new(22_050, vec![0.1; 100]).unwrap_or_else(|| panic!("clip"));
        assert!(b.insert_radio("wingman.copy", c.clone()));
        assert!(!b.insert_radio("../x", c));
        assert!(b.radio("wingman.copy").is_some());
        assert_eq!(b.radio_keys().collect::<Vec<_>>(), ["wingman.copy"]);
        assert!(b.sfx(Sfx::Gunfire).is_none() && b.music(MusicTrack::Menu).is_none());
    }

    #[test]
    fn names_follow_the_packs_contract() {
        assert_eq!(Sfx::Gunfire.asset_name(), "sfx/gunfire");
        assert_eq!(MusicTrack::Menu.asset_name(), "music/menu_theme");
        assert!(MusicTrack::Menu.loops() && !MusicTrack::Victory.loops());
        assert!(Sfx::ALL.iter().all(|s| s.bus() == Bus::Weapons));
    }
}
