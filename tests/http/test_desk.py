"""The editorial desk (issue 16; docs/desk.md), black-box: the real binary, browser-like
clients that post the pages' own forms, on both drivers (WHISTLE_TEST_PG).

- the role matrix: anonymous, fan, moderator, editor and admin against every /desk route,
  read from the route table (src/api/routes.c) so that a new route is covered by itself;
- audit completeness: every state-changing /desk route of the table, done once by an
  editor, writes exactly one audit record (actor, role, request id) in its transaction;
- every desk action and its refusals: publish a candidate (with a question, the editor's
  display name in the provenance), reject, edit (the slug stays), maturity, sources,
  question (new version with the ballots to archive confirmed, or a clarification),
  withdraw, merge; the audit page and `whistle audit list --json`."""

import json
import html
import pathlib
import re
import time
import uuid

import pytest

from accountkit import PASSWORD, text
from commentkit import Kit
from helpers import BASE, I1, MISSING_UUID, db_rows, db_sql
from pagekit import check_html_headers, soup

ROUTES = pathlib.Path(__file__).resolve().parents[2] / "src" / "api" / "routes.c"
GAME = "cfb:2025-w13"


def desk_routes():
    """(method, path, param, suffix) of every /desk row of the route table."""
    src = ROUTES.read_text()
    rows = re.findall(
        r'\{HTTP_(GET|POST), "(/desk[^"]*)", (true|false), \w+,\s*[\w ()*]+,\s*[\w |]+,\s*'
        r'(NULL|"[^"]*")\}', src)
    out = [(m, p, prm == "true", None if s == "NULL" else s.strip('"')) for m, p, prm, s in rows]
    assert len(out) >= 13, out
    return out


@pytest.fixture(scope="module")
def kit(whistle_bin, tmp_path_factory):
    from conftest import ServerFactory

    f = ServerFactory(tmp_path_factory.mktemp("desk"))
    k = Kit(f, f.tmpdir)
    k.editor = k.user("Desk Editor")
    assert k.cli("account", "grant", k.editor.email, "editor").returncode == 0
    k.admin = k.user("Desk Admin")
    assert k.cli("account", "grant", k.admin.email, "admin").returncode == 0
    k.mod = k.moderator()
    k.fan = k.user()
    k.anon = k.acc.browser()
    _, k.secret = k.acc.create_key(k.editor, name="scout-bot")
    yield k
    k.close()
    f.stop_all()


def candidate(kit, description="Late flag on the punt return, called then waved off.", game=GAME):
    """A researched lead that passed every gate (set up behind the server's back), with one
    fetch record."""
    key_id, account_id = db_rows(kit.db, "SELECT id, account_id FROM agent_keys "
                                         "ORDER BY created_at LIMIT 1")[0]
    lid = str(uuid.uuid4())
    now = int(time.time() * 1e6)
    db_sql(kit.db, "INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls,"
                   " period, clock, category, status, created_at, updated_at, candidate_at)"
                   f" VALUES ('{lid}', '{account_id}', '{key_id}', '{game}', '{description}',"
                   " '[\"https://news.example/a\"]', 4, '2:10', 'penalty', 'running',"
                   f" {now}, {now}, {now})")
    db_sql(kit.db, "INSERT INTO lead_fetches (lead_id, position, url, final_url, http_status,"
                   " bytes, domain, fetched_at) VALUES"
                   f" ('{lid}', 0, 'https://news.example/a', 'https://www.news.example/a', 200,"
                   f" 1234, 'news.example', {now})")
    return lid


def audit_count(kit):
    return db_rows(kit.db, "SELECT count(*) FROM audit_log")[0][0]


def last_audit(kit):
    return db_rows(kit.db, "SELECT actor, role, action, target_id, before_json, after_json,"
                           " reason, request_id FROM audit_log ORDER BY at DESC, id DESC"
                           " LIMIT 1")[0]


QUESTION = {"question_type": "call_correctness", "question_text": "Was the flag correct?",
            "option_a_label": "Correct call", "option_b_label": "Wrong call",
            "unsure_label": "Not sure"}


def form(b, page, form_id, data, **kw):
    """GET page, then POST form #form_id with every field it shows (hidden, text, textarea,
    selected options; checkboxes only when given) overridden by `data`."""
    _, doc = b.get(page, status=200)
    f = doc.find("form", id=form_id)
    assert f is not None, (page, form_id)
    fields = {}
    for i in f.find_all("input"):
        if i.get("type") != "checkbox":
            fields[i["name"]] = i.get("value", "")
    for t in f.find_all("textarea"):
        fields[t["name"]] = t.get_text()
    for sel in f.find_all("select"):
        opt = sel.find("option", selected=True) or sel.find("option")
        fields[sel["name"]] = opt.get("value", opt.get_text())
    fields.update(data)
    csrf = fields.pop("csrf", None)
    return b.post(f["action"], fields, csrf=csrf, **kw)


def publish(kit, lid, **extra):
    data = {"title": "Punt return flag debate", "summary": "Discussed; not established.",
            **extra}
    r = form(kit.editor, f"/desk/leads/{lid}", "publish", data)
    assert r.status_code == 303, (r.status_code, text(r)[:400])
    m = re.search(r"/desk/incidents/([0-9a-f-]{36})\?done=published$", r.headers["Location"])
    assert m, r.headers["Location"]
    return m.group(1)


# ------------------------------------------------------------------ the role gate


def concrete(path, param, suffix, ids):
    if not param:
        return path
    kind = path.split("/")[2]
    return path + ids[kind] + (suffix or "")


ADMIN_ONLY = ("/desk/accounts", "/desk/keys/", "/desk/scout-keys")


def account_id(kit, b):
    return db_rows(kit.db, f"SELECT id FROM accounts WHERE email = '{b.email}'")[0][0]


def key_id(kit):
    return db_rows(kit.db, "SELECT id FROM agent_keys ORDER BY created_at LIMIT 1")[0][0]


def test_role_matrix_over_the_route_table(kit):
    lid = candidate(kit)
    # (no key: a key revocation needs no field, the missing key answers 404)
    ids = {"leads": lid, "incidents": I1, "accounts": account_id(kit, kit.fan),
           "keys": MISSING_UUID, "scout-keys": MISSING_UUID}
    before = audit_count(kit)
    for method, path, param, suffix in desk_routes():
        url = concrete(path, param, suffix, ids)
        refused = [("anonymous", kit.anon), ("fan", kit.fan), ("moderator", kit.mod)]
        allowed = [("editor", kit.editor), ("admin", kit.admin)]
        if path.startswith(ADMIN_ONLY):
            refused.append(allowed.pop(0))
        for who, b in refused:
            if method == "GET":
                r, _ = b.get(url)
                want = 303 if who == "anonymous" else 403
                assert r.status_code == want, (who, url, r.status_code)
                if who == "anonymous":
                    assert "/account/signin" in r.headers["Location"]
            else:
                b.get("/account") if who != "anonymous" else None
                r = b.post(url, {"reason": "x"})
                assert r.status_code == 403, (who, url, r.status_code, text(r)[:200])
        for who, b in allowed:
            if method == "GET":
                r, _ = b.get(url)
                assert r.status_code == 200, (who, url, r.status_code, text(r)[:300])
                check_html_headers(r)
                assert r.headers.get("Cache-Control") == "no-store"
                assert "Access-Control-Allow-Origin" not in r.headers
            else:
                b.get("/desk")
                # the role passes; the same origin and the CSRF token are still required
                assert b.post(url, {}, csrf=None).status_code == 403, (who, url)
                assert b.post(url, {}, origin="http://evil.example").status_code == 403
                r = b.post(url, {"unknown": "x"})
                assert r.status_code in (400, 403, 404, 409), (who, url, r.status_code,
                                                              text(r)[:300])
                if r.status_code == 403:  # only the re-authenticated admin actions
                    assert "password" in text(r), (who, url)
    assert audit_count(kit) == before, "no refusal writes an audit record"
    # an agent key is never a desk credential
    r = kit.server.get("/desk", headers={"Authorization": f"Bearer {kit.secret}"})
    assert r.status_code == 403
    # a role revoked is a role gone on the next request
    b = kit.user()
    assert kit.cli("account", "grant", b.email, "editor").returncode == 0
    assert b.get("/desk")[0].status_code == 200
    assert kit.cli("account", "revoke", b.email, "editor").returncode == 0
    assert b.get("/desk")[0].status_code == 403


def test_page_query_enums_are_what_the_pages_accept(kit):
    """Every enum of a human page's query parameter in the OpenAPI document is exactly the set
    the page accepts: a value outside it answers 400 with the accepted values, which must be
    the documented ones ("" documents "any" and is not listed). Catches a page list and the
    document drifting apart (the desk's category filter once documented 6 of its 8)."""
    doc = kit.server.json("/api/v1/openapi.json")
    lid = candidate(kit)
    ids = {"leads": lid, "incidents": I1, "accounts": account_id(kit, kit.fan)}
    checked = 0
    for path, item in doc["paths"].items():
        if path.startswith("/api/") or "get" not in item:
            continue
        for prm in item["get"].get("parameters", []):
            prm = prm if "$ref" not in prm else \
                doc["components"]["parameters"][prm["$ref"].rsplit("/", 1)[1]]
            enum = prm.get("schema", {}).get("enum")
            if prm.get("in") != "query" or not enum:
                continue
            url = path
            for kind, value in ids.items():
                url = url.replace("{id}", value) if f"/{kind}/" in path else url
            b = kit.acc.browser() if path == "/account/signin" else kit.admin
            r, _ = b.get(f"{url}?{prm['name']}=zz-not-a-value")
            assert r.status_code == 400, (url, prm["name"], r.status_code)
            m = re.search(r"must be one of: ([^<]*)<", r.text)
            assert m, (url, prm["name"], text(r)[:300])
            accepted = {v.strip() for v in html.unescape(m.group(1)).split(",")} - {""}
            assert accepted == set(enum) - {""}, (url, prm["name"], accepted ^ (set(enum) - {""}))
            checked += 1
    assert checked >= 15, checked


# ------------------------------------------------------------------ audit completeness


def test_every_state_changing_route_writes_exactly_one_audit_record(kit):
    la, lb, lc = candidate(kit), candidate(kit), candidate(kit)
    inc = publish(kit, la)
    other = publish(kit, lc)
    actions = {
        ("/desk/leads/", "/publish"): lambda: (f"/desk/leads/{candidate(kit)}/publish",
                                               {"title": "T", "summary": "S"}),
        ("/desk/leads/", "/reject"): lambda: (f"/desk/leads/{lb}/reject",
                                              {"reason": "not an officiating call"}),
        ("/desk/incidents/", "/edit"): lambda: (f"/desk/incidents/{inc}/edit", {
            "title": "Renamed debate", "play_description": "The play.",
            "neutral_summary": "Neutral.", "period": "4", "clock": "2:10",
            "replay_involved": "no", "penalty_called": "yes"}),
        ("/desk/incidents/", "/status"): lambda: (f"/desk/incidents/{inc}/status",
                                                  {"status": "corroborated"}),
        ("/desk/incidents/", "/sources"): lambda: (f"/desk/incidents/{inc}/sources", {
            "url": "https://news.example/later", "title": "Later report", "kind": "report",
            "supports": "the flag was thrown"}),
        ("/desk/incidents/", "/question"): lambda: (f"/desk/incidents/{inc}/question", QUESTION),
        ("/desk/incidents/", "/merge"): lambda: (f"/desk/incidents/{other}/merge",
                                                 {"into": inc, "reason": "same play"}),
        ("/desk/incidents/", "/withdraw"): lambda: (f"/desk/incidents/{inc}/withdraw",
                                                    {"reason": "could not be verified"}),
    }
    victim = kit.user()
    kit.acc.create_key(victim, name="victim-bot")
    vid = account_id(kit, victim)
    vkey = db_rows(kit.db, f"SELECT id FROM agent_keys WHERE account_id = '{vid}'")[0][0]
    scout = kit.cli_json("scout-key", "create", "--name", "desk-audit")["id"]
    actions.update({
        ("/desk/incidents/", "/sources/remove"): lambda: (f"/desk/incidents/{inc}/sources/remove",
                                                          {"url": "https://news.example/later"}),
        ("/desk/scout-keys", None): lambda: ("/desk/scout-keys", {
            "name": "desk-made", "x_per_day": "50", "password": PASSWORD}),
        ("/desk/scout-keys/", "/budget"): lambda: (f"/desk/scout-keys/{scout}/budget",
                                                   {"x_per_run": "7"}),
        ("/desk/scout-keys/", "/disable"): lambda: (f"/desk/scout-keys/{scout}/disable", {}),
        ("/desk/scout-keys/", "/enable"): lambda: (f"/desk/scout-keys/{scout}/enable", {}),
        ("/desk/scout-keys/", "/revoke"): lambda: (f"/desk/scout-keys/{scout}/revoke", {}),
        ("/desk/accounts/", "/ban"): lambda: (f"/desk/accounts/{vid}/ban",
                                              {"reason": "spam", "password": PASSWORD}),
        ("/desk/accounts/", "/unban"): lambda: (f"/desk/accounts/{vid}/unban", {}),
        ("/desk/accounts/", "/roles"): lambda: (f"/desk/accounts/{vid}/roles", {
            "role": "editor", "change": "grant", "password": PASSWORD}),
        ("/desk/keys/", "/revoke"): lambda: (f"/desk/keys/{vkey}/revoke", {}),
    })
    # in an order where each action finds what it needs (the withdrawal last of the
    # incident's, the revocation last of the credential's)
    order = ["/publish", "/reject", "/edit", "/status", "/sources", "/sources/remove",
             "/question", "/merge", "/withdraw", "/ban", "/unban", "/roles", "/desk/keys/",
             None, "/budget", "/disable", "/enable", "/desk/scout-keys/"]
    posts = [(p, s) for m, p, _, s in desk_routes() if m == "POST"]
    assert sorted(posts, key=str) == sorted(actions, key=str), "every POST route has an action"
    kit.editor.get("/desk")
    kit.admin.get("/desk")
    done = set()
    for suffix in order:
        key = next(k for k in actions if suffix in k and k not in done)
        done.add(key)
        b, role = (kit.admin, "admin") if key[0].startswith(ADMIN_ONLY) else (kit.editor, "editor")
        url, data = actions[key]()
        n = audit_count(kit)
        rid = "desk-" + url.rsplit("/", 1)[-1]
        r = b.post(url, data, headers={"X-Request-Id": rid})
        if key == ("/desk/scout-keys", None):  # the secret is shown on the answer, once
            assert r.status_code == 200, (url, r.status_code, soup(r).find(class_="error"))
            assert soup(r).find(id="secret").get_text().startswith("ws_")
        else:
            assert r.status_code == 303, (url, r.status_code, soup(r).find(class_="error"))
            back, _ = b.get(r.headers["Location"].replace(BASE, ""))
            assert back.status_code == 200, (r.headers["Location"], back.status_code)
        assert audit_count(kit) == n + 1, url
        actor, got_role, action, _, _, _, _, got_rid = last_audit(kit)
        assert (actor, got_role, got_rid) == (f"account:{account_id(kit, b)}", role, rid), action
    assert done == set(actions)


# ------------------------------------------------------------------ candidates


def test_candidates_page_shows_the_record_and_publishes_with_a_question(kit):
    lid = candidate(kit, "Pass interference <script>alert(1)</script> on the fade route.")
    r, doc = kit.editor.get("/desk", status=200)
    item = doc.find("li", attrs={"data-id": lid})
    assert item is not None
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;" in r.text
    assert kit.secret not in r.text
    r, doc = kit.editor.get(f"/desk/leads/{lid}", status=200)
    fetches = doc.find("table", class_="fetches").get_text(" ")
    for what in ("https://news.example/a", "https://www.news.example/a", "200", "1234",
                 "news.example"):
        assert what in fetches, what
    assert doc.find("form", id="publish") and doc.find("form", id="reject")
    # a partial question is refused, nothing is written
    n = audit_count(kit)
    r = form(kit.editor, f"/desk/leads/{lid}", "publish",
                             {"title": "T", "summary": "S", "question_text": "Only text?"})
    assert r.status_code == 400 and audit_count(kit) == n
    inc = publish(kit, lid, **QUESTION)
    j = kit.server.json(f"/api/v1/incidents/{inc}")["data"]
    assert j["status"] == "developing" and j["title"] == "Punt return flag debate"
    assert j["debate_question"]["question_text"] == QUESTION["question_text"]
    prov = db_rows(kit.db, f"SELECT provenance FROM incidents WHERE id = '{inc}'")[0][0]
    assert json.loads(prov)["publication"]["editor"] == "Desk Editor"
    # no longer a candidate
    r = kit.editor.post(f"/desk/leads/{lid}/publish", {"title": "T", "summary": "S"})
    assert r.status_code == 409
    _, doc = kit.editor.get("/desk", status=200)
    assert doc.find("li", attrs={"data-id": lid}) is None
    # a no-call debate without a question is allowed
    inc2 = publish(kit, candidate(kit))
    assert kit.server.json(f"/api/v1/incidents/{inc2}")["data"]["debate_question"] is None
    assert kit.editor.post(f"/desk/leads/{MISSING_UUID}/reject",
                           {"reason": "x"}).status_code == 404
    assert kit.editor.get("/desk/leads/not-a-uuid")[0].status_code == 404


def test_reject_needs_a_reason_and_failed_leads_are_browsable(kit):
    lid = candidate(kit)
    kit.editor.get("/desk")
    assert kit.editor.post(f"/desk/leads/{lid}/reject", {"reason": ""}).status_code == 400
    r = form(kit.editor, f"/desk/leads/{lid}", "reject", {"reason": "not a call"})
    assert r.status_code == 303
    _, doc = kit.editor.get("/desk?status=rejected", status=200)
    item = doc.find("li", attrs={"data-id": lid})
    assert item is not None and "not a call" in item.get_text()
    assert kit.editor.get("/desk?status=bogus")[0].status_code == 400


# ------------------------------------------------------------------ incidents


def test_edit_keeps_the_slug_and_records_before_and_after(kit):
    inc = publish(kit, candidate(kit))
    slug = kit.server.json(f"/api/v1/incidents/{inc}")["data"]["slug"]
    r = form(kit.editor, f"/desk/incidents/{inc}", "edit",
                             {"title": "A wholly new title", "reason": "clearer"})
    assert r.status_code == 303
    j = kit.server.json(f"/api/v1/incidents/{inc}")["data"]
    assert j["title"] == "A wholly new title" and j["slug"] == slug
    _, _, action, target, before, after, reason, _ = last_audit(kit)
    assert action == "incident.edit" and target == inc and reason == "clearer"
    assert json.loads(before) == {"title": "Punt return flag debate"}
    assert json.loads(after) == {"title": "A wholly new title"}
    n = audit_count(kit)
    # nothing changed, a bad clock, a bad period: refused, nothing written
    assert form(kit.editor, f"/desk/incidents/{inc}", "edit", {}).status_code == 400
    assert form(kit.editor, f"/desk/incidents/{inc}", "edit",
                                {"clock": "99:99"}).status_code == 400
    assert form(kit.editor, f"/desk/incidents/{inc}", "edit",
                                {"period": "x"}).status_code == 400
    assert audit_count(kit) == n
    _, doc = kit.editor.get(f"/desk/incidents/{inc}", status=200)
    assert "incident.edit" in doc.find("table", class_="audit").get_text()


def test_question_new_version_asks_to_confirm_the_archived_ballots(kit):
    inc = publish(kit, candidate(kit), **QUESTION)
    # one ballot (its tally, as the ballot endpoint keeps it)
    db_sql(kit.db, "INSERT INTO ballots (incident_id, question_version, voter, choice,"
                   f" created_at, updated_at) VALUES ('{inc}', 1, 'v-desk-1', 'correct', 1, 1)")
    db_sql(kit.db, "INSERT INTO vote_tallies (incident_id, question_version, rooting, correct)"
                   f" VALUES ('{inc}', 1, 'unspecified', 1)")
    _, doc = kit.editor.get(f"/desk/incidents/{inc}", status=200)
    assert doc.find(id="archive-warning") is not None
    new = dict(QUESTION, question_text="Should the flag have stood?")
    r = form(kit.editor, f"/desk/incidents/{inc}", "question", new)
    assert r.status_code == 409 and "confirm" in text(r)
    r = form(kit.editor, f"/desk/incidents/{inc}", "question", dict(new, confirm="yes"))
    assert r.status_code == 303
    assert kit.server.json(f"/api/v1/incidents/{inc}")["data"]["debate_question"]["question_version"] == 2
    # a clarification keeps the version
    r = form(kit.editor, f"/desk/incidents/{inc}", "question",
                             dict(new, option_a_label="Right call", clarify="yes"))
    assert r.status_code == 303
    q = kit.server.json(f"/api/v1/incidents/{inc}")["data"]["debate_question"]
    assert q["question_version"] == 2 and q["option_a_label"] == "Right call"
    r = form(kit.editor, f"/desk/incidents/{inc}", "question",
                             dict(new, question_text="Different?", clarify="yes"))
    assert r.status_code == 409


def test_sources_status_withdraw_and_merge(kit):
    inc = publish(kit, candidate(kit))
    dup = publish(kit, candidate(kit))
    src = {"url": "https://news.example/b", "title": "B", "kind": "video",
           "supports": "the angle"}
    assert form(kit.editor, f"/desk/incidents/{inc}", "source", src).status_code == 303
    assert form(kit.editor, f"/desk/incidents/{inc}", "source", src).status_code == 409
    assert form(kit.editor, f"/desk/incidents/{inc}", "source",
                                dict(src, kind="rumour", url="https://x.example/")).status_code == 400
    r = form(kit.editor, f"/desk/incidents/{inc}", "status", {"status": "explained"})
    assert r.status_code == 303
    assert kit.server.json(f"/api/v1/incidents/{inc}")["data"]["status"] == "explained"
    assert form(kit.editor, f"/desk/incidents/{inc}", "status",
                                {"status": "done"}).status_code == 400
    # merge: the duplicate's page answers 308 to the survivor
    slug = kit.server.json(f"/api/v1/incidents/{dup}")["data"]["slug"]
    assert form(kit.editor, f"/desk/incidents/{dup}", "merge",
                                {"into": dup}).status_code == 400
    assert form(kit.editor, f"/desk/incidents/{dup}", "merge",
                                {"into": "nope"}).status_code == 400
    r = form(kit.editor, f"/desk/incidents/{dup}", "merge", {"into": inc, "reason": "same"})
    assert r.status_code == 303
    assert kit.server.get(f"/incidents/{slug}").status_code == 308
    # withdraw needs a reason; the API stops serving it on the next request
    assert form(kit.editor, f"/desk/incidents/{inc}", "withdraw",
                                {"reason": ""}).status_code == 400
    r = form(kit.editor, f"/desk/incidents/{inc}", "withdraw", {"reason": "unverified"})
    assert r.status_code == 303
    assert kit.server.get(f"/api/v1/incidents/{inc}").status_code == 404
    r, doc = kit.editor.get(f"/desk/incidents/{inc}", status=200)
    assert doc.find(id="visibility").get_text().startswith("withdrawn")
    assert doc.find("form", id="withdraw") is None
    hist = doc.find("table", class_="audit").get_text(" ")
    for what in ("incident.add_source", "incident.set_status", "incident.withdraw",
                 "unverified"):
        assert what in hist, what


def test_merge_across_games_needs_the_box(kit):
    inc = publish(kit, candidate(kit))
    other = db_rows(kit.db, f"SELECT id FROM games WHERE id <> '{GAME}' ORDER BY id LIMIT 1")[0][0]
    dup = publish(kit, candidate(kit, game=other))
    r = form(kit.editor, f"/desk/incidents/{dup}", "merge", {"into": inc, "reason": "same"})
    assert r.status_code == 409, (r.status_code, text(r)[:300])
    assert "same play of the same game" in text(r)
    assert kit.server.get(f"/api/v1/incidents/{dup}").status_code == 200
    r = form(kit.editor, f"/desk/incidents/{dup}", "merge",
             {"into": inc, "reason": "same", "across_games": "yes"})
    assert r.status_code == 303, (r.status_code, text(r)[:300])
    assert kit.server.get(f"/api/v1/incidents/{dup}", allow_redirects=False).status_code == 308


def test_incident_search(kit):
    inc = publish(kit, candidate(kit), title="Zebra crossing spot debate")
    _, doc = kit.editor.get("/desk/incidents?q=zebra+crossing", status=200)
    links = [a["href"] for a in doc.find(id="incidents").find_all("a")]
    assert links == [f"/desk/incidents/{inc}"]
    _, doc = kit.editor.get(f"/desk/incidents?q=&game={GAME}&team=&status=developing"
                            "&category=", status=200)
    assert f"/desk/incidents/{inc}" in [a["href"] for a in doc.find(id="incidents").find_all("a")]
    assert kit.editor.get("/desk/incidents?status=bogus")[0].status_code == 400
    assert kit.editor.get("/desk/incidents?nope=1")[0].status_code == 400


# ------------------------------------------------------------------ the audit log


def test_audit_page_and_cli(kit):
    lid = candidate(kit)
    inc = publish(kit, lid)
    _, doc = kit.editor.get(f"/desk/audit?kind=lead&target={lid}", status=200)
    rows = doc.find(id="audit").find_all("tr")[1:]
    assert len(rows) == 1, doc.find(id="audit")
    assert inc in rows[0].get_text() and "candidate.publish" in rows[0].get_text()
    _, doc = kit.editor.get("/desk/audit", status=200)
    assert "candidate.publish" in doc.find(id="audit").get_text()
    assert kit.editor.get("/desk/audit?kind=bogus")[0].status_code == 400
    j = kit.cli_json("audit", "list", "--kind", "lead", "--limit", "5")
    assert j["records"] and all(r["target_kind"] == "lead" for r in j["records"])
    assert {"id", "at", "actor", "role", "action", "target_kind", "target_id", "before",
            "after", "reason", "request_id"} == set(j["records"][0])
    # the CLI's own writes are recorded too, as the operator
    r = kit.cli("incident", "set-status", inc, "resolved")
    assert r.returncode == 0, r.stderr
    top = kit.cli_json("audit", "list", "--limit", "1")["records"][0]
    assert (top["actor"], top["action"], top["target_id"]) == ("operator",
                                                               "incident.set_status", inc)
    assert kit.cli("audit", "bogus").returncode == 2
    j = kit.cli_json("audit", "list", "--target", inc, "--action", "incident.set_status")
    assert [r["actor"] for r in j["records"]] == ["operator"]
    _, doc = kit.editor.get("/desk/audit?kind=&target=&action=incident.set_status", status=200)
    rows = doc.find(id="audit").find_all("tr")[1:]
    assert rows and all("incident.set_status" in r.get_text() for r in rows)


# ------------------------------------------------------------------ accounts (admin)


def test_admin_bans_with_the_password_and_the_sessions_end(kit):
    seen = len(kit.server.lines)
    victim = kit.user()
    vid = account_id(kit, victim)
    assert victim.get("/account")[0].status_code == 200
    _, doc = kit.admin.get(f"/desk/accounts?q={victim.email.split('@')[0].upper()}", status=200)
    assert f"/desk/accounts/{vid}" in [a["href"] for a in doc.find(id="accounts").find_all("a")]
    n = audit_count(kit)
    # re-authentication: a wrong or missing password is refused, nothing written
    r = form(kit.admin, f"/desk/accounts/{vid}", "ban", {"reason": "spam", "password": "nope"})
    assert r.status_code == 403 and audit_count(kit) == n
    r = form(kit.admin, f"/desk/accounts/{vid}", "ban", {"reason": "", "password": PASSWORD})
    assert r.status_code == 400 and audit_count(kit) == n
    r = form(kit.admin, f"/desk/accounts/{vid}", "ban", {"reason": "spam", "password": PASSWORD})
    assert r.status_code == 303
    r, _ = victim.get("/account")
    assert r.status_code == 303, "a ban ends the account's sessions at once"
    # its statements (and the comment ones it runs under the author lock) were prepared first
    assert [ln for ln in kit.server.lines[seen:] if "prepared while a key lock is held" in ln] == []
    _, doc = kit.admin.get(f"/desk/accounts/{vid}", status=200)
    assert doc.find(id="account-state").get_text().startswith("banned")
    assert "account.ban" in doc.find("table", class_="audit").get_text()
    r = form(kit.admin, f"/desk/accounts/{vid}", "unban", {"reason": "appeal"})
    assert r.status_code == 303
    # ended, not hidden (issue 14 item 8): once unbanned, the old session is still signed out
    r, _ = victim.get("/account")
    assert r.status_code == 303
    assert db_rows(kit.server.db, "SELECT count(*) FROM sessions"
                   f" WHERE account_id = '{vid}' AND revoked_at IS NULL") == [(0,)]
    # roles: grant (re-authenticated), then revoke
    r = form(kit.admin, f"/desk/accounts/{vid}", "role",
             {"role": "moderator", "change": "grant", "password": PASSWORD})
    assert r.status_code == 303
    _, doc = kit.admin.get(f"/desk/accounts/{vid}", status=200)
    assert "moderator" in doc.find(id="roles").get_text()
    r = form(kit.admin, f"/desk/accounts/{vid}", "role",
             {"role": "king", "change": "grant", "password": PASSWORD})
    assert r.status_code == 400
    # an admin cannot ban themself
    r = form(kit.admin, f"/desk/accounts/{account_id(kit, kit.admin)}", "ban",
             {"reason": "x", "password": PASSWORD})
    assert r.status_code == 409
    # the CLI's ban is recorded too
    assert kit.cli("account", "ban", victim.email).returncode == 0
    top = kit.cli_json("audit", "list", "--limit", "1")["records"][0]
    assert (top["actor"], top["action"], top["target_id"]) == ("operator", "account.ban", vid)


def test_admin_revokes_a_key(kit):
    owner = kit.user()
    _, secret = kit.acc.create_key(owner, name="to-revoke")
    oid = account_id(kit, owner)
    _, doc = kit.admin.get(f"/desk/accounts/{oid}", status=200)
    keys = doc.find(id="keys").get_text()
    assert "to-revoke" in keys and secret not in doc.decode()
    r = form(kit.admin, f"/desk/accounts/{oid}", "revoke-key", {})
    assert r.status_code == 303
    kid = db_rows(kit.db, f"SELECT id FROM agent_keys WHERE account_id = '{oid}'")[0][0]
    assert kit.admin.post(f"/desk/keys/{kid}/revoke", {}).status_code == 409
    assert kit.admin.post(f"/desk/keys/{MISSING_UUID}/revoke", {}).status_code == 404
    _, doc = kit.admin.get(f"/desk/accounts/{oid}", status=200)
    assert "revoked" in doc.find(id="keys").get_text()


# ------------------------------------------------------------------ sources, quotas, scouts


def test_remove_a_source_on_the_desk_and_the_cli(kit):
    seen = len(kit.server.lines)
    inc = publish(kit, candidate(kit))
    for url in ("https://news.example/r1", "https://news.example/r2"):
        assert form(kit.editor, f"/desk/incidents/{inc}", "source", {
            "url": url, "title": "R", "kind": "report", "supports": "s"}).status_code == 303
    _, doc = kit.editor.get(f"/desk/incidents/{inc}", status=200)
    f = next(f for f in doc.find(id="sources").find_all("form")
             if f.find("input", attrs={"name": "url"})["value"] == "https://news.example/r1")
    n = audit_count(kit)
    r = form(kit.editor, f"/desk/incidents/{inc}", f["id"], {"reason": "wrong article"})
    assert r.status_code == 303 and r.headers["Location"].endswith("?done=source-removed")
    assert audit_count(kit) == n + 1
    _, action, _, before, after, reason = last_audit(kit)[1:7]
    assert (action, json.loads(before), after, reason) == (
        "incident.remove_source", {"source_url": "https://news.example/r1"}, None,
        "wrong article")
    urls = [s["url"] for s in kit.server.json(f"/api/v1/incidents/{inc}")["data"]["sources"]]
    assert "https://news.example/r1" not in urls and "https://news.example/r2" in urls
    # not cited (any more): 404, nothing written
    r = kit.editor.post(f"/desk/incidents/{inc}/sources/remove",
                        {"url": "https://news.example/r1"})
    assert r.status_code == 404 and audit_count(kit) == n + 1
    assert kit.editor.post(f"/desk/incidents/{inc}/sources/remove", {}).status_code == 400
    # the CLI: the same use case, an operator's record
    r = kit.cli("incident", "remove-source", inc, "--url", "https://news.example/r2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"id": inc, "source_removed": True}
    top = kit.cli_json("audit", "list", "--limit", "1")["records"][0]
    assert (top["actor"], top["action"], top["target_id"]) == (
        "operator", "incident.remove_source", inc)
    r = kit.cli("incident", "remove-source", inc, "--url", "https://news.example/r2")
    assert r.returncode == 1 and "does not cite" in r.stderr
    assert kit.cli("incident", "remove-source", inc).returncode == 2
    # a withdrawn incident's sources stay as they are
    assert form(kit.editor, f"/desk/incidents/{inc}", "withdraw",
                {"reason": "gone"}).status_code == 303
    r = kit.cli("incident", "remove-source", inc, "--url", "https://news.example/a")
    assert r.returncode == 1 and "published incidents only" in r.stderr
    assert [ln for ln in kit.server.lines[seen:] if "prepared while a key lock is held" in ln] == []


def quota_row(kit, b, kid):
    _, doc = b.get("/desk/quotas", status=200)
    glob = int(doc.find(id="global").find("strong").get_text())
    row = doc.find("tr", attrs={"data-key": kid})
    if row is None:
        return glob, None
    return glob, [c.get_text(" ", strip=True) for c in row.find_all("td")]


def test_lead_quotas_in_use(kit):
    kid = key_id(kit)
    for who in (kit.anon, kit.fan, kit.mod):
        r, _ = who.get("/desk/quotas")
        assert r.status_code in (303, 403)
    g0, before = quota_row(kit, kit.editor, kid)
    day0 = int(before[3].split()[0]) if before else 0
    # one lead half an hour ago: it counts in the day, not in the minute
    lid = candidate(kit)
    db_sql(kit.db, f"UPDATE leads SET created_at = created_at - 1800000000 WHERE id = '{lid}'")
    g1, row = quota_row(kit, kit.admin, kid)
    assert g1 == g0 + 1
    assert row[0].startswith("scout-bot") and kit.editor.email in row[1]
    assert int(row[3].split()[0]) == day0 + 1
    assert row[2].endswith("of 3)") and row[3].endswith("of 20)")
    assert kit.secret not in kit.editor.get("/desk/quotas")[0].text


def test_scout_credentials_on_the_desk(kit):
    seen = len(kit.server.lines)
    b = kit.admin
    _, doc = b.get("/desk/scout-keys", status=200)
    assert doc.find("form", id="scout-create") is not None
    # issuing one needs the admin's password again
    n = audit_count(kit)
    r = form(b, "/desk/scout-keys", "scout-create", {"name": "nightly", "password": "wrong"})
    assert r.status_code == 403 and "password" in text(r)
    r = form(b, "/desk/scout-keys", "scout-create", {"name": "nightly", "x_per_day": "-1",
                                                     "password": PASSWORD})
    assert r.status_code == 400 and "x_per_day" in text(r)
    r = form(b, "/desk/scout-keys", "scout-create", {"name": "", "password": PASSWORD})
    assert r.status_code in (400, 403)
    assert audit_count(kit) == n
    r = form(b, "/desk/scout-keys", "scout-create", {"name": "nightly", "x_per_day": "40",
                                                     "expires_days": "30",
                                                     "password": PASSWORD})
    assert r.status_code == 200, text(r)[:300]
    doc = soup(r)
    secret = doc.find(id="secret").get_text()
    sid = doc.find(id="scout-key-id").get_text()
    assert secret.startswith("ws_") and audit_count(kit) == n + 1
    row = db_rows(kit.db, f"SELECT name, x_per_day, secret_hash FROM scout_credentials"
                          f" WHERE id = '{sid}'")[0]
    assert row[:2] == ("nightly", 40) and secret not in row[2]
    # the secret is never shown again, nor in the audit record
    _, doc = b.get("/desk/scout-keys", status=200)
    assert secret not in doc.decode() and "nightly" in doc.find(id="scout-keys").get_text()
    assert secret not in json.dumps(db_rows(kit.db, "SELECT * FROM audit_log"))
    # the secret works on the scout endpoint only
    r = kit.server.request("POST", "/api/agents/v1/scout", json={"op": "status"},
                        headers={"Authorization": f"Bearer {secret}"})
    assert r.status_code == 200, r.text
    # budget, disable, enable, revoke: one record each, before and after
    r = form(b, "/desk/scout-keys", f"budget-{sid}", {"x_per_run": "9", "run_seconds": "5"})
    assert r.status_code == 400 and "run_seconds" in text(r)
    r = form(b, "/desk/scout-keys", f"budget-{sid}", {"x_per_run": "9"})
    assert r.status_code == 303 and r.headers["Location"].endswith("?done=budget")
    _, _, action, target, before, after, _, _ = last_audit(kit)
    assert (action, target) == ("scout.set_budget", sid)
    assert (json.loads(before)["x_per_run"], json.loads(after)["x_per_run"]) == (100, 9)
    assert form(b, "/desk/scout-keys", f"disable-{sid}", {}).status_code == 303
    assert kit.cli_json("scout-key", "list", "--json")["scout_keys"][0]["state"] == "disabled"
    assert form(b, "/desk/scout-keys", f"enable-{sid}", {}).status_code == 303
    assert form(b, "/desk/scout-keys", f"revoke-{sid}", {}).status_code == 303
    r = kit.server.request("POST", "/api/agents/v1/scout", json={"op": "status"},
                        headers={"Authorization": f"Bearer {secret}"})
    assert r.status_code == 403
    assert b.post(f"/desk/scout-keys/{sid}/revoke", {}).status_code == 409
    assert b.post(f"/desk/scout-keys/{sid}/enable", {}).status_code == 409
    assert b.post(f"/desk/scout-keys/{MISSING_UUID}/disable", {}).status_code == 404
    assert b.post(f"/desk/scout-keys/{sid}/budget", {}).status_code == 400
    acts = [a for (a,) in db_rows(kit.db, f"SELECT action FROM audit_log WHERE target_id = '{sid}'"
                                          " ORDER BY at")]
    assert acts == ["scout.create", "scout.set_budget", "scout.disable", "scout.enable",
                    "scout.revoke"]
    # an editor is not an admin
    assert kit.editor.get("/desk/scout-keys")[0].status_code == 403
    # PostgreSQL write rule: nothing was prepared under a credential's lock
    assert [ln for ln in kit.server.lines[seen:] if "prepared while a key lock is held" in ln] == []


# ------------------------------------------------------------------ staff idle timeout


def test_staff_sessions_end_after_the_idle_timeout(whistle_bin, tmp_path):
    """--staff-idle-timeout 60: a staff session ends after 60 s without a request (the test
    clock moves, nothing sleeps); requests keep it alive; a fan's session is not touched."""
    from conftest import ServerFactory

    f = ServerFactory(tmp_path)
    k = Kit(f, tmp_path, extra=("--staff-idle-timeout", "60"))
    try:
        editor, fan = k.user("Idle Editor"), k.user()
        assert k.cli("account", "grant", editor.email, "editor").returncode == 0
        assert editor.get("/desk")[0].status_code == 200
        # seen every 45 s, the session lives on well past 60 s
        for _ in range(3):
            k.clock.advance(45)
            assert editor.get("/desk")[0].status_code == 200
        # 60 s without a request: signed out (the desk sends to sign in, a form is refused)
        k.clock.advance(60)
        r, _ = editor.get("/desk")
        assert r.status_code == 303 and "/account/signin" in r.headers["Location"]
        r, _ = editor.get("/account")
        assert r.status_code == 303 and "/account/signin" in r.headers["Location"]
        assert db_rows(k.db, "SELECT count(*) FROM sessions s JOIN accounts a"
                             " ON a.id = s.account_id WHERE a.email = '%s'"
                             " AND s.revoked_at IS NULL" % editor.email)[0][0] == 0
        # a fan's session has no idle limit (its 30 days hold)
        assert fan.get("/account")[0].status_code == 200
        k.clock.advance(3600)
        assert fan.get("/account")[0].status_code == 200
        # signing in again works
        k.acc.signin(editor, editor.email)
        assert editor.get("/desk")[0].status_code == 200
    finally:
        k.close()
        f.stop_all()
