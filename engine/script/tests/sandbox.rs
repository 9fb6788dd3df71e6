//! Escape attempts against the sandbox, each contained: the script is disabled with a message
//! naming it (and the line where one exists), or the forbidden thing is simply not there; the
//! host keeps running either way.

mod common;

use common::{MockHost, own_aircraft};
use fl_script::{CallOutcome, Limits, ScriptControls, ScriptError, ScriptInstance, ScriptSources};

fn load_with(name: &str, src: &str, limits: Limits) -> Result<ScriptInstance, ScriptError> {
    let sources = ScriptSources::from_map([(name, src)]).expect("test sources are valid");
    ScriptInstance::load(&sources, name, 42, limits)
}

fn load(name: &str, src: &str) -> ScriptInstance {
    match load_with(name, src, Limits::default()) {
        Ok(i) => i,
        Err(e) => panic!("`{name}` should load: {e}"),
    }
}

fn call(inst: &mut ScriptInstance) -> CallOutcome {
    inst.compute_control(&mut MockHost::busy(), &own_aircraft(), 1, 1.0 / 60.0)
}

/// The script runs and returns aileron = 1 (its way of saying every assertion held).
#[track_caller]
fn assert_ok(inst: &mut ScriptInstance) {
    match call(inst) {
        CallOutcome::Controls(c) => assert_eq!(c.aileron, 1.0, "script signalled failure"),
        CallOutcome::Disabled { reason, .. } => panic!("should run: {reason}"),
    }
}

/// The call disables the script with a reason containing every `needle`.
#[track_caller]
fn assert_disabled(inst: &mut ScriptInstance, needles: &[&str]) -> String {
    match call(inst) {
        CallOutcome::Disabled { reason, just_now } => {
            assert!(just_now);
            for n in needles {
                assert!(reason.contains(n), "reason `{reason}` lacks `{n}`");
            }
            // Disabled for good, and said so without re-running anything.
            match call(inst) {
                CallOutcome::Disabled {
                    just_now,
                    reason: again,
                } => {
                    assert!(!just_now);
                    assert_eq!(again, reason);
                }
                other => panic!("a disabled script ran again: {other:?}"),
            }
            reason
        }
        CallOutcome::Controls(c) => panic!("should be disabled, returned {c:?}"),
    }
}

#[test]
fn forbidden_libraries_are_absent() {
    let mut inst = load(
        "absent",
        r#"
        function compute_control()
          local ok = io == nil and package == nil and debug == nil and dofile == nil
            and loadfile == nil and string.dump == nil and os.execute == nil
            and os.getenv == nil and os.time == nil and os.exit == nil and os.remove == nil
            and type(os.clock) == "function" and utf8 ~= nil and coroutine ~= nil
          return { aileron = ok and 1 or 0 }
        end"#,
    );
    assert_ok(&mut inst);
}

#[test]
fn each_forbidden_call_disables_the_script_naming_its_line() {
    for (what, body) in [
        ("io", "io.open('/etc/passwd')"),
        ("os.execute", "os.execute('true')"),
        ("package", "package.loadlib('x', 'y')"),
        ("debug", "debug.sethook()"),
        ("dofile", "dofile('/etc/passwd')"),
        ("loadfile", "loadfile('/etc/passwd')"),
        ("string.dump", "string.dump(print)"),
    ] {
        let src = format!("function compute_control()\n  {body}\nend");
        let mut inst = load("forbidden", &src);
        let reason = assert_disabled(&mut inst, &["forbidden", "ai/forbidden.lua:2"]);
        assert!(reason.contains("nil"), "{what}: {reason}");
    }
}

#[test]
fn require_reaches_only_the_ai_folder_by_name() {
    let sources = ScriptSources::from_map([
        ("lib", "return { v = 1 }"),
        (
            "main",
            r#"
            local lib = require('lib')
            local again = require('lib')
            function compute_control()
              local ok = lib.v == 1 and lib == again
              for _, bad in ipairs({ '../lib', 'lib.lua', '/etc/passwd', 'os', 'io', 'a/b', '', 'nope' }) do
                local fine, err = pcall(require, bad)
                -- Errors raised in Rust reach Lua as error objects; tostring gives the message.
                ok = ok and not fine and tostring(err):find('require') ~= nil
              end
              return { aileron = ok and 1 or 0 }
            end"#,
        ),
    ])
    .expect("valid");
    let mut inst = ScriptInstance::load(&sources, "main", 1, Limits::default()).expect("loads");
    assert_ok(&mut inst);
    assert!(matches!(
        ScriptInstance::load(&sources, "../main", 1, Limits::default()),
        Err(ScriptError::BadName(_))
    ));
    assert!(matches!(
        ScriptInstance::load(&sources, "trainer", 1, Limits::default()),
        Err(ScriptError::Missing(_))
    ));
    let cyc =
        ScriptSources::from_map([("a", "require('b')"), ("b", "require('a')")]).expect("valid");
    let err =
        ScriptInstance::load(&cyc, "a", 1, Limits::default()).expect_err("a cycle is refused");
    assert!(err.to_string().contains("cycle"), "{err}");
}

#[test]
fn string_metatable_cannot_be_reached_or_tampered() {
    let mut inst = load(
        "strmeta",
        r#"
        function compute_control()
          local ok = getmetatable("") == false and ("abc"):upper() == "ABC"
          local fine = pcall(function() getmetatable("").__index = function() return 1 end end)
          ok = ok and not fine
          fine = pcall(setmetatable, "x", {})
          ok = ok and not fine
          -- Changing this state's own string library touches no other entity.
          string.upper = nil
          return { aileron = ok and 1 or 0 }
        end"#,
    );
    assert_ok(&mut inst);
    let mut tamper = load(
        "tamper",
        "function compute_control()\n getmetatable('').__index = {}\nend",
    );
    assert_disabled(&mut tamper, &["ai/tamper.lua:2"]);
}

#[test]
fn bytecode_is_refused_by_load_and_by_the_loader() {
    let mut inst = load(
        "bytecode",
        r#"
        function compute_control()
          local f, err = load("\27LuaT\0\25\147\r\n\26\n\4\8\8xV\0\0\0\0\0\0\0\0\0\0\0(w@\1")
          local g = load("return 2 + 3")
          local h = load(function() return nil end)
          return { aileron = (f == nil and err:find("binary") and g() == 5) and 1 or 0 }
        end"#,
    );
    // `load` with a reader function is refused with an error, so test it apart.
    assert_disabled(&mut inst, &["only source strings"]);
    let mut ok = load(
        "bytecode2",
        r#"
        function compute_control()
          local f, err = load("\27LuaT\0\25\147\r\n\26\n\4\8\8xV\0\0\0")
          local g = load("return 2 + 3", "chunk", "b")
          return { aileron = (f == nil and err:find("binary") and g() == 5) and 1 or 0 }
        end"#,
    );
    assert_ok(&mut ok);
    assert!(matches!(
        ScriptSources::from_map([("bin", "\x1bLuaT\0")]),
        Err(ScriptError::NotText(_))
    ));
}

#[test]
fn infinite_loops_run_out_of_budget_with_the_line() {
    let mut inst = load(
        "spin",
        "function compute_control()\n  while true do end\nend",
    );
    assert_disabled(&mut inst, &["spin", "instruction budget", "ai/spin.lua:2"]);
    // At load time too.
    let err = load_with(
        "spin_top",
        "local x = 0\nwhile true do x = x + 1 end",
        Limits::default(),
    )
    .expect_err("an endless top level is refused");
    assert!(err.to_string().contains("instruction budget"), "{err}");
}

#[test]
fn pcall_cannot_swallow_the_budget() {
    for body in [
        "while true do pcall(function() while true do end end) end",
        "while true do xpcall(function() while true do end end, function(e) return e end) end",
        "for i = 1, 1e9 do local ok = pcall(error, 'x') end",
    ] {
        let src = format!("function compute_control()\n  {body}\nend");
        let mut inst = load("swallow", &src);
        assert_disabled(&mut inst, &["instruction budget"]);
    }
}

#[test]
fn coroutines_do_not_dodge_the_hook() {
    for body in [
        "local co = coroutine.create(function() while true do end end) coroutine.resume(co)",
        "coroutine.wrap(function() while true do end end)()",
        "while true do local co = coroutine.create(function() while true do end end) coroutine.resume(co) end",
        "local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end",
    ] {
        let src = format!("function compute_control()\n  {body}\nend");
        let mut inst = load("co", &src);
        assert_disabled(&mut inst, &["instruction budget"]);
    }
}

#[test]
fn memory_bombs_hit_the_limit() {
    let limits = Limits {
        memory_bytes: 2 * 1024 * 1024,
        instructions_per_call: 50_000_000,
        ..Limits::default()
    };
    for body in [
        "local t = {} for i = 1, 1e8 do t[i] = i end",
        "local s = string.rep('x', 1 << 28)",
        "local s = 'x' while true do s = s .. s end",
        "local t = {} while true do pcall(function() for i = 1, 1e8 do t[#t + 1] = {} end end) end",
        "local t = {} for i = 1, 1e7 do t[tostring(i) .. 'key'] = i end",
    ] {
        let src = format!("function compute_control()\n  {body}\nend");
        let mut inst = load_with("bomb", &src, limits).expect("loads");
        let reason = assert_disabled(&mut inst, &["bomb"]);
        assert!(
            reason.contains("memory") || reason.contains("not enough"),
            "{body}: {reason}"
        );
    }
}

#[test]
fn deep_recursion_is_contained() {
    for body in [
        "local function f(n) return f(n + 1) + 1 end f(1)",
        "local function f() return ('x'):gsub('x', f) end f()",
        "local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k] end local _ = t.x",
        "local function f() return tostring(setmetatable({}, { __tostring = f })) end f()",
    ] {
        let src = format!("function compute_control()\n  {body}\nend");
        let mut inst = load("deep", &src);
        assert_disabled(&mut inst, &["deep"]);
    }
}

#[test]
fn errors_inside_callbacks_disable_with_the_line() {
    for (body, line) in [
        (
            "table.sort({3, 2, 1}, function(a, b) error('cmp') end)",
            "ai/cb.lua:2",
        ),
        (
            "world.on_trigger(function() error('pred') end, function() end)",
            "ai/cb.lua:2",
        ),
        ("nearby_entities('here', 0, 1)", "ai/cb.lua:2"),
        (
            "guidance.heading_error(nil, state.pos, state.pos)",
            "ai/cb.lua:2",
        ),
        ("world.set_music_state('disco')", "ai/cb.lua:2"),
        ("world.score_objective(999, 1)", "ai/cb.lua:2"),
        (
            "string.gsub('aaa', 'a', function() error('in gsub') end)",
            "ai/cb.lua:2",
        ),
    ] {
        let src = format!("function compute_control(state)\n  {body}\nend");
        let mut inst = load("cb", &src);
        assert_disabled(&mut inst, &["cb", line]);
    }
}

#[test]
fn finalizers_are_refused() {
    let mut inst = load(
        "gc",
        "function compute_control()\n  setmetatable({}, { __gc = function() while true do end end })\nend",
    );
    assert_disabled(&mut inst, &["__gc", "ai/gc.lua:2"]);
    let mut cg = load(
        "cg",
        "function compute_control()\n  collectgarbage('stop')\nend",
    );
    assert_disabled(&mut cg, &["not allowed"]);
}

#[test]
fn huge_and_hostile_return_tables_are_read_bounded() {
    let mut inst = load(
        "huge",
        r#"
        local big = {}
        for i = 1, 200000 do big[i] = i end
        big.aileron = 2.5; big.elevator = 0/0; big.rudder = -1/0; big.throttle = -3
        big.trigger = true; big.weapon_station = 999
        setmetatable(big, { __index = function() while true do end end })
        function compute_control() return big end"#,
    );
    match call(&mut inst) {
        CallOutcome::Controls(c) => assert_eq!(
            c,
            ScriptControls {
                aileron: 1.0,
                elevator: 0.0,
                rudder: 0.0,
                throttle: 0.0,
                trigger: true,
                weapon_station: None,
                ..ScriptControls::default()
            }
        ),
        other => panic!("{other:?}"),
    }
    let mut wrong = load(
        "wrong",
        "function compute_control() return { aileron = 'left' } end",
    );
    assert_disabled(&mut wrong, &["wrong", "aileron", "number"]);
    let mut scalar = load("scalar", "function compute_control() return 7 end");
    assert_disabled(&mut scalar, &["must return a table"]);
}

#[test]
fn say_print_and_world_events_are_bounded_and_ordered() {
    let mut inst = load(
        "talk",
        r#"
        function compute_control()
          say(string.rep("é", 200))
          print("a", 1, nil, true)
          world.score_objective(2, 1)
          world.set_music_state("success")
          world.mission_success()
          for i = 1, 1000 do print(i) end
          return {}
        end"#,
    );
    let mut host = MockHost::busy();
    let out = inst.compute_control(&mut host, &own_aircraft(), 0, 1.0 / 60.0);
    assert!(matches!(out, CallOutcome::Controls(_)), "{out:?}");
    use fl_script::{MusicState, ScriptEvent, WorldAction};
    assert_eq!(host.events.len(), Limits::default().events_per_call);
    match &host.events[0] {
        ScriptEvent::Say(s) => assert!(s.len() <= 160 && s.chars().all(|c| c == 'é')),
        other => panic!("{other:?}"),
    }
    assert_eq!(host.events[1], ScriptEvent::Print("a\t1\tnil\ttrue".into()));
    assert_eq!(
        host.events[2],
        ScriptEvent::World(WorldAction::ScoreObjective {
            faction: 2,
            points: 1
        })
    );
    assert_eq!(
        host.events[3],
        ScriptEvent::World(WorldAction::SetMusic(MusicState::MissionSuccess))
    );
    assert_eq!(MusicState::MissionSuccess.ordinal(), 3);
    assert_eq!(
        host.events[4],
        ScriptEvent::World(WorldAction::MissionSuccess)
    );
}

#[test]
fn triggers_and_timers_fire_once() {
    let mut inst = load(
        "trig",
        r#"
        local armed = false
        function compute_control(state, tick)
          if not armed then
            armed = true
            world.on_trigger(function() return tick >= 3 end, function() say("three") end)
            world.timer(0.1, function() say("timer") end)
          end
          return {}
        end"#,
    );
    let mut host = MockHost::busy();
    let own = own_aircraft();
    for tick in 0..20 {
        let _ = inst.compute_control(&mut host, &own, tick, 1.0 / 60.0);
        host.advance(1.0 / 60.0);
    }
    use fl_script::ScriptEvent;
    // The predicate reads the `tick` upvalue of the first call, so it never becomes true; the
    // timer reads mission time and fires exactly once.
    assert_eq!(host.events, vec![ScriptEvent::Say("timer".into())]);
}

#[test]
fn missing_compute_control_is_reported() {
    let mut inst = load("lib_only", "local M = {} return M");
    assert_disabled(&mut inst, &["compute_control"]);
}

/// The host is reachable only during a call: the top level sees no world, `compute_control`
/// and a pending trigger see the host's, and a later call sees the new host, not a stale one.
#[test]
fn the_host_is_reachable_only_inside_a_call() {
    let mut inst = load(
        "world_seen",
        r#"
        local at_load = #detected_contacts() + #nearby_entities(0, 0, 1e7)
          + (get_entity(7) == nil and 0 or 1)
        local in_trigger = -1
        world.on_trigger(function() in_trigger = #detected_contacts() return true end,
          function() end)
        function compute_control()
          local now = #detected_contacts()
          local ok = at_load == 0 and now == 3 and (in_trigger == -1 or in_trigger == 3)
          return { aileron = ok and 1 or 0, elevator = now / 10 }
        end"#,
    );
    assert_ok(&mut inst);
    assert_ok(&mut inst);
    // A host with no contacts: the script sees this call's host.
    match inst.compute_control(&mut MockHost::default(), &own_aircraft(), 3, 1.0 / 60.0) {
        CallOutcome::Controls(c) => assert_eq!(c.elevator, 0.0),
        other => panic!("{other:?}"),
    }
}

/// Each query call hands back fresh tables, even when the host was asked once for the call:
/// what a script changes or keeps from one list is not seen in the next, nor in the next tick.
#[test]
fn every_query_call_returns_fresh_tables() {
    let mut inst = load(
        "fresh",
        r#"
        local kept
        function compute_control()
          local a = detected_contacts()
          a[1].pos.x = 12345
          a[1].faction = "changed"
          a[2] = nil
          local b = detected_contacts()
          local ok = #b == 3 and b[1] ~= a[1] and b[1].pos ~= a[1].pos
            and b[1].pos.x ~= 12345 and b[1].faction == 2 and b[2] ~= nil
          local n1, n2 = nearby_entities(0, 0, 1e7), nearby_entities(0, 0, 1e7)
          ok = ok and n1 ~= n2 and (#n1 == 0 or n1[1].pos ~= n2[1].pos)
          local e1, e2 = get_entity(1), get_entity(1)
          ok = ok and e1 ~= nil and e1 ~= e2 and e1.quat ~= e2.quat
          if kept then ok = ok and kept.pos.x == 12345 and kept ~= b[1] end
          kept = a[1]
          return { aileron = ok and 1 or 0 }
        end"#,
    );
    assert_ok(&mut inst);
    assert_ok(&mut inst);
}

/// The host's lists reach a script whole, up to the bound, however long they are.
#[test]
fn long_contact_lists_arrive_whole() {
    let mut inst = load(
        "many",
        r#"
        function compute_control()
          local c = detected_contacts()
          local ok = #c == 43 and c[43].idx == 139 and c[4].state == "locked"
            and c[5].state == "detected" and c[43].reacted == true
          return { aileron = ok and 1 or 0 }
        end"#,
    );
    let mut host = MockHost::crowded(40);
    match inst.compute_control(&mut host, &own_aircraft(), 1, 1.0 / 60.0) {
        CallOutcome::Controls(c) => assert_eq!(c.aileron, 1.0, "script signalled failure"),
        CallOutcome::Disabled { reason, .. } => panic!("should run: {reason}"),
    }
}
