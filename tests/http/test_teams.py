"""GET /api/v1/teams (issue 18 item 6; docs/api-decisions.md "Lists"): every team by ID, the
spec's Team shape (the same object games embed), a league filter, the common limit / offset /
pagination rules and strict parameters, CORS like the other public reads; an unknown team_id
filter on games and incidents answers 200 with an empty page."""

import pytest

from helpers import load_fixture

DOC = load_fixture("main.json")
IDS = sorted(t["id"] for t in DOC["teams"])


def teams(srv, query="", status=200):
    r = srv.get("/api/v1/teams" + query)
    assert r.status_code == status, (query, r.status_code, r.text)
    return r


def test_every_team_by_id_with_the_games_team_shape(ro_server):
    body = teams(ro_server, "?limit=100").json()
    assert [t["id"] for t in body["data"]] == IDS
    assert body["pagination"] == {"limit": 100, "offset": 0, "nextOffset": None}
    # the object a game embeds for the same team, key for key
    embedded = {}
    for g in ro_server.json("/api/v1/games?limit=100")["data"]:
        embedded[g["homeTeam"]["id"]] = g["homeTeam"]
        embedded[g["awayTeam"]["id"]] = g["awayTeam"]
    assert embedded
    for t in body["data"]:
        assert list(t) == ["id", "name", "abbreviation", "logoUrl", "conference", "league",
                           "division", "shortName", "active", "aliases"], t
        if t["id"] in embedded:
            assert t == embedded[t["id"]]


def test_pages_cover_every_team_once(ro_server):
    seen, offset, pages = [], 0, 0
    while offset is not None and pages < 20:
        body = teams(ro_server, f"?limit=2&offset={offset}").json()
        assert len(body["data"]) <= 2
        seen += [t["id"] for t in body["data"]]
        offset = body["pagination"]["nextOffset"]
        pages += 1
    assert seen == IDS
    assert teams(ro_server, "?offset=100000").json() == {
        "data": [], "pagination": {"limit": 20, "offset": 100000, "nextOffset": None}}


@pytest.mark.parametrize("league", ["college", "nfl"])
def test_league_filter(ro_server, league):
    got = [t["id"] for t in teams(ro_server, f"?league={league}").json()["data"]]
    assert got == sorted(t["id"] for t in DOC["teams"] if t.get("league") == league)


@pytest.mark.parametrize("query", ["?league=NFL", "?league=", "?limit=0", "?limit=101",
                                   "?offset=-1", "?limit=2&limit=3", "?season=2025",
                                   "?team_id=alpha-u", "?sort=name", "?Limit=2"])
def test_strict_parameters(ro_server, query):
    err = teams(ro_server, query, 400).json()["error"]
    assert err["code"] == "invalid_request" and err["message"]


def test_cors_like_the_other_public_reads(ro_server):
    r = ro_server.get("/api/v1/teams", headers={"Origin": "https://app.example"})
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    r = ro_server.request("OPTIONS", "/api/v1/teams", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
    assert r.status_code == 204 and r.headers["Access-Control-Allow-Origin"] == "*"
    assert teams(ro_server, "", 200).headers["Content-Type"].startswith("application/json")
    r = ro_server.request("POST", "/api/v1/teams")
    assert r.status_code == 405


@pytest.mark.parametrize("path", ["/api/v1/games", "/api/v1/incidents"])
def test_unknown_team_id_is_an_empty_page(ro_server, path):
    body = ro_server.json(f"{path}?team_id=no-such-team")
    assert body["data"] == [] and body["pagination"]["nextOffset"] is None
