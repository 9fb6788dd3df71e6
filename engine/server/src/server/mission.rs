//! The mission runner: a checked mission (`fl_content::Content::load_mission`) run on the server.
//! [`Server::start_mission`] maps the sides to factions, sets the mission's weather and time of
//! day, and spawns every non-player object through the server's own spawn paths; pilots who join
//! while it runs are bound to its `player: true` slots; [`Server::tick`] evaluates the triggers
//! after each world step, in file order; the end is broadcast once as `MsgMissionOutcome`, and
//! `MsgMissionRoster` tells each peer which entity is which mission object.
//!
//! Scripted objects (`ai: "lua <script>"`, or no `ai:` on a type with an `ai_script`) are flown
//! by [`crate::lua_controller::LuaController`]s over the scripts the checked mission carries;
//! what their scripts ask of the world is drained from the run's [`ScriptSink`] after each world
//! step, in object order, and acted on before the triggers are evaluated.
//!
//! Owns the run's state (objects → entities, slots → peers, trigger flags, counters, the script
//! sink) and its status ([`MissionStatus`]). Must not: read files or the wall clock (elapsed
//! time is counted in ticks), or change weather windows already announced to clients.

use super::{FactionSpec, GeoAnchor, Server, SpawnPoint, send};
use crate::lua_controller::{LuaController, ScriptSink};
use crate::pool::EntityId;
use crate::weather::{PresetWeather, Weather, WeatherOverride};
use crate::world::Pilot;
use fl_content::mission::{
    Action, AiSpec, CheckedMission, Condition, Mission, MissionObject, Placement, StartKind,
    WeatherPreset,
};
use fl_flight::DT;
use fl_net::{Channel, PeerId};
use fl_protocol::FixedStr;
use fl_protocol::enums::{GameState, MissionResultCode, WeatherPreset as WirePreset};
use fl_protocol::msg::social::RadioTransmission;
use fl_protocol::msg::world::{MissionOutcome, MissionRoster, MissionRosterRecord, MusicState};
use fl_protocol::tlv::Extensions;
use fl_script::{ScriptEvent, ScriptSources, WorldAction};
use std::collections::BTreeMap;
use std::sync::Arc;

/// True airspeed of an air start whose object gives no `speed`, m/s: a fighter's cruise at
/// medium altitude (every aircraft the base pack flies trims there).
pub const DEFAULT_AIR_START_MPS: f64 = 200.0;

/// Where a mission stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissionState {
    Running,
    Success,
    Failure,
}

impl MissionState {
    /// The name the headless summary prints (`running`, `success`, `failure`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Success => "success",
            Self::Failure => "failure",
        }
    }
}

/// A plain snapshot of the run, for the headless summary and tests.
#[derive(Debug, Clone, PartialEq)]
pub struct MissionStatus {
    /// `<pack id>:<file stem>`.
    pub id: String,
    pub state: MissionState,
    /// World ticks stepped since the start, up to the end.
    pub elapsed_ticks: u64,
    /// `elapsed_ticks` × the fixed step, s.
    pub elapsed_s: f64,
    /// Objects spawned (at the start, plus player slots bound).
    pub objects: u32,
    pub triggers_fired: u16,
    /// Lua scripts running now (loaded and not disabled).
    pub scripts: u32,
    /// Why scripts were refused at load or disabled since, each naming the script and, where
    /// known, the line; in the order they happened (within one tick, by object order).
    pub script_errors: Vec<String>,
    /// `world.score_objective` calls the scripts made.
    pub objectives_scored: u32,
    /// The points those calls gave, summed.
    pub objective_points: i64,
    pub player_slots: u32,
    pub slots_bound: u32,
}

/// Why a mission could not start (nothing of it stays spawned).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MissionStartError {
    #[error("mission {running} is already running")]
    AlreadyRunning { running: String },
    #[error("object {object} (line {line}): type {type_id} is not loaded on this server")]
    UnknownType {
        object: String,
        line: usize,
        type_id: String,
    },
    #[error("object {object} (line {line}): controller {ai:?}: {reason}")]
    Controller {
        object: String,
        line: usize,
        ai: String,
        reason: String,
    },
    #[error("object {object} (line {line}): no room to spawn it")]
    NoRoom { object: String, line: usize },
    #[error("too many sides for the faction table")]
    TooManySides,
}

/// One player slot.
#[derive(Debug, Clone)]
struct Slot {
    /// Index into `Mission::objects`.
    object: usize,
    type_index: u32,
    peer: Option<PeerId>,
    entity: Option<EntityId>,
}

/// A running (or ended) mission.
#[derive(Debug)]
pub(super) struct MissionRun {
    id: String,
    mission: Mission,
    state: MissionState,
    ticks: u64,
    fired: Vec<bool>,
    triggers_fired: u16,
    objects_spawned: u32,
    /// Object id → its entity (non-player objects).
    entities: BTreeMap<String, EntityId>,
    slots: Vec<Slot>,
    /// Side id → faction index.
    factions: BTreeMap<String, u16>,
    /// The mission's wind, kept when `set_weather` changes the preset.
    wind_from_deg: f64,
    wind_mps: f64,
    /// Where the run's Lua controllers leave their events and errors.
    sink: Arc<ScriptSink>,
    /// Scripts loaded at the start (each flies one object).
    scripts_loaded: u32,
    /// Of those, disabled since.
    scripts_disabled: u32,
    script_errors: Vec<String>,
    objectives_scored: u32,
    objective_points: i64,
}

/// The most script errors a status keeps (later ones are counted in the log only).
pub const MAX_SCRIPT_ERRORS: usize = 256;

/// The seed of object `object`'s script: the mission seed mixed with the object's index
/// (SplitMix64), so each entity's `math.random` differs and a run repeats.
pub fn script_seed(seed: u64, object: usize) -> u64 {
    let mut z = seed
        ^ (object as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a joining pilot is given when a mission has a free slot for them.
#[derive(Debug, Clone, Copy)]
pub(super) struct SlotSpawn {
    pub slot: usize,
    pub type_index: u32,
    pub faction: u16,
    pub at: SpawnPoint,
}

impl MissionRun {
    /// What a pilot taking player slot `slot` (`s`) flies, for which faction, from where.
    fn slot_spawn(&self, slot: usize, s: &Slot) -> SlotSpawn {
        let o = &self.mission.objects[s.object];
        SlotSpawn {
            slot,
            type_index: s.type_index,
            faction: self.factions.get(&o.side).copied().unwrap_or(0),
            at: spawn_point(&self.mission, o, start_speed(o)),
        }
    }
}

/// The spawn point of `object`: its placement as [`SpawnPoint`] offsets (x east, z south) from
/// the mission anchor, or from its own latitude/longitude.
fn spawn_point(mission: &Mission, object: &MissionObject, speed_mps: f64) -> SpawnPoint {
    let (x, z, anchor) = match object.placement {
        Placement::Anchor { east_m, north_m } => (
            east_m,
            -north_m,
            GeoAnchor {
                lat_deg: mission.anchor.lat_deg,
                lon_deg: mission.anchor.lon_deg,
            },
        ),
        Placement::LatLon { lat_deg, lon_deg } => (0.0, 0.0, GeoAnchor { lat_deg, lon_deg }),
    };
    SpawnPoint {
        x,
        z,
        altitude_m: object.alt_m,
        heading_deg: object.heading_rad.to_degrees(),
        speed_mps,
        anchor: Some(anchor),
    }
}

/// The speed an aircraft object starts with: 0 (parked) for a ground start, else its `speed` or
/// [`DEFAULT_AIR_START_MPS`] (an air start at 0 would park it in the air).
fn start_speed(object: &MissionObject) -> f64 {
    match object.start {
        StartKind::Ground => 0.0,
        _ => object
            .speed_mps
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(DEFAULT_AIR_START_MPS),
    }
}

/// The builtin controller an object gets when it has no script (no `ai:` and no type script), or
/// when its script fails to load or is disabled: aircraft loiter where they appear at their
/// altitude and speed; ground objects stand (`None`).
pub fn fallback_controller(
    object: &MissionObject,
    aircraft: bool,
) -> Result<Option<Box<dyn fl_ai::Controller>>, String> {
    if !aircraft {
        return Ok(None);
    }
    let line = format!(
        "loiter alt={} speed={}",
        object.alt_m.max(300.0),
        start_speed(object)
    );
    fl_ai::build_from_line(&line, &fl_ai::FactoryContext::default())
        .map(Some)
        .map_err(|e| e.to_string())
}

fn pilot_of(c: Option<Box<dyn fl_ai::Controller>>) -> Pilot {
    c.map_or(Pilot::None, Pilot::Ai)
}

/// The pack whose `ai/` folder runs script `name` for a type default: the type's own pack when
/// the mission carries that folder with the script, else the mission's pack, else the first
/// carried pack (by id) that has it.
fn default_script_pack<'a>(
    checked: &'a CheckedMission,
    type_pack: Option<&'a str>,
    name: &str,
) -> Option<&'a str> {
    let has = |p: &str| checked.scripts.get(p).is_some_and(|f| f.contains_key(name));
    type_pack
        .filter(|p| has(p))
        .or_else(|| has(&checked.pack).then_some(checked.pack.as_str()))
        .or_else(|| {
            checked
                .scripts
                .iter()
                .find(|(_, f)| f.contains_key(name))
                .map(|(p, _)| p.as_str())
        })
}

/// A carried `ai/` folder as fl-script sources; names fl-script cannot `require` are left out.
fn sources_of(folder: &BTreeMap<String, String>) -> Result<ScriptSources, String> {
    ScriptSources::from_map(
        folder
            .iter()
            .filter(|(k, _)| fl_script::valid_script_name(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    )
    .map_err(|e| e.to_string())
}

fn game_state(m: fl_script::MusicState) -> GameState {
    match m {
        fl_script::MusicState::Menu => GameState::Menu,
        fl_script::MusicState::FlightPatrol => GameState::FlightPatrol,
        fl_script::MusicState::FlightCombat => GameState::FlightCombat,
        fl_script::MusicState::MissionSuccess => GameState::MissionSuccess,
        fl_script::MusicState::Debrief => GameState::Debrief,
    }
}

fn wire_preset(p: WeatherPreset) -> WirePreset {
    match p {
        WeatherPreset::Clear => WirePreset::Clear,
        WeatherPreset::PartlyCloudy => WirePreset::PartlyCloudy,
        WeatherPreset::Overcast => WirePreset::Overcast,
        WeatherPreset::Rain => WirePreset::Rain,
        WeatherPreset::Storm => WirePreset::Storm,
        WeatherPreset::Snow => WirePreset::Snow,
        WeatherPreset::Blizzard => WirePreset::Blizzard,
    }
}

/// A preset's weather with the mission's wind direction; its speed is the mission's, or the
/// preset's own when that is stronger (a storm is never calm).
fn preset_weather(p: WeatherPreset, wind_from_deg: f64, wind_mps: f64) -> PresetWeather {
    let mut w = PresetWeather::typical(wire_preset(p));
    w.wind_from_deg = wind_from_deg;
    if p == WeatherPreset::Clear {
        // The mission's wind as written ("steady"), with the preset's small gusts.
        w.gust_mps = w.gust_mps.min(wind_mps * 0.5);
        w.wind_mps = wind_mps;
    } else {
        w.wind_mps = w.wind_mps.max(wind_mps);
    }
    w
}

/// Groups of allied sides share one faction: the server's IFF (`fl_ai::is_hostile`, the
/// datalink's teams) is "same faction = friend", so allies must be one faction to be friends.
/// Each group takes the faction whose id is its first side's id (a configured one, or a new one
/// appended to the faction table). Returns side id → faction index.
fn map_sides(
    mission: &Mission,
    factions: &mut Vec<FactionSpec>,
) -> Result<BTreeMap<String, u16>, MissionStartError> {
    let mut out: BTreeMap<String, u16> = BTreeMap::new();
    for side in &mission.sides {
        if out.contains_key(&side.id) {
            continue;
        }
        // An ally already mapped (either direction of the declaration) gives its faction.
        let ally = mission.sides.iter().find_map(|other| {
            let allied = side.allies.contains(&other.id) || other.allies.contains(&side.id);
            if allied {
                out.get(&other.id).copied()
            } else {
                None
            }
        });
        let index = match ally {
            Some(i) => i,
            None => match factions.iter().find(|f| f.id == side.id) {
                Some(f) => f.index,
                None => {
                    let next = factions
                        .iter()
                        .map(|f| f.index)
                        .max()
                        .unwrap_or(0)
                        .checked_add(1)
                        .ok_or(MissionStartError::TooManySides)?;
                    factions.push(FactionSpec {
                        index: next,
                        id: side.id.clone(),
                        name: side.id.clone(),
                    });
                    next
                }
            },
        };
        out.insert(side.id.clone(), index);
    }
    Ok(out)
}

impl Server {
    /// Starts `checked` with combat draws seeded by `seed`: sides → factions, the mission's
    /// weather and time of day, every non-player object spawned. All or nothing: on an error
    /// nothing of the mission stays in the world.
    pub fn start_mission(
        &mut self,
        checked: &CheckedMission,
        seed: u64,
    ) -> Result<(), MissionStartError> {
        if let Some(run) = &self.mission {
            return Err(MissionStartError::AlreadyRunning {
                running: run.id.clone(),
            });
        }
        let mission = &checked.mission;
        let mut factions = self.cfg.factions.clone();
        let side_factions = map_sides(mission, &mut factions)?;
        let planet = *self.world.planet();
        let anchor = fl_ai::factory::CoordinateAnchor::new(
            &planet,
            mission.anchor.lat_deg,
            mission.anchor.lon_deg,
        );
        let ctx = fl_ai::FactoryContext {
            world: None,
            anchor: Some(anchor),
        };

        // Resolve every object first (types, controllers, scripts), then spawn.
        let sink = Arc::new(ScriptSink::default());
        let start_tick = self.world.tick();
        let mut sources: BTreeMap<String, Result<ScriptSources, String>> = BTreeMap::new();
        let mut script_errors = Vec::new();
        let mut scripts_loaded = 0u32;
        struct Plan {
            object: usize,
            type_index: u32,
            aircraft: bool,
            pilot: Pilot,
        }
        let mut plans = Vec::new();
        let mut slots = Vec::new();
        for (i, o) in mission.objects.iter().enumerate() {
            let type_index =
                self.types
                    .index_of(&o.type_id)
                    .ok_or_else(|| MissionStartError::UnknownType {
                        object: o.id.clone(),
                        line: o.line,
                        type_id: o.type_id.clone(),
                    })?;
            let aircraft = self
                .types
                .get(type_index)
                .is_some_and(|t| t.model.is_some());
            if o.player {
                slots.push(Slot {
                    object: i,
                    type_index,
                    peer: None,
                    entity: None,
                });
                continue;
            }
            let controller_error = |ai: &str, reason: String| MissionStartError::Controller {
                object: o.id.clone(),
                line: o.line,
                ai: ai.to_owned(),
                reason,
            };
            let ty = self.types.get(type_index);
            // The script that flies it, if any: `(pack, name)`.
            let script: Option<(String, String)> = match &o.ai {
                Some(AiSpec::Builtin { .. }) => None,
                Some(AiSpec::Lua { script }) => Some((checked.pack.clone(), script.clone())),
                None => ty.and_then(|t| t.ai_script.as_deref()).and_then(|name| {
                    default_script_pack(checked, ty.and_then(|t| t.pack.as_deref()), name)
                        .map(|p| (p.to_owned(), name.to_owned()))
                }),
            };
            let pilot = match (&o.ai, script) {
                (Some(AiSpec::Builtin { line, .. }), _) => fl_ai::build_from_line(line, &ctx)
                    .map(Pilot::Ai)
                    .map_err(|e| controller_error(line, e.to_string()))?,
                (_, Some((pack, name))) => {
                    let fallback = fallback_controller(o, aircraft)
                        .map_err(|e| controller_error(&format!("lua {name}"), e))?;
                    let folder = sources.entry(pack.clone()).or_insert_with(|| {
                        checked
                            .scripts
                            .get(&pack)
                            .map_or_else(|| Ok(ScriptSources::default()), sources_of)
                    });
                    let loaded = match folder {
                        Ok(src) => fl_script::ScriptInstance::load(
                            src,
                            &name,
                            script_seed(seed, i),
                            fl_script::Limits::default(),
                        )
                        .map_err(|e| e.to_string()),
                        Err(e) => Err(e.clone()),
                    };
                    match loaded {
                        Ok(instance) => {
                            scripts_loaded += 1;
                            let max_hp =
                                ty.and_then(|t| t.combat.as_ref()).map_or(1.0, |c| c.max_hp);
                            Pilot::Ai(Box::new(LuaController::new(
                                i,
                                instance,
                                start_tick,
                                type_index,
                                max_hp,
                                fallback,
                                sink.clone(),
                            )))
                        }
                        Err(e) => {
                            let reason = format!(
                                "object {} (line {}): script `{name}` (ai/{name}.lua of {pack}) not loaded: {e}",
                                o.id, o.line
                            );
                            tracing::warn!(mission = %checked.id, %reason, "Lua script refused: a builtin controller flies the object");
                            script_errors.push(reason);
                            pilot_of(fallback)
                        }
                    }
                }
                (_, None) => pilot_of(
                    fallback_controller(o, aircraft)
                        .map_err(|e| controller_error("(builtin fallback)", e))?,
                ),
            };
            plans.push(Plan {
                object: i,
                type_index,
                aircraft,
                pilot,
            });
        }

        let mut entities = BTreeMap::new();
        for plan in plans {
            let o = &mission.objects[plan.object];
            let faction = side_factions.get(&o.side).copied().unwrap_or(0);
            let spawned = if plan.aircraft {
                let at = spawn_point(mission, o, start_speed(o));
                self.spawn_aircraft(plan.type_index, faction, plan.pilot, at)
            } else {
                // On the floor under its place; `alt` is ignored for ground objects.
                let at = SpawnPoint {
                    altitude_m: 0.0,
                    ..spawn_point(mission, o, 0.0)
                };
                self.spawn_site(plan.type_index, faction, plan.pilot, at)
            };
            let Some(entity) = spawned else {
                for e in entities.values() {
                    self.world.despawn(*e);
                }
                return Err(MissionStartError::NoRoom {
                    object: o.id.clone(),
                    line: o.line,
                });
            };
            entities.insert(o.id.clone(), entity);
        }

        let new_factions = factions != self.cfg.factions;
        self.cfg.factions = factions;
        self.combat.seed = seed;
        let run = MissionRun {
            id: checked.id.clone(),
            state: MissionState::Running,
            ticks: 0,
            fired: vec![false; mission.triggers.len()],
            triggers_fired: 0,
            objects_spawned: u32::try_from(entities.len()).unwrap_or(u32::MAX),
            entities,
            slots,
            factions: side_factions,
            wind_from_deg: mission.wind.from_heading_rad.to_degrees(),
            wind_mps: mission.wind.speed_mps,
            mission: mission.clone(),
            sink,
            scripts_loaded,
            scripts_disabled: 0,
            script_errors,
            objectives_scored: 0,
            objective_points: 0,
        };
        let preset = preset_weather(mission.weather, run.wind_from_deg, run.wind_mps);
        self.mission = Some(run);
        self.set_mission_clock(Some(preset), Some(mission.start_seconds_of_day()));
        tracing::info!(
            mission = %checked.id,
            objects = self.mission.as_ref().map_or(0, |m| m.objects_spawned),
            "mission started"
        );
        // Peers already in the game learn the objects now.
        let peers: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.admitted.is_some())
            .map(|(&id, _)| id)
            .collect();
        for peer in peers {
            if new_factions {
                // A side the table lacked became a faction: label it for those in the game.
                let def = self.faction_def();
                send(
                    self.transport.as_mut(),
                    peer,
                    Channel::Reliable,
                    def.into(),
                    &Extensions::new(),
                );
            }
            self.send_mission_roster(peer);
        }
        Ok(())
    }

    /// Ends the mission's run: its spawned objects are removed (wrecks too), its slots freed (the
    /// pilots keep their aircraft, as on a server without a mission), and the weather and clock
    /// stay as the mission left them. Returns the final status; `None` when none was started.
    pub fn stop_mission(&mut self) -> Option<MissionStatus> {
        let status = self.mission_status()?;
        if let Some(m) = self.mission.take() {
            for e in m.entities.values() {
                self.world.despawn(*e);
            }
        }
        tracing::info!(mission = %status.id, state = status.state.name(), "mission stopped");
        Some(status)
    }

    /// The run's status; `None` when no mission was started.
    pub fn mission_status(&self) -> Option<MissionStatus> {
        let m = self.mission.as_ref()?;
        let bound = m.slots.iter().filter(|s| s.entity.is_some()).count();
        Some(MissionStatus {
            id: m.id.clone(),
            state: m.state,
            elapsed_ticks: m.ticks,
            elapsed_s: m.ticks as f64 * DT,
            objects: m.objects_spawned,
            triggers_fired: m.triggers_fired,
            scripts: m.scripts_loaded.saturating_sub(m.scripts_disabled),
            script_errors: m.script_errors.clone(),
            objectives_scored: m.objectives_scored,
            objective_points: m.objective_points,
            player_slots: u32::try_from(m.slots.len()).unwrap_or(u32::MAX),
            slots_bound: u32::try_from(bound).unwrap_or(u32::MAX),
        })
    }

    /// The entity of mission object `id` (a spawned object, or a bound player slot's aircraft).
    pub fn mission_entity(&self, id: &str) -> Option<EntityId> {
        let m = self.mission.as_ref()?;
        if let Some(e) = m.entities.get(id) {
            return Some(*e);
        }
        m.slots
            .iter()
            .find(|s| m.mission.objects[s.object].id == id)
            .and_then(|s| s.entity)
    }

    /// The faction side `side` of the running mission plays as.
    pub fn mission_faction(&self, side: &str) -> Option<u16> {
        self.mission.as_ref()?.factions.get(side).copied()
    }

    /// Destroys `victim` through combat's damage path (hit points to 0, credited to itself), as
    /// a scripted kill does: mission directors and tests. False when it was not destroyable.
    pub fn destroy_entity(&mut self, victim: EntityId) -> bool {
        let Some(faction) = self.world.get(victim).map(|e| e.faction) else {
            return false;
        };
        let credit = crate::combat::damage::Credit {
            by: victim,
            owner: None,
            faction,
            weapon: fl_protocol::enums::WeaponType::Gun,
            tick: self.world.tick(),
        };
        self.combat
            .damage(&mut self.world, victim, f64::INFINITY, credit)
    }

    /// Sets the weather preset and/or local time of day (seconds) from the first window not yet
    /// announced (or from now, when no peer has heard any window).
    fn set_mission_clock(&mut self, preset: Option<PresetWeather>, seconds_of_day: Option<f64>) {
        let Some(m) = &self.mission else { return };
        let tick = self.world.tick();
        let from = if self.admitted_count() == 0 {
            Weather::window_start(tick)
        } else {
            Weather::first_unannounced_epoch(tick)
        };
        let (hour_now, jd_now) = self.weather.clock_at(from);
        let preset = preset.unwrap_or_else(|| self.weather.preset_at(from));
        let (hour, jd) = match seconds_of_day {
            Some(s) => {
                let local = s / 3600.0;
                // Local solar time at the anchor → UTC on the same calendar date.
                let utc = local - m.mission.anchor.lon_deg / 15.0;
                let midnight = libm::floor(jd_now - 0.5) + 0.5;
                (local, midnight + utc / 24.0)
            }
            None => (hour_now, jd_now),
        };
        let scale = if m.mission.time_scale.is_finite() && m.mission.time_scale > 0.0 {
            m.mission.time_scale
        } else {
            1.0
        };
        self.weather.set_override(WeatherOverride {
            from_epoch: from,
            preset,
            start_hour: hour,
            start_julian_day: jd,
            time_scale: scale,
        });
    }

    /// A free player slot for a pilot joining now (the first in file order), if a mission runs.
    pub(super) fn free_mission_slot(&self) -> Option<SlotSpawn> {
        let m = self.mission.as_ref()?;
        if m.state != MissionState::Running {
            return None;
        }
        // A slot a dropped pilot may still come back to (reconnect grace) is not free.
        let (slot, s) = m
            .slots
            .iter()
            .enumerate()
            .find(|(i, s)| s.peer.is_none() && !self.social.grace_holds_slot(*i))?;
        Some(m.slot_spawn(slot, s))
    }

    /// Player slot `slot` with its spawn, if a mission runs and nobody holds it (a reconnecting
    /// pilot's own slot, kept for it during the grace).
    pub(super) fn mission_slot_if_free(&self, slot: usize) -> Option<SlotSpawn> {
        let m = self.mission.as_ref()?;
        if m.state != MissionState::Running {
            return None;
        }
        let s = m.slots.get(slot).filter(|s| s.peer.is_none())?;
        Some(m.slot_spawn(slot, s))
    }

    /// The mission object id `entity` was spawned as, if any (a bot's roster name).
    pub(super) fn mission_object_id(&self, entity: EntityId) -> Option<String> {
        let m = self.mission.as_ref()?;
        m.entities
            .iter()
            .find(|(_, e)| **e == entity)
            .map(|(id, _)| id.clone())
    }

    /// Binds slot `slot` to `peer` flying `entity`, and tells the peers already in the game.
    pub(super) fn bind_mission_slot(&mut self, slot: usize, peer: PeerId, entity: EntityId) {
        let Some(m) = &mut self.mission else { return };
        let Some(s) = m.slots.get_mut(slot) else {
            return;
        };
        s.peer = Some(peer);
        s.entity = Some(entity);
        m.objects_spawned = m.objects_spawned.saturating_add(1);
        let id = m.mission.objects[s.object].id.clone();
        tracing::info!(peer, object = %id, ?entity, "player slot bound");
        let roster = MissionRoster {
            records: vec![record(&id, entity)],
        };
        self.broadcast_except(Some(peer), || roster.clone().into());
    }

    /// The slot `peer` is bound to, with its spawn (for a respawn), while the mission runs.
    pub(super) fn mission_slot_of(&self, peer: PeerId) -> Option<SlotSpawn> {
        let m = self.mission.as_ref()?;
        let (slot, s) = m
            .slots
            .iter()
            .enumerate()
            .find(|(_, s)| s.peer == Some(peer))?;
        let o = &m.mission.objects[s.object];
        Some(SlotSpawn {
            slot,
            type_index: s.type_index,
            faction: m.factions.get(&o.side).copied().unwrap_or(0),
            at: spawn_point(&m.mission, o, start_speed(o)),
        })
    }

    /// Slot `slot`'s pilot respawned in `entity`: the slot follows the new aircraft (a
    /// `destroy(slot)` that held for the old one has fired already), and every peer hears it.
    pub(super) fn rebind_mission_slot(&mut self, slot: usize, entity: EntityId) {
        let Some(m) = &mut self.mission else { return };
        let Some(s) = m.slots.get_mut(slot) else {
            return;
        };
        s.entity = Some(entity);
        let roster = MissionRoster {
            records: vec![record(&m.mission.objects[s.object].id, entity)],
        };
        self.broadcast(|| roster.clone().into());
    }

    /// Frees the slot `peer` held (it left): the slot is unoccupied again, so `destroy(slot)`
    /// does not fire for the aircraft its departure removes.
    pub(super) fn unbind_mission_peer(&mut self, peer: PeerId) {
        let Some(m) = &mut self.mission else { return };
        for s in m.slots.iter_mut().filter(|s| s.peer == Some(peer)) {
            s.peer = None;
            s.entity = None;
        }
    }

    /// `MsgMissionRoster` with every spawned object and bound slot, to `peer` (none without a
    /// mission).
    pub(super) fn send_mission_roster(&mut self, peer: PeerId) {
        let Some(m) = &self.mission else { return };
        let mut records: Vec<MissionRosterRecord> =
            m.entities.iter().map(|(id, e)| record(id, *e)).collect();
        records.extend(
            m.slots
                .iter()
                .filter_map(|s| Some(record(&m.mission.objects[s.object].id, s.entity?))),
        );
        if records.is_empty() {
            return;
        }
        send(
            self.transport.as_mut(),
            peer,
            Channel::Reliable,
            MissionRoster { records }.into(),
            &Extensions::new(),
        );
    }

    /// One mission step after the world's: counts the tick, then evaluates the triggers in file
    /// order; an end stops the evaluation (later triggers of the same tick do not fire).
    pub(super) fn step_mission(&mut self) {
        let Some(m) = &mut self.mission else { return };
        // Always drained, so an ended mission's scripts cannot pile events up.
        let crate::lua_controller::Drained { events, errors } = m.sink.drain();
        for (object, reason) in errors {
            m.scripts_disabled = m.scripts_disabled.saturating_add(1);
            let o = &m.mission.objects[object];
            if m.script_errors.len() < MAX_SCRIPT_ERRORS {
                m.script_errors
                    .push(format!("object {} (line {}): {reason}", o.id, o.line));
            }
        }
        if m.state != MissionState::Running {
            return;
        }
        m.ticks += 1;
        self.act_on_script_events(events);
        let Some(m) = &mut self.mission else { return };
        if m.state != MissionState::Running {
            self.broadcast_mission_outcome();
            return;
        }
        let mut actions = Vec::new();
        for (i, t) in m.mission.triggers.iter().enumerate() {
            if m.fired[i] {
                continue;
            }
            let holds = match &t.on {
                Condition::MissionStart => true,
                Condition::Timer(s) => m.ticks >= timer_due_tick(*s),
                Condition::Destroy(id) => {
                    let entity = m.entities.get(id).copied().or_else(|| {
                        m.slots
                            .iter()
                            .find(|s| m.mission.objects[s.object].id == *id)
                            .and_then(|s| s.entity)
                    });
                    entity.is_some_and(|e| {
                        self.world
                            .get(e)
                            .is_none_or(|ent| ent.crashed_at.is_some() || ent.combat.is_out())
                    })
                }
            };
            if !holds {
                continue;
            }
            m.fired[i] = true;
            m.triggers_fired = m.triggers_fired.saturating_add(1);
            tracing::info!(mission = %m.id, line = t.line, on = ?t.on, action = ?t.action, "trigger fired");
            match t.action {
                Action::MissionSuccess => {
                    m.state = MissionState::Success;
                    break;
                }
                Action::MissionFailure => {
                    m.state = MissionState::Failure;
                    break;
                }
                ref other => actions.push(other.clone()),
            }
        }
        let (wind_from, wind_mps) = (m.wind_from_deg, m.wind_mps);
        let ended = m.state != MissionState::Running;
        for a in actions {
            match a {
                Action::SetWeather(p) => {
                    self.set_mission_clock(Some(preset_weather(p, wind_from, wind_mps)), None);
                }
                Action::SetTime(s) => self.set_mission_clock(None, Some(s)),
                Action::MissionSuccess | Action::MissionFailure => {}
            }
        }
        if ended {
            self.broadcast_mission_outcome();
        }
    }

    /// What the scripts asked for this tick, in object order then call order: an end (success
    /// or failure) ends the mission as a trigger does and drops what follows it; scores are
    /// counted; music and radio lines go to every peer in the game; prints are logged.
    fn act_on_script_events(&mut self, events: Vec<(usize, ScriptEvent)>) {
        for (object, event) in events {
            let Some(m) = &mut self.mission else { return };
            if m.state != MissionState::Running {
                return;
            }
            let id = m.mission.objects[object].id.clone();
            match event {
                ScriptEvent::World(WorldAction::MissionSuccess) => {
                    tracing::info!(mission = %m.id, object = %id, "script ended the mission: success");
                    m.state = MissionState::Success;
                }
                ScriptEvent::World(WorldAction::MissionFailure) => {
                    tracing::info!(mission = %m.id, object = %id, "script ended the mission: failure");
                    m.state = MissionState::Failure;
                }
                ScriptEvent::World(WorldAction::ScoreObjective { faction, points }) => {
                    m.objectives_scored = m.objectives_scored.saturating_add(1);
                    m.objective_points = m.objective_points.saturating_add(i64::from(points));
                    tracing::info!(mission = %m.id, object = %id, faction, points, "objective scored");
                }
                ScriptEvent::World(WorldAction::SetMusic(state)) => {
                    let msg = MusicState {
                        state: game_state(state),
                    };
                    self.broadcast(|| msg.clone().into());
                }
                ScriptEvent::Say(text) => {
                    // Roughly reading speed, at least 4 s on screen.
                    let secs = 4 + text.chars().count() / 15;
                    let msg = RadioTransmission {
                        net_id: 0xFF,
                        display_seconds: u16::try_from(secs).unwrap_or(u16::MAX),
                        speaker: FixedStr::new(&id),
                        voice_key: FixedStr::new(""),
                        text: FixedStr::new(&text),
                    };
                    self.broadcast(|| msg.clone().into());
                }
                ScriptEvent::Print(text) => {
                    tracing::info!(mission = %m.id, object = %id, "lua: {text}");
                }
            }
        }
    }

    /// Sends `msg()` reliably to every admitted peer but `skip`.
    fn broadcast_except(&mut self, skip: Option<PeerId>, msg: impl Fn() -> fl_protocol::Message) {
        let peers: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(p, slot)| Some(**p) != skip && slot.admitted.is_some())
            .map(|(&p, _)| p)
            .collect();
        for p in peers {
            send(
                self.transport.as_mut(),
                p,
                Channel::Reliable,
                msg(),
                &Extensions::new(),
            );
        }
    }

    fn broadcast(&mut self, msg: impl Fn() -> fl_protocol::Message) {
        self.broadcast_except(None, msg);
    }

    fn broadcast_mission_outcome(&mut self) {
        let Some(m) = &self.mission else { return };
        let outcome = match m.state {
            MissionState::Running => MissionResultCode::Incomplete,
            MissionState::Success => MissionResultCode::Success,
            MissionState::Failure => MissionResultCode::Failure,
        };
        let msg = MissionOutcome {
            outcome,
            triggers_fired: m.triggers_fired,
            elapsed_seconds: (m.ticks as f64 * DT) as f32,
        };
        tracing::info!(mission = %m.id, state = m.state.name(), elapsed_s = msg.elapsed_seconds, "mission ended");
        self.broadcast(|| msg.clone().into());
    }
}

/// The tick count at which `timer(seconds)` holds: the first tick whose elapsed time reaches
/// `seconds` (a whole-tick time such as 2 s is reached on its exact tick, never one late for a
/// rounding in `seconds / DT`).
fn timer_due_tick(seconds: f64) -> u64 {
    let ticks = libm::ceil(seconds / DT - 1e-6);
    if ticks.is_nan() || ticks <= 0.0 {
        0
    } else {
        // Saturates for absurd timers (the cast clamps).
        ticks as u64
    }
}

fn record(id: &str, e: EntityId) -> MissionRosterRecord {
    MissionRosterRecord {
        entity_gen: e.generation as u16,
        entity_idx: e.index,
        object_id: FixedStr::new(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_content::mission::Side;

    fn side(id: &str, allies: &[&str]) -> Side {
        Side {
            id: id.into(),
            allies: allies.iter().map(|s| (*s).into()).collect(),
        }
    }

    #[test]
    fn sides_map_to_configured_factions_allies_share_and_new_ones_are_appended() {
        let checked = fl_content::mission::parse_mission(
            "name: x\nanchor: home\nsides: [blue, red]\nobjects:\n  - { type: a:b, id: t, side: red, pos: [0, 0, 0] }\n",
            std::path::Path::new("m.yaml"),
        );
        let mut m = checked.mission.expect("mission");
        m.sides = vec![
            side("blue", &["green"]),
            side("red", &[]),
            side("green", &[]),
            side("yellow", &[]),
        ];
        let mut factions = crate::server::ServerConfig::default().factions;
        let map = map_sides(&m, &mut factions).expect("maps");
        assert_eq!(map["blue"], 1);
        assert_eq!(map["red"], 2);
        assert_eq!(map["green"], 1, "an ally shares the faction");
        assert_eq!(map["yellow"], 3, "a new side gets a new faction");
        assert_eq!(factions.len(), 3);
        assert_eq!(factions[2].id, "yellow");
    }
}
