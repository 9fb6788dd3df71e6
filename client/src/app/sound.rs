//! What the player hears, fed from the game every frame into `fl_audio`'s output:
//!
//! - [`GameSound`] (the app's, for its whole life): loads the pack's sounds by purpose on a
//!   thread once the content is there ([`SoundBank`]: effects, music, radio calls), plays the
//!   menu music on the menu screens (the debrief's own track when the pack has one) and fades it
//!   out for a flight, keeps the world audible only on the Flight screen, silences what a flight
//!   left behind once it ends, and ticks the output (device retries) with the app's time.
//! - [`FlightSound`] (one per flight): the own aircraft from its instruments — the engine from
//!   its type's pack loops, wind from the dynamic pressure, gear and flap motors while they
//!   travel, the stall buffet near the stall — the listener at the camera, every other aircraft
//!   (and missile in flight) as a positional looping source with Doppler, the own gun while the
//!   pilot fires it, and the server's effects (launches, impacts, detonations) where they
//!   happen.
//!
//! Owns the mapping from the game's state to sound parameters. Must not: open or close the sound
//! device (`fl_audio`'s `AudioOutput`, the window's), decode on the render thread beyond an
//! engine's two loops once per type, or fail a flight: anything missing plays as silence.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

use fl_audio::{
    AudioOutput, Bus, Clip, DQuat, DVec3, Emitter, EngineParams, Falloff, Listener, MusicTrack,
    OwnAircraft, Positional, Sfx, Sound, SoundBank, SourceId,
};
use fl_content::Content;
use fl_protocol::enums::{EffectType, GameState, ObjectCategory, ProjectileKind, WeaponType};

use crate::bridge::RenderEntity;
use crate::client::Client;
use crate::instruments::Reading;
use crate::screens::Screen;

use super::scene::dvec;

/// Sea-level air density, kg/m³: indicated airspeed gives the dynamic pressure `½ρ₀·IAS²`.
const RHO0: f64 = 1.225;
/// Stall fraction (angle of attack over the stall angle) where the buffet starts, and where it
/// is at full strength.
const BUFFET_FROM: f64 = 0.85;
const BUFFET_FULL: f64 = 1.1;
/// Rounds of the own gun heard per second (each the pack's `gunfire` one-shot).
const GUN_BURSTS_PER_S: f64 = 14.0;
/// An actuator moving faster than this (fraction of its travel per second) runs its motor.
const MOTOR_MIN_RATE: f64 = 0.02;

/// The pack's track for a music state a mission script asked for (`world.set_music_state`;
/// `MsgMusicState`). `Menu` in flight means silence: the menu theme is not flight music.
pub fn mission_track(state: GameState) -> Option<MusicTrack> {
    match state {
        GameState::Menu => None,
        GameState::FlightPatrol => Some(MusicTrack::Patrol),
        GameState::FlightCombat => Some(MusicTrack::Combat),
        GameState::MissionSuccess => Some(MusicTrack::Victory),
        GameState::Debrief => Some(MusicTrack::Debrief),
    }
}

/// The app's sound: music by screen, the bank, the output's tick.
#[derive(Debug, Default)]
pub struct GameSound {
    bank: Option<Arc<SoundBank>>,
    loading: Option<Receiver<SoundBank>>,
    /// The music last asked of the output: the track (`None`: silence) and whether the bank had
    /// it then (asked again once the bank arrives).
    music: Option<(Option<MusicTrack>, bool)>,
    /// A flight was running last frame.
    had_flight: bool,
}

impl GameSound {
    /// Once a frame, after the flight's sound: `content` once loaded, the screen shown, whether
    /// a flight runs, and the app's time.
    pub fn frame(
        &mut self,
        audio: &AudioOutput,
        content: Option<&Arc<Content>>,
        screen: Screen,
        flight_running: bool,
        mission_music: Option<GameState>,
        now: Duration,
    ) {
        self.load_bank(audio, content);
        // Music on the menus; in flight only what a mission's script asked for (none while
        // one loads).
        let want = match screen {
            Screen::Flight | Screen::Pause => mission_music.and_then(mission_track),
            Screen::Loading | Screen::Quit => None,
            Screen::Debrief
                if self
                    .bank
                    .as_ref()
                    .is_some_and(|b| b.music(MusicTrack::Debrief).is_some()) =>
            {
                Some(MusicTrack::Debrief)
            }
            _ => Some(MusicTrack::Menu),
        };
        let clip = want.and_then(|t| self.bank.as_ref()?.music(t));
        let asked = (want, clip.is_some());
        if self.music != Some(asked) {
            audio.play_music(clip, want.is_none_or(MusicTrack::loops));
            self.music = Some(asked);
        }
        audio.set_world_audible(flight_running && screen == Screen::Flight);
        if self.had_flight && !flight_running {
            // The flight ended: its sources and engine go with it.
            audio.stop_all();
            audio.set_own(OwnAircraft::default());
            audio.set_own_engine(None);
        }
        self.had_flight = flight_running;
        audio.tick(now);
    }

    fn load_bank(&mut self, audio: &AudioOutput, content: Option<&Arc<Content>>) {
        if let Some(rx) = &self.loading {
            match rx.try_recv() {
                Ok(bank) => {
                    tracing::debug!(
                        "sounds: {} radio calls, menu music: {}, {} samples",
                        bank.radio_keys().count(),
                        bank.music(MusicTrack::Menu).is_some(),
                        bank.samples()
                    );
                    let bank = Arc::new(bank);
                    audio.set_bank(bank.clone());
                    self.bank = Some(bank);
                    self.loading = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.loading = None,
            }
            return;
        }
        let (None, Some(content)) = (&self.bank, content) else {
            return;
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let content = content.clone();
        let spawned = std::thread::Builder::new()
            .name("fl-sounds".into())
            .spawn(move || {
                let _ = tx.send(SoundBank::load(&content));
            });
        match spawned {
            Ok(_) => self.loading = Some(rx),
            Err(e) => {
                tracing::warn!("cannot load the sounds: {e}");
                self.bank = Some(Arc::new(SoundBank::empty()));
            }
        }
    }

    /// The pack's sounds, once loaded.
    pub fn bank(&self) -> Option<&Arc<SoundBank>> {
        self.bank.as_ref()
    }
}

/// What a flight's sound hears this frame.
#[derive(Debug, Clone, Copy)]
pub struct FlightHearing<'a> {
    pub content: &'a Content,
    pub client: &'a Client,
    /// The own aircraft's instruments (`None` while respawning).
    pub reading: Option<&'a Reading>,
    /// The pilot's commanded throttle, when known (else the spool stands in).
    pub throttle: Option<f32>,
    /// The camera: where the ears are (`None`: at the own aircraft, else nowhere).
    pub camera: Option<(DVec3, DQuat)>,
    /// The pack's sounds, once loaded.
    pub bank: Option<&'a SoundBank>,
    /// Flight time (stands still while paused).
    pub now: Duration,
}

/// Another entity heard.
#[derive(Debug, Clone, Copy)]
struct Other {
    id: SourceId,
    generation: u16,
}

/// The sound of one flight.
#[derive(Debug, Default)]
pub struct FlightSound {
    /// The own type whose loops were looked up (once per type).
    looked_up: Option<String>,
    has_engine: bool,
    /// Gear and flap positions last frame, and when.
    last_actuators: Option<(f64, f64, Duration)>,
    /// Whether the gear and the flaps were last found travelling.
    moving: (bool, bool),
    others: BTreeMap<u32, Other>,
    /// Per type index: the military loop of its engine, or `None` (a synthesized jet).
    loops: BTreeMap<u32, Option<Clip>>,
    /// When the own gun's next round is heard.
    next_round: Option<Duration>,
    /// The client's frame count last heard: effects and rounds are new only when it moved
    /// (a paused flight does not run the client, and its last effects must not play again).
    client_frames: Option<u64>,
}

impl FlightSound {
    /// Once a frame.
    pub fn update(&mut self, audio: &AudioOutput, h: &FlightHearing<'_>) {
        self.own_engine(audio, h);
        audio.set_own(self.own_aircraft(h));
        let rf = h.client.render_frame();
        let own = rf.own();
        if let Some((position, orientation)) = h.camera {
            audio.set_listener(Listener {
                position,
                velocity: own.map_or(DVec3::ZERO, |o| dvec(o.velocity)),
                orientation,
            });
        }
        self.others(audio, h);
        let frames = h.client.metrics.frames;
        let advanced = self.client_frames != Some(frames);
        self.client_frames = Some(frames);
        self.gun(audio, h, advanced);
        if advanced {
            self.effects(audio, h, own.map(|o| o.idx));
        }
    }

    /// Whether an engine sound was started.
    pub fn has_engine(&self) -> bool {
        self.has_engine
    }

    /// Positional sources playing for other entities.
    pub fn others_heard(&self) -> usize {
        self.others.len()
    }

    fn own_engine(&mut self, audio: &AudioOutput, h: &FlightHearing<'_>) {
        let Some(type_id) = h.client.own_type_id() else {
            return;
        };
        if self.looked_up.as_deref() == Some(type_id.as_str()) {
            return;
        }
        let loops = match fl_audio::load_engine_loops(h.content, &type_id) {
            Ok(loops) => {
                tracing::debug!(
                    "engine sound of {type_id}: idle {:.1} s, military {:.1} s, afterburner: {}",
                    loops.idle.seconds(),
                    loops.mil.seconds(),
                    loops
                        .afterburner
                        .as_ref()
                        .map_or("a synthesized roar".into(), |c| format!(
                            "{:.1} s",
                            c.seconds()
                        ))
                );
                Some(loops)
            }
            Err(e) => {
                tracing::info!("engine sound: {e}");
                None
            }
        };
        self.has_engine = loops.is_some();
        audio.set_own_engine(loops);
        self.looked_up = Some(type_id);
    }

    fn own_aircraft(&mut self, h: &FlightHearing<'_>) -> OwnAircraft {
        let Some(r) = h.reading else {
            self.last_actuators = None;
            return OwnAircraft::default();
        };
        match self.last_actuators {
            Some((g, f, at)) if h.now > at => {
                let dt = (h.now - at).as_secs_f64();
                self.moving = (
                    (r.gear - g).abs() / dt > MOTOR_MIN_RATE,
                    (r.flaps - f).abs() / dt > MOTOR_MIN_RATE,
                );
                self.last_actuators = Some((r.gear, r.flaps, h.now));
            }
            // The same instant (paused): as last found.
            Some(_) => {}
            None => {
                self.moving = (false, false);
                self.last_actuators = Some((r.gear, r.flaps, h.now));
            }
        }
        own_aircraft(r, h.throttle, self.moving.0, self.moving.1)
    }

    fn others(&mut self, audio: &AudioOutput, h: &FlightHearing<'_>) {
        let rf = h.client.render_frame();
        let types = h.client.session().types();
        let mut seen = BTreeMap::new();
        for e in rf.entities.iter().filter(|e| !e.own && finite(e)) {
            let Some(def) = types.get(&e.type_index) else {
                continue;
            };
            let Some(kind) = heard_as(def.category, def.projectile_kind) else {
                continue;
            };
            let emitter = emitter_of(e, kind);
            match self.others.get(&e.idx) {
                Some(o) if o.generation == e.generation => audio.update(o.id, emitter),
                known => {
                    if let Some(o) = known {
                        audio.stop(o.id);
                    }
                    let sound = match kind {
                        Heard::Aircraft => {
                            let type_id = def.id.as_str().to_owned();
                            let clip = self
                                .loops
                                .entry(e.type_index)
                                .or_insert_with(|| {
                                    fl_audio::load_engine_loops(h.content, &type_id)
                                        .ok()
                                        .map(|l| l.mil)
                                })
                                .clone();
                            clip.map_or(Sound::Jet, Sound::Clip)
                        }
                        Heard::Missile => Sound::Jet,
                    };
                    let id = audio.spawn(Positional {
                        sound,
                        bus: Bus::Engine,
                        looping: true,
                        falloff: match kind {
                            Heard::Aircraft => Falloff::AIRCRAFT,
                            Heard::Missile => Falloff::GUN,
                        },
                        emitter,
                    });
                    self.others.insert(
                        e.idx,
                        Other {
                            id,
                            generation: e.generation,
                        },
                    );
                }
            }
            seen.insert(e.idx, ());
        }
        self.others.retain(|idx, o| {
            let keep = seen.contains_key(idx);
            if !keep {
                audio.stop(o.id);
            }
            keep
        });
    }

    fn gun(&mut self, audio: &AudioOutput, h: &FlightHearing<'_>, advanced: bool) {
        let firing =
            advanced && h.reading.is_some() && h.client.last_input().is_some_and(|i| i.gun);
        let Some(clip) = h.bank.and_then(|b| b.sfx(Sfx::Gunfire)) else {
            return;
        };
        if !firing {
            self.next_round = None;
            return;
        }
        if self.next_round.is_none_or(|t| h.now >= t) {
            // The own gun is at the ears: a flat sound, not a positional one.
            audio.play_flat(clip, Bus::Weapons, 0.8, 1.0);
            let period = Duration::from_secs_f64(1.0 / GUN_BURSTS_PER_S);
            // Keep the cadence, unless the frames fell behind it by more than a round.
            let base = match self.next_round {
                Some(t) if t + period > h.now => t,
                _ => h.now,
            };
            self.next_round = Some(base + period);
        }
    }

    fn effects(&mut self, audio: &AudioOutput, h: &FlightHearing<'_>, own: Option<u32>) {
        let Some(bank) = h.bank else { return };
        for fx in h.client.effects() {
            let Some(sfx) = effect_sound(fx.kind, fx.weapon_class) else {
                continue;
            };
            // The own gun is heard from the trigger (every round, without the network's delay).
            if sfx == Sfx::Gunfire && Some(fx.src_idx) == own {
                continue;
            }
            let Some(clip) = bank.sfx(sfx) else { continue };
            let [x, y, z] = fx.pos.map(f64::from);
            let at = DVec3::new(x, y, z);
            if !at.is_finite() {
                continue;
            }
            audio.play_at(clip, sfx.bus(), sfx.falloff(), Emitter::at(at, DVec3::ZERO));
        }
    }
}

/// The sound's view of the own aircraft's instruments.
pub fn own_aircraft(
    r: &Reading,
    throttle: Option<f32>,
    gear_moving: bool,
    flaps_moving: bool,
) -> OwnAircraft {
    let rpm = r.throttle as f32;
    let ias = if r.ias_mps.is_finite() {
        r.ias_mps
    } else {
        0.0
    };
    let stall = if r.on_ground {
        0.0
    } else {
        ((r.stall_fraction - BUFFET_FROM) / (BUFFET_FULL - BUFFET_FROM)).clamp(0.0, 1.0) as f32
    };
    OwnAircraft {
        present: true,
        engine: EngineParams {
            rpm,
            throttle: throttle.unwrap_or(rpm),
            afterburner: if r.afterburner { 1.0 } else { 0.0 },
        },
        dynamic_pressure_pa: (0.5 * RHO0 * ias * ias) as f32,
        gear_moving,
        flaps_moving,
        stall,
    }
}

/// How another entity is heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heard {
    Aircraft,
    Missile,
}

fn heard_as(category: ObjectCategory, projectile: ProjectileKind) -> Option<Heard> {
    match (category, projectile) {
        (ObjectCategory::AirVehicle, _) => Some(Heard::Aircraft),
        (ObjectCategory::Projectile, ProjectileKind::Missile | ProjectileKind::Rocket) => {
            Some(Heard::Missile)
        }
        _ => None,
    }
}

fn finite(e: &RenderEntity) -> bool {
    let p = e.position;
    p.x.is_finite() && p.y.is_finite() && p.z.is_finite()
}

/// Where `e` is and how it sounds: an aircraft's engine pitch follows its throttle (as the own
/// engine's N1: 55 % at idle) and it is louder in afterburner; a missile's motor roars high.
fn emitter_of(e: &RenderEntity, kind: Heard) -> Emitter {
    let (gain, pitch) = match kind {
        Heard::Aircraft => {
            let t = f32::from(e.throttle_pct.min(100)) / 100.0;
            let gain = if e.ab_engaged { 1.0 } else { 0.55 + 0.3 * t };
            (gain, 0.55 + 0.45 * t)
        }
        Heard::Missile => (0.9, 1.6),
    };
    Emitter {
        position: dvec(e.position),
        velocity: dvec(e.velocity),
        gain,
        pitch,
    }
}

/// The pack's effect for a snapshot effect record.
pub fn effect_sound(kind: u8, weapon_class: u8) -> Option<Sfx> {
    Some(match EffectType::from_u8(kind)? {
        EffectType::WeaponFired => match WeaponType::from_u8(weapon_class) {
            Some(WeaponType::Gun) => Sfx::Gunfire,
            Some(WeaponType::Missile | WeaponType::Rocket) => Sfx::Launch,
            Some(WeaponType::Bomb) => Sfx::Release,
            _ => return None,
        },
        EffectType::MissileLaunch => Sfx::Launch,
        EffectType::Impact => Sfx::Impact,
        EffectType::Detonation | EffectType::NuclearFlash => Sfx::Explosion,
        EffectType::CountermeasureRelease => Sfx::Release,
        // A fire repeats at 4 Hz; it is seen, not heard.
        EffectType::Fire => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading() -> Reading {
        Reading {
            ias_mps: 200.0,
            tas_mps: 210.0,
            mach: 0.6,
            ground_speed_mps: 200.0,
            altitude_m: 3_000.0,
            radar_altitude_m: None,
            vertical_speed_mps: 0.0,
            g: 1.0,
            aoa_rad: Some(0.05),
            stall_fraction: 0.3,
            heading_rad: 0.0,
            pitch_rad: 0.0,
            roll_rad: 0.0,
            track_rad: 0.0,
            flight_path_rad: None,
            fuel_kg: 1_000.0,
            fuel_fraction: 0.5,
            throttle: 0.7,
            afterburner: false,
            gear: 0.0,
            flaps: 0.0,
            speedbrake: 0.0,
            on_ground: false,
            stall_warning: false,
            overspeed: false,
            over_g: false,
        }
    }

    #[test]
    fn the_own_aircraft_is_heard_from_its_instruments() {
        let r = reading();
        let o = own_aircraft(&r, Some(1.0), false, true);
        assert!(o.present && o.flaps_moving && !o.gear_moving);
        assert_eq!(o.engine.rpm, 0.7);
        assert_eq!(o.engine.throttle, 1.0);
        // ½ · 1.225 · 200² = 24.5 kPa.
        assert!((o.dynamic_pressure_pa - 24_500.0).abs() < 1.0);
        assert_eq!(o.stall, 0.0);
        let stalling = Reading {
            stall_fraction: 1.0,
            afterburner: true,
            ..r
        };
        let o = own_aircraft(&stalling, None, false, false);
        assert!(o.stall > 0.5 && o.stall < 1.0, "{}", o.stall);
        assert_eq!((o.engine.throttle, o.engine.afterburner), (0.7, 1.0));
        // No buffet on the ground, whatever the angle.
        let parked = Reading {
            on_ground: true,
            ..stalling
        };
        assert_eq!(own_aircraft(&parked, None, false, false).stall, 0.0);
        let broken = Reading {
            ias_mps: f64::NAN,
            ..r
        };
        assert_eq!(
            own_aircraft(&broken, None, false, false).dynamic_pressure_pa,
            0.0
        );
    }

    #[test]
    fn menu_music_on_the_menus_none_in_flight_and_a_flight_leaves_nothing_behind() {
        let audio = AudioOutput::silent("tests");
        let tone = Clip::new(44_100, vec![0.25; 44_100]).unwrap_or_else(|| panic!("clip"));
        let mut bank = SoundBank::empty();
        bank.insert_music(MusicTrack::Menu, tone.clone());
        let mut g = GameSound {
            bank: Some(Arc::new(bank)),
            ..GameSound::default()
        };
        let ms = Duration::from_millis;
        g.frame(&audio, None, Screen::MainMenu, false, None, ms(0));
        assert!(audio.stats().is_some_and(|s| s.music));
        // A flight: the music fades, the world is heard.
        g.frame(&audio, None, Screen::Loading, true, None, ms(16));
        audio.spawn(Positional {
            sound: Sound::Jet,
            bus: Bus::Engine,
            looping: true,
            falloff: Falloff::AIRCRAFT,
            emitter: Emitter::default(),
        });
        g.frame(&audio, None, Screen::Flight, true, None, ms(2_000));
        let s = audio.stats().unwrap_or_default();
        assert!(!s.music && s.sources == 1, "{s:?}");
        // Back to the menus: the flight's sources go, the music comes back.
        g.frame(&audio, None, Screen::Debrief, false, None, ms(2_016));
        g.frame(&audio, None, Screen::Debrief, false, None, ms(2_500));
        let s = audio.stats().unwrap_or_default();
        assert!(s.music && s.sources == 0, "{s:?}");
    }

    #[test]
    fn a_mission_scripts_music_plays_in_flight_when_the_pack_has_the_track() {
        let audio = AudioOutput::silent("tests");
        let tone = Clip::new(44_100, vec![0.25; 44_100]).unwrap_or_else(|| panic!("clip"));
        let mut bank = SoundBank::empty();
        bank.insert_music(MusicTrack::Combat, tone);
        let mut g = GameSound {
            bank: Some(Arc::new(bank)),
            ..GameSound::default()
        };
        let ms = Duration::from_millis;
        let music = |g: &mut GameSound, state, t| {
            g.frame(&audio, None, Screen::Flight, true, state, ms(t));
            audio.stats().is_some_and(|s| s.music)
        };
        assert!(!music(&mut g, None, 0), "no music in flight unless asked");
        assert!(music(&mut g, Some(GameState::FlightCombat), 3_000));
        music(&mut g, Some(GameState::MissionSuccess), 6_000);
        assert!(
            !music(&mut g, Some(GameState::MissionSuccess), 9_000),
            "the pack has no victory track: silence"
        );
        music(&mut g, Some(GameState::Menu), 9_016);
        assert!(!music(&mut g, Some(GameState::Menu), 12_000));
        assert_eq!(mission_track(GameState::Debrief), Some(MusicTrack::Debrief));
    }

    #[test]
    fn effects_map_to_the_packs_sounds() {
        let gun = WeaponType::Gun as u8;
        assert_eq!(
            effect_sound(EffectType::WeaponFired as u8, gun),
            Some(Sfx::Gunfire)
        );
        assert_eq!(
            effect_sound(EffectType::WeaponFired as u8, WeaponType::Missile as u8),
            Some(Sfx::Launch)
        );
        assert_eq!(effect_sound(EffectType::WeaponFired as u8, 0xFF), None);
        assert_eq!(
            effect_sound(EffectType::Detonation as u8, 0xFF),
            Some(Sfx::Explosion)
        );
        assert_eq!(
            effect_sound(EffectType::Impact as u8, gun),
            Some(Sfx::Impact)
        );
        assert_eq!(effect_sound(200, gun), None);
    }

    #[test]
    fn aircraft_and_missiles_are_heard_and_nothing_else() {
        assert_eq!(
            heard_as(ObjectCategory::AirVehicle, ProjectileKind::None),
            Some(Heard::Aircraft)
        );
        assert_eq!(
            heard_as(ObjectCategory::Projectile, ProjectileKind::Missile),
            Some(Heard::Missile)
        );
        assert_eq!(
            heard_as(ObjectCategory::Projectile, ProjectileKind::Bomb),
            None
        );
        assert_eq!(
            heard_as(ObjectCategory::GroundVehicle, ProjectileKind::None),
            None
        );
    }
}
