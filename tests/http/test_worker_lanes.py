"""The worker's lanes (issue 14 item 4; docs/architecture.md, docs/security.md): email never
waits behind research, a lead's sources are fetched in parallel under one deadline, and a stop
waits neither for a tarpit source nor for a silent mail relay, losing nothing.

A tarpit is a TCP listener on a loopback address that accepts connections and never says a
word. The assertions are about order and outcome; the only times are generous bounds (the
fetch deadline is a minute, so research is still stuck when the mail must already be out)."""

import socket
import threading
import time

import pytest

from accountkit import Browser, MailSink
from helpers import db_rows
from leadkit import LeadKit, lead_body

LEADS = 4
SLOW = ("--fetch-timeout-ms", "60000", "--fetch-deadline-ms", "60000")


class Tarpit:
    """Accepts on host:0 and holds every connection open, silent, until closed."""

    def __init__(self, host):
        self.sock = socket.socket()
        self.sock.bind((host, 0))
        self.sock.listen(64)
        self.host, self.port = host, self.sock.getsockname()[1]
        self.conns = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.conns.append(c)

    @property
    def accepted(self):
        with self.lock:
            return len(self.conns)

    @property
    def allow(self):
        return f"{self.host}:{self.port}"

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def wait_accepted(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        while self.accepted < n:
            assert time.monotonic() < deadline, f"{self.accepted} of {n} connections"
            time.sleep(0.02)

    def close(self):
        self.sock.close()
        with self.lock:
            for c in self.conns:
                c.close()


@pytest.fixture
def tarpits():
    made = []

    def make(host):
        t = Tarpit(host)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def lead_status(agent, lead_id):
    r = agent.get(lead_id)
    assert r.status_code == 200, r.text
    return r.json()["data"]["status"]


def signup(server, addr):
    b = Browser(server)
    try:
        r = b.form_post("/account/signup", "signup-form",
                        {"email": addr, "password": "correct horse battery staple"})
        assert r.status_code == 200, r.status_code
    finally:
        b.close()


def test_mail_goes_out_while_tarpit_leads_are_researched(server_factory, tmp_path, tarpits):
    pit = tarpits("127.0.0.4")
    sink = MailSink()
    kit = LeadKit(server_factory, tmp_path)
    try:
        s = kit.start(threads=2, extra=("--poll-ms", "20", "--smtp-url", sink.url,
                                        "--allow-fetch", pit.allow, *SLOW))
        agents = [kit.agent(), kit.agent()]  # an agent may submit 3 leads a minute
        agent = agents[0]
        ids = []
        for k in range(LEADS):
            urls = [pit.url(f"/lead{k}/source{i}") for i in range(5)]
            r = agents[k % 2].post(lead_body(source_urls=urls))
            assert r.status_code == 202, r.text
            ids.append(r.json()["data"]["id"])
        # the five sources of the first lead are fetched at once: five silent connections
        # while that lead is still running
        pit.wait_accepted(5)
        assert lead_status(agent, ids[0]) == "running"
        addr = "lanes@example.org"
        signup(s, addr)
        msgs = sink.wait(addr, 1, timeout=30)  # a generous bound; it takes well under a second
        assert "/account/verify?token=" in msgs[0]["body"]
        # ...and it went out while research was still stuck in the first lead
        assert lead_status(agent, ids[0]) == "running"
        assert all(lead_status(agents[k % 2], i) == "pending" for k, i in enumerate(ids) if k)
        assert pit.accepted == 5
        # SIGTERM: the worker gives the lead back at once instead of waiting out the deadline
        assert s.stop(timeout=20) == 0
        rows = db_rows(kit.db, "SELECT status, attempts, claim_token FROM leads ORDER BY created_at")
        assert [r[0] for r in rows] == ["pending"] * LEADS, rows
        assert [int(r[1]) for r in rows] == [0] * LEADS, rows
        ev = db_rows(kit.db, f"SELECT event FROM lead_events WHERE lead_id = '{ids[0]}' ORDER BY seq")
        assert [e[0] for e in ev][-1] == "released", ev
    finally:
        kit.close()
        sink.stop()


def test_a_stuck_smtp_send_does_not_hold_the_stop(server_factory, tarpits):
    """A relay that accepts and never greets: the send is under way when SIGTERM comes; the
    server still exits 0 within the stop bound and the message stays in the outbox, to be
    retried (nothing acknowledged is lost)."""
    relay = tarpits("127.0.0.5")
    db = server_factory.new_db("main.json")
    s = server_factory.start(db=db, extra=("--poll-ms", "20", "--smtp-url",
                                           f"smtp://{relay.host}:{relay.port}"))
    signup(s, "stuck@example.org")
    relay.wait_accepted(1)
    assert s.stop(timeout=20) == 0
    assert s.log_line(lambda line: "interrupted: the worker is stopping" in line)
    rows = db_rows(db, "SELECT recipient, sent_at, failed_at, attempts FROM outbox")
    assert len(rows) == 1, rows
    recipient, sent_at, failed_at, attempts = rows[0]
    assert recipient == "stuck@example.org"
    assert sent_at is None and failed_at is None  # still due: retried with the usual back-off
    assert int(attempts) == 1
