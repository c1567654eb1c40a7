"""Black-box tests of `whistle fetch` (issue 4, step 3 "Fetch"): the outbound fetcher of lead
research under the SSRF rules of ARCHITECTURE.md "Security rules".

Every origin is started here, in threads, on 127.0.0.1 (and ::1) with port 0, and records each
TCP connection and each HTTP request it receives. No test sends traffic outside 127.0.0.0/8
or ::1: the private, link-local and metadata addresses must be refused before any connection,
and those cases run with --timeout-ms 2000 so a bug cannot hang the suite.
"""

import datetime as dt
import hashlib
import json
import os
import re
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from socketserver import ThreadingMixIn

import pytest

from helpers import BIN

KEYS = {"url", "final_url", "status", "content_type", "title", "publisher", "content_hash",
        "bytes", "redirects", "fetched_at", "error"}
ERRORS = {"blocked_address", "bad_scheme", "too_many_redirects", "too_large", "timeout",
          "unreachable", "unresolvable", "bad_url"}
ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$")
PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
              "ALL_PROXY", "no_proxy", "NO_PROXY")
GUARD = "2000"  # --timeout-ms for cases that must be refused before any connection


def sha256(b):
    return hashlib.sha256(b).hexdigest()


# ---------------------------------------------------------------- local origins


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, addr, handler, origin, family=socket.AF_INET):
        self.address_family = family
        self.origin = origin
        super().__init__(addr, handler)

    def verify_request(self, request, client_address):
        # Called for every accepted connection, before any byte is read.
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
            o.requests.append((self.command, self.path, dict(self.headers)))
        route = o.routes.get(self.path.split("?", 1)[0])
        if route is None:
            route = (404, {"Content-Type": "text/plain"}, b"no such route\n")
        if callable(route):
            try:
                route(self, o)
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            return
        status, headers, body = route
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_HEAD = do_POST = do_PUT = do_DELETE = do_OPTIONS = do_GET


class Origin:
    """An HTTP origin on 127.0.0.1:PORT (and, with v6=True, on [::1]:PORT too when that port
    is free there) that records connections and requests. routes: path -> (status, headers,
    body) or a callable(handler, origin)."""

    def __init__(self, routes=None, v6=False):
        self.routes = dict(routes or {})
        self.requests = []
        self.connections = 0
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.servers = [_Server(("127.0.0.1", 0), _Handler, self)]
        self.port = self.servers[0].server_address[1]
        self.v6 = False
        if v6:
            try:
                self.servers.append(_Server(("::1", self.port), _Handler, self, socket.AF_INET6))
                self.v6 = True
            except OSError:
                pass
        self.threads = []
        for s in self.servers:
            t = threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05},
                                 daemon=True)
            t.start()
            self.threads.append(t)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def allow(self):
        return f"127.0.0.1:{self.port}"

    def url(self, path="/"):
        return self.base + path

    def paths(self):
        with self.lock:
            return [p for _, p, _ in self.requests]

    def untouched(self):
        with self.lock:
            return self.connections == 0 and not self.requests

    def describe(self):
        with self.lock:
            return f"connections={self.connections} requests={[p for _, p, _ in self.requests]}"

    def close(self):
        self.stop_event.set()
        for s in self.servers:
            s.shutdown()
            s.server_close()


@pytest.fixture
def origins():
    made = []

    def make(routes=None, v6=False):
        o = Origin(routes, v6=v6)
        made.append(o)
        return o

    yield make
    for o in made:
        o.close()


@pytest.fixture(scope="module")
def _target(whistle_bin):
    o = Origin({"/": (200, {"Content-Type": "text/html"}, b"<title>SECRET</title>")}, v6=True)
    yield o
    o.close()


@pytest.fixture
def target(_target):
    """A live local origin (127.0.0.1:PORT and, when that port is free there, [::1]:PORT)
    that is never allow-listed: the SSRF cases aim at it and it must never see a connection.
    Shared by the module; its records are cleared for each test."""
    with _target.lock:
        _target.connections = 0
        _target.requests.clear()
    return _target


# ---------------------------------------------------------------- route behaviours


def html(title=None, og_title=None, site=None, body="<p>hello</p>"):
    head = ['<meta charset="utf-8">']
    if title is not None:
        head.append(f"<title>{title}</title>")
    if og_title is not None:
        head.append(f'<meta property="og:title" content="{og_title}">')
    if site is not None:
        head.append(f'<meta property="og:site_name" content="{site}">')
    return ("<!DOCTYPE html>\n<html><head>" + "\n".join(head) + "</head><body>" + body
            + "</body></html>\n").encode("utf-8")


HTML_CT = {"Content-Type": "text/html; charset=utf-8"}


def redirect(location, status=302):
    return (status, {"Location": location, "Content-Type": "text/plain"}, b"moved\n")


def trickle(handler, origin):
    """Headers at once, then one byte every 200 ms, for ever (until the test ends)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.end_headers()
    handler.wfile.write(b"<html><head><title>")
    handler.wfile.flush()
    while not origin.stop_event.wait(0.2):
        handler.wfile.write(b"x")
        handler.wfile.flush()


def hang(handler, origin):
    """Reads the request, then never answers."""
    origin.stop_event.wait(30)


def endless(handler, origin):
    """A fast body with no length that never ends."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.end_headers()
    chunk = b"y" * 16384
    deadline = time.monotonic() + 20
    while not origin.stop_event.is_set() and time.monotonic() < deadline:
        handler.wfile.write(chunk)


def unlimited(body, ctype="application/octet-stream"):
    """A body sent without Content-Length (close-delimited)."""

    def route(handler, origin):
        handler.send_response(200)
        handler.send_header("Content-Type", ctype)
        handler.end_headers()
        handler.wfile.write(body)

    return route


# ---------------------------------------------------------------- running the command


def clean_env(extra=None):
    e = dict(os.environ)
    for k in PROXY_VARS + ("WHISTLE_DB",):
        e.pop(k, None)
    if extra:
        e.update(extra)
    return e


def fetch(url, *args, env=None, timeout=20):
    """Runs `whistle fetch URL ARGS... --json`; returns (CompletedProcess, object, seconds)."""
    cmd = [BIN, "fetch", url, *map(str, args), "--json"]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(env), timeout=timeout)
    elapsed = time.monotonic() - t0
    assert r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr}"
    try:
        obj = json.loads(r.stdout)
    except ValueError:
        pytest.fail(f"stdout is not one JSON object (exit {r.returncode}): {r.stdout!r} "
                    f"stderr={r.stderr!r}")
    check_shape(obj, url)
    if r.returncode == 0:
        assert obj["error"] is None, obj
        assert isinstance(obj["status"], int), obj
    else:
        assert obj["error"] in ERRORS, obj
    return r, obj, elapsed


def check_shape(obj, url):
    assert isinstance(obj, dict), obj
    assert set(obj) == KEYS, f"keys {sorted(obj)}"
    assert obj["url"] == url, obj
    assert obj["final_url"] is None or isinstance(obj["final_url"], str), obj
    assert obj["status"] is None or (isinstance(obj["status"], int)
                                     and not isinstance(obj["status"], bool)), obj
    for k in ("content_type", "title", "publisher", "error"):
        assert obj[k] is None or isinstance(obj[k], str), (k, obj)
    h = obj["content_hash"]
    assert h is None or re.fullmatch(r"[0-9a-f]{64}", h), obj
    for k in ("bytes", "redirects"):
        assert isinstance(obj[k], int) and not isinstance(obj[k], bool) and obj[k] >= 0, (k, obj)
    assert isinstance(obj["fetched_at"], str) and ISO_RE.match(obj["fetched_at"]), obj
    t = dt.datetime.fromisoformat(obj["fetched_at"].replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.timezone.utc) - t).total_seconds()) < 300, obj


def assert_refused(r, obj, error, *untouched):
    assert r.returncode == 1, (r.returncode, obj, r.stderr)
    assert obj["error"] == error, obj
    assert obj["status"] is None, obj
    assert obj["content_hash"] is None and obj["bytes"] == 0, obj
    assert obj["title"] is None and obj["publisher"] is None, obj
    for o in untouched:
        assert o.untouched(), f"origin :{o.port} was reached: {o.describe()}"


# ---------------------------------------------------------------- allowed origins


def test_allowed_html_page_with_open_graph(origins):
    body = html(title="Plain title", og_title="Flag on the play &amp; review",
                site="Gridiron Daily")
    o = origins({"/story": (200, HTML_CT, body)})
    url = o.url("/story")
    r, obj, _ = fetch(url, "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["status"] == 200
    assert obj["final_url"] == url
    assert obj["title"] == "Flag on the play & review"
    assert obj["publisher"] == "Gridiron Daily"
    assert obj["content_type"].lower().startswith("text/html")
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)
    assert obj["redirects"] == 0
    assert obj["error"] is None
    assert o.paths() == ["/story"]
    assert o.requests[0][0] == "GET"


def test_title_only_page_uses_title_element(origins):
    body = html(title="  Café – pass interférence  ")
    o = origins({"/t": (200, HTML_CT, body)})
    r, obj, _ = fetch(o.url("/t"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["status"] == 200
    assert obj["title"] is not None and obj["title"].strip() == "Café – pass interférence"
    assert obj["publisher"] is None
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)


def test_page_without_any_title(origins):
    body = html(body="<h1>No title here</h1>")
    o = origins({"/n": (200, HTML_CT, body)})
    r, obj, _ = fetch(o.url("/n"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["title"] is None and obj["publisher"] is None
    assert obj["content_hash"] == sha256(body)


@pytest.mark.parametrize("status", [404, 500])
def test_error_status_is_a_received_response(origins, status):
    body = html(title="Not found")
    o = origins({"/gone": (status, HTML_CT, body)})
    r, obj, _ = fetch(o.url("/gone"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["status"] == status
    assert obj["error"] is None
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)
    assert o.paths() == ["/gone"]


def test_open_graph_before_title_and_json_escaping(origins):
    body = ('<html><head><meta content="Site &quot;Q&quot; \\ Co" property="og:site_name">'
            '<meta content="He said &quot;no&quot; \\ then &lt;left&gt;" property="og:title">'
            '<title>Plain</title></head><body></body></html>').encode()
    o = origins({"/q": (200, {"Content-Type": "text/html"}, body)})
    r, obj, _ = fetch(o.url("/q"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["title"] == 'He said "no" \\ then <left>'
    assert obj["publisher"] == 'Site "Q" \\ Co'


@pytest.mark.parametrize("ctype,body,title", [
    # charset only in the HTTP header
    ("text/html; charset=utf-8", "<html><head><title>Café – ü</title></head></html>".encode(),
     "Café – ü"),
    # a Latin-1 page that says so: the title comes out as UTF-8 JSON
    ("text/html", '<html><head><meta charset="iso-8859-1"><title>Café</title></head></html>'
     .encode("latin-1"), "Café"),
])
def test_title_charset(origins, ctype, body, title):
    o = origins({"/c": (200, {"Content-Type": ctype}, body)})
    r, obj, _ = fetch(o.url("/c"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["title"] == title
    assert obj["content_hash"] == sha256(body)


def test_non_html_has_no_title(origins):
    body = b'{"title": "<title>not html</title>", "og:title": "nope"}'
    o = origins({"/data.json": (200, {"Content-Type": "application/json"}, body)})
    r, obj, _ = fetch(o.url("/data.json"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["status"] == 200
    assert obj["content_type"].lower().startswith("application/json")
    assert obj["title"] is None and obj["publisher"] is None
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)


def test_body_without_content_length(origins):
    body = html(title="Streamed", site="Stream Co") + b"<!--" + b"z" * 50000 + b"-->"
    o = origins({"/s": unlimited(body, "text/html")})
    r, obj, _ = fetch(o.url("/s"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["title"] == "Streamed" and obj["publisher"] == "Stream Co"
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)


def test_no_proxy_is_used(origins):
    proxy = origins({})
    body = html(title="Direct")
    o = origins({"/d": (200, HTML_CT, body)})
    penv = {k: proxy.base for k in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                                    "all_proxy", "ALL_PROXY")}
    r, obj, _ = fetch(o.url("/d"), "--allow", o.allow, "--allow", proxy.allow, env=penv)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["title"] == "Direct"
    assert o.paths() == ["/d"]
    assert proxy.untouched(), f"the fetch went through the proxy: {proxy.describe()}"
    # A private address is refused rather than handed to a proxy.
    r, obj, _ = fetch("http://10.0.0.1/", "--timeout-ms", GUARD, "--allow", proxy.allow,
                      env=penv)
    assert_refused(r, obj, "blocked_address", proxy)


# ---------------------------------------------------------------- the allow-list


def test_origin_without_allow_is_refused(origins):
    o = origins({"/story": (200, HTML_CT, html(title="x"))})
    r, obj, _ = fetch(o.url("/story"), "--timeout-ms", GUARD)
    assert_refused(r, obj, "blocked_address", o)


def test_allow_is_exact_port(origins):
    o = origins({"/story": (200, HTML_CT, html(title="x"))})
    other = origins({})
    r, obj, _ = fetch(o.url("/story"), "--allow", other.allow, "--timeout-ms", GUARD)
    assert_refused(r, obj, "blocked_address", o, other)


# ---------------------------------------------------------------- SSRF literals

PORT_CASES = [
    "http://127.0.0.1:{p}/",
    "http://127.1:{p}/",
    "http://2130706433:{p}/",
    "http://0x7f000001:{p}/",
    "http://0x7f.0.0.1:{p}/",
    "http://0177.0.0.1:{p}/",
    "http://017700000001:{p}/",
    "http://127.0.0.2:{p}/",
    "http://[::1]:{p}/",
    "http://[0:0:0:0:0:0:0:1]:{p}/",
    "http://[::ffff:127.0.0.1]:{p}/",
    "http://[::ffff:7f00:1]:{p}/",
    "http://[::127.0.0.1]:{p}/",
    "http://[64:ff9b::7f00:1]:{p}/",
    "http://0.0.0.0:{p}/",
    "http://0:{p}/",
    "http://[::]:{p}/",
    "http://localhost:{p}/",
    "http://LOCALHOST:{p}/",
    "https://127.0.0.1:{p}/",
]

FIXED_CASES = [
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
    "http://169.254.1.1/",
    "http://10.0.0.1/",
    "http://10.255.255.254:8080/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:192.168.1.1]/",
    "http://224.0.0.1/",
    "http://239.255.255.250:1900/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd12:3456:789a::1]/",
    "http://[ff02::1]/",
    "https://10.0.0.1/",
    "https://[fe80::1]/",
]


@pytest.mark.parametrize("tmpl", PORT_CASES)
def test_ssrf_literal_to_live_loopback_origin(target, tmpl):
    url = tmpl.format(p=target.port)
    r, obj, _ = fetch(url, "--timeout-ms", GUARD)
    assert_refused(r, obj, "blocked_address", target)


@pytest.mark.parametrize("url", FIXED_CASES)
def test_ssrf_literal_private_or_special(target, url):
    r, obj, elapsed = fetch(url, "--timeout-ms", GUARD)
    assert_refused(r, obj, "blocked_address", target)
    # Refused before any connection: a connect attempt would have waited for the timeout.
    assert elapsed < 1.8, f"took {elapsed:.2f}s: a connection was probably attempted"


def test_allow_does_not_open_other_loopback_origins(origins, target):
    allowed = origins({"/": (200, HTML_CT, html(title="ok"))})
    for url in (target.url("/"), f"http://[::1]:{target.port}/",
                f"http://[::ffff:127.0.0.1]:{target.port}/", f"http://localhost:{target.port}/"):
        r, obj, _ = fetch(url, "--allow", allowed.allow, "--timeout-ms", GUARD)
        assert_refused(r, obj, "blocked_address", target, allowed)


# ---------------------------------------------------------------- schemes


def test_file_scheme(target):
    r, obj, _ = fetch("file:///etc/passwd", "--timeout-ms", GUARD)
    assert_refused(r, obj, "bad_scheme")
    assert "root:" not in r.stdout


@pytest.mark.parametrize("scheme", ["gopher", "dict", "ftp", "telnet", "ldap", "tftp"])
def test_other_schemes_to_allowed_origin(origins, scheme):
    # Even with the address allow-listed, only http and https may be fetched.
    o = origins({"/": (200, HTML_CT, html(title="x"))})
    url = f"{scheme}://127.0.0.1:{o.port}/"
    r, obj, _ = fetch(url, "--allow", o.allow, "--timeout-ms", GUARD)
    assert_refused(r, obj, "bad_scheme", o)


SCHEME_OR_BLOCKED = ("bad_scheme", "blocked_address")


@pytest.mark.parametrize("url,codes", [
    ("gopher://127.0.0.1:{p}/_GET%20/", SCHEME_OR_BLOCKED),
    ("dict://127.0.0.1:{p}/info", SCHEME_OR_BLOCKED),
    ("ftp://example.com/", SCHEME_OR_BLOCKED),
    ("file://localhost/etc/passwd", SCHEME_OR_BLOCKED),
    ("FILE:///etc/passwd", SCHEME_OR_BLOCKED),
    ("javascript:alert(1)", SCHEME_OR_BLOCKED + ("bad_url",)),
    ("data:text/html,<title>x</title>", SCHEME_OR_BLOCKED + ("bad_url",)),
])
def test_other_schemes_refused(target, url, codes):
    url = url.format(p=target.port)
    r, obj, _ = fetch(url, "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] in codes, obj
    assert_refused(r, obj, obj["error"], target)
    assert "root:" not in r.stdout


# ---------------------------------------------------------------- redirects


def test_redirect_to_non_allowed_origin(origins):
    b = origins({"/secret": (200, HTML_CT, html(title="internal"))})
    a = origins({"/go": redirect(b.url("/secret"))})
    r, obj, _ = fetch(a.url("/go"), "--allow", a.allow, "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "blocked_address", obj
    assert obj["title"] is None and obj["content_hash"] is None, obj
    assert a.paths() == ["/go"]
    assert b.untouched(), f"redirect target reached: {b.describe()}"


@pytest.mark.parametrize("loc", ["http://localhost:{p}/secret", "http://[::1]:{p}/secret",
                                 "http://[::ffff:127.0.0.1]:{p}/secret", "http://127.1:{p}/secret",
                                 "http://2130706433:{p}/secret"])
def test_redirect_to_loopback_forms(origins, target, loc):
    a = origins({"/go": redirect(loc.format(p=target.port), 301)})
    r, obj, _ = fetch(a.url("/go"), "--allow", a.allow, "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "blocked_address", obj
    assert target.untouched(), target.describe()
    assert a.paths() == ["/go"]


@pytest.mark.parametrize("loc", ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
                                 "http://[fd00::1]/"])
def test_redirect_to_private_address(origins, loc):
    a = origins({"/go": redirect(loc, 307)})
    r, obj, elapsed = fetch(a.url("/go"), "--allow", a.allow, "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "blocked_address", obj
    assert elapsed < 1.8, f"took {elapsed:.2f}s: a connection was probably attempted"


@pytest.mark.parametrize("loc", ["file:///etc/passwd", "gopher://127.0.0.1:{p}/",
                                 "dict://127.0.0.1:{p}/", "ftp://127.0.0.1:{p}/",
                                 "ftps://127.0.0.1:{p}/"])
def test_redirect_to_other_scheme(origins, loc):
    a = origins()
    a.routes["/go"] = redirect(loc.format(p=a.port))
    r, obj, _ = fetch(a.url("/go"), "--allow", a.allow, "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] in ("bad_scheme", "blocked_address"), obj
    assert "root:" not in r.stdout
    assert obj["title"] is None and obj["content_hash"] is None, obj
    # The origin is allow-listed, so only the scheme rule stops a second connection to it.
    assert a.paths() == ["/go"] and a.connections == 1, a.describe()


def make_chain(origins, n):
    """Origins A and C (to be allow-listed) with a chain of n redirects alternating between
    them, /hop0 on A first; /hop{n} is the final page."""
    a, c = origins({}), origins({})
    hosts = [a, c]
    body = html(title="End of the chain", site="Chain Co")
    # hop i lives on hosts[i % 2] at /hop{i}; hop n is the final page.
    for i in range(n):
        here, there = hosts[i % 2], hosts[(i + 1) % 2]
        nxt = there.url(f"/hop{i + 1}")
        here.routes[f"/hop{i}"] = redirect(nxt, [301, 302, 303, 307, 308][i % 5])
    hosts[n % 2].routes[f"/hop{n}"] = (200, HTML_CT, body)
    return a, c, body, hosts[n % 2].url(f"/hop{n}")


def test_three_redirects_are_followed(origins):
    a, c, body, final = make_chain(origins, 3)
    start = a.url("/hop0")
    r, obj, _ = fetch(start, "--allow", a.allow, "--allow", c.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["status"] == 200
    assert obj["redirects"] == 3
    assert obj["url"] == start
    assert obj["final_url"] == final
    assert obj["title"] == "End of the chain" and obj["publisher"] == "Chain Co"
    assert obj["content_hash"] == sha256(body)
    assert obj["bytes"] == len(body)
    assert sorted(a.paths() + c.paths()) == ["/hop0", "/hop1", "/hop2", "/hop3"]


def test_four_redirects_are_too_many(origins):
    a, c, body, final = make_chain(origins, 4)
    r, obj, _ = fetch(a.url("/hop0"), "--allow", a.allow, "--allow", c.allow)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_many_redirects", obj
    assert obj["title"] is None, obj
    assert "/hop4" not in a.paths() + c.paths(), "the fourth redirect was followed"


def test_relative_redirect(origins):
    body = html(title="Moved here")
    o = origins({"/old": redirect("/new?x=1"), "/new": (200, HTML_CT, body)})
    r, obj, _ = fetch(o.url("/old"), "--allow", o.allow)
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["redirects"] == 1
    assert obj["final_url"] == o.url("/new?x=1")
    assert obj["title"] == "Moved here"
    assert obj["content_hash"] == sha256(body)
    assert o.paths() == ["/old", "/new?x=1"]


def test_redirect_loop_stops(origins):
    o = origins({"/loop": redirect("/loop")})
    r, obj, _ = fetch(o.url("/loop"), "--allow", o.allow, "--timeout-ms", "5000")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_many_redirects", obj
    assert len(o.paths()) == 4, o.describe()


# ---------------------------------------------------------------- caps


def test_too_large_with_content_length(origins):
    body = b"a" * 100001
    o = origins({"/big": (200, {"Content-Type": "text/plain"}, body)})
    r, obj, _ = fetch(o.url("/big"), "--allow", o.allow, "--max-bytes", "100000")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_large", obj
    assert obj["title"] is None, obj


def test_too_large_without_content_length(origins):
    body = html(title="huge") + b"b" * 150000
    o = origins({"/big": unlimited(body, "text/html")})
    r, obj, _ = fetch(o.url("/big"), "--allow", o.allow, "--max-bytes", "100000")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_large", obj


def test_exactly_max_bytes_is_accepted(origins):
    body = b"c" * 100000
    o = origins({"/edge": (200, {"Content-Type": "text/plain"}, body)})
    r, obj, _ = fetch(o.url("/edge"), "--allow", o.allow, "--max-bytes", "100000")
    assert r.returncode == 0, (obj, r.stderr)
    assert obj["bytes"] == 100000
    assert obj["content_hash"] == sha256(body)


def test_endless_body_is_cut(origins):
    o = origins({"/forever": endless})
    r, obj, elapsed = fetch(o.url("/forever"), "--allow", o.allow, "--max-bytes", "100000",
                            "--timeout-ms", "5000")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_large", obj
    assert elapsed < 4, elapsed


def test_default_cap_is_two_mib(origins):
    body = b"d" * (2 * 1024 * 1024 + 1)
    o = origins({"/big": unlimited(body, "text/plain")})
    r, obj, _ = fetch(o.url("/big"), "--allow", o.allow)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "too_large", obj


def test_trickle_is_cut_by_total_timeout(origins):
    o = origins({"/slow": trickle})
    r, obj, elapsed = fetch(o.url("/slow"), "--allow", o.allow, "--timeout-ms", "1500")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "timeout", obj
    assert 1.0 <= elapsed < 3.0, f"took {elapsed:.2f}s with --timeout-ms 1500"


def test_silent_server_times_out(origins):
    o = origins({"/silent": hang})
    r, obj, elapsed = fetch(o.url("/silent"), "--allow", o.allow, "--timeout-ms", "1500")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "timeout", obj
    assert obj["status"] is None, obj
    assert 1.0 <= elapsed < 3.0, f"took {elapsed:.2f}s with --timeout-ms 1500"
    assert o.paths() == ["/silent"]


def slow_headers(handler, origin):
    """A status line, then one header byte every 200 ms: the headers never end."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    handler.wfile.flush()
    while not origin.stop_event.wait(0.2):
        handler.wfile.write(b"z")
        handler.wfile.flush()


def test_trickled_headers_are_cut_by_timeout(origins):
    o = origins({"/slowh": slow_headers})
    r, obj, elapsed = fetch(o.url("/slowh"), "--allow", o.allow, "--timeout-ms", "1500")
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "timeout", obj
    assert 1.0 <= elapsed < 3.0, f"took {elapsed:.2f}s with --timeout-ms 1500"


def test_accepting_socket_that_never_reads_times_out():
    """A bare TCP listener that accepts and then neither reads nor writes."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    ls.settimeout(0.1)
    port = ls.getsockname()[1]
    held, stop = [], threading.Event()

    def accept_loop():
        while not stop.is_set():
            try:
                held.append(ls.accept()[0])
            except OSError:
                pass

    th = threading.Thread(target=accept_loop, daemon=True)
    th.start()
    try:
        r, obj, elapsed = fetch(f"http://127.0.0.1:{port}/", "--allow", f"127.0.0.1:{port}",
                                "--timeout-ms", "1500")
    finally:
        stop.set()
        th.join(2)
        for c in held:
            c.close()
        ls.close()
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "timeout", obj
    assert obj["status"] is None, obj
    assert 1.0 <= elapsed < 3.0, f"took {elapsed:.2f}s with --timeout-ms 1500"
    assert len(held) >= 1


def test_unknown_host_is_unresolvable():
    # .invalid never resolves (RFC 6761): a permanent failure, not "unreachable" (transient)
    r, obj, _ = fetch("http://no-such-publisher.invalid/story", "--timeout-ms", GUARD)
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "unresolvable", obj
    assert obj["status"] is None, obj


def test_closed_port_is_unreachable(origins):
    # A port with nothing listening (bound, never listened): allow-listed, so the refusal
    # comes from the connection, not from the address check.
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    try:
        r, obj, _ = fetch(f"http://127.0.0.1:{port}/", "--allow", f"127.0.0.1:{port}",
                          "--timeout-ms", GUARD)
    finally:
        s.close()
    assert r.returncode == 1, (obj, r.stderr)
    assert obj["error"] == "unreachable", obj
    assert obj["status"] is None, obj


# ---------------------------------------------------------------- bad URLs and usage


@pytest.mark.parametrize("url", ["not a url", "http://", "http:///path", "http://[::1",
                                 "http://127.0.0.1:99999/", ""])
def test_bad_url(target, url):
    r, obj, _ = fetch(url, "--timeout-ms", GUARD)
    assert_refused(r, obj, "bad_url", target)


@pytest.mark.parametrize("args", [[], ["--json"], ["--allow", "127.0.0.1:1"],
                                  ["http://127.0.0.1:1/", "http://127.0.0.1:2/"],
                                  ["http://127.0.0.1:1/", "--no-such-option"],
                                  ["http://127.0.0.1:1/", "--allow"]])
def test_usage_errors(whistle_bin, args):
    r = subprocess.run([BIN, "fetch", *args], capture_output=True, text=True, env=clean_env(),
                       timeout=20)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.strip()


@pytest.mark.parametrize("args", [["--max-bytes", "abc"], ["--max-bytes", "0"],
                                  ["--max-bytes", "-5"], ["--timeout-ms", "0"],
                                  ["--timeout-ms", "1.5"]])
def test_bad_option_values_fetch_nothing(origins, args):
    # Whether these are usage errors (2) or refusals (1, the CLI convention for bad values),
    # they must not fall back to some default and fetch.
    o = origins({"/": (200, HTML_CT, html(title="x"))})
    r = subprocess.run([BIN, "fetch", o.url("/"), "--allow", o.allow, *args, "--json"],
                       capture_output=True, text=True, env=clean_env(), timeout=20)
    assert r.returncode in (1, 2), (r.returncode, r.stdout, r.stderr)
    assert r.stderr.strip()
    assert o.untouched(), o.describe()
