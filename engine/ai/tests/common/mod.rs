//! Shared helpers for fl-ai's flight tests: the models (our synthetic fighter, always; the
//! fixture pack's aircraft when present) and a small world that steps real aircraft with
//! controllers the way the server does (views → read-only world → sample → step).
#![allow(dead_code)]

use fl_ai::{
    Controller, EntityId, EntityView, FlightLimits, GridWorld, Waypoint, WaypointParams, WorldView,
};
use fl_flight::env::{FlatFloor, WindField};
use fl_flight::gravity::Planet;
use fl_flight::math::Vec3;
use fl_flight::model::AircraftModel;
use fl_flight::schema::{parse_flight_model, read_flight_model};
use fl_flight::spawn::trim_level;
use fl_flight::{AircraftState, Controls, StepEnv, outputs, step};
use std::path::Path;

/// The fixture pack, or `None` after recording the whole test as skipped (a failure under
/// `FL_REQUIRE_FIXTURES=1`); the workspace's one locator is `fl-fixtures`.
#[track_caller]
pub fn pack() -> Option<std::path::PathBuf> {
    fl_fixtures::fixture_pack()
}

/// A pack aircraft's compiled model.
pub fn pack_model(pack: &Path, name: &str) -> AircraftModel {
    let path = fl_fixtures::pack_model_path(pack, name);
    let parsed = read_flight_model(&path).unwrap_or_else(|e| panic!("{e}"));
    AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

/// Our synthetic fighter (always available; `tests/data/ai_jet.toml`).
pub fn ai_jet() -> AircraftModel {
    let text = include_str!("../data/ai_jet.toml");
    let parsed =
        parse_flight_model(Path::new("ai_jet.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    AircraftModel::from_def(&parsed.value).unwrap_or_else(|e| panic!("{e}"))
}

/// One aircraft in the test world.
pub struct Craft {
    pub model: usize,
    pub state: AircraftState,
    pub faction: u16,
    pub generation: u32,
    pub hp: f64,
    pub alive: bool,
    pub controller: Option<Box<dyn Controller>>,
    /// Controls applied when there is no controller.
    pub fixed: Controls,
    /// Controls applied last tick.
    pub last: Controls,
}

/// Real aircraft stepped at 60 Hz with their controllers, like the server's tick.
pub struct Sim {
    pub models: Vec<AircraftModel>,
    pub limits: Vec<FlightLimits>,
    pub planet: Planet,
    pub wind: WindField,
    pub floor: FlatFloor,
    pub crafts: Vec<Craft>,
    pub tick: u64,
}

impl Sim {
    pub fn new(models: Vec<AircraftModel>) -> Self {
        let limits = models.iter().map(FlightLimits::from_model).collect();
        Self {
            models,
            limits,
            planet: Planet::earth(),
            wind: WindField::calm(),
            floor: FlatFloor::default(),
            crafts: Vec::new(),
            tick: 0,
        }
    }

    /// Adds an aircraft trimmed in level flight at `pos` (its Y is the altitude), heading
    /// `heading_deg` (0 = north/−Z, 90 = east/+X), true airspeed `tas`. Returns its index.
    pub fn add(
        &mut self,
        model: usize,
        pos: Vec3,
        heading_deg: f64,
        tas: f64,
        faction: u16,
    ) -> u32 {
        let m = &self.models[model];
        let trim = trim_level(
            m,
            &self.planet,
            pos.y,
            tas,
            0.6 * m.max_fuel_kg,
            heading_deg.to_radians(),
        )
        .unwrap_or_else(|| panic!("{} cannot trim at {} m, {} m/s", m.name, pos.y, tas));
        let mut state = trim.state;
        state.position = Vec3::new(pos.x, state.position.y, pos.z);
        // One tick on the trim controls so the accelerometer and surfaces are populated.
        let env = self.env_for(self.crafts.len() as u32);
        step(m, &mut state, &trim.controls, &env);
        self.crafts.push(Craft {
            model,
            state,
            faction,
            generation: 1,
            hp: 1.0,
            alive: true,
            controller: None,
            fixed: trim.controls,
            last: trim.controls,
        });
        (self.crafts.len() - 1) as u32
    }

    /// Adds an aircraft trimmed in level flight at the geodetic position `at`, compass heading
    /// `heading_deg` of the local frame there, true airspeed `tas`. Returns its index.
    pub fn add_at(
        &mut self,
        model: usize,
        at: fl_flight::geodetic::Geodetic,
        heading_deg: f64,
        tas: f64,
        faction: u16,
    ) -> u32 {
        let m = &self.models[model];
        let trim = fl_flight::spawn::trim_level_at(
            m,
            &self.planet,
            at,
            tas,
            0.6 * m.max_fuel_kg,
            heading_deg.to_radians(),
        )
        .unwrap_or_else(|| panic!("{} cannot trim at {at:?}, {tas} m/s", m.name));
        let mut state = trim.state;
        let env = self.env_for(self.crafts.len() as u32);
        step(m, &mut state, &trim.controls, &env);
        self.crafts.push(Craft {
            model,
            state,
            faction,
            generation: 1,
            hp: 1.0,
            alive: true,
            controller: None,
            fixed: trim.controls,
            last: trim.controls,
        });
        (self.crafts.len() - 1) as u32
    }

    pub fn set_controller(&mut self, i: u32, c: Box<dyn Controller>) {
        self.crafts[i as usize].controller = Some(c);
    }

    fn env_for(&self, entity: u32) -> StepEnv<'_> {
        StepEnv {
            planet: &self.planet,
            wind: &self.wind,
            floor: &self.floor,
            tick: self.tick,
            entity,
            aero: true,
        }
    }

    pub fn id(&self, i: u32) -> EntityId {
        EntityId::new(i, self.crafts[i as usize].generation)
    }

    pub fn view(&self, i: u32) -> EntityView {
        let c = &self.crafts[i as usize];
        let env = self.env_for(i);
        let mut v = EntityView::from_flight(
            self.id(i),
            c.faction,
            &self.models[c.model],
            self.limits[c.model],
            &c.state,
            &env,
        );
        v.hp_fraction = c.hp;
        v.alive = v.alive && c.alive;
        v
    }

    pub fn world(&self) -> GridWorld {
        GridWorld::from_entities(2000.0, (0..self.crafts.len() as u32).map(|i| self.view(i)))
    }

    /// One server tick: sample every controller on the frozen world, then step everyone.
    pub fn tick(&mut self) {
        let world = self.world();
        let tick = self.tick;
        let mut controls = Vec::with_capacity(self.crafts.len());
        for (i, c) in self.crafts.iter_mut().enumerate() {
            let me = WorldView::entity(&world, i as u32);
            let ctl = match (&mut c.controller, me) {
                (Some(ctrl), Some(me)) => ctrl.sample(&me, &world, tick),
                _ => c.fixed,
            };
            controls.push(ctl);
        }
        for (i, ctl) in controls.into_iter().enumerate() {
            let env = StepEnv {
                planet: &self.planet,
                wind: &self.wind,
                floor: &self.floor,
                tick,
                entity: i as u32,
                aero: true,
            };
            let c = &mut self.crafts[i];
            step(&self.models[c.model], &mut c.state, &ctl, &env);
            c.last = ctl;
        }
        self.tick += 1;
    }

    pub fn run(&mut self, seconds: f64, mut each: impl FnMut(&Sim)) {
        let n = (seconds * 60.0).round() as u64;
        for _ in 0..n {
            self.tick();
            each(self);
        }
    }

    pub fn state(&self, i: u32) -> &AircraftState {
        &self.crafts[i as usize].state
    }

    pub fn range(&self, a: u32, b: u32) -> f64 {
        (self.state(a).position - self.state(b).position).length()
    }

    pub fn altitude(&self, i: u32) -> f64 {
        self.planet.altitude(self.state(i).position)
    }

    pub fn load_factor(&self, i: u32) -> f64 {
        let c = &self.crafts[i as usize];
        outputs(&self.models[c.model], &c.state, &self.env_for(i)).load_factor
    }

    pub fn tas(&self, i: u32) -> f64 {
        let c = &self.crafts[i as usize];
        outputs(&self.models[c.model], &c.state, &self.env_for(i)).tas_mps
    }

    pub fn alpha_deg(&self, i: u32) -> f64 {
        let c = &self.crafts[i as usize];
        outputs(&self.models[c.model], &c.state, &self.env_for(i)).alpha_deg
    }

    pub fn status(&self, i: u32) -> Option<String> {
        self.crafts[i as usize]
            .controller
            .as_ref()
            .and_then(|c| c.status())
    }

    /// Fails the test when any aircraft crashed or has a non-finite state.
    pub fn assert_healthy(&self) {
        for (i, c) in self.crafts.iter().enumerate() {
            assert!(c.state.is_finite(), "craft {i} state not finite");
            assert!(
                c.state.crashed.is_none(),
                "craft {i} crashed: {:?}",
                c.state.crashed
            );
        }
    }
}

/// A controller that flies straight and level toward a point 200 km along `heading_deg` at the
/// entity's altitude and speed (the "straight-flying target").
pub fn straight(sim: &Sim, i: u32, heading_deg: f64) -> Box<dyn Controller> {
    let s = sim.state(i);
    let h = heading_deg.to_radians();
    let dir = Vec3::new(libm::sin(h), 0.0, -libm::cos(h));
    let far = s.position + dir * 200_000.0;
    Box::new(
        Waypoint::new(WaypointParams {
            points: vec![far],
            capture_radius_m: 500.0,
            speed_mps: Some(sim.tas(i)),
            ..WaypointParams::default()
        })
        .expect("valid straight-line route"),
    )
}

/// Horizontal (XZ) distance between a craft and a point.
pub fn horizontal_distance(a: Vec3, b: Vec3) -> f64 {
    let d = a - b;
    (d.x * d.x + d.z * d.z).sqrt()
}
