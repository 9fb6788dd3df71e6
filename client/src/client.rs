//! The client frame loop, composing the session, the input clock, prediction and the render
//! bridge (DESIGN.md "How data flows", client frame):
//!
//! 1. service the session; on each applied snapshot reset the own aircraft to the server's state
//!    and replay (prediction) and feed the interpolation buffer (bridge);
//! 2. at each 60 Hz boundary ask the pilot for controls, send one `MsgClientInput` (with the
//!    input clock's lead and, for lag compensation, the render tick of the last frame drawn),
//!    push the same input into the prediction history and step the local integrator;
//! 3. decay the visual correction and build one consistent render list.
//!
//! Also resolves the own aircraft's flight model (entity type → `MsgEntityTypeDef.flightModel`
//! → fl-content; empty = the builtin model) and measures what a player would see: corrections
//! and the per-frame change of the rendered own position beyond the aircraft's own motion.
//!
//! Owns no clock (`now` is passed in) and no transport (the session has it).

use crate::bridge::{InterpolationConfig, RenderBridge, RenderFrame};
use crate::input_clock::{DEFAULT_MAX_CATCHUP_TICKS, InputClock, PilotInput};
use crate::messages::EndReason;
use crate::prediction::{ClientPrediction, PredictionConfig, ReconcileReport};
use crate::session::{ClientSession, SessionEvent, SessionState};
use crate::stats::Samples;
use fl_content::Content;
use fl_flight::math::Vec3;
use fl_flight::{AircraftModel, AircraftState};
use fl_protocol::enums::PeerRole;
use fl_protocol::msg::handshake::EntityTypeDef;
use fl_protocol::tlv::EffectRecord;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Tuning of the whole loop.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    pub prediction: PredictionConfig,
    pub interpolation: InterpolationConfig,
    pub max_catchup_ticks: u32,
    /// A per-frame change of the rendered own position beyond its motion above this counts as a
    /// visual pop.
    pub pop_threshold_m: f64,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            prediction: PredictionConfig::default(),
            interpolation: InterpolationConfig::default(),
            max_catchup_ticks: DEFAULT_MAX_CATCHUP_TICKS,
            pop_threshold_m: 0.05,
        }
    }
}

/// What a pilot (a player's devices, an autopilot, a test script) sees when asked for controls.
#[derive(Debug, Clone, Copy)]
pub struct PilotView<'a> {
    /// The input's sequence number.
    pub seq: u32,
    /// Inputs sent so far in this session (the pilot's own time base: `ticks / 60` seconds).
    pub ticks: u64,
    /// The newest predicted own state, when prediction runs.
    pub state: Option<&'a AircraftState>,
    pub planet_radius_m: f64,
    /// What the screen showed last frame: every entity drawn, at the render tick (the own
    /// aircraft flagged `own`). Scripted pilots that aim read this, as a player's eyes would.
    pub seen: &'a [crate::bridge::RenderEntity],
    /// The own faction (`ConnectAckAuthority`), when known.
    pub faction: Option<u16>,
    /// Stations of the own type's default loadout that carry guided missiles.
    pub missile_stations: &'a [u8],
    /// The latest team picture (`MsgDatalink`) the session kept: what the designate key steps
    /// through.
    pub datalink: Option<&'a fl_protocol::msg::combat::Datalink>,
    /// The own entity (`None`: no aircraft); a new one is a respawn.
    pub own: Option<crate::session::OwnEntity>,
}

/// Anything that flies the own aircraft.
pub trait Pilot {
    fn command(&mut self, view: &PilotView<'_>) -> PilotInput;
}

/// Resolves flight models by asset name through a content stack (cached).
#[derive(Debug)]
pub struct ModelResolver {
    content: Option<Arc<Content>>,
    cache: BTreeMap<String, Option<Arc<AircraftModel>>>,
}

impl ModelResolver {
    /// A resolver over `content` (the client's stack, the one the server loads too; `None`: the
    /// builtin content, loaded on first use).
    pub fn new(content: Option<Arc<Content>>) -> Self {
        Self {
            content,
            cache: BTreeMap::new(),
        }
    }

    /// The flight model a type flies (`None` when it cannot be resolved: no prediction).
    pub fn resolve(&mut self, def: &EntityTypeDef) -> Option<Arc<AircraftModel>> {
        let asset = match def.flight_model.as_str() {
            "" => fl_content::builtin::JET_TRAINER_FLIGHT_MODEL,
            a => a,
        };
        if let Some(m) = self.cache.get(asset) {
            return m.clone();
        }
        if self.content.is_none() {
            match Content::builtin() {
                Ok(c) => self.content = Some(Arc::new(c)),
                Err(e) => tracing::warn!("builtin content: {e}"),
            }
        }
        let model = self
            .content
            .as_ref()
            .and_then(|c| match c.load_flight_model(asset) {
                Ok((m, warnings)) => {
                    for w in warnings {
                        tracing::warn!("flight model {asset}: {w}");
                    }
                    Some(m)
                }
                Err(errors) => {
                    for e in errors {
                        tracing::warn!("flight model {asset}: {e}");
                    }
                    None
                }
            });
        if model.is_none() {
            tracing::warn!(
                "no flight model {asset:?} for type {}: the own aircraft is not predicted",
                def.id.as_str()
            );
        }
        self.cache.insert(asset.to_owned(), model.clone());
        model
    }

    /// The stations (indices in slot order, as `selectedStation` counts them) whose default
    /// store is a guided missile, for the type `def` (empty when its content is unknown).
    pub fn missile_stations(&mut self, def: &EntityTypeDef) -> Vec<u8> {
        if self.content.is_none() {
            match Content::builtin() {
                Ok(c) => self.content = Some(Arc::new(c)),
                Err(e) => tracing::warn!("builtin content: {e}"),
            }
        }
        let Some(content) = &self.content else {
            return Vec::new();
        };
        let Some(t) = content.entity_type(def.id.as_str()) else {
            return Vec::new();
        };
        let mut slots: Vec<_> = t.def.hardpoints.iter().collect();
        slots.sort_by_key(|h| h.slot);
        slots
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                h.default
                    .as_deref()
                    .and_then(|w| content.weapon(w))
                    .is_some_and(|w| w.kind == fl_content::weapon::WeaponType::Missile)
            })
            .filter_map(|(i, _)| u8::try_from(i).ok())
            .collect()
    }
}

/// What the loop measured.
#[derive(Debug, Clone, Default)]
pub struct ClientMetrics {
    pub frames: u64,
    pub inputs_sent: u64,
    /// Per-frame change of the rendered own position beyond its own motion, m.
    pub own_pop_m: Samples,
    /// Frames where that change exceeded the threshold.
    pub visual_pops: u64,
    /// Frames that snapped on purpose (teleport, respawn).
    pub snap_frames: u64,
    pub last_reconcile: Option<ReconcileReport>,
    /// The largest pops with what preceded them (at most `WORST_POPS`, largest first): the
    /// evidence for telling a reconcile's offset gliding out from a stalled frame.
    pub worst_pops: Vec<PopRecord>,
}

/// How many of the largest pops `ClientMetrics::worst_pops` keeps.
pub const WORST_POPS: usize = 8;

/// One of the largest per-frame own pops (above the threshold or not) and its context.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PopRecord {
    pub frame: u64,
    pub pop_m: f64,
    /// This frame's duration (a stalled frame decays the offset by more), ms.
    pub frame_dt_ms: f64,
    /// The visual offset before this frame, m.
    pub offset_before_m: f64,
    /// Since the last reconcile that moved the offset by more than a centimetre, ms.
    pub since_jump_ms: f64,
    /// That reconcile: its snapshot tick, jump, timeline shift, fallback, compare.
    pub jump_tick: u64,
    pub jump_m: f64,
    pub shift_ticks: i64,
    pub fallback: bool,
    pub compared: bool,
    pub bit_exact: bool,
    pub error_m: f64,
    pub replayed: usize,
    pub after_outage: bool,
}

/// The client.
pub struct Client {
    cfg: ClientConfig,
    session: ClientSession,
    clock: InputClock,
    prediction: ClientPrediction,
    bridge: RenderBridge,
    models: ModelResolver,
    events: Vec<SessionEvent>,
    own_type: Option<u32>,
    /// The own type's missile stations (for scripted pilots).
    own_missile_stations: Vec<u8>,
    last_frame: Option<Duration>,
    ticks: u64,
    last_offset: Vec3,
    /// The last reconcile that moved the visual offset by more than a centimetre, and when.
    last_jump: Option<(Duration, ReconcileReport)>,
    /// The pilot's last command (the sound hears the own gun from it).
    last_input: Option<PilotInput>,
    /// This frame's cosmetic effects from the snapshots (launches, impacts, detonations), for
    /// the sound; at most [`MAX_FRAME_EFFECTS`].
    effects: Vec<EffectRecord>,
    pub metrics: ClientMetrics,
}

/// Effects kept per frame: a burst beyond this is not heard anyway.
pub const MAX_FRAME_EFFECTS: usize = 64;

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.session)
            .field("ticks", &self.ticks)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client over a session, resolving flight models through `content` (the client's loaded
    /// stack; `None` = builtin only).
    pub fn new(session: ClientSession, cfg: ClientConfig, content: Option<Arc<Content>>) -> Self {
        let mut prediction =
            ClientPrediction::new(cfg.prediction.clone(), fl_flight::gravity::EARTH_RADIUS_M);
        if let Some(c) = &content {
            // The ground the server's world stands on, from the same packs.
            prediction.set_terrain(crate::content::terrain_of(c));
        }
        Self {
            clock: InputClock::new(cfg.max_catchup_ticks),
            prediction,
            bridge: RenderBridge::new(cfg.interpolation.clone()),
            models: ModelResolver::new(content),
            session,
            cfg,
            events: Vec::new(),
            own_type: None,
            own_missile_stations: Vec::new(),
            last_frame: None,
            ticks: 0,
            last_offset: Vec3::ZERO,
            last_jump: None,
            last_input: None,
            effects: Vec::new(),
            metrics: ClientMetrics::default(),
        }
    }

    pub fn config(&self) -> &ClientConfig {
        &self.cfg
    }

    /// New tuning for the running client (the Settings screen's network knobs): prediction and
    /// interpolation take it at once (see their `set_config`); `max_catchup_ticks` stays as the
    /// session started (the input clock is built with it).
    pub fn set_config(&mut self, cfg: ClientConfig) {
        if cfg == self.cfg {
            return;
        }
        self.prediction.set_config(cfg.prediction.clone());
        self.bridge.set_config(cfg.interpolation.clone());
        self.cfg = ClientConfig {
            max_catchup_ticks: self.cfg.max_catchup_ticks,
            ..cfg
        };
    }

    pub fn session(&self) -> &ClientSession {
        &self.session
    }

    pub fn session_mut(&mut self) -> &mut ClientSession {
        &mut self.session
    }

    pub fn prediction(&self) -> &ClientPrediction {
        &self.prediction
    }

    /// The HUD's instrument reading of the own aircraft (`None` until it is predicted).
    pub fn reading(&self) -> Option<crate::instruments::Reading> {
        self.prediction.reading(self.session.weather())
    }

    pub fn bridge(&self) -> &RenderBridge {
        &self.bridge
    }

    pub fn clock(&self) -> &InputClock {
        &self.clock
    }

    /// The type id of the aircraft flown (from the server's type table; `None` before the first
    /// snapshot of the own entity).
    pub fn own_type_id(&self) -> Option<String> {
        let idx = self.own_type?;
        let def = self.session.types().get(&idx)?;
        Some(def.id.as_str().to_owned())
    }

    /// The last frame built.
    pub fn render_frame(&self) -> &RenderFrame {
        self.bridge.frame()
    }

    /// The pilot's last command, once one was sent.
    pub fn last_input(&self) -> Option<&PilotInput> {
        self.last_input.as_ref()
    }

    /// The cosmetic effects the snapshots applied in the last frame brought.
    pub fn effects(&self) -> &[EffectRecord] {
        &self.effects
    }

    /// Why the session ended, once it has.
    pub fn end_reason(&self) -> Option<&EndReason> {
        self.session.end_reason()
    }

    /// Runs one frame at `now`; returns the render list.
    pub fn frame(&mut self, now: Duration, pilot: &mut dyn Pilot) -> &RenderFrame {
        self.metrics.frames += 1;
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.session.update(now, &mut events);
        self.effects.clear();
        let mut jump = Vec3::ZERO;
        let mut snapped = false;
        for ev in &events {
            match ev {
                SessionEvent::Admitted => {
                    if let Some(a) = self.session.admission() {
                        self.prediction.set_planet_radius(a.planet_radius_m);
                    }
                    self.clock.start(now);
                }
                SessionEvent::OwnEntityChanged { current, .. } => {
                    self.prediction.reset_entity(*current);
                    self.own_type = None;
                    snapped = true;
                }
                SessionEvent::TypesUpdated => self.own_type = None,
                // The server concealed the inputs it missed: the next reconcile may move the
                // aircraft far, and is blended instead of snapped.
                SessionEvent::Resumed { .. } => self.prediction.on_outage(),
                SessionEvent::Snapshot(update) => {
                    if let Some(own) = &update.own {
                        if self.own_type != Some(own.type_index) {
                            let model = self
                                .session
                                .types()
                                .get(&own.type_index)
                                .and_then(|def| self.models.resolve(def));
                            self.prediction.set_model(model);
                            self.own_missile_stations = self
                                .session
                                .types()
                                .get(&own.type_index)
                                .map(|def| self.models.missile_stations(def))
                                .unwrap_or_default();
                            self.own_type = Some(own.type_index);
                        }
                        let before = self.prediction.visual_offset().0;
                        let report =
                            self.prediction
                                .reconcile(update.tick, own, self.session.weather());
                        snapped |= report.snapped;
                        if !report.snapped {
                            let moved = self.prediction.visual_offset().0 - before;
                            jump += moved;
                            if moved.length() > 0.01 {
                                self.last_jump = Some((now, report));
                            }
                        }
                        self.metrics.last_reconcile = Some(report);
                    }
                    let room = MAX_FRAME_EFFECTS.saturating_sub(self.effects.len());
                    self.effects
                        .extend(update.effects.iter().take(room).cloned());
                    self.bridge.on_snapshot(update, self.session.entities());
                }
                _ => {}
            }
        }
        self.events = events;

        if self.session.state() == SessionState::InWorld {
            // Keep the server's input buffer at its target by running the input clock a few
            // percent faster or slower (never by dropping or repeating inputs).
            let target = self.session.input_timing().map(|t| t.target_lead_ticks);
            self.clock.steer(target, now);
            let due = self.clock.advance(now);
            let lead = self.clock.lead_ticks(now);
            let flying = self.session.own_entity().is_some()
                && self
                    .session
                    .admission()
                    .is_some_and(|a| a.role == PeerRole::Pilot);
            let radius = self
                .session
                .admission()
                .map_or(fl_flight::gravity::EARTH_RADIUS_M, |a| a.planet_radius_m);
            for _ in 0..due {
                let seq = self.clock.next_seq();
                let view = PilotView {
                    seq,
                    ticks: self.ticks,
                    state: if flying {
                        self.prediction.state()
                    } else {
                        None
                    },
                    planet_radius_m: radius,
                    seen: &self.bridge.frame().entities,
                    faction: self
                        .session
                        .admission()
                        .and_then(|a| a.authority.map(|(_, f)| f)),
                    missile_stations: &self.own_missile_stations,
                    datalink: self.session.combat().datalink.as_ref(),
                    own: if flying {
                        self.session.own_entity()
                    } else {
                        None
                    },
                };
                let input = pilot.command(&view);
                let mut msg = input.to_message(seq);
                self.session.set_designation(input.designate);
                self.last_input = Some(input);
                if self
                    .session
                    .send_input_timed(&mut msg, Some(lead), self.bridge.render_tick())
                    .is_ok()
                {
                    self.metrics.inputs_sent += 1;
                }
                self.ticks += 1;
                if flying {
                    self.prediction.push_input_intent(
                        seq,
                        fl_server::input::controls_from_input(&msg),
                        fl_combat::own::Intent {
                            buttons: msg.buttons,
                            selected_station: msg.selected_station,
                        },
                        self.session.weather(),
                    );
                }
            }
        }

        let dt = self
            .last_frame
            .map_or(Duration::ZERO, |l| now.saturating_sub(l));
        self.last_frame = Some(now);
        self.prediction.decay(dt);
        let pose = self.prediction.render_pose(self.clock.alpha());
        // Beyond the aircraft's own motion, the rendered position changes only by the visual
        // offset not explained by this frame's corrections (its decay).
        let offset = pose.map_or(Vec3::ZERO, |p| p.visual_offset);
        if pose.is_some() {
            if snapped {
                self.metrics.snap_frames += 1;
            } else {
                let pop = (offset - (self.last_offset + jump)).length();
                self.metrics.own_pop_m.push(pop);
                if pop > self.cfg.pop_threshold_m {
                    self.metrics.visual_pops += 1;
                }
                if pop > 0.0 {
                    self.record_pop(pop, dt, now);
                }
            }
        }
        self.last_offset = offset;
        let own = self.session.own_entity();
        // Until the prediction stands on the server's timeline the own aircraft is not drawn
        // at all: from the snapshots it would sit far behind where the prediction then puts it.
        self.bridge.set_own_pending(
            self.prediction.has_model()
                && self.prediction.entity().is_some()
                && !self.prediction.anchored(),
        );
        self.bridge.build_frame(now, pose.as_ref(), own)
    }

    fn record_pop(&mut self, pop: f64, dt: Duration, now: Duration) {
        let worst = &mut self.metrics.worst_pops;
        if worst.len() >= WORST_POPS && worst.last().is_some_and(|w| w.pop_m >= pop) {
            return;
        }
        let mut rec = PopRecord {
            frame: self.metrics.frames,
            pop_m: pop,
            frame_dt_ms: dt.as_secs_f64() * 1e3,
            offset_before_m: self.last_offset.length(),
            ..PopRecord::default()
        };
        if let Some((at, r)) = &self.last_jump {
            rec.since_jump_ms = now.saturating_sub(*at).as_secs_f64() * 1e3;
            rec.jump_tick = r.tick;
            rec.jump_m = r.jump_m;
            rec.shift_ticks = r.shift_ticks;
            rec.fallback = r.fallback;
            rec.compared = r.compared;
            rec.bit_exact = r.bit_exact;
            rec.error_m = r.error_m;
            rec.replayed = r.replayed;
            rec.after_outage = r.after_outage;
        }
        worst.push(rec);
        worst.sort_by(|a, b| b.pop_m.total_cmp(&a.pop_m));
        worst.truncate(WORST_POPS);
    }

    /// Ends the session from this side.
    pub fn disconnect(&mut self, reason: &str) {
        self.session.disconnect(reason);
    }
}
