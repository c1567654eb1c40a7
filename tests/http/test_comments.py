"""Comments on incidents with moderation (issue 15; docs/comments.md), black-box: the real
binary, a real SMTP sink for sign-ups, browser-like clients that post the pages' own forms,
and the operator CLI. Every route and every refusal; on both drivers (WHISTLE_TEST_PG)."""

import concurrent.futures
import json
import re
import threading
import time

import pytest
import requests

from accountkit import text
from commentkit import COMMENT_KEYS, I2, SLUG, WARMUP, Kit, addr, comment_el
from helpers import BASE, DUPLICATE, I1, MISSING_UUID, WITHDRAWN, db_rows, db_sql
from pagekit import ORIGIN, check_html_headers, soup



@pytest.fixture(scope="module")
def kit(whistle_bin, tmp_path_factory):
    from conftest import ServerFactory

    f = ServerFactory(tmp_path_factory.mktemp("comments"))
    k = Kit(f, f.tmpdir, extra=("--comment-limit-ip", "100000"))
    yield k
    k.close()
    f.stop_all()


def textarea(r):
    el = soup(r).find("textarea", attrs={"name": "body"})
    return el.get_text() if el else None


def form_error(r):
    el = soup(r).find(id="form-error") or soup(r).find(class_="error")
    return re.sub(r"\s+", " ", el.get_text(" ")).strip() if el else ""


# ------------------------------------------------------------------ reading


def test_signed_out_page_has_discussion_and_sign_in_link(kit):
    r, doc = kit.page()
    assert r.status_code == 200
    check_html_headers(r)
    sec = doc.find(id="discussion")
    assert sec is not None
    assert sec.find(id="comment-signin") is not None
    assert doc.find(id="comment-form") is None
    assert doc.find(id="comment-count").get_text() == str(kit.count())


def test_display_name_rules(kit):
    b = kit.user(name=None)
    _, doc = b.get(f"/incidents/{SLUG}")
    assert doc.find(id="comment-name") is not None, "no display name: the page asks for one"
    _, doc = b.get("/account")
    assert doc.find(id="profile-link")["href"] == "/account/profile"
    for bad, why in [("ab", "at least 3"), ("x" * 31, "at most 30"),
                     ("me@example.org", "email"), ("Whistle Fan", "Whistle"),
                     ("Official Ref", "official"), ("Moderator", "staff"),
                     ("alpha university", "team"), ("Bad<name>", "letters"),
                     ("_lead", "begins"), ("two  spaces", "two spaces")]:
        r = b.form_post("/account/profile", "profile-form", {"display_name": bad})
        assert r.status_code == 400, (bad, r.status_code)
        assert why.lower() in form_error(r).lower(), (bad, form_error(r))
        assert soup(r).find("input", attrs={"name": "display_name"})["value"] == bad
    name = f"Night Owl {time.monotonic_ns() % 100000}"
    r = b.form_post("/account/profile", "profile-form", {"display_name": name})
    assert r.status_code == 303
    _, doc = b.get("/account/profile", status=200)
    assert doc.find(id="display-name").get_text() == name
    assert doc.find(id="profile-form") is None, "set once"
    r = b.post("/account/profile", {"display_name": "Another Name"})
    assert r.status_code == 409
    # unique, case- and punctuation-insensitively
    other = kit.user(name=None)
    r = other.form_post("/account/profile", "profile-form",
                        {"display_name": name.upper().replace(" ", "_")})
    assert r.status_code == 409, r.status_code
    assert "taken" in form_error(r)


def test_new_account_comments_wait_then_publish(kit):
    before = kit.count()
    b = kit.user()
    cid = kit.posted(b, body="First!\nSecond line.")
    # the author sees it marked as awaiting review; nobody else does
    _, doc = kit.page(b)
    el = comment_el(doc, cid)
    assert el is not None and el["data-status"] == "pending"
    assert el.find(class_="pending-note") is not None
    _, anon = kit.page()
    assert comment_el(anon, cid) is None
    assert kit.count() == before
    assert cid not in [c["id"] for c in kit.api_all()]
    queue = kit.cli_json("comment", "list", "--queue", "pending")
    item = next(x for x in queue["data"] if x["id"] == cid)
    assert item["held_reason"] == "new_account" and item["status"] == "pending"
    kit.approve(cid)
    assert kit.count() == before + 1
    got = next(c for c in kit.api_all() if c["id"] == cid)
    assert set(got) == COMMENT_KEYS
    assert got["body"] == "First!\nSecond line."
    assert got["author"] == {"display_name": b.name, "badge": None}
    assert got["parent_id"] is None and got["edited_at"] is None and got["featured"] is False
    assert b.email not in json.dumps(kit.api(I2))
    _, anon = kit.page()
    el = comment_el(anon, cid)
    assert el is not None and el.find("br") is not None, "line breaks are kept"
    assert b.email not in anon.decode()


def test_trusted_account_publishes_at_once_and_replies_nest_one_level(kit):
    a, c = kit.trusted(), kit.trusted()
    before = kit.count()
    top = kit.posted(a, body="Top-level take on the spot.")
    reply = kit.posted(c, body="A reply to it.", parent=top)
    nested = kit.posted(a, body="A reply to the reply.", parent=reply)
    assert kit.count() == before + 3, "replies count too"
    by_id = {x["id"]: x for x in kit.api_all()}
    assert by_id[top]["reply_count"] == 2
    assert by_id[reply]["parent_id"] == top
    assert by_id[nested]["parent_id"] == top, "one level: a reply to a reply joins the thread"
    _, doc = kit.page()
    replies = comment_el(doc, top).find("ol", class_="replies")
    assert [li["id"] for li in replies.find_all("li", class_="comment")] == \
        [f"c-{reply}", f"c-{nested}"]
    # the incident, its page and the feed say the same number
    n = kit.count()
    assert doc.find(id="comment-count").get_text() == str(n)
    assert kit.visible_rows() == n
    feed = kit.server.get("/incidents/feed.xml").text
    m = re.search(r"<item>(?:(?!</item>).)*?/incidents/" + SLUG + r"(?:(?!</item>).)*</item>",
                  feed, re.S)
    assert m and re.search(rf">\s*{n}\s*<|comment_count[^0-9]*{n}\b", m.group(0)), m


def test_body_rules_and_rendering(kit):
    b = kit.trusted()
    before = kit.count()
    for body, status, why in [("", 400, "empty"), ("  \n ", 400, "empty"), ("x", 400, "short"),
                              ("é" * 2001, 400, "too long"), ("bad\x07bell", 400, "control")]:
        r = kit.post(b, body=body)
        assert r.status_code == status, (body[:10], r.status_code)
        assert why in form_error(r), form_error(r)
        if body.strip() and "\x07" not in body:
            assert textarea(r) == body, "a failed post keeps the typed text"
    assert kit.count() == before, "a refused post writes nothing"
    ok = kit.posted(b, body="é" * 2000)
    assert next(c for c in kit.api_all() if c["id"] == ok)["body"] == "é" * 2000
    cid = kit.posted(b, body='<script>alert(1)</script> see https://example.org/rule?a=1&b=2.')
    _, doc = kit.page()
    el = comment_el(doc, cid)
    assert el.find("script") is None and "<script>alert(1)</script>" in el.get_text()
    link = el.find("a", href="https://example.org/rule?a=1&b=2")
    assert link is not None and link["rel"] == ["nofollow", "ugc", "noopener"]


def test_edit_within_ten_minutes_only(kit):
    b = kit.trusted()
    cid = kit.posted(b, body="Original words.")
    _, doc = b.get(f"/comments/{cid}/edit", status=200)
    assert doc.find("textarea").get_text() == "Original words."
    r = b.post(f"/comments/{cid}/edit", {"body": "x"})
    assert r.status_code == 400 and textarea(r) == "x"
    r = b.post(f"/comments/{cid}/edit", {"body": "Better words."})
    assert r.status_code == 303
    got = next(c for c in kit.api_all() if c["id"] == cid)
    assert got["body"] == "Better words." and got["edited_at"] is not None
    _, doc = kit.page()
    assert comment_el(doc, cid).find(class_="edited") is not None
    other = kit.trusted()
    other.get(f"/incidents/{SLUG}")
    r = other.post(f"/comments/{cid}/edit", {"body": "Hijack!"})
    assert r.status_code == 403
    kit.clock.advance(10 * 60 + 1)
    b.get(f"/incidents/{SLUG}")
    r = b.post(f"/comments/{cid}/edit", {"body": "Too late now."})
    assert r.status_code == 409 and "10 minutes" in form_error(r)
    assert textarea(r) == "Too late now."
    r, _ = b.get(f"/comments/{cid}/edit")
    assert r.status_code == 409


def test_delete_leaves_a_placeholder_for_replies(kit):
    a, c = kit.trusted(), kit.trusted()
    top = kit.posted(a, body="I will delete this.")
    reply = kit.posted(c, body="A reply that stays.", parent=top)
    before = kit.count()
    a.get(f"/incidents/{SLUG}")
    r = a.post(f"/comments/{top}/delete", {})
    assert r.status_code == 303
    assert kit.count() == before - 1
    ids = [x["id"] for x in kit.api_all()]
    assert top not in ids and reply in ids
    _, doc = kit.page()
    el = comment_el(doc, top)
    assert el["data-status"] == "deleted" and "deleted" in el.get_text()
    assert "I will delete this." not in doc.decode()
    assert el.find(id=f"c-{reply}") is not None
    r = a.post(f"/comments/{top}/delete", {})
    assert r.status_code == 409
    c.get(f"/incidents/{SLUG}")
    r = c.post(f"/comments/{reply}/delete", {"csrf": c.csrf}) if False else None
    other = kit.trusted()
    other.get(f"/incidents/{SLUG}")
    assert other.post(f"/comments/{reply}/delete", {}).status_code == 403


def test_reports_hide_at_three_distinct_accounts_until_reviewed(kit):
    author = kit.trusted()
    cid = kit.posted(author, body="A spicy take.")
    before = kit.count()
    reporters = [kit.user() for _ in range(3)]
    for i, rep in enumerate(reporters[:2]):
        rep.get(f"/incidents/{SLUG}")
        for _ in range(2):  # reporting twice counts once
            r = rep.post(f"/comments/{cid}/report", {"reason": "abuse"})
            assert r.status_code == 200, (r.status_code, text(r)[:200])
    assert kit.count() == before, "two reporters do not hide it"
    author.get(f"/incidents/{SLUG}")
    assert author.post(f"/comments/{cid}/report", {"reason": "spam"}).status_code == 400
    reporters[2].get(f"/incidents/{SLUG}")
    assert reporters[2].post(f"/comments/{cid}/report",
                             {"reason": "nonsense"}).status_code == 400
    assert reporters[2].post(f"/comments/{cid}/report", {"reason": "spam"}).status_code == 200
    assert kit.count() == before - 1
    assert cid not in [c["id"] for c in kit.api_all()]
    q = kit.cli_json("comment", "list", "--queue", "reported")
    item = next(x for x in q["data"] if x["id"] == cid)
    assert item["open_reports"] == 3 and "abuse 2" in item["reports"]
    assert [h["action"] for h in item["history"]] == ["hidden_by_reports"]
    kit.approve(cid)
    assert kit.count() == before
    assert cid in [c["id"] for c in kit.api_all()]
    q = kit.cli_json("comment", "list", "--queue", "reported")
    assert cid not in [x["id"] for x in q["data"]]


def test_word_list_holds_matching_comments(kit):
    assert kit.cli_json("comment", "words", "add", "Frobnicate")["result"] == "added"
    assert kit.cli_json("comment", "words", "add", "frobnicate")["result"] == "already listed"
    assert "frobnicate" in kit.cli_json("comment", "words", "list")["words"]
    b = kit.trusted()
    before = kit.count()
    held = kit.posted(b, body="Total FROBNICATE job by the crew.")
    fine = kit.posted(b, body="Frobnicated is another word.")
    assert kit.count() == before + 1
    q = kit.cli_json("comment", "list", "--queue", "pending")
    assert next(x for x in q["data"] if x["id"] == held)["held_reason"] == "word_list"
    # an edit that brings a listed word in is held too
    r = b.post(f"/comments/{fine}/edit", {"body": "Now I say frobnicate."})
    assert r.status_code == 303
    assert kit.count() == before
    assert kit.cli_json("comment", "words", "remove", "frobnicate")["result"] == "removed"
    assert kit.cli("comment", "words", "add", "").returncode == 1


def test_refusals(kit):
    b = kit.trusted()
    before = kit.count()
    b.get(f"/incidents/{SLUG}")
    path = f"/incidents/{SLUG}/comments"
    assert b.post(path, {"body": "no token"}, csrf=None).status_code == 403
    assert b.post(path, {"body": "bad token"}, csrf="x" * 32).status_code == 403
    assert b.post(path, {"body": "cross"}, origin="http://evil.example").status_code == 403
    assert b.post(path, {"body": "no origin"}, origin=None).status_code == 403
    for cred in ("Bearer wk_" + "A" * 49, "Bearer ws_" + "B" * 49):
        r = b.post(path, {"body": "as an agent"}, headers={"Authorization": cred})
        assert r.status_code == 403 and "agent keys and scout credentials" in text(r)
        r = requests.post(kit.server.url + path, data={"body": "x"},
                          headers={"Authorization": cred, "Origin": ORIGIN}, timeout=10)
        assert r.status_code == 403
    assert b.post(path, {"body": "hi", "extra": "1"}).status_code == 400
    assert b.post("/incidents/withdrawn-sample/comments",
                  {"body": "where did it go"}).status_code == 404
    assert b.post(f"/incidents/{MISSING_UUID}/comments", {"body": "nothing"}).status_code == 404
    r = b.post("/incidents/late-hit-duplicate/comments", {"body": "merged"})
    assert r.status_code == 409 and "merged" in form_error(r)
    r = b.post(path, {"body": "reply to nothing", "parent_id": MISSING_UUID})
    assert r.status_code == 400
    # signed out: sign in first
    anon = kit.acc.browser()
    anon.get(f"/incidents/{SLUG}")
    assert anon.post(path, {"body": "anonymous"}).status_code == 403
    # unverified
    u = kit.acc.browser()
    email = addr("unverified")
    kit.acc.signup(u, email)
    kit.acc.signin(u, email)
    _, doc = u.get(f"/incidents/{SLUG}")
    assert doc.find(id="comment-verify") is not None
    assert u.post(path, {"body": "not verified"}).status_code == 403
    assert kit.count() == before


def test_rate_limit_per_account(kit):
    b = kit.trusted()
    kit.clock.advance(61)  # the warm-up posts leave the minute
    for i in range(5):
        kit.posted(b, body=f"Comment {i} in a minute.")
    r = kit.post(b, body="The sixth in a minute.")
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) >= 1
    assert textarea(r) == "The sixth in a minute."
    kit.clock.advance(61)
    kit.posted(b, body="A minute later.")


def test_suspension_hides_and_restores(kit):
    mod = kit.moderator()
    author = kit.trusted()
    ids = [kit.posted(author, body=f"Suspendable {i}.") for i in range(2)]
    ids.append(kit.posted(author, body="A reply to myself.", parent=ids[0]))
    before = kit.count()
    _, doc = mod.get("/moderate?queue=recent", status=200)
    form = doc.find("form", action=re.compile(r"/moderate/accounts/.*/suspend"))
    assert form is not None
    audits = db_rows(kit.db, "SELECT count(*) FROM audit_log")[0][0]
    r = mod.post(form["action"], {"reason": "abuse", "queue": "recent"},
                 headers={"X-Request-Id": "mod-suspend"})
    assert r.status_code == 303
    assert kit.count() == before - 3
    # one audit record names the moderator, the account, the change and the reason
    mod_id = db_rows(kit.db, f"SELECT id FROM accounts WHERE email = '{mod.email}'")[0][0]
    author_id = db_rows(kit.db, f"SELECT id FROM accounts WHERE email = '{author.email}'")[0][0]
    assert db_rows(kit.db, "SELECT count(*) FROM audit_log")[0][0] == audits + 1
    assert db_rows(kit.db, "SELECT actor, role, action, target_kind, target_id, before_json,"
                           " after_json, reason, request_id FROM audit_log"
                           " WHERE request_id = 'mod-suspend'") == [
        (f"account:{mod_id}", "moderator", "account.suspend", "account", author_id,
         '{"banned":false}', '{"banned":true}', "abuse", "mod-suspend")]
    assert not set(ids) & {c["id"] for c in kit.api_all()}
    author.get(f"/incidents/{SLUG}")
    r = author.post(f"/incidents/{SLUG}/comments", {"body": "Am I muted?"})
    assert r.status_code == 403 and "suspended" in form_error(r)
    _, doc = mod.get("/moderate?queue=recent", status=200)
    form = doc.find("form", action=re.compile(r"/moderate/accounts/.*/unsuspend"))
    r = mod.post(form["action"], {"reason": "", "queue": "recent"})
    assert r.status_code == 303
    assert kit.count() == before
    assert db_rows(kit.db, "SELECT action FROM audit_log WHERE target_id = '%s'"
                           " ORDER BY at" % author_id) == [("account.suspend",),
                                                           ("account.unsuspend",)]
    assert kit.visible_rows() == kit.count()


def test_moderation_page_and_decisions(kit):
    plain = kit.user()
    r, _ = plain.get("/moderate")
    assert r.status_code == 403
    anon = kit.acc.browser()
    r, _ = anon.get("/moderate")
    assert r.status_code == 303 and "/account/signin" in r.headers["Location"]
    mod = kit.moderator()
    author = kit.user()
    cid = kit.posted(author, body="Please approve me.")
    before = kit.count()
    r, doc = mod.get("/moderate", status=200)
    check_html_headers(r)
    item = doc.find(id=f"m-{cid}")
    assert item is not None and "new account" in item.get_text()
    assert "1 comments" in item.find(class_="history").get_text()
    approve = item.find("form", action=f"/moderate/comments/{cid}/approve")
    # CSRF and origin are checked like every form
    assert mod.post(approve["action"], {"queue": "pending"}, csrf=None).status_code == 403
    assert mod.post(approve["action"], {"queue": "pending"},
                    origin="http://evil.example").status_code == 403
    assert plain.post(approve["action"], {"queue": "pending"}).status_code == 403
    r = mod.post(approve["action"], {"queue": "pending"})
    assert r.status_code == 303 and "queue=pending" in r.headers["Location"]
    assert kit.count() == before + 1
    # feature, then reject with a reason (required)
    r = mod.post(f"/moderate/comments/{cid}/feature", {"queue": "recent"})
    assert r.status_code == 303
    got = next(c for c in kit.api_all() if c["id"] == cid)
    assert got["featured"] is True
    _, doc = kit.page()
    assert comment_el(doc, cid).find(class_="featured") is not None
    assert mod.post(f"/moderate/comments/{cid}/reject",
                    {"queue": "recent", "reason": ""}).status_code == 400
    r = mod.post(f"/moderate/comments/{cid}/reject", {"queue": "recent", "reason": "off topic"})
    assert r.status_code == 303
    assert kit.count() == before
    _, doc = mod.get("/moderate?queue=recent", status=200)
    log = doc.find(id=f"m-{cid}").find(class_="log").get_text(" ")
    for what in ("held", "approve", "feature", "reject", "off topic", mod.name):
        assert what in log, (what, log)
    # a moderator's comments carry the badge
    kit.approve(kit.posted(mod, WARMUP, "From the desk."))
    got = [c for c in kit.api_all("5ca1ab1e-0000-4000-8000-000000000006")
           if c["author"]["display_name"] == mod.name]
    assert got and got[0]["author"]["badge"] == "moderator"
    assert mod.post(f"/moderate/comments/{MISSING_UUID}/approve",
                    {"queue": "recent"}).status_code == 404
    assert kit.cli("account", "revoke", mod.email, "moderator").returncode == 0
    r, _ = mod.get("/moderate")
    assert r.status_code == 403


def test_cli(kit):
    assert kit.cli("comment", "list", "--queue", "nope").returncode == 1
    assert kit.cli("comment", "bogus").returncode == 2
    assert kit.cli("account", "grant", "nobody@example.org", "moderator").returncode == 1
    assert kit.cli("account", "grant", "x@example.org", "king").returncode == 1
    b = kit.user()
    j = kit.cli_json("account", "grant", b.email, "editor")
    assert j["result"] == "granted"
    assert kit.cli_json("account", "grant", b.email, "editor")["result"] == "already granted"
    assert kit.cli_json("account", "revoke", b.email, "editor")["result"] == "revoked"
    cid = kit.posted(b, body="CLI target.")
    assert kit.cli("comment", "reject", cid).returncode == 1, "a rejection needs a reason"
    j = kit.cli_json("comment", "reject", cid, "--reason", "spam")
    assert j == {"id": cid, "action": "reject"}
    item = next(x for x in kit.cli_json("comment", "list", "--queue", "recent")["data"]
                if x["id"] == cid)
    assert item["status"] == "rejected" and item["history"][-1]["actor"] == "operator"
    assert kit.cli("comment", "feature", cid).returncode == 1, "only published is featured"
    assert kit.cli("comment", "approve", MISSING_UUID).returncode == 1


def test_api_list(kit):
    b = kit.trusted()
    for i in range(3):
        kit.posted(b, body=f"For the list {i}.")
    r = kit.server.get(f"/api/v1/incidents/{I2}/comments?sort=newest&limit=2")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    j = r.json()
    assert len(j["data"]) == 2 and j["pagination"]["limit"] == 2
    every = kit.api_all()
    assert len(every) == kit.count()
    times = [c["created_at"] for c in kit.api(I2, "?sort=oldest&limit=100")["data"]]
    assert times == sorted(times)
    assert kit.server.get(f"/api/v1/incidents/{I2}/comments?sort=top").status_code == 400
    assert kit.server.get(f"/api/v1/incidents/{I2}/comments?limit=101").status_code == 400
    assert kit.server.get(f"/api/v1/incidents/{I2}/comments?x=1").status_code == 400
    assert kit.server.get("/api/v1/incidents/nope/comments").status_code == 400
    assert kit.server.get(f"/api/v1/incidents/{WITHDRAWN}/comments").status_code == 404
    assert kit.server.get(f"/api/v1/incidents/{MISSING_UUID}/comments").status_code == 404
    r = kit.server.get(f"/api/v1/incidents/{DUPLICATE}/comments", allow_redirects=False)
    assert r.status_code == 308
    assert r.headers["Location"] == f"{BASE}/api/v1/incidents/{I1}/comments"
    r = kit.server.get("/incidents/withdrawn-sample")
    assert r.status_code == 404


def test_page_sort_and_pagination(kit):
    _, doc = kit.page(query="?comments=oldest")
    items = doc.find("ol", class_="comments").find_all("li", class_="comment", recursive=False)
    assert len(items) <= 20
    if doc.find("a", rel="next"):
        _, doc2 = kit.page(query="?comments=oldest&cpage=2")
        ids2 = {li["id"] for li in doc2.find("ol", class_="comments").find_all(
            "li", class_="comment", recursive=False)}
        assert not ids2 & {li["id"] for li in items}


# ------------------------------------------------------------------ load


def test_concurrent_commenting_keeps_the_count_exact(whistle_bin, tmp_path):
    """Many accounts comment, reply, report and get moderated on one incident at once for a
    few seconds (bounded count and time); comment_count equals the visible rows exactly."""
    from conftest import ServerFactory

    f = ServerFactory(tmp_path)
    k = Kit(f, tmp_path, extra=("--comment-limit-ip", "100000",
                                "--comment-limit-account", "100000"))
    try:
        users = [k.user() for _ in range(8)]
        for u in users[:4]:  # half are trusted: their comments publish at once
            for i in range(3):
                k.approve(k.posted(u, WARMUP, f"warm-up {i}"))
        for u in users:
            u.get(f"/incidents/{SLUG}")
        posted, lock = [], threading.Lock()
        deadline = time.monotonic() + 4.0

        def work(u):
            n = 0
            while time.monotonic() < deadline and n < 40:
                parent = None
                with lock:
                    if posted and n % 3 == 2:
                        parent = posted[-1]
                data = {"body": f"load comment {n} from {u.name}"}
                if parent:
                    data["parent_id"] = parent
                r = u.post(f"/incidents/{SLUG}/comments", data)
                assert r.status_code in (303, 400), (r.status_code, text(r)[:200])
                if r.status_code == 303:
                    with lock:
                        posted.append(r.headers["Location"].rsplit("#c-", 1)[1])
                n += 1
            return n

        def moderate():
            done = 0
            while time.monotonic() < deadline and done < 60:
                q = k.cli_json("comment", "list", "--queue", "pending", "--limit", "5")
                for item in q["data"]:
                    act = "approve" if done % 2 == 0 else "reject"
                    extra = () if act == "approve" else ("--reason", "load")
                    k.cli("comment", act, item["id"], *extra)
                    done += 1
                time.sleep(0.05)
            return done

        with concurrent.futures.ThreadPoolExecutor(len(users) + 1) as ex:
            futs = [ex.submit(work, u) for u in users] + [ex.submit(moderate)]
            total = sum(fu.result(timeout=120) for fu in futs)
        assert len(posted) > 0 and total > 0
        rows = k.visible_rows()
        print(f"\nload: {total} requests, {len(posted)} comments posted, {rows} visible")
        assert k.count() == rows
        assert len(k.api_all()) == rows
        _, doc = k.page()
        assert doc.find(id="comment-count").get_text() == str(rows)
        replies = db_rows(k.db, "SELECT c.id, c.reply_count, (SELECT count(*) FROM comments r"
                                " WHERE r.parent_id = c.id AND r.status = 'published'"
                                " AND r.report_hidden = 0 AND r.author_hidden = 0)"
                                f" FROM comments c WHERE c.incident_id = '{I2}'")
        assert all(rc == actual for _, rc, actual in replies)
    finally:
        k.close()
        f.stop_all()


def test_rate_limit_per_address(whistle_bin, tmp_path):
    from conftest import ServerFactory

    f = ServerFactory(tmp_path)
    k = Kit(f, tmp_path, extra=("--comment-limit-ip", "2"))
    try:
        a, b = k.user(), k.user()
        k.posted(a, body="one from this address")
        k.posted(b, body="two from this address")
        r = k.post(a, body="three from this address")
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    finally:
        k.close()
        f.stop_all()


def test_api_answers_match_the_openapi_document(kit):
    from test_schema import assert_valid, response_schema

    b = kit.trusted()
    kit.posted(b, body="Validated against the document.")
    doc = kit.server.json("/api/v1/openapi.json")
    path = "/api/v1/incidents/{id}/comments"
    assert_valid(doc, response_schema(doc, path, 200), kit.api(I2, "?limit=100"))
    r = kit.server.get(f"/api/v1/incidents/{DUPLICATE}/comments", allow_redirects=False)
    assert_valid(doc, response_schema(doc, path, 308), r.json())
    r = kit.server.get(f"/api/v1/incidents/{WITHDRAWN}/comments")
    assert_valid(doc, response_schema(doc, path, 404), r.json())
    # every new route is in the document
    for p in ("/incidents/{slug}/comments", "/comments/{id}/edit", "/comments/{id}/delete",
              "/comments/{id}/report", "/account/profile", "/moderate",
              "/moderate/comments/{id}/approve", "/moderate/comments/{id}/reject",
              "/moderate/comments/{id}/feature", "/moderate/comments/{id}/unfeature",
              "/moderate/accounts/{id}/suspend", "/moderate/accounts/{id}/unsuspend"):
        assert p in doc["paths"], p


def test_operator_ban_hides_comments_until_unbanned(kit):
    author = kit.trusted()
    ids = [kit.posted(author, body=f"Before the ban {i}.") for i in range(2)]
    before = kit.count()
    assert kit.cli("account", "ban", author.email).returncode == 0
    assert kit.count() == before - 2
    assert not set(ids) & {c["id"] for c in kit.api_all()}
    author.get(f"/incidents/{SLUG}")
    assert author.post(f"/incidents/{SLUG}/comments", {"body": "banned?"}).status_code == 403
    assert kit.cli("account", "unban", author.email).returncode == 0
    assert kit.count() == before
    assert kit.visible_rows() == kit.count()


def test_comment_writes_prepare_no_statement_under_the_author_lock(server_factory, tmp_path):
    """PostgreSQL write rule (docs/architecture.md): a comment write prepares its statements
    before it takes its author's lock, even the first write on a fresh connection (one server
    thread: every write below is that connection's first of its kind). The driver logs a
    warning for any statement prepared while a key lock is held; on SQLite statements compile
    locally and the warning never applies."""
    k = Kit(server_factory, tmp_path, extra=("--threads", "1", "--comment-limit-ip", "1000"))
    try:
        mod, author, r1, r2 = k.moderator(), k.user(), k.user(), k.user()
        top = k.posted(author, body="The first comment on this connection.")
        assert author.post(f"/comments/{top}/edit", {"body": "Edited words."}).status_code == 303
        for act in ("approve", "feature"):
            r = mod.post(f"/moderate/comments/{top}/{act}", {"reason": "", "queue": "recent"})
            assert r.status_code == 303, act
        reply = k.posted(r1, body="And the first reply.", parent=top)
        assert r2.post(f"/comments/{top}/report", {"reason": "spam"}).status_code == 200
        r = mod.post(f"/moderate/comments/{reply}/reject", {"reason": "abuse", "queue": "recent"})
        assert r.status_code == 303
        assert author.post(f"/comments/{top}/delete", {}).status_code == 303
        aid = db_rows(k.db, f"SELECT id FROM accounts WHERE email = '{author.email}'")[0][0]
        for act in ("suspend", "unsuspend"):
            r = mod.post(f"/moderate/accounts/{aid}/{act}",
                         {"reason": "", "queue": "recent"})
            assert r.status_code == 303, act
        bad = [line for line in k.server.lines if "prepared while a key lock is held" in line]
        assert bad == []
    finally:
        k.close()
