#!/usr/bin/python3
"""List rotation (issue 13): random valid list queries (mixed filters, deep offsets) against
a running server on a bench/seed.sql data set, one at a time, each a different URL (so no
response cache answers; serve with --no-cache anyway). Prints p50/p99/max of the response
time on loopback and the count of each status.

    bench/list_rotation.py BASE_URL [COUNT] [SEED]

Values follow bench/seed.sql: teams bench-t00..63, seasons/weeks/leagues of its games."""
import random
import statistics
import sys
import time
import urllib.request

base = sys.argv[1].rstrip("/")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 13)


def incident_query():
    q = {"limit": str(rng.choice([10, 20, 50]))}
    if rng.random() < 0.3:
        q["team_id"] = "bench-t%02d" % rng.randrange(64)
    if rng.random() < 0.3:
        q["season"] = str(rng.randrange(2016, 2027))
    if rng.random() < 0.2:
        q["week"] = str(rng.randrange(1, 18))
    if rng.random() < 0.3:
        q["league"] = rng.choice(["nfl", "college"])
    if rng.random() < 0.2:
        q["season_type"] = rng.choice(["regular", "postseason", "preseason"])
    if rng.random() < 0.2:
        q["category"] = rng.choice(["penalty", "replay", "clock", "spot", "targeting"])
    if rng.random() < 0.2:
        q["status"] = rng.choice(["developing", "corroborated", "explained", "resolved"])
    if rng.random() < 0.1:
        q["has_verdict"] = rng.choice(["true", "false"])
    q["offset"] = str(rng.choice([0, rng.randrange(0, 1000), rng.randrange(0, 100001)]))
    return "/api/v1/incidents?" + "&".join(k + "=" + v for k, v in q.items())


def game_query():
    q = {"limit": "20"}
    if rng.random() < 0.3:
        q["team_id"] = "bench-t%02d" % rng.randrange(64)
    if rng.random() < 0.3:
        q["season"] = str(rng.randrange(2016, 2027))
    if rng.random() < 0.3:
        q["league"] = rng.choice(["nfl", "college"])
    if rng.random() < 0.5:
        q["sort"] = "recent"
    q["offset"] = str(rng.choice([0, rng.randrange(0, 100001)]))
    return "/api/v1/games?" + "&".join(k + "=" + v for k, v in q.items())


times, status = [], {}
deadline = time.monotonic() + 900
for n in range(count):
    if time.monotonic() > deadline:
        break
    path = incident_query() if n % 4 else game_query()
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        code = e.code
    times.append((time.monotonic() - t0) * 1000)
    status[code] = status.get(code, 0) + 1
times.sort()
p = lambda f: times[min(len(times) - 1, int(f * len(times)))]
print("requests %d  p50 %.1f ms  p99 %.1f ms  max %.1f ms  statuses %s"
      % (len(times), p(0.5), p(0.99), times[-1], dict(sorted(status.items()))))
