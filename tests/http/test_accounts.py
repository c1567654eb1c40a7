"""Accounts and the developer portal (issue 6; docs/accounts.md), black-box: the real binary,
a real SMTP sink (python3-aiosmtpd) started here, and a browser-like client that keeps its
own cookies and CSRF tokens."""

import itertools
import json
import re
import time

import pytest

from accountkit import (PASSWORD, SESSION_COOKIE, Accounts, Browser, MailSink, link_of,
                        location, page_message, text, token_of)
from helpers import BASE, db_rows
from leadkit import LEADS, Clock, lead_body, idem
from pagekit import COOKIE as VOTER_COOKIE
from pagekit import check_html_headers, cookie_attrs, soup

_n = itertools.count(1)


def addr(tag="user"):
    return f"{tag}{next(_n)}-{time.monotonic_ns()}@example.org"


@pytest.fixture(scope="module")
def acc(whistle_bin, tmp_path_factory):
    """One server with an SMTP sink, shared by tests that use accounts of their own."""
    from conftest import ServerFactory

    f = ServerFactory(tmp_path_factory.mktemp("acc"))
    clock = Clock(f.tmpdir / "now-offset")
    a = Accounts(f, f.tmpdir, clock=clock)
    yield a
    a.close()
    f.stop_all()


@pytest.fixture
def fresh(server_factory, tmp_path):
    """Accounts(extra=...) on a server of its own, with a test clock."""
    made = []

    def make(extra=(), smtp=True):
        clock = Clock(tmp_path / f"now-offset-{len(made)}")
        a = Accounts(server_factory, tmp_path, extra=extra, smtp=smtp, clock=clock)
        made.append(a)
        return a

    yield make
    for a in made:
        a.close()


def post_lead(server, key):
    import requests

    return requests.post(server.url + LEADS, data=json.dumps(lead_body()),
                         headers={"Authorization": f"Bearer {key}", "Idempotency-Key": idem(),
                                  "Content-Type": "application/json"}, timeout=10)


# ---------------------------------------------------------------- the whole flow


def test_signup_verify_signin_key_lead_revoke(acc):
    """sign-up → email through a real SMTP relay → verification link → sign-in → create key →
    submit a lead with it → revoke → 403."""
    a = acc
    b = a.browser()
    who = addr("flow")
    r = a.signup(b, who)
    check_html_headers(r)
    assert who in page_message(r)
    assert SESSION_COOKIE not in b.cookies  # sign-up never signs in (enumeration safety)

    (m,) = a.sink.wait(who)
    assert m["to"] == [who]
    assert m["from"].startswith("no-reply@")
    msg = m["msg"]
    assert msg["To"] == who and msg["Subject"] == "Verify your email address for Whistle"
    assert msg["Message-ID"] and msg["Date"]
    link = link_of(m["body"], "verify")
    assert PASSWORD not in m["body"]

    # the link only shows a confirmation form (GET never changes state)
    r, doc = b.get(link, status=200)
    assert doc.find("form", id="verify-form") is not None
    b.get(link, status=200)  # still valid: nothing was spent by looking
    r = a.verify(b, link)
    assert r.status_code == 200, text(r)
    assert soup(r).find(id="verified") is not None

    r = a.signin(b, who)
    assert location(r) == "/developers"
    h = [x for x in b.last_set_cookies if x.startswith(SESSION_COOKIE + "=")]
    assert len(h) == 1
    attrs = cookie_attrs(h[0])
    assert attrs.get("path") == "/" and "secure" in attrs and "httponly" in attrs
    assert attrs.get("samesite", "").lower() == "lax" and "domain" not in attrs

    r, doc = b.get("/developers", status=200)
    assert doc.find("form", id="create-key-form") is not None
    assert doc.find(id="unverified") is None
    r, secret = a.create_key(b, "lead bot 1")
    doc = soup(r)
    row = doc.select_one("#key-list tr[data-key-id]")
    assert row.select_one(".key-name").get_text() == "lead bot 1"
    assert secret.startswith(row.select_one(".key-prefix").get_text().rstrip("…"))
    assert row.select_one(".key-used").get_text() == "never"
    assert row.select_one(".key-state").get_text() == "active"
    # the secret is shown once: never again
    r, doc = b.get("/developers", status=200)
    assert secret not in r.text and doc.find(id="new-key-secret") is None

    lr = post_lead(a.server, secret)
    assert lr.status_code == 202, lr.text
    r, doc = b.get("/developers", status=200)
    row = doc.select_one("#key-list tr[data-key-id]")
    assert row.select_one(".key-used").get_text() != "never"
    assert row.select_one(".key-expires time") is not None

    key_id = row["data-key-id"]
    # Revoke asks first: the list links to a confirmation page whose form posts
    link = row.select_one("a.revoke-link")
    assert link["href"] == f"/developers/keys/{key_id}/revoke" and row.find("form") is None
    r, confirm = b.get(link["href"], status=200)
    assert confirm.find(id="revoke-name").get_text() == "lead bot 1"
    assert confirm.find(id="cancel")["href"] == "/developers"
    form = confirm.find("form", id="revoke-form")
    assert form["action"] == f"/developers/keys/{key_id}/revoke" and form["method"] == "post"
    r = b.post(form["action"], {})
    assert r.status_code == 303 and location(r) == "/developers?notice=revoked"
    lr = post_lead(a.server, secret)
    assert lr.status_code == 403, lr.text
    assert lr.json()["error"]["code"] == "invalid_credential"
    r, doc = b.get("/developers?notice=revoked", status=200)
    assert doc.select_one("#key-list tr[data-key-id] .key-state").get_text() == "revoked"
    assert doc.find(id="notice") is not None


# ---------------------------------------------------------------- verification links


def test_reused_verification_link_refused(acc):
    b = acc.browser()
    who = addr("reuse")
    acc.signup(b, who)
    link = acc.verify_link(who)
    assert acc.verify(b, link).status_code == 200
    r, _ = b.get(link)
    assert r.status_code == 410 and "already used" in text(r)
    r = b.post("/account/verify", {"token": token_of(link)})
    assert r.status_code == 410, text(r)


def test_expired_verification_link_refused(fresh):
    a = fresh()
    b = a.browser()
    who = addr("expired")
    a.signup(b, who)
    link = a.verify_link(who)
    r, doc = b.get(link, status=200)
    tok = doc.find("input", attrs={"name": "token"})["value"]
    a.clock.advance(24 * 3600 + 1)
    r, _ = b.get(link)
    assert r.status_code == 410 and "expired" in text(r)
    r = b.post("/account/verify", {"token": tok})
    assert r.status_code == 410, text(r)
    # still unverified: signed in, the portal says why no key can be made
    a.signin(b, who)
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="unverified") is not None
    assert doc.find("form", id="create-key-form") is None


@pytest.mark.parametrize("query", ["?token=nope", "?token=" + "A" * 43, "", "?token=x&token=y",
                                   "?foo=1"])
def test_bad_verification_links_refused(acc, query):
    b = acc.browser()
    r, _ = b.get("/account/verify" + query)
    assert r.status_code == 400, (query, r.status_code)
    check_html_headers(r)


def test_verify_link_cannot_reset_and_reset_link_cannot_verify(acc):
    b = acc.browser()
    who = addr("purpose")
    acc.signup(b, who)
    link = acc.verify_link(who)
    r, _ = b.get("/account/reset?token=" + token_of(link))
    assert r.status_code == 400


# ---------------------------------------------------------------- enumeration safety


def test_signup_answer_is_the_same_for_a_registered_address(acc):
    who = addr("taken")
    b1 = acc.browser()
    r1 = acc.signup(b1, who)
    acc.sink.wait(who, 1)
    b2 = acc.browser()
    r2 = acc.signup(b2, who, password="another fine passphrase")
    assert r1.status_code == r2.status_code == 200
    assert page_message(r1) == page_message(r2)
    assert text(r1) == text(r2)
    # the owner hears about it, with a reset link; no second verification link
    msgs = acc.sink.wait(who, 2)
    assert "already has one" in msgs[1]["body"]
    link_of(msgs[1]["body"], "reset")
    # the second password does not open the account
    acc.signin(acc.browser(), who, password="another fine passphrase", status=403)


def test_signin_failure_reads_the_same_for_unknown_and_known_addresses(acc):
    who = addr("known")
    acc.verified_user(who)
    r1 = acc.signin(acc.browser(), who, password="wrong password here", status=403)
    r2 = acc.signin(acc.browser(), addr("nobody"), password="wrong password here", status=403)
    assert page_message(r1) == page_message(r2) == "The email address or the password is wrong."


def test_forgot_answer_is_the_same_for_unknown_and_known_addresses(acc):
    who = addr("forgot")
    acc.verified_user(who)
    nobody = addr("nobody")
    b = acc.browser()
    r1 = b.form_post("/account/forgot", "forgot-form", {"email": who})
    r2 = b.form_post("/account/forgot", "forgot-form", {"email": nobody})
    assert r1.status_code == r2.status_code == 200
    assert text(r1).replace(who, "X") == text(r2).replace(nobody, "X")
    acc.sink.wait(who, 2)  # verification, then the reset link
    time.sleep(0.3)
    assert acc.sink.to(nobody) == []


def test_signin_rate_limit_is_per_address_whether_registered_or_not(fresh):
    a = fresh(extra=("--signin-limit-account", "3"))
    for who in (addr("limited"), None):
        if who:
            a.verified_user(who)
        else:
            who = addr("ghost")
        b = a.browser()
        for _ in range(3):
            a.signin(b, who, password="not the password", status=403)
        r = a.signin(b, who, password="not the password", status=429)
        assert int(r.headers["Retry-After"]) > 0


# ---------------------------------------------------------------- sign-in limits


def test_failed_signins_limited_per_account_then_window_passes(fresh):
    a = fresh()
    who = addr("brute")
    a.verified_user(who)
    b = a.browser()
    for _ in range(5):
        a.signin(b, who, password="guess number one", status=403)
    r = a.signin(b, who, status=429)  # even the right password waits
    ra = int(r.headers["Retry-After"])
    assert 0 < ra <= 15 * 60
    check_html_headers(r)
    a.clock.advance(15 * 60 + 1)
    a.signin(b, who)


def test_failed_signins_limited_per_client_address(fresh):
    a = fresh(extra=("--signin-limit-ip", "4"))
    b = a.browser()
    for _ in range(4):
        a.signin(b, addr("spray"), password="guess number one", status=403)
    r = a.signin(b, addr("spray"), password="guess number one", status=429)
    assert int(r.headers["Retry-After"]) > 0


# ---------------------------------------------------------------- CSRF


def test_csrf_refusals(acc):
    who = addr("csrf")
    b = acc.verified_user(who)
    anon = acc.browser()
    anon.get("/account/signup", status=200)
    cases = [
        (anon, "/account/signup", {"email": addr(), "password": PASSWORD}, None, "default"),
        (anon, "/account/signup", {"email": addr(), "password": PASSWORD}, "0" * 32, "default"),
        (anon, "/account/signup", {"email": addr(), "password": PASSWORD}, "default",
         "https://evil.example"),
        (anon, "/account/signin", {"email": who, "password": PASSWORD}, None, "default"),
        (anon, "/account/forgot", {"email": who}, "default", "https://evil.example"),
        (b, "/developers/keys", {"name": "x"}, None, "default"),
        (b, "/developers/keys", {"name": "x"}, "default", "https://evil.example"),
        (b, "/developers/keys", {"name": "x"}, "default", None),  # neither Origin nor Referer
        (b, "/account/signout", {}, None, "default"),
        (b, "/account/password", {"current": PASSWORD, "password": "a brand new passphrase"},
         None, "default"),
    ]
    b.get("/developers", status=200)
    for who_b, path, data, csrf, origin in cases:
        r = who_b.post(path, data, csrf=csrf, origin=origin)
        assert r.status_code == 403, (path, csrf, origin, r.status_code, text(r)[:200])
        check_html_headers(r)
    # the anonymous cookie's token is not the session's
    anon_token = anon.csrf
    r = b.post("/developers/keys", {"name": "x"}, csrf=anon_token)
    assert r.status_code == 403
    r, doc = b.get("/developers", status=200)
    assert doc.select("#key-list tr[data-key-id]") == []
    # still signed in: nothing above signed the user out
    assert doc.find("form", id="create-key-form") is not None


def test_forms_without_any_cookie_refused(acc):
    b = Browser(acc.server)
    r = b.post("/account/signin", {"email": "a@b.example", "password": PASSWORD}, csrf="x" * 32)
    assert r.status_code == 403
    b.close()


# ---------------------------------------------------------------- sessions


def test_session_revoked_after_signout(acc):
    who = addr("signout")
    b = acc.verified_user(who)
    old = b.session
    r, doc = b.get("/account", status=200)
    assert doc.find(id="account-email").get_text() == who
    r = b.form_post("/account", "signout-form", {})
    assert r.status_code == 303 and location(r) == "/account/signin?notice=signedout"
    assert any(h.startswith(SESSION_COOKIE + "=;") and "Max-Age=0" in h
               for h in b.last_set_cookies)
    assert b.session is None
    # the old cookie is dead on the server, not just forgotten by the browser
    b.cookies[SESSION_COOKIE] = old
    r, _ = b.get("/account")
    assert r.status_code == 303 and location(r) == "/account/signin?next=/account"
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="signed-out") is not None
    r = b.post("/developers/keys", {"name": "x"}, csrf="0" * 32)
    assert r.status_code == 403


def test_tampered_session_cookie_is_ignored(acc):
    who = addr("tamper")
    b = acc.verified_user(who)
    tok, sig = b.session.split(".")
    b.cookies[SESSION_COOKIE] = tok + "." + ("0" if sig[0] != "0" else "1") + sig[1:]
    r, _ = b.get("/account")
    assert r.status_code == 303


def test_session_expires_after_30_days(fresh):
    a = fresh()
    who = addr("old")
    b = a.verified_user(who)
    b.get("/account", status=200)
    a.clock.advance(30 * 86400 + 1)
    r, _ = b.get("/account")
    assert r.status_code == 303


def test_signin_next_is_local_only(acc):
    who = addr("next")
    acc.verified_user(who)
    b = acc.browser()
    r = acc.signin(b, who, next_path="/account")
    assert location(r) == "/account"
    r, _ = b.get("/account/signin?next=//evil.example/x")
    assert r.status_code == 400
    b2 = acc.browser()
    b2.get("/account/signin", status=200)
    r = b2.post("/account/signin", {"email": who, "password": PASSWORD,
                                    "next": "https://evil.example/"})
    assert r.status_code == 303 and location(r) == "/developers"


# ---------------------------------------------------------------- passwords


@pytest.mark.parametrize("pw,fragment", [
    ("short1", "at least 10"),
    ("password123", "most common"),
    ("QWERTYUIOP", "most common"),
    ("x" * 257, "at most 256"),
])
def test_password_policy(acc, pw, fragment):
    b = acc.browser()
    who = addr("policy")
    r = acc.signup(b, who, password=pw, status=400)
    assert fragment in page_message(r), page_message(r)
    time.sleep(0.1)
    assert acc.sink.to(who) == []


def test_password_may_not_be_the_email(acc):
    b = acc.browser()
    who = addr("same")
    r = acc.signup(b, who, password=who, status=400)
    assert "email" in page_message(r)


@pytest.mark.parametrize("email", ["", "no-at-sign", "a@b", "a b@c.example", "@c.example"])
def test_signup_refuses_bad_email(acc, email):
    r = acc.signup(acc.browser(), email, status=400)
    assert "valid email" in page_message(r)


def test_password_reset_flow(acc):
    who = addr("reset")
    b1 = acc.verified_user(who)
    b2 = acc.browser()
    acc.signin(b2, who)
    anon = acc.browser()
    r = anon.form_post("/account/forgot", "forgot-form", {"email": who})
    assert r.status_code == 200
    msgs = acc.sink.wait(who, 2)
    link = link_of(msgs[1]["body"], "reset")
    assert msgs[1]["msg"]["Subject"] == "Reset your Whistle password"
    r = anon.form_post(link, "reset-form", {"password": "password123"})
    assert r.status_code == 400 and "most common" in page_message(r)
    r = anon.form_post(link, "reset-form", {"password": "a new long passphrase"})
    assert r.status_code == 303 and location(r) == "/account/signin?notice=reset"
    # every session of the account ended
    for b in (b1, b2):
        r, _ = b.get("/account")
        assert r.status_code == 303
    acc.signin(acc.browser(), who, status=403)  # the old password is gone
    acc.signin(acc.browser(), who, password="a new long passphrase")
    # the link was single-use
    r, _ = anon.get(link)
    assert r.status_code == 410


def test_reset_link_expires_after_an_hour(fresh):
    a = fresh()
    who = addr("slow")
    a.verified_user(who)
    anon = a.browser()
    anon.form_post("/account/forgot", "forgot-form", {"email": who})
    link = link_of(a.sink.wait(who, 2)[1]["body"], "reset")
    r, doc = anon.get(link, status=200)
    a.clock.advance(3601)
    r, _ = anon.get(link)
    assert r.status_code == 410 and "expired" in text(r)


def test_reset_verifies_an_unverified_address(acc):
    who = addr("unverified-reset")
    acc.signup(acc.browser(), who)
    acc.sink.wait(who, 1)
    anon = acc.browser()
    anon.form_post("/account/forgot", "forgot-form", {"email": who})
    link = link_of(acc.sink.wait(who, 2)[1]["body"], "reset")
    r = anon.form_post(link, "reset-form", {"password": "a new long passphrase"})
    assert r.status_code == 303
    b = acc.browser()
    acc.signin(b, who, password="a new long passphrase")
    r, doc = b.get("/developers", status=200)
    assert doc.find("form", id="create-key-form") is not None


def test_password_change_revokes_other_sessions(acc):
    who = addr("change")
    b1 = acc.verified_user(who)
    b2 = acc.browser()
    acc.signin(b2, who)
    old = b1.session
    r = b1.form_post("/account", "password-form", {"current": "wrong one entirely",
                                                   "password": "a fresh passphrase"})
    assert r.status_code == 403
    r = b1.form_post("/account", "password-form", {"current": PASSWORD,
                                                   "password": "a fresh passphrase"})
    assert r.status_code == 303 and location(r) == "/account?notice=password"
    assert b1.session and b1.session != old  # this browser got a new session
    r, doc = b1.get("/account?notice=password", status=200)
    assert doc.find(id="notice") is not None
    r, _ = b2.get("/account")
    assert r.status_code == 303  # the other session ended
    b1.cookies[SESSION_COOKIE] = old
    r, _ = b1.get("/account")
    assert r.status_code == 303  # and so did the old one of this browser
    acc.signin(acc.browser(), who, password="a fresh passphrase")


# ---------------------------------------------------------------- the portal


def test_developers_page_explains_the_api_to_everyone(acc):
    b = acc.browser()
    r, doc = b.get("/developers", status=200)
    check_html_headers(r)
    t = text(r)
    for words in ("curl", "Idempotency-Key", "429", "never a verdict", "90 days",
                  "/api/v1/agent-leads", "Sign in"):
        assert words in t, words
    assert doc.find(id="signed-out") is not None
    assert doc.find("form", id="create-key-form") is None
    r, _ = b.get("/developers?x=1")
    assert r.status_code == 400


def test_unverified_user_sees_why_and_cannot_create(acc):
    who = addr("unverified")
    b = acc.browser()
    acc.signup(b, who)
    acc.sink.wait(who, 1)
    acc.signin(b, who)
    r, doc = b.get("/developers", status=200)
    box = doc.find(id="unverified")
    assert box is not None and "not verified" in box.get_text() and who in box.get_text()
    assert doc.find("form", id="create-key-form") is None
    r = b.post("/developers/keys", {"name": "sneaky"})
    assert r.status_code == 403 and "Verify your email" in page_message(r)
    # a new link on request
    r = b.form_post("/developers", "resend-form", {})
    assert r.status_code == 303 and location(r) == "/developers?notice=sent"
    link = acc.verify_link(who, 2)
    assert acc.verify(b, link).status_code == 200
    r, doc = b.get("/developers", status=200)
    assert doc.find("form", id="create-key-form") is not None


def test_key_limit_is_configurable(fresh):
    a = fresh(extra=("--max-agent-keys", "2"))
    b = a.verified_user(addr("limit"))
    a.create_key(b, "one")
    a.create_key(b, "two")
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="key-limit") is not None
    assert doc.find("form", id="create-key-form") is None
    r = b.post("/developers/keys", {"name": "three"})
    assert r.status_code == 409
    _, confirm = b.get(doc.select_one("#key-list tr[data-key-id] a.revoke-link")["href"],
                       status=200)
    assert b.post(confirm.find("form", id="revoke-form")["action"], {}).status_code == 303
    a.create_key(b, "three")


def test_default_key_limit_is_5(acc):
    b = acc.verified_user(addr("five"))
    for k in range(5):
        acc.create_key(b, f"key {k}")
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="key-limit") is not None
    assert len(doc.select("#key-list tr[data-key-id]")) == 5
    assert b.post("/developers/keys", {"name": "six"}).status_code == 409


@pytest.mark.parametrize("name,fragment", [("", "name"), ("   ", "name"), ("x" * 101, "100"),
                                           ("tab\there", "control")])
def test_key_name_checked(acc, name, fragment):
    b = acc.verified_user(addr("names"))
    b.get("/developers", status=200)
    r = b.post("/developers/keys", {"name": name})
    assert r.status_code == 400 and fragment in page_message(r), page_message(r)


def test_cannot_revoke_another_accounts_key(acc):
    owner = acc.verified_user(addr("owner"))
    _, secret = acc.create_key(owner, "mine")
    r, doc = owner.get("/developers", status=200)
    key_id = doc.select_one("#key-list tr[data-key-id]")["data-key-id"]
    other = acc.verified_user(addr("other"))
    other.get("/developers", status=200)
    # the confirmation page is the owner's alone too; signed out, it sends to sign-in
    other.get(f"/developers/keys/{key_id}/revoke", status=404)
    other.get("/developers/keys/not-a-uuid/revoke", status=404)
    r = acc.server.get(f"/developers/keys/{key_id}/revoke", allow_redirects=False)
    assert r.status_code == 303 and "/account/signin?next=/developers" in r.headers["Location"]
    r = other.post(f"/developers/keys/{key_id}/revoke", {})
    assert r.status_code == 404
    r = other.post("/developers/keys/not-a-uuid/revoke", {})
    assert r.status_code == 404
    assert post_lead(acc.server, secret).status_code == 202


def test_portal_key_is_listed_by_the_operator_cli(acc, cli):
    who = addr("cli")
    b = acc.verified_user(who)
    acc.create_key(b, "seen by cli")
    r = cli("key", "list", "--owner", who, "--db", acc.server.db, "--json")
    assert r.returncode == 0, r.stderr
    keys = json.loads(r.stdout)["keys"]
    assert [k["name"] for k in keys] == ["seen by cli"] and keys[0]["state"] == "active"


def test_banned_account_cannot_create_keys(acc, cli):
    who = addr("banned")
    b = acc.verified_user(who)
    assert cli("account", "ban", who, "--db", acc.server.db).returncode == 0
    # a ban ends the account's sessions at once (issue 16): the browser is signed out
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="create-key-form") is None
    assert b.post("/developers/keys", {"name": "x"}).status_code == 403
    acc.signin(acc.browser(), who, status=403)
    assert db_rows(acc.server.db, "SELECT count(*) FROM sessions x JOIN accounts a"
                   f" ON a.id = x.account_id WHERE a.email = '{who}'"
                   " AND x.revoked_at IS NULL") == [(0,)]
    # ended, not hidden (issue 14 item 8): once unbanned, the old session is still signed out
    assert cli("account", "unban", who, "--db", acc.server.db).returncode == 0
    r, doc = b.get("/developers", status=200)
    assert doc.find(id="create-key-form") is None


# ---------------------------------------------------------------- signed-in voting


SLUG = "pi-no-call-late-hit"


def _slug_with_question(server):
    d = server.json("/api/v1/incidents?has_verdict=true&limit=1")["data"][0]
    return d["slug"] or d["id"], d["id"], d["debate_question"]["question_version"]


def test_signed_in_vote_with_rooting_interest(acc):
    slug, iid, qv = _slug_with_question(acc.server)
    b = acc.verified_user(addr("voter"))
    r, doc = b.get(f"/incidents/{slug}", status=200)
    form = doc.find("form", id="vote-form")
    sel = form.find("select", attrs={"name": "rooting"})
    assert [o["value"] for o in sel.find_all("option")] == ["", "home", "away", "neutral",
                                                            "undisclosed"]
    assert "Prefer not to say" in sel.get_text()
    assert doc.find(id="vote-signin") is None
    before = acc.server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]
    r = b.post(f"/incidents/{slug}/vote", {"choice": "incorrect", "question_version": qv,
                                           "rooting": "home"})
    assert r.status_code == 303, text(r)[:300]
    after = acc.server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]
    assert after["total"] == before["total"] + 1
    home = lambda v: v["rooting"].get("home", {"correct": 0, "incorrect": 0, "unsure": 0})
    assert home(after)["incorrect"] == home(before)["incorrect"] + 1
    # the page shows this account's ballot and rooting
    r, doc = b.get(f"/incidents/{slug}", status=200)
    assert doc.select_one('#vote-form button[value="incorrect"]')["aria-pressed"] == "true"
    assert doc.select_one('#vote-form option[value="home"]').has_attr("selected")
    # one ballot per version: a revote (now "prefer not to say") replaces it
    r = b.post(f"/incidents/{slug}/vote", {"choice": "correct", "question_version": qv,
                                           "rooting": "undisclosed"})
    assert r.status_code == 303
    again = acc.server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]
    assert again["total"] == after["total"]
    assert home(again) == home(before)
    assert again["rooting"]["undisclosed"]["correct"] >= 1


def test_same_account_in_two_browsers_is_one_voter(acc):
    slug, iid, qv = _slug_with_question(acc.server)
    who = addr("twobrowsers")
    b1 = acc.verified_user(who)
    b2 = acc.browser()
    acc.signin(b2, who)
    before = acc.server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]["total"]
    for b, choice in ((b1, "correct"), (b2, "unsure")):
        b.get(f"/incidents/{slug}", status=200)
        r = b.post(f"/incidents/{slug}/vote", {"choice": choice, "question_version": qv})
        assert r.status_code == 303
    after = acc.server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]["total"]
    assert after == before + 1
    r, doc = b1.get(f"/incidents/{slug}", status=200)
    assert doc.select_one('#vote-form button[value="unsure"]')["aria-pressed"] == "true"
    assert doc.select_one('#vote-form option[value=""]') is not None


def test_signed_in_json_vote_and_bad_rooting(acc):
    slug, iid, qv = _slug_with_question(acc.server)
    b = acc.verified_user(addr("jsonvoter"))
    b.get(f"/incidents/{slug}", status=200)
    h = {"Content-Type": "application/json", "Origin": b.origin,
         "Cookie": b._cookie_header()}
    body = {"choice": "correct", "question_version": qv, "csrf": b.csrf, "rooting": "away"}
    r = b.http.post(acc.server.url + f"/incidents/{slug}/vote", data=json.dumps(body), headers=h,
                    timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["choice"] == "correct"
    assert r.json()["data"]["rooting"] == "away"
    body["rooting"] = None
    r = b.http.post(acc.server.url + f"/incidents/{slug}/vote", data=json.dumps(body), headers=h,
                    timeout=10)
    assert r.status_code == 200 and r.json()["data"]["rooting"] is None
    body["rooting"] = "fan"
    r = b.http.post(acc.server.url + f"/incidents/{slug}/vote", data=json.dumps(body), headers=h,
                    timeout=10)
    assert r.status_code == 400 and "rooting" in r.json()["error"]["message"]


def test_anonymous_page_offers_sign_in_and_no_rooting(acc):
    slug, _, _ = _slug_with_question(acc.server)
    r, doc = acc.browser().get(f"/incidents/{slug}", status=200)
    assert doc.find("select", attrs={"name": "rooting"}) is None
    a = doc.select_one("#vote-signin a")
    assert a["href"] == f"/account/signin?next=/incidents/{slug}"


# ---------------------------------------------------------------- the outbox


def test_without_smtp_url_the_link_is_logged_and_secrets_never(fresh):
    a = fresh(smtp=False)
    who = addr("logged")
    b = a.browser()
    a.signup(b, who)
    line = a.server.log_line(lambda l: "/account/verify?token=" in l and who in l, timeout=10)
    assert line is not None, a.server.lines[-10:]
    link = line[line.index(BASE):].split()[0][len(BASE):]
    # the log tells one story: written to the log, never "not sent" then "sent"
    assert a.server.log_line(lambda l: "written to the log (attempt 1)" in l, timeout=10)
    assert not [l for l in a.server.lines if "mail:" in l and " sent" in l], a.server.lines[-10:]
    assert a.verify(b, link).status_code == 200
    a.signin(b, who)
    a.create_key(b, "logged key")
    time.sleep(0.3)
    log = "\n".join(a.server.lines)
    assert PASSWORD not in log
    assert b.session not in log and b.session.split(".")[0] not in log
    assert "wk_" not in log.replace("wk_…", "")
    assert any("no --smtp-url" in l for l in a.server.lines)


def test_delivery_is_retried_until_the_relay_answers(fresh, server_factory):
    from accountkit import free_port

    port = free_port()
    clock = Clock(server_factory.tmpdir / "retry-offset")
    server = server_factory.start(extra=("--smtp-url", f"smtp://127.0.0.1:{port}", "--poll-ms",
                                         "20"), env=clock.env)
    b = Browser(server)
    who = addr("retry")
    b.form_post("/account/signup", "signup-form", {"email": who, "password": PASSWORD})
    assert server.log_line(lambda l: "not sent (attempt 1" in l, timeout=15) is not None
    sink = MailSink(port)
    try:
        clock.advance(61)  # the first retry waits a minute
        (m,) = sink.wait(who, 1, timeout=15)
        link_of(m["body"], "verify")
        assert server.log_line(lambda l: "sent (attempt 2)" in l, timeout=5) is not None
    finally:
        sink.stop()
        b.close()


def test_smtp_options_checked(cli, tmp_path):
    from helpers import run_cli

    db = str(tmp_path / "db")
    r = run_cli("worker", "--once", "--db", db, "--smtp-url", "http://x")
    assert r.returncode == 1 and "--smtp-url" in r.stderr
    r = run_cli("worker", "--once", "--db", db, "--smtp-user", "u")
    assert r.returncode == 1 and "--smtp-url" in r.stderr
    r = run_cli("worker", "--once", "--db", db, "--mail-from", "no address")
    assert r.returncode == 1


# ---------------------------------------------------------------- HTTP rules


ACCOUNT_PAGES = ["/account/signup", "/account/signin", "/account/forgot", "/developers"]


@pytest.mark.parametrize("path", ACCOUNT_PAGES)
def test_pages_follow_the_http_rules(acc, path):
    r, _ = acc.browser().get(path, status=200)
    check_html_headers(r)
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert re.match(r"^[0-9a-f]{16}$", r.headers["X-Request-Id"])
    assert any(h.startswith(VOTER_COOKIE + "=") for h in
               [x for x in r.raw.headers.getlist("Set-Cookie")]) or path == "/developers"


@pytest.mark.parametrize("path", ["/account/signup", "/account/signin", "/account/forgot",
                                  "/account/reset", "/account/verify", "/developers/keys",
                                  "/account/signout", "/account/password"])
def test_wrong_methods_and_bodies(acc, path):
    r = acc.server.request("PUT", path)
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    r = acc.server.request("POST", path, data="x" * (17 * 1024),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


def test_unknown_form_fields_refused(acc):
    b = acc.browser()
    b.get("/account/signup", status=200)
    r = b.post("/account/signup", {"email": addr(), "password": PASSWORD, "admin": "1"})
    assert r.status_code == 400 and "admin" in page_message(r)


# ---------------------------------------------------------------- more edges


def test_signing_in_again_ends_the_browsers_previous_session(acc):
    who = addr("again")
    b = acc.verified_user(who)
    first = b.session
    acc.signin(b, who)
    assert b.session != first
    b2 = Browser(acc.server)
    b2.cookies[SESSION_COOKIE] = first
    r, _ = b2.get("/account")
    assert r.status_code == 303
    b2.close()
    b.get("/account", status=200)


def test_concurrent_signups_for_one_address_read_the_same(acc):
    import threading

    who = addr("race")
    browsers = [acc.browser() for _ in range(4)]
    for b in browsers:
        b.get("/account/signup", status=200)
    results = []

    def go(b):
        results.append(b.post("/account/signup", {"email": who, "password": PASSWORD}))

    threads = [threading.Thread(target=go, args=(b,)) for b in browsers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in results] == [200] * 4
    assert len({page_message(r) for r in results}) == 1
    msgs = acc.sink.wait(who, 4)
    verify = [m for m in msgs if "/account/verify?token=" in m["body"]]
    assert len(verify) == 1  # one account, one verification link


def test_new_password_policy_on_change_and_reset(acc):
    who = addr("policy-change")
    b = acc.verified_user(who)
    r = b.form_post("/account", "password-form", {"current": PASSWORD, "password": "iloveyou123"})
    assert r.status_code == 400 and "most common" in page_message(r)
    r = b.form_post("/account", "password-form", {"current": PASSWORD, "password": who})
    assert r.status_code == 400
    b.get("/account", status=200)  # still signed in, password unchanged
    acc.signin(acc.browser(), who)


def test_smtp_credentials_never_travel_in_the_clear(server_factory):
    sink = MailSink()  # no STARTTLS
    secret_pw = "relay-pw-do-not-log-7f3a"
    try:
        server = server_factory.start(extra=("--smtp-url", sink.url, "--smtp-user", "whistle",
                                             "--smtp-password", secret_pw, "--poll-ms", "20"))
        b = Browser(server)
        who = addr("creds")
        b.form_post("/account/signup", "signup-form", {"email": who, "password": PASSWORD})
        line = server.log_line(lambda l: "not sent (attempt 1" in l, timeout=15)
        assert line is not None, server.lines[-5:]
        assert sink.to(who) == []
        assert all(secret_pw not in l for l in server.lines)
        b.close()
    finally:
        sink.stop()


@pytest.mark.parametrize("args,fragment", [
    (("--max-agent-keys", "0"), "--max-agent-keys"),
    (("--signin-limit-account", "x"), "--signin-limit-account"),
    (("--signin-limit-ip", "-1"), "--signin-limit-ip"),
    (("--password-memory-kib", "100"), "--password-memory-kib"),
    (("--signup-limit-ip", "0"), "--signup-limit-ip"),
    (("--smtp-url", "smtp://127.0.0.1:1", "--smtp-password", "p"), "--smtp-user"),
])
def test_serve_account_options_checked(tmp_path, args, fragment):
    from helpers import run_cli

    r = run_cli("serve", "--db", str(tmp_path / "db"), "--listen", "127.0.0.1:0", *args)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert fragment in r.stderr, r.stderr


def test_standalone_worker_delivers_the_outbox(server_factory):
    """serve --no-worker queues; `whistle worker --once --smtp-url …` delivers (any node)."""
    from helpers import run_cli

    sink = MailSink()
    try:
        server = server_factory.start(extra=("--no-worker",))
        b = Browser(server)
        who = addr("worker")
        b.form_post("/account/signup", "signup-form", {"email": who, "password": PASSWORD})
        time.sleep(0.3)
        assert sink.to(who) == []  # nobody delivers yet
        r = run_cli("worker", "--once", "--json", "--db", server.db, "--smtp-url", sink.url,
                    "--base-url", BASE)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["units"] >= 1
        (m,) = sink.wait(who, 1)
        assert m["msg"]["From"] == "Whistle <no-reply@whistle.test>"
        link_of(m["body"], "verify")
        r = run_cli("worker", "--once", "--json", "--db", server.db, "--smtp-url", sink.url)
        assert json.loads(r.stdout)["units"] == 0  # sent once, never twice
        b.close()
    finally:
        sink.stop()


def test_account_page_offers_a_new_link_until_verified(acc):
    who = addr("acctpage")
    b = acc.browser()
    acc.signup(b, who)
    acc.sink.wait(who, 1)
    acc.signin(b, who)
    r, doc = b.get("/account", status=200)
    assert "not verified" in doc.find(id="email-state").get_text()
    r = b.form_post("/account", "resend-form", {})
    assert r.status_code == 303 and location(r) == "/developers?notice=sent"
    assert acc.verify(b, acc.verify_link(who, 2)).status_code == 200
    r, doc = b.get("/account", status=200)
    assert doc.find(id="email-state").get_text() == "Your email address is verified."
    assert doc.find("form", id="resend-form") is None


def test_signups_and_reset_requests_limited_per_client_address(fresh):
    a = fresh(extra=("--signup-limit-ip", "3"))
    b = a.browser()
    a.signup(b, addr("lim"))
    a.signup(b, addr("lim"))
    r = b.form_post("/account/forgot", "forgot-form", {"email": addr("nobody")})
    assert r.status_code == 200
    r = a.signup(b, addr("lim"), status=429)
    ra = int(r.headers["Retry-After"])
    assert 0 < ra <= 3600
    check_html_headers(r)
    r = b.form_post("/account/forgot", "forgot-form", {"email": addr("nobody")})
    assert r.status_code == 429
    a.clock.advance(3601)
    a.signup(b, addr("lim"))
