//! What combat looks like: the snapshots' cosmetic effect records (guns fired, launches,
//! impacts, detonations, flares) turned into short-lived visual effects, plus what every
//! aircraft shows by itself (afterburner flame, smoke trailing a damaged airframe), as the
//! renderer's particles for one frame.
//!
//! Owns: the list of live effects, each with its birth time and a bounded life, and the
//! particles they give at a given time. Must not: decide what happened (the server's records
//! say so), play sounds (app::sound does), or grow without bound — at most [`MAX_EFFECTS`] live
//! effects, the oldest dropped first.

use std::collections::VecDeque;
use std::time::Duration;

use fl_protocol::enums::{EffectType, WeaponType};
use fl_protocol::tlv::EffectRecord;
use fl_render::{Particle, ParticleKind};
use glam::DVec3;

use crate::bridge::RenderFrame;

/// Live effects kept at most.
pub const MAX_EFFECTS: usize = 256;
/// A gun's rounds as the tracer shows them, m/s relative to the shooter.
const TRACER_SPEED_MPS: f64 = 1_000.0;
/// How long a tracer burns.
const TRACER_LIFE: Duration = Duration::from_millis(1_200);
/// How long a flare burns and falls.
const FLARE_LIFE: Duration = Duration::from_secs(4);
/// A detonation's fireball, then its smoke.
const FIREBALL_LIFE: Duration = Duration::from_millis(1_200);
const SMOKE_LIFE: Duration = Duration::from_secs(12);
/// A hit's flash.
const IMPACT_LIFE: Duration = Duration::from_millis(400);
/// A launch's motor flash.
const LAUNCH_LIFE: Duration = Duration::from_millis(600);
/// One `Fire` record's flames and smoke (the server repeats it at 4 Hz while the aircraft burns).
const FIRE_LIFE: Duration = Duration::from_millis(1_500);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A round: from `at`, flying `velocity`.
    Tracer,
    Flare,
    Fireball,
    Impact,
    Launch,
    /// A burning aircraft: flames riding with it, smoke left behind.
    Fire,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Live {
    kind: Kind,
    born: Duration,
    at: DVec3,
    velocity: DVec3,
}

impl Live {
    fn life(&self) -> Duration {
        match self.kind {
            Kind::Tracer => TRACER_LIFE,
            Kind::Flare => FLARE_LIFE,
            Kind::Fireball => FIREBALL_LIFE + SMOKE_LIFE,
            Kind::Impact => IMPACT_LIFE,
            Kind::Launch => LAUNCH_LIFE,
            Kind::Fire => FIRE_LIFE,
        }
    }
}

/// The live visual effects of a flight.
#[derive(Debug, Default)]
pub struct VisualEffects {
    live: VecDeque<Live>,
    /// The planet's up at the last frame's camera (smoke rises along it, flares fall against it).
    up: DVec3,
}

fn dvec(v: fl_flight::math::Vec3) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

impl VisualEffects {
    /// Takes this frame's effect records (at `now`). A gun's tracer and a flare start with the
    /// shooter's velocity (and a tracer along its nose) from the frame's pose of the shooter;
    /// a record with a position that is not finite is skipped.
    pub fn ingest(&mut self, records: &[EffectRecord], frame: &RenderFrame, now: Duration) {
        if !records.is_empty() {
            tracing::debug!(
                count = records.len(),
                live = self.live.len(),
                "effect records"
            );
        }
        for r in records {
            let at = DVec3::new(
                f64::from(r.pos[0]),
                f64::from(r.pos[1]),
                f64::from(r.pos[2]),
            );
            if !at.is_finite() {
                continue;
            }
            let shooter = frame.entity(r.src_idx);
            let velocity = shooter.map_or(DVec3::ZERO, |e| dvec(e.velocity));
            let nose = shooter.map(|e| {
                dvec(
                    e.orientation
                        .rotate(fl_flight::math::Vec3::new(0.0, 0.0, -1.0)),
                )
            });
            let kind = match r.effect_type() {
                Some(EffectType::WeaponFired) => match WeaponType::from_u8(r.weapon_class) {
                    Some(WeaponType::Gun) => Kind::Tracer,
                    Some(WeaponType::Missile | WeaponType::Rocket) => Kind::Launch,
                    _ => continue,
                },
                Some(EffectType::MissileLaunch) => Kind::Launch,
                Some(EffectType::Impact) => Kind::Impact,
                Some(EffectType::Detonation | EffectType::NuclearFlash) => Kind::Fireball,
                Some(EffectType::CountermeasureRelease) => Kind::Flare,
                Some(EffectType::Fire) => Kind::Fire,
                None => continue,
            };
            let velocity = match (kind, nose) {
                (Kind::Tracer, Some(n)) if n.is_finite() => velocity + n * TRACER_SPEED_MPS,
                (Kind::Tracer, _) => continue,
                (Kind::Fireball | Kind::Impact, _) => DVec3::ZERO,
                _ => velocity,
            };
            if !velocity.is_finite() {
                continue;
            }
            if self.live.len() == MAX_EFFECTS {
                self.live.pop_front();
            }
            self.live.push_back(Live {
                kind,
                born: now,
                at,
                velocity,
            });
        }
    }

    /// Live effects.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether none is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// The particles at `now`: the live effects (those past their life are dropped) and each
    /// aircraft's own (afterburner flame aft of the nozzle, smoke from a heavily damaged one).
    /// `up` is the planet's up where the camera is.
    pub fn particles(&mut self, frame: &RenderFrame, now: Duration, up: DVec3) -> Vec<Particle> {
        self.up = up.normalize_or(DVec3::Y);
        self.live
            .retain(|e| now.saturating_sub(e.born) < e.life() && now >= e.born);
        let mut out = Vec::with_capacity(self.live.len() * 2 + frame.entities.len());
        for e in &self.live {
            let t = (now - e.born).as_secs_f64();
            let f = (t / e.life().as_secs_f64()) as f32;
            match e.kind {
                Kind::Tracer => {
                    let p = e.at + e.velocity * t - self.up * (4.9 * t * t);
                    let flown = (p - e.at).length() as f32;
                    out.push(Particle::tracer(p, e.velocity.as_vec3(), flown));
                }
                Kind::Flare => {
                    // Thrown clear, slowed by the air, falling.
                    let slow = 1.0 - (-t).exp();
                    let p = e.at + e.velocity * slow - self.up * (4.9 * t * t);
                    out.push(Particle::new(ParticleKind::Flame, p, 1.5).with_opacity(1.0 - f));
                }
                Kind::Launch => {
                    let p = e.at + e.velocity * t;
                    out.push(Particle::new(ParticleKind::Flame, p, 2.0).with_opacity(1.0 - f));
                    out.push(
                        Particle::new(
                            ParticleKind::Smoke,
                            e.at + e.velocity * (0.5 * t),
                            3.0 + 6.0 * f,
                        )
                        .with_opacity(0.6 * (1.0 - f)),
                    );
                }
                Kind::Fire => {
                    // Flames ride with the aircraft for a moment; the smoke stays behind, rising.
                    if t < 0.3 {
                        out.push(
                            Particle::new(ParticleKind::Flame, e.at + e.velocity * t, 3.0)
                                .with_opacity(1.0 - (t / 0.3) as f32),
                        );
                    }
                    let mut smoke = Particle::new(
                        ParticleKind::Smoke,
                        e.at + self.up * (3.0 * t),
                        4.0 + 10.0 * f,
                    )
                    .with_opacity(0.7 * (1.0 - f));
                    smoke.color = fl_render::particles::DARK_SMOKE;
                    out.push(smoke);
                }
                Kind::Impact => {
                    out.push(
                        Particle::new(ParticleKind::Explosion, e.at, 2.0 + 4.0 * f)
                            .with_opacity(1.0 - f),
                    );
                }
                Kind::Fireball => {
                    let fire = FIREBALL_LIFE.as_secs_f64();
                    if t < fire {
                        let g = (t / fire) as f32;
                        out.push(
                            Particle::new(ParticleKind::Explosion, e.at, 6.0 + 18.0 * g)
                                .with_opacity(1.0 - g * g),
                        );
                    }
                    let s = ((t / (fire + SMOKE_LIFE.as_secs_f64())) as f32).min(1.0);
                    let mut smoke = Particle::new(
                        ParticleKind::Smoke,
                        e.at + self.up * (6.0 * t),
                        10.0 + 30.0 * s,
                    )
                    .with_opacity(0.7 * (1.0 - s));
                    smoke.color = fl_render::particles::DARK_SMOKE;
                    out.push(smoke);
                }
            }
        }
        for e in &frame.entities {
            let (p, q, v) = (dvec(e.position), e.orientation, dvec(e.velocity));
            if !(p.is_finite() && v.is_finite()) {
                continue;
            }
            let aft = dvec(q.rotate(fl_flight::math::Vec3::new(0.0, 0.0, 1.0)));
            if e.ab_engaged {
                // A short flame aft of the airframe (its length scales with the aircraft's
                // size only through the fixed offset: a cue, not a plume model).
                out.push(
                    Particle::new(ParticleKind::Flame, p + aft * 8.0, 1.2)
                        .with_velocity((-aft * 300.0).as_vec3()),
                );
            }
            if e.damage_level >= 2 {
                // Heavy damage and worse trail smoke: puffs behind it along its path.
                for k in 1..=4 {
                    let back = v * (-0.15 * f64::from(k));
                    let mut puff =
                        Particle::new(ParticleKind::Smoke, p + back + aft * 6.0, 2.0 + k as f32)
                            .with_opacity(0.5 - 0.1 * k as f32);
                    puff.color = fl_render::particles::DARK_SMOKE;
                    out.push(puff);
                }
            }
        }
        out.truncate(fl_render::particles::MAX_PARTICLES);
        out.retain(|p| p.position.is_finite() && p.velocity.is_finite() && p.size_m.is_finite());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::{PoseSource, RenderEntity};
    use fl_flight::math::Quat;

    fn record(kind: EffectType, class: u8, src: u32, pos: [f32; 3]) -> EffectRecord {
        EffectRecord {
            kind: kind as u8,
            weapon_class: class,
            src_idx: src,
            tgt_idx: u32::MAX,
            pos,
        }
    }

    fn frame() -> RenderFrame {
        RenderFrame {
            entities: vec![RenderEntity {
                idx: 3,
                generation: 0,
                type_index: 0,
                faction: 0,
                own: false,
                position: fl_flight::math::Vec3::new(0.0, 1000.0, 0.0),
                orientation: Quat::IDENTITY,
                velocity: fl_flight::math::Vec3::new(0.0, 0.0, -200.0),
                articulation: Default::default(),
                damage_level: 3,
                throttle_pct: 100,
                ab_engaged: true,
                source: PoseSource::Interpolated,
            }],
            ..RenderFrame::default()
        }
    }

    #[test]
    fn a_tracer_flies_along_the_shooters_nose_and_burns_out() {
        let mut fx = VisualEffects::default();
        let t0 = Duration::from_secs(10);
        let gun = WeaponType::Gun as u8;
        fx.ingest(
            &[record(
                EffectType::WeaponFired,
                gun,
                3,
                [0.0, 1000.0, -10.0],
            )],
            &frame(),
            t0,
        );
        assert_eq!(fx.len(), 1);
        let no_aircraft = RenderFrame::default();
        let at = |fx: &mut VisualEffects, dt_ms| {
            fx.particles(&no_aircraft, t0 + Duration::from_millis(dt_ms), DVec3::Y)
        };
        // The streak's ends: the particle sits at its middle, stretched by its velocity over
        // fl_render's streak time.
        let ends = |p: &Particle| {
            let half =
                p.velocity.as_dvec3() * f64::from(0.5 * fl_render::particles::TRACER_STREAK_S);
            (p.position - half, p.position + half)
        };
        let p = at(&mut fx, 500);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].kind, ParticleKind::Tracer);
        // Half a second at 1,200 m/s (the round plus the shooter) along −Z, and falling.
        let (tail, head) = ends(&p[0]);
        assert!((head.z - (-10.0 - 600.0)).abs() < 0.1, "{head:?}");
        assert!(head.y < 1000.0);
        assert!(
            tail.z > head.z + 30.0,
            "a full streak behind the head: {tail:?}"
        );
        // Ten milliseconds out, 12 m from the gun: the streak ends at the gun, not behind it.
        let (tail, head) = ends(&at(&mut fx, 10)[0]);
        assert!((head.z - (-22.0)).abs() < 0.1, "{head:?}");
        assert!((tail.z - (-10.0)).abs() < 0.1, "{tail:?}");
        assert!(at(&mut fx, 1_300).is_empty(), "burnt out");
        assert!(fx.is_empty());
    }

    #[test]
    fn a_fire_record_shows_flames_then_rising_smoke() {
        let mut fx = VisualEffects::default();
        let t0 = Duration::from_secs(1);
        fx.ingest(
            &[record(EffectType::Fire, 0xFF, 9, [5.0, 500.0, 5.0])],
            &RenderFrame::default(),
            t0,
        );
        let kinds = |p: &[Particle]| p.iter().map(|p| p.kind).collect::<Vec<_>>();
        let mut at = |ms| fx_particles(&mut fx, t0 + Duration::from_millis(ms));
        assert_eq!(kinds(&at(100)), [ParticleKind::Flame, ParticleKind::Smoke]);
        let late = at(1_000);
        assert_eq!(kinds(&late), [ParticleKind::Smoke]);
        assert!(late[0].position.y > 500.0, "the smoke rises");
        assert!(at(2_000).is_empty(), "one record burns out");
    }

    fn fx_particles(fx: &mut VisualEffects, now: Duration) -> Vec<Particle> {
        fx.particles(&RenderFrame::default(), now, DVec3::Y)
    }

    #[test]
    fn a_detonation_is_a_fireball_then_smoke_and_aircraft_show_flame_and_damage() {
        let mut fx = VisualEffects::default();
        let t0 = Duration::from_secs(1);
        fx.ingest(
            &[record(EffectType::Detonation, 0, 9, [5.0, 500.0, 5.0])],
            &frame(),
            t0,
        );
        let kinds = |p: &[Particle]| p.iter().map(|p| p.kind).collect::<Vec<_>>();
        let early = fx.particles(
            &RenderFrame::default(),
            t0 + Duration::from_millis(100),
            DVec3::Y,
        );
        assert_eq!(
            kinds(&early),
            [ParticleKind::Explosion, ParticleKind::Smoke]
        );
        let late = fx.particles(
            &RenderFrame::default(),
            t0 + Duration::from_secs(5),
            DVec3::Y,
        );
        assert_eq!(kinds(&late), [ParticleKind::Smoke]);
        assert!(late[0].position.y > 500.0, "the smoke rises");
        let with_aircraft = fx.particles(&frame(), t0 + Duration::from_secs(5), DVec3::Y);
        let flames = with_aircraft
            .iter()
            .filter(|p| p.kind == ParticleKind::Flame)
            .count();
        let smoke = with_aircraft
            .iter()
            .filter(|p| p.kind == ParticleKind::Smoke)
            .count();
        assert_eq!(
            (flames, smoke),
            (1, 5),
            "afterburner and four puffs of damage smoke"
        );
    }

    #[test]
    fn hostile_records_are_skipped_and_the_list_is_bounded() {
        let mut fx = VisualEffects::default();
        let t0 = Duration::from_secs(1);
        let bad = [
            record(EffectType::Impact, 0, 1, [f32::NAN, 0.0, 0.0]),
            EffectRecord {
                kind: 200,
                weapon_class: 0,
                src_idx: 0,
                tgt_idx: 0,
                pos: [0.0; 3],
            },
            // A gun record whose shooter is not in the frame: no direction, no tracer.
            record(EffectType::WeaponFired, WeaponType::Gun as u8, 77, [0.0; 3]),
        ];
        fx.ingest(&bad, &frame(), t0);
        assert!(fx.is_empty());
        let many = vec![record(EffectType::Impact, 0, 1, [1.0, 2.0, 3.0]); 10 * MAX_EFFECTS];
        fx.ingest(&many, &frame(), t0);
        assert_eq!(fx.len(), MAX_EFFECTS);
        // Effects born "later" than now (a clock that went back) are dropped, not kept forever.
        assert!(
            fx.particles(&RenderFrame::default(), Duration::ZERO, DVec3::Y)
                .is_empty()
        );
    }
}
