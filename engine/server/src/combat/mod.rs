//! Combat on the server: stores and loadouts, fire control from `MsgClientInput`, guns,
//! missiles, rockets and bombs, countermeasures, damage, kills and their credit, and the
//! messages those produce (kill feed, per-peer stats, snapshot effects).
//!
//! Runs in the world's serial phase, after the flight step, visiting entities in index order
//! ([`CombatSystem::step`]); every random number is a seeded `fl_combat::draw`, so two servers
//! with the same inputs reach the same bits. The per-entity state is [`Combatant`] (a field of
//! the world's `Entity`); the per-world state (decoys in the air, counters, pending events) is
//! [`CombatSystem`], owned by the server.
//!
//! Must not: talk to peers (the server's `combat_comms` sends what this module queues), read
//! files (fl-content did), or read the wall clock.
//!
//! Sensing ([`sensors`]) runs first in the step: each sensor-carrying entity's contacts are
//! checked at 10 Hz, staggered by index; fire control reads the launcher's locks from them, and
//! AI reads them through [`sensors::contacts_of`] (`Server::contacts_of`).

pub mod damage;
pub mod events;
pub mod missiles;
pub mod sensors;
pub mod stores;
pub mod weapons;

use crate::pool::EntityId;
use crate::world::{Body, StepReport, World};
use damage::Credit;
use events::{EffectQueue, KillEvent, PeerStats};
use fl_flight::Controls;
use fl_flight::env::WindField;
use fl_protocol::enums::DamageLevel;
use fl_protocol::msg::world::ClientInput;
use missiles::{LiveDecoy, Projectile};
use std::collections::BTreeMap;
use std::sync::Arc;
use stores::{CombatType, Loadout};

/// `MsgClientInput::radarMode` of a fresh aircraft (the spec: TWS).
pub const DEFAULT_RADAR_MODE: u8 = 2;
/// `selectedStation` / `radarMode` value meaning "keep the current one".
pub const KEEP: u8 = 255;
/// `selectedStation` that selects no station but the jettison of every external store: a store
/// release (buttons bit 2, edge) with it selected drops them all (docs/protocol.md). The selection
/// itself does not change.
pub const JETTISON_STATION: u8 = 254;
/// A destroyed or abandoned aircraft that has not reached the ground this long after (60 s) is
/// removed.
pub const OUT_MAX_TICKS: u64 = 60 * 60;

/// What a pilot's input asks of combat this tick (the fire and EW bits are intents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PilotInput {
    pub buttons: u8,
    pub selected_station: u8,
    pub radar_mode: u8,
    /// A new designation asked for this tick (`InputDesignate`: an entity index, or
    /// `fl_protocol::tlv::DESIGNATE_NONE` to clear); `None`: unchanged.
    pub designate: Option<u32>,
    /// `designate` repeats one already tried (the pilot still asks for it): applied as soon as
    /// the sensors hold the contact, and a refusal is not counted again (it was, the first
    /// time), so a designation made before the own radar saw the target is honoured once it
    /// does, and a peer repeating a bad one every input costs one refusal, not one a tick.
    pub designate_retry: bool,
}

/// One entity's combat state.
#[derive(Debug, Clone, Default)]
pub struct Combatant {
    /// Its type's combat data (`None`: it takes no damage — projectiles, unknown types).
    pub kit: Option<Arc<CombatType>>,
    /// Hit points left.
    pub hp: f64,
    /// Stores and expendables.
    pub loadout: Loadout,
    /// The selected station.
    pub selected: Option<usize>,
    /// Radar mode (0 Silent, 1 Search, 2 TWS, 3 STT) for the sensing pass.
    pub radar_mode: u8,
    /// This tick's pilot input (taken by the combat step).
    pub input: Option<PilotInput>,
    /// The buttons of the last input applied (edge detection).
    pub held: u8,
    /// First tick a store may be released again.
    pub next_release_tick: u64,
    /// The last damaging hit (kill credit).
    pub last_hit: Option<Credit>,
    /// Tick it was destroyed or abandoned (ejection): out of the fight.
    pub out_since: Option<u64>,
    /// Set on projectile entities: what flies it.
    pub projectile: Option<Box<Projectile>>,
    /// Its sensors' state: radar mode, designation, contacts (`None`: the type has no sensors).
    pub sensing: Option<Box<fl_combat::sensing::Sensing>>,
    /// The stores changed: the flight model's payload must follow.
    pub payload_dirty: bool,
    /// Subsystem pools and fire (`damage::Systems`).
    pub systems: damage::Systems,
}

impl Combatant {
    /// A fresh entity of a type with `kit`: full hit points, the default loadout.
    pub fn armed(kit: Option<Arc<CombatType>>) -> Self {
        let loadout = kit.as_deref().map(Loadout::default_for).unwrap_or_default();
        let selected = loadout.default_selection();
        let sensing = kit
            .as_ref()
            .filter(|k| !k.sensors.is_empty())
            .map(|_| Box::default());
        Self {
            sensing,
            systems: damage::Systems::for_type(kit.as_deref()),
            hp: kit.as_ref().map_or(0.0, |k| k.max_hp),
            kit,
            loadout,
            selected,
            radar_mode: DEFAULT_RADAR_MODE,
            // Edge-detected buttons held while spawning are not presses.
            held: fl_protocol::enums::buttons::FIRE_STORE
                | fl_protocol::enums::buttons::CHAFF_FLARE
                | fl_protocol::enums::buttons::EJECT,
            ..Self::default()
        }
    }

    /// Hit points as a fraction of the type's (1 for an entity that takes no damage).
    pub fn hp_fraction(&self) -> f64 {
        match &self.kit {
            Some(k) if k.max_hp > 0.0 => (self.hp / k.max_hp).clamp(0.0, 1.0),
            _ => 1.0,
        }
    }

    /// Destroyed or abandoned.
    pub fn is_out(&self) -> bool {
        self.out_since.is_some()
    }

    /// The damage level the entity record carries.
    pub fn level(&self) -> DamageLevel {
        if self.is_out() {
            return DamageLevel::Destroyed;
        }
        if self.kit.is_none() {
            return DamageLevel::Intact;
        }
        damage::level_for(self.kit.as_deref(), self.hp_fraction())
    }

    /// `engineFailFlags` of the entity record.
    pub fn engine_fail_flags(&self) -> u8 {
        damage::engine_fail_flags(self.kit.as_deref(), self.level(), &self.systems)
    }

    /// The controls the aircraft flies with when its pilot commands `c`.
    pub fn effective_controls(&self, c: Controls) -> Controls {
        damage::effective_controls(c, self.kit.as_deref(), self.level(), &self.systems)
    }

    /// The fuel left after one tick of the leak damage causes (before the flight step; the
    /// client's prediction runs the same `fl_combat::own::leak_fuel`).
    pub fn leak_fuel(&self, fuel_kg: f64) -> f64 {
        fl_combat::own::leak_fuel(
            fuel_kg,
            damage::damage_factors(self.kit.as_deref(), self.level(), &self.systems),
        )
    }

    /// The sensor suite is stripped to the eyeball: the avionics pool failed, or the damage tier
    /// in force says so (`avionics_failure`).
    pub fn avionics_failed(&self) -> bool {
        self.systems.failed(fl_content::entity::Subsystem::Avionics)
            || damage::tier_at(self.kit.as_deref(), self.level())
                .is_some_and(|t| t.avionics_failure)
    }

    /// Loads `weapon` on `station` (a loadout change before flight; the type must allow it).
    pub fn load(
        &mut self,
        station: usize,
        weapon: &Arc<stores::WeaponSpec>,
    ) -> Result<(), stores::LoadError> {
        let Some(kit) = self.kit.clone() else {
            return Err(stores::LoadError::NoStation(station));
        };
        self.loadout.load(&kit, station, weapon)?;
        self.payload_dirty = true;
        if self.selected.is_none() {
            self.selected = self.loadout.default_selection();
        }
        Ok(())
    }

    /// The pilot's own combat state as `SnapshotOwnState` carries it (format 2): what the
    /// client's prediction needs to fire, release, jettison and fly damaged as this server does.
    /// `crashed`: the entity has hit the ground (fire control refuses everything then).
    pub fn own_combat(&self, crashed: bool) -> fl_combat::own::OwnCombat {
        use fl_combat::own::{OwnCombat, OwnStore, StoreKind};
        let level = self.level();
        let stations = &self.loadout.stations;
        let stores = stations
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let s = s.as_ref()?;
                let w = &s.weapon;
                let key = stations
                    .iter()
                    .position(|o| o.as_ref().is_some_and(|o| o.weapon.id == w.id))
                    .unwrap_or(i);
                let (kind, rate) = match &w.delivery {
                    stores::Delivery::Gun(g) => (StoreKind::Gun, g.rate_milli_rpm),
                    _ => (StoreKind::Releasable, 0),
                };
                Some(OwnStore {
                    station: i.min(255) as u8,
                    kind,
                    weapon_key: key.min(255) as u8,
                    rounds: s.rounds,
                    full_rounds: w.rounds,
                    gun_units: s.gun_units,
                    rate_milli_rpm: rate,
                    mass_kg: w.mass_kg,
                    drag_cd0: w.drag_cd0,
                })
            })
            .collect();
        OwnCombat {
            destroyed: level == DamageLevel::Destroyed,
            inert: self.is_out() || crashed || self.kit.is_none(),
            factors: damage::damage_factors(self.kit.as_deref(), level, &self.systems),
            station_count: stations.len().min(255) as u8,
            selected: self.selected.map(|s| s.min(255) as u8),
            held: self.held,
            next_release_tick: self.next_release_tick,
            chaff: self.loadout.chaff,
            flares: self.loadout.flares,
            stores,
            payload_dirty: false,
        }
    }

    /// Bits of everything that changes in a fight (determinism tests).
    pub fn hash_bits(&self) -> u64 {
        let mut h: u64 = 0x84222325cbf29ce4;
        let mut eat = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0000_0100_0000_01b3).rotate_left(17);
        };
        eat(self.hp.to_bits());
        for s in &self.loadout.stations {
            match s {
                Some(s) => {
                    eat(u64::from(s.rounds));
                    eat(s.gun_units);
                }
                None => eat(u64::MAX),
            }
        }
        eat(u64::from(self.loadout.chaff) << 32 | u64::from(self.loadout.flares));
        eat(self.selected.map_or(u64::MAX, |s| s as u64));
        eat(u64::from(self.radar_mode));
        eat(self.out_since.unwrap_or(u64::MAX));
        eat(self.systems.hash_bits());
        if let Some(p) = &self.projectile {
            eat(p.hash_bits());
        }
        if let Some(s) = &self.sensing {
            eat(s.mode() as u64);
            eat(s.designated().map_or(u64::MAX, |d| d.0));
            for c in s.contacts() {
                eat(c.target.0);
                eat(c.state as u64 | u64::from(c.firing_quality) << 8);
                eat(c.position.x.to_bits() ^ c.position.z.to_bits());
            }
        }
        h
    }
}

/// Hands a pilot's input to its aircraft's fire control (called by the server as it drains each
/// peer's input, before the world steps).
pub fn set_pilot_input(world: &mut World, id: EntityId, input: &ClientInput) {
    if let Some(e) = world.get_mut(id) {
        e.combat.input = Some(PilotInput {
            buttons: input.buttons,
            selected_station: input.selected_station,
            radar_mode: input.radar_mode,
            designate: None,
            designate_retry: false,
        });
    }
}

/// Hands a pilot's designation (`InputDesignate`) to its aircraft's fire control; call after
/// [`set_pilot_input`] on every tick the pilot asks for it. The combat step designates it only
/// when the aircraft's sensors hold a contact on it, else refuses it without effect — counted
/// (`bad_designation`) on a new value, silently on a `retry` of the value asked for before.
pub fn set_designation(world: &mut World, id: EntityId, target: u32, retry: bool) {
    if let Some(e) = world.get_mut(id) {
        let input = e.combat.input.get_or_insert(PilotInput {
            buttons: e.combat.held,
            selected_station: KEEP,
            radar_mode: KEEP,
            designate: None,
            designate_retry: false,
        });
        input.designate = Some(target);
        input.designate_retry = retry;
    }
}

/// Hostile or impossible intents refused (each without effect), by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refusals {
    /// A trigger press or store release sooner than the weapon's rate allows.
    pub rate: u64,
    /// `selectedStation` names a station the aircraft does not have.
    pub no_such_station: u64,
    /// A release from a station with nothing left on it (or no station selected).
    pub empty_station: u64,
    /// A release from a station whose store is not released that way (a gun).
    pub not_releasable: u64,
    /// The trigger with no gun or an empty magazine.
    pub no_ammo: u64,
    /// Chaff/flare with none left.
    pub no_countermeasures: u64,
    /// `radarMode` outside 0..=3 (and not 255).
    pub bad_radar_mode: u64,
    /// A designation of an entity the aircraft's sensors hold no contact on (or of an empty
    /// slot, or from an aircraft without sensors).
    pub bad_designation: u64,
    /// Any intent from an aircraft already out of the fight.
    pub out_of_fight: u64,
}

impl Refusals {
    /// Every refusal.
    pub fn total(&self) -> u64 {
        self.rate
            + self.no_such_station
            + self.empty_station
            + self.not_releasable
            + self.no_ammo
            + self.no_countermeasures
            + self.bad_radar_mode
            + self.bad_designation
            + self.out_of_fight
    }
}

/// Totals over the whole world (metrics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub rounds_fired: u64,
    pub rounds_hit: u64,
    pub stores_released: u64,
    pub jettisoned: u64,
    pub detonations: u64,
    pub decoys: u64,
    pub kills: u64,
    /// Sensing checks run (one observer, one check).
    pub sensing_checks: u64,
}

/// The world's combat state.
#[derive(Debug, Default)]
pub struct CombatSystem {
    /// Seed of every draw (dispersion, decoys); a mission or server setting.
    pub seed: u64,
    pub refused: Refusals,
    pub totals: Totals,
    decoys: Vec<LiveDecoy>,
    next_decoy_id: u64,
    /// Effects of this tick (taken by the snapshot pipeline).
    pub effects: EffectQueue,
    /// Kills of this tick (taken by the server to broadcast).
    pub kills: Vec<KillEvent>,
    stats: BTreeMap<u32, PeerStats>,
    /// This tick's lag compensation: how far back each peer-flown shooter's gun rays test
    /// their targets (ticks; a shooter not listed, an AI, rewinds 0), set by the server before
    /// [`CombatSystem::step`].
    rewinds: BTreeMap<EntityId, f64>,
    /// The largest collision radius of any type (the rewound query's broadphase bound).
    max_radius_m: f64,
    /// The world's highest terrain bound (sensing's line-of-sight ceiling), once known.
    los_ceiling_m: Option<f64>,
}

impl CombatSystem {
    /// A combat system drawing from `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }

    /// A peer's tallies (kills, losses, score, shots, hits).
    pub fn peer_stats(&self, peer: u32) -> Option<&PeerStats> {
        self.stats.get(&peer)
    }

    /// Decoys in the air now.
    pub fn decoys_in_air(&self) -> usize {
        self.decoys.len()
    }

    /// One tick of combat, after the world's step: crashes credited, fire control, projectiles,
    /// decoys, the flight model's payload. `tick` is the tick the world just stepped.
    /// Sets the gun rays' rewinds for the coming step ([`CombatSystem::rewinds`]) and the largest
    /// collision radius the query must consider.
    pub fn set_lag_compensation(&mut self, rewinds: BTreeMap<EntityId, f64>, max_radius_m: f64) {
        self.rewinds = rewinds;
        self.max_radius_m = max_radius_m;
    }

    /// How far back `shooter`'s gun rays test their targets this tick, ticks.
    pub fn rewind_of(&self, shooter: EntityId) -> f64 {
        self.rewinds.get(&shooter).copied().unwrap_or(0.0)
    }

    pub fn step(&mut self, world: &mut World, report: &StepReport, tick: u64, wind: &WindField) {
        self.effects.begin_tick();
        for &id in &report.crashed {
            self.lose(world, id, tick);
        }
        // Sensing before fire control: modes and designations apply to the next check, and a
        // launch reads the locks this check left.
        self.sense(world, tick);
        weapons::fire_control(self, world, tick);
        missiles::step_projectiles(self, world, tick, wind);
        missiles::step_decoys(&mut self.decoys, world.planet());
        self.sync_payloads(world);
        self.burn(world, tick);
        self.expire_out(world, tick);
    }

    /// Fires burn: each burning aircraft loses its fire's hit points (destroyed at 0, credited
    /// as a crash is: to the last shooter within the window, else the environment) and shows a
    /// `Fire` effect every [`damage::FIRE_EFFECT_EVERY_TICKS`].
    fn burn(&mut self, world: &mut World, tick: u64) {
        let burning: Vec<EntityId> = world
            .iter()
            .filter(|(_, e)| e.combat.systems.burning())
            .map(|(id, _)| id)
            .collect();
        for id in burning {
            let Some(e) = world.get_mut(id) else { continue };
            if e.combat.is_out() || e.crashed_at.is_some() {
                // A wreck's fire is the wreck's; it no longer burns hit points.
                e.combat.systems.burning_since = None;
                continue;
            }
            let Some(max_hp) = e.combat.kit.as_ref().map(|k| k.max_hp) else {
                continue;
            };
            let key = fl_combat::draw::DrawKey {
                seed: self.seed,
                tick,
                actor: sensors::sensing_id(id).0,
                subject: 0,
                purpose: fl_combat::draw::Purpose::Other,
                index: 0,
            };
            let loss = e.combat.systems.burn(max_hp, key, tick);
            if !e.combat.systems.burning() {
                continue;
            }
            let since = e.combat.systems.burning_since.unwrap_or(tick);
            if tick.saturating_sub(since) % damage::FIRE_EFFECT_EVERY_TICKS == 0 {
                let at = e.position();
                self.effects.push(
                    fl_protocol::enums::EffectType::Fire,
                    None,
                    id.index,
                    None,
                    at,
                );
            }
            e.combat.hp = (e.combat.hp - loss).max(0.0);
            e.hp_fraction = e.combat.hp_fraction();
            if e.combat.hp <= 0.0 {
                e.combat.systems.burning_since = None;
                self.lose(world, id, tick);
            }
        }
    }

    /// An aircraft hit the ground or its pilot ejected: unless it was already out, it is lost,
    /// credited to its last damaging shooter within the window, else to the environment.
    pub(crate) fn lose(&mut self, world: &mut World, id: EntityId, tick: u64) {
        let Some(e) = world.get_mut(id) else { return };
        if e.combat.projectile.is_some() || e.combat.is_out() {
            return;
        }
        e.combat.out_since = Some(tick);
        e.combat.hp = 0.0;
        e.hp_fraction = 0.0;
        let credit = e
            .combat
            .last_hit
            .filter(|c| tick.saturating_sub(c.tick) <= damage::CREDIT_WINDOW_TICKS);
        let subject_owner = e.owner();
        let faction = e.faction;
        self.record_kill(id, subject_owner, faction, credit, tick);
    }

    /// Damages `victim` by `amount` on behalf of `credit`; destroys it at 0 hp. Returns whether
    /// anything was damaged.
    pub fn damage(
        &mut self,
        world: &mut World,
        victim: EntityId,
        amount: f64,
        credit: Credit,
    ) -> bool {
        let tick = credit.tick;
        let Some(e) = world.get_mut(victim) else {
            return false;
        };
        if amount.is_nan()
            || amount <= 0.0
            || e.combat.kit.is_none()
            || e.combat.is_out()
            || e.crashed_at.is_some()
        {
            return false;
        }
        e.combat.hp = (e.combat.hp - amount).max(0.0);
        e.hp_fraction = e.combat.hp_fraction();
        if credit.by != victim {
            e.combat.last_hit = Some(credit);
        }
        let destroyed = e.combat.hp <= 0.0;
        if !destroyed && matches!(e.body, Body::Aircraft { .. }) {
            // The hit also strikes one of the aircraft's subsystems (docs/combat.md "Subsystems
            // and fire"); ground targets keep to their hit points.
            let key = fl_combat::draw::DrawKey {
                seed: self.seed,
                tick,
                actor: sensors::sensing_id(victim).0,
                subject: sensors::sensing_id(credit.by).0,
                purpose: fl_combat::draw::Purpose::Other,
                index: 0,
            };
            if let Some(s) = e.combat.systems.strike(amount, key, tick)
                && s.failed
            {
                tracing::debug!(entity = ?victim, subsystem = ?s.which, fire = s.fire, "subsystem failed");
            }
        }
        let (owner, faction) = (e.owner(), e.faction);
        if destroyed {
            e.combat.out_since = Some(tick);
            e.hp_fraction = 0.0;
            if matches!(e.body, Body::Static { .. }) {
                // A ground target that is destroyed stays as a wreck for the wreck timeout.
                e.crashed_at = Some(tick);
            }
        }
        if let Some(p) = credit.owner {
            let s = self.stats.entry(p).or_default();
            s.damage_dealt += amount;
            s.touch(tick, false);
        }
        if destroyed {
            self.record_kill(victim, owner, faction, Some(credit), tick);
        }
        true
    }

    /// Queues a kill record and updates both sides' tallies.
    fn record_kill(
        &mut self,
        subject: EntityId,
        subject_owner: Option<u32>,
        subject_faction: u16,
        credit: Option<Credit>,
        tick: u64,
    ) {
        let ev = KillEvent::new(subject, subject_owner, subject_faction, credit);
        self.totals.kills += 1;
        if let Some(p) = subject_owner {
            let s = self.stats.entry(p).or_default();
            s.losses += 1;
            s.touch(tick, true);
        }
        if let (Some(_), Some(p)) = (credit, ev.instigator_owner) {
            let s = self.stats.entry(p).or_default();
            if ev.suicide {
                // Killing yourself scores nothing; the loss is counted above.
            } else if ev.team_kill {
                s.team_kills += 1;
                s.score -= events::SCORE_KILL;
            } else {
                s.kills += 1;
                s.score += events::SCORE_KILL;
            }
            s.touch(tick, true);
        }
        tracing::info!(
            subject = ?subject,
            instigator = ?ev.instigator,
            weapon = ?ev.weapon,
            team_kill = ev.team_kill,
            "kill"
        );
        self.kills.push(ev);
    }

    /// Counts a shot (or a hit) for the shooter's peer.
    pub(crate) fn count_shot(&mut self, owner: Option<u32>, shots: u64, hits: u64, tick: u64) {
        if let Some(p) = owner {
            let s = self.stats.entry(p).or_default();
            s.shots += shots;
            s.hits += hits;
            s.touch(tick, false);
        }
    }

    fn sync_payloads(&mut self, world: &mut World) {
        let ids: Vec<EntityId> = world
            .iter()
            .filter(|(_, e)| e.combat.payload_dirty)
            .map(|(id, _)| id)
            .collect();
        for id in ids {
            if let Some(e) = world.get_mut(id) {
                e.combat.payload_dirty = false;
                let (mass, cd0) = e.combat.loadout.payload();
                if let Body::Aircraft { state, .. } = &mut e.body {
                    state.payload_kg = mass;
                    state.payload_cd0 = cd0;
                }
            }
        }
    }

    /// Removes aircraft out of the fight that never reached the ground.
    fn expire_out(&mut self, world: &mut World, tick: u64) {
        let stale: Vec<EntityId> = world
            .iter()
            .filter(|(_, e)| {
                e.crashed_at.is_none()
                    && e.combat.projectile.is_none()
                    && e.combat
                        .out_since
                        .is_some_and(|t| tick.saturating_sub(t) >= OUT_MAX_TICKS)
            })
            .map(|(id, _)| id)
            .collect();
        for id in stale {
            world.despawn(id);
        }
    }

    /// Peers whose stats records are due this tick, with their tallies: at once after a kill
    /// or loss, else at most every [`events::STATS_INTERVAL_TICKS`].
    pub fn take_stats_due(&mut self, tick: u64) -> Vec<(u32, PeerStats)> {
        let mut out = Vec::new();
        for (&peer, s) in self.stats.iter_mut() {
            if s.due(tick) {
                s.sent(tick);
                out.push((peer, *s));
            }
        }
        out
    }

    /// Sets a peer's kill tallies (a reconnecting pilot's restored ones, or zeros when a new
    /// match begins); shots and hits are kept. The new values are sent to it at once.
    pub fn set_peer_tallies(
        &mut self,
        peer: u32,
        kills: u32,
        losses: u32,
        team_kills: u32,
        score: i32,
        tick: u64,
    ) {
        let s = self.stats.entry(peer).or_default();
        s.kills = kills;
        s.losses = losses;
        s.team_kills = team_kills;
        s.score = score;
        s.touch(tick, true);
    }

    /// Forgets a peer's tallies (it left).
    pub fn forget_peer(&mut self, peer: u32) {
        self.stats.remove(&peer);
    }

    fn next_decoy(&mut self) -> u64 {
        self.next_decoy_id += 1;
        self.next_decoy_id
    }
}
