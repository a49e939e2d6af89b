-- libs_lua.lua - a GC-heavy script set for Debian's Lua 5.4 (make bench, tools/bench/libs.c):
-- what an interpreter's heap does under a program that keeps a large state and makes
-- garbage around it. Every object comes from lauxlib's allocator, which is realloc and
-- free: new objects are realloc(NULL, n), growing ones realloc(p, n).
--
-- SCALE (a global the host sets) multiplies the population and the rounds. Returns a checksum, the same under
-- every allocator, so the driver can tell that each variant did the same work.

local scale = SCALE or 1
local check = 0

-- A long-lived population: records with a name, a small array and a map part, a few
-- hundred thousand live blocks that every collection cycle marks and that the other parts
-- replace a slice of, as a program's state changes.
local population = {}
local size = math.floor(40000 * scale)
for i = 1, size do
    population[i] = {id = i, name = "obj" .. i, tags = {i % 7, i % 11, i % 13}}
end

local function replace_some(round, count)
    for k = 1, count do
        local i = (round * 7919 + k * 104729) % size + 1
        population[i] = {id = i, name = "obj" .. i .. "." .. round, tags = {round, k}}
    end
end

-- String building: formatted pieces joined, and a string grown by concatenation.
local function strings(round)
    local parts = {}
    for i = 1, 2000 do
        parts[#parts + 1] = string.format("%d:%s;", i, round)
    end
    local joined = table.concat(parts)
    local acc = ""
    for i = 1, 200 do
        acc = acc .. i .. ","
    end
    local upper = joined:sub(1, 500):upper() .. acc:rep(2)
    return #joined + #acc + #upper
end

-- Table growth and shrinkage: an array grown one element at a time (its part reallocated
-- at each power of two), emptied from the end, and a map filled and cleared.
local function tables(round)
    local t = {}
    for i = 1, 6000 do
        t[i] = i + round
    end
    local sum = 0
    for i = #t, 1, -1 do
        sum = sum + t[i]
        t[i] = nil
    end
    local m = {}
    for i = 1, 1500 do
        m["k" .. i] = {i}
    end
    for i = 1, 1500, 2 do
        m["k" .. i] = nil
    end
    for i = 1, 300 do -- new keys after the removals: the map is rehashed and shrinks
        m["n" .. i] = i
    end
    local n = 0
    for _ in pairs(m) do
        n = n + 1
    end
    return sum + n
end

-- Closures: counters that capture an upvalue, kept a while in a ring, then dropped.
local function closures(round)
    local ring = {}
    local sum = 0
    for i = 1, 4000 do
        local c = i + round
        local f = function(d)
            c = c + d
            return c
        end
        ring[i % 64 + 1] = f
        sum = sum + f(1)
    end
    for _, f in ipairs(ring) do
        sum = sum + f(0)
    end
    return sum
end

-- Coroutines: each a generator with its own stack, resumed until it ends.
local function coroutines(round)
    local sum = 0
    for i = 1, 300 do
        local gen = coroutine.wrap(function(first)
            local s = first
            for k = 1, 12 do
                s = s + coroutine.yield(k)
            end
            return s
        end)
        sum = sum + gen(i + round)
        for k = 1, 12 do
            sum = sum + gen(k)
        end
    end
    return sum
end

for round = 1, math.floor(60 * scale) do
    check = check + strings(round) + tables(round) + closures(round) + coroutines(round)
    replace_some(round, 2000)
    check = check % 1000000007
end

local names = 0
for i = 1, size do
    names = names + #population[i].name
end
return (check + names) % 1000000007
