-- bench/ballots.lua: wrk script of bench/writes.sh (issue 20). Each request is a JSON ballot
-- of the next voter (cookie and CSRF token from VOTERS, one "cookie csrf" per line) on the
-- next incident of INCIDENTS (one id per line; a single line: one hot debate), cycling the
-- choice so that a voter's later ballots replace the earlier ones. With ADDRESSES=per-voter
-- each voter comes from an address of its own (X-Forwarded-For, believed because the nodes
-- run with --trusted-proxy 127.0.0.1, as behind a load balancer): 10.a.b.c for voter k.
local voters, incidents = {}, {}
local per_voter = os.getenv("ADDRESSES") == "per-voter"
local counter = 0
local origin = os.getenv("ORIGIN") or "http://bench.test"

-- wrk calls setup(thread) for each thread, in the main Lua state, before that thread's init:
-- each thread gets its number (its own Lua state then reads it as a global, tid)
local threads = 0
function setup(thread)
    thread:set("tid", threads)
    threads = threads + 1
end

local function lines(path)
    local t = {}
    for l in io.lines(path) do
        if l ~= "" then t[#t + 1] = l end
    end
    return t
end

function init(args)
    for _, l in ipairs(lines(os.getenv("VOTERS"))) do
        local c, t = l:match("^(%S+) (%S+)$")
        voters[#voters + 1] = {c, t}
    end
    incidents = lines(os.getenv("INCIDENTS"))
    -- each wrk thread starts at its own place in the voter list, the threads spread over it
    -- (golden-ratio steps). Not math.random: wrk's LuaJIT starts every thread's generator
    -- at the same seed, so every thread began at the same voter and each ballot raced a twin
    -- of the same voter on the voter's window row (lock waits no real crowd of voters makes)
    counter = math.floor(#voters * (((tid or 0) * 0.6180339887) % 1))
end

local choices = {"correct", "incorrect", "unsure"}

function request()
    counter = counter + 1
    local v = voters[(counter % #voters) + 1]
    local id = incidents[(counter % #incidents) + 1]
    local choice = choices[(math.floor(counter / #voters) % 3) + 1]
    local body = '{"choice":"' .. choice .. '","question_version":1,"csrf":"' .. v[2] .. '"}'
    local headers = {
        ["Content-Type"] = "application/json",
        ["Origin"] = origin,
        ["Cookie"] = "__Host-whistle_voter=" .. v[1],
    }
    if per_voter then
        local k = counter % #voters
        headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(k / 65536) % 256,
            math.floor(k / 256) % 256, k % 256)
    end
    return wrk.format("POST", "/incidents/" .. id .. "/vote", headers, body)
end
