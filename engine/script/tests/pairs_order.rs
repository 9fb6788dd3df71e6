//! `pairs` over string keys visits them in the same order in every process. Stock Lua 5.4
//! seeds its string hash from the clock and from addresses (ASLR), so the order changes from
//! run to run; the workspace's `.cargo/config.toml` builds the vendored Lua with a fixed seed.
//! This test spawns its own binary twice (two fresh processes, two address layouts) and
//! compares the orders they print with its own.

use fl_script::{CallOutcome, Limits, ScriptEvent, ScriptHost, ScriptInstance, ScriptSources};
use std::process::Command;

const CHILD_VAR: &str = "FL_SCRIPT_PAIRS_CHILD";
const TAG: &str = "FL-PAIRS-ORDER:";

#[derive(Default)]
struct Recorder(Vec<String>);

impl ScriptHost for Recorder {
    fn detected_contacts(&self) -> Vec<fl_script::Contact> {
        Vec::new()
    }
    fn nearby_entities(&self, _: f64, _: f64, _: f64) -> Vec<fl_script::NearbyEntity> {
        Vec::new()
    }
    fn get_entity(&self, _: u32) -> Option<fl_script::EntityInfo> {
        None
    }
    fn elapsed_s(&self) -> f64 {
        0.0
    }
    fn event(&mut self, e: ScriptEvent) {
        if let ScriptEvent::Print(p) = e {
            self.0.push(p);
        }
    }
}

/// The order `pairs` visits 48 string keys (short and long strings both) in a fresh state.
fn order() -> String {
    let src = r#"
        function compute_control()
          local t = {}
          for i = 1, 40 do t["waypoint_" .. i] = i end
          for i = 1, 8 do t[string.rep("long key number ", 4) .. i] = -i end
          local seen = {}
          for k, v in pairs(t) do seen[#seen + 1] = tostring(v) end
          print(table.concat(seen, ","))
          return {}
        end"#;
    let sources = ScriptSources::from_map([("pairs", src)]).expect("valid");
    let mut inst = ScriptInstance::load(&sources, "pairs", 1, Limits::default()).expect("loads");
    let mut host = Recorder::default();
    let out = inst.compute_control(&mut host, &Default::default(), 0, 1.0 / 60.0);
    assert!(matches!(out, CallOutcome::Controls(_)), "{out:?}");
    host.0.concat()
}

#[test]
fn pairs_order_is_the_same_in_two_processes() {
    if std::env::var_os(CHILD_VAR).is_some() {
        // libtest prints "test … " before the output on the same line; the tag marks the start.
        println!("{TAG}{}", order());
        return;
    }
    let me = std::env::current_exe().expect("the test binary knows its path");
    let mut orders = Vec::new();
    for _ in 0..2 {
        let out = Command::new(&me)
            .args([
                "--exact",
                "pairs_order_is_the_same_in_two_processes",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_VAR, "1")
            .output()
            .expect("the test binary runs");
        assert!(
            out.status.success(),
            "child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.find(TAG).map(|at| &l[at + TAG.len()..]))
            .unwrap_or_else(|| panic!("child printed no order: {stdout}"))
            .to_string();
        orders.push(line);
    }
    let here = order();
    // Sanity: the order is not trivially sorted (else the test could not tell seeds apart).
    let sorted: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
    assert!(!here.starts_with(&sorted.join(",")), "{here}");
    assert_eq!(
        orders[0], orders[1],
        "two processes iterated pairs differently"
    );
    assert_eq!(
        orders[0], here,
        "a child and this process iterated pairs differently"
    );
}
