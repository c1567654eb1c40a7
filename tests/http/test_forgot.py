"""POST /account/forgot does the same work for every address (issue 14 item 8; docs/accounts.md,
docs/security.md): the request queues one reset_requests row and answers; the worker's mail
lane later mails a reset link to a registered address and only deletes the row of any other.
Black-box, on both drivers: the real binary, a real SMTP sink (accountkit.MailSink)."""

import json
import re
import time

from accountkit import PASSWORD, Accounts, Browser, MailSink, link_of, location
from helpers import BASE, db_rows, run_cli
from leadkit import Clock

NEW_PASSWORD = "a brand new passphrase"


def queued(server):
    return db_rows(server.db, "SELECT count(*) FROM reset_requests")[0][0]


def wait_queue_empty(server, timeout=10.0):
    end = time.monotonic() + timeout
    while queued(server) and time.monotonic() < end:
        time.sleep(0.05)
    return queued(server)


def pair(tag):
    """A registered-to-be and an unknown address of the same length."""
    n = time.monotonic_ns()
    return f"reg-{tag}-{n}@example.org", f"unk-{tag}-{n}@example.org"


def no_lock_warnings(lines):
    """PostgreSQL write rule: no statement prepared under a key lock (pg.c warns), and no
    store failure, in the request's or the worker's half."""
    bad = [ln for ln in lines if "prepared while a key lock is held" in ln or
           "store failure" in ln]
    assert bad == []


def answer(r, who):
    """What a client sees of the answer, the typed address (echoed) taken out."""
    headers = {k: v for k, v in r.headers.items() if k.lower() not in ("x-request-id", "date")}
    return r.status_code, headers, r.content.replace(who.encode(), b"ADDRESS")


def test_same_answer_and_only_a_registered_address_gets_a_working_link(server_factory, tmp_path):
    # the default poll interval of the mail lane (--poll-ms 500): the link still arrives in
    # a few seconds (MailSink.wait's bound)
    a = Accounts(server_factory, tmp_path, poll_ms=None)
    try:
        server, sink = a.server, a.sink
        who, nobody = pair("same")
        assert len(who) == len(nobody)
        a.verified_user(who)
        b = a.browser()
        # the unknown address first: when the registered one's mail arrives, both requests
        # have been taken (oldest first)
        r_unk = b.form_post("/account/forgot", "forgot-form", {"email": nobody})
        r_reg = b.form_post("/account/forgot", "forgot-form", {"email": who})
        assert r_reg.status_code == 200
        assert answer(r_reg, who) == answer(r_unk, nobody)  # byte for byte
        msgs = sink.wait(who, 2)  # the verification, then the reset link
        assert msgs[1]["msg"]["Subject"] == "Reset your Whistle password"
        link = link_of(msgs[1]["body"], "reset")
        assert link.startswith("/account/reset?token=")
        assert wait_queue_empty(server) == 0
        assert sink.to(nobody) == []
        # the link works, once
        anon = a.browser()
        r = anon.form_post(link, "reset-form", {"password": NEW_PASSWORD})
        assert r.status_code == 303 and location(r) == "/account/signin?notice=reset"
        a.signin(a.browser(), who, password=NEW_PASSWORD)
        r, _ = anon.get(link)
        assert r.status_code == 410
        no_lock_warnings(server.lines)
    finally:
        a.close()


def test_limits_hold(server_factory, tmp_path):
    """The per-client-address limit answers at request time; the per-recipient cap (5 emails
    an hour) is applied by the worker: more requests for one address, still 5 emails."""
    clock = Clock(tmp_path / "now-offset")
    a = Accounts(server_factory, tmp_path, extra=("--signup-limit-ip", "9"), clock=clock)
    try:
        who, nobody = pair("cap")
        a.verified_user(who)  # 1 sign-up: 8 mail forms left for this client address
        b = a.browser()
        for _ in range(7):
            r = b.form_post("/account/forgot", "forgot-form", {"email": who})
            assert r.status_code == 200
        r = b.form_post("/account/forgot", "forgot-form", {"email": nobody})
        assert r.status_code == 200
        r = b.form_post("/account/forgot", "forgot-form", {"email": nobody})
        assert r.status_code == 429
        assert 0 < int(r.headers["Retry-After"]) <= 3600
        r2 = b.form_post("/account/forgot", "forgot-form", {"email": who})
        assert r2.status_code == 429  # the same refusal either way (but for the seconds)
        assert re.sub(rb"\d+", b"", r2.content) == re.sub(rb"\d+", b"", r.content)
        assert wait_queue_empty(a.server) == 0
        time.sleep(0.3)  # the outbox's last sends
        mails = a.sink.to(who)
        assert len(mails) == 5, [m["msg"]["Subject"] for m in mails]
        assert sum(m["msg"]["Subject"] == "Reset your Whistle password" for m in mails) == 4
        assert a.sink.to(nobody) == []
        # an hour later both the client address and the recipient are free again
        clock.advance(3601)
        r = b.form_post("/account/forgot", "forgot-form", {"email": who})
        assert r.status_code == 200
        link_of(a.sink.wait(who, 6)[5]["body"], "reset")
        no_lock_warnings(a.server.lines)
    finally:
        a.close()


def test_the_queue_is_emptied_by_any_worker_and_old_requests_expire(server_factory, tmp_path):
    """serve --no-worker queues; `whistle worker --once` (any node) takes the rows: one email
    for the registered address, none for the unknown one, the queue empty. A request no worker
    took within a link's lifetime (1 hour) is deleted without an email."""
    clock = Clock(tmp_path / "now-offset")
    sink = MailSink()
    try:
        server = server_factory.start(extra=("--no-worker",), env=clock.env)
        b = Browser(server)
        who, nobody = pair("worker")
        b.form_post("/account/signup", "signup-form", {"email": who, "password": PASSWORD})
        for email in (who, nobody):
            assert b.form_post("/account/forgot", "forgot-form", {"email": email}).status_code == 200
        assert queued(server) == 2
        time.sleep(0.3)
        assert sink.to(who) == []  # nobody takes them yet
        worker = ("worker", "--once", "--json", "--db", server.db, "--smtp-url", sink.url,
                  "--base-url", BASE)
        r = run_cli(*worker, env=clock.env)
        assert r.returncode == 0, r.stderr
        no_lock_warnings(r.stderr.splitlines())
        assert json.loads(r.stdout)["units"] >= 4  # 2 requests, 2 emails
        assert queued(server) == 0
        msgs = sink.wait(who, 2)
        assert sorted(m["msg"]["Subject"] for m in msgs) == [
            "Reset your Whistle password", "Verify your email address for Whistle"]
        assert sink.to(nobody) == []
        # an hour without a worker: the request is deleted unused
        assert b.form_post("/account/forgot", "forgot-form", {"email": who}).status_code == 200
        clock.advance(3601)
        r = run_cli(*worker, env=clock.env)
        assert r.returncode == 0, r.stderr
        assert queued(server) == 0
        time.sleep(0.3)
        assert len(sink.to(who)) == 2
        no_lock_warnings(server.lines)
        b.close()
    finally:
        sink.stop()
