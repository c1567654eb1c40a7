#!/usr/bin/python3
"""List rotation (issue 13): random valid list queries (every filter of the spec, mixed,
deep offsets) against a running server on a bench/seed.sql data set, one at a time over one
keep-alive connection, each a different URL (so no response cache answers; serve with
--no-cache anyway). Prints p50/p99/max of the response time on loopback, the count of each
status and the slowest URLs.

    bench/list_rotation.py BASE_URL [COUNT] [SEED] [INCIDENTS] [SLOWEST] [SERVER_PID]

With SERVER_PID also the server's CPU time (user + system, /proc) per request: on a shared,
loaded machine response times include waiting for a core, CPU time does not.

Values follow bench/seed.sql: teams bench-t00..63, seasons 2016..2025 (2026: none), weeks
1..17, INCIDENTS/10 games (default 1000000) published one a minute from 2023-11-14."""
import http.client
import os
import random
import sys
import time
import urllib.parse

base = urllib.parse.urlsplit(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 13)
incidents = int(sys.argv[4]) if len(sys.argv) > 4 else 1000000
games = max(1, incidents // 10)
PUB0 = 1700000000  # bench/seed.sql: incident i is published at PUB0 + 60 i seconds
KICK0 = 1450000000  # game k kicks off at KICK0 + 3600 k seconds


def day(t):
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def common(q, start, span):
    if rng.random() < 0.3:
        q["team_id"] = "bench-t%02d" % rng.randrange(65)  # t64: no such team
    if rng.random() < 0.3:
        q["season"] = str(rng.randrange(2016, 2027))
    if rng.random() < 0.2:
        q["week"] = str(rng.randrange(1, 19))
    if rng.random() < 0.3:
        q["league"] = rng.choice(["nfl", "college"])
    if rng.random() < 0.2:
        q["season_type"] = rng.choice(["regular", "postseason", "preseason", "unknown"])
    if rng.random() < 0.15:
        q["from"] = day(start + rng.randrange(span))
    if rng.random() < 0.15:
        q["to"] = day(start + rng.randrange(span))
    q["offset"] = str(rng.choice([0, rng.randrange(0, 1000), rng.randrange(0, 100001)]))


def incident_query():
    q = {"limit": str(rng.choice([10, 20, 50, 100]))}
    if rng.random() < 0.05:
        k = rng.randrange(games)
        q["game_id"] = "bench:%d-wk%02d-g%07d" % (2016 + k % 10, 1 + k % 17, k)
    if rng.random() < 0.2:
        q["category"] = rng.choice(["penalty", "replay", "clock", "spot", "targeting", "other",
                                    "no_call", "catch"])
    if rng.random() < 0.2:
        q["status"] = rng.choice(["developing", "corroborated", "explained", "resolved"])
    if rng.random() < 0.1:
        q["has_verdict"] = rng.choice(["true", "false"])
    if rng.random() < 0.1:
        q["sort"] = "recent"
    common(q, PUB0, 60 * incidents)
    return "/api/v1/incidents?" + urllib.parse.urlencode(q)


def game_query():
    q = {"limit": str(rng.choice([10, 20, 50, 100]))}
    if rng.random() < 0.2:
        q["status"] = rng.choice(["upcoming", "live", "final", "postponed", "canceled"])
    if rng.random() < 0.5:
        q["sort"] = rng.choice(["recent", "kickoff"])
    common(q, KICK0, 3600 * games)
    return "/api/v1/games?" + urllib.parse.urlencode(q)


pid = sys.argv[6] if len(sys.argv) > 6 else None


def cpu_ms():
    if not pid:
        return 0.0
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
cpu0 = cpu_ms()
times, status, slow = [], {}, []
deadline = time.monotonic() + 900
for n in range(count):
    if time.monotonic() > deadline:
        break
    path = incident_query() if n % 4 else game_query()
    t0 = time.monotonic()
    conn.request("GET", base.path.rstrip("/") + path)
    r = conn.getresponse()
    r.read()
    ms = (time.monotonic() - t0) * 1000
    times.append(ms)
    slow.append((ms, r.status, path))
    status[r.status] = status.get(r.status, 0) + 1
cpu = (cpu_ms() - cpu0) / max(1, len(times))
times.sort()
p = lambda f: times[min(len(times) - 1, int(f * len(times)))]
print("requests %d  p50 %.2f ms  p99 %.2f ms  max %.1f ms  statuses %s%s  load %s"
      % (len(times), p(0.5), p(0.99), times[-1], dict(sorted(status.items())),
         "  server CPU %.2f ms/request" % cpu if pid else "", os.getloadavg()[0]))
for ms, code, path in sorted(slow, reverse=True)[:int(sys.argv[5]) if len(sys.argv) > 5 else 5]:
    print("  %.1f ms %d %s" % (ms, code, path))
