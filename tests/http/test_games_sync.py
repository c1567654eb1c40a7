"""Black-box tests of games from providers (issue 17, docs/games.md): `whistle games sync`
for the nflverse schedule CSV and the CollegeFootballData API, and the worker's
games-refresh task.

Fixtures (tests/http/fixtures/providers/) are in each provider's real format: the nflverse
games.csv header and quoting, empty scores, a DST boundary, relocated franchises; CFBD /games
with nulls, a TBD kickoff, a neutral-site postseason game, a cancellation. The CFBD API is
stood in for by a local HTTP server on 127.0.0.1 started here (key header checked, 429 with
Retry-After, 500, a slow answer, malformed JSON, ETag / If-None-Match). The real providers
are never called.
"""

import json
import re
import shutil
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers import FIXTURES, db_rows, db_sql, run_cli

PROV = FIXTURES / "providers"
KEY = "cfbd-test-key-7f3a9c"


def sync(db, *args, ok=True):
    r = run_cli("games", "sync", "--db", db, "--json", *args)
    if ok:
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)
    return r


def counts(rep):
    return {k: rep[k] for k in ("inserted", "updated", "unchanged", "rejected", "vanished")}


def game(db, gid):
    rows = db_rows(db, "SELECT home_team_id, away_team_id, home_score, away_score, starts_at,"
                       " kickoff_tbd, period, clock, status, season, week, season_type,"
                       " stage_label, created_at, updated_at FROM games WHERE id = '%s'" % gid)
    assert len(rows) == 1, gid
    keys = ("home", "away", "homeScore", "awayScore", "startsAt", "tbd", "period", "clock",
            "status", "season", "week", "seasonType", "stageLabel", "createdAt", "updatedAt")
    g = dict(zip(keys, rows[0]))
    if g["startsAt"] is not None:
        g["startsAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(g["startsAt"] // 1000000))
    return g


def team(db, tid):
    rows = db_rows(db, "SELECT name, abbreviation, conference, league, short_name, aliases,"
                       " logo_url FROM teams WHERE id = '%s'" % tid)
    assert len(rows) == 1, tid
    return dict(zip(("name", "abbreviation", "conference", "league", "shortName", "aliases",
                     "logoUrl"), rows[0][:5] + (json.loads(rows[0][5]), rows[0][6])))


@pytest.fixture
def db(server_factory):
    return server_factory.new_db(doc=None)


# ---------------------------------------------------------------- nflverse


def test_nflverse_sync_maps_every_field_and_is_idempotent(db):
    rep = sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    assert counts(rep) == {"inserted": 11, "updated": 0, "unchanged": 0, "rejected": 0,
                           "vanished": 0}
    assert rep["rejects"] == [] and rep["vanishedChecked"] is True and rep["teams"] == 14

    sb = game(db, "nfl:2024_22_KC_PHI")
    assert sb | {"createdAt": 0, "updatedAt": 0} == {
        "home": "nfl-phi", "away": "nfl-kc", "homeScore": 40, "awayScore": 22,
        "startsAt": "2025-02-09T23:30:00Z", "tbd": 0, "period": None, "clock": None,
        "status": "final", "season": 2024, "week": 22, "seasonType": "postseason",
        "stageLabel": "Super Bowl", "createdAt": 0, "updatedAt": 0}
    assert game(db, "nfl:2024_19_LAC_HOU")["stageLabel"] == "Wild Card"
    assert game(db, "nfl:2024_09_LV_CIN")["seasonType"] == "regular"
    assert game(db, "nfl:2024_09_LV_CIN")["stageLabel"] is None
    # empty scores: not played yet (upcoming), or never completed (unknown)
    up = game(db, "nfl:2030_01_DAL_PHI")
    assert (up["status"], up["homeScore"], up["awayScore"]) == ("upcoming", None, None)
    assert game(db, "nfl:2022_17_BUF_CIN")["status"] == "unknown"
    # an empty gametime: kickoff TBD, the day kept (midnight US Eastern)
    tbd = game(db, "nfl:2030_18_NYG_WAS")
    assert (tbd["tbd"], tbd["startsAt"], tbd["status"]) == (1, "2031-01-05T05:00:00Z", "upcoming")

    again = sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    assert counts(again) == {"inserted": 0, "updated": 0, "unchanged": 11, "rejected": 0,
                             "vanished": 0}
    assert again["teams"] == 0
    assert game(db, "nfl:2024_22_KC_PHI") == sb


def test_nflverse_eastern_kickoffs_across_daylight_saving(db):
    sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    starts = {gid: game(db, gid)["startsAt"] for gid in (
        "nfl:2024_09_HOU_NYJ", "nfl:2024_09_LV_CIN", "nfl:2019_01_DEN_OAK",
        "nfl:2006_07_SD_KC", "nfl:2006_08_SD_STL")}
    assert starts == {
        # Thursday 20:15 EDT, the last week of daylight time: the next UTC day
        "nfl:2024_09_HOU_NYJ": "2024-11-01T00:15:00Z",
        # Sunday 2024-11-03 13:00, hours after the switch back to EST
        "nfl:2024_09_LV_CIN": "2024-11-03T18:00:00Z",
        "nfl:2019_01_DEN_OAK": "2019-09-10T02:20:00Z",
        # 2006: the pre-2007 rule (daylight time ended on the last Sunday of October)
        "nfl:2006_07_SD_KC": "2006-10-22T17:00:00Z",
        "nfl:2006_08_SD_STL": "2006-10-29T18:00:00Z",
    }


def test_nflverse_relocated_franchises_are_one_team(db):
    sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    assert game(db, "nfl:2019_01_DEN_OAK")["home"] == "nfl-lv"
    assert game(db, "nfl:2015_01_SEA_STL")["home"] == "nfl-lar"
    assert game(db, "nfl:2024_19_LAC_HOU")["away"] == "nfl-lac"
    assert game(db, "nfl:2006_07_SD_KC")["away"] == "nfl-lac"
    lv = team(db, "nfl-lv")
    assert (lv["name"], lv["abbreviation"], lv["league"]) == ("Las Vegas Raiders", "LV", "nfl")
    assert {"OAK", "Oakland Raiders"} <= set(lv["aliases"])
    assert {"SD", "San Diego Chargers"} <= set(team(db, "nfl-lac")["aliases"])
    assert {"STL", "St. Louis Rams", "LA"} <= set(team(db, "nfl-lar")["aliases"])
    assert db_rows(db, "SELECT count(*) FROM teams WHERE id IN ('nfl-oak', 'nfl-sd', 'nfl-stl')"
                   ) == [(0,)]


def test_nflverse_malformed_rows_are_rejected_by_row_and_field(db):
    rep = sync(db, "--provider", "nflverse", PROV / "nflverse-bad.csv")
    assert counts(rep) == {"inserted": 3, "updated": 0, "unchanged": 0, "rejected": 4,
                           "vanished": 0}
    assert [(r["row"], r["gameId"], r["field"]) for r in rep["rejects"]] == [
        (5, "2024_10_XYZ_KC", "away_team"),
        (6, "2024_10_DEN_KC", "week"),
        (7, "2024_10_NYG_CAR", "gametime"),
        (8, "2024_11_GB_CHI", "home_score"),
    ]
    assert "XYZ" in rep["rejects"][0]["message"]
    assert rep["vanishedChecked"] is False
    # the text output names them too, on stderr
    r = run_cli("games", "sync", "--db", db, "--provider", "nflverse", PROV / "nflverse-bad.csv")
    assert r.returncode == 0, r.stderr
    assert "rejected row 6 (2024_10_DEN_KC), field week" in r.stderr
    assert "3 unchanged, 4 rejected" in r.stdout


def test_nflverse_corrections_update_and_vanished_games_stay(db, tmp_path):
    sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    before = {gid: game(db, gid) for gid in ("nfl:2024_09_LV_CIN", "nfl:2030_01_DAL_PHI",
                                             "nfl:2030_18_NYG_WAS", "nfl:2024_22_KC_PHI")}
    text = (PROV / "nflverse-games.csv").read_text()
    text = text.replace("2024_09_LV_CIN,2024,REG,9,2024-11-03,Sunday,13:00,LV,24,CIN,41",
                        "2024_09_LV_CIN,2024,REG,9,2024-11-03,Sunday,13:00,LV,24,CIN,34")
    text = text.replace("2030-09-12,Thursday,20:20", "2030-09-12,Thursday,20:15")
    text = text.replace("2031-01-05,Sunday,,NYG", "2031-01-05,Sunday,16:25,NYG")
    lines = [l for l in text.splitlines(True) if not l.startswith("2006_07_SD_KC,")]
    fixed = tmp_path / "games.csv"
    fixed.write_text("".join(lines))
    time.sleep(0.01)  # updatedAt moves on (microseconds)
    rep = sync(db, "--provider", "nflverse", fixed)
    assert counts(rep) == {"inserted": 0, "updated": 3, "unchanged": 7, "rejected": 0,
                           "vanished": 1}
    score = game(db, "nfl:2024_09_LV_CIN")
    assert score["homeScore"] == 34 and score["status"] == "final"
    assert game(db, "nfl:2030_01_DAL_PHI")["startsAt"] == "2030-09-13T00:15:00Z"
    tbd = game(db, "nfl:2030_18_NYG_WAS")
    assert (tbd["tbd"], tbd["startsAt"]) == (0, "2031-01-05T21:25:00Z")
    for gid in ("nfl:2024_09_LV_CIN", "nfl:2030_01_DAL_PHI", "nfl:2030_18_NYG_WAS"):
        now = game(db, gid)
        assert now["createdAt"] == before[gid]["createdAt"]
        assert now["updatedAt"] > before[gid]["updatedAt"], gid
    assert game(db, "nfl:2024_22_KC_PHI") == before["nfl:2024_22_KC_PHI"]
    # gone from the provider: kept (incidents hang on games), marked unknown
    gone = game(db, "nfl:2006_07_SD_KC")
    assert (gone["status"], gone["homeScore"]) == ("unknown", 30)
    again = sync(db, "--provider", "nflverse", fixed)
    assert counts(again)["unchanged"] == 10 and again["vanished"] == 0


def test_nflverse_document_errors_refuse_the_sync(db, tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("season,week\n2024,1\n")
    r = sync(db, "--provider", "nflverse", bad, ok=False)
    assert r.returncode == 1 and "no column game_id" in r.stderr
    bad.write_text('game_id,season\n"2024_01,2024\n')
    r = sync(db, "--provider", "nflverse", bad, ok=False)
    assert r.returncode == 1 and "not a CSV document" in r.stderr
    r = sync(db, "--provider", "nflverse", tmp_path / "missing.csv", ok=False)
    assert r.returncode == 1 and "cannot open" in r.stderr
    assert db_rows(db, "SELECT count(*) FROM games") == [(0,)]


def test_games_sync_usage_errors(db):
    for args in (["--provider", "espn", "x"], ["--provider", "nflverse"],
                 ["--provider", "cfbd"], ["--provider", "cfbd", "--season", "1800"],
                 ["--provider", "cfbd", "--season", "2024", "--week", "31"],
                 ["--provider", "cfbd", "--season", "2024", "--season-type", "spring"]):
        r = run_cli("games", "sync", "--db", db, *args)
        assert r.returncode in (1, 2), args
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--season", "2024",
                env={"WHISTLE_CFBD_KEY": ""})
    assert r.returncode == 1 and "no CollegeFootballData key" in r.stderr


# ---------------------------------------------------------------- CFBD, saved responses


def test_cfbd_saved_responses(db):
    rep = sync(db, "--provider", "cfbd", "--season", "2024",
               "--file", PROV / "cfbd-games.json", "--teams-file", PROV / "cfbd-teams.json")
    assert counts(rep) == {"inserted": 4, "updated": 0, "unchanged": 0, "rejected": 0,
                           "vanished": 0}
    final = game(db, "cfb:401628455")
    assert final | {"createdAt": 0, "updatedAt": 0} == {
        "home": "cfb-oregon", "away": "cfb-ohio-state", "homeScore": 32, "awayScore": 31,
        "startsAt": "2024-10-12T23:30:00Z", "tbd": 0, "period": None, "clock": None,
        "status": "final", "season": 2024, "week": 7, "seasonType": "regular",
        "stageLabel": None, "createdAt": 0, "updatedAt": 0}
    # startTimeTBD: the day at midnight US Eastern, not played by now, never completed
    tbd = game(db, "cfb:401628540")
    assert (tbd["tbd"], tbd["startsAt"], tbd["status"], tbd["homeScore"]) == (
        1, "2024-11-30T05:00:00Z", "unknown", None)
    # the neutral-site title game: postseason, its note as the stage label
    cfp = game(db, "cfb:401677189")
    assert (cfp["seasonType"], cfp["week"], cfp["status"]) == ("postseason", 1, "final")
    assert cfp["stageLabel"].startswith("College Football Playoff National Championship")
    assert game(db, "cfb:401628999")["status"] == "canceled"
    osu = team(db, "cfb-ohio-state")
    assert osu == {"name": "Ohio State Buckeyes", "abbreviation": "OSU", "conference": "Big Ten",
                   "league": "college", "shortName": "Ohio State",
                   "aliases": ["Buckeyes", "OSU", "Ohio St."],
                   "logoUrl": "https://a.espncdn.com/i/teamlogos/ncaa/500/194.png"}
    assert team(db, "cfb-texas-am")["name"] == "Texas A&M Aggies"
    # a school missing from /teams still gets a team (its name as the games give it)
    assert team(db, "cfb-ucf")["name"] == "UCF"

    again = sync(db, "--provider", "cfbd", "--season", "2024",
                 "--file", PROV / "cfbd-games.json", "--teams-file", PROV / "cfbd-teams.json")
    assert counts(again) == {"inserted": 0, "updated": 0, "unchanged": 4, "rejected": 0,
                             "vanished": 0}
    assert again["teams"] == 0


def test_cfbd_rejects_and_teams_of_rejected_rows_are_not_written(db):
    rep = sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-bad.json")
    assert counts(rep)["inserted"] == 1 and counts(rep)["rejected"] == 4
    assert [(r["row"], r["gameId"], r["field"]) for r in rep["rejects"]] == [
        (2, None, "id"), (3, "401628001", "startDate"), (4, "401628002", "homePoints"),
        (5, "401628003", "homeTeam")]
    assert db_rows(db, "SELECT count(*) FROM teams WHERE id IN ('cfb-georgia', 'cfb-clemson')"
                   ) == [(0,)]


def test_cfbd_game_without_team_list_keeps_a_richer_stored_team(db):
    sync(db, "--provider", "cfbd", "--season", "2024",
         "--file", PROV / "cfbd-games.json", "--teams-file", PROV / "cfbd-teams.json")
    rep = sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-games.json")
    assert rep["teams"] == 0 and counts(rep)["unchanged"] == 4
    assert team(db, "cfb-ohio-state")["name"] == "Ohio State Buckeyes"


# ---------------------------------------------------------------- CFBD, a stand-in API


class CfbdStandIn:
    """The CFBD API on 127.0.0.1: /games, /teams and /scoreboard from the fixtures (or
    `games`, `scoreboard`), the bearer key checked, scripted failures for /games (`script`)
    and /scoreboard (`sb_script`): "429:SECONDS", "500", "slow:SECONDS", "bad"; an ETag
    honoured through If-None-Match on /games. Records every request."""

    def __init__(self):
        self.games = json.loads((PROV / "cfbd-games.json").read_text())
        self.scoreboard = json.loads((PROV / "cfbd-scoreboard.json").read_text())
        self.sb_script = []
        self.teams = (PROV / "cfbd-teams.json").read_bytes()
        self.csv = (PROV / "nflverse-games.csv").read_bytes()
        self.script = []
        self.requests = []
        self.lock = threading.Lock()
        kit = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def send(self, status, body=b"", headers=()):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                with kit.lock:
                    kit.requests.append((self.path, dict(self.headers)))
                    step = "ok"
                    if kit.script and self.path.startswith("/games"):
                        step = kit.script.pop(0)
                    if kit.sb_script and self.path.startswith("/scoreboard"):
                        step = kit.sb_script.pop(0)
                if self.path == "/nflverse/games.csv":  # a public file: no key
                    body = kit.csv
                    etag = '"n%d"' % (hash(body) & 0xffffffff)
                    if self.headers.get("If-None-Match") == etag:
                        return self.send(304, b"", [("ETag", etag)])
                    return self.send(200, body, [("Content-Type", "text/csv"), ("ETag", etag)])
                if self.headers.get("Authorization") != "Bearer " + KEY:
                    return self.send(401, b'{"message":"Unauthorized"}')
                if step.startswith("429:"):
                    return self.send(429, b"{}", [("Retry-After", step[4:])])
                if step == "500":
                    return self.send(500, b"oops")
                if step.startswith("slow:"):
                    time.sleep(float(step[5:]))
                if step == "bad":
                    return self.send(200, b'[{"id": 1, "season": ', [("Content-Type",
                                                                     "application/json")])
                if self.path.startswith("/teams"):
                    return self.send(200, kit.teams, [("Content-Type", "application/json")])
                if self.path == "/scoreboard":
                    with kit.lock:
                        body = json.dumps(kit.scoreboard).encode()
                    return self.send(200, body, [("Content-Type", "application/json")])
                if not self.path.startswith("/games"):
                    return self.send(404)
                body = json.dumps(kit.games).encode()
                etag = '"g%d"' % (hash(body) & 0xffffffff)
                if self.headers.get("If-None-Match") == etag:
                    return self.send(304, b"", [("ETag", etag)])
                self.send(200, body, [("Content-Type", "application/json"), ("ETag", etag)])

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def games_requests(self):
        with self.lock:
            return [(p, h) for p, h in self.requests if p.startswith("/games")]

    def scoreboard_requests(self):
        with self.lock:
            return [(p, h) for p, h in self.requests if p.startswith("/scoreboard")]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def cfbd(tmp_path):
    s = CfbdStandIn()
    s.key_file = tmp_path / "cfbd.key"
    s.key_file.write_text(KEY + "\n")
    yield s
    s.close()


def api_sync(db, cfbd, *extra, ok=True):
    return sync(db, "--provider", "cfbd", "--season", "2024", "--cfbd-url", cfbd.url,
                "--cfbd-key-file", cfbd.key_file, *extra, ok=ok)


def test_cfbd_api_sends_the_key_and_the_query(db, cfbd):
    rep = api_sync(db, cfbd, "--week", "7", "--season-type", "regular")
    # the stand-in ignores the filter: the games outside week 7 are still written
    assert rep["inserted"] == 4 and rep["httpRequests"] == 2
    paths = [p for p, _ in cfbd.requests]
    assert paths == ["/games?year=2024&week=7&seasonType=regular", "/teams?year=2024"]
    assert all(h["Authorization"] == "Bearer " + KEY for _, h in cfbd.requests)
    assert team(db, "cfb-oregon")["name"] == "Oregon Ducks"


def test_cfbd_api_key_from_the_environment_and_a_wrong_key(db, cfbd):
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--season", "2024",
                "--cfbd-url", cfbd.url, env={"WHISTLE_CFBD_KEY": KEY})
    assert r.returncode == 0, r.stderr
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--season", "2024",
                "--cfbd-url", cfbd.url, env={"WHISTLE_CFBD_KEY": "wrong-key-123"})
    assert r.returncode == 1 and "HTTP 401" in r.stderr
    assert "wrong-key-123" not in r.stderr + r.stdout


def test_cfbd_api_429_waits_retry_after_then_succeeds(db, cfbd):
    cfbd.script = ["429:1"]
    rep = api_sync(db, cfbd)
    assert rep["inserted"] == 4
    assert len(cfbd.games_requests()) == 2


def test_cfbd_api_429_beyond_the_wait_cap_fails_without_waiting(db, cfbd):
    cfbd.script = ["429:3600"]
    r = api_sync(db, cfbd, ok=False)
    assert r.returncode == 1 and "rate limited (429)" in r.stderr
    assert len(cfbd.games_requests()) == 1


def test_cfbd_api_500_is_retried(db, cfbd):
    cfbd.script = ["500"]
    rep = api_sync(db, cfbd)
    assert rep["inserted"] == 4 and len(cfbd.games_requests()) == 2
    cfbd.script = ["500", "500"]
    r = api_sync(db, cfbd, "--attempts", "2", ok=False)
    assert r.returncode == 1 and "server error" in r.stderr and "after 2 attempts" in r.stderr


def test_cfbd_api_slow_answer_times_out(db, cfbd):
    cfbd.script = ["slow:3"]
    r = api_sync(db, cfbd, "--timeout-ms", "300", "--attempts", "1", ok=False)
    assert r.returncode == 1 and "timeout" in r.stderr
    assert db_rows(db, "SELECT count(*) FROM games") == [(0,)]


def test_cfbd_api_malformed_json_writes_nothing(db, cfbd):
    cfbd.script = ["bad"]
    r = api_sync(db, cfbd, ok=False)
    assert r.returncode == 1 and "not JSON" in r.stderr
    assert db_rows(db, "SELECT count(*) FROM games") == [(0,)]


def test_cfbd_api_byte_cap(db, cfbd):
    r = api_sync(db, cfbd, "--max-bytes", "100", "--attempts", "1", ok=False)
    assert r.returncode == 1 and "too large" in r.stderr


def test_cfbd_corrections_and_vanished_games(db, cfbd):
    api_sync(db, cfbd)
    before = game(db, "cfb:401628455")
    g = {x["id"]: x for x in cfbd.games}
    g[401628455]["homePoints"] = 35                       # a score fix
    g[401628540]["startTimeTBD"] = False                   # the kickoff is set
    g[401628540]["startDate"] = "2024-11-30T00:30:00.000Z"
    cfbd.games = [x for x in cfbd.games if x["id"] != 401628999]  # gone from the provider
    g[401677189]["notes"] = "Postponed (sample)"          # a postponement
    time.sleep(0.01)
    rep = api_sync(db, cfbd)
    assert counts(rep) == {"inserted": 0, "updated": 3, "unchanged": 0, "rejected": 0,
                           "vanished": 0}
    after = game(db, "cfb:401628455")
    assert after["homeScore"] == 35 and after["updatedAt"] > before["updatedAt"]
    assert after["createdAt"] == before["createdAt"]
    k = game(db, "cfb:401628540")
    assert (k["tbd"], k["startsAt"]) == (0, "2024-11-30T00:30:00Z")
    assert game(db, "cfb:401677189")["status"] == "postponed"
    # the canceled game was already canceled: nothing to mark; make one vanish that is not
    cfbd.games = [x for x in cfbd.games if x["id"] != 401628455]
    rep = api_sync(db, cfbd)
    assert rep["vanished"] == 1
    gone = game(db, "cfb:401628455")
    assert (gone["status"], gone["homeScore"]) == ("canceled", 35)


# ---------------------------------------------------------------- CFBD /scoreboard (live)


def sb_sync(db, cfbd, *extra, ok=True):
    return sync(db, "--provider", "cfbd", "--scoreboard", "--cfbd-url", cfbd.url,
                "--cfbd-key-file", cfbd.key_file, *extra, ok=ok)


def live_facts(db, gid):
    g = game(db, gid)
    return g["status"], g["period"], g["clock"], g["homeScore"], g["awayScore"]


def test_scoreboard_live_period_and_clock_between_polls_then_final(server_factory, db, cfbd):
    api_sync(db, cfbd)
    before = game(db, "cfb:401628540")
    time.sleep(0.01)
    rep = sb_sync(db, cfbd)
    assert rep["scoreboard"] is True
    assert {k: rep[k] for k in ("inserted", "updated", "unchanged", "rejected", "vanished",
                                "notStored")} == {
        "inserted": 0, "updated": 2, "unchanged": 0, "rejected": 0, "vanished": 0,
        "notStored": 1}  # 401999001 was never synced from /games: not invented
    (path, headers), = cfbd.scoreboard_requests()
    assert path == "/scoreboard" and headers["Authorization"] == "Bearer " + KEY
    # in progress: live, the period, the clock in the spec's M:SS form, the points
    assert live_facts(db, "cfb:401628540") == ("live", 2, "7:12", 10, 14)
    live = game(db, "cfb:401628540")
    assert live["updatedAt"] > before["updatedAt"] and live["createdAt"] == before["createdAt"]
    # completed: final with its last period and clock
    assert live_facts(db, "cfb:401677189") == ("final", 4, "0:00", 23, 34)
    assert db_rows(db, "SELECT count(*) FROM games WHERE id = 'cfb:401999001'") == [(0,)]

    # the same scoreboard again changes nothing
    again = sb_sync(db, cfbd)
    assert (again["updated"], again["unchanged"], again["notStored"]) == (0, 2, 1)
    assert game(db, "cfb:401628540") == live

    # the next poll: the game moved on
    sb = {x["id"]: x for x in cfbd.scoreboard}
    sb[401628540].update(period=3, clock="14:51")
    sb[401628540]["homeTeam"]["points"] = 17
    rep = sb_sync(db, cfbd)
    assert (rep["updated"], rep["unchanged"]) == (1, 1)
    assert live_facts(db, "cfb:401628540") == ("live", 3, "14:51", 17, 14)

    # the API serves the live facts
    s = server_factory.start(db=db)
    g = s.get("/api/v1/games/cfb:401628540").json()["data"]
    assert (g["status"], g["period"], g["clock"], g["homeScore"], g["awayScore"]) == (
        "live", 3, "14:51", 17, 14)
    assert [x["id"] for x in s.get("/api/v1/games?status=live").json()["data"]] == [
        "cfb:401628540"]
    s.stop()

    # a /games sync (no live feed: its live is inferred) never erases the scoreboard's facts
    rep = api_sync(db, cfbd)
    assert counts(rep) == {"inserted": 0, "updated": 0, "unchanged": 4, "rejected": 0,
                           "vanished": 0}
    assert live_facts(db, "cfb:401628540") == ("live", 3, "14:51", 17, 14)
    assert live_facts(db, "cfb:401677189") == ("final", 4, "0:00", 23, 34)

    # completed: final; /games, still saying not completed, does not bring it back to live
    sb[401628540].update(status="completed", period=4, clock="00:00")
    sb[401628540]["homeTeam"]["points"] = 20
    sb[401628540]["awayTeam"]["points"] = 24
    sb_sync(db, cfbd)
    assert live_facts(db, "cfb:401628540") == ("final", 4, "0:00", 20, 24)
    assert api_sync(db, cfbd)["unchanged"] == 4
    assert live_facts(db, "cfb:401628540") == ("final", 4, "0:00", 20, 24)


def test_scoreboard_scheduled_after_kickoff_is_delayed(db, cfbd):
    api_sync(db, cfbd)
    sb = {x["id"]: x for x in cfbd.scoreboard}
    sb[401628540].update(status="scheduled", period=None, clock=None)
    sb_sync(db, cfbd)
    # its kickoff day (TBD) is long over and the provider says it has not begun
    assert live_facts(db, "cfb:401628540")[:3] == ("delayed", None, None)
    # a final game listed as scheduled keeps its final
    sb[401677189].update(status="scheduled", period=None, clock=None)
    sb_sync(db, cfbd)
    assert live_facts(db, "cfb:401677189")[0] == "final"


def test_scoreboard_from_a_saved_file_and_rejected_rows(db, tmp_path):
    sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-games.json")
    doc = json.loads((PROV / "cfbd-scoreboard.json").read_text())
    doc[1]["clock"] = "99:99"             # row 2: a clock that is no game clock
    doc.append({"id": "x", "status": "in_progress"})  # row 4: no ID
    f = tmp_path / "scoreboard.json"
    f.write_text(json.dumps(doc))
    rep = sync(db, "--provider", "cfbd", "--scoreboard", "--file", f)  # no key needed
    assert (rep["updated"], rep["rejected"], rep["notStored"]) == (1, 2, 1)
    assert [(r["row"], r["field"]) for r in rep["rejects"]] == [(2, "clock"), (4, "id")]
    assert live_facts(db, "cfb:401628540")[:3] == ("live", 2, "7:12")
    assert live_facts(db, "cfb:401677189")[1] is None  # its row was rejected: untouched
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--scoreboard", "--file", f)
    assert r.returncode == 0 and "scoreboard: 0 updated, 1 unchanged, 2 rejected, 1 not stored" \
        in r.stdout
    assert "rejected row 2 (401677189), field clock" in r.stderr
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--scoreboard", "--season",
                "2024", "--file", f)
    assert r.returncode == 1 and "--scoreboard takes no --season" in r.stderr


def test_scoreboard_stand_in_failures(db, cfbd):
    api_sync(db, cfbd)
    snapshot = db_rows(db, "SELECT id, status, period, clock, updated_at FROM games ORDER BY id")
    r = run_cli("games", "sync", "--db", db, "--provider", "cfbd", "--scoreboard", "--cfbd-url",
                cfbd.url, env={"WHISTLE_CFBD_KEY": "wrong-key-123"})
    assert r.returncode == 1 and "HTTP 401" in r.stderr and "wrong-key-123" not in r.stderr
    cfbd.sb_script = ["429:3600"]
    r = sb_sync(db, cfbd, ok=False)
    assert r.returncode == 1 and "rate limited (429)" in r.stderr
    cfbd.sb_script = ["500", "500"]
    r = sb_sync(db, cfbd, "--attempts", "2", ok=False)
    assert r.returncode == 1 and "server error" in r.stderr
    cfbd.sb_script = ["bad"]
    r = sb_sync(db, cfbd, ok=False)
    assert r.returncode == 1 and "not JSON" in r.stderr
    cfbd.sb_script = ["slow:3"]
    r = sb_sync(db, cfbd, "--timeout-ms", "300", "--attempts", "1", ok=False)
    assert r.returncode == 1 and "timeout" in r.stderr
    assert db_rows(db, "SELECT id, status, period, clock, updated_at FROM games ORDER BY id"
                   ) == snapshot
    n = len(cfbd.scoreboard_requests())
    cfbd.sb_script = ["429:1", "500"]  # waited out, then retried
    rep = sb_sync(db, cfbd)
    assert rep["updated"] == 2 and rep["httpRequests"] == 3
    assert len(cfbd.scoreboard_requests()) == n + 3


# ---------------------------------------------------------------- neutral site


def test_neutral_site_from_both_providers_on_pages_and_through_export(server_factory, db,
                                                                     tmp_path):
    sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-games.json",
         "--teams-file", PROV / "cfbd-teams.json")
    rows = dict(db_rows(db, "SELECT id, neutral_site FROM games"))
    # nflverse `location` Neutral (the Super Bowl), CFBD neutralSite (the title game)
    assert rows["nfl:2024_22_KC_PHI"] == 1 and rows["cfb:401677189"] == 1
    assert rows["nfl:2024_19_LAC_HOU"] == 0 and rows["cfb:401628455"] == 0
    s = server_factory.start(db=db)
    page = s.get("/games/nfl:2024_22_KC_PHI").text
    assert "at a neutral site" in page
    assert "at a neutral site" not in s.get("/games/nfl:2024_19_LAC_HOU").text
    # not in the API's Game (the spec has no such field)
    g = s.get("/api/v1/games/nfl:2024_22_KC_PHI").json()["data"]
    assert not any("neutral" in k.lower() for k in g)
    s.stop()
    # carried by export and import
    r = run_cli("export", "--db", db)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    by_id = {x["id"]: x for x in doc["games"]}
    assert by_id["nfl:2024_22_KC_PHI"]["neutralSite"] is True
    assert by_id["nfl:2024_19_LAC_HOU"]["neutralSite"] is False
    out = tmp_path / "export.json"
    out.write_text(r.stdout)
    db2 = server_factory.new_db(doc=None)
    r = run_cli("import", "--db", db2, out)
    assert r.returncode == 0, r.stderr
    assert dict(db_rows(db2, "SELECT id, neutral_site FROM games")) == rows


# ---------------------------------------------------------------- the worker


def worker_once(db, *extra, env=None):
    r = run_cli("worker", "--once", "--json", "--db", db, *extra, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["units"], r.stderr


def test_worker_refreshes_cfbd_on_a_schedule_with_conditional_requests(db, cfbd):
    args = ("--games-cfbd-season", "2024", "--cfbd-url", cfbd.url, "--cfbd-key-file",
            cfbd.key_file)
    units, log = worker_once(db, *args)
    assert units >= 1
    assert db_rows(db, "SELECT count(*) FROM games WHERE id LIKE 'cfb:%'") == [(4,)]
    assert re.search(r"games-refresh cfbd 2024: 4 inserted, 0 updated, 0 unchanged, 0 rejected,"
                     r" 0 vanished, \d+ teams written \(2 HTTP requests\); next in 86400 s", log)
    assert KEY not in log
    # not due again: no request
    n = len(cfbd.requests)
    units, log = worker_once(db, *args)
    assert units == 0 and len(cfbd.requests) == n
    # due again: a conditional request, answered 304 (the team list is not due)
    db_sql(db, "UPDATE provider_sources SET next_at = 0 WHERE source = 'cfbd 2024'")
    worker_once(db, *args)
    path, headers = cfbd.requests[-1]
    assert path.startswith("/games") and headers.get("If-None-Match", "").startswith('"g')
    assert db_rows(db, "SELECT failures, last_outcome FROM provider_sources"
                       " WHERE source = 'cfbd 2024'")[0][1].startswith("not modified")


def test_nflverse_from_a_url_with_conditional_refresh(db, cfbd):
    url = cfbd.url + "/nflverse/games.csv"
    rep = sync(db, "--provider", "nflverse", url)
    assert rep["inserted"] == 11 and rep["httpRequests"] == 1
    # the worker: a first fetch, then (due again) a conditional one answered 304
    worker_once(db, "--games-nflverse", url)
    db_sql(db, "UPDATE provider_sources SET next_at = 0")
    worker_once(db, "--games-nflverse", url)
    (p1, h1), (p2, h2), (p3, h3) = cfbd.requests
    assert "Authorization" not in h1 and "If-None-Match" not in h2
    assert h3["If-None-Match"].startswith('"n')
    (outcome,), = db_rows(db, "SELECT last_outcome FROM provider_sources")
    assert outcome.startswith("not modified")


def test_worker_polls_the_scoreboard_while_a_cfbd_game_is_live(db, cfbd):
    from datetime import datetime, timedelta, timezone

    # a game that kicked off an hour ago: /games says only "not completed"
    kick = datetime.now(timezone.utc) - timedelta(hours=1)
    g = dict(cfbd.games[0], id=401700001, completed=False, homePoints=None, awayPoints=None,
             startDate=kick.strftime("%Y-%m-%dT%H:%M:%S.000Z"), startTimeTBD=False)
    cfbd.games.append(g)
    entry = json.loads(json.dumps(cfbd.scoreboard[0]))
    entry.update(id=401700001, status="in_progress", period=1, clock="3:00")
    entry["homeTeam"]["points"], entry["awayTeam"]["points"] = 7, 0
    cfbd.scoreboard = [entry]
    args = ("--games-cfbd-season", "2024", "--cfbd-url", cfbd.url, "--cfbd-key-file",
            cfbd.key_file, "--games-hot-seconds", "45")
    units, log = worker_once(db, *args)
    assert live_facts(db, "cfb:401700001") == ("live", 1, "3:00", 7, 0)
    assert "games-refresh cfbd-scoreboard: scoreboard: 1 updated, 0 unchanged, 0 rejected," \
           " 0 not stored (1 HTTP request); next in 45 s" in log
    assert KEY not in log
    assert len(cfbd.scoreboard_requests()) == 1

    # the next poll, when due: the clock moved, the second period
    entry.update(period=2, clock="11:09")
    entry["homeTeam"]["points"] = 10
    db_sql(db, "UPDATE provider_sources SET next_at = 0 WHERE source = 'cfbd-scoreboard'")
    worker_once(db, *args)
    assert live_facts(db, "cfb:401700001") == ("live", 2, "11:09", 10, 0)
    # not due: no request
    worker_once(db, *args)
    assert len(cfbd.scoreboard_requests()) == 2

    # a failure backs off like the other sources
    cfbd.sb_script = ["500", "500"]
    db_sql(db, "UPDATE provider_sources SET next_at = 0 WHERE source = 'cfbd-scoreboard'")
    worker_once(db, *args)
    (failures, outcome), = db_rows(db, "SELECT failures, last_outcome FROM provider_sources"
                                       " WHERE source = 'cfbd-scoreboard'")
    assert failures == 1 and "server error" in outcome

    # completed: final; then nothing is near and the scoreboard is no longer asked
    entry.update(status="completed", period=4, clock="0:00")
    db_sql(db, "UPDATE provider_sources SET next_at = 0")
    worker_once(db, *args)
    assert live_facts(db, "cfb:401700001") == ("final", 4, "0:00", 10, 0)
    n = len(cfbd.scoreboard_requests())
    db_sql(db, "UPDATE provider_sources SET next_at = 0")
    worker_once(db, *args)
    assert len(cfbd.scoreboard_requests()) == n
    # /games (still "not completed") did not bring the game back to live
    assert live_facts(db, "cfb:401700001")[0] == "final"


def test_worker_backs_off_after_429(db, cfbd):
    cfbd.script = ["429:3600"]
    t0 = time.time()
    worker_once(db, "--games-cfbd-season", "2024", "--cfbd-url", cfbd.url, "--cfbd-key-file",
                cfbd.key_file)
    (next_at, failures, outcome), = db_rows(
        db, "SELECT next_at, failures, last_outcome FROM provider_sources"
            " WHERE source = 'cfbd 2024'")
    assert failures == 1 and "rate limited" in outcome
    assert next_at >= (t0 + 3600) * 1e6
    assert db_rows(db, "SELECT count(*) FROM games") == [(0,)]


def test_worker_refresh_period_is_hot_while_a_game_is_near(db, tmp_path):
    from datetime import datetime, timedelta, timezone
    from zoneinfo import ZoneInfo

    text = (PROV / "nflverse-games.csv").read_text()
    csv_file = tmp_path / "games.csv"
    csv_file.write_text(text)
    worker_once(db, "--games-nflverse", csv_file, "--games-hot-seconds", "30")
    (next_at, checked), = db_rows(db, "SELECT next_at, checked_at FROM provider_sources")
    assert next_at - checked == 86400 * 10**6  # nothing near: the cold period

    # a game kicking off in an hour (nflverse times are US Eastern wall-clock times)
    kick = (datetime.now(timezone.utc) + timedelta(hours=1)).astimezone(
        ZoneInfo("America/New_York"))
    row = text.splitlines()[-1].split(",")
    row[0], row[1], row[4], row[6] = "2030_02_NYG_DAL", "2030", kick.strftime("%Y-%m-%d"), \
        kick.strftime("%H:%M")
    row[7], row[9] = "NYG", "DAL"
    csv_file.write_text(text + ",".join(row) + "\n")
    db_sql(db, "UPDATE provider_sources SET next_at = 0")
    worker_once(db, "--games-nflverse", csv_file, "--games-hot-seconds", "30")
    (next_at, checked, outcome), = db_rows(
        db, "SELECT next_at, checked_at, last_outcome FROM provider_sources")
    assert outcome.startswith("1 inserted, 0 updated, 11 unchanged")
    assert next_at - checked == 30 * 10**6


def test_worker_options_need_a_key(db):
    r = run_cli("worker", "--once", "--db", db, "--games-cfbd-season", "2024",
                env={"WHISTLE_CFBD_KEY": ""})
    assert r.returncode == 1 and "needs a key" in r.stderr


# ---------------------------------------------------------------- bundled samples


def test_bundled_samples_sync_through_the_real_path(db):
    root = Path(__file__).resolve().parents[2] / "data" / "providers"
    rep = sync(db, "--provider", "nflverse", root / "nflverse-sample.csv")
    assert rep["rejected"] == 0 and rep["inserted"] > 0
    rep = sync(db, "--provider", "cfbd", "--season", "2026", "--file", root / "cfbd-sample.json",
               "--teams-file", root / "cfbd-teams-sample.json")
    assert rep["rejected"] == 0 and rep["inserted"] > 0


def test_imported_games_are_never_taken_for_vanished_provider_games(server_factory):
    # the demo and the import format use nfl:/cfb: IDs too: a sync leaves them alone
    db = server_factory.new_db(doc="main.json")
    before = db_rows(db, "SELECT id, status, updated_at FROM games ORDER BY id")
    assert any(r[0].startswith("nfl:") for r in before)
    rep = sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    assert rep["vanished"] == 0 and rep["inserted"] == 11
    rep = sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-games.json")
    assert rep["vanished"] == 0 and rep["inserted"] == 4
    ids = tuple(r[0] for r in before)
    after = db_rows(db, "SELECT id, status, updated_at FROM games WHERE id IN (%s) ORDER BY id"
                    % ",".join("'%s'" % i for i in ids))
    assert after == before


def test_synced_games_are_served_by_the_api(server_factory, db):
    sync(db, "--provider", "nflverse", PROV / "nflverse-games.csv")
    sync(db, "--provider", "cfbd", "--season", "2024", "--file", PROV / "cfbd-games.json",
         "--teams-file", PROV / "cfbd-teams.json")
    s = server_factory.start(db=db)
    g = s.get("/api/v1/games/nfl:2024_22_KC_PHI").json()["data"]
    assert (g["homeTeam"]["name"], g["awayTeam"]["name"]) == ("Philadelphia Eagles",
                                                              "Kansas City Chiefs")
    assert (g["startsAt"], g["status"], g["seasonType"], g["stageLabel"], g["kickoffTbd"]) == (
        "2025-02-09T23:30:00Z", "final", "postseason", "Super Bowl", False)
    assert (g["period"], g["clock"], g["league"]) == (None, None, "nfl")
    tbd = s.get("/api/v1/games/cfb:401628540").json()["data"]
    assert (tbd["kickoffTbd"], tbd["startsAt"], tbd["league"]) == (True, "2024-11-30T05:00:00Z",
                                                                   "college")
    ids = [x["id"] for x in s.get("/api/v1/games?team_id=nfl-lv&limit=100").json()["data"]]
    assert ids == ["nfl:2019_01_DEN_OAK", "nfl:2024_09_LV_CIN"]
