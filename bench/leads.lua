-- bench/leads.lua: wrk script of bench/writes.sh (issue 20 item 7). Each request is an agent
-- lead (POST /api/v1/agent-leads) under the next key of KEYS (one secret per line) with an
-- Idempotency-Key of its own, on the game GAME; the nodes run with the lead quotas raised
-- (--lead-quota-*), so the figure is the cost of an accepted lead, not of a 429.
local keys = {}
local counter = 0
local prefix = ""
local game = os.getenv("GAME")

function init(args)
    for l in io.lines(os.getenv("KEYS")) do
        if l ~= "" then keys[#keys + 1] = l end
    end
    -- every wrk thread its own Idempotency-Key prefix (the seed differs per thread)
    math.randomseed(os.time() + math.floor(os.clock() * 1e6) + tonumber(tostring({}):match("0x(%x+)"), 16))
    prefix = string.format("bench-%08x-%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
    counter = math.random(#keys)
end

function request()
    counter = counter + 1
    local body = '{"game_id":"' .. game .. '","description":"Bench lead ' .. prefix .. '-' ..
        counter .. ': late hit out of bounds not flagged","source_urls":' ..
        '["https://www.espn.example/story/' .. counter .. '"],"period":4,"clock":"2:13",' ..
        '"category":"penalty","confidence":70}'
    return wrk.format("POST", "/api/v1/agent-leads", {
        ["Content-Type"] = "application/json",
        ["Authorization"] = "Bearer " .. keys[(counter % #keys) + 1],
        ["Idempotency-Key"] = prefix .. "-" .. counter,
    }, body)
end
