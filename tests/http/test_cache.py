"""The response cache survives a ballot flood (issue 20 item 5; src/http/cache.h,
docs/architecture.md "Response cache").

A cached public body is validated by two versions: the content version (every committed
write but ballots) and the tally version (ballots), plus the incidents whose tallies the body
shows. The X-Whistle-Cache response header (hit | miss, docs/operators.md) and the
whistle_http_cache_total counter of /metrics make the cache's decisions observable. Proved here, on both drivers, counting hits and misses and never
timing anything:

- a ballot on incident A keeps B's cached JSON and a list page without A as hits, while A's
  JSON and a list containing A become misses and show the new tally at once;
- a withdrawal, a merge, an edit (set-status), a comment, and a hand edit followed by the
  documented bump empty every cached body at once.
The multi-node version (a ballot and a withdrawal through one node seen through another) is
in test_multinode.py.
"""

import os
import sqlite3

import pytest

import helpers
from commentkit import Kit
from helpers import I1, I2, I5, I7, db_sql, run_cli
from pagekit import Voter, api_votes
from test_metrics import scrape
from test_metrics import start as metrics_start

A, A_SLUG = I1, "alpha-bravo-late-hit"  # question version 1, 7 ballots in main.json
B = I2  # another debate, another game
LIST_WITHOUT_A = "/api/v1/incidents?game_id=nfl:2025-wk01-kc-bal"  # B's game
LIST_WITH_A = "/api/v1/incidents?limit=100"


def state(server, path):
    r = server.get(path)
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return r.headers.get("X-Whistle-Cache"), r.json()


def primed(server, path, tries=20):
    """GETs path until the serving thread's cache answers (bounded: every thread's first
    answer is a miss); returns the body."""
    for _ in range(tries):
        how, body = state(server, path)
        if how == "hit":
            return body
    raise AssertionError(f"{path} never came from the cache in {tries} requests")


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r


@pytest.fixture
def one(server_factory):
    """One server, one request thread: every cache decision is deterministic."""
    return server_factory.start(threads=1)


def test_header_says_miss_then_hit(one):
    assert state(one, f"/api/v1/incidents/{B}")[0] == "miss"
    assert state(one, f"/api/v1/incidents/{B}")[0] == "hit"
    # not a cacheable route: no header
    assert "X-Whistle-Cache" not in one.get("/healthz").headers


def test_metrics_count_hits_and_misses(server_factory):
    s = metrics_start(server_factory, threads=1)
    for _ in range(3):
        s.get(f"/api/v1/incidents/{B}")
    s.get("/healthz")
    text = scrape(s)
    assert 'whistle_http_cache_total{result="hit"} 2' in text.splitlines()
    assert 'whistle_http_cache_total{result="miss"} 1' in text.splitlines()


def test_ballot_keeps_bodies_without_its_tallies(one):
    paths = [f"/api/v1/incidents/{A}", f"/api/v1/incidents/{B}", LIST_WITHOUT_A, LIST_WITH_A]
    before = {p: primed(one, p) for p in paths}
    assert A not in [i["id"] for i in before[LIST_WITHOUT_A]["data"]]
    assert A in [i["id"] for i in before[LIST_WITH_A]["data"]]
    total = before[paths[0]]["data"]["votes"]["total"]

    v = Voter(one)
    v.view(f"/incidents/{A_SLUG}")
    assert v.vote(A_SLUG, "correct").status_code == 200

    # bodies without A's tallies: still cached, unchanged
    assert state(one, f"/api/v1/incidents/{B}") == ("hit", before[f"/api/v1/incidents/{B}"])
    assert state(one, LIST_WITHOUT_A) == ("hit", before[LIST_WITHOUT_A])
    # bodies with A's tallies: rendered again, with the ballot
    how, body = state(one, f"/api/v1/incidents/{A}")
    assert how == "miss" and body["data"]["votes"]["total"] == total + 1
    how, body = state(one, LIST_WITH_A)
    assert how == "miss"
    assert next(i for i in body["data"] if i["id"] == A)["votes"]["total"] == total + 1
    # and cached again under the new versions
    assert state(one, f"/api/v1/incidents/{A}")[0] == "hit"
    # the incident page (not cached) shows the ballot too
    r = one.get(f"/incidents/{A_SLUG}")
    assert r.status_code == 200

    # a change of the ballot (correct -> incorrect) moves no total but still shows
    assert v.vote(A_SLUG, "incorrect").status_code == 200
    how, body = state(one, f"/api/v1/incidents/{A}")
    assert how == "miss" and body["data"]["votes"]["total"] == total + 1
    assert body["data"] != before[paths[0]]["data"]
    assert state(one, f"/api/v1/incidents/{B}")[0] == "hit"
    v.close()


def test_the_same_ballot_again_changes_nothing_cached(one):
    v = Voter(one)
    v.view(f"/incidents/{A_SLUG}")
    assert v.vote(A_SLUG, "unsure").status_code == 200
    primed(one, f"/api/v1/incidents/{A}")
    assert v.vote(A_SLUG, "unsure").status_code == 200
    # the tally version moved, the tallies did not: the body is still valid
    assert state(one, f"/api/v1/incidents/{A}")[0] == "hit"
    v.close()


@pytest.mark.parametrize("change", ["withdraw", "merge", "set-status", "hand-edit"])
def test_every_other_write_empties_the_cache(one, change):
    paths = [f"/api/v1/incidents/{B}", LIST_WITHOUT_A, f"/api/v1/incidents/{A}"]
    for p in paths:
        primed(one, p)
    if change == "withdraw":
        ok(run_cli("incident", "withdraw", I5, "--db", one.db))
    elif change == "merge":
        ok(run_cli("incident", "merge", I7, "--force", "--into", I1, "--db", one.db))
    elif change == "set-status":
        ok(run_cli("incident", "set-status", B, "explained", "--db", one.db))
    else:
        db_sql(one.db, f"UPDATE incidents SET title = 'Edited by hand' WHERE id = '{B}'")
    for p in paths:
        assert state(one, p)[0] == "miss", (change, p)
    if change == "set-status":
        assert state(one, f"/api/v1/incidents/{B}")[1]["data"]["status"] == "explained"
    if change == "hand-edit":
        assert state(one, f"/api/v1/incidents/{B}")[1]["data"]["title"] == "Edited by hand"
    if change == "withdraw":
        assert one.get(f"/api/v1/incidents/{I5}").status_code == 404


def raw_sql(db, sql):
    """An edit behind Whistle's back that moves no cache version (what db_sql adds)."""
    if helpers.PG:
        helpers.psql(sql, helpers._pg_dbs[os.path.abspath(str(db))])
        return
    con = sqlite3.connect(str(db))
    try:
        with con:
            con.execute(sql)
    finally:
        con.close()


def test_a_hand_edit_shows_after_cache_flush(one):
    """docs/operators.md: an edit with psql or sqlite3 moves no version, so cached bodies
    stay until `whistle cache flush`."""
    path = f"/api/v1/incidents/{B}"
    before = primed(one, path)
    raw_sql(one.db, f"UPDATE incidents SET title = 'Edited behind its back' WHERE id = '{B}'")
    assert state(one, path) == ("hit", before)
    r = ok(run_cli("cache", "flush", "--db", one.db))
    assert "flushed" in r.stdout
    how, body = state(one, path)
    assert how == "miss" and body["data"]["title"] == "Edited behind its back"


def test_a_comment_empties_the_cache(server_factory, tmp_path):
    k = Kit(server_factory, tmp_path, extra=("--comment-limit-ip", "100000"))
    try:
        b = k.user()
        path = f"/api/v1/incidents/{A}"
        primed(k.server, path)
        k.posted(b, body="A comment that waits for moderation.")
        # whichever request thread answers, its entry is stale now
        assert state(k.server, path)[0] == "miss"
    finally:
        k.close()


def test_votes_api_agrees_after_a_ballot(one):
    """api_votes reads through the cache too: the next read has the ballot."""
    before = api_votes(one, A)["total"]
    v = Voter(one)
    v.view(f"/incidents/{A_SLUG}")
    assert v.vote(A_SLUG, "correct").status_code == 200
    assert api_votes(one, A)["total"] == before + 1
    v.close()
