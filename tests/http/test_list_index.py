"""The list index (issue 13; src/store/listindex.h, docs/architecture.md "Reads"): a node that
answers GET /api/v1/incidents and GET /api/v1/games from its in-memory index sends exactly the bytes of a node
that answers from SQL (--list-index-max 0) over the same database, for random filter and
offset combinations; a withdrawal shows on the very next request, before the index is
rebuilt; the rebuilt index answers again. GET /metrics says which answered. Both drivers
(WHISTLE_TEST_PG)."""

import json
import random
import time
import urllib.parse

from helpers import db_sql
from test_metrics import METRICS_RE, scrape, value

FIXTURE_GAMES = json.load(open(__import__("helpers").FIXTURES / "main.json"))["games"]


def start(server_factory, *extra):
    s = server_factory.start(extra=("--metrics-listen", "127.0.0.1:0", "--no-worker") + extra)
    s.metrics_url = METRICS_RE.search(s.log_line(lambda ln: METRICS_RE.search(ln))).group(1)
    return s


def wait_for_index(s, incidents):
    """Until the node holds an index of `incidents` published incidents at the database's
    current content version: a request (each a new URL, so no cached body answers) is
    answered from it (bounded: 60 s)."""
    deadline = time.monotonic() + 60
    k = 0
    while time.monotonic() < deadline:
        if value(scrape(s), "whistle_list_index_incidents") == incidents:
            before = served(s, "index")
            k += 1
            assert s.get(f"/api/v1/incidents?limit=1&offset={k}&week=0").status_code == 200
            if served(s, "index") > before:
                return
        time.sleep(0.1)
    raise AssertionError(f"no list index of {incidents} incidents: {s.lines[-5:]}")


def served(s, answer):
    return value(scrape(s), "whistle_list_index_requests_total", answer=answer)


def common(rng, q, teams):
    """The filters both lists take, and an offset."""
    games = FIXTURE_GAMES
    if rng.random() < 0.4:
        q["team_id"] = rng.choice(teams + ["no-such-team"])
    if rng.random() < 0.3:
        q["season"] = str(rng.choice([g["season"] for g in games] + [2031]))
    if rng.random() < 0.2:
        q["week"] = str(rng.choice([g["week"] for g in games] + [29]))
    if rng.random() < 0.3:
        q["league"] = rng.choice(["nfl", "college"])
    if rng.random() < 0.2:
        q["season_type"] = rng.choice(["regular", "postseason", "preseason", "unknown"])
    if rng.random() < 0.2:
        q["from"] = "2024-%02d-01" % rng.randrange(1, 13)
    if rng.random() < 0.2:
        q["to"] = "2025-%02d-01" % rng.randrange(1, 13)
    q["offset"] = str(rng.choice([0, 0, 1, 2, 3, 5, 8, 11, 100000]))
    return q


def queries(rng, n, teams):
    for _ in range(n):
        q = {"limit": str(rng.choice([1, 2, 3, 5, 20, 100]))}
        if rng.random() < 0.3:
            q["category"] = rng.choice(["penalty", "replay", "clock", "spot", "targeting",
                                        "other", "no_call", "catch"])
        if rng.random() < 0.3:
            q["status"] = rng.choice(["developing", "corroborated", "explained", "resolved"])
        if rng.random() < 0.2:
            q["has_verdict"] = rng.choice(["true", "false"])
        yield "/api/v1/incidents?" + urllib.parse.urlencode(common(rng, q, teams))


def game_queries(rng, n, teams):
    for _ in range(n):
        q = {"limit": str(rng.choice([1, 2, 3, 5, 20, 100]))}
        if rng.random() < 0.2:
            q["status"] = rng.choice(["upcoming", "live", "final", "postponed", "canceled"])
        if rng.random() < 0.5:
            q["sort"] = rng.choice(["kickoff", "recent"])
        yield "/api/v1/games?" + urllib.parse.urlencode(common(rng, q, teams))


def compare(a, b, paths):
    for p in paths:
        ra, rb = a.get(p), b.get(p)
        assert ra.status_code == rb.status_code == 200, (p, ra.text[:200], rb.text[:200])
        assert ra.content == rb.content, p


def test_the_index_answers_the_bytes_sql_answers(server_factory):
    a = start(server_factory)
    b = server_factory.start(db=a.db, extra=("--list-index-max", "0", "--no-worker"))
    listed = a.get("/api/v1/incidents?limit=100").json()["data"]
    wait_for_index(a, len(listed))
    teams = sorted({g[side]["id"] for g in FIXTURE_GAMES for side in ("homeTeam", "awayTeam")})
    rng = random.Random(13)
    paths = list(queries(rng, 300, teams)) + list(game_queries(rng, 200, teams))
    before, sql = served(a, "index"), served(a, "sql")
    compare(a, b, paths)
    # the index answered every request that reached the handler (the response cache answers
    # repeats), SQL none
    assert served(a, "index") - before > len(set(paths)) * 0.9
    assert served(a, "sql") == sql

    # a withdrawal: the next request no longer lists it, whatever the index holds
    gone = listed[1]["id"]
    db_sql(a.db, f"UPDATE incidents SET visibility = 'withdrawn' WHERE id = '{gone}'")
    ids = [i["id"] for i in a.get("/api/v1/incidents?limit=100&offset=0").json()["data"]]
    assert gone not in ids and len(ids) == len(listed) - 1
    # the node rebuilds its index at the new version and answers from it again
    wait_for_index(a, len(listed) - 1)
    before, sql = served(a, "index"), served(a, "sql")
    paths = list(queries(rng, 200, teams)) + list(game_queries(rng, 100, teams))
    compare(a, b, paths)
    assert served(a, "index") - before > len(set(paths)) * 0.9
    assert served(a, "sql") == sql
    assert not any(gone in a.get(p).text for p in paths)
