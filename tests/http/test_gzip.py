"""Compressed responses (issue 13; docs/operators.md "Compression"): a cacheable answer of
1 KiB or more goes gzip-compressed to a client whose Accept-Encoding takes gzip, every
cacheable answer (compressed or not) carries Vary: Accept-Encoding, a q=0 refusal is
honoured, tiny bodies and errors stay plain, HEAD says what GET sends, the cached gzip form
is the same bytes and a write shows through it on the next request. Raw bytes through
http.client: requests would decompress on its own."""

import gzip
import http.client
import urllib.parse

import pytest

from helpers import run_cli

LIST = "/api/v1/incidents?limit=20"


def fetch(srv, path, accept=None, method="GET"):
    u = urllib.parse.urlsplit(srv.url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    headers = {} if accept is None else {"Accept-Encoding": accept}
    c.request(method, path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


@pytest.mark.parametrize("path", [LIST, "/api/v1/games?limit=50", "/api/v1/teams?limit=100",
                                  "/incidents/feed.xml"])
def test_gzip_body_is_the_plain_body(ro_server, path):
    status, plain_h, plain = fetch(ro_server, path)
    assert status == 200
    if len(plain) < 1024:
        pytest.skip(f"{path}: {len(plain)} bytes, under the compression threshold")
    assert "content-encoding" not in plain_h
    assert plain_h["vary"] == "Accept-Encoding"
    assert int(plain_h["content-length"]) == len(plain)
    for attempt in range(2):  # the second comes from the response cache
        status, h, body = fetch(ro_server, path, "gzip")
        assert status == 200
        assert h["content-encoding"] == "gzip"
        assert h["vary"] == "Accept-Encoding"
        assert h["content-type"] == plain_h["content-type"]
        assert int(h["content-length"]) == len(body) < len(plain)
        assert gzip.decompress(body) == plain
        if attempt:
            assert body == first
        first = body


def test_head_says_what_get_sends(ro_server):
    _, get_h, body = fetch(ro_server, LIST, "gzip")
    status, h, head_body = fetch(ro_server, LIST, "gzip", method="HEAD")
    assert status == 200 and head_body == b""
    assert h["content-encoding"] == "gzip" and h["vary"] == "Accept-Encoding"
    assert int(h["content-length"]) == len(body)
    _, h, _ = fetch(ro_server, LIST, None, method="HEAD")
    assert "content-encoding" not in h and h["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("accept,compressed", [
    (None, False), ("identity", False), ("gzip", True), ("GZIP", True), ("x-gzip", True),
    ("gzip;q=0", False), ("gzip; q=0.000", False), ("br, gzip;q=0.5", True), ("*", True),
    ("*;q=0", False), ("gzip;q=0, *", False), ("deflate, br", False), ("gzip;q=1.0", True),
    ("gzip;q=bogus", False), ("identity;q=1, *;q=0.1", True),
])
def test_accept_encoding(ro_server, accept, compressed):
    status, h, body = fetch(ro_server, LIST, accept)
    assert status == 200 and h["vary"] == "Accept-Encoding"
    assert (h.get("content-encoding") == "gzip") == compressed, (accept, h)
    assert int(h["content-length"]) == len(body)


@pytest.mark.parametrize("path,status", [("/api/v1/incidents?offset=100000", 200),
                                         ("/api/v1/incidents?limit=0", 400),
                                         ("/api/v1/incidents/00000000-0000-4000-8000-00000000dead",
                                          404)])
def test_tiny_bodies_and_errors_stay_plain(ro_server, path, status):
    got, h, body = fetch(ro_server, path, "gzip")
    assert got == status
    assert "content-encoding" not in h
    assert h["vary"] == "Accept-Encoding"
    assert body.startswith(b"{")


def test_not_cacheable_answers_have_no_vary(ro_server):
    status, h, body = fetch(ro_server, "/api/v1/openapi.json", "gzip")
    assert status == 200 and len(body) > 1024
    assert "vary" not in h and "content-encoding" not in h


def test_a_write_shows_through_the_gzip_cache(server_factory):
    s = server_factory.start()
    before = gzip.decompress(fetch(s, LIST, "gzip")[2])
    assert gzip.decompress(fetch(s, LIST, "gzip")[2]) == before  # cached now
    first = s.json(LIST)["data"][0]["id"]
    r = run_cli("incident", "withdraw", first, "--db", s.db)
    assert r.returncode == 0, r.stderr
    after = gzip.decompress(fetch(s, LIST, "gzip")[2])
    assert first.encode() in before and first.encode() not in after
    assert after == fetch(s, LIST, "identity")[2]
