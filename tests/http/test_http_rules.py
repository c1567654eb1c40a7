"""HTTP-level rules: headers on every response, HEAD, 405 + Allow, unknown paths, the access
log and request ids, emitted URLs, 503 when the store is unavailable, SIGTERM."""

import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests

from helpers import (BASE, DUPLICATE, FIXTURES, I1, PG, RID_RE, Server, _pg_dbs, db_arg,
                     db_exists, db_outage, import_doc, iter_strings, psql, sqlite_only)

READ_PATHS = [
    "/api/v1/games",
    "/api/v1/games/cfb:2025-w13",
    "/api/v1/incidents",
    f"/api/v1/incidents/{I1}",
]

# (path, expected status) — responses of every kind the read API gives
SAMPLES = [
    ("/api/v1/games", 200),
    ("/api/v1/games/cfb:2025-w13", 200),
    ("/api/v1/incidents?limit=3", 200),
    (f"/api/v1/incidents/{I1}", 200),
    ("/api/v1/games?limit=0", 400),
    ("/api/v1/incidents/nope", 400),
    ("/api/v1/games/cfb:missing", 404),
    ("/api/v1/nope", 404),
    (f"/api/v1/incidents/{DUPLICATE}", 308),
    ("/api/v1/openapi.json", 200),
    ("/healthz", 200),
]


def check_common_headers(r):
    assert r.headers.get("Cache-Control") == "no-store", r.headers
    assert r.headers.get("X-Content-Type-Options") == "nosniff", r.headers
    rid = r.headers.get("X-Request-Id", "")
    assert RID_RE.match(rid), rid
    assert r.headers.get("Content-Type", "").split(";")[0].strip() == "application/json", r.headers


@pytest.mark.parametrize("path,status", SAMPLES)
def test_headers_on_every_response(ro_server, path, status):
    r = ro_server.get(path)
    assert r.status_code == status, (path, r.text[:200])
    check_common_headers(r)
    r.json()  # always JSON


def test_control_characters_in_path_cannot_forge_log_lines(ro_server):
    # "One log line per request": an escaped newline in the path must not end the access
    # line and start a forged one; control characters are logged as \\xNN
    port = int(ro_server.url.rsplit(":", 1)[1])
    forged = "info access: GET /forged 200 1 1us rid=0000000000000000"
    raw = ("GET /x%0A" + forged.replace(" ", "%20") + "%1B[31m HTTP/1.1\r\n"
           "Host: whistle.test\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(raw.encode())
        head = sock.recv(4096).decode(errors="replace")
    assert head.startswith("HTTP/1.1 404"), head
    rid = re.search(r"X-Request-Id: ([0-9a-f]{16})", head).group(1)
    line = ro_server.log_line(lambda ln: f"rid={rid}" in ln)
    assert line is not None, ro_server.lines[-5:]
    assert "/x\\x0ainfo access: GET /forged" in line and "\\x1b[31m" in line, line
    assert not any(ln.startswith("info access: GET /forged") for ln in list(ro_server.lines))
    assert not any("\x1b" in ln for ln in list(ro_server.lines))


def test_request_ids_are_unique(ro_server):
    rids = {ro_server.get("/api/v1/games?limit=1").headers["X-Request-Id"] for _ in range(20)}
    assert len(rids) == 20


@pytest.mark.parametrize("path,status", [
    ("/api/v1/games?limit=2&season=2025", 200),
    ("/api/v1/games?limit=0", 400),
    (f"/api/v1/incidents/{DUPLICATE}", 308),
    ("/api/v1/does-not-exist", 404),
])
def test_access_log_line_matches_request_id(ro_server, path, status):
    # identity: the log counts the bytes sent, which requests would decompress (test_gzip.py)
    r = ro_server.get(path, headers={"Accept-Encoding": "identity"})
    assert r.status_code == status
    rid = r.headers["X-Request-Id"]
    line = ro_server.log_line(lambda ln: f"rid={rid}" in ln)
    assert line is not None, f"no log line with rid={rid}: {ro_server.lines[-5:]}"
    assert re.search(r"(^|\W)GET(\W|$)", line), line
    assert path.split("?")[0] in line, line
    assert re.search(rf"(^|\D){status}(\D|$)", line), line
    size = len(r.content)
    assert re.search(rf"(^|\D){size}(\D|$)", line), (size, line)
    # exactly one line for this request
    assert sum(1 for ln in list(ro_server.lines) if f"rid={rid}" in ln) == 1


def test_head_same_status_and_headers_without_body(ro_server):
    plain = {"Accept-Encoding": "identity"}  # gzip's HEAD: test_gzip.py
    for path, status in SAMPLES:
        g = ro_server.get(path, headers=plain)
        h = ro_server.head(path, headers=plain)
        assert h.status_code == g.status_code == status, path
        assert h.content == b"", path
        check_common_headers(h)
        for k in ("Content-Type", "Cache-Control", "X-Content-Type-Options", "Location", "Allow"):
            assert h.headers.get(k) == g.headers.get(k), (path, k)
        if "Content-Length" in h.headers:
            assert int(h.headers["Content-Length"]) == len(g.content), path
        assert h.headers["X-Request-Id"] != g.headers["X-Request-Id"]


def test_head_is_logged(ro_server):
    h = ro_server.head("/api/v1/games")
    rid = h.headers["X-Request-Id"]
    line = ro_server.log_line(lambda ln: f"rid={rid}" in ln)
    assert line is not None and "HEAD" in line and "/api/v1/games" in line


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", READ_PATHS + ["/api/v1/openapi.json"])
def test_405_with_allow(ro_server, method, path):
    r = ro_server.request(method, path, data=b"{}", headers={"Content-Type": "application/json"})
    assert r.status_code == 405, (method, path, r.status_code)
    allow = [m.strip() for m in r.headers.get("Allow", "").split(",")]
    assert sorted(allow) == ["GET", "HEAD"], r.headers.get("Allow")
    check_common_headers(r)
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == "method_not_allowed"


def test_405_does_not_change_data(ro_server):
    before = ro_server.get(f"/api/v1/incidents/{I1}").json()
    ro_server.request("DELETE", f"/api/v1/incidents/{I1}")
    assert ro_server.get(f"/api/v1/incidents/{I1}").json() == before


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v2/games", "/api/v1/games/x/y",
                                  "/definitely-not-here", "/api/v1/incidents/x/y/z"])
def test_unknown_path_404_json(ro_server, path):
    r = ro_server.get(path)
    assert r.status_code == 404, path
    check_common_headers(r)
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == "not_found"
    assert body["error"]["message"]


@pytest.mark.parametrize("target", ["/api/v1/games/" + "a" * 9000,
                                    "/api/v1/games?team_id=" + "a" * 9000],
                         ids=["long-path", "long-query"])
def test_uri_too_long_414(ro_server, target):
    # the request target (path and query) over 8 KiB -> 414
    r = ro_server.get(target)
    assert r.status_code == 414
    check_common_headers(r)
    assert r.json()["error"]["code"] == "uri_too_long"


def test_healthz(ro_server):
    r = ro_server.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_readyz(ro_server):
    r = ro_server.get("/readyz")
    assert r.status_code == 200
    check_common_headers(r)
    assert isinstance(r.json(), dict)


def _readyz_refused(r):
    assert r.status_code == 503, r.text[:300]
    check_common_headers(r)
    err = r.json()["error"]
    assert err["code"] == "unavailable"
    assert err["message"].startswith("the database cannot be written: "), err
    return err["message"]


@sqlite_only("PostgreSQL: test_readyz_fails_when_postgresql_is_read_only")
def test_readyz_fails_when_the_file_cannot_be_written(server_factory):
    """A database file the server may read but not write (issue 14 item 8): /readyz answers
    503 and says why, while reads go on (200) and liveness is unaffected. The server runs as
    nobody (setpriv) when the test runs as root, for whom file modes do not hold."""
    d = Path(tempfile.mkdtemp(prefix="whistle-ro-"))  # under /tmp: reachable by nobody
    try:
        d.chmod(0o755)
        db = d / "whistle.db"
        assert import_doc(db, FIXTURES / "main.json", d).returncode == 0
        first = server_factory.start(db=db)  # creates what a first start creates (the secret)
        assert first.get("/readyz").status_code == 200
        assert first.stop() == 0
        prefix = ()
        if os.geteuid() == 0:
            prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
            for p in [d, *d.iterdir()]:
                os.chown(p, 65534, 65534)
        for p in d.iterdir():
            p.chmod(0o444)
        s = Server(db, prefix=prefix)
        try:
            msg = _readyz_refused(s.get("/readyz"))
            assert "readonly" in msg or "read-only" in msg, msg
            assert s.get("/healthz").status_code == 200
            assert s.get(f"/api/v1/incidents/{I1}").status_code == 200
            assert _readyz_refused(s.get("/readyz"))  # and again: nothing was left behind
        finally:
            assert s.stop() == 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(not PG, reason="the PostgreSQL pass of make test (WHISTLE_TEST_PG)")
def test_readyz_fails_when_postgresql_is_read_only(server_factory):
    """default_transaction_read_only on the database (as on a standby, or set by an operator):
    /readyz answers 503 and says why; back to 200 once writes are allowed again. The setting
    takes effect on new sessions: the server's are terminated and it reconnects."""
    s = server_factory.start(threads=2)
    assert s.get("/readyz").status_code == 200
    name = _pg_dbs[os.path.abspath(s.db)]

    def setting(sql):
        psql(f"ALTER DATABASE {name} {sql}")
        psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
             f" WHERE datname = '{name}' AND application_name = 'whistle'")

    def readyz_until(done):
        """GET /readyz until done(answer) (bounded): a thread whose session was just
        terminated first answers 503 "not reachable" while it reconnects."""
        deadline = time.monotonic() + 10
        while not done(r := s.get("/readyz")) and time.monotonic() < deadline:
            time.sleep(0.05)
        return r

    def unwritable(r):
        return r.status_code == 503 and "cannot be written" in r.text

    setting("SET default_transaction_read_only = on")
    try:
        msg = _readyz_refused(readyz_until(unwritable))
        assert "read-only" in msg, msg
        assert s.get(f"/api/v1/incidents/{I1}").status_code == 200  # reads go on
        for _ in range(4):  # every thread's connection, once reconnected, says the same
            _readyz_refused(readyz_until(unwritable))
    finally:
        setting("RESET default_transaction_read_only")
    assert readyz_until(lambda r: r.status_code == 200).status_code == 200
    # the probe leaves nothing behind: its row is as the migration wrote it
    assert psql("SELECT id, n FROM store_probe", name).split() == ["1|0"]


def test_emitted_urls_use_base_url_only(ro_server):
    paths = ["/api/v1/games?limit=100", "/api/v1/incidents?limit=100"]
    paths += [f"/api/v1/incidents/{i['id']}" for i in ro_server.json("/api/v1/incidents?limit=100")["data"]]
    paths += [f"/api/v1/games/{g['id']}" for g in ro_server.json("/api/v1/games?limit=100")["data"]]
    host = ro_server.url.split("//")[1]
    n = 0
    for p in paths:
        body = ro_server.json(p)
        for where, s in iter_strings(body):
            assert host not in s and "127.0.0.1" not in s and "localhost" not in s, (p, where, s)
            key = where.rsplit(".", 1)[-1]
            if key in ("url", "self", "incidents", "game", "gamePage", "public_url") and ".sources[" not in where:
                assert s.startswith(BASE + "/"), (p, where, s)
                n += 1
    assert n > 100


def test_other_base_url(server_factory):
    s = server_factory.start(base_url="https://debates.example.org")
    g = s.json("/api/v1/games/cfb:2025-w13")["data"]
    assert g["url"] == "https://debates.example.org/api/v1/games/cfb:2025-w13"
    i = s.json(f"/api/v1/incidents/{I1}")["data"]
    assert i["public_url"] == "https://debates.example.org/incidents/alpha-bravo-late-hit"
    assert i["links"]["gamePage"] == "https://debates.example.org/games/cfb:2024-w01-a"
    r = s.get(f"/api/v1/incidents/{DUPLICATE}")
    assert r.headers["Location"] == f"https://debates.example.org/api/v1/incidents/{I1}"


def test_store_unavailable_503_then_recovers(server_factory, tmp_path):
    d = tmp_path / "storedir"
    db = server_factory.new_db(name="storedir")
    assert db.parent == d
    s = server_factory.start(db=db, threads=1)
    with db_outage(db):
        r = s.get("/api/v1/games")
        assert r.status_code == 503, r.text[:200]
        check_common_headers(r)
        body = r.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert body["error"]["code"] == "unavailable"
        r = s.get(f"/api/v1/incidents/{I1}")
        assert r.status_code == 503
        assert r.json()["error"]["code"] == "unavailable"
        r = s.get("/readyz")  # readiness checks the database; liveness does not
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
        assert s.get("/healthz").status_code == 200
    # recovery without a restart (PostgreSQL: after the reconnection backoff, ≤ 2 s)
    deadline = time.monotonic() + 5
    while (r := s.get("/api/v1/games?limit=100")).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert r.status_code == 200, r.text[:200]
    assert len(r.json()["data"]) == 13
    assert s.get("/readyz").status_code == 200
    assert s.get(f"/api/v1/incidents/{I1}").status_code == 200


def test_sigterm_exits_zero_and_stops_listening(server_factory):
    s = server_factory.start(doc=None)
    assert s.get("/api/v1/games").json()["data"] == []
    port = int(s.url.rsplit(":", 1)[1])
    t0 = time.monotonic()
    assert s.stop() == 0
    assert time.monotonic() - t0 < 5
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_sigterm_with_open_keepalive_connection(server_factory):
    s = server_factory.start()
    sess = requests.Session()
    sess.trust_env = False
    assert sess.get(s.url + "/api/v1/games").status_code == 200  # connection stays open
    assert s.stop() == 0
    sess.close()


def test_sigterm_finishes_in_flight_request_and_refuses_new_ones(server_factory):
    """SIGTERM while a request's body is still arriving: the server refuses new connections,
    answers the in-flight request once its body is complete, then exits 0."""
    s = server_factory.start()
    host, port = s.url.rsplit("/", 1)[1].rsplit(":", 1)
    body = b'{"game_id": "cfb:2025-w13"}'
    c = socket.create_connection((host, int(port)), timeout=5)
    c.sendall(b"POST /api/v1/agent-leads HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/json\r\n"
              b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:5])
    time.sleep(0.3)
    s.proc.send_signal(signal.SIGTERM)
    assert s.log_line(lambda l: "draining" in l, timeout=5)
    # a new connection is not served: refused, reset or closed without an answer
    try:
        n = socket.create_connection((host, int(port)), timeout=2)
        n.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert n.recv(100) == b""
        n.close()
    except OSError:
        pass
    assert s.proc.poll() is None  # still draining: the first request is in flight
    c.sendall(body[5:])
    answer = c.recv(4096)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:100]
    c.close()
    assert s.stop() == 0


def test_concurrent_requests(ro_server):
    errors = []

    def worker():
        sess = requests.Session()
        sess.trust_env = False
        try:
            for _ in range(20):
                r = sess.get(ro_server.url + "/api/v1/incidents?limit=5", timeout=10)
                if r.status_code != 200 or len(r.json()["data"]) != 5:
                    errors.append(r.status_code)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))
        finally:
            sess.close()

    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


def test_empty_database_lists(server_factory):
    s = server_factory.start(doc=None)
    assert s.json("/api/v1/games") == {"data": [], "pagination": {"limit": 20, "offset": 0, "nextOffset": None}}
    assert s.json("/api/v1/incidents") == {"data": [], "pagination": {"limit": 20, "offset": 0, "nextOffset": None}}
    assert s.get(f"/api/v1/incidents/{I1}").status_code == 404
    assert db_exists(s.db)


def test_default_base_url_names_the_bound_port(tmp_path):
    """Without --base-url, emitted URLs use the listen address with the port actually bound
    (listen port 0 picks one)."""
    import subprocess

    from helpers import BIN

    db = tmp_path / "db"
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "main.json")
    subprocess.run([BIN, "import", fixture, "--db", db_arg(db)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.Popen([BIN, "serve", "--db", db_arg(db), "--listen", "127.0.0.1:0",
                             "--threads", "1"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stderr:
            m = re.search(r"listening on (http://127\.0\.0\.1:(\d+))", line)
            if m:
                url, port = m.group(1), m.group(2)
                break
        assert url and port != "0"
        games = requests.get(url + "/api/v1/games", timeout=5).json()["data"]
        assert games and all(g["url"] == f"{url}/api/v1/games/{g['id']}" for g in games)
        incidents = requests.get(url + "/api/v1/incidents", timeout=5).json()["data"]
        assert incidents and all(i["public_url"].startswith(url + "/incidents/")
                                 for i in incidents)
        # the ballot endpoint's same-origin check uses the same base URL
        r = requests.post(url + "/incidents/x/vote", headers={"Origin": url}, timeout=5,
                          data={"choice": "correct", "question_version": "1", "csrf": "x"})
        assert r.status_code == 403  # no voter cookie: refused, but not for the Origin
        assert "cookie" in r.text
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
