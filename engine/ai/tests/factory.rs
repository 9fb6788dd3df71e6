//! The behaviour grammar: every behaviour builds, positional and named arguments mean the same
//! thing (bit-identical controls), and every kind of bad input is a clear error, never a panic.

use fl_ai::*;
use fl_flight::math::Vec3;

fn world() -> GridWorld {
    // A point view given the air data of 200 m/s at 3 km, so the loops do not saturate.
    let mut me = EntityView::point(
        EntityId::new(0, 1),
        1,
        Vec3::new(0.0, 3000.0, 0.0),
        Vec3::new(0.0, 0.0, -200.0),
    );
    me.dynamic_pressure_pa = 18_000.0;
    me.alpha_rad = 0.03;
    me.pitch_trim = 0.05;
    me.spool = 0.6;
    let bandit = EntityView::point(
        EntityId::new(3, 7),
        2,
        Vec3::new(2000.0, 3300.0, -5000.0),
        Vec3::new(200.0, 0.0, 0.0),
    );
    let mut dead = EntityView::point(
        EntityId::new(4, 2),
        2,
        Vec3::new(0.0, 3000.0, -900.0),
        Vec3::ZERO,
    );
    dead.alive = false;
    GridWorld::from_entities(1000.0, [me, bandit, dead])
}

fn me(w: &GridWorld) -> EntityView {
    w.entity(0).expect("me")
}

fn ok(line: &str) -> Box<dyn Controller> {
    let w = world();
    build_from_line(
        line,
        &FactoryContext {
            world: Some(&w),
            ..FactoryContext::default()
        },
    )
    .unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn err(line: &str) -> FactoryError {
    let w = world();
    match build_from_line(
        line,
        &FactoryContext {
            world: Some(&w),
            ..FactoryContext::default()
        },
    ) {
        Ok(c) => panic!("{line} built {c:?}"),
        Err(e) => e,
    }
}

/// Samples a controller for 30 ticks against the fixed world and returns the controls' bits.
fn trace(mut c: Box<dyn Controller>) -> Vec<[u64; 4]> {
    let w = world();
    let me = me(&w);
    (0..30)
        .map(|t| {
            let k = c.sample(&me, &w, t);
            [
                k.pitch.to_bits(),
                k.roll.to_bits(),
                k.yaw.to_bits(),
                k.throttle.to_bits(),
            ]
        })
        .collect()
}

#[test]
fn every_behaviour_builds_and_names_itself() {
    let cases = [
        ("loiter", "loiter"),
        ("heading 90 5000 220", "heading"),
        ("waypoint 0 3000 -5000", "waypoint"),
        ("pursuit 3", "pursuit"),
        ("lead 3", "lead"),
        ("lag 3", "lag"),
        ("attack", "attack"),
        ("evade 3", "evade"),
        ("break 3", "break"),
        ("patrol_attack 3", "patrol_attack"),
        ("defend", "defend"),
        ("sam 15000", "sam"),
        ("aaa", "aaa"),
    ];
    assert_eq!(cases.len(), BEHAVIOURS.len());
    for (line, name) in cases {
        let c = ok(line);
        assert_eq!(c.behaviour(), name, "{line}");
        assert!(BEHAVIOURS.contains(&name));
    }
    assert_eq!(ok("patrol_attack 3").status().as_deref(), Some("patrol"));
    assert_eq!(ok("defend 3000").status().as_deref(), Some("patrol"));
}

#[test]
fn positional_and_named_arguments_are_the_same_controller() {
    let pairs = [
        (
            "loiter 100 -200 3500 4000 ccw 150",
            "loiter x=100 z=-200 alt=3500 radius=4000 dir=ccw speed=150",
        ),
        ("loiter 100 -200", "loiter z=-200 x=100"),
        ("lead 3 1.5", "lead target=3 nav_gain=1.5"),
        ("lead 3:7 1.5", "lead nav_gain=1.5 target=3"),
        ("lag 3 0.25", "lag lag_fraction=0.25 target=3"),
        ("break 3 0.8", "break roll_s=0.8 target=3"),
        ("evade 3 throttle=0.9", "evade target=3 throttle=0.9"),
        (
            "patrol_attack 3 7000 0.3",
            "patrol_attack target=3 engage_range=7000 retreat_hp=0.3",
        ),
        ("defend 4000", "defend threat_range=4000"),
        (
            "waypoint 0 3000 -5000 1000 3000 -9000 loop",
            "waypoint 0 3000 -5000 1000 3000 -9000 loop=yes",
        ),
    ];
    for (a, b) in pairs {
        assert_eq!(trace(ok(a)), trace(ok(b)), "{a} vs {b}");
    }
    // The arguments matter (so the comparisons above can fail).
    assert_ne!(trace(ok("lead 3 1.5")), trace(ok("lead 3 0")));
    assert_ne!(
        trace(ok("loiter 100 -200 3500 4000 ccw 150")),
        trace(ok("loiter 100 -200 3500 4000 cw 150"))
    );
    // Named-only entry point.
    let w = world();
    let ctx = FactoryContext {
        world: Some(&w),
        ..FactoryContext::default()
    };
    let named =
        build_named("lag", &[("target", "3"), ("lag_fraction", "0.25")], &ctx).expect("builds");
    assert_eq!(trace(named), trace(ok("lag 3 0.25")));
}

#[test]
fn targets_resolve_by_index_generation_or_threat() {
    // A bare index takes the generation that occupies the slot now.
    assert_eq!(trace(ok("pursuit 3")), trace(ok("pursuit 3:7")));
    // The nearest threat of `me` (faction 1) is the bandit in slot 3.
    assert_eq!(trace(ok("pursuit threat")), trace(ok("pursuit 3:7")));
    assert_eq!(trace(ok("pursuit threat:9000")), trace(ok("pursuit 3:7")));
    // A stale generation is a target that no longer exists: the pursuer holds its course.
    assert_ne!(trace(ok("pursuit 3:6")), trace(ok("pursuit 3:7")));
    // Without a world only explicit handles and threats work.
    let none = FactoryContext::default();
    assert!(build_from_line("pursuit 3:7", &none).is_ok());
    assert!(build_from_line("evade threat", &none).is_ok());
    let e = build_from_line("pursuit 3", &none).expect_err("needs a world");
    assert!(e.to_string().contains("index:generation"), "{e}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases: [(&str, &str); 24] = [
        ("", "no behaviour"),
        ("   ", "no behaviour"),
        ("barrel_roll 3", "unknown behaviour `barrel_roll`"),
        ("lua fighter", "unknown behaviour `lua`"),
        ("loiter colour=red", "unknown argument `colour`"),
        ("loiter 1 2 radius=5 radius=6", "given more than once"),
        (
            "loiter 1 2 3000 4000 cw 150 extra",
            "unexpected positional argument `extra`",
        ),
        ("loiter x=5", "missing required argument `z`"),
        (
            "loiter 1 2 3000 abc",
            "`radius` = `abc`: expected a finite number",
        ),
        ("loiter 1 2 3000 NaN", "`radius` = `NaN`"),
        ("loiter 1 2 3000 inf", "`radius` = `inf`"),
        ("loiter 1 2 3000 50", "`radius` = 50: must be between 100"),
        ("loiter 1 2 3000 4000 sideways", "expected cw or ccw"),
        ("loiter max_bank=89", "`max_bank` = 89"),
        ("waypoint", "missing required argument"),
        ("waypoint 1 2", "x y z triples"),
        ("waypoint 1 2 3 capture=1", "`capture` = 1"),
        ("waypoint 1 2 3 loop loop=no", "given more than once"),
        ("pursuit", "missing required argument `target`"),
        ("pursuit 99", "no entity has that index"),
        ("pursuit 4", "that entity is dead"),
        ("pursuit me", "expected an entity index"),
        ("lead 3 nav_gain=9", "`nav_gain` = 9"),
        ("evade 3 speed=200 throttle=1", "either speed or throttle"),
    ];
    for (line, needle) in cases {
        let e = err(line);
        let text = e.to_string();
        assert!(text.contains(needle), "{line:?}: {text:?} lacks {needle:?}");
    }
    for (line, needle) in [
        ("lag 3 1.5", "`lag_fraction` = 1.5"),
        ("break 3 -1", "`roll_s` = -1"),
        ("break 3 ab=maybe", "expected true/false"),
        ("patrol_attack 3 0", "must be positive"),
        ("patrol_attack 3 5000 2", "between 0 and 1"),
        ("defend -5", "must be positive"),
        ("pursuit threat:0", "must be positive"),
        ("pursuit 3:x", "generation must be an unsigned integer"),
        ("pursuit 3 g=0.01", "`g_fraction` = 0.01"),
    ] {
        let text = err(line).to_string();
        assert!(text.contains(needle), "{line:?}: {text:?} lacks {needle:?}");
    }
}

#[test]
fn the_packs_ground_site_lines_build_and_bad_ranges_are_refused() {
    // The pack's missions: `ai: "sam 15000"`, `ai: "aaa"`; the documented longer forms.
    for (line, name) in [
        ("sam 15000", "sam"),
        ("sam 15000 60 8", "sam"),
        ("sam range=15000 cone_half_deg=180 interval=3", "sam"),
        ("aaa", "aaa"),
        ("aaa 2000", "aaa"),
        ("aaa range=1500 cone_half_deg=90", "aaa"),
    ] {
        let c = ok(line);
        assert_eq!(c.behaviour(), name, "{line}");
        assert_eq!(c.status().as_deref(), Some("search"), "{line}");
    }
    for (line, needle) in [
        ("sam", "missing required argument `range`"),
        ("sam 0", "`range` = 0: must be between 500"),
        ("sam -15000", "`range` = -15000"),
        ("sam 1e9", "`range` = 1000000000"),
        ("sam NaN", "`range` = `NaN`: expected a finite number"),
        ("sam far", "`range` = `far`"),
        ("sam 15000 0", "`cone_half_deg` = 0"),
        ("sam 15000 181", "`cone_half_deg` = 181"),
        ("sam 15000 90 0", "`interval` = 0"),
        (
            "sam 15000 90 5 extra",
            "unexpected positional argument `extra`",
        ),
        ("sam 15000 colour=red", "unknown argument `colour`"),
        ("aaa 10", "`range` = 10: must be between 50"),
        ("aaa 1e6", "`range` = 1000000"),
        ("aaa inf", "`range` = `inf`"),
        ("aaa 2000 -5", "`cone_half_deg` = -5"),
    ] {
        let text = err(line).to_string();
        assert!(text.contains(needle), "{line:?}: {text:?} lacks {needle:?}");
    }
    // A site never flies: its controls are idle whatever the world.
    for line in ["sam 15000", "aaa"] {
        assert!(
            trace(ok(line)).iter().all(|k| *k == trace(ok(line))[0]),
            "{line}"
        );
        let w = world();
        let k = ok(line).sample(&me(&w), &w, 0);
        assert_eq!(k, fl_flight::Controls::default(), "{line}");
    }
}

/// The error and its causes joined as anyhow's `{:#}` prints them.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

#[test]
fn a_parameter_error_is_said_once_in_the_chain() {
    for (line, detail) in [
        ("lead 3 nav_gain=9", "`nav_gain` = 9"),
        ("lag 3 1.5", "`lag_fraction` = 1.5"),
    ] {
        let e = err(line);
        assert!(matches!(e, FactoryError::Param { .. }), "{line}: {e:?}");
        let text = chain(&e);
        assert_eq!(text.matches(detail).count(), 1, "{line}: {text}");
    }
}

#[test]
fn garbage_never_panics() {
    let w = world();
    let ctx = FactoryContext {
        world: Some(&w),
        ..FactoryContext::default()
    };
    let words = [
        "loiter",
        "waypoint",
        "pursuit",
        "lead",
        "lag",
        "evade",
        "break",
        "patrol_attack",
        "defend",
        "sam",
        "aaa",
        "3",
        "3:7",
        "-1",
        "1e308",
        "-1e308",
        "NaN",
        "threat",
        "threat:",
        "=",
        "==",
        "x=",
        "=5",
        "loop",
        "cw",
        "0",
        "4294967296",
        "1.5",
        "speed=",
        "target=threat",
        "radius=1e9",
        "ab=1",
        "\u{0}",
        "ÿ",
    ];
    let mut seed = 0x1234_5678_u64;
    for _ in 0..5000 {
        let mut line = String::new();
        for _ in 0..(seed % 9) {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            line.push_str(words[(seed >> 33) as usize % words.len()]);
            line.push(' ');
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if let Ok(mut c) = build_from_line(&line, &ctx) {
            // Whatever builds must also fly without panicking or producing non-finite controls.
            let k = c.sample(&me(&w), &w, 0);
            assert!(
                k.pitch.is_finite()
                    && k.roll.is_finite()
                    && k.yaw.is_finite()
                    && k.throttle.is_finite()
            );
        }
    }
}
