"""`whistle import` / `whistle export`: atomicity, error paths, idempotent re-import,
export -> import round-trip, defaults, feeding API objects back in, --json, --if-empty."""

import copy
import datetime as dt
import json
import re

import pytest

from helpers import (BASE, DUPLICATE, I1, I7, I8, INCIDENT_ORDER, WITHDRAWN, canon, export_db,
                     import_doc, list_all, load_fixture, parse_ts, run_cli)

NEW_INC = "f0f0f0f0-0000-4000-8000-00000000000f"


def fresh_db(tmp_path, name="db"):
    d = tmp_path / name
    d.mkdir()
    return d / "whistle.db"


def seeded_db(tmp_path, name="db"):
    db = fresh_db(tmp_path, name)
    r = import_doc(db, load_fixture("main.json"), tmp_path)
    assert r.returncode == 0, r.stderr
    return db


def bigger_doc():
    """main.json plus a new team, game and incident, and two edits of existing rows; a bad
    value placed anywhere in it must roll all of that back."""
    doc = load_fixture("main.json")
    doc["teams"].append({"id": "new-team", "name": "New Team", "abbreviation": "NEW",
                         "league": "college"})
    doc["games"].append({"id": "new:game", "homeTeam": {"id": "new-team"},
                         "awayTeam": {"id": "alpha-u"}, "status": "upcoming", "season": 2026,
                         "week": 2, "league": "college", "startsAt": "2026-09-05T16:00:00Z"})
    doc["incidents"].append({"id": NEW_INC, "game_id": "new:game", "title": "New incident",
                             "play_description": "A new incident.", "category": "spot",
                             "published_at": "2026-09-05T20:00:00Z",
                             "debate_question": {"question_type": "ruling",
                                                 "question_text": "Was the spot right?",
                                                 "option_a_label": "Yes", "option_b_label": "No",
                                                 "unsure_label": "Unsure"},
                             "ballots": [{"choice": "correct", "rooting": "home"}]})
    doc["incidents"][0]["title"] = "CHANGED TITLE"
    doc["games"][0]["homeScore"] = 99
    assert len(doc["teams"]) == 8 and len(doc["games"]) == 14 and len(doc["incidents"]) == 13
    return doc


def _set(path, value):
    def f(doc):
        obj = doc
        parts = re.findall(r"[^.\[\]]+", path)
        for p in parts[:-1]:
            obj = obj[int(p)] if p.isdigit() else obj[p]
        last = parts[-1]
        if last.isdigit():
            obj[int(last)] = value
        else:
            obj[last] = value
    return f


BAD = [
    ("incidents[12].category", "foul", ["incidents[12].category", '"foul"']),
    ("incidents[6].sources[1].source_kind", "podcast", ["incidents[6].sources[1].source_kind", "podcast"]),
    ("incidents[12].id", "not-a-uuid", ["incidents[12].id"]),
    ("incidents[12].id", NEW_INC.upper(), ["incidents[12].id"]),
    ("incidents[12].game_id", "no-such-game", ["incidents[12].game_id"]),
    ("incidents[12].game_id", "bad id", ["incidents[12].game_id"]),
    ("games[0].week", "3", ["games[0].week"]),
    ("games[13].season", 1999, ["games[13].season"]),
    ("games[13].week", 31, ["games[13].week"]),
    ("games[13].status", "halftime", ["games[13].status"]),
    ("games[13].league", "xfl", ["games[13].league"]),
    ("games[13].seasonType", "bowl", ["games[13].seasonType"]),
    ("games[13].homeTeam", {"id": "ghost-team"}, ["games[13].homeTeam"]),
    ("games[13].awayTeam", {"id": "new-team"}, ["games[13]"]),
    ("games[13].startsAt", "2026-09-05 16:00", ["games[13].startsAt"]),
    ("games[5].homeScore", -1, ["games[5].homeScore"]),
    ("games[5].kickoffTbd", "no", ["games[5].kickoffTbd"]),
    ("teams[7].league", "xfl", ["teams[7].league"]),
    ("teams[0].name", "", ["teams[0].name"]),
    ("teams[7].id", "bad id!", ["teams[7].id"]),
    ("teams[7].aliases", "NT", ["teams[7].aliases"]),
    ("incidents[0].debate_question.option_a_label", "", ["incidents[0].debate_question.option_a_label"]),
    ("incidents[0].ballots[2].choice", "maybe", ["incidents[0].ballots[2].choice"]),
    ("incidents[12].ballots[0].rooting", "fan", ["incidents[12].ballots[0].rooting"]),
    ("incidents[12].duplicate_of", DUPLICATE, ["incidents[12].duplicate_of"]),
    ("incidents[0].sources[0].url", "ftp://files.example/x", ["incidents[0].sources[0].url"]),
    ("incidents[12].published_at", "2025-13-01T00:00:00Z", ["incidents[12].published_at"]),
    ("incidents[12].period", 31, ["incidents[12].period"]),
    ("incidents[12].slug", "Bad Slug", ["incidents[12].slug"]),
    ("incidents[12].comment_count", 1.5, ["incidents[12].comment_count"]),
    ("incidents[12].visibility", "merged", ["incidents[12].visibility"]),
    ("incidents[12].status", "published", ["incidents[12].status"]),
    ("incidents[12].origin_kind", "robot", ["incidents[12].origin_kind"]),
    ("incidents[12].title", "", ["incidents[12].title"]),
    ("incidents[12].title", None, ["incidents[12].title"]),
    ("incidents[12].provenance", "import", ["incidents[12].provenance"]),
    ("incidents[1].question_history[0].question_version", 2, ["incidents[1].question_history[0]"]),
    ("incidents[12].title", "Late\u0000hit", ["incidents[12].title", "NUL"]),
    ("teams[7].aliases", ["NT", "N\u0000T"], ["teams[7].aliases[1]", "NUL"]),
    ("incidents[12].provenance", {"discovery": {"kind": "x\u0000"}},
     ["incidents[12].provenance.discovery.kind", "NUL"]),
    ("incidents[2].colour", "red", ["incidents[2]", "colour"]),
    ("games[3].homeScor", 1, ["games[3]", "homeScor"]),
    ("extras", [], ["extras"]),
]


@pytest.mark.parametrize("path,value,fragments", BAD, ids=[f"{p}={v!r}"[:60] for p, v, _ in BAD])
def test_bad_value_rejects_whole_file(tmp_path, whistle_bin, path, value, fragments):
    db = seeded_db(tmp_path)
    before = export_db(db)
    doc = bigger_doc()
    _set(path, value)(doc)
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    err = r.stderr.strip()
    assert err.startswith("whistle: "), err
    assert len(err.splitlines()) == 1, err
    for f in fragments:
        assert f in err, (f, err)
    assert export_db(db) == before


@pytest.mark.parametrize("links", [
    [(6, I8), (7, I1)],  # I7 into I8, then I8 (which now has a duplicate) into I1
    [(6, I1), (12, I7)],  # I7 into I1, then the new incident into the duplicate I7
    [(6, DUPLICATE)],  # I7 into DUPLICATE, which the file merges into I1 again
])
def test_duplicate_chains_refused(tmp_path, whistle_bin, links):
    # the same rule as `whistle incident merge`: a duplicate's survivor is never itself a
    # duplicate, and an incident that others were merged into never becomes one
    db = seeded_db(tmp_path)
    before = export_db(db)
    doc = bigger_doc()
    for index, into in links:
        doc["incidents"][index]["duplicate_of"] = into
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert re.search(r"incidents\[\d+\]\.duplicate_of: ", err), err
    assert "chain" in err or "itself a duplicate" in err, err
    assert export_db(db) == before


def test_duplicate_chain_with_database_duplicate_refused(tmp_path, whistle_bin):
    # I1 already has DUPLICATE merged into it (in the database, not in the file)
    db = seeded_db(tmp_path)
    before = export_db(db)
    doc = {"incidents": [dict(load_fixture("main.json")["incidents"][0], duplicate_of=I7)]}
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 1, r.stderr
    assert "incidents[0].duplicate_of: " in r.stderr and "chain" in r.stderr, r.stderr
    assert export_db(db) == before


def test_unreadable_file_message(tmp_path, whistle_bin):
    r = run_cli("import", tmp_path / "missing.json", "--db", fresh_db(tmp_path))
    assert r.returncode == 1
    err = r.stderr.strip()
    assert "missing.json" in err and "line -1" not in err, err


def test_bad_category_message_lists_allowed_values(tmp_path, whistle_bin):
    db = seeded_db(tmp_path)
    doc = bigger_doc()
    doc["incidents"][12]["category"] = "foul"
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 1
    err = r.stderr.strip()
    assert re.search(r'incidents\[12\]\.category: "foul" is not one of', err), err
    for v in ("penalty", "replay", "clock", "spot", "targeting", "other", "no_call", "catch"):
        assert v in err


def test_rejected_file_writes_nothing_visible_in_api(server_factory, tmp_path):
    s = server_factory.start()
    before_games = s.json("/api/v1/games?limit=100")
    before_incidents = s.json("/api/v1/incidents?limit=100")
    doc = bigger_doc()
    doc["incidents"][12]["category"] = "foul"  # the very last value of the file
    r = import_doc(s.db, doc, tmp_path)
    assert r.returncode == 1
    assert s.get("/api/v1/games/new:game").status_code == 404
    assert s.get(f"/api/v1/incidents/{NEW_INC}").status_code == 404
    assert s.json(f"/api/v1/incidents/{I1}")["data"]["title"] == "Late hit flag on the final drive"
    assert s.json("/api/v1/games/cfb:2024-w01-b")["data"]["homeScore"] == 10
    assert s.json("/api/v1/games?team_id=new-team") == {
        "data": [], "pagination": {"limit": 20, "offset": 0, "nextOffset": None}}
    assert s.json("/api/v1/games?limit=100") == before_games
    assert s.json("/api/v1/incidents?limit=100") == before_incidents
    # the same file without the bad value goes in completely
    doc["incidents"][12]["category"] = "spot"
    r = import_doc(s.db, doc, tmp_path)
    assert r.returncode == 0, r.stderr
    assert s.json("/api/v1/games/new:game")["data"]["homeTeam"]["name"] == "New Team"
    assert s.json(f"/api/v1/incidents/{NEW_INC}")["data"]["votes"]["total"] == 1
    assert s.json(f"/api/v1/incidents/{I1}")["data"]["title"] == "CHANGED TITLE"
    assert s.json("/api/v1/games/cfb:2024-w01-b")["data"]["homeScore"] == 99


@pytest.mark.parametrize("content", ['{"games": [', "[]", '"x"', "", '{"games": {}}',
                                     '{"teams": [], "teams": []}'])
def test_malformed_documents_refused(tmp_path, whistle_bin, content):
    db = seeded_db(tmp_path)
    before = export_db(db)
    p = tmp_path / "bad.json"
    p.write_text(content, encoding="utf-8")
    r = run_cli("import", p, "--db", db)
    assert r.returncode == 1, (content, r.returncode, r.stderr)
    err = r.stderr.strip()
    assert err.startswith("whistle: ") and len(err.splitlines()) == 1, err
    assert export_db(db) == before


def test_missing_file_refused(tmp_path, whistle_bin):
    db = seeded_db(tmp_path)
    r = run_cli("import", tmp_path / "nope.json", "--db", db)
    assert r.returncode == 1
    assert r.stderr.strip().startswith("whistle: ") and "nope.json" in r.stderr


def test_import_json_counts(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    p = tmp_path / "main.json"
    p.write_text(json.dumps(load_fixture("main.json")), encoding="utf-8")
    r = run_cli("import", p, "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"teams": 7, "games": 13, "incidents": 12, "comments": 0}


# ------------------------------------------------------------------ idempotence / round trip


def snapshot(server):
    """Every public response of a database, for comparisons."""
    snap = {"games": list_all(server, "/api/v1/games"),
            "games_recent": list_all(server, "/api/v1/games?sort=recent", limit=5),
            "incidents": list_all(server, "/api/v1/incidents", limit=3)}
    for g in snap["games"]:
        snap["game " + g["id"]] = server.json(f"/api/v1/games/{g['id']}")
    for i in snap["incidents"]:
        snap["incident " + i["id"]] = server.json(f"/api/v1/incidents/{i['id']}")
    for iid in (WITHDRAWN, DUPLICATE):
        r = server.get(f"/api/v1/incidents/{iid}")
        snap["hidden " + iid] = (r.status_code, r.headers.get("Location"), r.text)
    return snap


def without_source_ids(obj):
    obj = copy.deepcopy(obj)
    for k, v in obj.items():
        if k.startswith("incident "):
            for s in v["data"]["sources"]:
                s.pop("id")
    return obj


def test_reimport_same_file_changes_nothing(server_factory, tmp_path):
    s = server_factory.start()
    before_export = export_db(s.db)
    before = snapshot(s)
    for _ in range(2):
        r = import_doc(s.db, load_fixture("main.json"), tmp_path)
        assert r.returncode == 0, r.stderr
    assert export_db(s.db) == before_export
    after = snapshot(s)
    assert after == before  # including source ids and vote totals (ballots not doubled)
    assert after["incident " + I1]["data"]["votes"]["total"] == 7


def test_reimport_defaults_file_changes_nothing(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    p = tmp_path / "d.json"
    p.write_text(json.dumps(load_fixture("defaults.json")), encoding="utf-8")
    assert run_cli("import", p, "--db", db).returncode == 0
    first = export_db(db)
    assert run_cli("import", p, "--db", db).returncode == 0
    assert export_db(db) == first


def test_export_import_round_trip(server_factory, tmp_path):
    a = server_factory.start()
    exported = export_db(a.db)
    doc = json.loads(exported)
    assert set(doc) <= {"teams", "games", "incidents"}
    by_id = {i["id"]: i for i in doc["incidents"]}
    assert by_id[WITHDRAWN]["visibility"] == "withdrawn"
    assert by_id[DUPLICATE]["duplicate_of"] == I1
    assert len(doc["games"]) == 13 and len(doc["incidents"]) == 12
    p = tmp_path / "export.json"
    p.write_text(exported, encoding="utf-8")
    db_b = fresh_db(tmp_path, "b")
    r = run_cli("import", p, "--db", db_b)
    assert r.returncode == 0, r.stderr
    b = server_factory.start(db=db_b)
    sa, sb = snapshot(a), snapshot(b)
    assert set(sa) == set(sb)
    assert without_source_ids(sb) == without_source_ids(sa)
    # and the export of the copy is the same document (source ids aside)
    doc_b = json.loads(export_db(db_b))
    for d in (doc, doc_b):
        for i in d["incidents"]:
            for src in i.get("sources", []):
                src.pop("id", None)
    assert doc_b == doc


def test_round_trip_after_cli_changes(server_factory, tmp_path):
    a = server_factory.start()
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"question_type": "ruling", "question_text": "New question?",
                             "option_a_label": "A", "option_b_label": "B",
                             "unsure_label": "?"}), encoding="utf-8")
    for args in (["incident", "set-question", I1, "--file", q],
                 ["incident", "merge", I7, "--force", "--into", I1],
                 ["incident", "set-status", "88888888-8888-4888-8888-888888888888", "explained"],
                 ["incident", "withdraw", "99999999-9999-4999-8999-999999999999"]):
        r = run_cli(*args, "--db", a.db)
        assert r.returncode == 0, (args, r.stderr)
    p = tmp_path / "export.json"
    p.write_text(export_db(a.db), encoding="utf-8")
    db_b = fresh_db(tmp_path, "b")
    assert run_cli("import", p, "--db", db_b).returncode == 0
    b = server_factory.start(db=db_b)
    sa, sb = snapshot(a), snapshot(b)
    assert without_source_ids(sb) == without_source_ids(sa)
    assert sb["incident " + I1]["data"]["debate_question"]["question_version"] == 2
    assert b.get(f"/api/v1/incidents/{I7}").status_code == 308
    assert b.get("/api/v1/incidents/99999999-9999-4999-8999-999999999999").status_code == 404


def test_ballots_are_replaced_not_added(server_factory, tmp_path):
    s = server_factory.start()
    doc = load_fixture("main.json")
    inc = next(i for i in doc["incidents"] if i["id"] == I1)
    inc["ballots"] = [{"choice": "incorrect", "rooting": "away"},
                      {"choice": "unsure", "rooting": None}]
    r = import_doc(s.db, {"incidents": [inc]}, tmp_path)
    assert r.returncode == 0, r.stderr
    v = s.json(f"/api/v1/incidents/{I1}")["data"]["votes"]
    assert v == {"total": 2, "counts": {"correct": 0, "incorrect": 1, "unsure": 1},
                 "percentages": {"correct": 0, "incorrect": 50.0, "unsure": 50.0},
                 "rooting": {"away": {"correct": 0, "incorrect": 1, "unsure": 0},
                             "unspecified": {"correct": 0, "incorrect": 0, "unsure": 1}}}


# ------------------------------------------------------------------ defaults


def test_defaults(server_factory, tmp_path):
    db = fresh_db(tmp_path)
    p = tmp_path / "d.json"
    p.write_text(json.dumps(load_fixture("defaults.json")), encoding="utf-8")
    t0 = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=2)
    r = run_cli("import", p, "--db", db, "--json")
    t1 = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2)
    assert r.returncode == 0, r.stderr
    counts = json.loads(r.stdout)
    assert counts["games"] == 1 and counts["incidents"] == 1
    s = server_factory.start(db=db)
    g = s.json("/api/v1/games/d:game-1")["data"]
    assert g["homeTeam"] == {"id": "d-home", "name": "Home Only", "abbreviation": "HOM",
                             "logoUrl": None, "conference": None, "league": None,
                             "division": None, "shortName": None, "active": True, "aliases": []}
    assert g["awayTeam"]["league"] == "college"
    for k in ("homeScore", "awayScore", "startsAt", "period", "clock", "stageLabel"):
        assert g[k] is None, k
    assert g["kickoffTbd"] is False and g["seasonType"] == "regular"
    assert t0 <= parse_ts(g["createdAt"]) <= t1 and t0 <= parse_ts(g["updatedAt"]) <= t1
    i = s.json("/api/v1/incidents/d0d0d0d0-0000-4000-8000-000000000001")["data"]
    assert t0 <= parse_ts(i["published_at"]) <= t1
    assert parse_ts(i["created_at"]) == parse_ts(i["published_at"]) == parse_ts(i["updated_at"])
    assert i["status"] == "developing" and i["origin_kind"] == "migration"
    assert i["provenance"] == {"discovery": {"kind": "migration"}, "research": {"kind": "editorial"},
                               "publication": {"kind": "import"}}
    for k in ("neutral_summary", "period", "clock", "original_ruling", "final_ruling",
              "replay_involved", "consequence", "reviewed_at", "penalty_called",
              "debate_question", "duplicate_of"):
        assert i[k] is None, k
    assert i["comment_count"] == 0 and i["sources"] == [] and i["question_history"] == []
    assert i["ruling_version"] == 1 and i["display_question"] == "Late Flag: Pass Interference?"
    assert i["votes"]["total"] == 0 and i["votes"]["rooting"] == {}
    assert isinstance(i["slug"], str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i["slug"])
    assert len(i["slug"]) <= 120
    assert i["public_url"] == f"{BASE}/incidents/{i['slug']}"
    assert i["matchup"] == "Away Only at Home Only"


def test_derived_slug_never_changes(server_factory, tmp_path):
    db = fresh_db(tmp_path)
    doc = load_fixture("defaults.json")
    assert import_doc(db, doc, tmp_path).returncode == 0
    s = server_factory.start(db=db)
    iid = "d0d0d0d0-0000-4000-8000-000000000001"
    slug = s.json(f"/api/v1/incidents/{iid}")["data"]["slug"]
    doc["incidents"][0]["title"] = "A completely different headline"
    assert import_doc(db, doc, tmp_path).returncode == 0
    d = s.json(f"/api/v1/incidents/{iid}")["data"]
    assert d["title"] == "A completely different headline"
    assert d["slug"] == slug


def test_api_objects_can_be_fed_back(ro_server, server_factory, tmp_path):
    game = ro_server.json("/api/v1/games/cfb:2025-w13")["data"]
    item = next(i for i in ro_server.json("/api/v1/incidents?limit=100")["data"] if i["id"] == I7)
    db = fresh_db(tmp_path)
    r = import_doc(db, {"games": [game], "incidents": [item]}, tmp_path)
    assert r.returncode == 0, r.stderr
    s = server_factory.start(db=db)
    assert s.json("/api/v1/games/cfb:2025-w13")["data"] == game
    got = s.json(f"/api/v1/incidents/{I7}")["data"]
    # votes are server-derived (ignored on import): no ballots came with the object
    assert got["votes"] == {"total": 0, "counts": {"correct": 0, "incorrect": 0, "unsure": 0},
                            "percentages": {"correct": 0, "incorrect": 0, "unsure": 0},
                            "rooting": {}}
    want = dict(item, votes=got["votes"])
    assert canon({k: got[k] for k in want}) == canon(want)


def test_if_empty(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    main = tmp_path / "main.json"
    main.write_text(json.dumps(load_fixture("main.json")), encoding="utf-8")
    d = tmp_path / "d.json"
    d.write_text(json.dumps(load_fixture("defaults.json")), encoding="utf-8")
    r = run_cli("import", main, "--db", db, "--if-empty")
    assert r.returncode == 0, r.stderr
    first = export_db(db)
    assert len(json.loads(first)["games"]) == 13
    r = run_cli("import", d, "--db", db, "--if-empty")
    assert r.returncode == 0, r.stderr
    assert export_db(db) == first
    assert "d:game-1" not in first


def test_withdrawn_visibility_can_be_reversed_by_import(server_factory, tmp_path):
    s = server_factory.start()
    doc = load_fixture("main.json")
    w = next(i for i in doc["incidents"] if i["id"] == WITHDRAWN)
    w["visibility"] = "published"
    assert import_doc(s.db, {"incidents": [w]}, tmp_path).returncode == 0
    assert s.json(f"/api/v1/incidents/{WITHDRAWN}")["data"]["title"] == "Withdrawn sample incident"
    assert s.json("/api/v1/incidents?limit=1")["data"][0]["id"] == WITHDRAWN
    assert len(list_all(s, "/api/v1/incidents")) == len(INCIDENT_ORDER) + 1
