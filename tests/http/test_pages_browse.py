"""Browsing the human pages (docs/pages.md, issue 18 item 7): the home page pages through
every debate (older / newer links over the API's ordering, filters kept), the games index
by league, season and week, words instead of enum values (categories, source kinds,
statuses, season types, "Q2 2:18"), the sample-data banner (only for a document marked
"sample": true), and the Fan Verdict bars (only where percentages are shown)."""

import copy
import json
import re

import pytest

from helpers import BASE, export_db, import_doc, run_cli
from pagekit import gen_uuid, generated_doc, hrefs, linked_in_order, norm_text, page, question, ts

SAMPLE_BANNER = "sample-banner"


def paged_links(doc):
    """(newer href, older href) of a page's pager, None where absent."""
    newer, older = doc.find(id="newer"), doc.find(id="older")
    return (newer["href"] if newer else None, older["href"] if older else None)


# ------------------------------------------------------------------ home paging


def test_home_pages_through_every_debate(module_factory):
    s = module_factory.start(doc=generated_doc(65, tag=0x9a6e))
    urls = [f"{BASE}/incidents/generated-{k}" for k in range(1, 66)]
    seen = []
    _, doc = page(s, "/")
    assert paged_links(doc) == (None, "/?page=2")
    assert linked_in_order(doc, urls) == urls[::-1][:30]
    seen += linked_in_order(doc, urls)
    _, doc = page(s, "/?page=2")
    assert paged_links(doc) == ("/", "/?page=3")
    assert linked_in_order(doc, urls) == urls[::-1][30:60]
    seen += linked_in_order(doc, urls)
    _, doc = page(s, "/?page=3")
    assert paged_links(doc) == ("/?page=2", None)
    assert linked_in_order(doc, urls) == urls[::-1][60:]
    seen += linked_in_order(doc, urls)
    # every debate once, newest first across the pages (the API's order)
    assert seen == urls[::-1]
    api = [i["public_url"] for off in (0, 30, 60)
           for i in s.json(f"/api/v1/incidents?limit=30&offset={off}")["data"]]
    assert seen == api
    # past the end: an empty page that still links back
    _, doc = page(s, "/?page=9")
    assert linked_in_order(doc, urls) == [] and paged_links(doc) == ("/?page=8", None)


def test_home_paging_keeps_the_filters(module_factory):
    s = module_factory.start(doc=generated_doc(31, tag=0x9a6f))
    _, doc = page(s, "/?league=nfl&status=")
    assert paged_links(doc) == (None, "/?league=nfl&page=2")
    _, doc = page(s, "/?league=nfl&page=2")
    assert paged_links(doc) == ("/?league=nfl", None)
    assert linked_in_order(doc, [f"{BASE}/incidents/generated-1"]) == [
        f"{BASE}/incidents/generated-1"]
    _, doc = page(s, "/?league=college")
    assert paged_links(doc) == (None, None) and doc.find(class_="pager") is None


def test_home_without_a_second_page_has_no_pager(ro_server):
    _, doc = page(ro_server, "/")
    assert doc.find(class_="pager") is None


# ------------------------------------------------------------------ the games index


def games_doc(n_per_week=3):
    """Two leagues, two seasons, every season type, a few weeks each."""
    teams = [{"id": f"t-{lg}-{k}", "name": f"{lg.upper()} Team {k}", "abbreviation": f"T{k}",
              "league": lg} for lg in ("nfl", "college") for k in range(2)]
    games = []
    plan = [("nfl", 2025, "postseason", 19), ("nfl", 2025, "regular", 2),
            ("nfl", 2025, "regular", 1), ("nfl", 2025, "preseason", 1),
            ("nfl", 2024, "regular", 18), ("college", 2025, "regular", 14),
            ("college", 2025, "postseason", 16), ("college", 2025, "regular", 0)]
    for lg, season, stype, week in plan:
        for k in range(n_per_week):
            games.append({
                "id": f"{lg}:{season}-{stype}-w{week}-{k}", "homeTeam": {"id": f"t-{lg}-0"},
                "awayTeam": {"id": f"t-{lg}-1"}, "status": "final", "season": season,
                "week": week, "league": lg, "seasonType": stype, "homeScore": 1, "awayScore": k,
                "startsAt": f"{season}-10-{10 + k:02d}T17:00:00Z"})
    return {"teams": teams, "games": games}


def index_groups(doc):
    """[(season heading, [(week heading, [game hrefs])])] of one games index page."""
    out = []
    for el in doc.select("#games > h2, #games > section.week"):
        if el.name == "h2":
            out.append((norm_text(el), []))
        else:
            out[-1][1].append((norm_text(el.find("h3")),
                               [a["href"] for a in el.select("ul.games a")]))
    return out


def test_games_index_groups_by_league_season_and_week(module_factory):
    s = module_factory.start(doc=games_doc())
    _, doc = page(s, "/games")
    groups = index_groups(doc)
    assert [g[0] for g in groups] == ["College 2025", "NFL 2025", "NFL 2024"]
    assert [w for w, _ in groups[0][1]] == ["Postseason, week 16", "Regular season, week 14",
                                           "Regular season, week 0"]
    assert [w for w, _ in groups[1][1]] == ["Postseason, week 19", "Regular season, week 2",
                                           "Regular season, week 1", "Preseason, week 1"]
    # within a week by kickoff; each game links to its page, which links back
    week = groups[1][1][1][1]
    assert week == [f"/games/nfl:2025-regular-w2-{k}" for k in range(3)]
    _, game = page(s, week[0])
    assert "/games?league=nfl" in [a["href"] for a in game.find_all("a", href=True)]
    # every game exactly once
    listed = [h for _, weeks in groups for _, hs in weeks for h in hs]
    assert sorted(listed) == sorted(f"/games/{g['id']}" for g in games_doc()["games"])
    assert doc.find(class_="pager") is None


def test_games_index_pages_and_filters_by_league(module_factory):
    s = module_factory.start(doc=games_doc(n_per_week=8))  # 64 games: two pages of 50
    _, one = page(s, "/games")
    assert paged_links(one) == (None, "/games?page=2")
    _, two = page(s, "/games?page=2")
    assert paged_links(two) == ("/games", None)
    listed = [a["href"] for d in (one, two) for a in d.select("#games ul.games a")]
    assert len(listed) == 64 == len(set(listed))
    # a page that starts inside a week repeats its headings
    assert index_groups(two)[0][0] == index_groups(one)[-1][0]
    _, nfl = page(s, "/games?league=nfl")
    assert {g[0].split()[0] for g in index_groups(nfl)} == {"NFL"}
    assert paged_links(nfl) == (None, None)  # 40 NFL games
    for bad in ("league=xfl", "page=0", "page=x", "page=2002", "season=2025",
                "league=nfl&league=nfl"):
        r = s.get(f"/games?{bad}")
        assert r.status_code == 400, (bad, r.status_code)


# ------------------------------------------------------------------ words, not enum values


def words_doc(sample=False):
    doc = generated_doc(3, tag=0x3d5)
    a, b, c = doc["incidents"]
    a.update(category="no_call", period=2, clock="2:18", title="No call in the second quarter")
    a["sources"] = [{"url": "https://league.example/statement", "title": "League statement",
                     "publisher": "The League", "source_kind": "official_statement",
                     "supports": "The league's account of the play."}]
    b.update(category="replay", period=5, clock="9:41", title="Overtime replay")
    c.update(category="spot", period=7, clock=None, title="Third overtime spot")
    doc["games"][0]["seasonType"] = "postseason"
    doc["games"].append({"id": "nfl:gen-live", "homeTeam": {"id": "gen-home"},
                         "awayTeam": {"id": "gen-away"}, "status": "live", "season": 2026,
                         "week": 4, "league": "nfl", "period": 3, "clock": "5:12",
                         "startsAt": "2026-09-27T17:00:00Z"})
    if sample:
        doc["sample"] = True
    return doc


RAW = re.compile(r"\b(no_call|official_statement|postseason|Period \d)\b")


def test_words_not_enum_values(module_factory):
    s = module_factory.start(doc=words_doc())
    _, home = page(s, "/")
    text = norm_text(home)
    assert "No call" in text and "Replay review" in text and "Developing" in text
    assert not RAW.search(text), RAW.search(text)
    _, inc = page(s, "/incidents/generated-1")
    facts = {norm_text(dt): norm_text(dt.find_next_sibling("dd")) for dt in inc.select(".facts dt")}
    assert facts["Category"] == "No call" and facts["When"] == "Q2 2:18"
    assert norm_text(inc.select_one("#sources .kind")) == "(Official statement)"
    assert "2026 Postseason, week 3" in norm_text(inc.select_one(".matchup"))
    assert not RAW.search(norm_text(inc)), RAW.search(norm_text(inc))
    _, inc = page(s, "/incidents/generated-2")
    assert norm_text(inc.select_one(".play-time")) == "OT 9:41"
    _, inc = page(s, "/incidents/generated-3")
    assert norm_text(inc.select_one(".play-time")) == "3OT"
    _, game = page(s, "/games/nfl:gen-1")
    assert norm_text(game.find(id="game-status")) == "Final"
    assert game.find(id="game-status")["data-status"] == "final"
    _, live = page(s, "/games/nfl:gen-live")
    assert norm_text(live.select_one(".game-status")).startswith("Status: Live Q3 5:12")
    _, index = page(s, "/games")
    assert "Postseason, week 3" in norm_text(index) and "Live Q3 5:12" in norm_text(index)
    # the filter form's options read as words, the values stay the API's
    opts = {o["value"]: norm_text(o) for o in home.select("select[name=status] option")}
    assert opts["developing"] == "Developing" and opts["resolved"] == "Resolved"


# ------------------------------------------------------------------ the sample-data banner


FAN_PAGES = ("/", "/games", "/games/nfl:gen-1", "/incidents/generated-1")


def test_sample_banner_only_for_the_marked_document(server_factory, tmp_path):
    real = server_factory.start(doc=words_doc())
    for path in FAN_PAGES:
        _, doc = page(real, path)
        assert doc.find(id=SAMPLE_BANNER) is None, path
    db = server_factory.new_db(words_doc(sample=True))
    sample = server_factory.start(db=db)
    for path in FAN_PAGES:
        _, doc = page(sample, path)
        assert "Sample data" in norm_text(doc.find(id=SAMPLE_BANNER)), path
    # a later real import does not clear it (the sample rows are still there)
    r = import_doc(db, {"teams": [{"id": "extra", "name": "Extra", "abbreviation": "EX",
                                   "league": "nfl"}]}, tmp_path)
    assert r.returncode == 0, r.stderr
    _, doc = page(sample, "/")
    assert doc.find(id=SAMPLE_BANNER) is not None
    # the marker survives an export round trip; a real database's export has none
    assert json.loads(export_db(db)).get("sample") is True
    assert "sample" not in json.loads(export_db(server_factory.new_db(words_doc())))


def test_sample_banner_shows_on_the_next_page_after_a_sample_import(server_factory, tmp_path):
    """Each thread keeps the marker beside the content version it read it under (not read per
    page): an import on another process moves that version, and the very next page of every
    kind shows the banner."""
    db = server_factory.new_db(words_doc())
    s = server_factory.start(db=db, threads=1)
    for _ in range(2):
        for path in FAN_PAGES:
            _, doc = page(s, path)
            assert doc.find(id=SAMPLE_BANNER) is None, path
    r = import_doc(db, words_doc(sample=True), tmp_path)
    assert r.returncode == 0, r.stderr
    for path in FAN_PAGES:
        _, doc = page(s, path)
        assert doc.find(id=SAMPLE_BANNER) is not None, path


@pytest.mark.parametrize("value", [False, None, 1, "true"])
def test_sample_marker_must_be_true(tmp_path, value):
    doc = words_doc()
    doc["sample"] = value
    r = import_doc(tmp_path / "db", doc, tmp_path)
    assert r.returncode != 0 and "sample" in r.stderr, (r.returncode, r.stderr)


# ------------------------------------------------------------------ the Fan Verdict bars


def verdict_doc():
    doc = generated_doc(2, tag=0xba5)
    for inc, n in zip(doc["incidents"], (19, 20)):
        inc["debate_question"] = question("Was it a catch?", "Catch", "No catch", "Unsure")
        inc["ballots"] = ([{"choice": "correct"}] * (n - 7) + [{"choice": "incorrect"}] * 5
                          + [{"choice": "unsure"}] * 2)
    return doc


def test_verdict_bars_only_with_percentages(module_factory):
    s = module_factory.start(doc=verdict_doc())
    _, doc = page(s, "/incidents/generated-1")  # 19 ballots: counts only, no bars
    assert doc.select("#results .count") and not doc.select("#results meter")
    assert not doc.select("#results .pct")
    _, doc = page(s, "/incidents/generated-2")  # 20 ballots: counts, percentages and bars
    want = {"correct": 65.0, "incorrect": 25.0, "unsure": 10.0}
    for li in doc.select("#results li[data-choice]"):
        kids = [c for c in li.find_all(True, recursive=True)]
        count, pct, meter = li.select_one(".count"), li.select_one(".pct"), li.find("meter")
        # counts first, then the percentage, then the bar
        assert kids.index(count) < kids.index(pct) < kids.index(meter)
        assert float(meter["value"]) == want[li["data-choice"]] == float(pct.text.rstrip("%"))
        assert meter["min"] == "0" and meter["max"] == "100"
        assert f"{want[li['data-choice']]:.1f}% of 20 votes" in meter["aria-label"]
    assert not doc.find(style=True), "an inline style (the CSP forbids them)"
