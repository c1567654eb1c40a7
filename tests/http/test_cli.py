"""The operator CLI against a running server: withdraw, merge, set-question (new version and
--clarify), set-status, and the general CLI conventions (--json, WHISTLE_DB, exit codes)."""

import json

import pytest

from helpers import (BASE, DUPLICATE, I1, I2, I3, I4, I5, I6, I7, I8, I10, INCIDENT_ORDER,
                     MISSING_UUID, WITHDRAWN, canon, export_db, ids, list_all, parse_ts,
                     db_exists, db_sql, run_cli)


def refused(r, *fragments):
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert err.startswith("whistle: "), err
    assert len(err.splitlines()) == 1, err
    for f in fragments:
        assert f in err, (f, err)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r


def write_q(tmp_path, name="q.json", **q):
    p = tmp_path / name
    p.write_text(json.dumps(q), encoding="utf-8")
    return p


Q_NEW = dict(question_type="ruling", question_text="Was the contact late enough to flag?",
             option_a_label="Flag was right", option_b_label="Flag was wrong",
             unsure_label="Undecided", factual_context={"angle": "end zone"})


# ------------------------------------------------------------------ withdraw


def test_withdraw_leaves_api_on_next_request(server_factory):
    s = server_factory.start()
    assert s.get(f"/api/v1/incidents/{I5}").status_code == 200
    r = ok(run_cli("incident", "withdraw", I5, "--db", s.db))
    r = s.get(f"/api/v1/incidents/{I5}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert r.headers["Cache-Control"] == "no-store"
    remaining = [i["id"] for i in list_all(s, "/api/v1/incidents")]
    assert remaining == [i for i in INCIDENT_ORDER if i != I5]
    assert ids(s.json("/api/v1/incidents?game_id=nfl:2025-wk02-x")) == [I6, I4]
    assert ids(s.json("/api/v1/incidents?category=spot")) == []
    body = s.json("/api/v1/incidents?limit=9")
    assert body["pagination"]["nextOffset"] is None and len(body["data"]) == 9
    # the export keeps it, marked withdrawn
    exported = {i["id"]: i for i in json.loads(export_db(s.db))["incidents"]}
    assert exported[I5]["visibility"] == "withdrawn"


def test_withdraw_json_output(server_factory):
    db = server_factory.new_db()
    r = ok(run_cli("incident", "withdraw", I7, "--db", db, "--json"))
    out = json.loads(r.stdout)
    assert isinstance(out, dict)
    assert len(r.stdout.strip().splitlines()) == 1


def test_withdraw_missing_incident_refused(server_factory):
    db = server_factory.new_db()
    before = export_db(db)
    refused(run_cli("incident", "withdraw", MISSING_UUID, "--db", db), MISSING_UUID)
    refused(run_cli("incident", "withdraw", "not-a-uuid", "--db", db))
    assert export_db(db) == before


# ------------------------------------------------------------------ merge


def test_merge_redirects_308(server_factory):
    s = server_factory.start()
    ok(run_cli("incident", "merge", I7, "--force", "--into", I1, "--db", s.db))
    r = s.get(f"/api/v1/incidents/{I7}")
    assert r.status_code == 308
    loc = f"{BASE}/api/v1/incidents/{I1}"
    assert r.headers["Location"] == loc
    assert r.json() == {"duplicate_of": I1, "location": loc}
    assert r.headers["Cache-Control"] == "no-store"
    assert I7 not in [i["id"] for i in list_all(s, "/api/v1/incidents")]
    assert ids(s.json("/api/v1/incidents?game_id=cfb:2025-w13")) == []
    # the survivor is unaffected
    d = s.json(f"/api/v1/incidents/{I1}")["data"]
    assert d["duplicate_of"] is None and d["votes"]["total"] == 7
    exported = {i["id"]: i for i in json.loads(export_db(s.db))["incidents"]}
    assert exported[I7]["duplicate_of"] == I1


def test_merge_json_output(server_factory):
    db = server_factory.new_db()
    r = ok(run_cli("incident", "merge", I8, "--force", "--into", I3, "--db", db, "--json"))
    assert isinstance(json.loads(r.stdout), dict)


@pytest.mark.parametrize("src,into,why", [
    (I1, I1, "itself"),
    (I7, WITHDRAWN, "withdrawn survivor"),
    (I7, DUPLICATE, "survivor is a duplicate (chain)"),
    (DUPLICATE, I2, "already merged"),
    (I7, MISSING_UUID, "missing survivor"),
    (MISSING_UUID, I1, "missing incident"),
    (I7, "not-a-uuid", "bad survivor id"),
])
def test_merge_refused(server_factory, src, into, why):
    s = server_factory.start()
    before = export_db(s.db)
    refused(run_cli("incident", "merge", src, "--force", "--into", into, "--db", s.db))
    assert export_db(s.db) == before, why
    if src != MISSING_UUID:
        r = s.get(f"/api/v1/incidents/{src}")
        assert r.status_code == (308 if src == DUPLICATE else 200)
        if src == DUPLICATE:
            assert r.headers["Location"] == f"{BASE}/api/v1/incidents/{I1}"


def test_withdrawn_survivor_takes_its_duplicates_along(server_factory):
    # api-v1.md: a duplicate "redirects to the surviving published incident"; once the
    # survivor is withdrawn, there is none, so the duplicate reads 404 like the survivor
    # (API, human page and ballots), never a redirect to a page that is gone
    s = server_factory.start()
    assert s.get(f"/api/v1/incidents/{DUPLICATE}").status_code == 308
    assert s.get(f"/incidents/{DUPLICATE}").status_code == 308
    ok(run_cli("incident", "withdraw", I1, "--db", s.db))
    for path in (f"/api/v1/incidents/{DUPLICATE}", f"/api/v1/incidents/{I1}"):
        r = s.get(path)
        assert r.status_code == 404, (path, r.status_code, r.headers.get("Location"))
        assert r.json()["error"]["code"] == "not_found"
        assert "Location" not in r.headers
    for path in (f"/incidents/{DUPLICATE}", "/incidents/late-hit-duplicate"):
        r = s.get(path)
        assert r.status_code == 404, (path, r.status_code, r.headers.get("Location"))
        assert "Location" not in r.headers
    assert s.head(f"/api/v1/incidents/{DUPLICATE}").status_code == 404


def test_merge_across_games_needs_force(server_factory):
    # I7 (cfb:2025-w13) and I1 (cfb:2024-w01-a) are about different games
    db = server_factory.new_db()
    before = export_db(db)
    refused(run_cli("incident", "merge", I7, "--into", I1, "--db", db),
            "is about game cfb:2025-w13", "cfb:2024-w01-a", "--force")
    assert export_db(db) == before
    ok(run_cli("incident", "merge", I7, "--into", I1, "--force", "--db", db))


def test_merge_chain_refused_after_cli_merge(server_factory):
    db = server_factory.new_db()
    ok(run_cli("incident", "merge", I8, "--force", "--into", I3, "--db", db))
    before = export_db(db)
    refused(run_cli("incident", "merge", I7, "--force", "--into", I8, "--db", db))  # into a duplicate
    refused(run_cli("incident", "merge", I8, "--force", "--into", I1, "--db", db))  # already merged
    assert export_db(db) == before


# ------------------------------------------------------------------ set-question


def test_set_question_new_version_resets_votes(server_factory, tmp_path):
    s = server_factory.start()
    before = s.json(f"/api/v1/incidents/{I1}")["data"]
    assert before["votes"]["total"] == 7
    q = write_q(tmp_path, **Q_NEW)
    ok(run_cli("incident", "set-question", I1, "--file", q, "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I1}")["data"]
    dq = d["debate_question"]
    assert dq["question_version"] == 2 and d["ruling_version"] == 2
    assert {k: dq[k] for k in ("question_type", "question_text", "option_a_label",
                               "option_b_label", "unsure_label")} == {
        k: Q_NEW[k] for k in ("question_type", "question_text", "option_a_label",
                              "option_b_label", "unsure_label")}
    assert dq["stored_option_labels"] == {"option_a_label": "Flag was right",
                                          "option_b_label": "Flag was wrong",
                                          "unsure_label": "Undecided"}
    assert dq["label_presentation_version"] == 1
    assert d["display_question"] == Q_NEW["question_text"]
    assert d["votes"] == {"total": 0, "counts": {"correct": 0, "incorrect": 0, "unsure": 0},
                          "percentages": {"correct": 0, "incorrect": 0, "unsure": 0},
                          "rooting": {}}
    h = d["question_history"]
    assert [x["question_version"] for x in h] == [1, 2]
    old, cur = h
    assert old["question"]["question_text"] == "Was the roughness flag the right call?"
    assert old["question"]["option_a_label"] == "Correct call"
    assert old["factual_context"] == {"down": 2, "distance": 7}
    assert old["superseded_at"] is not None
    assert canon(old["created_at"]) == canon("2024-09-01T12:00:00Z")
    assert old["presented_question"]["question_version"] == 1
    assert old["presented_question"]["question_text"] == "Was the roughness flag the right call?"
    assert cur["superseded_at"] is None
    assert cur["factual_context"] == {"angle": "end zone"}
    assert cur["question"]["question_text"] == Q_NEW["question_text"]
    assert parse_ts(cur["created_at"]) == parse_ts(old["superseded_at"])
    assert parse_ts(dq["created_at"]) == parse_ts(cur["created_at"])
    assert parse_ts(old["superseded_at"]) > parse_ts("2024-09-01T12:00:00Z")
    # the list shows the same
    item = next(i for i in s.json("/api/v1/incidents?limit=100")["data"] if i["id"] == I1)
    assert item["ruling_version"] == 2 and item["votes"]["total"] == 0
    # everything else unchanged
    for k in ("title", "status", "sources", "slug", "public_url", "published_at", "category"):
        assert d[k] == before[k], k


def test_set_question_twice_gives_version_3(server_factory, tmp_path):
    s = server_factory.start()
    ok(run_cli("incident", "set-question", I2, "--file", write_q(tmp_path, **Q_NEW), "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I2}")["data"]
    assert d["debate_question"]["question_version"] == 3 and d["ruling_version"] == 3
    assert [x["question_version"] for x in d["question_history"]] == [1, 2, 3]
    assert [x["superseded_at"] is None for x in d["question_history"]] == [False, False, True]
    assert d["question_history"][1]["question"]["question_text"] == \
        "Should a defensive holding flag have been thrown?"
    assert d["votes"]["total"] == 0


def test_set_question_on_incident_without_question(server_factory, tmp_path):
    s = server_factory.start()
    assert I3 not in ids(s.json("/api/v1/incidents?has_verdict=true&limit=100"))
    ok(run_cli("incident", "set-question", I3, "--file", write_q(tmp_path, **Q_NEW), "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I3}")["data"]
    assert d["debate_question"]["question_version"] == 1 and d["ruling_version"] == 1
    assert [(x["question_version"], x["superseded_at"]) for x in d["question_history"]] == [(1, None)]
    assert d["display_question"] == Q_NEW["question_text"]
    assert I3 in ids(s.json("/api/v1/incidents?has_verdict=true&limit=100"))
    assert I3 not in ids(s.json("/api/v1/incidents?has_verdict=false&limit=100"))


def test_clarify_keeps_version_and_ballots(server_factory, tmp_path):
    s = server_factory.start()
    before = s.json(f"/api/v1/incidents/{I1}")["data"]
    q = write_q(tmp_path, question_type="ruling",
                question_text="Was the roughness flag the right call?",
                option_a_label="Yes, correct flag", option_b_label="No, wrong flag",
                unsure_label="Can't tell", factual_context={"down": 2, "distance": 7})
    ok(run_cli("incident", "set-question", I1, "--file", q, "--clarify", "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I1}")["data"]
    dq = d["debate_question"]
    assert dq["question_version"] == 1 and d["ruling_version"] == 1
    assert (dq["option_a_label"], dq["option_b_label"], dq["unsure_label"]) == \
        ("Yes, correct flag", "No, wrong flag", "Can't tell")
    assert dq["stored_option_labels"] == {"option_a_label": "Correct call",
                                          "option_b_label": "Wrong call",
                                          "unsure_label": "Not sure"}
    assert d["votes"] == before["votes"] and d["votes"]["total"] == 7
    assert [x["question_version"] for x in d["question_history"]] == [1]
    assert d["question_history"][0]["superseded_at"] is None
    # a later real change archives those ballots and keeps the new stored labels
    ok(run_cli("incident", "set-question", I1, "--file", write_q(tmp_path, "q2.json", **Q_NEW),
               "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I1}")["data"]
    assert d["debate_question"]["question_version"] == 2 and d["votes"]["total"] == 0
    assert d["debate_question"]["stored_option_labels"]["option_a_label"] == "Flag was right"


def test_clarify_keeps_stored_labels_of_a_clarified_question(server_factory, tmp_path):
    s = server_factory.start()
    q = write_q(tmp_path, question_type="no_call",
                question_text="Should a defensive holding flag have been thrown?",
                option_a_label="Flag it", option_b_label="No flag", unsure_label="Unsure",
                factual_context={"down": 3, "distance": 7})
    ok(run_cli("incident", "set-question", I2, "--file", q, "--clarify", "--db", s.db))
    d = s.json(f"/api/v1/incidents/{I2}")["data"]
    assert d["debate_question"]["question_version"] == 2
    assert d["debate_question"]["option_a_label"] == "Flag it"
    assert d["debate_question"]["stored_option_labels"] == {
        "option_a_label": "Correct", "option_b_label": "Incorrect", "unsure_label": "Unsure"}
    assert d["votes"]["total"] == 3


def test_clarify_without_question_refused(server_factory, tmp_path):
    s = server_factory.start()
    before = export_db(s.db)
    refused(run_cli("incident", "set-question", I3, "--file", write_q(tmp_path, **Q_NEW),
                    "--clarify", "--db", s.db))
    assert export_db(s.db) == before
    assert s.json(f"/api/v1/incidents/{I3}")["data"]["debate_question"] is None


@pytest.mark.parametrize("bad", [
    {k: v for k, v in Q_NEW.items() if k != "question_text"},
    dict(Q_NEW, option_a_label=""),
    dict(Q_NEW, extra=1),
    dict(Q_NEW, factual_context="not an object"),
])
def test_set_question_bad_file_refused(server_factory, tmp_path, bad):
    db = server_factory.new_db()
    before = export_db(db)
    refused(run_cli("incident", "set-question", I1, "--file", write_q(tmp_path, **bad), "--db", db))
    assert export_db(db) == before


def test_set_question_nul_names_the_field(server_factory, tmp_path):
    db = server_factory.new_db()
    before = export_db(db)
    q = write_q(tmp_path, **dict(Q_NEW, option_b_label="Flag was\u0000wrong"))
    refused(run_cli("incident", "set-question", I1, "--file", q, "--db", db),
            "option_b_label", "NUL")
    assert export_db(db) == before


def test_set_question_missing_incident_refused(server_factory, tmp_path):
    db = server_factory.new_db()
    refused(run_cli("incident", "set-question", MISSING_UUID, "--file",
                    write_q(tmp_path, **Q_NEW), "--db", db))


def test_set_question_json_output(server_factory, tmp_path):
    db = server_factory.new_db()
    r = ok(run_cli("incident", "set-question", I4, "--file", write_q(tmp_path, **Q_NEW),
                   "--db", db, "--json"))
    assert isinstance(json.loads(r.stdout), dict)


# ------------------------------------------------------------------ set-status


def test_set_status(server_factory):
    s = server_factory.start()
    for st in ("corroborated", "explained", "resolved", "developing"):
        ok(run_cli("incident", "set-status", I5, st, "--db", s.db))
        assert s.json(f"/api/v1/incidents/{I5}")["data"]["status"] == st
        assert I5 in ids(s.json(f"/api/v1/incidents?status={st}&limit=100"))
    ok(run_cli("incident", "set-status", I10, "explained", "--db", s.db))
    assert ids(s.json("/api/v1/incidents?status=explained")) == [I7, I10, I3]
    assert ids(s.json("/api/v1/incidents?status=developing")) == [I5, I2, "99999999-9999-4999-8999-999999999999"]


def test_set_status_invalid_refused(server_factory):
    s = server_factory.start()
    r = run_cli("incident", "set-status", I5, "published", "--db", s.db)
    assert r.returncode in (1, 2), r
    assert r.stderr.startswith("whistle: ")
    assert s.json(f"/api/v1/incidents/{I5}")["data"]["status"] == "developing"
    refused(run_cli("incident", "set-status", MISSING_UUID, "resolved", "--db", s.db))


def test_set_status_json_output(server_factory):
    db = server_factory.new_db()
    r = ok(run_cli("incident", "set-status", I6, "resolved", "--db", db, "--json"))
    assert isinstance(json.loads(r.stdout), dict)


# ------------------------------------------------------------------ conventions


def test_export_json(server_factory, tmp_path):
    # --json like every other subcommand: without --output the document on stdout is the
    # one JSON object; with --output, stdout gets one object that says what was written
    db = server_factory.new_db()
    plain = ok(run_cli("export", "--db", db)).stdout
    assert ok(run_cli("export", "--db", db, "--json")).stdout == plain
    out = tmp_path / "backup.json"
    r = ok(run_cli("export", "--db", db, "--output", out, "--json"))
    assert len(r.stdout.strip().splitlines()) == 1
    summary = json.loads(r.stdout)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert summary == {"output": str(out), "teams": len(doc["teams"]),
                       "games": len(doc["games"]), "incidents": len(doc["incidents"])}
    assert out.read_text(encoding="utf-8") == plain


def test_whistle_db_env_replaces_db_flag(server_factory):
    db = server_factory.new_db()
    a = ok(run_cli("export", "--db", db)).stdout
    b = ok(run_cli("export", env={"WHISTLE_DB": str(db)})).stdout
    assert a == b and json.loads(a)["games"]
    ok(run_cli("incident", "withdraw", I6, env={"WHISTLE_DB": str(db)}))
    exported = {i["id"]: i for i in json.loads(export_db(db))["incidents"]}
    assert exported[I6]["visibility"] == "withdrawn"


@pytest.mark.parametrize("args", [
    ["frobnicate"],
    ["import"],
    ["incident"],
    ["incident", "merge", I1],
    ["incident", "set-question", I1],
    ["incident", "set-status", I1],
    ["incident", "withdraw"],
    ["export", "--no-such-flag"],
], ids=lambda a: "-".join(x if len(x) < 20 else "ID" for x in a))
def test_usage_errors_exit_2(tmp_path, args, whistle_bin):
    r = run_cli(*args, "--db", tmp_path / "x.db") if args != ["frobnicate"] else run_cli(*args)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert r.stderr.strip(), args


def test_migrate_creates_db_and_is_idempotent(tmp_path, whistle_bin):
    db = tmp_path / "m.db"
    ok(run_cli("migrate", "--db", db))
    assert db_exists(db)
    ok(run_cli("migrate", "--db", db))
    out = json.loads(ok(run_cli("export", "--db", db)).stdout)
    assert out.get("teams", []) == [] and out.get("games", []) == [] and out.get("incidents", []) == []


def test_newer_schema_is_refused_by_every_command(server_factory):
    """docs/deploy.md: a binary never runs against a schema newer than it knows (a rolling
    upgrade's old nodes refuse to start after the new release migrated)."""
    db = server_factory.new_db()
    out = json.loads(ok(run_cli("migrate", "--db", db, "--json")).stdout)
    known = out["schema_version"]
    assert known >= 3
    db_sql(db, f"INSERT INTO schema_version (version, applied_at) VALUES ({known + 1}, 0)")
    for args in (["migrate"], ["export"], ["serve", "--listen", "127.0.0.1:0"]):
        r = run_cli(*args, "--db", db, timeout=20)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert f"database schema version {known + 1} is newer than this binary knows" \
            f" ({known}): upgrade whistle" in r.stderr, (args, r.stderr)


def test_changes_are_visible_without_restart(server_factory, tmp_path):
    """Public responses are not cached: every CLI change shows on the next request."""
    s = server_factory.start()
    first = s.json("/api/v1/incidents?limit=100")
    ok(run_cli("incident", "set-status", I8, "explained", "--db", s.db))
    second = s.json("/api/v1/incidents?limit=100")
    assert first != second
    assert next(i for i in second["data"] if i["id"] == I8)["status"] == "explained"
