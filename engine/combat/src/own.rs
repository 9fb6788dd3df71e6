//! The own aircraft's combat state as both sides run it: the rules that change the flight
//! model's inputs when a pilot fires, releases, jettisons or is damaged, written once so the
//! server's fire control and the client's prediction reach the same bits.
//!
//! - Atoms the server's `combat` calls: the gun's integer rate accumulator ([`gun_fire`],
//!   [`gun_rest`]), a store's mass as its rounds leave ([`store_mass_kg`]), the payload sum
//!   ([`payload_sum`]) and what damage does to the controls ([`effective_controls`]) and the
//!   fuel ([`leak_fuel`]).
//! - [`OwnCombat`]: one aircraft's stores, expendables, selection, edge state and damage
//!   factors, carried as extra f64 words of the `SnapshotOwnState` TLV (format 2,
//!   docs/protocol.md) and stepped by the client's prediction with each of its own inputs
//!   ([`OwnCombat::apply`], the consumption half of the server's `weapons::fire_one`).
//!
//! Must not: decide hits, fly projectiles or touch the world (the server does); allocate without
//! a bound on what a peer sent ([`OwnCombat::from_words`] refuses more than [`MAX_STATIONS`]).

use fl_flight::Controls;

/// One round in the gun's rate accumulator: rates are kept in thousandths of a round per minute
/// and a tick is 1/60 s, so a round costs 60 × 60 × 1000 units and each tick adds the rate.
pub const ROUND_UNITS: u64 = 3_600_000;
/// Below this thrust factor a damaged engine cannot light its afterburner.
pub const AFTERBURNER_MIN_THRUST_FACTOR: f64 = 0.9;
/// Least time between two store releases of one aircraft, ticks (0.25 s).
pub const RELEASE_INTERVAL_TICKS: u64 = 15;
/// Most stations an [`OwnCombat`] may carry (more: the words are refused).
pub const MAX_STATIONS: usize = 16;
/// `selectedStation` meaning "keep the current one" (`MsgClientInput`).
pub const KEEP: u8 = 255;
/// `selectedStation` selecting the jettison of every external store.
pub const JETTISON_STATION: u8 = 254;

/// `MsgClientInput::buttons` bits fire control reads (the wire's `enums::buttons`; this crate
/// does not depend on fl-protocol, the server checks they agree).
pub mod buttons {
    pub const GUN: u8 = 0x01;
    pub const FIRE_STORE: u8 = 0x04;
    pub const CHAFF_FLARE: u8 = 0x08;
    pub const EJECT: u8 = 0x20;
}

/// One held tick of a gun with `rounds` left: the accumulator gains `rate_milli_rpm`, the rounds
/// due leave. Returns (new accumulator, rounds left, rounds fired). An empty magazine resets the
/// accumulator.
pub fn gun_fire(units: u64, rounds: u32, rate_milli_rpm: u64) -> (u64, u32, u32) {
    let mut units = units.saturating_add(rate_milli_rpm);
    let due = (units / ROUND_UNITS).min(u64::from(rounds));
    units -= due * ROUND_UNITS;
    if u64::from(rounds) == due {
        units = 0;
    }
    (units, rounds - due as u32, due as u32)
}

/// One idle tick of a gun: the accumulator refills but stays below one round.
pub fn gun_rest(units: u64, rate_milli_rpm: u64) -> u64 {
    units.saturating_add(rate_milli_rpm).min(ROUND_UNITS - 1)
}

/// Mass of a store carrying `rounds` of its `full_rounds` (a full store weighs exactly its def's
/// mass; a gun's magazine empties round by round), kg.
pub fn store_mass_kg(full_mass_kg: f64, full_rounds: u32, rounds: u32) -> f64 {
    if rounds >= full_rounds {
        full_mass_kg
    } else {
        full_mass_kg / f64::from(full_rounds.max(1)) * f64::from(rounds)
    }
}

/// The payload (mass kg, drag increment) of stores given in station order as
/// `(full mass, full rounds, rounds left, drag)`; empty ones weigh and drag nothing.
pub fn payload_sum(stores: impl IntoIterator<Item = (f64, u32, u32, f64)>) -> (f64, f64) {
    let mut mass = 0.0;
    let mut cd0 = 0.0;
    for (full_mass, full_rounds, rounds, drag) in stores {
        if rounds == 0 {
            continue;
        }
        mass += store_mass_kg(full_mass, full_rounds, rounds);
        cd0 += drag;
    }
    (mass, cd0)
}

/// The damage in force (the tier's factors times the failed subsystems'): how much of the
/// throttle and of the stick still acts, and how fast a punctured tank leaks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DamageFactors {
    pub thrust: f64,
    pub control: f64,
    /// Fuel lost to a leak on top of the engines' burn, kg/s (0: no leak).
    pub leak_kg_s: f64,
}

impl DamageFactors {
    /// No degradation.
    pub const NONE: DamageFactors = DamageFactors {
        thrust: 1.0,
        control: 1.0,
        leak_kg_s: 0.0,
    };
}

/// One tick of a fuel leak on `fuel_kg` (the tank cannot go below empty). Called before the
/// flight step by the server's world step and the client's prediction alike, so both burn the
/// same bits.
pub fn leak_fuel(fuel_kg: f64, factors: Option<DamageFactors>) -> f64 {
    match factors {
        Some(f) if f.leak_kg_s.is_finite() && f.leak_kg_s > 0.0 => {
            (fuel_kg - f.leak_kg_s * fl_flight::DT).max(0.0)
        }
        _ => fuel_kg,
    }
}

/// The controls an aircraft flies with when its pilot commands `c`, under the damage tier
/// `factors` (`None`: intact, or a type without that tier). A `destroyed` (or abandoned)
/// aircraft flies with nobody at the stick. The one function the server's flight step and the
/// client's prediction both call.
pub fn effective_controls(
    c: Controls,
    factors: Option<DamageFactors>,
    destroyed: bool,
) -> Controls {
    if destroyed {
        return Controls::default();
    }
    let Some(t) = factors else {
        return c;
    };
    let f = |x: f64| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            1.0
        }
    };
    let (thrust, control) = (f(t.thrust), f(t.control));
    Controls {
        pitch: c.pitch * control,
        roll: c.roll * control,
        yaw: c.yaw * control,
        throttle: c.throttle * thrust,
        afterburner: c.afterburner && thrust >= AFTERBURNER_MIN_THRUST_FACTOR,
        ..c
    }
}

/// How a station's store leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// Fired round by round while the trigger is held.
    Gun,
    /// Released one by one (missiles, rockets, bombs, inert stores), jettisonable.
    Releasable,
}

/// A store on one of the own aircraft's stations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnStore {
    /// Station index (the type's hardpoints in slot order).
    pub station: u8,
    pub kind: StoreKind,
    /// Which weapon it is, as the index of the first station of this loadout that carried the
    /// same weapon (what "the next station with the same weapon" compares).
    pub weapon_key: u8,
    /// Rounds (or stores) left.
    pub rounds: u32,
    /// Rounds when full.
    pub full_rounds: u32,
    /// The gun's rate accumulator ([`ROUND_UNITS`] per round; 0 for other stores).
    pub gun_units: u64,
    /// Rate of fire, thousandths of a round per minute (0 for other stores).
    pub rate_milli_rpm: u64,
    /// Mass when full, kg.
    pub mass_kg: f64,
    /// Parasite-drag increment.
    pub drag_cd0: f64,
}

/// What one input asks of fire control (the `MsgClientInput` fields it reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intent {
    pub buttons: u8,
    pub selected_station: u8,
}

impl Default for Intent {
    fn default() -> Self {
        Self {
            buttons: 0,
            selected_station: KEEP,
        }
    }
}

/// The own aircraft's combat state at a snapshot's tick, and its prediction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwnCombat {
    /// Out of the fight (destroyed or abandoned): nobody flies it, nothing fires.
    pub destroyed: bool,
    /// Fire control refuses everything (crashed, or a type without combat data).
    pub inert: bool,
    /// The damage tier in force.
    pub factors: Option<DamageFactors>,
    /// Stations the type has.
    pub station_count: u8,
    pub selected: Option<u8>,
    /// Buttons of the last input applied (edge detection).
    pub held: u8,
    /// First tick a store may be released again.
    pub next_release_tick: u64,
    pub chaff: u32,
    pub flares: u32,
    /// Occupied stations, in station order.
    pub stores: Vec<OwnStore>,
    /// The stores changed since the flight model's payload was last set.
    pub payload_dirty: bool,
}

/// Words before the stores in [`OwnCombat::to_words`].
pub const HEADER_WORDS: usize = 11;
/// Words per store.
pub const STORE_WORDS: usize = 9;
/// Most words [`OwnCombat::to_words`] writes.
pub const MAX_WORDS: usize = HEADER_WORDS + MAX_STATIONS * STORE_WORDS;

/// The largest leak rate the words may carry, kg/s.
pub const MAX_LEAK_KG_S: f64 = 1000.0;

/// The largest integer an f64 word carries exactly.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

impl OwnCombat {
    /// The controls the aircraft flies with when its pilot commands `c`.
    pub fn effective_controls(&self, c: Controls) -> Controls {
        effective_controls(c, self.factors, self.destroyed)
    }

    /// One tick of the fuel leak damage causes (see [`leak_fuel`]).
    pub fn leak(&self, fuel_kg: f64) -> f64 {
        leak_fuel(fuel_kg, self.factors)
    }

    /// The stores' mass and drag, as the server's loadout sums them.
    pub fn payload(&self) -> (f64, f64) {
        payload_sum(
            self.stores
                .iter()
                .map(|s| (s.mass_kg, s.full_rounds, s.rounds, s.drag_cd0)),
        )
    }

    /// The store on `station`, if any.
    pub fn store(&self, station: u8) -> Option<&OwnStore> {
        self.stores.iter().find(|s| s.station == station)
    }

    /// Fire control's consumption for one input at server tick `tick`, in the server's order
    /// (`weapons::fire_one`): selection, ejection, guns, store release or jettison,
    /// countermeasures. Sets [`OwnCombat::payload_dirty`] when a store's mass changed. A release
    /// is assumed to leave (the server keeps the store only when its world is full).
    pub fn apply(&mut self, input: Intent, tick: u64) {
        let prev = std::mem::replace(&mut self.held, input.buttons);
        let pressed = |bit: u8| input.buttons & bit != 0 && prev & bit == 0;
        if self.destroyed || self.inert {
            return;
        }
        let station_ok = match input.selected_station {
            KEEP | JETTISON_STATION => true,
            s if s < self.station_count => {
                self.selected = Some(s);
                true
            }
            _ => false,
        };
        if pressed(buttons::EJECT) {
            self.destroyed = true;
            return;
        }
        if input.buttons & buttons::GUN != 0 {
            for s in &mut self.stores {
                if s.kind != StoreKind::Gun || s.rounds == 0 {
                    continue;
                }
                let (units, rounds, due) = gun_fire(s.gun_units, s.rounds, s.rate_milli_rpm);
                s.gun_units = units;
                s.rounds = rounds;
                if due > 0 {
                    self.payload_dirty = true;
                }
            }
        } else {
            self.rest_guns();
        }
        if pressed(buttons::FIRE_STORE) && station_ok {
            if input.selected_station == JETTISON_STATION {
                self.jettison();
            } else {
                self.release(tick);
            }
        }
        if pressed(buttons::CHAFF_FLARE) {
            self.chaff = self.chaff.saturating_sub(1);
            self.flares = self.flares.saturating_sub(1);
        }
    }

    /// A tick without pilot input: the guns rest.
    pub fn rest_guns(&mut self) {
        for s in &mut self.stores {
            if s.kind == StoreKind::Gun {
                s.gun_units = gun_rest(s.gun_units, s.rate_milli_rpm);
            }
        }
    }

    fn release(&mut self, tick: u64) {
        let Some(station) = self.selected else { return };
        let Some(k) = self
            .stores
            .iter()
            .position(|s| s.station == station && s.rounds > 0)
        else {
            return;
        };
        if self.stores[k].kind != StoreKind::Releasable || tick < self.next_release_tick {
            return;
        }
        self.next_release_tick = tick + RELEASE_INTERVAL_TICKS;
        self.payload_dirty = true;
        self.stores[k].rounds -= 1;
        if self.stores[k].rounds > 0 {
            return;
        }
        let key = self.stores[k].weapon_key;
        self.stores.remove(k);
        // The next station carrying the same weapon, in order after this one (wrapping).
        let n = self.station_count;
        let next = (1..n).map(|d| ((u16::from(station) + u16::from(d)) % u16::from(n)) as u8);
        let next = next.into_iter().find(|&i| {
            self.store(i)
                .is_some_and(|s| s.rounds > 0 && s.weapon_key == key)
        });
        if let Some(next) = next {
            self.selected = Some(next);
        }
    }

    fn jettison(&mut self) {
        let before = self.stores.len();
        self.stores
            .retain(|s| !(s.kind == StoreKind::Releasable && s.rounds > 0));
        if self.stores.len() != before {
            self.payload_dirty = true;
        }
    }

    /// The state as exact f64 words (integers as exact f64s): `flags` (bit 0 destroyed, bit 1
    /// inert, bit 2 a damage tier is in force), thrust factor, control factor, station count,
    /// selected station (−1 none), held buttons, next release tick, chaff, flares, store count,
    /// fuel leak kg/s; then per store: station, kind (0 gun, 1 releasable), weapon key, rounds, full rounds,
    /// gun accumulator, rate, full mass, drag. At most [`MAX_STATIONS`] stores are written.
    pub fn to_words(&self) -> Vec<f64> {
        let stores = &self.stores[..self.stores.len().min(MAX_STATIONS)];
        let mut w = Vec::with_capacity(HEADER_WORDS + stores.len() * STORE_WORDS);
        let flags = u8::from(self.destroyed)
            | u8::from(self.inert) << 1
            | u8::from(self.factors.is_some()) << 2;
        let f = self.factors.unwrap_or(DamageFactors::NONE);
        w.extend_from_slice(&[
            f64::from(flags),
            f.thrust,
            f.control,
            f64::from(self.station_count),
            self.selected.map_or(-1.0, f64::from),
            f64::from(self.held),
            self.next_release_tick.min(MAX_EXACT as u64) as f64,
            f64::from(self.chaff),
            f64::from(self.flares),
            stores.len() as f64,
            f.leak_kg_s,
        ]);
        for s in stores {
            w.extend_from_slice(&[
                f64::from(s.station),
                match s.kind {
                    StoreKind::Gun => 0.0,
                    StoreKind::Releasable => 1.0,
                },
                f64::from(s.weapon_key),
                f64::from(s.rounds),
                f64::from(s.full_rounds),
                s.gun_units.min(MAX_EXACT as u64) as f64,
                s.rate_milli_rpm.min(MAX_EXACT as u64) as f64,
                s.mass_kg,
                s.drag_cd0,
            ]);
        }
        w
    }

    /// Rebuilds the state from [`OwnCombat::to_words`]; `None` for anything this build could not
    /// have written (a wrong count, more than [`MAX_STATIONS`] stores, a non-integer or
    /// out-of-range counter, stations out of order or beyond the type's, a negative or
    /// non-finite mass, drag or factor).
    pub fn from_words(w: &[f64]) -> Option<OwnCombat> {
        if w.len() < HEADER_WORDS || !w.iter().all(|x| x.is_finite()) {
            return None;
        }
        let int = |x: f64, max: f64| (x >= 0.0 && x <= max && x.fract() == 0.0).then_some(x);
        let flags = int(w[0], 7.0)? as u8;
        let factor = |x: f64| (0.0..=1.0).contains(&x).then_some(x);
        let (thrust, control) = (factor(w[1])?, factor(w[2])?);
        // A leak beyond any tank's worth a second is not something this build writes.
        let leak_kg_s = (0.0..=MAX_LEAK_KG_S).contains(&w[10]).then_some(w[10])?;
        let station_count = int(w[3], MAX_STATIONS as f64)? as u8;
        let selected = if w[4] == -1.0 {
            None
        } else {
            Some(int(w[4], f64::from(station_count) - 1.0)? as u8)
        };
        let n = int(w[9], MAX_STATIONS as f64)? as usize;
        if w.len() != HEADER_WORDS + n * STORE_WORDS || n > usize::from(station_count) {
            return None;
        }
        let mut stores = Vec::with_capacity(n);
        for c in w[HEADER_WORDS..].chunks_exact(STORE_WORDS) {
            let station = int(c[0], f64::from(station_count) - 1.0)? as u8;
            if stores
                .last()
                .is_some_and(|p: &OwnStore| p.station >= station)
            {
                return None;
            }
            let kind = match int(c[1], 1.0)? as u8 {
                0 => StoreKind::Gun,
                _ => StoreKind::Releasable,
            };
            let u32max = f64::from(u32::MAX);
            let (mass_kg, drag_cd0) = (c[7], c[8]);
            if mass_kg < 0.0 || drag_cd0 < 0.0 {
                return None;
            }
            stores.push(OwnStore {
                station,
                kind,
                weapon_key: int(c[2], f64::from(station_count) - 1.0)? as u8,
                rounds: int(c[3], u32max)? as u32,
                full_rounds: int(c[4], u32max)? as u32,
                gun_units: int(c[5], MAX_EXACT)? as u64,
                rate_milli_rpm: int(c[6], MAX_EXACT)? as u64,
                mass_kg,
                drag_cd0,
            });
        }
        Some(OwnCombat {
            destroyed: flags & 1 != 0,
            inert: flags & 2 != 0,
            factors: (flags & 4 != 0).then_some(DamageFactors {
                thrust,
                control,
                leak_kg_s,
            }),
            station_count,
            selected,
            held: int(w[5], 255.0)? as u8,
            next_release_tick: int(w[6], MAX_EXACT)? as u64,
            chaff: int(w[7], f64::from(u32::MAX))? as u32,
            flares: int(w[8], f64::from(u32::MAX))? as u32,
            stores,
            payload_dirty: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed() -> OwnCombat {
        let gun = OwnStore {
            station: 0,
            kind: StoreKind::Gun,
            weapon_key: 0,
            rounds: 280,
            full_rounds: 280,
            gun_units: ROUND_UNITS - 1,
            rate_milli_rpm: 1_500_000,
            mass_kg: 140.0,
            drag_cd0: 0.0,
        };
        let aam = |station| OwnStore {
            station,
            kind: StoreKind::Releasable,
            weapon_key: 1,
            rounds: 1,
            full_rounds: 1,
            gun_units: 0,
            rate_milli_rpm: 0,
            mass_kg: 86.0,
            drag_cd0: 0.0015,
        };
        OwnCombat {
            station_count: 4,
            selected: Some(1),
            held: 0,
            chaff: 2,
            flares: 1,
            stores: vec![gun, aam(1), aam(3)],
            ..OwnCombat::default()
        }
    }

    #[test]
    fn words_round_trip_and_hostile_words_are_refused() {
        let mut c = armed();
        c.factors = Some(DamageFactors {
            thrust: 0.7,
            control: 0.8,
            leak_kg_s: 2.0,
        });
        let w = c.to_words();
        assert_eq!(w.len(), HEADER_WORDS + 3 * STORE_WORDS);
        assert_eq!(OwnCombat::from_words(&w), Some(c));
        let bad = |i: usize, x: f64| {
            let mut v = w.clone();
            v[i] = x;
            OwnCombat::from_words(&v)
        };
        assert_eq!(bad(0, f64::NAN), None);
        assert_eq!(bad(1, 1.5), None, "a factor above 1");
        assert_eq!(bad(4, 4.0), None, "selection beyond the stations");
        assert_eq!(bad(9, 17.0), None, "too many stores");
        assert_eq!(bad(10, -1.0), None, "a negative leak");
        assert_eq!(bad(10, 1e9), None, "an impossible leak");
        assert_eq!(bad(11, 3.0), None, "stations out of order");
        assert_eq!(bad(14, 2.5), None, "fractional rounds");
        assert_eq!(bad(18, -1.0), None, "negative mass");
        assert_eq!(OwnCombat::from_words(&w[..w.len() - 1]), None);
        assert_eq!(OwnCombat::from_words(&[]), None);
    }

    #[test]
    fn a_leak_drains_the_tank_to_empty_and_no_further() {
        let f = Some(DamageFactors {
            leak_kg_s: 6.0,
            ..DamageFactors::NONE
        });
        assert_eq!(leak_fuel(100.0, f), 100.0 - 6.0 * fl_flight::DT);
        assert_eq!(leak_fuel(0.01, f), 0.0);
        assert_eq!(leak_fuel(100.0, None), 100.0);
        assert_eq!(leak_fuel(100.0, Some(DamageFactors::NONE)), 100.0);
    }

    #[test]
    fn firing_releasing_and_jettison_change_the_payload() {
        let mut c = armed();
        let (m0, _) = c.payload();
        assert_eq!(m0, 140.0 + 2.0 * 86.0);
        let gun = Intent {
            buttons: buttons::GUN,
            selected_station: KEEP,
        };
        c.apply(gun, 10);
        assert_eq!(c.stores[0].rounds, 279, "the first press fires at once");
        assert!(c.payload_dirty);
        for t in 11..71 {
            c.apply(gun, t);
        }
        assert_eq!(c.stores[0].rounds, 279 - 25, "1500 rounds a minute");
        let release = Intent {
            buttons: buttons::FIRE_STORE,
            selected_station: KEEP,
        };
        c.apply(release, 100);
        assert!(c.store(1).is_none());
        assert_eq!(c.selected, Some(3), "the next station with the same weapon");
        c.apply(Intent::default(), 101);
        c.apply(release, 102);
        assert!(c.store(3).is_some(), "too soon after the last release");
        c.apply(Intent::default(), 103);
        c.apply(
            Intent {
                buttons: buttons::FIRE_STORE,
                selected_station: JETTISON_STATION,
            },
            104,
        );
        assert_eq!(c.stores.len(), 1, "only the gun stays");
        c.apply(
            Intent {
                buttons: buttons::CHAFF_FLARE,
                selected_station: KEEP,
            },
            105,
        );
        assert_eq!((c.chaff, c.flares), (1, 0));
        c.apply(
            Intent {
                buttons: buttons::EJECT,
                selected_station: KEEP,
            },
            106,
        );
        assert!(c.destroyed);
        assert_eq!(
            c.effective_controls(Controls {
                pitch: 1.0,
                ..Controls::default()
            }),
            Controls::default()
        );
    }
}
