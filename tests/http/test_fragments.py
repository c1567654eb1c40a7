"""Pre-rendered incident fragments (issue 13; migration 023, store/fragments.h,
docs/architecture.md "Reads").

GET /api/v1/incidents/{id} and the list pages are written from each incident's stored
fragment with the live parts (tallies, comment count) spliced in. Proved here on both drivers,
with the response cache off so that every answer is rendered:

- every incident of the demo data and of the test fixtures (escapes included), and every list
  page, is byte-identical through its fragment and through its rows (every fragment made stale
  by hand: the readers fall back to the rows);
- fragments are really served (a fragment altered by hand shows), and a change to what one
  shows, made behind Whistle's back by SQL or by a command on another process, is never
  answered from the old fragment, on two nodes at once;
- the writes rebuild what they made stale: after a command, no fragment is stale;
- on SQLite the bodies are stored compressed once the database has a dictionary (migration
  030, store/fragcodec.h): the import stores its first 8 plain and makes the dictionary from
  them, `whistle migrate` compresses those, and both forms read the same bytes; a damaged
  compressed body is read from the rows, never sent.
"""

import pytest

import helpers
from helpers import I1, I2, db_rows, db_sql, run_cli

DEMO = helpers.REPO / "data" / "demo.json"


def paths(server):
    """Every incident detail path (published, withdrawn, merged) and every list page."""
    ids = [r[0] for r in db_rows(server.db, "SELECT id FROM incidents ORDER BY id")]
    out = ["/api/v1/incidents/" + i for i in ids]
    n = len(ids)
    for limit in (1, 7, 20, 100):
        out += [f"/api/v1/incidents?limit={limit}&offset={o}" for o in range(0, n + 1, limit)]
    out += ["/api/v1/incidents?has_verdict=true&limit=5", "/api/v1/incidents?status=resolved"]
    return out


def bodies(server, ps):
    got = {}
    for p in ps:
        r = server.get(p)
        got[p] = (r.status_code, r.headers.get("Location"), r.content)
    return got


def stale_count(db):
    return db_rows(db, "SELECT count(*) FROM fragment_stale")[0][0]


def fragment_count(db):
    return db_rows(db, "SELECT count(*) FROM incident_fragments")[0][0]


@pytest.mark.parametrize("doc", ["main.json", "escape.json", "pages.json", DEMO])
def test_fragments_and_rows_render_the_same_bytes(server_factory, doc):
    # no research worker: its periodic commits would rebuild the fragments made stale below
    # (the after-commit hook) before the count of stale ones is checked
    s = server_factory.start(doc=doc, extra=("--no-cache", "--no-worker"))
    # the import's commit rendered every incident's fragment
    assert stale_count(s.db) == 0
    if not helpers.PG:
        mixed = bodies(s, paths(s))  # some stored plain, the others compressed
        r = run_cli("migrate", "--db", s.db)
        assert r.returncode == 0, r.stderr
        kinds = dict(db_rows(s.db, "SELECT typeof(body), count(*) FROM incident_fragments"
                                   " GROUP BY 1"))
        # a dictionary is made of 8 bodies: a smaller database keeps them plain
        assert set(kinds) == ({"blob"} if fragment_count(s.db) >= 8 else {"text"}), kinds
        assert bodies(s, paths(s)) == mixed
    n = db_rows(s.db, "SELECT count(*) FROM incidents")[0][0]
    assert fragment_count(s.db) == n > 0
    ps = paths(s)
    through_fragments = bodies(s, ps)
    assert any(v[0] == 200 for v in through_fragments.values())
    # every fragment stale: the same answers from the rows
    db_sql(s.db, "INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents")
    assert stale_count(s.db) == n
    through_rows = bodies(s, ps)
    for p in ps:
        assert through_fragments[p] == through_rows[p], p


def test_a_fragment_is_served_until_what_it_shows_changes(server_factory):
    db = server_factory.new_db()
    a = server_factory.start(db=db, extra=("--no-cache",))
    b = server_factory.start(db=db)  # with its response cache
    path = "/api/v1/incidents/" + I1
    title = a.json(path)["data"]["title"]
    assert b.json(path)["data"]["title"] == title
    # an altered fragment shows: the answers come from the fragments (on SQLite the body is
    # read as the server stores it, perhaps compressed, and written back plain)
    body = helpers.fragment_body(db, I1)
    assert title in body
    helpers.set_fragment_body(db, I1, body.replace(title, "FROM THE FRAGMENT"))
    for node in (a, b):
        assert node.json(path)["data"]["title"] == "FROM THE FRAGMENT"
    # a hand edit of the row makes that fragment stale at once, on every node
    db_sql(db, f"UPDATE incidents SET title = 'Edited by hand' WHERE id = '{I1}'")
    for node in (a, b):
        assert node.json(path)["data"]["title"] == "Edited by hand"
        page = node.json("/api/v1/incidents?limit=100")["data"]
        assert [i["title"] for i in page if i["id"] == I1] == ["Edited by hand"]


@pytest.mark.parametrize("change", ["source", "question", "status", "team", "withdraw"])
def test_a_write_on_another_process_shows_on_the_next_request(server_factory, tmp_path, change):
    db = server_factory.new_db()
    # no research worker: its periodic commits would rebuild the stale fragments (the
    # after-commit hook) between the hand edit and the check that nothing rebuilt them
    a = server_factory.start(db=db, extra=("--no-cache", "--no-worker"))
    b = server_factory.start(db=db, extra=("--no-worker",))
    path = "/api/v1/incidents/" + I2
    before = a.get(path).content
    assert b.get(path).content == before
    if change == "source":
        r = run_cli("incident", "add-source", I2, "--url", "https://example.org/fragment-test",
                    "--kind", "report", "--title", "Fragment test", "--supports", "context",
                    "--db", db)
    elif change == "question":
        q = tmp_path / "q.json"
        q.write_text('{"question_type": "call_correct", "question_text": "Was the new call right?",'
                     ' "option_a_label": "Yes", "option_b_label": "No", "unsure_label": "Unsure",'
                     ' "factual_context": {}}')
        r = run_cli("incident", "set-question", I2, "--file", q, "--db", db)
    elif change == "status":
        r = run_cli("incident", "set-status", I2, "resolved", "--db", db)
    elif change == "team":
        # a team's name is in every of its incidents' matchup
        db_sql(db, "UPDATE teams SET name = 'Renamed Team' WHERE id IN"
                   f" (SELECT home_team_id FROM games WHERE id ="
                   f" (SELECT game_id FROM incidents WHERE id = '{I2}'))")

        class Ok:
            returncode = 0
        r = Ok()
    else:
        r = run_cli("incident", "withdraw", I2, "--db", db)
    assert r.returncode == 0, (r.stdout, r.stderr)
    after = a.get(path)
    assert b.get(path).content == after.content
    assert after.content != before
    if change == "withdraw":
        assert after.status_code == 404
        return
    if change == "team":
        assert "Renamed Team" in after.json()["data"]["matchup"]
        # a hand edit rebuilds nothing: the incident is read from its rows until a write does
        assert stale_count(db) > 0
    else:
        # the command's commit rebuilt what it made stale
        assert stale_count(db) == 0
    # and the answer is the rows' answer
    db_sql(db, "INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents WHERE true"
               " ON CONFLICT DO NOTHING")
    assert a.get(path).content == after.content


def test_migrate_renders_the_stale_fragments(server_factory):
    db = server_factory.new_db()
    db_sql(db, "INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents WHERE true"
               " ON CONFLICT DO NOTHING")
    db_sql(db, "DELETE FROM incident_fragments")
    r = run_cli("migrate", "--db", db)
    assert r.returncode == 0, r.stderr
    assert stale_count(db) == 0
    assert fragment_count(db) == db_rows(db, "SELECT count(*) FROM incidents")[0][0]


@pytest.mark.skipif(bool(helpers.PG), reason="SQLite's bodies are compressed (store/fragcodec.h)")
def test_a_damaged_compressed_body_is_read_from_the_rows(server_factory):
    db = server_factory.new_db()
    r = run_cli("migrate", "--db", db)
    assert r.returncode == 0, r.stderr
    s = server_factory.start(db=db, extra=("--no-cache", "--no-worker"))
    path = "/api/v1/incidents/" + I1
    want = s.get(path).content
    page = s.get("/api/v1/incidents?limit=100").content
    # the LZ4 block cut short: read from the incident's rows
    db_sql(db, f"UPDATE incident_fragments SET body = substr(body, 1, length(body) - 9)"
               f" WHERE incident_id = '{I1}'")
    assert db_rows(db, "SELECT typeof(body) FROM incident_fragments"
                       f" WHERE incident_id = '{I1}'")[0][0] == "blob"
    assert s.get(path).content == want
    assert s.get("/api/v1/incidents?limit=100").content == page
    # a dictionary the database does not hold (a process that never read it): every
    # incident from its rows, the same bytes
    db_sql(db, "UPDATE fragment_dicts SET id = id + 1")
    fresh = server_factory.start(db=db, extra=("--no-cache", "--no-worker"))
    assert fresh.get(path).content == want
    assert fresh.get("/api/v1/incidents?limit=100").content == page
