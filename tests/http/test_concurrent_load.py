"""Mixed concurrent load on one server (issue 14, item 10): reads, Fan Verdict ballots, agent
leads and sign-ins in parallel, bounded in count. Every answer is one the contract allows
(never a 5xx) and the server exits 0 on SIGTERM. `make test TSAN=1` runs this against the
ThreadSanitizer build: a reported race makes the server exit non-zero (and its report is in
the log), which fails the test."""

import threading

import pytest

from accountkit import Browser
from helpers import I1, PG
from leadkit import LeadKit, lead_body
from pagekit import CHOICES, Voter

SLUG = "alpha-bravo-late-hit"
ROUNDS = 12  # per worker thread


def assert_clean_exit(s, rc):
    """s stopped with exit code rc: 0, and its log holds no ThreadSanitizer report."""
    races = [line for line in s.lines if "ThreadSanitizer" in line]
    assert not races, "\n".join(s.lines[-80:])
    assert rc == 0, (rc, s.lines[-20:])


@pytest.mark.parametrize("lease", [None, "10"])
def test_reads_ballots_leads_and_signins_in_parallel(server_factory, tmp_path, lease):
    """lease: the same with --version-lease (PostgreSQL only; store.h store_lease_setup): the
    watcher's polls, the reads that take them and the commits that wait the lease, race-free
    under ThreadSanitizer."""
    if lease and not PG:
        pytest.skip("--version-lease is PostgreSQL's (runs in the PostgreSQL pass)")
    kit = LeadKit(server_factory, tmp_path)
    s = kit.start(threads=4, extra=("--no-worker", "--password-memory-kib", "8192")
                  + (("--version-lease", lease) if lease else ()))
    agents = [kit.agent() for _ in range(2)]
    errors = []
    counts = {}
    lock = threading.Lock()

    def record(kind, status, allowed):
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            if status not in allowed:
                errors.append((kind, status))

    def reader():
        for i in range(ROUNDS):
            for path in ("/api/v1/incidents?limit=5", f"/api/v1/incidents/{I1}", "/api/v1/games",
                         f"/incidents/{SLUG}", "/healthz"):
                record("read", s.get(path).status_code, {200})

    def voter(n):
        v = Voter(s)
        try:
            for i in range(ROUNDS):
                v.view(f"/incidents/{SLUG}")
                r = v.vote(SLUG, CHOICES[(n + i) % len(CHOICES)])
                record("ballot", r.status_code, {200, 201, 429})
        finally:
            v.close()

    def leader(agent):
        for i in range(ROUNDS):
            r = agent.post(lead_body())
            record("lead", r.status_code, {200, 201, 202, 429})

    def signer():
        b = Browser(s)
        try:
            for i in range(ROUNDS // 3):
                r = b.form_post("/account/signin", "signin-form",
                                {"email": f"nobody{i}@example.org", "password": "wrong-password-1"})
                record("signin", r.status_code, {200, 303, 400, 401, 403, 429})
        finally:
            b.close()

    threads = [threading.Thread(target=reader) for _ in range(3)]
    threads += [threading.Thread(target=voter, args=(n,)) for n in range(3)]
    threads += [threading.Thread(target=leader, args=(a,)) for a in agents]
    threads += [threading.Thread(target=signer) for _ in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in threads), "load threads did not finish"
        assert not errors, (errors[:10], counts)
        assert counts.get("read") == 3 * ROUNDS * 5 and counts.get("lead") == 2 * ROUNDS, counts
        assert counts.get("ballot") == 3 * ROUNDS and counts.get("signin") == 2 * (ROUNDS // 3)
    finally:
        kit.close()
        rc = s.stop(timeout=60)
    assert_clean_exit(s, rc)


def test_the_base_url_of_the_bound_port_under_concurrent_reads(server_factory):
    """Without --base-url the server names the port it bound (listen port 0): it replaces its
    configuration once its threads run (src/http/server.c). Reads from 4 threads at once
    link that port, and under ThreadSanitizer the replacement is no race (it was one until
    session 22: `config` is now an atomic pointer)."""
    s = server_factory.start(base_url=None, threads=4, extra=("--no-worker",))
    assert s.url.startswith("http://127.0.0.1:") and not s.url.endswith(":0")
    errors = []

    def reader(k):
        for i in range(ROUNDS):
            r = s.get(f"/api/v1/incidents?limit={1 + (k + i) % 3}")
            if r.status_code != 200 or any(not it["url"].startswith(s.url + "/")
                                           for it in r.json()["data"]):
                errors.append((r.status_code, r.text[:200]))

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    rc = s.stop(timeout=60)
    assert not errors, errors[:5]
    assert_clean_exit(s, rc)
