//! The gun is lag-compensated: a peer on a 100 ms one-way link fires at a target crossing its
//! nose at 200 m/s, 450 m out (crossing: the rewound and the true target are not on one line of
//! sight, as they would be for a target flying straight away). Aiming where its screen showed the target (the server's rewound history —
//! what a player aims at) hits; aiming where the target really is now, the lead a player would
//! need without compensation, misses by the distance the target flew in the rewind. The rounds
//! are the real gun's (rate, dispersion, the hitscan of `combat::weapons`).

mod combat_support;
mod common;

use combat_support::{Fight, config};
use fl_flight::math::{Quat, Vec3};
use fl_net::linksim::{DirectionConfig, LinkConfig};
use fl_protocol::enums::buttons;
use fl_server::world::Body;
use std::time::Duration;

/// Rounds fired, rounds that hit and the mean rewind, with the shooter's nose turned before
/// every tick towards the target as its screen showed it (`aim_at_screen`) or as it really is.
fn burst(aim_at_screen: bool) -> Option<(u64, u64, f64)> {
    let link = LinkConfig::symmetric(DirectionConfig {
        latency: Duration::from_millis(100),
        ..DirectionConfig::default()
    });
    let mut f = Fight::with_link(7, 1, config(), link, "a lag-compensated gun")?;
    let me = f.own(0);
    f.trim_all();
    let target = f.drone_ahead(me, 300.0);
    // The drone crosses the shooter's nose from left to right at 200 m/s.
    {
        let world = f.h.server.world_mut();
        let Some(Body::Aircraft { state: s, .. }) = world.get(me).map(|e| e.body.clone()) else {
            panic!("shooter is an aircraft");
        };
        let e = world.get_mut(target).expect("target");
        let Body::Aircraft { state, .. } = &mut e.body else {
            panic!("target is an aircraft");
        };
        let up = s.orientation.rotate(Vec3::new(0.0, 1.0, 0.0));
        let right = s.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
        state.orientation =
            Quat::from_axis_angle(up, -std::f64::consts::FRAC_PI_2).then(s.orientation);
        state.velocity = right * 200.0;
        state.position = s.position + s.forward() * 450.0 - right * 60.0;
    }
    // Let the history fill and the peer's view settle.
    f.run(40);
    let before = f.h.server.combat().totals;
    f.clients[0].buttons = buttons::GUN;
    let mut rewinds = Vec::new();
    for _ in 0..50 {
        // 13 hits kill it (8 damage a round, 100 hp): rounds after that have nothing to hit.
        if f.h
            .server
            .world()
            .get(target)
            .is_none_or(|e| e.combat.is_out())
        {
            break;
        }
        let rewind = f.h.server.rewind_ticks(me);
        rewinds.push(rewind);
        let world = f.h.server.world_mut();
        let newest = world.history().newest_tick().expect("history") as f64;
        // The rounds fire after the coming step, whose record is `newest + 1`.
        let aim = if aim_at_screen {
            world
                .history()
                .position_at(target, newest + 1.0 - (rewind + 1.0))
                .expect("the target's rewound position")
        } else {
            // Where it will be after the step: now plus one tick of flight.
            let e = world.get(target).expect("target");
            e.position() + e.velocity() * (1.0 / 60.0)
        };
        let e = world.get_mut(me).expect("shooter");
        let Body::Aircraft { state, .. } = &mut e.body else {
            panic!("shooter is an aircraft");
        };
        let want = (aim - state.position).normalize_or_zero();
        let have = state.forward();
        let axis = have.cross(want);
        let angle = axis.length().atan2(have.dot(want));
        if axis.length() > 1e-12 {
            let turn = Quat::from_axis_angle(axis * (1.0 / axis.length()), angle);
            state.orientation = turn.then(state.orientation);
        }
        state.body_rates = Vec3::ZERO;
        f.run(1);
    }
    f.clients[0].buttons = 0;
    let after = f.h.server.combat().totals;
    let mean_rewind = rewinds.iter().sum::<f64>() / rewinds.len() as f64;
    Some((
        after.rounds_fired - before.rounds_fired,
        after.rounds_hit - before.rounds_hit,
        mean_rewind,
    ))
}

#[test]
fn rounds_aimed_where_the_screen_showed_the_target_hit_it() {
    let Some((fired, hit, rewind)) = burst(true) else {
        return;
    };
    eprintln!("aimed at the screen's target: {hit}/{fired} hit, rewind {rewind:.1} ticks");
    assert!(rewind > 6.0, "a 200 ms round trip rewinds: {rewind}");
    assert!(fired >= 10, "the gun fired: {fired}");
    assert!(hit * 10 >= fired * 8, "{hit} of {fired} hit");
    assert_eq!(hit, 13, "the burst killed it");
    let Some((fired, hit, _)) = burst(false) else {
        return;
    };
    eprintln!("aimed at the target's true position: {hit}/{fired} hit");
    // The target flew `rewind` ticks × 3.3 m past where the server tests it: a miss.
    assert!(fired >= 10 && hit * 10 <= fired, "{hit} of {fired} hit");
}
