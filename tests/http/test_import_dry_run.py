"""`whistle import FILE --dry-run`: the whole import runs and is rolled back. A valid document
exits 0 and writes nothing; an invalid one gets the same message and exit status as a real
import and writes nothing. The bundled demo data (data/demo.json) passes it."""

import json
import subprocess
import sys

from helpers import REPO, BIN, export_db, import_doc, load_fixture, run_cli
from test_import import BAD, _set, bigger_doc, fresh_db, seeded_db

EMPTY_EXPORT = {"teams": [], "games": [], "incidents": []}


def test_valid_document_writes_nothing(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    r = import_doc(db, load_fixture("main.json"), tmp_path, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "checked 7 teams, 13 games, 12 incidents, 0 comments (dry run: nothing written)"
    assert r.stdout == ""
    assert json.loads(export_db(db)) == EMPTY_EXPORT


def test_dry_run_json_counts_what_an_import_would(tmp_path, whistle_bin):
    db = seeded_db(tmp_path)
    before = export_db(db)
    doc = bigger_doc()
    r = import_doc(db, doc, tmp_path, "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"teams": 8, "games": 14, "incidents": 13, "comments": 0,
                                    "dry_run": True}
    assert export_db(db) == before  # the edits and the new rows were rolled back
    real = import_doc(db, doc, tmp_path, "--json")
    assert real.returncode == 0, real.stderr
    assert json.loads(real.stdout) == {"teams": 8, "games": 14, "incidents": 13, "comments": 0}
    assert export_db(db) != before


# One refusal of each kind the import makes (enum, id, reference to the database, range,
# slug, merge, NUL, unknown key); test_import.py runs every one of BAD against a real import.
DRY_BAD = [b for b in BAD if b[0] in (
    "incidents[12].category", "incidents[12].id", "incidents[12].game_id", "games[13].week",
    "incidents[12].slug", "incidents[12].duplicate_of", "teams[7].aliases", "extras",
    "incidents[0].ballots[2].choice", "incidents[2].colour")]


def test_invalid_documents_same_message_as_import(tmp_path, whistle_bin):
    assert len(DRY_BAD) >= 10
    db = seeded_db(tmp_path)
    before = export_db(db)
    for path, value, fragments in DRY_BAD:
        doc = bigger_doc()
        _set(path, value)(doc)
        dry = import_doc(db, doc, tmp_path, "--dry-run")
        assert dry.returncode == 1, (path, dry.returncode, dry.stderr)
        for f in fragments:
            assert f in dry.stderr, (path, f, dry.stderr)
        assert export_db(db) == before, path
        real = import_doc(db, doc, tmp_path)
        assert (real.returncode, real.stderr) == (dry.returncode, dry.stderr), path
        assert export_db(db) == before, path


def test_checks_run_against_the_database(tmp_path, whistle_bin):
    # an incident whose game is only in the database: valid where the game exists, refused
    # (with the import's own message) where it does not
    inc = load_fixture("main.json")["incidents"][0]
    seeded = seeded_db(tmp_path, "seeded")
    ok = import_doc(seeded, {"incidents": [inc]}, tmp_path, "--dry-run")
    assert ok.returncode == 0, ok.stderr
    empty = fresh_db(tmp_path, "empty")
    dry = import_doc(empty, {"incidents": [inc]}, tmp_path, "--dry-run")
    real = import_doc(empty, {"incidents": [inc]}, tmp_path)
    assert dry.returncode == real.returncode == 1
    assert dry.stderr == real.stderr
    assert "incidents[0].game_id" in dry.stderr and "no game with id" in dry.stderr
    assert json.loads(export_db(empty)) == EMPTY_EXPORT


def test_unreadable_and_malformed_files(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"teams": [', encoding="utf-8")
    for f in (bad, tmp_path / "missing.json"):
        dry = run_cli("import", f, "--db", db, "--dry-run")
        real = run_cli("import", f, "--db", db)
        assert dry.returncode == real.returncode == 1
        assert dry.stderr == real.stderr and dry.stderr.startswith("whistle: import refused: ")
    not_object = import_doc(db, [1, 2], tmp_path, "--dry-run")
    assert not_object.returncode == 1
    assert "the document must be an object" in not_object.stderr


def test_if_empty_with_dry_run(tmp_path, whistle_bin):
    db = seeded_db(tmp_path)
    before = export_db(db)
    r = import_doc(db, load_fixture("defaults.json"), tmp_path, "--if-empty", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "already has data; nothing imported" in r.stderr
    assert export_db(db) == before


def test_demo_data_passes(tmp_path, whistle_bin):
    db = fresh_db(tmp_path)
    r = run_cli("import", REPO / "data" / "demo.json", "--db", db, "--dry-run", "--json",
                timeout=300)
    assert r.returncode == 0, r.stderr
    counts = json.loads(r.stdout)
    demo = json.loads((REPO / "data" / "demo.json").read_text(encoding="utf-8"))
    assert counts == {"teams": len(demo["teams"]), "games": len(demo["games"]),
                      "incidents": len(demo["incidents"]),
                      "comments": sum(len(i.get("comments", [])) for i in demo["incidents"]),
                      "dry_run": True}
    assert json.loads(export_db(db)) == EMPTY_EXPORT
    for i in demo["incidents"]:
        assert i["neutral_summary"].startswith("Sample data: "), i["title"]


def test_gen_demo_check(whistle_bin):
    # the generator reproduces data/demo.json and validates it through import --dry-run
    r = subprocess.run([sys.executable, str(REPO / "data" / "gen_demo.py"), "--check"],
                       capture_output=True, text=True, timeout=300,
                       env={"WHISTLE_BIN": BIN, "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("demo.json: ")
