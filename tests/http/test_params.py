"""Every 400 case of the read endpoints: unknown/repeated/out-of-range/malformed query
parameters and invalid path IDs. Each error must be {"error":{"code","message"}} with code
invalid_request and a message that names the offending parameter."""

import pytest

GAMES = "/api/v1/games"
INCIDENTS = "/api/v1/incidents"

# (query, parameter the message must name) — valid on both list endpoints' parser
COMMON_BAD = [
    ("foo=1", "foo"),
    ("Limit=5", "Limit"),  # names are case-sensitive
    ("limit=1&limit=2", "limit"),
    ("limit=5&limit=5", "limit"),
    ("offset=0&offset=0", "offset"),
    ("season=2025&season=2024", "season"),
    ("limit=0", "limit"),
    ("limit=101", "limit"),
    ("limit=abc", "limit"),
    ("limit=", "limit"),
    ("limit=-1", "limit"),
    ("limit=1.5", "limit"),
    ("limit=10x", "limit"),
    ("limit=%2010", "limit"),
    ("limit=99999999999999999999999", "limit"),
    ("offset=-1", "offset"),
    ("offset=100001", "offset"),
    ("offset=abc", "offset"),
    ("offset=", "offset"),
    ("season=1999", "season"),
    ("season=2101", "season"),
    ("season=abc", "season"),
    ("season=", "season"),
    ("week=-1", "week"),
    ("week=31", "week"),
    ("week=x", "week"),
    ("week=", "week"),
    ("league=xfl", "league"),
    ("league=NFL", "league"),
    ("league=", "league"),
    ("season_type=Regular", "season_type"),
    ("season_type=regular-season", "season_type"),
    ("season_type=", "season_type"),
    ("team_id=", "team_id"),
    ("team_id=bad%20id", "team_id"),
    ("team_id=bad/id", "team_id"),
    ("team_id=" + "a" * 256, "team_id"),
    ("status=", "status"),
    ("status=delayed", "status"),
    ("status=unknown", "status"),
    ("sort=", "sort"),
    ("sort=newest", "sort"),
    ("sort=RECENT", "sort"),
    ("from=", "from"),
    ("from=yesterday", "from"),
    ("from=2025-13-01", "from"),
    ("from=2025-02-30", "from"),
    ("from=2025-11-29T25:00:00Z", "from"),
    ("from=2025-11-29T17:60:00Z", "from"),
    ("from=20251129", "from"),
    ("from=2025-11-29T17:00:00", "from"),
    ("from=2025-11-29T17:00:00%2B24:00", "from"),
    ("to=", "to"),
    ("to=2025-11-31", "to"),
    ("to=not-a-date", "to"),
    ("to=2025-11-29T17:00Z", "to"),
    ("from=2025-11-29&to=2025-11-29", "from"),
    ("from=2025-11-30&to=2025-11-29", "from"),
    ("from=2025-11-29T17:00:00Z&to=2025-11-29T12:00:00-05:00", "from"),
]

GAMES_ONLY_BAD = [
    ("status=FINAL", "status"),
    ("status=developing", "status"),
    ("game_id=cfb:2025-w13", "game_id"),
    ("category=penalty", "category"),
    ("has_verdict=true", "has_verdict"),
]

INCIDENTS_ONLY_BAD = [
    ("sort=kickoff", "sort"),
    ("status=final", "status"),
    ("status=Developing", "status"),
    ("category=foul", "category"),
    ("category=no-call", "category"),
    ("category=", "category"),
    ("has_verdict=yes", "has_verdict"),
    ("has_verdict=1", "has_verdict"),
    ("has_verdict=TRUE", "has_verdict"),
    ("has_verdict=", "has_verdict"),
    ("game_id=", "game_id"),
    ("game_id=bad%20id", "game_id"),
    ("game_id=" + "g" * 256, "game_id"),
    ("game_id=a&game_id=b", "game_id"),
    ("category=spot&category=clock", "category"),
    ("has_verdict=true&has_verdict=true", "has_verdict"),
]


def assert_400(server, path, param):
    r = server.get(path)
    assert r.status_code == 400, (path, r.status_code, r.text[:300])
    assert r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == "invalid_request"
    msg = body["error"]["message"]
    assert isinstance(msg, str) and param in msg, (path, msg)


def _id(v):
    return v if len(v) < 60 else v[:20] + f"...({len(v)})"


@pytest.mark.parametrize("q,param", COMMON_BAD + GAMES_ONLY_BAD, ids=_id)
def test_games_400(ro_server, q, param):
    assert_400(ro_server, f"{GAMES}?{q}", param)


@pytest.mark.parametrize("q,param", COMMON_BAD + INCIDENTS_ONLY_BAD, ids=_id)
def test_incidents_400(ro_server, q, param):
    # incidents' status takes the incident values, so the game status cases still fail
    assert_400(ro_server, f"{INCIDENTS}?{q}", param)


@pytest.mark.parametrize("q", [
    "limit=1", "limit=100", "offset=0", "offset=100000", "season=2000", "season=2100", "week=0",
    "week=30", "league=college", "league=nfl", "season_type=preseason", "season_type=regular",
    "season_type=postseason", "season_type=unknown", "team_id=a", "team_id=" + "a" * 255,
    "from=2025-01-01", "to=2025-01-01", "from=2025-01-01T00:00:00Z&to=2025-01-01T00:00:00.000001Z",
    "from=2025-01-01T00:00:00.123456789Z",
], ids=_id)
@pytest.mark.parametrize("path", [GAMES, INCIDENTS])
def test_boundary_values_accepted(ro_server, path, q):
    r = ro_server.get(f"{path}?{q}")
    assert r.status_code == 200, (q, r.text[:300])
    assert isinstance(r.json()["data"], list)


@pytest.mark.parametrize("q", ["sort=kickoff", "sort=recent", "status=upcoming", "status=live",
                               "status=final", "status=postponed", "status=canceled"])
def test_games_values_accepted(ro_server, q):
    assert ro_server.get(f"{GAMES}?{q}").status_code == 200


@pytest.mark.parametrize("q", ["sort=recent", "has_verdict=true", "has_verdict=false",
                               "status=developing", "status=corroborated", "status=explained",
                               "status=resolved", "game_id=x", "category=no_call",
                               "category=catch"])
def test_incidents_values_accepted(ro_server, q):
    assert ro_server.get(f"{INCIDENTS}?{q}").status_code == 200


@pytest.mark.parametrize("path", [
    "/api/v1/games/bad%20id",
    "/api/v1/games/bad!id",
    "/api/v1/games/caf%C3%A9",
    "/api/v1/games/" + "a" * 256,
    "/api/v1/incidents/not-a-uuid",
    "/api/v1/incidents/12345678123412341234123456789abc",
    "/api/v1/incidents/12345678-1234-4234-8234-123456789abg",
    "/api/v1/incidents/{12345678-1234-4234-8234-123456789abc}",
    "/api/v1/incidents/12345678-1234-4234-8234-123456789abc0",
    "/api/v1/incidents/alpha-bravo-late-hit",
    "/api/v1/incidents/" + "a" * 256,
], ids=_id)
def test_invalid_path_id_400(ro_server, path):
    r = ro_server.get(path)
    assert r.status_code == 400, (path, r.status_code, r.text[:200])
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == "invalid_request"
    assert "id" in body["error"]["message"].lower()



@pytest.mark.parametrize("target", [
    "/api/v1/games/cfb:2025-w13%00junk",  # would read as the game cfb:2025-w13
    "/api/v1/incidents/11111111-1111-4111-8111-111111111111%00",
    "/api/v1/games?limit=5%00junk",  # would read as limit=5
    "/api/v1/incidents?has_verdict=true%00x",
    "/api/v1/games?limit%00x=5",
    "/api/v1/games/cfb%2F2025",  # one ID with a slash, not two segments
    "/api/v1/games/cfb%2f2025",
    "/api/v1/incidents/a%2Fb",
])
def test_encoded_nul_or_slash_in_target_400(ro_server, target):
    # libmicrohttpd unescapes into C strings: without this check an encoded NUL silently cut
    # a path ID or a query value short and answered 200 for something else
    r = ro_server.get(target)
    assert r.status_code == 400, (target, r.status_code, r.text[:200])
    body = r.json()
    assert body["error"]["code"] == "invalid_request"
    assert "%00" in body["error"]["message"] or "%2F" in body["error"]["message"]
    assert r.headers["Cache-Control"] == "no-store"
