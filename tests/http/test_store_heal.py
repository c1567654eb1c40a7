"""The store heals itself (issue 12 item 4, issue 14 item 9): after PostgreSQL restarts,
the very next page, API and ballot request on every server thread answers 200 — no thread
keeps a dead connection and no request has to fail first to get rid of one.

Runs in the PostgreSQL pass of make test (WHISTLE_TEST_PG set). It starts a throwaway
cluster of its own, because it restarts it.
"""

import concurrent.futures as cf

import pytest

from helpers import FIXTURES, PG, PgCluster, Server, run_cli
from pagekit import Voter

pytestmark = pytest.mark.skipif(
    not PG, reason="runs in the PostgreSQL pass of make test (WHISTLE_TEST_PG)")

SLUG = "alpha-bravo-late-hit"
HIGH_LIMITS = ("--vote-limit-voter", "1000", "--vote-limit-ip", "100000", "--anon-vote-limit-ip",
               "100000", "--new-voter-limit-ip", "100000")
CLIENTS = 8  # parallel clients per round: each its own connection, so threads are mixed
ROUNDS = 25  # bound on the rounds it takes to reach every thread


@pytest.fixture(scope="module")
def cluster():
    c = PgCluster(prefix="whistle-heal-")
    yield c
    c.close()


def server_backends(cluster, db):
    """How many sessions the server holds on its database (application_name whistle)."""
    rows = cluster.sql("SELECT count(*) FROM pg_stat_activity"
                       f" WHERE datname = '{db}' AND application_name = 'whistle'")
    return int(rows[0][0])


def client(server, n):
    """One browser on its own connection: the page, the API and a ballot, in an order that
    depends on n so that each kind of request is sometimes a thread's first after the
    restart. Returns the (request, status) pairs that were not 200."""
    v = Voter(server)
    bad = []
    try:
        def api():
            r = v.http.get(server.url + "/api/v1/incidents", timeout=10)
            if r.status_code != 200:
                bad.append(("api", r.status_code, r.text[:200]))

        def page_and_ballot():
            try:
                v.view(f"/incidents/{SLUG}")  # asserts 200, adopts cookie and CSRF token
            except AssertionError as e:
                bad.append(("page", str(e)[:300]))
                return
            r = v.vote(SLUG, ("correct", "incorrect", "unsure")[n % 3])
            if r.status_code != 200:
                bad.append(("ballot", r.status_code, r.text[:200]))

        if n % 2:
            api()
            page_and_ballot()
        else:
            page_and_ballot()
            api()
    finally:
        v.close()
    return bad


def rounds_until_every_thread(cluster, db, server, threads, start):
    """Runs rounds of parallel clients until the server holds one session per thread (every
    thread has served a request since its connection was last opened); returns the failures
    and the number of rounds it took."""
    bad = []
    n = start
    with cf.ThreadPoolExecutor(max_workers=CLIENTS) as ex:
        for done in range(1, ROUNDS + 1):
            for out in ex.map(lambda i: client(server, i), range(n, n + CLIENTS)):
                bad.extend(out)
            n += CLIENTS
            if server_backends(cluster, db) == threads:
                return bad, done
    return bad, None


@pytest.mark.parametrize("threads", [1, 4])
def test_every_thread_answers_the_first_requests_after_a_restart(cluster, tmp_path, threads):
    db = cluster.new_db()
    r = run_cli("import", FIXTURES / "main.json", "--db", cluster.db_uri(db))
    assert r.returncode == 0, r.stderr
    server = Server(cluster.db_uri(db), threads=threads, extra=("--no-worker", *HIGH_LIMITS))
    try:
        bad, took = rounds_until_every_thread(cluster, db, server, threads, 0)
        assert not bad, bad
        assert took, "not every thread was reached before the restart"

        cluster.ctl("down")  # fast shutdown: every session is terminated
        cluster.ctl("up")
        assert server_backends(cluster, db) == 0

        bad, took = rounds_until_every_thread(cluster, db, server, threads, 1000)
        assert not bad, f"requests after the restart that were not 200: {bad}"
        assert took, "not every thread served a request after the restart"
    finally:
        server.stop()
