"""Black-box tests of lead research (issue 4; docs/research.md): a lead submitted over HTTP is
claimed by the worker, resolved, its sources fetched from local origins that this file starts
(allow-listed with the test-only --allow-fetch flag), deduplicated, gated and published as a
Developing incident, automatically (--auto-publish) or by an operator (`whistle candidate`).

Origins listen on distinct loopback addresses (127.0.0.2, 127.0.0.3, ...): for research an IP
literal is its own registrable domain, so two addresses are two independent publishers.
Time windows (retry backoff, leases) move with the WHISTLE_TEST_NOW_OFFSET_FILE clock, never
by sleeping through them.
"""

import concurrent.futures as cf
import json
import os
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from socketserver import ThreadingMixIn

import pytest

from helpers import BIN, UUID_RE, db_arg
from leadkit import DROP, LeadKit, lead_body

GAME = "cfb:2025-w13"  # Bravo State at Echo Tech, final
PUBLIC_STATUSES = {"pending", "running", "rejected", "published", "duplicate", "failed"}
MENTION = ("<html><head><title>{title}</title><meta property='og:site_name' content='{site}'>"
           "</head><body><p>Fans of Bravo State and Echo Tech argue about the late flag."
           "</p></body></html>")
NO_MENTION = "<html><head><title>Weather</title></head><body><p>Rain tomorrow.</p></body></html>"


# ---------------------------------------------------------------- local origins


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True

    def __init__(self, addr, origin):
        self.origin = origin
        super().__init__(addr, _Handler)

    def verify_request(self, request, client_address):
        with self.origin.lock:
            self.origin.connections += 1
        return True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a):
        pass

    def do_GET(self):
        o = self.server.origin
        with o.lock:
            o.requests.append(self.path)
            route = o.routes.get(self.path)
        if route is None:
            status, ctype, body, delay = 404, "text/plain", b"not found", 0
        else:
            status, ctype, body, delay = route
        if callable(delay):
            delay()
        elif delay:
            time.sleep(delay)
        if isinstance(body, str):
            body = body.encode()
        try:
            self.send_response(status)
            if status in (301, 302, 307, 308):
                self.send_header("Location", ctype)
                ctype = "text/plain"
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Origin:
    """An HTTP origin on host:0 serving routes {path: (status, content-type, body, delay)}."""

    def __init__(self, host):
        self.lock = threading.Lock()
        self.routes = {}
        self.requests = []
        self.connections = 0
        self.httpd = _Server((host, 0), self)
        self.host = host
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def allow(self):
        return f"{self.host}:{self.port}"

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def page(self, path, html, status=200, ctype="text/html; charset=utf-8", delay=0):
        self.routes[path] = (status, ctype, html, delay)
        return self.url(path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def origins():
    made = []

    def make(host):
        o = Origin(host)
        made.append(o)
        return o

    yield make
    for o in made:
        o.close()


@pytest.fixture
def kit(server_factory, tmp_path):
    k = LeadKit(server_factory, tmp_path)
    yield k
    k.close()


def start(kit, origins_list, *extra, worker=True):
    args = ["--poll-ms", "20"]
    for o in origins_list:
        args += ["--allow-fetch", o.allow]
    if not worker:
        args = ["--no-worker"]
    kit.db = kit.factory.new_db("main.json")
    kit.server = kit.factory.start(db=kit.db, threads=2, env=kit.clock.env, base_url=kit.base,
                                   extra=(*args, *extra))
    return kit.server


def wait_status(agent, lead_id, want, timeout=15):
    """Polls the public lead status record until its status is in `want`."""
    want = {want} if isinstance(want, str) else set(want)
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        r = agent.get(lead_id)
        assert r.status_code == 200, r.text
        d = r.json()["data"]
        assert d["status"] in PUBLIC_STATUSES, d
        if not seen or seen[-1] != d["status"]:
            seen.append(d["status"])
        if d["status"] in want:
            return d
        if time.monotonic() > deadline:
            pytest.fail(f"lead {lead_id} stayed {seen} (wanted {want})")
        time.sleep(0.05)


def wait_candidate(kit, lead_id, timeout=15):
    """Polls the operator's view of a lead until research has made it a candidate."""
    deadline = time.monotonic() + timeout
    while "candidate" not in events(kit, lead_id):
        assert time.monotonic() < deadline, lead_show(kit, lead_id)
        time.sleep(0.05)


def lead_show(kit, lead_id):
    r = kit.cli("lead", "show", lead_id, "--db", str(kit.db), "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def events(kit, lead_id):
    return [e["event"] for e in lead_show(kit, lead_id)["events"]]


def two_sources(origins):
    a, b = origins("127.0.0.2"), origins("127.0.0.3")
    u1 = a.page("/story/1", MENTION.format(title="Late flag debate", site="Alpha Sports"))
    u2 = b.page("/thread/9", MENTION.format(title="Was it a penalty?", site="Beta Forum"))
    return a, b, [u1, u2]


# ---------------------------------------------------------------- the whole path


def test_lead_becomes_published_developing_incident(kit, origins):
    a, b, urls = two_sources(origins)
    start(kit, [a, b], "--auto-publish")
    agent = kit.agent()
    body = lead_body(source_urls=urls, period=4, clock="2:13", category="penalty",
                     confidence=100)
    lead = agent.submit(body)
    d = wait_status(agent, lead, {"published", "rejected", "duplicate", "failed"})
    assert d["status"] == "published", lead_show(kit, lead)
    assert UUID_RE.match(d["incidentId"]), d
    # each origin was fetched exactly once
    assert a.requests == ["/story/1"] and b.requests == ["/thread/9"]

    inc = kit.server.json(f"/api/v1/incidents/{d['incidentId']}")["data"]
    assert inc["status"] == "developing"
    assert inc["origin_kind"] == "agent"
    assert inc["publication_status"] == "published"
    assert inc["game_id"] == GAME
    assert inc["category"] == "penalty" and inc["period"] == 4 and inc["clock"] == "2:13"
    assert inc["final_ruling"] is None and inc["original_ruling"] is None
    # a neutral headline from the facts, never the submitter's words or confidence
    assert inc["title"] == "Debated penalty call: Bravo State at Echo Tech, Q4 2:13"
    assert inc["play_description"] == body["description"]
    assert "has not been established" in inc["neutral_summary"]
    prov = inc["provenance"]
    assert set(prov) == {"discovery", "research", "publication"}, prov
    assert prov["discovery"]["kind"] == "agent"
    assert prov["research"]["kind"] == "service"
    assert prov["publication"]["kind"] == "auto"
    text = json.dumps(prov)
    assert agent.owner not in text and agent.secret not in text and "confidence" not in text
    srcs = inc["sources"]
    assert [s["url"] for s in srcs] == urls
    assert {s["title"] for s in srcs} == {"Late flag debate", "Was it a penalty?"}
    assert {s["publisher"] for s in srcs} == {"Alpha Sports", "Beta Forum"}
    for s in srcs:
        assert s["source_kind"] == "report"
        assert "does not by itself establish" in s["supports"]
    assert inc["debate_question"] is None
    # listed first among the latest debates
    assert kit.server.json("/api/v1/incidents?limit=1")["data"][0]["id"] == inc["id"]

    # the audit trail: every transition with time and reason
    show = lead_show(kit, lead)
    evs = [e["event"] for e in show["events"]]
    assert evs == ["claimed", "fetched", "deduplicated", "gate", "gate", "candidate",
                   "published"], evs
    for e in show["events"]:
        assert e["at"] and e["reason"] and e["actor"] in ("worker", "auto", "operator")
    assert show["status"] == "published" and show["incident_id"] == inc["id"]
    assert len(show["fetches"]) == 2
    for f in show["fetches"]:
        assert f["http_status"] == 200 and f["mentions_teams"] is True and f["error"] is None
        assert len(f["content_hash"]) == 64 and f["bytes"] > 0 and f["fetched_at"]
        assert f["domain"] in ("127.0.0.2", "127.0.0.3")


def test_candidate_waits_for_operator_then_publishes(kit, origins, tmp_path):
    a, b, urls = two_sources(origins)
    start(kit, [a, b])
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=urls, period=3, clock="8:40", category="spot"))
    wait_candidate(kit, lead)
    # a candidate is still "running" in public, and private: no incident yet
    d = wait_status(agent, lead, "running")
    assert d["incidentId"] is None
    r = kit.cli("candidate", "list", "--db", str(kit.db), "--json")
    assert r.returncode == 0, r.stderr
    cands = json.loads(r.stdout)["candidates"]
    assert [c["id"] for c in cands] == [lead] and cands[0]["candidate"] is True
    # nothing public changed
    before = kit.server.json("/api/v1/incidents?limit=100")["pagination"]
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"question_type": "spot", "question_text":
                             "Was the ball spotted short of the line to gain?",
                             "option_a_label": "Spot was right", "option_b_label":
                             "Spot was wrong", "unsure_label": "Not sure"}))
    r = kit.cli("candidate", "publish", lead, "--title", "Fourth-quarter spot debate",
                "--question-file", str(q), "--db", str(kit.db), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["lead_id"] == lead and UUID_RE.match(out["incident_id"])
    d = wait_status(agent, lead, "published")
    assert d["incidentId"] == out["incident_id"]
    inc = kit.server.json(f"/api/v1/incidents/{out['incident_id']}")["data"]
    assert inc["title"] == "Fourth-quarter spot debate"
    assert inc["slug"] == "fourth-quarter-spot-debate"
    assert inc["debate_question"]["question_text"].startswith("Was the ball spotted")
    assert inc["debate_question"]["question_version"] == 1
    assert inc["provenance"]["publication"]["kind"] == "operator"
    assert inc["reviewed_at"] is not None
    assert before is not None
    # publishing twice is refused and writes nothing
    r = kit.cli("candidate", "publish", lead, "--db", str(kit.db))
    assert r.returncode == 1 and "not a candidate" in r.stderr
    assert events(kit, lead)[-1] == "published"


def test_parallel_decisions_on_candidates_are_exact(kit, origins):
    """Issue 20 item 1: a desk decision locks the lead, a publication the new slug, never
    the deployment. Two editors deciding one candidate at once: one decision wins; two
    candidates published at once under one title: two incidents, two slugs."""
    a, b, urls = two_sources(origins)
    start(kit, [a, b])
    agent = kit.agent()
    leads = []
    for k in range(3):
        u = [a.page(f"/par{k}", MENTION.format(title=f"par{k}", site="A")),
             b.page(f"/qar{k}", MENTION.format(title=f"par{k}", site="B"))]
        leads.append(agent.submit(lead_body(source_urls=u, period=2, clock=f"{4 * k + 1}:15",
                                            category="spot")))
    deadline = time.monotonic() + 30
    for lead in leads:
        while "candidate" not in events(kit, lead):
            assert time.monotonic() < deadline, lead_show(kit, lead)
            time.sleep(0.05)
    db = str(kit.db)
    jobs = [("candidate", "publish", leads[0], "--title", "Parallel title", "--db", db),
            ("candidate", "reject", leads[0], "--reason", "no", "--db", db),
            ("candidate", "publish", leads[0], "--db", db),
            ("candidate", "publish", leads[1], "--title", "Same title", "--db", db, "--json"),
            ("candidate", "publish", leads[2], "--title", "Same title", "--db", db, "--json")]
    with cf.ThreadPoolExecutor(max_workers=len(jobs)) as ex:
        rs = list(ex.map(lambda args: kit.cli(*args), jobs))
    assert sum(r.returncode == 0 for r in rs[:3]) == 1, [(r.returncode, r.stderr) for r in rs]
    assert all(r.returncode == 1 and "not a candidate" in r.stderr
               for r in rs[:3] if r.returncode != 0), [r.stderr for r in rs]
    assert [ev for ev in events(kit, leads[0]) if ev in ("published", "rejected")] != []
    assert len([ev for ev in events(kit, leads[0]) if ev in ("published", "rejected")]) == 1
    assert rs[3].returncode == 0 and rs[4].returncode == 0, (rs[3].stderr, rs[4].stderr)
    slugs = {kit.server.json(f"/api/v1/incidents/{json.loads(r.stdout)['incident_id']}")
             ["data"]["slug"] for r in rs[3:]}
    assert len(slugs) == 2 and "same-title" in slugs, slugs


def test_operator_rejects_candidate(kit, origins):
    a, b, urls = two_sources(origins)
    start(kit, [a, b])
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=urls, period=1, clock="0:45"))
    wait_candidate(kit, lead)
    r = kit.cli("candidate", "reject", lead, "--db", str(kit.db))
    assert r.returncode == 2  # --reason is required
    r = kit.cli("candidate", "reject", lead, "--reason", "not an officiating call",
                "--db", str(kit.db), "--json")
    assert r.returncode == 0, r.stderr
    d = wait_status(agent, lead, "rejected")
    assert d["incidentId"] is None
    show = lead_show(kit, lead)
    assert "not an officiating call" in show["reason"]
    assert d["reason"] == "rejected by an operator", d  # the operator's words stay private
    assert show["events"][-1]["actor"] == "operator"
    r = kit.cli("candidate", "publish", lead, "--db", str(kit.db))
    assert r.returncode == 1 and "not a candidate" in r.stderr
    for bad in ("not-a-uuid", "00000000-0000-4000-8000-000000000000"):
        r = kit.cli("candidate", "show", bad, "--db", str(kit.db))
        assert r.returncode == 1, r.stderr


def test_longest_rejection_reason_reads_back_whole(kit, origins):
    """An operator's reason of the full 500 bytes is stored after "rejected by an operator: "
    and read back whole: by the agent's status request (which once read it into a 512-byte
    array and aborted the server) and by the operator's show."""
    a, b, urls = two_sources(origins)
    start(kit, [a, b])
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=urls, period=1, clock="0:45"))
    wait_candidate(kit, lead)
    r = kit.cli("candidate", "reject", lead, "--reason", "w" * 501, "--db", str(kit.db))
    assert r.returncode != 0 and "reason must be 1 to 500 bytes" in r.stderr, r.stderr
    why = "w" * 498 + "é"  # 500 bytes, the last character two of them
    assert len(why.encode()) == 500
    r = kit.cli("candidate", "reject", lead, "--reason", why, "--db", str(kit.db))
    assert r.returncode == 0, r.stderr
    d = wait_status(agent, lead, "rejected")
    assert d["reason"] == "rejected by an operator", d
    assert lead_show(kit, lead)["reason"] == "rejected by an operator: " + why
    assert kit.server.get("/healthz").status_code == 200


# ---------------------------------------------------------------- rejections


def test_unknown_play_rejected_without_fetching(kit, origins):
    a, b, urls = two_sources(origins)
    start(kit, [a, b], "--auto-publish")
    agent = kit.agent()
    no_period = agent.submit(lead_body(source_urls=urls, period=None, clock="2:00"))
    no_clock = agent.submit(lead_body(source_urls=urls, period=2, clock=DROP))
    late = agent.submit(lead_body(game_id="nfl:2025-wk03-tbd", source_urls=urls))
    for lead, words in ((no_period, "no period"), (no_clock, "no game clock"),
                        (late, "has not been played")):
        d = wait_status(agent, lead, {"rejected", "published"})
        assert d["status"] == "rejected" and d["incidentId"] is None
        assert words in lead_show(kit, lead)["reason"], lead_show(kit, lead)
        assert words in d["reason"], d  # the agent is told what to fix
    assert a.connections == 0 and b.connections == 0


def test_unreachable_sources_rejected(kit, origins):
    a = origins("127.0.0.2")
    gone = a.page("/gone", "gone", status=404, ctype="text/plain")
    blocked = origins("127.0.0.4")  # not allow-listed: refused before connecting
    burl = blocked.page("/x", MENTION)
    start(kit, [a], "--auto-publish")
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=[gone, burl, "http://127.0.0.1:1/x",
                                               "http://no-such-publisher.invalid/story"]))
    d = wait_status(agent, lead, {"rejected", "published", "failed"})
    # a host that does not resolve is permanent too: rejected at once, never retried
    # 127.0.0.1:1 is not allow-listed either (blocked, permanent): no retry
    assert d["status"] == "rejected", lead_show(kit, lead)
    show = lead_show(kit, lead)
    assert "unreachable sources" in show["reason"]
    errors = [f["error"] for f in show["fetches"]]
    assert errors == ["http_status", "blocked_address", "blocked_address", "unresolvable"], \
        show["fetches"]
    assert "unreachable sources" in d["reason"], d
    assert blocked.connections == 0


def test_one_publisher_is_not_independent_discussion(kit, origins):
    a = origins("127.0.0.2")
    u1 = a.page("/a", MENTION.format(title="One", site="Same"))
    u2 = a.page("/b", MENTION.format(title="Two", site="Same"))
    c = origins("127.0.0.3")
    u3 = c.page("/weather", NO_MENTION)
    start(kit, [a, c], "--auto-publish")
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=[u1, u2, u3]))
    d = wait_status(agent, lead, {"rejected", "published"})
    assert d["status"] == "rejected"
    show = lead_show(kit, lead)
    assert "1 distinct domains name the teams (need 2)" in show["reason"], show["reason"]
    gates = [e["reason"] for e in show["events"] if e["event"] == "gate"]
    assert gates[0].startswith("sources_reachable passed")
    assert gates[1].startswith("independent_discussion failed")
    assert [f["mentions_teams"] for f in show["fetches"]] == [True, True, False]


def test_min_source_domains_is_configurable(kit, origins):
    a = origins("127.0.0.2")
    u1 = a.page("/a", MENTION.format(title="One", site="Same"))
    start(kit, [a], "--auto-publish", "--min-source-domains", "1")
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=[u1]))
    assert wait_status(agent, lead, {"rejected", "published"})["status"] == "published"


def test_transient_failures_retry_with_backoff_then_fail(kit, origins):
    a = origins("127.0.0.2")
    flaky = a.page("/busy", "try later", status=503, ctype="text/plain")
    start(kit, [a], "--auto-publish")
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=[flaky]))
    for attempt in (1, 2):
        deadline = time.monotonic() + 10
        while events(kit, lead).count("retry") < attempt:
            assert time.monotonic() < deadline, lead_show(kit, lead)
            time.sleep(0.05)
        show = lead_show(kit, lead)
        assert show["status"] == "pending" and show["next_attempt_at"], show
        # not retried before the backoff has passed
        time.sleep(0.3)
        assert len(a.requests) == attempt
        kit.clock.advance(3600)
    d = wait_status(agent, lead, {"failed", "rejected", "published"})
    assert d["status"] == "failed"
    assert len(a.requests) == 3
    show = lead_show(kit, lead)
    assert show["attempts"] == 3 and "after 3 attempts" in show["reason"]


# ---------------------------------------------------------------- duplicates


def test_duplicate_of_published_incident(kit, origins):
    a, b, urls = two_sources(origins)
    start(kit, [a, b], "--auto-publish")
    agent = kit.agent()
    # main.json's incident 7777… is period 2, 11:00, category other, on this game
    lead = agent.submit(lead_body(source_urls=urls, period=2, clock="11:20", category="other"))
    d = wait_status(agent, lead, {"duplicate", "published", "rejected"})
    assert d["status"] == "duplicate", lead_show(kit, lead)
    assert d["incidentId"] == "77777777-7777-4777-8777-777777777777"
    # outside the clock window, or another category: not the same play (new pages too: the
    # duplicate above keeps its URLs reserved for the play it reported)
    fresh = [a.page("/story/2", MENTION.format(title="Another", site="Alpha Sports")),
             b.page("/thread/10", MENTION.format(title="Again", site="Beta Forum"))]
    other = agent.submit(lead_body(source_urls=fresh, period=2, clock="10:00", category="other"))
    d = wait_status(agent, other, {"duplicate", "published", "rejected"})
    assert d["status"] == "published"
    fresh = [a.page("/story/3", MENTION.format(title="Third", site="Alpha Sports")),
             b.page("/thread/11", MENTION.format(title="Third", site="Beta Forum"))]
    other = agent.submit(lead_body(source_urls=fresh, period=2, clock="11:00", category="spot"))
    d = wait_status(agent, other, {"duplicate", "published", "rejected"})
    assert d["status"] == "published"


def test_duplicate_of_earlier_lead_by_source_url(kit, origins):
    a, b = origins("127.0.0.2"), origins("127.0.0.3")
    # the cited page's URL (over 300 bytes) is cut in the operator's reason, visibly
    urls = [a.page("/story/1", MENTION.format(title="Late flag debate", site="Alpha Sports")),
            b.page("/thread/" + "long-" * 60, MENTION.format(title="Penalty?", site="Beta"))]
    start(kit, [a, b], "--auto-publish")
    first_agent, second_agent = kit.agent(), kit.agent()
    first = first_agent.submit(lead_body(source_urls=urls, period=1, clock="9:00"))
    d1 = wait_status(first_agent, first, {"published", "rejected"})
    assert d1["status"] == "published"
    # another agent, another play time, but citing a page already researched
    second = second_agent.submit(lead_body(source_urls=[urls[1]], period=3, clock="1:00"))
    d2 = wait_status(second_agent, second, {"duplicate", "published", "rejected"})
    assert d2["status"] == "duplicate"
    assert d2["incidentId"] == d1["incidentId"]
    assert d1["reason"] is None and d2["reason"] is None  # never another agent's lead
    reason = lead_show(kit, second)["reason"]
    assert "cites" in reason and reason.endswith("\u2026"), reason
    assert urls[1][:100] in reason and urls[1] not in reason, reason
    # one incident, not two
    listed = kit.server.json(f"/api/v1/incidents?game_id={GAME}&limit=100")["data"]
    assert sum(1 for i in listed if i["origin_kind"] == "agent") == 1


# ---------------------------------------------------------------- crashes and leases


def test_worker_killed_mid_lead_is_retried_not_doubled(kit, origins):
    a = origins("127.0.0.2")
    b = origins("127.0.0.3")
    release = threading.Event()
    u1 = a.page("/slow", MENTION.format(title="Slow", site="A"), delay=lambda: release.wait(30))
    u2 = b.page("/fast", MENTION.format(title="Fast", site="B"))
    start(kit, [a, b], worker=False)
    agent = kit.agent()
    lead = agent.submit(lead_body(source_urls=[u1, u2]))
    env = dict(os.environ, **kit.clock.env)
    wargs = [BIN, "worker", "--db", db_arg(kit.db), "--poll-ms", "20", "--lease-seconds", "30",
             "--auto-publish", "--allow-fetch", a.allow, "--allow-fetch", b.allow]
    w1 = subprocess.Popen(wargs, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not a.requests:
            assert time.monotonic() < deadline, "the worker never fetched"
            time.sleep(0.02)
        assert wait_status(agent, lead, "running")
        w1.send_signal(signal.SIGKILL)
        w1.wait()
    finally:
        if w1.poll() is None:
            w1.kill()
    release.set()
    w2 = subprocess.Popen(wargs, env=env, stderr=subprocess.DEVNULL)
    try:
        # within the lease nobody takes the lead over
        time.sleep(0.5)
        assert events(kit, lead) == ["claimed"]
        kit.clock.advance(31)
        d = wait_status(agent, lead, {"published", "rejected", "failed"})
        assert d["status"] == "published", lead_show(kit, lead)
    finally:
        w2.send_signal(signal.SIGTERM)
        assert w2.wait(timeout=10) == 0
    evs = events(kit, lead)
    assert evs.count("claimed") == 2 and evs.count("published") == 1, evs
    assert lead_show(kit, lead)["attempts"] == 2
    listed = kit.server.json(f"/api/v1/incidents?game_id={GAME}&limit=100")["data"]
    assert sum(1 for i in listed if i["origin_kind"] == "agent") == 1


def test_many_workers_never_claim_one_lead_twice(kit, origins):
    a, b, urls = two_sources(origins)
    start(kit, [a, b], worker=False)
    agents = [kit.agent() for _ in range(4)]
    leads = []
    for i, ag in enumerate(agents):
        for k in range(3):
            u = [a.page(f"/p{i}-{k}", MENTION.format(title=f"{i}{k}", site="A")),
                 b.page(f"/q{i}-{k}", MENTION.format(title=f"{i}{k}", site="B"))]
            leads.append((ag, ag.submit(lead_body(source_urls=u, period=1 + k,
                                                  clock=f"{i + 1}:{10 * k:02d}",
                                                  category="penalty"))))
    env = dict(os.environ, **kit.clock.env)
    wargs = [BIN, "worker", "--db", db_arg(kit.db), "--poll-ms", "10", "--allow-fetch", a.allow,
             "--allow-fetch", b.allow]
    workers = [subprocess.Popen(wargs, env=env, stderr=subprocess.DEVNULL) for _ in range(3)]
    try:
        for ag, lead in leads:
            d = wait_status(ag, lead, {"running", "rejected", "duplicate", "failed"}, timeout=30)
            wait_candidate(kit, lead, timeout=20)
            assert d["status"] == "running"
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        for w in workers:
            assert w.wait(timeout=10) == 0
    for _, lead in leads:
        assert events(kit, lead).count("claimed") == 1, lead_show(kit, lead)
    # every page was fetched once: no lead was researched twice
    assert len(a.requests) == len(set(a.requests)) == 12


# ---------------------------------------------------------------- advancing maturity


def test_add_source_and_advance_status(kit, origins):
    start(kit, [], worker=False)
    iid = "77777777-7777-4777-8777-777777777777"
    db = str(kit.db)
    before = kit.server.json(f"/api/v1/incidents/{iid}")["data"]
    r = kit.cli("incident", "add-source", iid, "--url", "https://news.example.org/ruling",
                "--kind", "official_statement", "--title", "Conference statement on the call",
                "--supports", "The conference's explanation of the ruling",
                "--publisher", "Southern Conference", "--published-at", "2025-11-30",
                "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    after = kit.server.json(f"/api/v1/incidents/{iid}")["data"]
    added = after["sources"][-1]
    assert len(after["sources"]) == len(before["sources"]) + 1
    assert added["url"] == "https://news.example.org/ruling"
    assert added["source_kind"] == "official_statement"
    assert added["publisher"] == "Southern Conference"
    assert added["published_at"] == "2025-11-30T00:00:00Z"
    assert UUID_RE.match(added["id"]) and added["added_at"]
    assert after["updated_at"] >= before["updated_at"]
    r = kit.cli("incident", "set-status", iid, "explained", "--db", db)
    assert r.returncode == 0, r.stderr
    assert kit.server.json(f"/api/v1/incidents/{iid}")["data"]["status"] == "explained"
    # refusals write nothing
    n = len(after["sources"])
    bad = [
        ("--url", "https://news.example.org/ruling"),  # already cited
        ("--url", "ftp://news.example.org/x"),
        ("--url", "not a url"),
        ("--kind", "rumour"),
        ("--title", ""),
    ]
    for opt, val in bad:
        args = {"--url": "https://news.example.org/other", "--kind": "report",
                "--title": "T", "--supports": "S"}
        args[opt] = val
        flat = [x for kv in args.items() for x in kv]
        r = kit.cli("incident", "add-source", iid, *flat, "--db", db)
        assert r.returncode == 1, (opt, val, r.stderr)
        assert r.stderr.startswith("whistle: "), r.stderr
    r = kit.cli("incident", "add-source", iid, "--url", "https://x.example/", "--db", db)
    assert r.returncode == 2  # usage: kind, title and supports are required
    assert len(kit.server.json(f"/api/v1/incidents/{iid}")["data"]["sources"]) == n
