-- bench/rotate.lua: a wrk script that cycles through request paths read from a file, one per
-- line, so that consecutive requests ask for different resources (Whistle's response cache
-- cannot answer them). Each wrk thread starts at a different point of the list.
--
--     wrk -s bench/rotate.lua http://127.0.0.1:PORT -- PATHS_FILE
--
-- The requests are formatted once in init(); request() only hands them out.

local nthreads = 0

function setup(thread)
    thread:set("tid", nthreads)
    nthreads = nthreads + 1
end

local reqs = {}
local n = 0
local i = 0

function init(args)
    local file = args[1]
    assert(file, "usage: wrk -s rotate.lua URL -- PATHS_FILE")
    local f = assert(io.open(file, "r"))
    for line in f:lines() do
        if #line > 0 then
            n = n + 1
            reqs[n] = wrk.format("GET", line)
        end
    end
    f:close()
    assert(n > 0, "no request paths in " .. file)
    i = math.floor(n * 0.618 * (tid or 0)) % n
end

function request()
    i = i % n + 1
    return reqs[i]
end
