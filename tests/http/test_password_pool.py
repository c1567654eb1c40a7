"""The password pool (issue 14 item 7; docs/security.md): argon2id runs on threads of its own,
never on libmicrohttpd's, so a read is answered while sign-ins wait for their hash; past the
pool's queue a sign-in is answered 503 with Retry-After at once. The assertions are about
order and outcome, never about time: with one HTTP thread and one password thread at 128 MiB,
a read sent after several sign-ins returns while some of them are still waiting, which cannot
happen when the hashes run on the HTTP thread (the read would queue behind all of them)."""

import threading
import time

from accountkit import Browser
from pagekit import soup

HEAVY = ("--no-worker", "--password-threads", "1", "--password-memory-kib", "131072")
SIGNINS = 6


def _signins(s, n, tag):
    """n browsers, each with its voter cookie."""
    browsers = []
    for i in range(n):
        b = Browser(s)
        b.get("/account/signin", status=200)
        browsers.append(b)
    return browsers


def _forms_read(s, n):
    """Waits until the server has answered n sign-in form reads (the posts follow each)."""
    deadline = time.monotonic() + 60
    while sum("GET /account/signin 200" in line for line in list(s.lines)) < n:
        assert time.monotonic() < deadline, "the sign-in forms were not read"
        time.sleep(0.02)


def _signin(b, email):
    return b.form_post("/account/signin", "signin-form",
                       {"email": email, "password": "wrong password number 1"})


def _fire(browsers, tag, done, barrier):
    def post(i, b):
        barrier.wait(timeout=30)
        r = _signin(b, f"{tag}{i}@example.org")
        with done["lock"]:
            done["answers"].append(r)

    threads = [threading.Thread(target=post, args=(i, b)) for i, b in enumerate(browsers)]
    for t in threads:
        t.start()
    return threads


def test_a_read_is_answered_while_signins_wait_for_their_hash(server_factory):
    s = server_factory.start(threads=1, extra=HEAVY)
    browsers = _signins(s, SIGNINS, "wait")
    done = {"lock": threading.Lock(), "answers": []}
    barrier = threading.Barrier(SIGNINS + 1)
    threads = _fire(browsers, "wait", done, barrier)
    try:
        barrier.wait(timeout=30)
        _forms_read(s, 2 * SIGNINS)  # each browser read the form once before, once now
        time.sleep(0.2)  # let the posts reach the server (not a pass condition)
        r = s.get("/healthz", timeout=60)
        with done["lock"]:
            finished_before_read = len(done["answers"])
        assert r.status_code == 200
        r = s.get("/api/v1/incidents?limit=1", timeout=60)
        assert r.status_code == 200
        for t in threads:
            t.join(timeout=120)
        # the reads came back while sign-ins were still waiting for the single hash thread
        assert finished_before_read < SIGNINS, finished_before_read
        assert sorted(a.status_code for a in done["answers"]) == [403] * SIGNINS
    finally:
        for b in browsers:
            b.close()
    assert s.stop() == 0


def test_past_the_queue_a_signin_gets_503_with_retry_after(server_factory):
    s = server_factory.start(threads=1, extra=(*HEAVY, "--password-queue", "1"))
    browsers = _signins(s, SIGNINS, "full")
    done = {"lock": threading.Lock(), "answers": []}
    barrier = threading.Barrier(SIGNINS)
    threads = _fire(browsers, "full", done, barrier)
    try:
        for t in threads:
            t.join(timeout=120)
        codes = sorted(a.status_code for a in done["answers"])
        assert len(codes) == SIGNINS
        # one hashing, at most one waiting: the rest were refused at once, nothing else went
        # wrong (the second may be refused too when it comes while the first still waits in the
        # queue for the hash thread to take it: a loaded machine)
        assert set(codes) <= {403, 503}, codes
        assert codes.count(403) >= 1 and codes.count(503) >= 1, codes
        busy = [a for a in done["answers"] if a.status_code == 503]
        for a in busy:
            assert a.headers["Retry-After"] == "2"
            assert a.headers["Content-Type"].startswith("text/html")
            assert "too many password checks are waiting" in soup(a).get_text(" ")
        assert s.log_line(lambda line: "password pool full" in line)
        # the refused ones can sign in again: the refusal counted no failed attempt
        assert _signin(browsers[0], "full0@example.org").status_code == 403
    finally:
        for b in browsers:
            b.close()
    assert s.stop() == 0


def test_shutdown_answers_what_still_waits(server_factory):
    """SIGTERM with sign-ins queued: each gets an answer (hashed or 503) and the server exits 0
    (libmicrohttpd must not be stopped with a suspended connection)."""
    s = server_factory.start(threads=1, extra=HEAVY)
    browsers = _signins(s, SIGNINS, "stop")
    done = {"lock": threading.Lock(), "answers": []}
    barrier = threading.Barrier(SIGNINS + 1)
    threads = _fire(browsers, "stop", done, barrier)
    try:
        barrier.wait(timeout=30)
        _forms_read(s, 2 * SIGNINS)
        time.sleep(0.2)
        assert s.stop(timeout=60) == 0
        for t in threads:
            t.join(timeout=60)
        assert all(a.status_code in (403, 503) for a in done["answers"]), \
            [a.status_code for a in done["answers"]]
    finally:
        for b in browsers:
            b.close()
