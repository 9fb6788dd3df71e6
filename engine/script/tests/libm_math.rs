//! `math`'s transcendentals come from Rust's `libm`, not the platform C library: each returns
//! the same bits as the libm function (so a script's arithmetic repeats on every platform), and
//! the Lua 5.4 forms (`atan(y, x)`, `log(x, base)`, integer `fmod`) keep their meaning.

mod common;

use common::{MockHost, own_aircraft};
use fl_script::{CallOutcome, Limits, ScriptInstance, ScriptSources};

/// Runs `body` (which returns a list of numbers) and gives them back via `print`.
fn eval(body: &str) -> Vec<String> {
    let src = format!(
        "function compute_control()
           local r = {{ {body} }}
           for i = 1, #r do print(string.format('%a', r[i])) end
           return {{}}
         end"
    );
    let sources = ScriptSources::from_map([("m", src)]).expect("sources");
    let mut inst = ScriptInstance::load(&sources, "m", 1, Limits::default()).expect("loads");
    let mut host = MockHost::default();
    match inst.compute_control(&mut host, &own_aircraft(), 1, 1.0 / 60.0) {
        CallOutcome::Controls(_) => {}
        CallOutcome::Disabled { reason, .. } => panic!("{reason}"),
    }
    host.events
        .into_iter()
        .filter_map(|e| match e {
            fl_script::ScriptEvent::Print(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// `%a` of a float as Lua prints it (hex float), via the script itself for the reference value.
fn lua_hex(values: &[f64]) -> Vec<String> {
    // Lua formats the reference bits too, so both sides use one formatter.
    let body = values
        .iter()
        .map(|v| {
            format!(
                "(string.unpack('<d', string.pack('<i8', {})))",
                v.to_bits() as i64
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    eval(&body)
}

#[test]
fn transcendentals_are_libm_bit_for_bit() {
    let x = 0.7318f64;
    let got = eval(
        "math.sin(0.7318), math.cos(0.7318), math.tan(0.7318), math.asin(0.7318), \
         math.acos(0.7318), math.atan(0.7318), math.atan(0.7318, -2.5), math.exp(0.7318), \
         math.log(0.7318), math.log(0.7318, 2), math.log(0.7318, 10), math.log(0.7318, 3), \
         math.sqrt(0.7318), math.pow(0.7318, 3.3), math.fmod(7.25, 0.7318)",
    );
    let want = lua_hex(&[
        libm::sin(x),
        libm::cos(x),
        libm::tan(x),
        libm::asin(x),
        libm::acos(x),
        libm::atan2(x, 1.0),
        libm::atan2(x, -2.5),
        libm::exp(x),
        libm::log(x),
        libm::log2(x),
        libm::log10(x),
        libm::log(x) / libm::log(3.0),
        libm::sqrt(x),
        libm::pow(x, 3.3),
        libm::fmod(7.25, x),
    ]);
    assert_eq!(got.len(), 15, "{got:?}");
    assert_eq!(got, want);
}

#[test]
fn integer_fmod_and_the_rest_of_math_keep_lua_semantics() {
    let got = eval(
        "math.fmod(7, 3) == 1 and math.type(math.fmod(7, 3)) == 'integer' and 1 or 0, \
         math.floor(2.5), math.max(1, 4), math.sqrt(4) == 2.0 and 1 or 0, \
         select(2, pcall(math.fmod, 1, 0)) and 1 or 0",
    );
    assert_eq!(got, lua_hex(&[1.0, 2.0, 4.0, 1.0, 1.0]));
}

/// Inputs where glibc's `sin`, `cos`, `exp` and `log` (what std's `f64` methods and the vendored
/// Lua's C `math` call on Linux) round the last bit differently from `libm`: the script must
/// give libm's bits, so this test tells the two apart on glibc machines.
#[test]
fn where_the_platform_libm_differs_the_script_follows_rust_libm() {
    type Case = (&'static str, f64, fn(f64) -> f64);
    let cases: [Case; 4] = [
        ("sin", 0.100118512, libm::sin),
        ("cos", 0.10111105000000001, libm::cos),
        ("exp", 0.10003703500000001, libm::exp),
        ("log", 0.1000111105, libm::log),
    ];
    for (name, x, f) in cases {
        let arg = format!(
            "(string.unpack('<d', string.pack('<i8', {})))",
            x.to_bits() as i64
        );
        let got = eval(&format!("math.{name}({arg})"));
        assert_eq!(got, lua_hex(&[f(x)]), "math.{name}({x:?})");
    }
}
