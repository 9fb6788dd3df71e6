-- fl-trainer's target drone (authored for this project; see missions/gun_drone.yaml).
--
-- Flies a steady left-hand orbit at a fixed altitude and throttle — predictable on purpose, a
-- student's first gun target — and plays range control on the radio: the range is hot, the
-- drone is hit, time calls. It never looks at the student: no contacts, no ground truth.

local ORBIT_ALT_M = 3000.0
local ORBIT_BANK_RAD = math.rad(20.0)
local THROTTLE = 0.75

local called = {}
local function call_once(key, text)
    if not called[key] then
        called[key] = true
        say(text)
    end
end

-- The first call waits a few seconds: the mission clock starts with the server, a moment before
-- the student's session has joined and can hear the radio.
world.timer(8.0, function()
    say("Range control: drone is up, orbiting left at three thousand. Range is hot.")
    world.set_music_state("combat")
end)
world.timer(300.0, function() say("Range control: five minutes remaining.") end)
world.timer(540.0, function() say("Range control: one minute. Finish it.") end)

function compute_control(state, tick, dt)
    if state.damage_level >= 1 then
        call_once("hit", "Range control: hits observed on the drone. Keep on it.")
    end
    if state.damage_level >= 3 then
        call_once("critical", "Range control: drone is trailing smoke. One more burst.")
    end
    local bank = guidance.bank_of(state.quat, state.pos)
    local aileron = math.max(-1.0, math.min(1.0, 2.0 * (-ORBIT_BANK_RAD - bank)))
    return {
        aileron = aileron,
        elevator = guidance.elevator_for_altitude_hold(state.quat, state.pos, state.vel, ORBIT_ALT_M),
        rudder = guidance.coordinated_rudder(aileron),
        throttle = THROTTLE,
    }
end
