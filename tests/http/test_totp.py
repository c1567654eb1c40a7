"""Optional TOTP two-factor sign-in for staff accounts (issue 16; docs/accounts.md
"Two-factor sign-in"), black-box on both drivers (WHISTLE_TEST_PG): enrolment on /account
(the key as base32 and an otpauth:// URI, confirmed by a code before it is on), sign-in asks
for the code, a code is used once, the desk's re-authentication takes a code, turning it off
needs the password; every change one audit record. Codes are computed here with the standard
library (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps) at the server's clock (real time
plus the test clock's offset, which the tests move instead of sleeping)."""

import base64
import hashlib
import hmac
import json
import re
import struct
import time
from urllib.parse import parse_qs, unquote, urlparse

import pytest

from accountkit import PASSWORD, text
from commentkit import Kit
from helpers import db_rows
from pagekit import soup


def totp(secret_b32, at):
    key = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at) // 30), hashlib.sha1).digest()
    off = mac[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", mac[off:off + 4])[0] & 0x7FFFFFFF) % 1000000)


@pytest.fixture
def kit(whistle_bin, tmp_path):
    from conftest import ServerFactory

    f = ServerFactory(tmp_path)
    k = Kit(f, tmp_path)
    yield k
    k.close()
    f.stop_all()


def now(kit):
    """The server's clock, in seconds."""
    return time.time() + kit.clock.value


def code(kit, secret, steps=0):
    return totp(secret, now(kit) + 30 * steps)


def audit(kit, aid):
    return [a for (a,) in db_rows(kit.db, "SELECT action FROM audit_log WHERE target_id ="
                                          f" '{aid}' AND action LIKE 'account.totp%'"
                                          " ORDER BY at")]


def account_id(kit, b):
    return db_rows(kit.db, f"SELECT id FROM accounts WHERE email = '{b.email}'")[0][0]


def enrol(kit, b):
    """Turns two-factor on for b: its secret (base32)."""
    r = b.form_post("/account", "totp-begin-form", {"password": PASSWORD})
    assert r.status_code == 200, text(r)[:300]
    doc = soup(r)
    secret = doc.find(id="totp-secret").get_text()
    b.csrf = doc.find("input", attrs={"name": "csrf"})["value"]
    r = b.post("/account/totp/confirm", {"code": code(kit, secret)})
    assert r.status_code == 303 and r.headers["Location"].endswith("/account?notice=totp-on")
    return secret


def signin_to_code(kit, b):
    """Signs b out and in with the password: the code form's fields."""
    if b.session:
        b.form_post("/account", "signout-form", {})
    r = b.form_post("/account/signin", "signin-form", {"email": b.email, "password": PASSWORD})
    assert r.status_code == 200, (r.status_code, text(r)[:300])
    assert b.session is None, "no session before the code"
    f = soup(r).find("form", id="code-form")
    assert f is not None
    return {i["name"]: i.get("value", "") for i in f.find_all("input", type="hidden")}


def send_code(b, fields, c):
    data = dict(fields, code=c)
    csrf = data.pop("csrf")
    return b.post("/account/signin/code", data, csrf=csrf)


def test_enrol_sign_in_replay_and_turn_off(kit):
    ed = kit.user("Two Factor Editor")
    assert kit.cli("account", "grant", ed.email, "editor").returncode == 0
    aid = account_id(kit, ed)
    # a fan has no two-factor section and cannot enrol
    fan = kit.user()
    _, doc = fan.get("/account", status=200)
    assert doc.find(id="totp-begin-form") is None
    assert fan.post("/account/totp", {"password": PASSWORD}).status_code == 403
    # enrolment needs the password; the key is shown as base32 and as an otpauth:// URI
    _, doc = ed.get("/account", status=200)
    assert "off" in doc.find(id="totp-state").get_text()
    assert ed.form_post("/account", "totp-begin-form",
                        {"password": "wrong password!"}).status_code == 403
    r = ed.form_post("/account", "totp-begin-form", {"password": PASSWORD})
    assert r.status_code == 200, text(r)[:300]
    doc = soup(r)
    secret = doc.find(id="totp-secret").get_text()
    uri = urlparse(doc.find(id="totp-uri").get_text())
    assert re.fullmatch(r"[A-Z2-7]{32}", secret)
    assert (uri.scheme, uri.netloc, unquote(uri.path)) == ("otpauth", "totp",
                                                          f"/Whistle:{ed.email}")
    q = parse_qs(uri.query)
    assert q == {"secret": [secret], "issuer": ["Whistle"], "algorithm": ["SHA1"],
                 "digits": ["6"], "period": ["30"]}
    # not on until a code confirms it
    _, doc = ed.get("/account", status=200)
    assert "off" in doc.find(id="totp-state").get_text()
    r = ed.post("/account/totp/confirm", {"code": code(kit, secret, steps=5)})
    assert r.status_code == 403 and "wrong" in text(r)
    assert audit(kit, aid) == []
    r = ed.post("/account/totp/confirm", {"code": code(kit, secret)})
    assert r.status_code == 303 and r.headers["Location"].endswith("/account?notice=totp-on")
    assert audit(kit, aid) == ["account.totp_enable"]
    assert secret not in str(db_rows(kit.db, "SELECT * FROM audit_log"))
    _, doc = ed.get("/account", status=200)
    assert "on" in doc.find(id="totp-state").get_text()
    assert ed.post("/account/totp/confirm", {"code": code(kit, secret)}).status_code == 409

    # sign-in asks for the code: no session until it is right
    kit.clock.advance(30)  # a step after the confirmation's
    fields = signin_to_code(kit, ed)
    assert ed.get("/account")[0].status_code == 303
    r = send_code(ed, fields, code(kit, secret, steps=3))
    assert r.status_code == 403 and ed.session is None
    good = code(kit, secret)
    r = send_code(ed, fields, good)
    assert r.status_code == 303 and ed.session is not None
    assert ed.get("/account")[0].status_code == 200
    # the challenge is spent; the same code cannot be used again within its window
    assert send_code(ed, fields, good).status_code == 403
    fields = signin_to_code(kit, ed)
    r = send_code(ed, fields, good)
    assert r.status_code == 403 and ed.session is None
    kit.clock.advance(30)
    r = send_code(ed, fields, code(kit, secret))
    assert r.status_code == 303 and ed.session is not None
    # the code form lasts five minutes
    fields = signin_to_code(kit, ed)
    kit.clock.advance(301)
    assert send_code(ed, fields, code(kit, secret)).status_code == 403

    # the desk's re-authentication takes a code instead of the password, once
    assert kit.cli("account", "grant", ed.email, "admin").returncode == 0
    kit.clock.advance(30)
    fields = signin_to_code(kit, ed)
    assert send_code(ed, fields, code(kit, secret)).status_code == 303
    kit.clock.advance(30)
    c = code(kit, secret)
    _, doc = ed.get("/desk/scout-keys", status=200)
    r = ed.post("/desk/scout-keys", {"name": "by-code", "code": c})
    assert r.status_code == 200, text(r)[:300]
    assert soup(r).find(id="secret").get_text().startswith("ws_")
    r = ed.post("/desk/scout-keys", {"name": "by-code-again", "code": c})
    assert r.status_code == 403 and "code" in text(r)
    assert ed.post("/desk/scout-keys", {"name": "by-password",
                                        "password": PASSWORD}).status_code == 200

    # turning it off needs the password; then sign-in needs no code
    assert ed.form_post("/account", "totp-disable-form",
                        {"password": "wrong password!"}).status_code == 403
    r = ed.form_post("/account", "totp-disable-form", {"password": PASSWORD})
    assert r.status_code == 303 and r.headers["Location"].endswith("/account?notice=totp-off")
    assert audit(kit, aid) == ["account.totp_enable", "account.totp_disable"]
    ed.form_post("/account", "signout-form", {})
    r = ed.form_post("/account/signin", "signin-form", {"email": ed.email, "password": PASSWORD})
    assert r.status_code == 303 and ed.session is not None
    # PostgreSQL write rule: nothing was prepared under the two-factor lock
    assert [ln for ln in kit.server.lines if "prepared while a key lock is held" in ln] == []


def test_wrong_codes_count_as_failed_sign_ins(kit):
    ed = kit.user("Limited Editor")
    assert kit.cli("account", "grant", ed.email, "moderator").returncode == 0
    secret = enrol(kit, ed)
    kit.clock.advance(30)
    fields = signin_to_code(kit, ed)
    limited = None
    for i in range(8):  # the per-address limit of failed sign-ins is 5 in 15 minutes
        r = send_code(ed, fields, code(kit, secret, steps=10 + i))
        if r.status_code == 429:
            limited = i
            break
        assert r.status_code == 403
    assert limited is not None and limited <= 5, limited
    assert send_code(ed, fields, code(kit, secret)).status_code == 429


def test_operator_turns_off_a_lost_authenticator(kit):
    ed = kit.user("Lost Phone Editor")
    assert kit.cli("account", "grant", ed.email, "editor").returncode == 0
    aid = account_id(kit, ed)
    # nothing to reset yet, an unknown address, a malformed one
    r = kit.cli("account", "totp-off", ed.email)
    assert r.returncode == 1 and "no two-factor key" in r.stderr
    assert kit.cli("account", "totp-off", "nobody@example.com").returncode == 1
    assert kit.cli("account", "totp-off", "not-an-address").returncode == 1
    assert kit.cli("account", "totp-off").returncode == 2
    enrol(kit, ed)
    signin_to_code(kit, ed)  # the password alone no longer signs in
    r = kit.cli("account", "totp-off", ed.email, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"owner": ed.email, "totp": False}
    assert audit(kit, aid) == ["account.totp_enable", "account.totp_disable"]
    reason = db_rows(kit.db, "SELECT actor, reason FROM audit_log WHERE target_id ="
                             f" '{aid}' AND action = 'account.totp_disable'")
    assert reason == [("operator", "authenticator lost: reset by an operator")]
    # the password signs in again, and a new authenticator can be enrolled
    r = ed.form_post("/account/signin", "signin-form", {"email": ed.email, "password": PASSWORD})
    assert r.status_code == 303 and ed.session
    enrol(kit, ed)
    assert kit.cli("account", "totp-off", ed.email).returncode == 0
