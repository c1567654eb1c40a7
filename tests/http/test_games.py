"""GET /api/v1/games and /api/v1/games/{id}: fields, filters, ordering, pagination."""

import pytest

from helpers import (BASE, GAME_KEYS, GAME_KICKOFF_ORDER, GAME_RECENT_ORDER, TEAM_KEYS,
                     UTC_TS_RE, canon, ids, list_all)


# ------------------------------------------------------------------ resources


def test_every_game_matches_fixture_exactly(ro_server, expect):
    body = ro_server.json("/api/v1/games?limit=100")
    assert set(body) == {"data", "pagination"}
    assert len(body["data"]) == len(expect.games) == 13
    for g in body["data"]:
        assert set(g) == GAME_KEYS, g["id"]
        assert set(g["homeTeam"]) == TEAM_KEYS
        assert set(g["awayTeam"]) == TEAM_KEYS
        assert canon(g) == expect.game(g["id"]), g["id"]


def test_single_game_matches_list_item(ro_server, expect):
    listed = {g["id"]: g for g in ro_server.json("/api/v1/games?limit=100")["data"]}
    for gid in expect.games:
        body = ro_server.json(f"/api/v1/games/{gid}")
        assert set(body) == {"data"}
        assert body["data"] == listed[gid]
        assert canon(body["data"]) == expect.game(gid)


def test_game_field_types_and_explicit_nulls(ro_server):
    g = ro_server.json("/api/v1/games/nfl:2025-wk03-tbd")["data"]
    # unknown kickoff, unknown scores, unknown clock: keys present with explicit null
    for k in ("homeScore", "awayScore", "startsAt", "period", "clock", "stageLabel"):
        assert k in g and g[k] is None, k
    assert g["kickoffTbd"] is True
    assert g["status"] == "upcoming"
    assert g["season"] == 2025 and g["week"] == 3
    assert g["league"] == "nfl" and g["seasonType"] == "regular"
    assert UTC_TS_RE.match(g["createdAt"]) and UTC_TS_RE.match(g["updatedAt"])
    live = ro_server.json("/api/v1/games/nfl:2025-wk02-x")["data"]
    assert (live["homeScore"], live["awayScore"], live["period"], live["clock"]) == (14, 10, 3, "7:12")
    assert type(live["homeScore"]) is int and type(live["period"]) is int
    assert type(live["season"]) is int and type(live["week"]) is int
    assert live["kickoffTbd"] is False


def test_team_fields_and_defaults(ro_server):
    g = ro_server.json("/api/v1/games/cfb:2024-w01-a")["data"]
    assert g["homeTeam"] == {
        "id": "alpha-u", "name": "Alpha University", "abbreviation": "ALP",
        "logoUrl": "https://img.example/alpha.png", "conference": "Northern",
        "league": "college", "division": "FBS", "shortName": "Alpha", "active": True,
        "aliases": ["Alphas", "AU"],
    }
    # defaults: optional strings null, active true, aliases []
    assert g["awayTeam"] == {
        "id": "bravo-st", "name": "Bravo State", "abbreviation": "BRV", "logoUrl": None,
        "conference": None, "league": "college", "division": None, "shortName": None,
        "active": True, "aliases": [],
    }
    g = ro_server.json("/api/v1/games/cfb:2024-w15-ccg")["data"]
    assert g["awayTeam"]["league"] is None  # echo-tech has no league
    g = ro_server.json("/api/v1/games/nfl:2024-pre-01")["data"]
    assert g["awayTeam"]["active"] is False
    assert g["awayTeam"]["aliases"] == ["Dragons", "Dels"]


def test_timestamps_are_utc_and_normalised(ro_server):
    # imported as 2024-08-31T12:00:00-04:00 and 2024-08-01T00:00:00.250Z
    g = ro_server.json("/api/v1/games/cfb:2024-w01-a")["data"]
    for k in ("startsAt", "createdAt", "updatedAt"):
        assert UTC_TS_RE.match(g[k]), (k, g[k])
    assert canon(g["startsAt"]) == "2024-08-31T16:00:00.000000Z"
    assert canon(g["createdAt"]) == "2024-08-01T00:00:00.250000Z"
    assert canon(g["updatedAt"]) == "2024-09-01T03:04:05.000000Z"


def test_championship_stage_label(ro_server):
    g = ro_server.json("/api/v1/games/cfb:2024-w15-ccg")["data"]
    assert g["seasonType"] == "postseason"
    assert g["stageLabel"] == "Conference Championship"
    assert g["week"] == 15


def test_game_urls_use_base_url(ro_server):
    for g in ro_server.json("/api/v1/games?limit=100")["data"]:
        assert g["url"] == f"{BASE}/api/v1/games/{g['id']}"
        assert g["links"] == {
            "self": f"{BASE}/api/v1/games/{g['id']}",
            "incidents": f"{BASE}/api/v1/incidents?game_id={g['id']}",
        }


def test_game_incidents_link_is_followable(ro_server):
    g = ro_server.json("/api/v1/games/nfl:2025-wk02-x")["data"]
    path = g["links"]["incidents"][len(BASE):]
    body = ro_server.json(path)
    assert ids(body) == ["c0ffee00-0000-4000-8000-000000000005",
                         "5ca1ab1e-0000-4000-8000-000000000006",
                         "0badf00d-0000-4000-8000-000000000004"]
    self_path = g["links"]["self"][len(BASE):]
    assert ro_server.json(self_path)["data"] == g


def test_missing_game_404(ro_server):
    r = ro_server.get("/api/v1/games/cfb:no-such-game")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    assert isinstance(r.json()["error"]["message"], str) and r.json()["error"]["message"]


def test_game_id_of_255_chars_is_valid_but_missing(ro_server):
    r = ro_server.get("/api/v1/games/" + "a" * 255)
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


def test_game_id_is_case_sensitive(ro_server):
    r = ro_server.get("/api/v1/games/CFB:2024-W01-A")
    assert r.status_code == 404


# ------------------------------------------------------------------ ordering


def test_default_sort_is_kickoff(ro_server):
    assert ids(ro_server.json("/api/v1/games?limit=100")) == GAME_KICKOFF_ORDER


def test_sort_kickoff_ties_by_id_unknown_last(ro_server):
    assert ids(ro_server.json("/api/v1/games?sort=kickoff&limit=100")) == GAME_KICKOFF_ORDER


def test_sort_recent_ties_by_id_unknown_last(ro_server):
    assert ids(ro_server.json("/api/v1/games?sort=recent&limit=100")) == GAME_RECENT_ORDER


def test_ordering_is_stable_across_pages(ro_server):
    for sort, order in (("kickoff", GAME_KICKOFF_ORDER), ("recent", GAME_RECENT_ORDER)):
        got = [g["id"] for g in list_all(ro_server, f"/api/v1/games?sort={sort}", limit=2)]
        assert got == order


# ------------------------------------------------------------------ pagination


def test_default_pagination(ro_server):
    body = ro_server.json("/api/v1/games")
    assert body["pagination"] == {"limit": 20, "offset": 0, "nextOffset": None}
    assert len(body["data"]) == 13


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6, 12, 13, 14, 100])
def test_follow_next_offset_to_the_end(ro_server, limit):
    seen, offset, pages = [], 0, 0
    while True:
        body = ro_server.json(f"/api/v1/games?limit={limit}&offset={offset}")
        pages += 1
        p = body["pagination"]
        assert p["limit"] == limit and p["offset"] == offset
        seen += ids(body)
        remaining = 13 - offset
        assert len(body["data"]) == min(limit, remaining)
        if offset + limit < 13:
            assert p["nextOffset"] == offset + limit
            offset = p["nextOffset"]
        else:
            assert p["nextOffset"] is None
            break
    assert seen == GAME_KICKOFF_ORDER
    assert len(set(seen)) == len(seen)
    assert pages == -(-13 // limit)


def test_next_offset_null_exactly_at_the_end(ro_server):
    assert ro_server.json("/api/v1/games?limit=12")["pagination"]["nextOffset"] == 12
    assert ro_server.json("/api/v1/games?limit=13")["pagination"]["nextOffset"] is None
    assert ro_server.json("/api/v1/games?limit=1&offset=11")["pagination"]["nextOffset"] == 12
    assert ro_server.json("/api/v1/games?limit=1&offset=12")["pagination"]["nextOffset"] is None


@pytest.mark.parametrize("offset", [13, 14, 500, 100000])
def test_offset_past_end(ro_server, offset):
    body = ro_server.json(f"/api/v1/games?offset={offset}&limit=5")
    assert body == {"data": [], "pagination": {"limit": 5, "offset": offset, "nextOffset": None}}


def test_pagination_with_filter(ro_server):
    b1 = ro_server.json("/api/v1/games?league=nfl&limit=3")
    assert ids(b1) == ["nfl:2024-pre-01", "nfl:2025-wk01-kc-bal", "nfl:2025-wk02-x"]
    assert b1["pagination"]["nextOffset"] == 3
    b2 = ro_server.json("/api/v1/games?league=nfl&limit=3&offset=3")
    assert ids(b2) == ["nfl:2025-wk04", "nfl:2025-wk03-tbd"]
    assert b2["pagination"]["nextOffset"] is None


# ------------------------------------------------------------------ filters


def _filtered(order, pred, expect):
    return [gid for gid in order if pred(expect.games[gid])]


@pytest.mark.parametrize("season", [2024, 2025])
def test_filter_season(ro_server, expect, season):
    got = ids(ro_server.json(f"/api/v1/games?season={season}&limit=100"))
    assert got == _filtered(GAME_KICKOFF_ORDER, lambda g: g["season"] == season, expect)
    assert len(got) == {2024: 4, 2025: 9}[season]


@pytest.mark.parametrize("q,expected", [
    ("week=1", ["cfb:2024-w01-a", "cfb:2024-w01-b", "nfl:2025-wk01-kc-bal"]),
    ("week=0", ["nfl:2024-pre-01"]),
    ("week=13", ["cfb:2025-w13", "cfb:2025-w13-b"]),
    ("week=30", []),
    ("season=2025&week=1", ["nfl:2025-wk01-kc-bal"]),
    ("season=2000", []),
    ("season=2100", []),
])
def test_filter_week_and_season(ro_server, q, expected):
    assert ids(ro_server.json(f"/api/v1/games?{q}&limit=100")) == expected


@pytest.mark.parametrize("league,n", [("college", 8), ("nfl", 5)])
def test_filter_league(ro_server, expect, league, n):
    got = ids(ro_server.json(f"/api/v1/games?league={league}&limit=100"))
    assert got == _filtered(GAME_KICKOFF_ORDER, lambda g: g["league"] == league, expect)
    assert len(got) == n


@pytest.mark.parametrize("st,expected", [
    ("preseason", ["nfl:2024-pre-01"]),
    ("postseason", ["cfb:2024-w15-ccg"]),
    ("unknown", ["cfb:2025-w07"]),
])
def test_filter_season_type(ro_server, st, expected):
    assert ids(ro_server.json(f"/api/v1/games?season_type={st}&limit=100")) == expected


def test_filter_season_type_regular(ro_server):
    got = ids(ro_server.json("/api/v1/games?season_type=regular&limit=100"))
    assert got == [g for g in GAME_KICKOFF_ORDER
                   if g not in ("nfl:2024-pre-01", "cfb:2024-w15-ccg", "cfb:2025-w07")]
    assert len(got) == 10


@pytest.mark.parametrize("status,expected", [
    ("final", ["cfb:2024-w01-a", "cfb:2024-w01-b", "cfb:2024-w15-ccg", "nfl:2025-wk01-kc-bal",
               "cfb:2025-w13", "cfb:2025-w13-b"]),
    ("live", ["nfl:2025-wk02-x"]),
    ("upcoming", ["nfl:2025-wk04", "nfl:2025-wk03-tbd"]),
    ("postponed", ["cfb:2025-w05-tbd"]),
    ("canceled", ["nfl:2024-pre-01"]),
])
def test_filter_status(ro_server, status, expected):
    body = ro_server.json(f"/api/v1/games?status={status}&limit=100")
    assert ids(body) == expected
    assert all(g["status"] == status for g in body["data"])


@pytest.mark.parametrize("team,expected", [
    # alpha-u is home in w01-a, ccg, w07, w13-b and away in w06
    ("alpha-u", ["cfb:2024-w01-a", "cfb:2024-w15-ccg", "cfb:2025-w06", "cfb:2025-w07",
                 "cfb:2025-w13-b"]),
    # nfl.fox~trot: away in wk03-tbd and wk04, home in wk02-x
    ("nfl.fox~trot", ["nfl:2025-wk02-x", "nfl:2025-wk04", "nfl:2025-wk03-tbd"]),
    ("golf_col", ["cfb:2024-w01-b", "cfb:2025-w06", "cfb:2025-w13-b", "cfb:2025-w05-tbd"]),
    ("no-such-team", []),
])
def test_filter_team_id_either_side(ro_server, team, expected):
    body = ro_server.json(f"/api/v1/games?team_id={team}&limit=100")
    assert ids(body) == expected
    for g in body["data"]:
        assert team in (g["homeTeam"]["id"], g["awayTeam"]["id"])


@pytest.mark.parametrize("q,expected", [
    # dates are midnight UTC; from inclusive, to exclusive; unknown kickoffs never match
    ("from=2025-11-29", ["cfb:2025-w13", "cfb:2025-w13-b"]),
    ("from=2025-11-29T17:00:00Z", ["cfb:2025-w13", "cfb:2025-w13-b"]),
    ("from=2025-11-29T17:00:00.000001Z", ["cfb:2025-w13-b"]),
    ("from=2025-11-29T12:00:00-05:00", ["cfb:2025-w13", "cfb:2025-w13-b"]),
    ("from=2025-11-29T12:00:01-05:00", ["cfb:2025-w13-b"]),
    ("from=2025-10-01&to=2025-11-29T17:00:00Z", ["cfb:2025-w06", "cfb:2025-w07"]),
    ("from=2025-10-01&to=2025-11-29T22:30:00%2B02:00", ["cfb:2025-w06", "cfb:2025-w07", "cfb:2025-w13"]),
    ("from=2025-10-01&to=2025-11-29T22:30:00.5%2B02:00",
     ["cfb:2025-w06", "cfb:2025-w07", "cfb:2025-w13", "cfb:2025-w13-b"]),
    ("to=2024-09-01", ["nfl:2024-pre-01", "cfb:2024-w01-a", "cfb:2024-w01-b"]),
    ("to=2024-08-31T16:00:00Z", ["nfl:2024-pre-01"]),
    ("from=2024-08-31&to=2024-09-01", ["cfb:2024-w01-a", "cfb:2024-w01-b"]),
    ("from=2000-01-01", [g for g in GAME_KICKOFF_ORDER if "tbd" not in g]),
    ("to=2100-01-01", [g for g in GAME_KICKOFF_ORDER if "tbd" not in g]),
    ("from=2026-01-01", []),
])
def test_filter_from_to(ro_server, q, expected):
    assert ids(ro_server.json(f"/api/v1/games?{q}&limit=100")) == expected


def test_filter_from_to_with_sort_recent(ro_server):
    got = ids(ro_server.json("/api/v1/games?from=2024-08-31&to=2024-12-31&sort=recent"))
    assert got == ["cfb:2024-w15-ccg", "cfb:2024-w01-a", "cfb:2024-w01-b"]


def test_combined_filters(ro_server):
    got = ids(ro_server.json(
        "/api/v1/games?league=college&season=2025&status=final&team_id=alpha-u&sort=recent"))
    assert got == ["cfb:2025-w13-b"]
    got = ids(ro_server.json("/api/v1/games?league=nfl&season_type=regular&status=upcoming"))
    assert got == ["nfl:2025-wk04", "nfl:2025-wk03-tbd"]
