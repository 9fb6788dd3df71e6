//! One scripted entity's Lua state: the sandbox it is built from, its limits, and the calls the
//! host makes into it (`compute_control` each tick, then pending `world.on_trigger` checks).
//!
//! Owns: building the restricted state, the instruction budget (a global count hook, which
//! coroutines inherit) and the memory limit, `require`, the host bridge, reading the returned
//! controls, and disabling a script that errors or runs out of a limit. Must not: panic, block,
//! or let a script keep running after it broke a limit — the host re-checks the budget flag
//! after every call, because a script's own `pcall` can catch the hook's error.

use crate::ScriptError;
use crate::guidance::{self, AltHold, EARTH_RADIUS_M};
use crate::sources::{MAX_SCRIPT_BYTES, ScriptSources, valid_script_name};
use crate::types::{
    AircraftView, MusicState, ScriptControls, ScriptEvent, ScriptHost, WorldAction,
};
use fl_flight::math::{Quat, Vec3};
use mlua::chunk::ChunkMode;
use mlua::state::{GcGenParams, GcMode};
use mlua::{Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Instructions between two budget checks of the count hook.
const HOOK_EVERY: u32 = 1000;
/// Registry key of the table of modules `require` has loaded.
const LOADED_KEY: &str = "fl.script.loaded";
/// The most contacts handed to a script per `detected_contacts()` call.
pub const MAX_CONTACTS: usize = 256;
/// The most entities handed to a script per `nearby_entities()` call.
pub const MAX_NEARBY: usize = 1024;
/// The longest `say` line, bytes (the wire's radio text field).
pub const MAX_SAY_BYTES: usize = 160;
/// The longest `print` line, bytes.
pub const MAX_PRINT_BYTES: usize = 512;
/// The deepest chain of `require` calls.
const MAX_REQUIRE_DEPTH: usize = 16;

/// The limits one script runs under.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Memory the state may hold, bytes.
    pub memory_bytes: usize,
    /// Lua VM instructions one call (`compute_control` plus pending triggers) may run.
    pub instructions_per_call: u64,
    /// Instructions the script's top level (including everything it `require`s) may run.
    pub instructions_at_load: u64,
    /// Events (`world.*`, `say`, `print`) kept per call; later ones are dropped.
    pub events_per_call: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: 8 * 1024 * 1024,
            instructions_per_call: 1_000_000,
            instructions_at_load: 10_000_000,
            events_per_call: 64,
        }
    }
}

/// What a call into a script gave.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The script ran; these are its controls (neutral for a script that returned nothing).
    Controls(ScriptControls),
    /// The script is disabled; the host flies the entity with a builtin controller.
    /// `just_now` is true on the call that disabled it (log `reason` then).
    Disabled {
        /// Why, naming the script and, where known, the line.
        reason: String,
        /// This call disabled it.
        just_now: bool,
    },
}

/// The instruction budget shared by the hook and the checks.
///
/// Atomics rather than `Cell`s because mlua's `send` feature wants every callback `Send`, so
/// what they share must be `Sync`. Only one thread ever touches one state at a time (mlua holds
/// the state's lock across a call), so `Relaxed` is enough: the lock orders the accesses.
#[derive(Debug, Default)]
struct Budget {
    used: AtomicU64,
    limit: AtomicU64,
    exceeded: AtomicBool,
    out_of_memory: AtomicBool,
    at: Mutex<String>,
}

impl Budget {
    fn reset(&self, limit: u64) {
        self.used.store(0, Ordering::Relaxed);
        self.limit.store(limit, Ordering::Relaxed);
        self.exceeded.store(false, Ordering::Relaxed);
        self.out_of_memory.store(false, Ordering::Relaxed);
        self.at().clear();
    }

    fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    fn out_of_memory(&self) -> bool {
        self.out_of_memory.load(Ordering::Relaxed)
    }

    /// Where the budget ran out. A poisoned lock still holds a valid `String`: take it.
    fn at(&self) -> MutexGuard<'_, String> {
        self.at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Per-call data the script-facing functions read and fill (Lua app data).
#[derive(Debug, Default)]
struct CallCtx {
    elapsed_s: f64,
    events: Vec<ScriptEvent>,
    max_events: usize,
    dropped: usize,
}

fn push_event(lua: &Lua, ev: ScriptEvent) {
    if let Some(mut ctx) = lua.app_data_mut::<CallCtx>() {
        if ctx.events.len() < ctx.max_events {
            ctx.events.push(ev);
        } else {
            ctx.dropped += 1;
        }
    }
}

fn elapsed(lua: &Lua) -> f64 {
    lua.app_data_ref::<CallCtx>().map_or(0.0, |c| c.elapsed_s)
}

/// `text` cut to at most `max` bytes on a character boundary.
fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut cut = max;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The sandbox's Lua side: it replaces or removes what a script must not reach, wraps `pcall`,
/// `xpcall` and `coroutine.resume/close` so an exhausted budget or memory cannot be swallowed,
/// and builds `print`, `say`, `os.clock` and the `world` library over the Rust functions it is
/// given, and the `guidance` and host-query wrappers. It returns the per-tick step function
/// (build `state`, call the controller, run pending `world.on_trigger` checks, unpack the result)
/// and the setter that hands it the controller once, after the script's top level ran (so a
/// call passes no function reference across the C API).
const PRELUDE: &str = r#"
local check, host_print, host_say, clock, world_rs, seed_hi, seed_lo, g, lm = ...
local type, error, tostring, select, rawget = type, error, tostring, select, rawget
local raw_getmt = getmetatable
local concat, remove, min = table.concat, table.remove, math.min
local raw_load, raw_pcall, raw_xpcall, raw_setmt, raw_cg = load, pcall, xpcall, setmetatable, collectgarbage
local co_resume, co_close = coroutine.resume, coroutine.close

dofile, loadfile, require = nil, nil, nil

-- The transcendentals from Rust's libm, so a script gives the same bits on every platform (the
-- C library's differ in the last place). `fmod` of two integers keeps Lua's integer semantics.
do
  local raw_fmod, mtype = math.fmod, math.type
  math.sin, math.cos, math.tan = lm.sin, lm.cos, lm.tan
  math.asin, math.acos, math.atan = lm.asin, lm.acos, lm.atan
  math.exp, math.log, math.sqrt = lm.exp, lm.log, lm.sqrt
  math.pow = lm.pow
  math.fmod = function(a, b)
    if mtype(a) == "integer" and mtype(b) == "integer" then return raw_fmod(a, b) end
    return lm.fmod(a, b)
  end
end
string.dump = nil
-- Nobody may reach or change the strings' shared metatable (its __index is the string library).
getmetatable("").__metatable = false

load = function(...)
  local chunk, name, _, env = ...
  if type(chunk) ~= "string" then error("load: only source strings are accepted in the sandbox", 2) end
  if #chunk > MAX_CHUNK then error("load: chunk too large", 2) end
  if select('#', ...) >= 4 or env ~= nil then return raw_load(chunk, name, "t", env) end
  return raw_load(chunk, name, "t")
end
pcall = function(...) return check(raw_pcall(...)) end
xpcall = function(...) return check(raw_xpcall(...)) end
coroutine.resume = function(...) return check(co_resume(...)) end
coroutine.close = function(...) return check(co_close(...)) end
-- A finalizer runs with hooks off, so it could loop forever out of the budget's reach.
setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: __gc finalizers are not allowed in the sandbox", 2)
  end
  return raw_setmt(t, mt)
end
collectgarbage = function(opt)
  opt = opt or "collect"
  if opt == "collect" or opt == "count" or opt == "step" or opt == "isrunning" then return raw_cg(opt) end
  error("collectgarbage: option '" .. tostring(opt) .. "' is not allowed in the sandbox", 2)
end

local raw_seed = math.randomseed
raw_seed(seed_hi, seed_lo)
math.randomseed = function(...)
  if select('#', ...) == 0 then return raw_seed(seed_hi, seed_lo) end
  return raw_seed(...)
end

print = function(...)
  local n, t = min(select('#', ...), 32), {}
  for i = 1, n do t[i] = tostring((select(i, ...))) end
  host_print(concat(t, "\t"))
end
say = function(text) host_say(tostring(text)) end
os = { clock = clock }

local triggers, n = {}, 0
local function on_trigger(pred, cb)
  if type(pred) ~= "function" or type(cb) ~= "function" then
    error("world.on_trigger(predicate, callback) takes two functions", 2)
  end
  if n >= 64 then error("world.on_trigger: at most 64 pending triggers", 2) end
  n = n + 1
  triggers[n] = { pred, cb }
end
world = {
  mission_success = world_rs.mission_success,
  mission_failure = world_rs.mission_failure,
  score_objective = world_rs.score_objective,
  set_music_state = world_rs.set_music_state,
  get_elapsed_time = clock,
  on_trigger = on_trigger,
  timer = function(seconds, cb)
    if type(seconds) ~= "number" or type(cb) ~= "function" then
      error("world.timer(seconds, callback) takes a number and a function", 2)
    end
    local at = clock() + seconds
    on_trigger(function() return clock() >= at end, cb)
  end,
}

-- Tables are built here, in the VM, rather than field by field from Rust: pushing each key
-- string through the C API costs more than the whole of a small script.
local function V(p, what)
  if type(p) ~= "table" then error(what .. ": expected a {x, y, z} table, got " .. type(p), 3) end
  return p.x, p.y, p.z
end
local function Q(q, what)
  if type(q) ~= "table" then error(what .. ": expected a {x, y, z, w} table, got " .. type(q), 3) end
  return q.x, q.y, q.z, q.w
end
local function N(v, what, i)
  if type(v) ~= "number" then error(what .. ": argument " .. i .. " must be a number, got " .. type(v), 3) end
  return v
end
local function O(v, what, i)
  if v ~= nil and type(v) ~= "number" then error(what .. ": argument " .. i .. " must be a number or nil, got " .. type(v), 3) end
  return v
end
guidance = {
  altitude = function(p, r) local x, y, z = V(p, "guidance.altitude") return g.altitude(x, y, z, O(r, "guidance.altitude", 2)) end,
  geodetic = function(p, r)
    local x, y, z = V(p, "guidance.geodetic")
    local lat, lon, alt = g.geodetic(x, y, z, O(r, "guidance.geodetic", 2))
    return { lat = lat, lon = lon, alt = alt }
  end,
  body_forward = function(q)
    local x, y, z = g.body_forward(Q(q, "guidance.body_forward"))
    return { x = x, y = y, z = z }
  end,
  heading_error = function(q, p, t, r)
    local W = "guidance.heading_error"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    local tx, ty, tz = V(t, W)
    return g.heading_error(qx, qy, qz, qw, px, py, pz, tx, ty, tz, O(r, W, 4))
  end,
  pitch_of = function(q, p, r)
    local W = "guidance.pitch_of"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    return g.pitch_of(qx, qy, qz, qw, px, py, pz, O(r, W, 3))
  end,
  bank_of = function(q, p, r)
    local W = "guidance.bank_of"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    return g.bank_of(qx, qy, qz, qw, px, py, pz, O(r, W, 3))
  end,
  pitch_error_from_alt = function(q, p, e, r)
    local W = "guidance.pitch_error_from_alt"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    return g.pitch_error_from_alt(qx, qy, qz, qw, px, py, pz, N(e, W, 3), O(r, W, 4))
  end,
  elevator_from_pitch_error = function(e) return g.elevator_from_pitch_error(N(e, "guidance.elevator_from_pitch_error", 1)) end,
  bank_to_turn_aileron = function(e) return g.bank_to_turn_aileron(N(e, "guidance.bank_to_turn_aileron", 1)) end,
  turn_aileron = function(q, p, e, r, mb)
    local W = "guidance.turn_aileron"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    return g.turn_aileron(qx, qy, qz, qw, px, py, pz, N(e, W, 3), O(r, W, 4), O(mb, W, 5))
  end,
  coordinated_rudder = function(a) return g.coordinated_rudder(N(a, "guidance.coordinated_rudder", 1)) end,
  sideslip = function(q, v)
    local W = "guidance.sideslip"
    local qx, qy, qz, qw = Q(q, W)
    local vx, vy, vz = V(v, W)
    return g.sideslip(qx, qy, qz, qw, vx, vy, vz)
  end,
  rudder_to_coordinate = function(b) return g.rudder_to_coordinate(N(b, "guidance.rudder_to_coordinate", 1)) end,
  elevator_for_altitude_hold = function(q, p, v, alt, r, aoa, rate)
    local W = "guidance.elevator_for_altitude_hold"
    local qx, qy, qz, qw = Q(q, W)
    local px, py, pz = V(p, W)
    local vx, vy, vz = V(v, W)
    return g.elevator_for_altitude_hold(qx, qy, qz, qw, px, py, pz, vx, vy, vz, N(alt, W, 4),
      O(r, W, 5), O(aoa, W, 6), O(rate, W, 7))
  end,
}

-- The host bridge of the call under way (`br(op, a, b, c)` answers a query as flat values),
-- nil outside a call: the top level sees no world. `cf` holds this call's contact numbers, asked
-- of the host once per call (the world does not move during a call); every detected_contacts()
-- still builds fresh tables from them.
local br, cf
local CONTACT_STATE = { [0] = "detected", [1] = "locked", [2] = "coasting" }
detected_contacts = function()
  local f = cf
  if f == nil then
    if br == nil then return {} end
    f = { br(0) }
    cf = f
  end
  local out = {}
  for i = 0, #f // 11 - 1 do
    local b = i * 11
    out[i + 1] = {
      idx = f[b + 1], pos = { x = f[b + 2], y = f[b + 3], z = f[b + 4] },
      vel = { x = f[b + 5], y = f[b + 6], z = f[b + 7] }, faction = f[b + 8], age_s = f[b + 9],
      reacted = f[b + 10] ~= 0, state = CONTACT_STATE[f[b + 11]],
    }
  end
  return out
end
nearby_entities = function(x, z, r)
  local W = "nearby_entities(x, z, radius_m)"
  x, z, r = N(x, W, 1), N(z, W, 2), N(r, W, 3)
  if x - x ~= 0 or z - z ~= 0 or r - r ~= 0 then
    error("nearby_entities(x, z, radius_m): arguments must be finite numbers", 2)
  end
  if br == nil then return {} end
  local f, out = { br(1, x, z, r) }, {}
  for i = 0, #f // 4 - 1 do
    local b = i * 4
    out[i + 1] = { idx = f[b + 1], pos = { x = f[b + 2], y = f[b + 3], z = f[b + 4] } }
  end
  return out
end
get_entity = function(idx)
  if br == nil then return nil end
  local i, px, py, pz, vx, vy, vz, qx, qy, qz, qw, faction, dead, player_owned = br(2, idx)
  if i == nil then return nil end
  return { idx = i, pos = { x = px, y = py, z = pz }, vel = { x = vx, y = vy, z = vz },
           quat = { x = qx, y = qy, z = qz, w = qw }, faction = faction, dead = dead,
           player_owned = player_owned }
end

local function run_triggers()
  local i = 1
  while i <= n do
    local t = triggers[i]
    if t[1]() then
      remove(triggers, i)
      n = n - 1
      t[2]()
    else
      i = i + 1
    end
  end
end

-- One tick: build `state`, call the controller, run pending triggers, and hand back the
-- returned table's fields, read raw (a metatable on the result runs nothing). A table without
-- a metatable is read with plain field access, which is the same as rawget but skips ten calls.
local cc
local function step(bridge, tick, dt, idx, px, py, pz, vx, vy, vz, qx, qy, qz, qw, faction, hp, max_hp,
                dmg, dead, player_owned, owner_id, type_index)
  br, cf = bridge, nil
  local out = cc({
    idx = idx, pos = { x = px, y = py, z = pz }, vel = { x = vx, y = vy, z = vz },
    quat = { x = qx, y = qy, z = qz, w = qw }, faction = faction, hp = hp, max_hp = max_hp,
    damage_level = dmg, dead = dead, player_owned = player_owned, owner_id = owner_id,
    type_index = type_index,
  }, tick, dt)
  run_triggers()
  br, cf = nil, nil
  if type(out) ~= "table" then return false, type(out) end
  if raw_getmt(out) == nil then
    return true, out.aileron, out.elevator, out.rudder, out.throttle, out.speedbrake,
      out.afterburner, out.gear_down, out.trigger, out.release, out.weapon_station
  end
  return true, rawget(out, "aileron"), rawget(out, "elevator"), rawget(out, "rudder"),
    rawget(out, "throttle"), rawget(out, "speedbrake"), rawget(out, "afterburner"),
    rawget(out, "gear_down"), rawget(out, "trigger"), rawget(out, "release"),
    rawget(out, "weapon_station")
end
return step, function(f) cc = f end
"#;

/// `heading_error`'s flat arguments: quaternion, own position, target, radius.
type HeadingArgs = (
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    Option<f64>,
);
/// `turn_aileron`'s flat arguments: quaternion, position, heading error, radius, bank limit.
type TurnArgs = (
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    Option<f64>,
    Option<f64>,
);

fn radius(r: Option<f64>) -> f64 {
    r.unwrap_or(EARTH_RADIUS_M)
}

/// The flat Rust half of `guidance` (numbers in, numbers out); the prelude's wrappers unpack
/// the scripts' tables and build the returned ones.
fn guidance_table(lua: &Lua) -> mlua::Result<Table> {
    type Q4 = (f64, f64, f64, f64);
    fn q((x, y, z, w): Q4) -> Quat {
        Quat { w, x, y, z }
    }
    let g = lua.create_table()?;
    g.set(
        "altitude",
        lua.create_function(|_, (x, y, z, r): (f64, f64, f64, Option<f64>)| {
            Ok(guidance::altitude(Vec3::new(x, y, z), radius(r)))
        })?,
    )?;
    g.set(
        "geodetic",
        lua.create_function(|_, (x, y, z, r): (f64, f64, f64, Option<f64>)| {
            Ok(guidance::geodetic(Vec3::new(x, y, z), radius(r)))
        })?,
    )?;
    g.set(
        "body_forward",
        lua.create_function(|_, qq: Q4| {
            let f = guidance::body_forward(q(qq));
            Ok((f.x, f.y, f.z))
        })?,
    )?;
    g.set(
        "heading_error",
        lua.create_function(
            |_, (qx, qy, qz, qw, px, py, pz, tx, ty, tz, r): HeadingArgs| {
                Ok(guidance::heading_error(
                    q((qx, qy, qz, qw)),
                    Vec3::new(px, py, pz),
                    Vec3::new(tx, ty, tz),
                    radius(r),
                ))
            },
        )?,
    )?;
    g.set("pitch_of", lua.create_function(
        |_, (qx, qy, qz, qw, px, py, pz, r): (f64, f64, f64, f64, f64, f64, f64, Option<f64>)| {
            Ok(guidance::pitch_of(q((qx, qy, qz, qw)), Vec3::new(px, py, pz), radius(r)))
        },
    )?)?;
    g.set("bank_of", lua.create_function(
        |_, (qx, qy, qz, qw, px, py, pz, r): (f64, f64, f64, f64, f64, f64, f64, Option<f64>)| {
            Ok(guidance::bank_of(q((qx, qy, qz, qw)), Vec3::new(px, py, pz), radius(r)))
        },
    )?)?;
    g.set(
        "pitch_error_from_alt",
        lua.create_function(
            |_,
             (qx, qy, qz, qw, px, py, pz, e, r): (
                f64,
                f64,
                f64,
                f64,
                f64,
                f64,
                f64,
                f64,
                Option<f64>,
            )| {
                Ok(guidance::pitch_error_from_alt(
                    q((qx, qy, qz, qw)),
                    Vec3::new(px, py, pz),
                    e,
                    radius(r),
                ))
            },
        )?,
    )?;
    g.set(
        "elevator_from_pitch_error",
        lua.create_function(|_, e: f64| Ok(guidance::elevator_from_pitch_error(e)))?,
    )?;
    g.set(
        "bank_to_turn_aileron",
        lua.create_function(|_, e: f64| Ok(guidance::bank_to_turn_aileron(e)))?,
    )?;
    g.set(
        "turn_aileron",
        lua.create_function(|_, (qx, qy, qz, qw, px, py, pz, e, r, mb): TurnArgs| {
            Ok(guidance::turn_aileron(
                q((qx, qy, qz, qw)),
                Vec3::new(px, py, pz),
                e,
                radius(r),
                mb.unwrap_or(guidance::DEFAULT_MAX_BANK),
            ))
        })?,
    )?;
    g.set(
        "coordinated_rudder",
        lua.create_function(|_, a: f64| Ok(guidance::coordinated_rudder(a)))?,
    )?;
    g.set(
        "sideslip",
        lua.create_function(
            |_, (qx, qy, qz, qw, vx, vy, vz): (f64, f64, f64, f64, f64, f64, f64)| {
                Ok(guidance::sideslip(
                    q((qx, qy, qz, qw)),
                    Vec3::new(vx, vy, vz),
                ))
            },
        )?,
    )?;
    g.set(
        "rudder_to_coordinate",
        lua.create_function(|_, b: f64| Ok(guidance::rudder_to_coordinate(b)))?,
    )?;
    g.set(
        "elevator_for_altitude_hold",
        lua.create_function(|_, args: MultiValue| {
            let mut n = [0.0f64; 11];
            let mut opt = [None::<f64>; 3];
            for (i, v) in args.iter().enumerate().take(14) {
                let x = match v {
                    Value::Integer(k) => Some(*k as f64),
                    Value::Number(x) => Some(*x),
                    _ => None,
                };
                if i < 11 {
                    n[i] = x.ok_or_else(|| {
                        mlua::Error::runtime(format!(
                            "guidance.elevator_for_altitude_hold: bad number (#{i})"
                        ))
                    })?;
                } else {
                    opt[i - 11] = x;
                }
            }
            let d = AltHold::default();
            let o = AltHold {
                radius_m: opt[0].unwrap_or(d.radius_m),
                max_aoa_rad: opt[1].unwrap_or(d.max_aoa_rad),
                pitch_rate_rad_s: opt[2].unwrap_or(d.pitch_rate_rad_s),
            };
            Ok(guidance::elevator_for_altitude_hold(
                q((n[0], n[1], n[2], n[3])),
                Vec3::new(n[4], n[5], n[6]),
                Vec3::new(n[7], n[8], n[9]),
                n[10],
                o,
            ))
        })?,
    )?;
    Ok(g)
}

/// `math`'s transcendentals over Rust's `libm` (platform-independent bits). `atan(y [, x])` and
/// `log(x [, base])` take Lua 5.4's optional second argument.
fn libm_table(lua: &Lua) -> mlua::Result<Table> {
    let m = lua.create_table()?;
    let one = |f: fn(f64) -> f64| lua.create_function(move |_, x: f64| Ok(f(x)));
    m.set("sin", one(libm::sin)?)?;
    m.set("cos", one(libm::cos)?)?;
    m.set("tan", one(libm::tan)?)?;
    m.set("asin", one(libm::asin)?)?;
    m.set("acos", one(libm::acos)?)?;
    m.set("exp", one(libm::exp)?)?;
    m.set("sqrt", one(libm::sqrt)?)?;
    m.set(
        "atan",
        lua.create_function(|_, (y, x): (f64, Option<f64>)| Ok(libm::atan2(y, x.unwrap_or(1.0))))?,
    )?;
    m.set(
        "log",
        lua.create_function(|_, (x, base): (f64, Option<f64>)| {
            Ok(match base {
                None => libm::log(x),
                Some(b) => {
                    if b == 2.0 {
                        libm::log2(x)
                    } else if b == 10.0 {
                        libm::log10(x)
                    } else {
                        libm::log(x) / libm::log(b)
                    }
                }
            })
        })?,
    )?;
    m.set(
        "pow",
        lua.create_function(|_, (x, y): (f64, f64)| Ok(libm::pow(x, y)))?,
    )?;
    m.set(
        "fmod",
        lua.create_function(|_, (x, y): (f64, f64)| Ok(libm::fmod(x, y)))?,
    )?;
    Ok(m)
}

/// The Rust half of `world`.
fn world_table(lua: &Lua) -> mlua::Result<Table> {
    let w = lua.create_table()?;
    w.set(
        "mission_success",
        lua.create_function(|lua, ()| {
            push_event(lua, ScriptEvent::World(WorldAction::MissionSuccess));
            Ok(())
        })?,
    )?;
    w.set(
        "mission_failure",
        lua.create_function(|lua, ()| {
            push_event(lua, ScriptEvent::World(WorldAction::MissionFailure));
            Ok(())
        })?,
    )?;
    w.set(
        "score_objective",
        lua.create_function(|lua, (faction, points): (i64, Option<i64>)| {
            let faction = u8::try_from(faction).map_err(|_| {
                mlua::Error::runtime(format!(
                    "world.score_objective: faction {faction} is not 0-255"
                ))
            })?;
            let points = points.unwrap_or(1);
            if !(-1000..=1000).contains(&points) {
                return Err(mlua::Error::runtime(format!(
                    "world.score_objective: {points} points is outside -1000..1000"
                )));
            }
            push_event(
                lua,
                ScriptEvent::World(WorldAction::ScoreObjective {
                    faction,
                    points: points as i32,
                }),
            );
            Ok(())
        })?,
    )?;
    w.set("set_music_state", lua.create_function(|lua, name: mlua::LuaString| {
        let name = name.to_str()?.to_string();
        let state = MusicState::from_script_name(&name).ok_or_else(|| {
            mlua::Error::runtime(format!(
                "world.set_music_state: unknown state `{}` (menu, patrol, combat, success, debrief)",
                truncate(name.clone(), 32)
            ))
        })?;
        push_event(lua, ScriptEvent::World(WorldAction::SetMusic(state)));
        Ok(())
    })?)?;
    Ok(w)
}

/// Answers one host query with the host of the current call as flat values the prelude packs
/// into one table (`{ br(op, …) }`) and turns into the script's tables: 11 numbers a contact,
/// 4 an entity nearby, the fields of one entity. Values returned from a callback go onto the
/// stack unprotected; a table filled from Rust would pay a protected call per element (mlua
/// protects every set once a memory limit is on).
fn host_query(host: &dyn ScriptHost, op: u8, a: Value, b: f64, c: f64) -> mlua::Result<MultiValue> {
    match op {
        0 => {
            let contacts = host.detected_contacts();
            let n = contacts.len().min(MAX_CONTACTS);
            let mut flat = MultiValue::with_capacity(n * 11);
            for k in contacts.iter().take(n) {
                let state = match k.state {
                    crate::ContactState::Detected => 0,
                    crate::ContactState::Locked => 1,
                    crate::ContactState::Coasting => 2,
                };
                // Integral fields as Lua integers, so `c.idx == other.idx` and printing look right.
                flat.extend([
                    Value::Integer(i64::from(k.idx)),
                    Value::Number(k.pos.x),
                    Value::Number(k.pos.y),
                    Value::Number(k.pos.z),
                    Value::Number(k.vel.x),
                    Value::Number(k.vel.y),
                    Value::Number(k.vel.z),
                    Value::Integer(i64::from(k.faction)),
                    Value::Number(k.age_s),
                    Value::Number(if k.reacted { 1.0 } else { 0.0 }),
                    Value::Integer(state),
                ]);
            }
            Ok(flat)
        }
        1 => {
            // The prelude checked the three are finite numbers.
            let x = match a {
                Value::Integer(i) => i as f64,
                Value::Number(n) => n,
                _ => 0.0,
            };
            let hits = host.nearby_entities(x, b, c.clamp(0.0, 1.0e7));
            let n = hits.len().min(MAX_NEARBY);
            let mut flat = MultiValue::with_capacity(n * 4);
            for e in hits.iter().take(n) {
                flat.extend([
                    Value::Integer(i64::from(e.idx)),
                    Value::Number(e.pos.x),
                    Value::Number(e.pos.y),
                    Value::Number(e.pos.z),
                ]);
            }
            Ok(flat)
        }
        _ => {
            let idx = match a {
                Value::Integer(i) if (0..=u32::MAX as i64).contains(&i) => i as u32,
                Value::Number(n) if n.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&n) => {
                    n as u32
                }
                _ => return Ok(MultiValue::new()),
            };
            match host.get_entity(idx) {
                Some(e) => Ok(MultiValue::from_iter([
                    Value::Integer(i64::from(e.idx)),
                    Value::Number(e.pos.x),
                    Value::Number(e.pos.y),
                    Value::Number(e.pos.z),
                    Value::Number(e.vel.x),
                    Value::Number(e.vel.y),
                    Value::Number(e.vel.z),
                    Value::Number(e.quat.x),
                    Value::Number(e.quat.y),
                    Value::Number(e.quat.z),
                    Value::Number(e.quat.w),
                    Value::Integer(i64::from(e.faction)),
                    Value::Boolean(e.dead),
                    Value::Boolean(e.player_owned),
                ])),
                None => Ok(MultiValue::new()),
            }
        }
    }
}

/// The step function's arguments: this call's host bridge, tick, dt, then `state`'s fields flat.
fn step_args(bridge: Function, s: &AircraftView, tick: u64, dt: f64) -> MultiValue {
    MultiValue::from_iter([
        Value::Function(bridge),
        Value::Integer(tick.min(i64::MAX as u64) as i64),
        Value::Number(dt),
        Value::Integer(i64::from(s.idx)),
        Value::Number(s.pos.x),
        Value::Number(s.pos.y),
        Value::Number(s.pos.z),
        Value::Number(s.vel.x),
        Value::Number(s.vel.y),
        Value::Number(s.vel.z),
        Value::Number(s.quat.x),
        Value::Number(s.quat.y),
        Value::Number(s.quat.z),
        Value::Number(s.quat.w),
        Value::Integer(i64::from(s.faction)),
        Value::Number(s.hp),
        Value::Number(s.max_hp),
        Value::Integer(i64::from(s.damage_level)),
        Value::Boolean(s.dead),
        Value::Boolean(s.player_owned),
        Value::Integer(i64::from(s.owner_id)),
        Value::Integer(i64::from(s.type_index)),
    ])
}

/// Reads the step function's answer: the returned value's type, then the known fields (read
/// raw in Lua), bounded.
fn read_controls(ret: MultiValue) -> Result<ScriptControls, String> {
    // `true, fields…` for a table; `false, type` for anything else (a boolean, not the type's
    // name, marks a table: no string crosses back on the common path).
    match (ret.front(), ret.get(1)) {
        (Some(Value::Boolean(true)), _) => {}
        (_, Some(Value::String(s))) if s.as_bytes().as_ref() != b"nil" => {
            return Err(format!(
                "compute_control must return a table, got {}",
                s.to_string_lossy()
            ));
        }
        _ => return Ok(ScriptControls::default()),
    }
    let mut it = ret.into_iter().skip(1);
    let mut next = || it.next().unwrap_or(Value::Nil);
    let num = |v: Value, k: &str, lo: f64, hi: f64| -> Result<f64, String> {
        match v {
            Value::Nil => Ok(0.0),
            Value::Integer(i) => Ok((i as f64).clamp(lo, hi)),
            // NaN and ±inf read as 0: a script's 0/0 must not reach the flight model.
            Value::Number(n) if n.is_finite() => Ok(n.clamp(lo, hi)),
            Value::Number(_) => Ok(0.0),
            other => Err(format!(
                "returned field `{k}` must be a number, got {}",
                other.type_name()
            )),
        }
    };
    let flag = |v: Value, k: &str| -> Result<bool, String> {
        match v {
            Value::Nil => Ok(false),
            Value::Boolean(b) => Ok(b),
            other => Err(format!(
                "returned field `{k}` must be a boolean, got {}",
                other.type_name()
            )),
        }
    };
    let aileron = num(next(), "aileron", -1.0, 1.0)?;
    let elevator = num(next(), "elevator", -1.0, 1.0)?;
    let rudder = num(next(), "rudder", -1.0, 1.0)?;
    let throttle = num(next(), "throttle", 0.0, 1.0)?;
    let speedbrake = num(next(), "speedbrake", 0.0, 1.0)?;
    let afterburner = flag(next(), "afterburner")?;
    let gear_down = flag(next(), "gear_down")?;
    let trigger = flag(next(), "trigger")?;
    let release = flag(next(), "release")?;
    let weapon_station = match next() {
        Value::Nil => None,
        Value::Integer(i) => u8::try_from(i).ok().filter(|s| *s <= 254),
        Value::Number(n) if n.fract() == 0.0 && (0.0..=254.0).contains(&n) => Some(n as u8),
        Value::Number(_) => None,
        other => {
            return Err(format!(
                "returned field `weapon_station` must be an integer, got {}",
                other.type_name()
            ));
        }
    };
    Ok(ScriptControls {
        aileron,
        elevator,
        rudder,
        throttle,
        speedbrake,
        afterburner,
        gear_down,
        trigger,
        release,
        weapon_station,
    })
}

/// The message of a Lua error, one line of cause plus the first script frame of a callback's
/// traceback (so errors raised in Rust functions still name the script's line).
fn describe(err: &mlua::Error) -> String {
    match err {
        mlua::Error::CallbackError { traceback, cause } => {
            let mut msg = describe(cause);
            if let Some(line) = traceback
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("ai/"))
            {
                let at = line.split(": in ").next().unwrap_or(line);
                msg = format!("{at}: {msg}");
            }
            msg
        }
        mlua::Error::RuntimeError(m)
        | mlua::Error::MemoryError(m)
        | mlua::Error::SyntaxError { message: m, .. } => m.lines().next().unwrap_or(m).to_string(),
        other => other
            .to_string()
            .lines()
            .next()
            .unwrap_or("error")
            .to_string(),
    }
}

/// One scripted entity: its own Lua state with the script loaded.
pub struct ScriptInstance {
    lua: Lua,
    name: String,
    limits: Limits,
    budget: Arc<Budget>,
    /// The script defines `compute_control` (handed to the step function at load).
    has_control: bool,
    step: Function,
    disabled: Option<String>,
}

impl std::fmt::Debug for ScriptInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptInstance")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .field("disabled", &self.disabled)
            .finish_non_exhaustive()
    }
}

impl ScriptInstance {
    /// Builds a sandboxed state, seeds `math.random` with `seed` (give it the mission seed mixed
    /// with the entity), and runs script `name` of `sources` at top level. Host queries see no
    /// world while the top level runs. A script whose top level fails is refused with the
    /// message naming its file and line.
    pub fn load(
        sources: &ScriptSources,
        name: &str,
        seed: u64,
        limits: Limits,
    ) -> Result<Self, ScriptError> {
        if !valid_script_name(name) {
            return Err(ScriptError::BadName(name.to_string()));
        }
        let src = sources
            .get(name)
            .ok_or_else(|| ScriptError::Missing(name.to_string()))?;
        let sandbox = |e: mlua::Error| ScriptError::Sandbox(describe(&e));
        let lua = Lua::new_with(
            StdLib::COROUTINE | StdLib::TABLE | StdLib::STRING | StdLib::UTF8 | StdLib::MATH,
            LuaOptions::new(),
        )
        .map_err(sandbox)?;
        let budget = Arc::new(Budget::default());
        lua.set_app_data(CallCtx {
            max_events: limits.events_per_call,
            ..CallCtx::default()
        });

        let globals = lua.globals();
        let (step, set_controller) =
            Self::install(&lua, &globals, &budget, seed).map_err(sandbox)?;
        Self::install_require(&lua, &globals, sources).map_err(sandbox)?;

        let hook_budget = budget.clone();
        lua.set_global_hook(
            HookTriggers::new().every_nth_instruction(HOOK_EVERY),
            move |_, debug| {
                let b = &hook_budget;
                let used = b
                    .used
                    .load(Ordering::Relaxed)
                    .saturating_add(u64::from(HOOK_EVERY));
                b.used.store(used, Ordering::Relaxed);
                if b.exceeded() || used > b.limit.load(Ordering::Relaxed) {
                    if !b.exceeded() {
                        b.exceeded.store(true, Ordering::Relaxed);
                        let src = debug
                            .source()
                            .short_src
                            .map(|s| s.to_string())
                            .unwrap_or_default();
                        let line = debug
                            .current_line()
                            .map_or(String::new(), |l| format!(":{l}"));
                        *b.at() = format!("{src}{line}");
                    }
                    return Err(mlua::Error::runtime("instruction budget exceeded"));
                }
                Ok(VmState::Continue)
            },
        )
        .map_err(sandbox)?;
        lua.set_memory_limit(limits.memory_bytes).map_err(sandbox)?;
        // Generational: a controller's garbage is the handful of tables each tick builds and
        // drops (`state`, contacts, the result), which young collections reclaim cheaply.
        lua.gc_set_mode(GcMode::Generational(GcGenParams::default()));

        let mut inst = ScriptInstance {
            lua,
            name: name.to_string(),
            limits,
            budget,
            has_control: false,
            step,
            disabled: None,
        };
        let chunk_name = format!("@ai/{name}.lua");
        let src = src.to_string();
        let run = inst.run(
            &mut crate::NullHost,
            limits.instructions_at_load,
            |lua, _, _| {
                lua.load(src.as_str())
                    .set_name(chunk_name.as_str())
                    .set_mode(ChunkMode::Text)
                    .exec()
            },
        );
        if let Err(reason) = run {
            return Err(ScriptError::Load(reason));
        }
        // The controller as the top level left it (a later reassignment of the global is not
        // followed, as before). Two VM instructions: a fresh budget so the hook cannot trip.
        let control = inst
            .lua
            .globals()
            .raw_get::<Option<Function>>("compute_control")
            .ok()
            .flatten();
        if let Some(f) = control {
            inst.budget.reset(limits.instructions_at_load);
            set_controller.call::<()>(f).map_err(sandbox)?;
            inst.has_control = true;
        }
        Ok(inst)
    }

    fn install(
        lua: &Lua,
        globals: &Table,
        budget: &Arc<Budget>,
        seed: u64,
    ) -> mlua::Result<(Function, Function)> {
        let b = budget.clone();
        let check = lua.create_function(move |_, ret: MultiValue| {
            if b.exceeded() {
                return Err(mlua::Error::runtime("instruction budget exceeded"));
            }
            // A failed pcall/resume whose error is the allocator's: the memory limit was hit.
            // Re-raise it so a script cannot retry its way around the limit.
            if let (Some(Value::Boolean(false)), Some(Value::String(s))) = (ret.front(), ret.get(1))
                && s.as_bytes().as_ref() == b"not enough memory"
            {
                b.out_of_memory.store(true, Ordering::Relaxed);
                return Err(mlua::Error::MemoryError("not enough memory".into()));
            }
            if b.out_of_memory() {
                return Err(mlua::Error::MemoryError("not enough memory".into()));
            }
            Ok(ret)
        })?;
        let host_print = lua.create_function(|lua, s: mlua::LuaString| {
            let text = truncate(s.to_string_lossy(), MAX_PRINT_BYTES);
            push_event(lua, ScriptEvent::Print(text));
            Ok(())
        })?;
        let host_say = lua.create_function(|lua, s: mlua::LuaString| {
            let text = truncate(s.to_string_lossy(), MAX_SAY_BYTES);
            push_event(lua, ScriptEvent::Say(text));
            Ok(())
        })?;
        let clock = lua.create_function(|lua, ()| Ok(elapsed(lua)))?;
        // Every global the scripts see is set by the prelude (and `require`).
        let _ = globals;
        let prelude = PRELUDE.replace("MAX_CHUNK", &MAX_SCRIPT_BYTES.to_string());
        lua.load(prelude.as_str())
            .set_name("=sandbox")
            .set_mode(ChunkMode::Text)
            .call::<(Function, Function)>((
                check,
                host_print,
                host_say,
                clock,
                world_table(lua)?,
                (seed >> 32) as i64,
                (seed & 0xffff_ffff) as i64,
                guidance_table(lua)?,
                libm_table(lua)?,
            ))
    }

    /// `require(name)`: another script of the same `ai/` folder, run once per state, its result
    /// cached; names only (no path, no `..`).
    fn install_require(lua: &Lua, globals: &Table, sources: &ScriptSources) -> mlua::Result<()> {
        lua.set_named_registry_value(LOADED_KEY, lua.create_table()?)?;
        let sources = sources.clone();
        // A `Mutex` only to be `Send` for mlua's `send` feature; calls into one state never overlap.
        let loading: Mutex<BTreeSet<String>> = Mutex::default();
        let require = lua.create_function(move |lua, name: mlua::LuaString| {
            let name = name.to_str()?.to_string();
            if !valid_script_name(&name) {
                return Err(mlua::Error::runtime(format!(
                    "require: `{}` is not a script name (letters, digits and _ only; no path or extension)",
                    truncate(name, 64)
                )));
            }
            let loaded: Table = lua.named_registry_value(LOADED_KEY)?;
            let cached: Value = loaded.raw_get(name.as_str())?;
            if !cached.is_nil() {
                return Ok(cached);
            }
            let src = sources
                .get(&name)
                .ok_or_else(|| mlua::Error::runtime(format!("require: no script `{name}` in the pack's ai/ folder")))?;
            {
                let mut l = loading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if l.contains(&name) {
                    return Err(mlua::Error::runtime(format!("require: `{name}` requires itself (a cycle)")));
                }
                if l.len() >= MAX_REQUIRE_DEPTH {
                    return Err(mlua::Error::runtime("require: modules nested too deep"));
                }
                l.insert(name.clone());
            }
            let result = lua
                .load(src)
                .set_name(format!("@ai/{name}.lua"))
                .set_mode(ChunkMode::Text)
                .call::<Value>(name.as_str());
            loading
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&name);
            let value = match result? {
                Value::Nil => Value::Boolean(true),
                v => v,
            };
            loaded.raw_set(name.as_str(), value.clone())?;
            Ok(value)
        })?;
        globals.set("require", require)
    }

    /// Runs `f` under the budget with `host` reachable from the script, delivers the events,
    /// and disables the script if it broke anything. Err is the disabling reason.
    fn run<R>(
        &mut self,
        host: &mut dyn ScriptHost,
        instructions: u64,
        f: impl FnOnce(&Lua, &Function, Function) -> mlua::Result<R>,
    ) -> Result<R, String> {
        if let Some(reason) = &self.disabled {
            return Err(reason.clone());
        }
        self.budget.reset(instructions);
        if let Some(mut ctx) = self.lua.app_data_mut::<CallCtx>() {
            ctx.elapsed_s = host.elapsed_s();
            ctx.events.clear();
            ctx.dropped = 0;
        }
        let query_host: &dyn ScriptHost = &*host;
        let result = self.lua.scope(|scope| {
            // The step function hands it to the script's queries for this call only.
            let bridge = scope.create_function(
                move |_, (op, a, b, c): (u8, Value, Option<f64>, Option<f64>)| {
                    host_query(query_host, op, a, b.unwrap_or(0.0), c.unwrap_or(0.0))
                },
            )?;
            f(&self.lua, &self.step, bridge)
        });
        let events = self
            .lua
            .app_data_mut::<CallCtx>()
            .map(|mut c| std::mem::take(&mut c.events))
            .unwrap_or_default();
        for e in events {
            host.event(e);
        }
        let fail = if self.budget.exceeded() {
            Some(format!(
                "instruction budget of {instructions} exceeded at {}",
                self.budget.at()
            ))
        } else if self.budget.out_of_memory() {
            Some(format!(
                "memory limit of {} bytes exceeded",
                self.limits.memory_bytes
            ))
        } else {
            match &result {
                Err(mlua::Error::MemoryError(_)) => Some(format!(
                    "memory limit of {} bytes exceeded",
                    self.limits.memory_bytes
                )),
                Err(e) => Some(describe(e)),
                Ok(_) => None,
            }
        };
        match (fail, result) {
            (None, Ok(r)) => Ok(r),
            (Some(why), _) => Err(self.disable(why)),
            (None, Err(e)) => Err(self.disable(describe(&e))),
        }
    }

    fn disable(&mut self, why: String) -> String {
        let reason = format!(
            "script `{}` (ai/{}.lua) disabled: {why}",
            self.name, self.name
        );
        self.disabled = Some(reason.clone());
        // The state is dead weight now; a collection returns its memory early.
        let _ = self.lua.gc_collect();
        reason
    }

    /// Calls the script's `compute_control(state, tick, dt)`, then its pending `world.on_trigger`
    /// checks, under one instruction budget, and reads the returned controls. The first error or
    /// limit disables the script for good ([`CallOutcome::Disabled`]).
    pub fn compute_control(
        &mut self,
        host: &mut dyn ScriptHost,
        state: &AircraftView,
        tick: u64,
        dt: f64,
    ) -> CallOutcome {
        let was_disabled = self.disabled.is_some();
        if !self.has_control {
            if !was_disabled {
                self.disable("it defines no compute_control(state, tick, dt) function".into());
            }
            return self.disabled_outcome(was_disabled);
        }
        let limit = self.limits.instructions_per_call;
        let ret = self.run(host, limit, |_, step, bridge| {
            step.call::<MultiValue>(step_args(bridge, state, tick, dt))
        });
        match ret {
            Ok(v) => match read_controls(v) {
                Ok(c) => CallOutcome::Controls(c),
                Err(why) => {
                    self.disable(why);
                    self.disabled_outcome(false)
                }
            },
            Err(_) => self.disabled_outcome(was_disabled),
        }
    }

    fn disabled_outcome(&self, was_disabled: bool) -> CallOutcome {
        CallOutcome::Disabled {
            reason: self.disabled.clone().unwrap_or_default(),
            just_now: !was_disabled,
        }
    }

    /// The script's name (its file stem in `ai/`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why the script is disabled, if it is.
    pub fn disabled_reason(&self) -> Option<&str> {
        self.disabled.as_deref()
    }

    /// VM instructions the last call ran, counted in steps of 1,000 (the hook's period): a
    /// call under 1,000 instructions reads 0.
    pub fn instructions_last_call(&self) -> u64 {
        self.budget.used.load(Ordering::Relaxed)
    }

    /// Bytes the state holds now.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }
}
