"""Import and export carry comments (issue 15; docs/import-format.md "Comment"): a migration
keeps its discussions, authors become accounts known by their display name (no email a
message can reach, no password), replies keep their parent, moderation state and times
round-trip, and comment_count is always derived from the visible comments. Black-box, both
drivers (WHISTLE_TEST_PG)."""

import copy
import json

import pytest

from helpers import I1, I2, db_rows, export_db, import_doc, load_fixture, run_cli

TOP = "c0000000-0000-4000-8000-000000000001"
REPLY = "c0000000-0000-4000-8000-000000000002"
PENDING = "c0000000-0000-4000-8000-000000000003"
REJECTED = "c0000000-0000-4000-8000-000000000004"
DELETED = "c0000000-0000-4000-8000-000000000005"
HIDDEN = "c0000000-0000-4000-8000-000000000006"
MUTED = "c0000000-0000-4000-8000-000000000007"
OTHER = "c0000000-0000-4000-8000-000000000008"


def comment(cid, name, body, created, **kw):
    c = {"id": cid, "author": {"display_name": name}, "body": body,
         "created_at": f"2025-11-29T{created}Z"}
    c.update(kw)
    return c


def thread():
    """A discussion in every state a moderated one has. Visible: TOP, REPLY (2)."""
    return [
        # the reply first: the import places it after its parent whatever the order
        comment(REPLY, "Second Voice", "Agreed, the flag was late.", "21:05:00",
                parent_id=TOP, edited_at="2025-11-29T21:06:00Z"),
        comment(TOP, "First Voice", "That flag came\nway too late.", "21:00:00",
                featured=True, reviewed_at="2025-11-29T22:00:00Z",
                author={"display_name": "First Voice", "badge": "moderator"}),  # badge ignored
        comment(PENDING, "Second Voice", "Waiting for a moderator.", "21:10:00",
                status="pending", held_reason="new_account"),
        comment(REJECTED, "Third Voice", "Rude words removed.", "21:11:00", status="rejected",
                reviewed_at="2025-11-29T21:30:00Z"),
        comment(DELETED, "First Voice", "", "21:12:00", status="deleted",
                deleted_at="2025-11-29T21:13:00Z"),
        comment(HIDDEN, "Third Voice", "Reported three times.", "21:14:00",
                hidden_by_reports=True, open_reports=3),
        comment(MUTED, "Muted Voice", "Written before the suspension.", "21:15:00",
                author={"display_name": "Muted Voice", "suspended": True}),
    ]


def doc_with_thread():
    doc = load_fixture("main.json")
    for inc in doc["incidents"]:
        if inc["id"] == I1:
            inc["comments"] = thread()
            inc["comment_count"] = 999  # checked, then derived: 2
    return doc


def fresh(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    return d / "whistle.db"


def imported(tmp_path, doc, name="db"):
    db = fresh(tmp_path, name)
    r = import_doc(db, doc, tmp_path, "--json")
    assert r.returncode == 0, r.stderr
    return db, json.loads(r.stdout)


def incident_of(export_text, iid):
    return next(i for i in json.loads(export_text)["incidents"] if i["id"] == iid)


def test_a_thread_imports_with_its_states_and_a_derived_count(tmp_path, server_factory):
    db, counts = imported(tmp_path, doc_with_thread())
    assert counts["comments"] == 7
    s = server_factory.start(db=db)
    inc = s.json(f"/api/v1/incidents/{I1}")["data"]
    assert inc["comment_count"] == 2
    got = s.json(f"/api/v1/incidents/{I1}/comments?sort=oldest")["data"]
    assert [c["id"] for c in got] == [TOP, REPLY]
    top, reply = got
    assert top["author"]["display_name"] == "First Voice" and top["featured"] is True
    assert top["body"] == "That flag came\nway too late." and top["reply_count"] == 1
    assert top["parent_id"] is None and top["created_at"] == "2025-11-29T21:00:00Z"
    assert reply["parent_id"] == TOP and reply["edited_at"] == "2025-11-29T21:06:00Z"
    assert reply["author"]["display_name"] == "Second Voice"
    # the count is the same on the page and in the feed (one column)
    assert s.json(f"/api/v1/incidents/{I2}")["data"]["comment_count"] == 0


def test_authors_are_accounts_known_by_name_that_cannot_sign_in(tmp_path):
    db, _ = imported(tmp_path, doc_with_thread())
    rows = db_rows(db, "SELECT display_name, email, password_hash, email_verified, banned"
                       " FROM accounts ORDER BY display_name")
    assert [r[0] for r in rows] == ["First Voice", "Muted Voice", "Second Voice", "Third Voice"]
    for name, email, pw, verified, banned in rows:
        assert email.endswith("@imported.invalid"), email
        assert pw is None and verified == 0
        assert banned == (1 if name == "Muted Voice" else 0)
    # a second import finds the same accounts by name: no new account, nothing changes
    before = export_db(db)
    r = import_doc(db, doc_with_thread(), tmp_path)
    assert r.returncode == 0, r.stderr
    assert db_rows(db, "SELECT count(*) FROM accounts")[0][0] == 4
    assert export_db(db) == before


def test_export_import_round_trips_exactly(tmp_path):
    db, _ = imported(tmp_path, doc_with_thread())
    first = export_db(db)
    exported = incident_of(first, I1)
    assert exported["comment_count"] == 2
    by_id = {c["id"]: c for c in exported["comments"]}
    assert len(by_id) == 7
    assert by_id[PENDING]["status"] == "pending" and by_id[PENDING]["held_reason"] == "new_account"
    assert by_id[DELETED]["body"] == "" and by_id[DELETED]["deleted_at"] == "2025-11-29T21:13:00Z"
    assert by_id[HIDDEN]["hidden_by_reports"] is True and by_id[HIDDEN]["open_reports"] == 3
    assert by_id[MUTED]["author"] == {"display_name": "Muted Voice", "suspended": True}
    assert by_id[REPLY]["parent_id"] == TOP
    path = tmp_path / "export.json"
    path.write_text(first, encoding="utf-8")
    db2 = fresh(tmp_path, "db2")
    r = run_cli("import", path, "--db", db2)
    assert r.returncode == 0, r.stderr
    assert export_db(db2) == first


def test_a_re_import_cannot_overwrite_the_count(tmp_path):
    db, _ = imported(tmp_path, doc_with_thread())
    doc = json.loads(export_db(db))
    for inc in doc["incidents"]:
        inc["comment_count"] = 12345
        inc.pop("comments")  # comments absent from a file stay
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 0, r.stderr
    assert incident_of(export_db(db), I1)["comment_count"] == 2
    assert db_rows(db, "SELECT count(*) FROM comments")[0][0] == 7


def test_an_imported_name_is_the_registered_account_with_that_name(tmp_path):
    """Display names are unique: a comment by "first voice" belongs to "First Voice"."""
    db, _ = imported(tmp_path, doc_with_thread())
    doc = load_fixture("main.json")
    for inc in doc["incidents"]:
        if inc["id"] == I2:
            inc["comments"] = [comment(OTHER, "first-voice", "Same person, other debate.",
                                       "23:00:00")]
    r = import_doc(db, doc, tmp_path)
    assert r.returncode == 0, r.stderr
    owners = db_rows(db, f"SELECT account_id FROM comments WHERE id IN ('{TOP}', '{OTHER}')")
    assert len({o[0] for o in owners}) == 1


def _refused(tmp_path, change, path, words):
    doc = doc_with_thread()
    inc = next(i for i in doc["incidents"] if i["id"] == I1)
    change(inc["comments"], doc)
    db = fresh(tmp_path, "refused")
    r = import_doc(db, doc, tmp_path)
    assert r.returncode != 0
    assert f"incidents[0].comments{path}" in r.stderr, r.stderr
    assert words in r.stderr, r.stderr
    assert db_rows(db, "SELECT count(*) FROM incidents")[0][0] == 0  # nothing written


def _reply_to_reply(cs, doc):
    cs.append(comment(OTHER, "First Voice", "A reply to a reply.", "21:20:00", parent_id=REPLY))


def _parent_elsewhere(cs, doc):
    other = next(i for i in doc["incidents"] if i["id"] == I2)
    other["comments"] = [comment(OTHER, "First Voice", "Somewhere else.", "21:20:00",
                                 parent_id=TOP)]


REFUSALS = [
    (_reply_to_reply, "[7].parent_id", "replies are one level deep"),
    (lambda cs, d: cs[1].update(body="x"), "[1].body", "2"),
    (lambda cs, d: cs[1]["author"].update(display_name="someone@example.org"),
     "[1].author.display_name", "someone@example.org"),
    (lambda cs, d: cs[1].update(held_reason="word_list"), "[1].held_reason", "pending"),
    (lambda cs, d: cs[2].update(featured=True), "[2].featured", "published"),
    (lambda cs, d: cs[4].update(body="words kept"), "[4].body", "deleted"),
    (lambda cs, d: cs[1].update(status="hidden"), "[1].status", "hidden"),
    (lambda cs, d: cs[1].update(id=cs[2]["id"]), "[2].id", "twice"),
    (lambda cs, d: cs[1].update(id=cs[1]["id"].upper()), "[1].id", "lower-case UUID"),
    (lambda cs, d: cs[1].update(votes=3), "[1]", "votes"),
    (lambda cs, d: cs[1].pop("author"), "[1].author", "required"),
]


@pytest.mark.parametrize("change,path,words", REFUSALS, ids=[r[1] + ":" + r[2] for r in REFUSALS])
def test_refusals_name_the_comment(tmp_path, change, path, words):
    _refused(tmp_path, change, path, words)


def test_a_parent_on_another_incident_is_refused(tmp_path):
    doc = doc_with_thread()
    _parent_elsewhere(None, doc)
    db = fresh(tmp_path, "x")
    r = import_doc(db, doc, tmp_path)
    assert r.returncode != 0 and ".comments[0].parent_id" in r.stderr, r.stderr
    assert "one level deep" in r.stderr


def test_a_comment_cannot_move_to_another_incident(tmp_path):
    db, _ = imported(tmp_path, doc_with_thread())
    doc = load_fixture("main.json")
    for inc in doc["incidents"]:
        if inc["id"] == I2:
            inc["comments"] = [comment(TOP, "First Voice", "Moved?", "23:00:00")]
    r = import_doc(db, doc, tmp_path)
    assert r.returncode != 0 and f"belongs to incident {I1}" in r.stderr, r.stderr


def test_dry_run_counts_comments(tmp_path):
    db = fresh(tmp_path, "dry")
    doc = doc_with_thread()
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    r = run_cli("import", p, "--db", db, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().endswith("7 comments (dry run: nothing written)"), r.stderr


def test_an_imported_author_is_claimed_then_signs_in(server_factory, tmp_path):
    """`whistle account claim NAME EMAIL` gives an imported author's account its person's
    address; "forgot password" then reaches them and the reset lets them sign in as the
    author of their migrated comments."""
    from accountkit import Accounts, link_of, location

    acc = Accounts(server_factory, tmp_path)
    try:
        s = acc.server
        r = import_doc(s.db, doc_with_thread(), tmp_path)
        assert r.returncode == 0, r.stderr
        who = "first.voice@example.org"
        # before the claim nobody can sign in as the author, nor reach it by mail
        acc.signin(acc.browser(), who, status=403)
        r = run_cli("account", "claim", "first voice", who, "--db", s.db, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == {"display_name": "first voice", "email": who}
        assert db_rows(s.db, "SELECT email, password_hash FROM accounts WHERE display_name"
                             " = 'First Voice'") == [(who, None)]
        anon = acc.browser()
        assert anon.form_post("/account/forgot", "forgot-form", {"email": who}).status_code == 200
        link = link_of(acc.sink.wait(who, 1)[0]["body"], "reset")
        r = anon.form_post(link, "reset-form", {"password": "a new long passphrase"})
        assert r.status_code == 303 and location(r) == "/account/signin?notice=reset"
        b = acc.browser()
        acc.signin(b, who, password="a new long passphrase")
        r, doc = b.get("/account/profile")
        assert "First Voice" in doc.get_text()
        # claimed once: the account has an address of its own now
        again = run_cli("account", "claim", "First Voice", "other@example.org", "--db", s.db)
        assert again.returncode == 1 and "only an imported author" in again.stderr
    finally:
        acc.close()


@pytest.mark.parametrize("name,email,words", [
    ("Nobody Here", "n@example.org", 'no account has the display name "Nobody Here"'),
    ("Second Voice", "not-an-address", "EMAIL must be an email address"),
    ("Second Voice", "x@imported.invalid", "EMAIL must be an email address"),
])
def test_claim_refusals(tmp_path, name, email, words):
    db, _ = imported(tmp_path, doc_with_thread())
    r = run_cli("account", "claim", name, email, "--db", db)
    assert r.returncode == 1 and words in r.stderr, r.stderr


def test_claim_refuses_an_address_another_account_has(tmp_path):
    db, _ = imported(tmp_path, doc_with_thread())
    assert run_cli("account", "claim", "Second Voice", "s@example.org", "--db", db).returncode == 0
    r = run_cli("account", "claim", "Third Voice", "s@example.org", "--db", db)
    assert r.returncode == 1 and "another account has the address s@example.org" in r.stderr
