"""GET /api/v1/incidents and /api/v1/incidents/{id}: fields, votes, questions, filters,
ordering, pagination, withdrawn and merged incidents (read-only fixture server)."""

import pytest

from helpers import (BASE, DETAIL_KEYS, DUPLICATE, HISTORY_KEYS, I1, I2, I3, I4, I5, I6, I7, I8,
                     I9, I10, INCIDENT_KEYS, INCIDENT_ORDER, MISSING_UUID, QUESTION_KEYS,
                     SOURCE_KEYS, UTC_TS_RE, UUID_RE, WITHDRAWN, canon, ids, list_all,
                     strip_detail, strip_incident)

# ------------------------------------------------------------------ resources


def test_list_items_match_fixture_exactly(ro_server, expect):
    body = ro_server.json("/api/v1/incidents?limit=100")
    assert set(body) == {"data", "pagination"}
    assert ids(body) == INCIDENT_ORDER
    for item in body["data"]:
        assert set(item) == INCIDENT_KEYS, sorted(set(item) ^ INCIDENT_KEYS)
        assert strip_incident(item) == expect.incident(item["id"]), item["id"]


@pytest.mark.parametrize("iid", INCIDENT_ORDER)
def test_detail_matches_fixture_exactly(ro_server, expect, iid):
    body = ro_server.json(f"/api/v1/incidents/{iid}")
    assert set(body) == {"data"}
    d = body["data"]
    assert set(d) == DETAIL_KEYS, sorted(set(d) ^ DETAIL_KEYS)
    for s in d["sources"]:
        assert set(s) == SOURCE_KEYS
    for h in d["question_history"]:
        assert set(h) == HISTORY_KEYS
    if d["debate_question"] is not None:
        assert QUESTION_KEYS <= set(d["debate_question"]) <= QUESTION_KEYS | {"factual_context"}
    assert strip_detail(d) == expect.incident(iid, detail=True)


def test_detail_and_list_agree(ro_server):
    listed = {i["id"]: i for i in ro_server.json("/api/v1/incidents?limit=100")["data"]}
    for iid, item in listed.items():
        d = ro_server.json(f"/api/v1/incidents/{iid}")["data"]
        assert {k: d[k] for k in INCIDENT_KEYS} == item


def test_explicit_nulls_and_types(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I9}")["data"]  # a minimal incident
    for k in ("neutral_summary", "period", "clock", "original_ruling", "final_ruling",
              "replay_involved", "consequence", "reviewed_at", "duplicate_of", "debate_question",
              "penalty_called"):
        assert k in d and d[k] is None, k
    assert d["sources"] == [] and d["question_history"] == []
    assert d["publication_status"] == "published"
    assert d["ruling_version"] == 1 and type(d["ruling_version"]) is int
    assert d["display_question"] == "Roughing the passer in preseason"
    assert d["comment_count"] == 0 and type(d["comment_count"]) is int
    assert d["votes"] == {"total": 0, "counts": {"correct": 0, "incorrect": 0, "unsure": 0},
                          "percentages": {"correct": 0, "incorrect": 0, "unsure": 0},
                          "rooting": {}}
    assert UUID_RE.match(d["id"])
    for k in ("published_at", "created_at", "updated_at"):
        assert UTC_TS_RE.match(d[k]), (k, d[k])
    one = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    assert one["replay_involved"] is False and one["penalty_called"] is True
    assert type(one["period"]) is int and one["clock"] == "1:23"


def test_incident_timestamps_normalised_to_utc(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I7}")["data"]  # published_at had -05:00
    assert UTC_TS_RE.match(d["published_at"])
    assert canon(d["published_at"]) == "2025-11-29T18:00:00.000000Z"
    d = ro_server.json(f"/api/v1/incidents/{I8}")["data"]
    assert canon(d["reviewed_at"]) == "2025-11-30T01:02:03.456789Z"
    d = ro_server.json(f"/api/v1/incidents/{I3}")["data"]
    assert canon(d["reviewed_at"]) == "2024-12-07T23:30:00.000000Z"


def test_incident_urls_use_base_url(ro_server):
    for i in ro_server.json("/api/v1/incidents?limit=100")["data"]:
        assert i["url"] == f"{BASE}/api/v1/incidents/{i['id']}"
        assert i["links"] == {
            "self": f"{BASE}/api/v1/incidents/{i['id']}",
            "game": f"{BASE}/api/v1/games/{i['game_id']}",
            "gamePage": f"{BASE}/games/{i['game_id']}",
        }
        slug_or_id = i["slug"] or i["id"]
        assert i["public_url"] == f"{BASE}/incidents/{slug_or_id}"


def test_public_url_falls_back_to_id_without_slug(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I8}")["data"]
    assert d["slug"] is None
    assert d["public_url"] == f"{BASE}/incidents/{I8}"
    d = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    assert d["slug"] == "alpha-bravo-late-hit"
    assert d["public_url"] == f"{BASE}/incidents/alpha-bravo-late-hit"


def test_incident_links_are_followable(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I2}")["data"]
    g = ro_server.json(d["links"]["game"][len(BASE):])["data"]
    assert g["id"] == "nfl:2025-wk01-kc-bal"
    assert ro_server.json(d["links"]["self"][len(BASE):])["data"] == d


def test_matchup_league_season_type_from_game(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    assert d["matchup"] == "Bravo State at Alpha University"
    assert (d["league"], d["seasonType"]) == ("college", "regular")
    d = ro_server.json(f"/api/v1/incidents/{I3}")["data"]
    assert d["matchup"] == "Echo Tech at Alpha University"
    assert d["seasonType"] == "postseason"
    d = ro_server.json(f"/api/v1/incidents/{I9}")["data"]
    assert d["matchup"] == "Delta Dragons at Charlie Cats"
    assert (d["league"], d["seasonType"]) == ("nfl", "preseason")


def test_provenance_default_and_imported(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I9}")["data"]
    assert d["origin_kind"] == "agent"
    assert d["provenance"] == {"discovery": {"kind": "agent"}, "research": {"kind": "editorial"},
                               "publication": {"kind": "import"}}
    d = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    assert d["origin_kind"] == "human"
    assert d["provenance"] == {"discovery": {"kind": "human", "contributor": "Sam R."},
                               "research": {"kind": "editorial"},
                               "publication": {"kind": "editor"}}


def test_sources_in_order_with_nulls(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    s0, s1 = d["sources"]
    assert canon(dict(s0, id=None)) == canon({
        "id": None, "url": "https://news.example/alpha-bravo-late-hit", "title": "Late hit debate",
        "publisher": "Example News", "source_kind": "report",
        "published_at": "2024-09-01T10:00:00Z", "added_at": "2024-09-01T11:00:00Z",
        "supports": "Reports the flag and the ensuing discussion",
        "added_by": "abcdef01-2345-4678-9abc-def012345678"})
    assert s1["publisher"] is None and s1["published_at"] is None and s1["added_by"] is None
    assert s1["source_kind"] == "video"
    assert UUID_RE.match(s0["id"]) and UUID_RE.match(s1["id"]) and s0["id"] != s1["id"]
    again = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    assert [s["id"] for s in again["sources"]] == [s0["id"], s1["id"]]  # stable


def test_every_source_kind(ro_server):
    kinds = set()
    for iid in INCIDENT_ORDER:
        kinds |= {s["source_kind"] for s in ro_server.json(f"/api/v1/incidents/{iid}")["data"]["sources"]}
    assert kinds == {"report", "video", "image", "official_statement", "rule", "other"}


def test_developing_incident_without_sources(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I2}")["data"]
    assert d["status"] == "developing" and d["sources"] == []


# ------------------------------------------------------------------ votes


def test_votes_all_rooting_groups(ro_server):
    v = ro_server.json(f"/api/v1/incidents/{I1}")["data"]["votes"]
    assert v == {
        "total": 7,
        "counts": {"correct": 3, "incorrect": 3, "unsure": 1},
        "percentages": {"correct": 42.9, "incorrect": 42.9, "unsure": 14.3},
        "rooting": {
            "home": {"correct": 2, "incorrect": 0, "unsure": 0},
            "away": {"correct": 0, "incorrect": 2, "unsure": 0},
            "neutral": {"correct": 1, "incorrect": 0, "unsure": 0},
            "undisclosed": {"correct": 0, "incorrect": 1, "unsure": 0},
            "unspecified": {"correct": 0, "incorrect": 0, "unsure": 1},
        },
    }
    assert all(type(x) is int for x in v["counts"].values())
    assert type(v["total"]) is int


def test_votes_groups_without_ballots_omitted(ro_server):
    v = ro_server.json(f"/api/v1/incidents/{I7}")["data"]["votes"]
    assert v == {
        "total": 3,
        "counts": {"correct": 2, "incorrect": 0, "unsure": 1},
        "percentages": {"correct": 66.7, "incorrect": 0, "unsure": 33.3},
        "rooting": {"home": {"correct": 2, "incorrect": 0, "unsure": 0},
                    "neutral": {"correct": 0, "incorrect": 0, "unsure": 1}},
    }


def test_votes_anonymous_only(ro_server):
    v = ro_server.json(f"/api/v1/incidents/{I6}")["data"]["votes"]
    assert v == {
        "total": 20,
        "counts": {"correct": 10, "incorrect": 7, "unsure": 3},
        "percentages": {"correct": 50.0, "incorrect": 35.0, "unsure": 15.0},
        "rooting": {"unspecified": {"correct": 10, "incorrect": 7, "unsure": 3}},
    }


def test_votes_question_without_ballots(ro_server):
    v = ro_server.json(f"/api/v1/incidents/{I4}")["data"]["votes"]
    assert v == {"total": 0, "counts": {"correct": 0, "incorrect": 0, "unsure": 0},
                 "percentages": {"correct": 0, "incorrect": 0, "unsure": 0}, "rooting": {}}


def test_votes_same_in_list_and_detail(ro_server):
    listed = {i["id"]: i["votes"] for i in ro_server.json("/api/v1/incidents?limit=100")["data"]}
    assert listed[I1]["total"] == 7 and listed[I2]["total"] == 3 and listed[I6]["total"] == 20
    for iid in (I1, I2, I6, I7):
        assert ro_server.json(f"/api/v1/incidents/{iid}")["data"]["votes"] == listed[iid]


# ------------------------------------------------------------------ questions


def test_question_version_2_with_history(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I2}")["data"]
    q = d["debate_question"]
    assert q["question_version"] == 2 and d["ruling_version"] == 2
    assert q["question_type"] == "no_call"
    assert q["option_a_label"] == "Yes, throw the flag"
    assert q["label_presentation_version"] == 1
    assert q["stored_option_labels"] == {"option_a_label": "Correct", "option_b_label": "Incorrect",
                                         "unsure_label": "Unsure"}
    assert d["display_question"] == "Should a defensive holding flag have been thrown?"
    assert d["final_ruling"] is None  # a no-call debate takes votes without a final ruling
    h = d["question_history"]
    assert [x["question_version"] for x in h] == [1, 2]
    assert h[0]["question"]["question_text"] == "Was the no-call on third down correct?"
    assert h[0]["question"]["option_b_label"] == "Should have been a flag"
    assert canon(h[0]["superseded_at"]) == "2025-09-06T00:00:00.000000Z"
    assert h[0]["factual_context"] == {}
    assert h[0]["presented_question"]["question_version"] == 1
    assert h[0]["presented_question"]["option_a_label"] == "Correct no-call"
    assert h[1]["superseded_at"] is None
    assert h[1]["question"]["question_text"] == q["question_text"]
    assert h[1]["factual_context"] == {"down": 3, "distance": 7}
    # history exposes no ballots or voter identities
    for x in h:
        assert not {"ballots", "votes", "voter", "voters"} & set(x)


def test_question_v1_history_has_current_only(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I1}")["data"]
    h = d["question_history"]
    assert len(h) == 1
    assert h[0]["question_version"] == 1 and h[0]["superseded_at"] is None
    assert h[0]["factual_context"] == {"down": 2, "distance": 7}
    assert h[0]["question"]["question_type"] == "ruling"
    assert h[0]["question"]["question_text"] == "Was the roughness flag the right call?"
    q = d["debate_question"]
    assert q["stored_option_labels"] == {"option_a_label": "Correct call",
                                         "option_b_label": "Wrong call",
                                         "unsure_label": "Not sure"}


def test_no_question_incident(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I3}")["data"]
    assert d["debate_question"] is None
    assert d["question_history"] == []
    assert d["ruling_version"] == 1
    assert d["display_question"] == d["title"] == "Overturned fumble in overtime"


# ------------------------------------------------------------------ withdrawn / merged / ids


def test_withdrawn_incident_404_and_not_listed(ro_server):
    r = ro_server.get(f"/api/v1/incidents/{WITHDRAWN}")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    all_ids = [i["id"] for i in list_all(ro_server, "/api/v1/incidents")]
    assert WITHDRAWN not in all_ids and DUPLICATE not in all_ids
    assert ids(ro_server.json("/api/v1/incidents?game_id=cfb:2024-w01-a")) == [I1]


def test_merged_duplicate_redirects_308(ro_server):
    r = ro_server.get(f"/api/v1/incidents/{DUPLICATE}")
    assert r.status_code == 308
    loc = f"{BASE}/api/v1/incidents/{I1}"
    assert r.headers["Location"] == loc
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.json() == {"duplicate_of": I1, "location": loc}
    assert r.headers["Cache-Control"] == "no-store"


def test_merged_duplicate_redirect_with_uppercase_id(ro_server):
    r = ro_server.get(f"/api/v1/incidents/{DUPLICATE.upper()}")
    assert r.status_code == 308
    assert r.headers["Location"] == f"{BASE}/api/v1/incidents/{I1}"


def test_uppercase_uuid_is_normalised(ro_server):
    d = ro_server.json(f"/api/v1/incidents/{I10.upper()}")["data"]
    assert d["id"] == I10
    assert d["url"] == f"{BASE}/api/v1/incidents/{I10}"


def test_missing_incident_404(ro_server):
    r = ro_server.get(f"/api/v1/incidents/{MISSING_UUID}")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


# ------------------------------------------------------------------ ordering / pagination


def test_order_published_desc_then_id_desc(ro_server):
    body = ro_server.json("/api/v1/incidents?limit=100")
    assert ids(body) == INCIDENT_ORDER
    # the three incidents published at 2025-09-15T00:00:00Z come by id descending
    assert ids(body)[3:6] == [I5, I6, I4]
    assert ids(ro_server.json("/api/v1/incidents?sort=recent&limit=100")) == INCIDENT_ORDER


def test_default_pagination(ro_server):
    body = ro_server.json("/api/v1/incidents")
    assert body["pagination"] == {"limit": 20, "offset": 0, "nextOffset": None}
    assert len(body["data"]) == 10


@pytest.mark.parametrize("limit", [1, 3, 4, 5, 9, 10, 11])
def test_follow_next_offset_to_the_end(ro_server, limit):
    seen, offset = [], 0
    while True:
        body = ro_server.json(f"/api/v1/incidents?limit={limit}&offset={offset}")
        p = body["pagination"]
        assert (p["limit"], p["offset"]) == (limit, offset)
        assert len(body["data"]) == min(limit, 10 - offset)
        seen += ids(body)
        if offset + limit < 10:
            assert p["nextOffset"] == offset + limit
            offset = p["nextOffset"]
        else:
            assert p["nextOffset"] is None
            break
    assert seen == INCIDENT_ORDER and len(set(seen)) == 10


@pytest.mark.parametrize("offset", [10, 11, 100000])
def test_offset_past_end(ro_server, offset):
    body = ro_server.json(f"/api/v1/incidents?offset={offset}")
    assert body == {"data": [], "pagination": {"limit": 20, "offset": offset, "nextOffset": None}}


# ------------------------------------------------------------------ filters


@pytest.mark.parametrize("q,expected", [
    ("game_id=nfl:2025-wk02-x", [I5, I6, I4]),
    ("game_id=cfb:2025-w13", [I7]),
    ("game_id=nfl:2025-wk04", []),
    ("game_id=no-such-game", []),
    ("category=penalty", [I1, I9]),
    ("category=no_call", [I2]),
    ("category=replay", [I3]),
    ("category=clock", [I4]),
    ("category=spot", [I5]),
    ("category=targeting", [I10, I6]),
    ("category=other", [I7]),
    ("category=catch", [I8]),
    ("status=developing", [I10, I5, I2, I9]),
    ("status=corroborated", [I6, I1]),
    ("status=explained", [I7, I3]),
    ("status=resolved", [I8, I4]),
    ("has_verdict=true", [I7, I10, I6, I4, I2, I1]),
    ("has_verdict=false", [I8, I5, I3, I9]),
    ("league=nfl", [I5, I6, I4, I2, I9]),
    ("league=college", [I8, I7, I10, I3, I1]),
    ("season=2024", [I3, I1, I9]),
    ("season=2025", [I8, I7, I10, I5, I6, I4, I2]),
    ("week=1", [I2, I1]),
    ("week=0", [I9]),
    ("week=30", []),
    ("season_type=postseason", [I3]),
    ("season_type=preseason", [I9]),
    ("season_type=unknown", []),
    ("season_type=regular", [I8, I7, I10, I5, I6, I4, I2, I1]),
    # team on either side of the incident's game
    ("team_id=alpha-u", [I8, I10, I3, I1]),
    ("team_id=nfl.charlie", [I5, I6, I4, I2, I9]),
    ("team_id=bravo-st", [I7, I1]),
    ("team_id=nobody", []),
    # from/to on publication time
    ("from=2025-09-15&to=2025-09-16", [I5, I6, I4]),
    ("from=2025-11-29T18:00:00Z", [I8, I7]),
    ("from=2025-11-29T13:00:00-05:00", [I8, I7]),
    ("from=2025-11-29T18:00:00.000001Z", [I8]),
    ("to=2025-11-29T18:00:00Z&from=2025-10-01", [I10]),
    ("to=2025-09-15T00:00:00Z", [I2, I3, I1, I9]),
    ("to=2025-09-15T00:00:00.000001Z", [I5, I6, I4, I2, I3, I1, I9]),
    ("to=2024-09-01T14:00:00%2B02:00", [I9]),
    ("from=2026-01-01", []),
    # combinations
    ("league=nfl&season=2025", [I5, I6, I4, I2]),
    ("has_verdict=true&league=nfl", [I6, I4, I2]),
    ("category=targeting&status=developing", [I10]),
    ("game_id=nfl:2025-wk02-x&has_verdict=false", [I5]),
    ("sort=recent&team_id=alpha-u&season=2025", [I8, I10]),
])
def test_filters(ro_server, q, expected):
    assert ids(ro_server.json(f"/api/v1/incidents?{q}&limit=100")) == expected


def test_filter_by_uppercase_incident_independent_game_id(ro_server):
    # game IDs are case-sensitive strings (no normalisation)
    assert ids(ro_server.json("/api/v1/incidents?game_id=NFL:2025-WK02-X")) == []


def test_filtered_pagination(ro_server):
    b = ro_server.json("/api/v1/incidents?has_verdict=true&limit=4")
    assert ids(b) == [I7, I10, I6, I4] and b["pagination"]["nextOffset"] == 4
    b = ro_server.json("/api/v1/incidents?has_verdict=true&limit=4&offset=4")
    assert ids(b) == [I2, I1] and b["pagination"]["nextOffset"] is None


def test_list_exposes_no_private_data(ro_server):
    for i in ro_server.json("/api/v1/incidents?limit=100")["data"]:
        assert not {"ballots", "visibility", "voter", "voters", "sources"} & set(i)
        assert i["publication_status"] == "published"
