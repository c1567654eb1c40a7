"""The fragments' cache (issue 13; store/fragments.h fragments_read, docs/operators.md "The
fragments' cache"): an API read of incidents takes each incident from memory when it was read
at exactly the request's versions (content, tally), else from the database. Proved here on
both drivers (WHISTLE_TEST_PG), with the response cache off (--no-cache) so that every answer
is rendered:

- a node with the cache sends exactly the bytes of a node without it (--fragment-cache-mb 0)
  over the same database, for every single and list page, read twice (the second time from
  memory: GET /metrics counts it);
- every kind of write shows on the very next request, whoever made it: a ballot on this node
  or on the other, a command of another process, a hand edit followed by `whistle cache
  flush`;
- a small budget keeps the cache within it (the least recently used go) and changes no byte.
"""

import time

import pytest

import helpers
from helpers import I1, I2, db_rows, run_cli
from pagekit import Voter
from test_metrics import METRICS_RE, scrape, value

SLUG = "alpha-bravo-late-hit"  # I1: question version 1 (tests/http/test_votes.py)
LIMITS = ("--vote-limit-voter", "1000", "--vote-limit-ip", "100000", "--anon-vote-limit-ip",
          "100000", "--new-voter-limit-ip", "100000")


def node(server_factory, db, *extra):
    s = server_factory.start(db=db, extra=("--no-cache", "--no-worker", "--metrics-listen",
                                           "127.0.0.1:0") + LIMITS + extra)
    s.metrics_url = METRICS_RE.search(s.log_line(lambda ln: METRICS_RE.search(ln))).group(1)
    return s


def reads(s, answer):
    return value(scrape(s), "whistle_fragment_cache_reads_total", answer=answer)


def paths(db):
    ids = [r[0] for r in db_rows(db, "SELECT id FROM incidents ORDER BY id")]
    out = ["/api/v1/incidents/" + i for i in ids]
    for limit in (1, 3, 20):
        out += [f"/api/v1/incidents?limit={limit}&offset={o}" for o in range(0, len(ids) + 1, limit)]
    return out + ["/api/v1/incidents?has_verdict=true&limit=5", "/api/v1/incidents?status=resolved"]


def bodies(s, ps):
    return {p: (r.status_code, r.headers.get("Location"), r.content)
            for p, r in ((p, s.get(p)) for p in ps)}


def same(cached, plain, ps):
    """Both nodes answer every path with the same status, Location and bytes."""
    a, b = bodies(cached, ps), bodies(plain, ps)
    for p in ps:
        assert a[p] == b[p], p
    return a


def test_the_cache_answers_the_same_bytes_and_every_write_shows(server_factory, tmp_path):
    db = server_factory.new_db()
    cached = node(server_factory, db)
    plain = node(server_factory, db, "--fragment-cache-mb", "0")
    ps = paths(db)
    first = same(cached, plain, ps)
    assert any(v[0] == 200 for v in first.values())
    hits = reads(cached, "cache")
    assert same(cached, plain, ps) == first
    assert reads(cached, "cache") > hits  # the second round came from memory
    assert reads(plain, "cache") == 0 and reads(plain, "database") == 0

    # a ballot on this node, then on the other: the tallies of the next read move
    one = f"/api/v1/incidents/{I1}"
    for voting in (cached, plain):
        before = cached.json(one)["data"]["votes"]
        v = Voter(voting)
        v.view(f"/incidents/{SLUG}")
        r = v.vote(SLUG, "incorrect")
        assert r.status_code in (200, 303), r.text[:300]
        v.close()
        after = cached.json(one)["data"]["votes"]
        assert after != before
        assert after == plain.json(one)["data"]["votes"]
        page = cached.json("/api/v1/incidents?limit=100")["data"]
        assert [i["votes"] for i in page if i["id"] == I1] == [after]
        same(cached, plain, ps)

    # a command of another process
    r = run_cli("incident", "set-status", I2, "resolved", "--db", db)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert cached.json(f"/api/v1/incidents/{I2}")["data"]["status"] == "resolved"
    same(cached, plain, ps)
    r = run_cli("incident", "withdraw", I2, "--db", db)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert cached.get(f"/api/v1/incidents/{I2}").status_code == 404
    page = cached.json("/api/v1/incidents?limit=100")["data"]
    assert I2 not in [i["id"] for i in page]
    same(cached, plain, ps)

    # a hand edit, then `whistle cache flush` as docs/operators.md says
    db_rows(db, "SELECT 1")  # the file is there
    title = cached.json(one)["data"]["title"]
    from helpers import db_sql  # moves the content version as `whistle cache flush` does
    db_sql(db, f"UPDATE incidents SET title = 'Edited by hand' WHERE id = '{I1}'")
    assert cached.json(one)["data"]["title"] == "Edited by hand" != title
    same(cached, plain, ps)


def test_a_small_budget_stays_within_it(server_factory):
    db = server_factory.new_db()
    small = node(server_factory, db, "--fragment-cache-mb", "1")
    plain = node(server_factory, db, "--fragment-cache-mb", "0")
    ps = paths(db)
    first = same(small, plain, ps)
    for _ in range(3):
        assert same(small, plain, ps) == first
    held = value(scrape(small), "whistle_fragment_cache_bytes")
    assert 0 < held <= 1 << 20


def loaded(s):
    """Waits (bounded) for the node's copy of the bodies to finish loading; its entries."""
    for _ in range(100):
        text = scrape(s)
        if value(text, "whistle_fragment_bodies_loaded") == 1:
            return value(text, "whistle_fragment_bodies")
        time.sleep(0.05)
    raise AssertionError("the copy of the bodies did not load")


@pytest.mark.skipif(not helpers.PG, reason="the node's copy of the bodies is PostgreSQL's")
def test_the_copy_of_the_bodies_answers_by_hash(server_factory):
    """PostgreSQL (store/bodies.h): a node loads every body at start, then asks the database
    for the facts and hashes alone and takes the bodies from its copy, byte for byte what a
    node without it (and without the fragments' cache) sends; a body changed in the database,
    by a command of another process or by hand, is the one served on the next request, on
    both; a withdrawal is never answered from the copy."""
    db = server_factory.new_db()
    copy = node(server_factory, db)
    plain = node(server_factory, db, "--fragment-bodies-mb", "0", "--fragment-cache-mb", "0")
    n = db_rows(db, "SELECT count(*) FROM incident_fragments WHERE body IS NOT NULL")[0][0]
    assert loaded(copy) == n > 0
    assert loaded(plain) == 0
    ps = paths(db)
    first = same(copy, plain, ps)
    asked = value(scrape(copy), "whistle_fragment_bodies_reads_total", answer="copy")
    assert asked > 0
    assert value(scrape(copy), "whistle_fragment_bodies_reads_total", answer="database") == 0
    assert same(copy, plain, ps) == first

    one = f"/api/v1/incidents/{I1}"
    title = copy.json(one)["data"]["title"]
    from helpers import db_sql
    # the body itself edited by hand: its hash moves with it (the trigger), and a node with
    # the old body in its copy asks for the new one (the fragments' cache flushed, as
    # docs/operators.md says for a hand edit)
    db_sql(db, f"UPDATE incident_fragments SET body = replace(body, '{title}', 'FROM THE BODY')"
               f" WHERE incident_id = '{I1}'")
    run_cli("cache", "flush", "--db", db)
    assert copy.json(one)["data"]["title"] == "FROM THE BODY" == plain.json(one)["data"]["title"]
    assert value(scrape(copy), "whistle_fragment_bodies_reads_total", answer="database") == 1
    same(copy, plain, ps)
    r = run_cli("incident", "set-status", I2, "resolved", "--db", db)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert copy.json(f"/api/v1/incidents/{I2}")["data"]["status"] == "resolved"
    same(copy, plain, ps)
    r = run_cli("incident", "withdraw", I2, "--db", db)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert copy.get(f"/api/v1/incidents/{I2}").status_code == 404
    page = copy.json("/api/v1/incidents?limit=100")["data"]
    assert I2 not in [i["id"] for i in page]
    same(copy, plain, ps)


def tally_copy_ready(s, loads=1):
    """Waits (bounded: 30 s) until the node has read its tally copy (loads: how many times)
    and a list page is answered from its list index of the current content version, so that
    its list pages read their incidents by key with the tallies from the copy."""
    deadline = time.monotonic() + 30
    k = 0
    while time.monotonic() < deadline:
        text = scrape(s)
        if value(text, "whistle_tally_copy_loads_total") >= loads:
            before = value(text, "whistle_list_index_requests_total", answer="index")
            k += 1
            assert s.get(f"/api/v1/incidents?limit=1&offset={k}&week=0").status_code == 200
            if value(scrape(s), "whistle_list_index_requests_total", answer="index") > before:
                return
        time.sleep(0.05)
    raise AssertionError(f"no tally copy and list index: {s.lines[-5:]}")


def copy_reads(s):
    return value(scrape(s), "whistle_tally_copy_reads_total")


def test_the_tally_copy_answers_what_the_database_holds(server_factory):
    """Both drivers (store/tallies.h, migrations 029 and 031): a node reads every incident's
    tallies at start and its list pages take them from that copy instead of the tally rows,
    sending exactly the bytes of a node without it (and without the fragments' cache, so that
    every page is read);
    a ballot on this node, one on the other node (another process: the change feed brings it),
    and a hand edit followed by the content version's move each show on the very next list
    page."""
    db = server_factory.new_db()
    copy = node(server_factory, db, "--fragment-cache-mb", "0")
    plain = node(server_factory, db, "--tally-copy-mb", "0", "--fragment-cache-mb", "0")
    tally_copy_ready(copy)
    tally_copy_ready(plain, loads=0)  # its list index (it has no copy)
    ps = paths(db)
    same(copy, plain, ps)
    assert copy_reads(copy) > 0
    assert copy_reads(plain) == 0
    assert value(scrape(plain), "whistle_tally_copy_incidents") == 0

    def listed(s):
        page = s.json("/api/v1/incidents?limit=100")["data"]
        return [i["votes"] for i in page if i["id"] == I1]

    for voting in (copy, plain, copy):
        before = listed(copy)
        caught = value(scrape(copy), "whistle_tally_copy_checks_total", answer="caught_up")
        v = Voter(voting)
        v.view(f"/incidents/{SLUG}")
        r = v.vote(SLUG, "incorrect" if voting is plain else "correct")
        assert r.status_code in (200, 303), r.text[:300]
        v.close()
        reads_before = copy_reads(copy)
        after = listed(copy)
        assert after != before and after == listed(plain)
        assert copy_reads(copy) > reads_before  # from the copy, caught up
        assert value(scrape(copy), "whistle_tally_copy_checks_total", answer="caught_up") > caught
        same(copy, plain, ps)

    # a hand edit of the tally rows, then the content version moved (helpers.db_sql, as
    # docs/operators.md says for any hand edit)
    from helpers import db_sql
    db_sql(db, f"UPDATE vote_tallies SET correct = correct + 40 WHERE incident_id = '{I1}'")
    edited = listed(copy)
    assert edited == listed(plain) and edited != after
    same(copy, plain, ps)
