"""CORS for browser apps (docs/api-decisions.md): public reads and the feed answer any origin
without credentials, with a preflight; agent, scout and browser-only routes never answer CORS.
A well-formed client X-Request-Id is echoed and logged."""

import pytest

from helpers import I1, RID_RE

PUBLIC = ["/api/v1/games", "/api/v1/games/cfb:2025-w13", "/api/v1/incidents?limit=2",
          f"/api/v1/incidents/{I1}", "/api/v1/openapi.json", "/incidents/feed.xml"]
EXPOSED = {"x-request-id", "ratelimit", "ratelimit-policy", "retry-after", "location"}
ORIGIN = {"Origin": "https://app.example"}


@pytest.mark.parametrize("path", PUBLIC)
def test_public_reads_allow_any_origin(ro_server, path):
    r = ro_server.get(path, headers=ORIGIN)
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in r.headers
    exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert exposed == EXPOSED


@pytest.mark.parametrize("path,status", [("/api/v1/incidents/nope", 400),
                                         ("/api/v1/games/cfb:missing", 404),
                                         ("/api/v1/games?limit=0", 400)])
def test_errors_of_public_reads_are_readable_cross_origin(ro_server, path, status):
    r = ro_server.get(path, headers=ORIGIN)
    assert r.status_code == status
    assert r.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("path", [p.split("?")[0] for p in PUBLIC])
def test_preflight(ro_server, path):
    r = ro_server.request("OPTIONS", path, headers={
        **ORIGIN, "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-request-id"})
    assert r.status_code == 204, r.text
    assert r.content == b""
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert set(m.strip() for m in r.headers["Access-Control-Allow-Methods"].split(",")) == \
        {"GET", "HEAD", "OPTIONS"}
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert "x-request-id" in allowed
    assert int(r.headers["Access-Control-Max-Age"]) > 0
    assert "OPTIONS" in r.headers["Allow"]


@pytest.mark.parametrize("method,path", [
    ("GET", "/api/v1/agent-leads/00000000-0000-4000-8000-000000000000"),
    ("POST", "/api/v1/agent-leads"), ("POST", "/api/agents/v1/scout"),
    ("GET", "/"), ("GET", "/account/signin"), ("GET", "/developers"),
    ("POST", "/account/signin"), ("GET", "/healthz")])
def test_other_routes_never_answer_cors(ro_server, method, path):
    r = ro_server.request(method, path, headers=ORIGIN)
    assert "Access-Control-Allow-Origin" not in r.headers, (path, r.status_code)
    pre = ro_server.request("OPTIONS", path, headers={**ORIGIN,
                                                      "Access-Control-Request-Method": method})
    assert pre.status_code == 405
    assert "Access-Control-Allow-Origin" not in pre.headers


def test_client_request_id_is_echoed_and_logged(ro_server):
    r = ro_server.get("/api/v1/games?limit=1", headers={"X-Request-Id": "trace-42.a:b_c"})
    assert r.headers["X-Request-Id"] == "trace-42.a:b_c"
    # the access line of that very request carries it
    line = ro_server.log_line(lambda ln: "rid=trace-42.a:b_c" in ln)
    assert line is not None and "access: GET /api/v1/games 200 " in line, line


@pytest.mark.parametrize("bad", ["", "x" * 65, "has space", "semi;colon", "é"])
def test_malformed_request_id_is_replaced(ro_server, bad):
    r = ro_server.get("/api/v1/games?limit=1", headers={"X-Request-Id": bad.encode()})
    assert RID_RE.match(r.headers["X-Request-Id"]), r.headers["X-Request-Id"]
