#!/usr/bin/python3
"""Generate data/demo.json, Whistle's bundled demo data, in the import format
(docs/import-format.md).

    /usr/bin/python3 data/gen_demo.py            # check, then write data/demo.json
    /usr/bin/python3 data/gen_demo.py --check    # check the existing file only

The import rules are checked by Whistle itself: the document must pass
`whistle import FILE --dry-run` (build/whistle, or $WHISTLE_BIN; build it first with make).
The checks here are only the demo's own requirements. Enumerated values are read from
src/api/openapi.json, which the unit tests hold to src/domain/vocab.h.

Standard library only and deterministic: one seeded RNG, fixed timestamps, nothing read
from the clock. The demo's notional "now" is DEMO_NOW (Saturday 2026-11-21, 22:10 UTC):
the 2024 and 2025 seasons (2025 runs into Jan/Feb 2026) are played; a handful of 2026
games are final, live, delayed or upcoming around that date.

Real team names; every incident is fictional sample data, and every neutral_summary starts
with "Sample data: ". Every incident has a discussion whose visible comments number its
comment_count (Whistle derives the count on import), written by sample accounts whose
display names start with "Sample ", with the states moderation leaves (held, rejected,
deleted with replies, hidden by reports, featured, edited). Source URLs use the reserved .example TLD (RFC 2606), so no link
points at a real article.

Week numbers: college week 0..14 regular season, postseason rounds continue the count
(15 Conference Championship, 16 CFP First Round, 17 CFP Quarterfinal, 18 CFP Semifinal,
19 CFP National Championship; in 2026 the conference title games fall in week 14). NFL
preseason weeks 0 (Hall of Fame Game) to 3, regular weeks 1..18, postseason 19 Wild Card,
20 Divisional, 21 Conference Championship, 22 Super Bowl. Game ids are
"<cfb|nfl>:<season>-w<week>-<away>-<home>" ("p<week>" for the NFL preseason).

Special cases (titles are exact; the check at the end asserts each one):

  no-call debate (category no_call, final_ruling null, question_type no_call, 240 ballots)
      "No flag on end-zone contact during Ohio State's final drive"   game cfb:2024-w14-mich-osu
  question changed: question_version 2, question_history holds version 1 (superseded_at
  set), ballots (131) only for version 2
      "Sideline catch ruling on Chiefs' two-minute drive at Buffalo"  game nfl:2024-w11-kc-buf
  clarified labels: stored_option_labels Yes / No / Unsure, current labels Correct call /
  Wrong call / Not sure, question_version 1
      "Roughing-the-passer flag wipes out Steelers' third-down sack"  game nfl:2024-w11-bal-pit
  withdrawn (visibility withdrawn, 7 ballots)
      "Reported game-clock malfunction in Florida State's opener"     game cfb:2024-w00-smu-fsu
  merged duplicate -> survivor (same game cfb:2025-w14-tamu-tex)
      duplicate: "Goal-line sneak by Texas ruled short on fourth down"
      survivor:  "Texas fourth-down sneak spotted short at the goal line" (158 ballots)
  exactly 19 ballots
      "Illegal-formation flag wipes out Lions' fourth-down conversion"  game nfl:2025-w06-det-kc
  exactly 20 ballots
      "Timeout request denied before Georgia's fourth-down snap"        game cfb:2025-w08-miss-uga
  exactly 49 ballots
      "Toe-tap touchdown for Oregon confirmed at the back line"         game cfb:2024-w07-osu-ore
  exactly 50 ballots
      "Ten-second runoff ends the first half for the Bears in Philadelphia"
                                                                        game nfl:2025-w13-chi-phi
  86 ballots, rooting home 20 / away 10 / neutral 9 / undisclosed 31 / unspecified 16
      "Targeting ejection upheld for Alabama safety at Tennessee"       game cfb:2024-w08-ala-tenn
  300 ballots (largest)
      "Defensive holding flag extends the Eagles' drive in the Super Bowl"
                                                                        game nfl:2024-w22-phi-kc
  same published_at (2025-09-05T15:30:00Z), ordered by id
      "Kickoff return holding flag on Dallas in the season opener"
      "Replay confirms Eagles' sideline interception in the season opener"
                                                                        game nfl:2025-w01-dal-phi
  no debate question (has_verdict=false); a few generated incidents have none too
      "Officials hold the snap for an Oregon substitution against Ohio State"
  incident on a live game (developing, no sources)
      "Third-down spot debated as LSU is ruled short against Alabama"   game cfb:2026-w12-lsu-ala
"""

import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "demo.json")
SEED = 20241130
UTC = dt.timezone.utc
DEMO_NOW = dt.datetime(2026, 11, 21, 22, 10, 0, tzinfo=UTC)

T_NO_CALL = "No flag on end-zone contact during Ohio State's final drive"
T_VERSION2 = "Sideline catch ruling on Chiefs' two-minute drive at Buffalo"
T_CLARIFIED = "Roughing-the-passer flag wipes out Steelers' third-down sack"
T_WITHDRAWN = "Reported game-clock malfunction in Florida State's opener"
T_DUPLICATE = "Goal-line sneak by Texas ruled short on fourth down"
T_SURVIVOR = "Texas fourth-down sneak spotted short at the goal line"
T_B19 = "Illegal-formation flag wipes out Lions' fourth-down conversion"
T_B20 = "Timeout request denied before Georgia's fourth-down snap"
T_B49 = "Toe-tap touchdown for Oregon confirmed at the back line"
T_B50 = "Ten-second runoff ends the first half for the Bears in Philadelphia"
T_SUBGROUPS = "Targeting ejection upheld for Alabama safety at Tennessee"
T_B300 = "Defensive holding flag extends the Eagles' drive in the Super Bowl"
T_SAME_TS_1 = "Kickoff return holding flag on Dallas in the season opener"
T_SAME_TS_2 = "Replay confirms Eagles' sideline interception in the season opener"
T_NO_QUESTION = "Officials hold the snap for an Oregon substitution against Ohio State"
T_LIVE = "Third-down spot debated as LSU is ruled short against Alabama"
SAME_TS = "2025-09-05T15:30:00Z"
SUBGROUPS = {"home": 20, "away": 10, "neutral": 9, "undisclosed": 31, None: 16}

# The enumerated values come from the OpenAPI document, which tests/unit/test_domain_vocab.c
# holds to src/domain/vocab.h: no copy of the vocabulary lives here.
with open(os.path.join(ROOT, "src", "api", "openapi.json"), encoding="utf-8") as _f:
    _SCHEMAS = json.load(_f)["components"]["schemas"]


def vocabulary(schema, prop):
    return [v for v in _SCHEMAS[schema]["properties"][prop]["enum"] if v]


CATEGORIES = vocabulary("Incident", "category")
STATUSES = vocabulary("Incident", "status")
GAME_STATUSES = vocabulary("Game", "status")
SEASON_TYPES = vocabulary("Game", "seasonType")
SOURCE_KINDS = vocabulary("Source", "source_kind")
ORIGINS = vocabulary("Incident", "origin_kind")
ROOTINGS = vocabulary("Ballot", "rooting") + [None]
GAME_RECORD = "Game record: establishes game context, not the disputed act"

rng = random.Random(SEED)


def new_uuid():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def ts(d):
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(s):
    return dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def hyphenate(text):
    """Words joined for a URL path segment or an explicit slug in the document: ASCII letters
    and digits lower-cased, joined by "-", at most 80 characters. Not Whistle's slug rule
    (that lives once, in src/domain/ids.c slug_from_title, and the import applies it to
    every incident without a slug): an explicit slug here is data, which `whistle import
    --dry-run` checks like any other document's."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)]
    out = ""
    for w in words:
        joined = w if not out else out + "-" + w
        if len(joined) > 80:
            return out or w[:80]
        out = joined
    return out


# ---------------------------------------------------------------------------------------
# Teams

COLLEGE = [
    # id suffix, name, shortName, abbreviation, conference, aliases
    ("ohio-state", "Ohio State Buckeyes", "Ohio State", "OSU", "Big Ten", ["Buckeyes"]),
    ("michigan", "Michigan Wolverines", "Michigan", "MICH", "Big Ten", ["Wolverines"]),
    ("penn-state", "Penn State Nittany Lions", "Penn State", "PSU", "Big Ten",
     ["Nittany Lions"]),
    ("oregon", "Oregon Ducks", "Oregon", "ORE", "Big Ten", ["Ducks"]),
    ("usc", "USC Trojans", "USC", "USC", "Big Ten", ["Trojans", "Southern California"]),
    ("washington", "Washington Huskies", "Washington", "WASH", "Big Ten", ["Huskies", "UW"]),
    ("wisconsin", "Wisconsin Badgers", "Wisconsin", "WIS", "Big Ten", ["Badgers"]),
    ("iowa", "Iowa Hawkeyes", "Iowa", "IOWA", "Big Ten", ["Hawkeyes"]),
    ("georgia", "Georgia Bulldogs", "Georgia", "UGA", "SEC", ["Bulldogs", "Dawgs"]),
    ("alabama", "Alabama Crimson Tide", "Alabama", "ALA", "SEC", ["Crimson Tide", "Bama"]),
    ("texas", "Texas Longhorns", "Texas", "TEX", "SEC", ["Longhorns"]),
    ("lsu", "LSU Tigers", "LSU", "LSU", "SEC", ["Tigers", "Louisiana State"]),
    ("tennessee", "Tennessee Volunteers", "Tennessee", "TENN", "SEC", ["Volunteers", "Vols"]),
    ("ole-miss", "Ole Miss Rebels", "Ole Miss", "MISS", "SEC", ["Rebels", "Mississippi"]),
    ("florida", "Florida Gators", "Florida", "FLA", "SEC", ["Gators"]),
    ("texas-am", "Texas A&M Aggies", "Texas A&M", "TAMU", "SEC", ["Aggies"]),
    ("clemson", "Clemson Tigers", "Clemson", "CLEM", "ACC", ["Tigers"]),
    ("miami", "Miami Hurricanes", "Miami", "MIA", "ACC", ["Hurricanes", "The U"]),
    ("florida-state", "Florida State Seminoles", "Florida State", "FSU", "ACC",
     ["Seminoles", "Noles"]),
    ("smu", "SMU Mustangs", "SMU", "SMU", "ACC", ["Mustangs", "Southern Methodist"]),
    ("notre-dame", "Notre Dame Fighting Irish", "Notre Dame", "ND", "FBS Independents",
     ["Fighting Irish", "Irish"]),
    ("boise-state", "Boise State Broncos", "Boise State", "BSU", "Mountain West", ["Broncos"]),
    ("arizona-state", "Arizona State Sun Devils", "Arizona State", "ASU", "Big 12",
     ["Sun Devils"]),
    ("utah", "Utah Utes", "Utah", "UTAH", "Big 12", ["Utes"]),
]

NFL = [
    # abbreviation, name, shortName, conference, division, aliases
    ("KC", "Kansas City Chiefs", "Chiefs", "AFC", "AFC West", ["Kansas City"]),
    ("DEN", "Denver Broncos", "Broncos", "AFC", "AFC West", ["Denver"]),
    ("LV", "Las Vegas Raiders", "Raiders", "AFC", "AFC West", ["Las Vegas"]),
    ("BAL", "Baltimore Ravens", "Ravens", "AFC", "AFC North", ["Baltimore"]),
    ("PIT", "Pittsburgh Steelers", "Steelers", "AFC", "AFC North", ["Pittsburgh"]),
    ("CIN", "Cincinnati Bengals", "Bengals", "AFC", "AFC North", ["Cincinnati"]),
    ("CLE", "Cleveland Browns", "Browns", "AFC", "AFC North", ["Cleveland"]),
    ("BUF", "Buffalo Bills", "Bills", "AFC", "AFC East", ["Buffalo"]),
    ("MIA", "Miami Dolphins", "Dolphins", "AFC", "AFC East", ["Miami", "Fins"]),
    ("HOU", "Houston Texans", "Texans", "AFC", "AFC South", ["Houston"]),
    ("PHI", "Philadelphia Eagles", "Eagles", "NFC", "NFC East", ["Philadelphia", "Birds"]),
    ("DAL", "Dallas Cowboys", "Cowboys", "NFC", "NFC East", ["Dallas"]),
    ("SF", "San Francisco 49ers", "49ers", "NFC", "NFC West", ["San Francisco", "Niners"]),
    ("SEA", "Seattle Seahawks", "Seahawks", "NFC", "NFC West", ["Seattle"]),
    ("LAR", "Los Angeles Rams", "Rams", "NFC", "NFC West", ["LA Rams"]),
    ("DET", "Detroit Lions", "Lions", "NFC", "NFC North", ["Detroit"]),
    ("GB", "Green Bay Packers", "Packers", "NFC", "NFC North", ["Green Bay", "Pack"]),
    ("MIN", "Minnesota Vikings", "Vikings", "NFC", "NFC North", ["Minnesota", "Vikes"]),
    ("CHI", "Chicago Bears", "Bears", "NFC", "NFC North", ["Chicago"]),
    ("TB", "Tampa Bay Buccaneers", "Buccaneers", "NFC", "NFC South", ["Tampa Bay", "Bucs"]),
]

TEAMS = {}   # id -> Team object
ABBR = {}    # (league, lowercase abbreviation) -> team id
for suffix, name, short, abbr, conf, aliases in COLLEGE:
    tid = "cfb-" + suffix
    TEAMS[tid] = {"id": tid, "name": name, "abbreviation": abbr, "logoUrl": None,
                  "conference": conf, "league": "college", "division": None,
                  "shortName": short, "active": True, "aliases": aliases}
    ABBR[("college", abbr.lower())] = tid
for abbr, name, short, conf, div, aliases in NFL:
    tid = "nfl-" + abbr.lower()
    TEAMS[tid] = {"id": tid, "name": name, "abbreviation": abbr, "logoUrl": None,
                  "conference": conf, "league": "nfl", "division": div,
                  "shortName": short, "active": True, "aliases": aliases}
    ABBR[("nfl", abbr.lower())] = tid

COLLEGE_IDS = ["cfb-" + c[0] for c in COLLEGE]
NFL_IDS = ["nfl-" + n[0].lower() for n in NFL]
AFC = [t for t in NFL_IDS if TEAMS[t]["conference"] == "AFC"]
NFC = [t for t in NFL_IDS if TEAMS[t]["conference"] == "NFC"]


def team(league, abbr):
    return ABBR[(league, abbr)]


def code(tid):
    return TEAMS[tid]["abbreviation"].lower()


# ---------------------------------------------------------------------------------------
# Calendar: kickoffs are chosen in US Eastern local time and converted to UTC.

def us_dst(d):
    """True when US daylight saving time is in effect on date d (rules since 2007)."""
    march = dt.date(d.year, 3, 1)
    start = march + dt.timedelta(days=(6 - march.weekday()) % 7 + 7)   # 2nd Sunday of March
    nov = dt.date(d.year, 11, 1)
    end = nov + dt.timedelta(days=(6 - nov.weekday()) % 7)              # 1st Sunday of Nov
    return start <= d < end


def eastern(day, hhmm):
    """UTC datetime of local Eastern time hhmm ("19:30") on date day."""
    h, m = map(int, hhmm.split(":"))
    offset = 4 if us_dst(day) else 5
    return dt.datetime(day.year, day.month, day.day, h, m, tzinfo=UTC) + dt.timedelta(
        hours=offset)


CFB_WEEK1_SAT = {2024: dt.date(2024, 8, 31), 2025: dt.date(2025, 8, 30),
                 2026: dt.date(2026, 9, 5)}
NFL_WEEK1_SUN = {2024: dt.date(2024, 9, 8), 2025: dt.date(2025, 9, 7),
                 2026: dt.date(2026, 9, 13)}
NFL_PRE_SUN = {2024: dt.date(2024, 8, 4), 2025: dt.date(2025, 8, 3)}  # + 7 * week
SCHEDULE_RELEASED = {
    ("college", 2024): dt.datetime(2024, 2, 6, 16, 0, tzinfo=UTC),
    ("college", 2025): dt.datetime(2025, 1, 28, 16, 0, tzinfo=UTC),
    ("college", 2026): dt.datetime(2026, 1, 27, 16, 0, tzinfo=UTC),
    ("nfl", 2024): dt.datetime(2024, 5, 15, 23, 0, tzinfo=UTC),
    ("nfl", 2025): dt.datetime(2025, 5, 14, 23, 0, tzinfo=UTC),
    ("nfl", 2026): dt.datetime(2026, 5, 13, 23, 0, tzinfo=UTC),
}

# College postseason: round -> (week, stage label, anchor date per season, slots).
# A slot is (days from the anchor, Eastern time).
CFB_POST = {
    "ccg": (15, "Conference Championship",
            {2024: dt.date(2024, 12, 7), 2025: dt.date(2025, 12, 6)},
            [(-1, "20:00"), (0, "12:00"), (0, "16:00"), (0, "20:00")]),
    "cfp1": (16, "CFP First Round",
             {2024: dt.date(2024, 12, 21), 2025: dt.date(2025, 12, 20)},
             [(-1, "20:00"), (0, "12:00"), (0, "16:00"), (0, "20:00")]),
    "cfpqf": (17, "CFP Quarterfinal",
              {2024: dt.date(2025, 1, 1), 2025: dt.date(2026, 1, 1)},
              [(-1, "19:30"), (0, "13:00"), (0, "17:00"), (0, "20:45")]),
    "cfpsf": (18, "CFP Semifinal",
              {2024: dt.date(2025, 1, 9), 2025: dt.date(2026, 1, 8)},
              [(0, "19:30"), (1, "19:30")]),
    "cfpnc": (19, "CFP National Championship",
              {2024: dt.date(2025, 1, 20), 2025: dt.date(2026, 1, 19)},
              [(0, "19:30")]),
}
NFL_POST = {
    "wc": (19, "Wild Card", {2024: dt.date(2025, 1, 12), 2025: dt.date(2026, 1, 11)},
           [(-1, "16:30"), (-1, "20:00"), (0, "13:00"), (0, "16:30")]),
    "div": (20, "Divisional", {2024: dt.date(2025, 1, 19), 2025: dt.date(2026, 1, 18)},
            [(-1, "16:30"), (-1, "20:00"), (0, "15:00"), (0, "18:30")]),
    "conf": (21, "Conference Championship",
             {2024: dt.date(2025, 1, 26), 2025: dt.date(2026, 1, 25)},
             [(0, "15:00"), (0, "18:30")]),
    "sb": (22, "Super Bowl", {2024: dt.date(2025, 2, 9), 2025: dt.date(2026, 2, 8)},
           [(0, "18:30")]),
}

# Marquee games placed before the random fill: (league, season, week, away, home,
# day offset from the week anchor, Eastern time, fixed (away, home) score or None).
FORCED = [
    ("college", 2024, 0, "smu", "fsu", 0, "12:00", None),
    ("college", 2024, 7, "osu", "ore", 0, "19:30", (31, 32)),
    ("college", 2024, 8, "ala", "tenn", 0, "15:30", None),
    ("college", 2024, 14, "mich", "osu", 0, "12:00", (13, 10)),
    ("college", 2025, 8, "miss", "uga", 0, "15:30", None),
    ("college", 2025, 14, "tamu", "tex", -1, "19:30", None),
    ("college", 2025, 14, "osu", "mich", 0, "12:00", None),
    ("nfl", 2024, 1, "bal", "kc", -3, "20:20", (20, 27)),
    ("nfl", 2024, 11, "kc", "buf", 0, "16:25", None),
    ("nfl", 2024, 11, "bal", "pit", 0, "13:00", None),
    ("nfl", 2025, 1, "dal", "phi", -3, "20:20", None),
    ("nfl", 2025, 6, "det", "kc", 0, "20:20", None),
    ("nfl", 2025, 13, "chi", "phi", -2, "15:00", None),
]

# ---------------------------------------------------------------------------------------
# Games

GAMES = {}       # id -> Game
GAME_ORDER = []


def points(league):
    if league == "nfl":
        tds = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5])
        fgs = rng.choice([0, 1, 1, 2, 2, 3, 4])
    else:
        tds = rng.choice([1, 2, 3, 3, 4, 4, 5, 5, 6, 7])
        fgs = rng.choice([0, 1, 1, 2, 3])
    pts = 7 * tds + 3 * fgs
    if tds and rng.random() < 0.08:
        pts -= 1   # missed extra point
    return pts


def final_score(league, winner=None):
    """(away, home) with no tie; winner "home"/"away" forces the result."""
    while True:
        a, h = points(league), points(league)
        if a != h:
            break
    if winner == "home" and h < a or winner == "away" and a < h:
        a, h = h, a
    return a, h


def game_id(league, season, week, away, home, season_type):
    prefix = "cfb" if league == "college" else "nfl"
    w = ("p%02d" if season_type == "preseason" else "w%02d") % week
    return "%s:%d-%s-%s-%s" % (prefix, season, w, code(away), code(home))


def add_game(league, season, week, away, home, starts, season_type="regular", stage=None,
             score=None, status="final", kickoff_tbd=False, created=None):
    assert away != home
    gid = game_id(league, season, week, away, home, season_type)
    assert gid not in GAMES, gid
    if created is None:
        created = SCHEDULE_RELEASED[(league, season)]
        if season_type == "postseason":
            days = 13 if stage in ("CFP First Round", "Super Bowl") else 6
            created = (starts - dt.timedelta(days=days)).replace(hour=17, minute=0, second=0)
    g = {
        "id": gid, "homeTeam": {"id": home}, "awayTeam": {"id": away},
        "homeScore": None, "awayScore": None,
        "startsAt": ts(starts) if starts else None, "kickoffTbd": kickoff_tbd,
        "period": None, "clock": None, "status": status,
        "season": season, "week": week, "league": league,
        "seasonType": season_type, "stageLabel": stage,
        "createdAt": ts(created), "updatedAt": None,
    }
    if status == "final":
        a, h = score if score else final_score(league)
        g.update(awayScore=a, homeScore=h, period=4, clock="0:00")
        g["updatedAt"] = ts(starts + dt.timedelta(hours=3, minutes=rng.randint(8, 55),
                                                  seconds=rng.randint(0, 59)))
    else:
        g["updatedAt"] = ts(max(created, DEMO_NOW - dt.timedelta(
            hours=rng.randint(2, 60), minutes=rng.randint(0, 59))))
    GAMES[gid] = g
    GAME_ORDER.append(gid)
    return gid


def winner_of(gid):
    g = GAMES[gid]
    return g["homeTeam"]["id"] if g["homeScore"] > g["awayScore"] else g["awayTeam"]["id"]


def fill_week(league, season, week, anchor, slots, n_games, pool, season_type="regular",
              stage=None):
    """Forced games of this week first, then random pairings from pool on the free slots."""
    slots = list(slots)
    busy = set()
    for (lg, se, wk, away, home, day, hhmm, score) in FORCED:
        if (lg, se, wk) != (league, season, week) or season_type != "regular":
            continue
        a, h = team(league, away), team(league, home)
        if (day, hhmm) in slots:
            slots.remove((day, hhmm))
        else:
            slots.pop()
        add_game(league, season, week, a, h, eastern(anchor + dt.timedelta(days=day), hhmm),
                 season_type, stage, score)
        busy.update((a, h))
    free = [t for t in pool if t not in busy]
    rng.shuffle(free)
    n_random = n_games - len(busy) // 2
    for i in range(n_random):
        away, home = free[2 * i], free[2 * i + 1]
        day, hhmm = slots[i]
        add_game(league, season, week, away, home,
                 eastern(anchor + dt.timedelta(days=day), hhmm), season_type, stage)


CFB_SLOT_POOL = [(0, "12:00"), (0, "12:00"), (0, "15:30"), (0, "15:30"), (0, "16:00"),
                 (0, "19:00"), (0, "19:30"), (0, "19:30"), (0, "22:30"), (-1, "19:00"),
                 (-1, "20:00")]


def college_season(season):
    sat1 = CFB_WEEK1_SAT[season]
    fill_week("college", season, 0, sat1 - dt.timedelta(days=7),
              [(0, "12:00"), (0, "19:00")], 2, COLLEGE_IDS)
    for week in range(1, 15):
        anchor = sat1 + dt.timedelta(days=7 * (week - 1))
        if week == 1:
            slots = [(-2, "19:00"), (0, "12:00"), (0, "15:30"), (0, "19:30"), (2, "20:00")]
        else:
            slots = sorted(rng.sample(CFB_SLOT_POOL, 5))
        fill_week("college", season, week, anchor, slots, 5, COLLEGE_IDS)

    def post(rnd, pairs):
        week, stage, anchors, slots = CFB_POST[rnd]
        out = []
        for (away, home, winner), (day, hhmm) in zip(pairs, slots):
            starts = eastern(anchors[season] + dt.timedelta(days=day), hhmm)
            out.append(add_game("college", season, week, away, home, starts, "postseason",
                                stage, final_score("college", winner)))
        return out

    champs = []
    for conf in ("Big Ten", "SEC", "ACC", "Big 12"):
        members = [t for t in COLLEGE_IDS if TEAMS[t]["conference"] == conf]
        a, h = rng.sample(members, 2)
        champs.append((a, h, None))
    ccg = post("ccg", champs)
    top4 = [winner_of(g) for g in ccg]
    rng.shuffle(top4)
    rest = [t for t in COLLEGE_IDS if t not in top4]
    seeds = top4 + rng.sample(rest, 8)           # seeds[0] is the 1 seed
    fr = post("cfp1", [(seeds[11 - k], seeds[4 + k], None) for k in range(4)])
    # 1 v 8/9, 2 v 7/10, 3 v 6/11, 4 v 5/12; the higher seed is the designated home team
    qf = post("cfpqf", [(winner_of(fr[3 - k]), seeds[k], None) for k in range(4)])
    sf = post("cfpsf", [(winner_of(qf[3]), winner_of(qf[0]), None),
                        (winner_of(qf[2]), winner_of(qf[1]), None)])
    post("cfpnc", [(winner_of(sf[1]), winner_of(sf[0]), None)])


NFL_DEFAULT_SLOTS = [(-3, "20:15"), (0, "13:00"), (0, "16:25"), (0, "20:20")]


def nfl_season(season, afc_seeds, nfc_seeds, forced_winners=(), sb=None):
    pre = NFL_PRE_SUN[season]
    if season == 2024:   # Hall of Fame Game, Thursday 1 August, 8 p.m. Eastern
        add_game("nfl", 2024, 0, team("nfl", "chi"), team("nfl", "hou"),
                 eastern(dt.date(2024, 8, 1), "20:00"), "preseason", "Hall of Fame Game",
                 (17, 21))
    for week in (1, 2, 3):
        anchor = pre + dt.timedelta(days=7 * week)
        fill_week("nfl", season, week, anchor, [(-3, "19:00"), (-1, "19:00"), (0, "16:00")],
                  3, NFL_IDS, "preseason")
    sun1 = NFL_WEEK1_SUN[season]
    for week in range(1, 19):
        anchor = sun1 + dt.timedelta(days=7 * (week - 1))
        if week == 1:
            slots = [(-3, "20:20"), (0, "13:00"), (0, "16:25"), (1, "20:15")]
        elif week == 13:
            slots = [(-3, "12:30"), (-3, "16:30"), (-3, "20:20"), (-2, "15:00")]
        elif week == 18:
            slots = [(-1, "16:30"), (-1, "20:00"), (0, "13:00"), (0, "16:25")]
        else:
            slots = list(NFL_DEFAULT_SLOTS)
            if week % 2:
                slots[3] = (1, "20:15")   # Monday night instead of Sunday night
            if week % 3 == 0:
                slots[2] = (0, "16:05")
        fill_week("nfl", season, week, anchor, slots, 4, NFL_IDS)

    def play(rnd, pairs):
        week, stage, anchors, slots = NFL_POST[rnd]
        out = []
        for (away, home), (day, hhmm) in zip(pairs, slots):
            starts = eastern(anchors[season] + dt.timedelta(days=day), hhmm)
            winner = None
            if away in forced_winners:
                winner = "away"
            elif home in forced_winners:
                winner = "home"
            score = sb if rnd == "sb" and sb else final_score("nfl", winner)
            out.append(add_game("nfl", season, week, away, home, starts, "postseason", stage,
                                score))
        return out

    seeds = {"AFC": afc_seeds, "NFC": nfc_seeds}
    rank = {t: i for s in seeds.values() for i, t in enumerate(s)}
    wc = play("wc", [(s[5], s[2]) for s in seeds.values()] +
              [(s[4], s[3]) for s in seeds.values()])
    div_pairs = []
    for conf, s in seeds.items():
        alive = sorted([winner_of(g) for g in wc if TEAMS[winner_of(g)]["conference"] == conf],
                       key=rank.get)
        div_pairs += [(alive[1], s[0]), (alive[0], s[1])]
    div = play("div", div_pairs)
    conf_pairs = []
    for conf in seeds:
        alive = sorted([winner_of(g) for g in div if TEAMS[winner_of(g)]["conference"] == conf],
                       key=rank.get)
        conf_pairs.append((alive[1], alive[0]))
    cc = play("conf", conf_pairs)
    afc_champ, nfc_champ = winner_of(cc[0]), winner_of(cc[1])
    # AFC is the designated home team in odd-numbered Super Bowls (LIX after 2024)
    if season % 2 == 0:
        play("sb", [(nfc_champ, afc_champ)])
    else:
        play("sb", [(afc_champ, nfc_champ)])


def nfl_seeds(conf_ids, first=()):
    rest = [t for t in conf_ids if t not in first]
    return list(first) + rng.sample(rest, 6 - len(first))


college_season(2024)
nfl_season(2024, nfl_seeds(AFC, [team("nfl", "kc"), team("nfl", "buf")]),
           nfl_seeds(NFC, [team("nfl", "det"), team("nfl", "phi")]),
           forced_winners=(team("nfl", "kc"), team("nfl", "phi")), sb=(40, 22))
college_season(2025)
nfl_season(2025, nfl_seeds(AFC), nfl_seeds(NFC))


def add_2026():
    c, n = "college", "nfl"
    sat = dt.date(2026, 11, 21)
    fixed = [
        # league, week, away, home, kickoff, status, score, period, clock, kickoffTbd
        (c, 12, "wis", "iowa", eastern(sat, "12:00"), "final", (17, 20), None, None, False),
        (c, 12, "fsu", "fla", eastern(sat, "12:00"), "final", (24, 31), None, None, False),
        (c, 12, "ore", "wash", eastern(sat, "14:00"), "live", (28, 24), 4, "3:27", False),
        (c, 12, "lsu", "ala", eastern(sat, "15:30"), "live", (10, 14), 2, "5:02", False),
        (c, 12, "clem", "mia", eastern(sat, "15:30"), "live", (7, 3), 2, "11:40", False),
        (c, 12, "psu", "mich", eastern(sat, "15:30"), "delayed", (3, 0), 1, "6:12", False),
        (c, 12, "tex", "tenn", eastern(sat, "19:30"), "upcoming", None, None, None, False),
        (c, 12, "utah", "asu", eastern(sat, "22:30"), "upcoming", None, None, None, False),
        (n, 11, "gb", "chi", eastern(dt.date(2026, 11, 22), "13:00"), "upcoming", None, None,
         None, False),
        (n, 11, "buf", "kc", eastern(dt.date(2026, 11, 22), "16:25"), "upcoming", None, None,
         None, False),
        (n, 12, "chi", "det", eastern(dt.date(2026, 11, 26), "12:30"), "upcoming", None, None,
         None, False),
        (n, 12, "phi", "dal", eastern(dt.date(2026, 11, 26), "16:30"), "upcoming", None, None,
         None, False),
        (n, 12, "cin", "bal", eastern(dt.date(2026, 11, 26), "20:20"), "upcoming", None, None,
         None, False),
        (c, 13, "mich", "osu", dt.datetime(2026, 11, 28, tzinfo=UTC), "upcoming", None, None,
         None, True),
        (c, 13, "fla", "fsu", dt.datetime(2026, 11, 28, tzinfo=UTC), "upcoming", None, None,
         None, True),
        (n, 15, "den", "kc", dt.datetime(2026, 12, 19, tzinfo=UTC), "upcoming", None, None,
         None, True),
        (n, 17, "sf", "sea", None, "upcoming", None, None, None, True),
    ]
    for league, week, away, home, starts, status, score, period, clock, tbd in fixed:
        gid = add_game(league, 2026, week, team(league, away), team(league, home), starts,
                       status=status, kickoff_tbd=tbd,
                       score=score if status == "final" else None)
        g = GAMES[gid]
        if status in ("live", "delayed"):
            g.update(awayScore=score[0], homeScore=score[1], period=period, clock=clock,
                     updatedAt=ts(DEMO_NOW - dt.timedelta(seconds=rng.randint(5, 90))))


add_2026()

# Odd statuses on otherwise ordinary past games (never games that carry incidents).
FORCED_IDS = set()
for (lg, se, wk, away, home, day, hhmm, score) in FORCED:
    FORCED_IDS.add(game_id(lg, se, wk, team(lg, away), team(lg, home), "regular"))


def pick_game(league, season, week, season_type="regular"):
    cands = [gid for gid in GAME_ORDER
             if GAMES[gid]["league"] == league and GAMES[gid]["season"] == season
             and GAMES[gid]["week"] == week and GAMES[gid]["seasonType"] == season_type
             and GAMES[gid]["status"] == "final" and gid not in FORCED_IDS]
    return GAMES[rng.choice(cands)]


def blank(g, status, updated):
    g.update(status=status, homeScore=None, awayScore=None, period=None, clock=None,
             updatedAt=ts(updated))


ODD = {}
g = pick_game("college", 2024, 7)                 # hurricane: postponed, date kept
blank(g, "postponed", parse_ts(g["startsAt"]) - dt.timedelta(days=2, hours=3))
ODD["postponed (kickoff kept)"] = g["id"]
g = pick_game("nfl", 2025, 9)                      # postponed, new date unknown
blank(g, "postponed", parse_ts(g["startsAt"]) - dt.timedelta(hours=20))
g.update(startsAt=None, kickoffTbd=True)
ODD["postponed (unknown kickoff)"] = g["id"]
g = pick_game("college", 2024, 6)
blank(g, "canceled", parse_ts(g["startsAt"]) - dt.timedelta(days=1, hours=5))
ODD["canceled"] = g["id"]
g = pick_game("nfl", 2025, 2, "preseason")        # preseason game called off for weather
blank(g, "canceled", parse_ts(g["startsAt"]) + dt.timedelta(minutes=50))
ODD["canceled (preseason)"] = g["id"]
g = pick_game("college", 2025, 4)                  # provider never sent a result
blank(g, "unknown", parse_ts(g["startsAt"]) + dt.timedelta(hours=6))
ODD["unknown (kickoff known)"] = g["id"]
g = pick_game("nfl", 2024, 9)                      # provider record without schedule data
blank(g, "unknown", parse_ts(g["createdAt"]) + dt.timedelta(days=30))
g.update(startsAt=None, seasonType="unknown")
ODD["unknown (unknown kickoff, seasonType unknown)"] = g["id"]

# ---------------------------------------------------------------------------------------
# Incident templates. {off}/{def}: team as a modifier ("Ohio State", "Chiefs"); {offn},
# {defn}: as a noun ("Ohio State", "the Chiefs"); capitalised forms {Offn}, {Defn}.
# Values that differ by league are {"college": ..., "nfl": ...}.

CC = ("Correct call", "Wrong call", "Not sure")
NO_CALL_LABELS = ("Flag should have been thrown", "No flag was right", "Not sure")

TEMPLATES = [
    # ---------------------------------------------------------------- penalty
    dict(cat="penalty", leagues="both", topic="pass interference flag",
         title="Late pass interference flag on {def} sets up {off} touchdown",
         play="On third-and-{dist} from the {def} {yl}, the {off} quarterback threw deep down "
              "the right sideline. The {def} cornerback (No. {n1}) and the receiver (No. {n2}) "
              "made contact as the ball arrived, and the back judge flagged defensive pass "
              "interference.",
         summary="a defensive pass interference flag against {defn} on a deep third-down "
                 "throw stood, and {offn} scored two plays later. Discussion centres on "
                 "whether the contact came before the ball arrived.",
         orig={"college": "Defensive pass interference, 15 yards and automatic first down",
               "nfl": "Defensive pass interference, spot foul and automatic first down"},
         final="Defensive pass interference enforced as called",
         replay=False, pen=True, cons="{Offn} scored a touchdown two plays later.",
         q=("Was the defensive pass interference call correct?",) + CC, fc=(3, None),
         rule={"college": "NCAA Football Rules: Rule 7-3 (pass interference)",
               "nfl": "NFL Rulebook: Rule 8, Section 5 (pass interference)"}),
    dict(cat="penalty", leagues="both", topic="roughing-the-passer call",
         title="Roughing-the-passer flag extends {off} drive on third down",
         play="On third-and-{dist}, the {def} edge rusher (No. {n1}) reached the {off} "
              "quarterback a step after the release and took him to the ground. The pass fell "
              "incomplete, and the referee announced roughing the passer for landing with "
              "body weight.",
         summary="a third-down incompletion became a {off} first down after a "
                 "roughing-the-passer flag on {defn}. Replays are debated over whether the "
                 "rusher could have avoided landing on the quarterback.",
         orig="Roughing the passer, 15 yards and automatic first down",
         final="Roughing the passer enforced; {off} first down",
         replay=False, pen=True, cons="{Offn} kept the ball and kicked a field goal on the drive.",
         q=("Was the roughing-the-passer call correct?",) + CC, fc=(3, None),
         rule={"college": "NCAA Football Rules: Rule 9-1 (roughing the passer)",
               "nfl": "NFL Rulebook: Rule 12, Section 2 (roughing the passer)"}),
    dict(cat="penalty", leagues="both", topic="holding flag on the punt return",
         title="Holding flag wipes out {off} punt return touchdown",
         play="A {off} returner fielded a punt at his own {yl} and ran it back for an apparent "
              "touchdown. The back judge flagged a {off} blocker (No. {n1}) for holding a "
              "{def} gunner near midfield, away from the ball carrier.",
         summary="a {off} punt return touchdown was called back for holding by the return "
                 "team. The debate is whether the block near midfield was a hold and whether "
                 "it affected the return.",
         orig="Holding on the receiving team; touchdown nullified",
         final="Holding enforced from the spot of the foul; {off} ball near midfield",
         replay=False, pen=True,
         cons="{Offn} began the drive near midfield instead of scoring and later punted.",
         q=("Was the holding call on the return correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 9-3 (holding)",
               "nfl": "NFL Rulebook: Rule 12, Section 1 (holding)"}),
    dict(cat="penalty", leagues="both", topic="unsportsmanlike conduct flag",
         title="Unsportsmanlike conduct flag after {off} touchdown celebration",
         play="After a {dist}-yard touchdown catch, the {off} receiver (No. {n2}) turned toward "
              "the {def} sideline and gestured. An official flagged unsportsmanlike conduct, "
              "and the yardage was enforced on the ensuing kickoff.",
         summary="a {off} receiver was flagged for unsportsmanlike conduct after a "
                 "touchdown; the score counted and the kickoff was moved back. Opinions split "
                 "over whether the gesture was aimed at opponents.",
         orig="Unsportsmanlike conduct, 15 yards enforced on the kickoff",
         final="Unsportsmanlike conduct enforced on the kickoff; touchdown stands",
         replay=False, pen=True,
         cons="{Defn} started the next drive near midfield after the shortened kickoff.",
         q=("Was the unsportsmanlike conduct call correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 9-2 (unsportsmanlike conduct)",
               "nfl": "NFL Rulebook: Rule 12, Section 3 (unsportsmanlike conduct)"}),
    dict(cat="penalty", leagues="nfl", topic="illegal formation flag",
         title="Illegal-formation flag negates {off} fourth-down conversion",
         play="On fourth-and-{dist} near midfield, {offn} converted with a quick pass to the "
              "flat. The line judge flagged illegal formation: a receiver (No. {n2}) was set "
              "off the line, leaving six players on it.",
         summary="a {off} fourth-down conversion was wiped out by an illegal-formation flag, "
                 "and {offn} punted after the five-yard penalty. The discussion is about the "
                 "receiver's alignment.",
         orig="Illegal formation, 5 yards, replay fourth down",
         final="Illegal formation enforced; {off} punted on the next play",
         replay=False, pen=True, cons="{Offn} punted instead of keeping the drive alive.",
         q=("Was the illegal formation call correct?",) + CC, fc=(4, None),
         rule={"nfl": "NFL Rulebook: Rule 5, Section 2 (players on the line of scrimmage)"}),
    dict(cat="penalty", leagues="college", topic="ineligible-downfield flag",
         title="Ineligible-downfield flag erases {off} screen-pass touchdown",
         play="{Offn} threw a bubble screen that went {dist} yards for a touchdown. An official "
              "flagged the {off} right guard (No. {ol}) for being more than three yards "
              "downfield when the pass was thrown.",
         summary="a {off} screen-pass touchdown was nullified for an ineligible player "
                 "downfield. The debate is whether the pass was caught behind the line, where "
                 "the restriction would not apply.",
         orig="Ineligible player downfield on a pass, 5 yards; touchdown nullified",
         final="Foul enforced; officials ruled the pass crossed the neutral zone",
         replay=False, pen=True, cons="{Offn} settled for a field goal on the drive.",
         q=("Was the ineligible man downfield call correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 7-3 (ineligible receivers downfield)"}),
    dict(cat="penalty", leagues="both", topic="facemask flag",
         title="Facemask flag on {def} tackle sets up {off} field goal",
         play="A {def} linebacker (No. {n1}) tackled the {off} running back (No. {n2}) after a "
              "short gain, and his hand appeared to slide across the facemask. The umpire "
              "flagged a facemask foul.",
         summary="a facemask penalty on {defn} turned a short run into a {off} first down "
                 "inside the {def} 30. Fans disagree over whether the grasp twisted the mask "
                 "or only brushed it.",
         orig="Grasping and controlling the facemask, 15 yards",
         final="Facemask foul enforced; {off} first down",
         replay=False, pen=True, cons="{Offn} kicked a field goal four plays later.",
         q=("Was the facemask call correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 9-1 (grasping the face mask)",
               "nfl": "NFL Rulebook: Rule 12, Section 2 (facemask)"}),
    # ---------------------------------------------------------------- replay
    dict(cat="replay", leagues="both", topic="fumble reversed to an incompletion",
         title="Replay overturns {def} fumble return, rules {off} pass incomplete",
         play="As the {off} quarterback began his throwing motion on second down, a {def} "
              "defender (No. {n1}) knocked the ball loose and a teammate returned it {gain} "
              "yards for a touchdown. Replay ruled the arm was moving forward.",
         summary="a {def} fumble-return touchdown was overturned to an incomplete pass "
                 "after review. The question is whether the quarterback's arm was moving "
                 "forward with control when the defender made contact.",
         orig="Fumble, recovered and returned by {defn} for a touchdown",
         final="Reversed on review: incomplete pass, {off} ball",
         replay=True, pen=False,
         cons="{Offn} kept possession and the touchdown came off the board.",
         q=("Was the replay reversal correct?", "Reversal was right", "Should have stood",
            "Not sure"), fc=(2, None),
         rule={"college": "NCAA Football Rules: Rule 12 (instant replay)",
               "nfl": "NFL Rulebook: Rule 15, Section 3 (instant replay)"}),
    dict(cat="replay", leagues="both", topic="touchdown reversed at the 1",
         title="Touchdown reversed after replay shows {off} runner down at the 1",
         play="The {off} running back (No. {n2}) dove over a pile on third-and-goal and was "
              "signalled in for a touchdown. Replay showed his knee touching before the ball "
              "crossed the goal line.",
         summary="a {off} rushing touchdown was reversed on review and the ball placed at "
                 "the 1. The debate is whether any angle showed the knee clearly enough to "
                 "overturn the call.",
         orig="Touchdown", final="Reversed on review: runner down at the 1-yard line",
         replay=True, pen=False, cons="{Offn} scored on the next play.",
         q=("Was the touchdown correctly overturned?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 12 (instant replay)",
               "nfl": "NFL Rulebook: Rule 15, Section 3 (instant replay)"}),
    dict(cat="replay", leagues="both", topic="goal-line fumble review",
         title="Call stands on {off} goal-line fumble after long review",
         play="The {off} running back (No. {n2}) stretched the ball toward the pylon and lost "
              "it as a {def} safety (No. {n1}) punched it out. Officials ruled a fumble through "
              "the end zone for a touchback; the review lasted more than four minutes.",
         summary="a {off} goal-line fumble was ruled a touchback and the call stood after a "
                 "long review. Viewers disagree over whether the ball crossed the plane "
                 "before it came loose.",
         orig="Fumble out of the end zone, touchback, {def} ball",
         final="Ruling stands: no conclusive evidence the ball broke the plane first",
         replay=True, pen=False,
         cons="{Defn} took over at the 20 instead of conceding a touchdown.",
         q=("Was it right to let the touchback ruling stand?", "Right to let it stand",
            "Should have been overturned", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 12 (instant replay)",
               "nfl": "NFL Rulebook: Rule 15, Section 3 (instant replay)"}),
    dict(cat="replay", leagues="both", topic="interception review",
         title="Replay confirms {def} sideline interception against {offn}",
         play="A {def} cornerback (No. {n1}) caught an underthrown pass near the sideline at the "
              "{off} {yl} and appeared to get his feet down in bounds before sliding out. Replay "
              "confirmed the interception.",
         summary="a {def} interception near the sideline was confirmed after review. The "
                 "debate is whether he had control of the ball before he went out of bounds.",
         orig="Interception, {def} ball", final="Interception confirmed on review",
         replay=True, pen=False, cons="{Defn} scored a field goal off the turnover.",
         q=("Was the interception ruling correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 2-4 (catch and interception)",
               "nfl": "NFL Rulebook: Rule 8, Section 1 (completed or intercepted pass)"}),
    # ---------------------------------------------------------------- clock
    dict(cat="clock", leagues="both", topic="clock after an incompletion", period=2,
         clock="0:{s2}",
         title="Clock keeps running after {off} incompletion before halftime",
         play="With 0:{s2} left in the second quarter, the {off} quarterback threw incomplete "
              "toward the sideline. The game clock ran for about three more seconds before it "
              "stopped, and the half ended on the next snap.",
         summary="the clock appeared to run after a {off} incompletion late in the first "
                 "half, and no time was put back. The debate is whether officials should have "
                 "restored the lost seconds.",
         orig="Clock allowed to run after the incompletion", final="No time restored; half ended",
         replay=None, pen=False, cons="{Offn} lost a chance at a field-goal attempt.",
         q=("Was the time on the clock handled correctly?", "Handled correctly",
            "Handled incorrectly", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 3-3 (timing)",
               "nfl": "NFL Rulebook: Rule 4 (game timing)"}),
    dict(cat="clock", leagues="both", topic="10-second runoff", period=2, clock="0:{s2}",
         title="Ten-second runoff ends first half for {offn}",
         play="Out of timeouts, {offn} completed a pass in bounds at the {def} {yl} with 0:{s2} "
              "left. A {off} lineman stayed down with an injury, and officials applied a "
              "10-second runoff that ended the half.",
         summary="an injury stoppage without timeouts led to a 10-second runoff that ended "
                 "the first half for {offn}. Fans question whether the runoff applied to the "
                 "situation.",
         orig="Injury stoppage inside the final minute without timeouts: 10-second runoff",
         final="Runoff applied; first half ended",
         replay=False, pen=False, cons="{Offn} lost a chance at a field-goal attempt.",
         q=("Was the 10-second runoff applied correctly?", "Applied correctly",
            "Applied incorrectly", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 3-4 (10-second subtraction)",
               "nfl": "NFL Rulebook: Rule 4, Section 7 (10-second runoff)"}),
    dict(cat="clock", leagues="both", topic="play clock",
         title="Play clock hits zero before {off} snap with no flag",
         play="Broadcast replays showed the play clock at 0 for about a second before the {off} "
              "center snapped the ball on third-and-{dist}. No delay-of-game foul was called, "
              "and the play gained a first down.",
         summary="the play clock appeared to expire before a {off} third-down snap that "
                 "converted. The debate is whether the snap came late enough to be a delay of "
                 "game.",
         orig="No delay-of-game foul", final="No foul; play stood",
         replay=False, pen=False, cons="{Offn} kept the drive going.",
         q=("Was it correct not to flag delay of game?", "Correct, no foul",
            "Should have been flagged", "Not sure"), fc=(3, None),
         rule={"college": "NCAA Football Rules: Rule 3-2 (play clock)",
               "nfl": "NFL Rulebook: Rule 4, Section 6 (play clock)"}),
    dict(cat="clock", leagues="both", topic="timeout request",
         title="{Def} timeout request not granted before {off} fourth-down snap",
         play="A {def} assistant signalled for a timeout from the sideline as {offn} lined up "
              "on fourth-and-{dist}. Officials did not grant it, and {offn} converted on the "
              "snap.",
         summary="a {def} timeout request was not granted before a {off} fourth-down "
                 "conversion. The debate is whether the request came before the snap and from "
                 "someone entitled to make it.",
         orig="Timeout not granted; play stands", final="Play stands; no timeout charged",
         replay=False, pen=False, cons="{Offn} converted and scored later in the drive.",
         q=("Was it correct not to grant the timeout?",) + CC, fc=(4, None),
         rule={"college": "NCAA Football Rules: Rule 3-3 (timeouts)",
               "nfl": "NFL Rulebook: Rule 4, Section 5 (timeouts)"}),
    # ---------------------------------------------------------------- spot
    dict(cat="spot", leagues="both", topic="fourth-down spot",
         title="Fourth-down spot leaves {offn} short near midfield",
         play="On fourth-and-1 from the {off} {yl}, {offn} ran a quarterback sneak. The ball was "
              "spotted just short of the line to gain; the measurement and a replay review "
              "confirmed it.",
         summary="{Offn} was ruled short on a fourth-down sneak after a measurement and a "
                 "review. The debate is whether forward progress was marked where the ball "
                 "was when the runner was stopped.",
         orig="Short of the line to gain; turnover on downs", final="Ruling stands after review",
         replay=True, pen=False, cons="{Defn} took over near midfield and scored on the drive.",
         q=("Was the ball spotted correctly?", "Correct spot", "Wrong spot", "Not sure"),
         fc=(4, 1),
         rule={"college": "NCAA Football Rules: Rule 4-1 (forward progress)",
               "nfl": "NFL Rulebook: Rule 7, Section 2 (forward progress)"}),
    dict(cat="spot", leagues="both", topic="measurement", period=4, clock="{late}",
         title="Measurement gives {offn} a first down on late drive",
         play="On third-and-{dist}, the {off} receiver (No. {n2}) was tackled near the marker. "
              "After a long look, officials spotted the ball and the chains showed a first down "
              "by the tip of the ball.",
         summary="a measurement late in the game gave {offn} a first down by inches. Fans "
                 "dispute where the ball should have been spotted before the chains came out.",
         orig="First down after measurement", final="First down stands",
         replay=False, pen=False, cons="{Offn} ran out the clock on the drive.",
         q=("Was the ball spotted correctly?", "Correct spot", "Wrong spot", "Not sure"),
         fc=(3, None),
         rule={"college": "NCAA Football Rules: Rule 4-1 (forward progress)",
               "nfl": "NFL Rulebook: Rule 7, Section 2 (forward progress)"}),
    dict(cat="spot", leagues="both", topic="goal-line spot",
         title="Goal-line sneak by {offn} ruled short on third down",
         play="On third-and-goal from inside the 1, the {off} quarterback pushed into a pile. "
              "Officials spotted the ball short of the goal line, and replay found no angle "
              "showing the ball across.",
         summary="a {off} goal-line sneak was ruled short and stood on review. The debate is "
                 "whether the ball broke the plane before the runner was pushed back.",
         orig="Short of the goal line", final="Ruling confirmed by replay",
         replay=True, pen=False, cons="{Offn} scored on fourth down.",
         q=("Was the ball spotted short of the goal line correctly?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 8-2 (touchdown)",
               "nfl": "NFL Rulebook: Rule 11, Section 2 (touchdown)"}),
    # ---------------------------------------------------------------- targeting (college)
    dict(cat="targeting", leagues="college", topic="targeting call",
         title="Targeting ejection upheld for {def} safety on third-down hit",
         play="A {off} receiver (No. {n2}) reached for a pass over the middle and was hit high "
              "by a {def} safety (No. {n1}) as the ball arrived. The targeting flag was "
              "confirmed by replay and the safety was disqualified.",
         summary="a {def} safety was ejected for targeting after a hit on a {off} receiver "
                 "over the middle. The debate is whether the receiver was defenceless and "
                 "whether the contact was forcible to the head.",
         orig="Targeting, 15 yards and disqualification",
         final="Targeting confirmed on review; player disqualified",
         replay=True, pen=True, cons="{Defn} played the rest of the game without its safety.",
         q=("Was the targeting call correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 9-1-4 (targeting a defenseless player)"}),
    dict(cat="targeting", leagues="college", topic="targeting overturn",
         title="Targeting call overturned on {def} linebacker hit over the middle",
         play="A {def} linebacker (No. {n1}) collided with a {off} tight end (No. {n2}) on a "
              "crossing route. The flag for targeting was overturned on review, and the "
              "linebacker stayed in the game.",
         summary="a targeting flag against a {def} linebacker was overturned by replay. The "
                 "debate is whether the first contact was to the shoulder or the helmet.",
         orig="Targeting, 15 yards and disqualification",
         final="Overturned on review: no targeting; player reinstated",
         replay=True, pen=True, cons="{Offn} faced third-and-long instead of a first down.",
         q=("Was the targeting overturn correct?", "Correct overturn", "Should have stood",
            "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 9-1-3 and 9-1-4 (targeting)"}),
    dict(cat="targeting", leagues="college", topic="unreviewed high hit",
         title="No targeting review on high hit against {off} receiver",
         play="A {off} receiver (No. {n2}) was hit near the sideline by a {def} cornerback "
              "(No. {n1}) as the pass arrived; the helmets appeared to meet. No flag was "
              "thrown and the replay official did not stop the game.",
         summary="a helmet-to-helmet-looking hit on a {off} receiver drew no flag and no "
                 "replay stoppage. The debate is whether the booth should have initiated a "
                 "targeting review.",
         orig="Incomplete pass; no foul", final="No foul; no targeting review initiated",
         replay=False, pen=False, cons="{Offn} punted on the next play.",
         q=("Should the hit have been reviewed for targeting?", "Review was needed",
            "No review was right", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 12-3 (reviewable plays, targeting)"}),
    dict(cat="targeting", leagues="college", topic="second-half targeting", period=3,
         clock="{early}",
         title="Second-half targeting keeps {def} linebacker out of next game's first half",
         play="Early in the third quarter, a {def} linebacker (No. {n1}) lowered his head into "
              "a sliding {off} quarterback. Targeting was called and confirmed, which also "
              "sidelines him for the first half of the next game.",
         summary="a {def} linebacker was disqualified for targeting in the second half, "
                 "carrying the penalty into the next game. Fans debate whether the quarterback's "
                 "slide made the contact avoidable.",
         orig="Targeting, 15 yards and disqualification",
         final="Targeting confirmed; suspension for the first half of the next game",
         replay=True, pen=True, cons="{Offn} scored a touchdown on the drive.",
         q=("Was the targeting call correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 9-1-3 (targeting with the crown)"}),
    # ---------------------------------------------------------------- other
    dict(cat="other", leagues="both", topic="inadvertent whistle",
         title="Inadvertent whistle stops {def} fumble return",
         play="A {off} running back (No. {n2}) fumbled at the {def} {yl}; a {def} linebacker "
              "scooped it with open field ahead when an official blew the whistle. Officials "
              "gave {defn} the ball at the spot of recovery.",
         summary="an inadvertent whistle ended a {def} fumble return, and the ball was "
                 "placed at the spot of recovery. The debate is whether the whistle cost "
                 "{defn} a likely touchdown.",
         orig="Inadvertent whistle; {def} ball at the spot of recovery",
         final="Ball awarded to {defn} at the spot of recovery; no return allowed",
         replay=True, pen=False, cons="{Defn} punted three plays later.",
         q=("Was the inadvertent whistle handled correctly?", "Handled correctly",
            "Handled incorrectly", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 4-1 (inadvertent whistle)",
               "nfl": "NFL Rulebook: Rule 7, Section 2 (inadvertent whistle)"}),
    dict(cat="other", leagues="both", topic="down marker error",
         title="Wrong down on the chains before {off} third-down play",
         play="The down marker showed second down when it was actually third. {Offn} ran a "
              "conservative play believing it had another down; after the play officials "
              "corrected the down to fourth.",
         summary="a down-marker error before a {off} snap was corrected only after the "
                 "play. Fans debate whether the officials should have stopped the play "
                 "before the snap.",
         orig="Play run as second down",
         final="Down corrected after the play; {off} faced fourth down",
         replay=False, pen=False, cons="{Offn} punted instead of going for it.",
         q=("Was the down corrected properly?", "Handled correctly", "Handled incorrectly",
            "Not sure"), fc=(3, None),
         rule={"college": "NCAA Football Rules: Rule 1-2 (chain crew and down box)",
               "nfl": "NFL Rulebook: Rule 1, Section 3 (down marker)"}),
    dict(cat="other", leagues="both", topic="overtime coin toss", period=5, clock=None,
         title="Overtime coin toss dispute gives {offn} the first possession",
         play="Before overtime, the {def} captain's call of the coin toss was disputed after "
              "the coin landed. The referee ruled that {offn} won the toss, and {offn} chose "
              "to receive.",
         summary="a coin-toss call before overtime was disputed, and the referee awarded "
                 "the toss to {offn}. The debate is whether the call was made before the "
                 "coin was in the air.",
         orig="{Offn} won the toss and chose to receive",
         final="Toss result confirmed by the referee",
         replay=False, pen=None, cons="{Offn} received first in overtime.",
         q=("Was the overtime coin toss handled correctly?", "Handled correctly",
            "Handled incorrectly", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 3-1 (coin toss)",
               "nfl": "NFL Rulebook: Rule 16 (overtime procedures)"}),
    dict(cat="other", leagues="college", topic="substitution hold",
         title="Officials hold snap for {def} substitution on {off} hurry-up drive",
         play="With {offn} in a hurry-up drive, the umpire stood over the ball while {defn} "
              "made a late substitution. {Offn} had already substituted, and the rule lets "
              "the defense match.",
         summary="officials held the snap so {defn} could match a {off} substitution during "
                 "a hurry-up drive. Fans debate whether the offense had actually substituted.",
         orig="Snap held for the defensive substitution", final="No foul; play proceeded",
         replay=False, pen=False, cons="The {off} drive continued after the pause.",
         q=("Were officials right to hold the snap for the substitution?", "Right to hold it",
            "Wrong to hold it", "Not sure"),
         rule={"college": "NCAA Football Rules: Rule 3-5 (substitutions)"}),
    # ---------------------------------------------------------------- no call
    dict(cat="no_call", leagues="both", topic="uncalled hold",
         title="No flag on apparent hold of {def} pass rusher before {off} touchdown",
         play="On a {dist}-yard touchdown pass, the {off} left tackle (No. {ol}) appeared to grab "
              "the jersey of a {def} edge rusher (No. {n1}) who was turning the corner. No flag "
              "was thrown.",
         summary="no holding flag was thrown on a {off} touchdown pass despite a jersey grab "
                 "visible on replay. The debate is whether the grab restricted the rusher.",
         orig="Touchdown; no flag thrown", final=None,
         replay=False, pen=False, cons="The touchdown counted.",
         q=("Should a flag have been thrown for offensive holding?",) + NO_CALL_LABELS,
         rule={"college": "NCAA Football Rules: Rule 9-3 (holding)",
               "nfl": "NFL Rulebook: Rule 12, Section 1 (holding)"}),
    dict(cat="no_call", leagues="both", topic="uncalled pass interference",
         title="No pass interference flag on {off} fourth-down end-zone throw",
         play="On fourth-and-{dist} from the {def} {yl}, the {off} quarterback threw to the back "
              "of the end zone. The receiver (No. {n2}) and a {def} cornerback (No. {n1}) "
              "tangled before the ball arrived; no flag was thrown.",
         summary="no pass interference flag was thrown on a {off} fourth-down throw into the "
                 "end zone. Replays show contact before the ball arrived; the debate is "
                 "whether it was incidental.",
         orig="Incomplete pass; turnover on downs", final=None,
         replay=False, pen=False, cons="{Defn} took over on downs.",
         q=("Should defensive pass interference have been called?",) + NO_CALL_LABELS,
         fc=(4, None),
         rule={"college": "NCAA Football Rules: Rule 7-3 (pass interference)",
               "nfl": "NFL Rulebook: Rule 8, Section 5 (pass interference)"}),
    dict(cat="no_call", leagues="both", topic="uncalled facemask",
         title="Facemask tug on {off} running back goes unflagged",
         play="A {def} defender (No. {n1}) dragged the {off} running back (No. {n2}) down by "
              "what replays show as the facemask on a second-down run. No flag was thrown.",
         summary="no facemask foul was called on a tackle of a {off} running back. The "
                 "debate is whether the defender grasped and turned the mask or only the "
                 "shoulder pad.",
         orig="Tackle, no flag", final=None,
         replay=False, pen=False, cons="{Offn} faced third-and-long and punted.",
         q=("Should a facemask penalty have been called?",) + NO_CALL_LABELS, fc=(2, None),
         rule={"college": "NCAA Football Rules: Rule 9-1 (grasping the face mask)",
               "nfl": "NFL Rulebook: Rule 12, Section 2 (facemask)"}),
    dict(cat="no_call", leagues="both", topic="uncalled late hit",
         title="No flag for late hit on sliding {off} quarterback",
         play="The {off} quarterback began a feet-first slide at the {def} {yl}, and a {def} "
              "linebacker (No. {n1}) made contact with his shoulder as he went down. No flag "
              "was thrown.",
         summary="no late-hit flag was thrown after a {def} defender hit a sliding {off} "
                 "quarterback. The debate is whether the contact came after the slide began.",
         orig="Run, no flag", final=None,
         replay=False, pen=None, cons="{Offn} settled for a field goal.",
         q=("Should a late-hit penalty have been called?",) + NO_CALL_LABELS,
         rule={"college": "NCAA Football Rules: Rule 9-1 (late hits, sliding runner)",
               "nfl": "NFL Rulebook: Rule 12, Section 2 (sliding runner)"}),
    dict(cat="no_call", leagues="both", topic="possible false start", period=4,
         clock="{late}",
         title="Possible false start by {off} lineman before go-ahead score",
         play="Just before the snap on the go-ahead touchdown, the {off} right tackle (No. {ol}) "
              "appeared to flinch. No false start was called.",
         summary="no false start was called on an apparent flinch before a {off} go-ahead "
                 "touchdown. Fans debate whether the movement was abrupt enough to be a foul.",
         orig="Touchdown; no flag thrown", final=None,
         replay=False, pen=False, cons="The go-ahead touchdown counted.",
         q=("Should a false start have been called?",) + NO_CALL_LABELS,
         rule={"college": "NCAA Football Rules: Rule 7-1 (false start)",
               "nfl": "NFL Rulebook: Rule 7, Section 4 (false start)"}),
    # ---------------------------------------------------------------- catch
    dict(cat="catch", leagues="both", topic="sideline catch",
         title="Sideline catch by {off} receiver upheld despite bobble",
         play="The {off} receiver (No. {n2}) bobbled a pass along the sideline at the {def} "
              "{yl}, secured it as he went out of bounds, and was ruled to have made a catch. "
              "Replay confirmed it.",
         summary="a bobbled {off} sideline catch was ruled complete and confirmed on review. "
                 "The debate is whether control came before the receiver's foot left the "
                 "field.",
         orig="Catch, completed at the {def} {yl}", final="Catch confirmed on review",
         replay=True, pen=False, cons="{Offn} kept the drive going.",
         q=("Was the catch ruling correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 2-4 (catch)",
               "nfl": "NFL Rulebook: Rule 8, Section 1 (completed pass)"}),
    dict(cat="catch", leagues="both", topic="end-zone catch",
         title="End-zone catch overturned as {off} receiver loses the ball to the ground",
         play="The {off} receiver (No. {n2}) caught a fade in the end zone and was ruled a "
              "touchdown. Replay showed the ball moving as he landed, and the catch was "
              "overturned.",
         summary="a {off} touchdown catch was overturned because the receiver lost control "
                 "on landing. The debate is whether he had become a runner before the ball "
                 "moved.",
         orig="Touchdown", final="Reversed on review: incomplete pass",
         replay=True, pen=False, cons="{Offn} kicked a field goal instead.",
         q=("Was the touchdown correctly overturned?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 2-4 (catch)",
               "nfl": "NFL Rulebook: Rule 8, Section 1 (completed pass)"}),
    dict(cat="catch", leagues="both", topic="simultaneous catch",
         title="Simultaneous catch awarded to {offn} in the end zone",
         play="A {off} receiver (No. {n2}) and a {def} safety (No. {n1}) came down together "
              "with a pass in the end zone. The officials ruled a simultaneous catch, which "
              "goes to the offense, and replay let it stand.",
         summary="a jump ball in the end zone was ruled a simultaneous catch and a {off} "
                 "touchdown. The debate is whether the defender had control first.",
         orig="Simultaneous catch; touchdown", final="Ruling stands after review",
         replay=True, pen=False, cons="{Offn} took the lead on the play.",
         q=("Was the simultaneous-catch ruling correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 2-4 (simultaneous catch)",
               "nfl": "NFL Rulebook: Rule 8, Section 1 (simultaneous catch)"}),
    dict(cat="catch", leagues="both", topic="diving interception",
         title="Diving interception by {def} stands despite trap claims",
         play="A {def} linebacker (No. {n1}) dove for a tipped {off} pass at the {off} {yl}. "
              "He was ruled to have caught it before it touched the ground, and the call stood "
              "after review.",
         summary="a diving {def} interception of a tipped pass stood on review. Fans debate "
                 "whether the ball touched the turf.",
         orig="Interception, {def} ball", final="Ruling stands after review",
         replay=True, pen=False, cons="{Defn} scored a touchdown three plays later.",
         q=("Was the interception ruling correct?",) + CC,
         rule={"college": "NCAA Football Rules: Rule 2-4 (catch and interception)",
               "nfl": "NFL Rulebook: Rule 8, Section 1 (completed or intercepted pass)"}),
]
assert all(t["cat"] in CATEGORIES for t in TEMPLATES)

# ---------------------------------------------------------------------------------------
# Sources

HOSTS = {"ESPN": "www.espn.example", "The Athletic": "www.nytimes.example/athletic",
         "CBS Sports": "www.cbssports.example", "Yahoo Sports": "sports.yahoo.example",
         "USA Today": "www.usatoday.example", "On3": "www.on3.example",
         "247Sports": "247sports.example", "NFL.com": "www.nfl.example",
         "Pro Football Talk": "www.profootballtalk.example",
         "NFL Football Operations": "operations.nfl.example", "NCAA": "www.ncaa.example",
         "FOX Sports": "www.foxsports.example", "NBC Sports": "www.nbcsports.example",
         "Big Ten Network": "btn.example", "Associated Press": "apnews.example",
         "Sports Reference": "www.sports-reference.example",
         "Big Ten Conference": "bigten.example", "Southeastern Conference": "www.secsports.example",
         "Atlantic Coast Conference": "theacc.example", "Big 12 Conference": "big12sports.example",
         "Mountain West Conference": "themw.example",
         "College Football Officiating": "cfo.example"}
CONF_BODY = {"Big Ten": "Big Ten Conference", "SEC": "Southeastern Conference",
             "ACC": "Atlantic Coast Conference", "Big 12": "Big 12 Conference",
             "Mountain West": "Mountain West Conference",
             "FBS Independents": "College Football Officiating"}
REPORTERS = {"college": ["ESPN", "The Athletic", "CBS Sports", "Yahoo Sports", "USA Today",
                         "On3", "247Sports"],
             "nfl": ["ESPN", "The Athletic", "NFL.com", "Pro Football Talk", "CBS Sports",
                     "Yahoo Sports"]}
VIDEO = {"college": ["ESPN", "FOX Sports", "CBS Sports", "Big Ten Network", "NBC Sports"],
         "nfl": ["NFL.com", "FOX Sports", "CBS Sports", "NBC Sports", "ESPN"]}
REPORT_SUPPORTS = [
    "Reports the play and the on-field ruling; does not establish whether the ruling was right",
    "Describes the sequence and quotes both head coaches after the game",
    "Reports the officials' announced ruling and the game situation",
]
VIDEO_SUPPORTS = [
    "Broadcast replay of the play from the sideline and end-zone angles",
    "Shows the disputed moment at full speed and in slow motion",
]
CONTRIBUTORS = [new_uuid() for _ in range(5)]


def url_for(publisher, league, day, slug, n):
    path = "college-football" if league == "college" else "nfl"
    return "https://%s/%s/%s/%s-%d" % (HOSTS[publisher], path, day.strftime("%Y/%m/%d"), slug, n)


def make_sources(inc, ctx, kinds, added_window):
    """kinds: list of source kinds; added_window: (earliest, latest) added_at."""
    g = ctx["game"]
    kick = ctx["kick"]
    league = g["league"]
    matchup = "%s at %s" % (ctx["away_short"], ctx["home_short"])
    topic = ctx["topic"]
    base = hyphenate("%s %s %s" % (ctx["away_short"], ctx["home_short"], topic))[:60].strip("-")
    out = []
    lo, hi = added_window
    for i, kind in enumerate(kinds):
        if kind == "report":
            pub = rng.choice(REPORTERS[league])
            title = rng.choice(["The %s that swung %s" % (topic, matchup),
                                "%s: what we saw on the %s" % (matchup, topic),
                                "Takeaways from %s, including the %s" % (matchup, topic)])
            published = kick + dt.timedelta(hours=rng.randint(3, 30), minutes=rng.randint(0, 59))
            supports = rng.choice(REPORT_SUPPORTS)
        elif kind == "video":
            pub = rng.choice(VIDEO[league])
            title = "Replay: the %s in %s" % (topic, matchup)
            published = kick + dt.timedelta(hours=rng.randint(2, 6), minutes=rng.randint(0, 59))
            supports = rng.choice(VIDEO_SUPPORTS)
        elif kind == "image":
            pub = "Associated Press"
            title = "Photo: %s, %s" % (topic, matchup)
            published = kick + dt.timedelta(hours=rng.randint(2, 5), minutes=rng.randint(0, 59))
            supports = "Still photo of the moment; a single frame does not show timing"
        elif kind == "official_statement":
            if league == "nfl":
                pub = rng.choice(["NFL Football Operations", "ESPN"])
                if pub == "ESPN":
                    title = "Pool report: referee explains the %s in %s" % (topic, matchup)
                    supports = "Pool report: the referee's explanation of the ruling"
                else:
                    title = "Officiating explained: the %s in %s" % (topic, matchup)
                    supports = "Official explanation of the ruling from the league office"
            else:
                pub = CONF_BODY[TEAMS[g["homeTeam"]["id"]]["conference"]]
                title = "Statement on the %s in %s" % (topic, matchup)
                supports = "Conference officiating statement on the ruling"
            published = kick + dt.timedelta(days=rng.randint(1, 3), hours=rng.randint(0, 8))
        elif kind == "rule":
            pub = "NFL Football Operations" if league == "nfl" else "NCAA"
            title = ctx["rule"]
            published = None
            supports = "Rule text for the ruling at issue; context, not a judgement of this play"
        else:   # box score
            pub = rng.choice(["ESPN", "Sports Reference"]
                             + (["NFL.com"] if league == "nfl" else []))
            title = "%s at %s box score" % (TEAMS[g["awayTeam"]["id"]]["name"],
                                             TEAMS[g["homeTeam"]["id"]]["name"])
            published = kick + dt.timedelta(hours=3, minutes=rng.randint(20, 59))
            supports = GAME_RECORD
        if kind == "rule":
            url = "https://%s/rules/%s-%d" % (HOSTS[pub], hyphenate(title)[:70].strip("-"),
                                              g["season"])
        elif kind == "other":
            url = "https://%s/boxscore/%s" % (HOSTS[pub], g["id"].replace(":", "-"))
        else:
            url = url_for(pub, league, (published or kick).date(), base, i + 1)
        if published is not None:
            published = min(published, DEMO_NOW - dt.timedelta(minutes=30))
        earliest = max(lo, published or lo)
        added = earliest + dt.timedelta(minutes=rng.randint(5, 600), seconds=rng.randint(0, 59))
        added = min(added, max(hi, earliest + dt.timedelta(minutes=10)), DEMO_NOW)
        out.append({
            "url": url, "title": title, "publisher": pub, "source_kind": kind,
            "published_at": ts(published) if published else None,
            "added_at": ts(added), "supports": supports,
            "added_by": rng.choice(CONTRIBUTORS) if inc["origin_kind"] == "human"
            and rng.random() < 0.8 else None,
        })
    return out


def source_kinds(status, category):
    if status == "developing":
        return rng.choice([[], [], ["report"], ["video"], ["image"]])
    if status == "corroborated":
        return rng.choice([["report"], ["report", "video"], ["video", "other"],
                           ["report", "video", "other"], ["report", "image"]])
    if status == "explained":
        second = "rule" if category != "no_call" or rng.random() < 0.5 else "video"
        return rng.choice([["official_statement"], ["official_statement", second],
                           ["report", "official_statement", second]])
    return rng.choice([[], ["report"], ["other"], ["report", "other"]])


# ---------------------------------------------------------------------------------------
# Ballots

def make_ballots(n, lean=0.55, unsure=0.1, rooting_counts=None, benefit="home"):
    """n ballots; lean is P(correct) among decided neutral voters; fans of the team the call
    helped (benefit) lean towards "correct", the other side away from it."""
    if rooting_counts is None:
        roots = rng.choices(ROOTINGS, weights=[30, 27, 16, 10, 17], k=n)
    else:
        roots = [r for r, k in rooting_counts.items() for _ in range(k)]
        assert len(roots) == n
        rng.shuffle(roots)
    other = "away" if benefit == "home" else "home"
    out = []
    for r in roots:
        p = lean + (0.25 if r == benefit else -0.25 if r == other else 0.0)
        p = min(0.95, max(0.05, p))
        x = rng.random()
        if x < unsure:
            choice = "unsure"
        elif rng.random() < p:
            choice = "correct"
        else:
            choice = "incorrect"
        out.append({"choice": choice, "rooting": r})
    return out


RESERVED_COUNTS = {19, 20, 49, 50}


def ordinary_ballot_count():
    x = rng.random()
    if x < 0.08:
        return 0
    if x < 0.62:
        n = rng.randint(1, 45)
    elif x < 0.9:
        n = rng.randint(51, 99)
    else:
        n = rng.randint(100, 190)
    while n in RESERVED_COUNTS or n == 86:
        n += 1
    return n


# ---------------------------------------------------------------------------------------
# Incidents

INCIDENTS = []
USED_PUBLISHED = set()


def fmt_clock():
    return "%d:%02d" % (rng.randint(0, 14), rng.randint(0, 59))


def context(gid, offense_side, template):
    g = GAMES[gid]
    home, away = g["homeTeam"]["id"], g["awayTeam"]["id"]
    off, dfn = (home, away) if offense_side == "home" else (away, home)

    def noun(t):
        return TEAMS[t]["shortName"] if g["league"] == "college" else "the " + TEAMS[t]["shortName"]

    def cap(s):
        return s[0].upper() + s[1:]

    yl = rng.randint(12, 45)
    fields = {
        "off": TEAMS[off]["shortName"], "def": TEAMS[dfn]["shortName"],
        "offn": noun(off), "defn": noun(dfn), "Offn": cap(noun(off)), "Defn": cap(noun(dfn)),
        "Def": cap(TEAMS[dfn]["shortName"]), "Off": cap(TEAMS[off]["shortName"]),
        # jersey numbers: n1 a defender, n2 a receiver or back, ol an offensive lineman
        "n1": rng.choice(list(range(1, 60)) + list(range(90, 100))),
        "n2": rng.choice(list(range(1, 20)) + list(range(80, 90))),
        "ol": rng.randint(50, 79), "yl": yl,
        "dist": rng.choice([2, 3, 4, 6, 7, 8, 10, 12]), "gain": rng.randint(30, 80),
        "s2": "%02d" % rng.randint(4, 18),
        "early": "%d:%02d" % (rng.randint(10, 14), rng.randint(0, 59)),
        "late": "%d:%02d" % (rng.randint(0, 4), rng.randint(0, 59)),
    }
    rule = template.get("rule") or {}
    rule = rule.get(g["league"]) if isinstance(rule, dict) else rule
    return {"game": g, "kick": parse_ts(g["startsAt"]), "fields": fields,
            "home_short": TEAMS[home]["shortName"], "away_short": TEAMS[away]["shortName"],
            "topic": template.get("topic", "call"), "rule": rule,
            "benefit_offense": offense_side}


AN_RE = re.compile(r"\b([Aa]) (?=[AEIO]|SMU\b|LSU\b)")


def fill(value, ctx):
    if isinstance(value, dict):
        value = value[ctx["game"]["league"]]
    if value is None:
        return None
    return AN_RE.sub(lambda m: m.group(1) + "n ", value.format(**ctx["fields"]))


def unique_time(t):
    while ts(t) in USED_PUBLISHED:
        t += dt.timedelta(seconds=1)
    USED_PUBLISHED.add(ts(t))
    return t


def build_incident(gid, template, status, origin, *, title=None, play=None, summary=None,
                   orig="<template>", final="<template>", replay="<template>", pen="<template>",
                   cons="<template>", question="<template>", period="<random>", clock="<random>",
                   n_ballots=None, rooting_counts=None, published=None, slug=None,
                   kinds=None, offense_side=None, comment_count=None, visibility=None,
                   duplicate_of=None, stored_labels=None, v1_question=None, provenance=None,
                   factual_context=None):
    offense_side = offense_side or rng.choice(["home", "away"])
    ctx = context(gid, offense_side, template)
    g, kick = ctx["game"], ctx["kick"]
    inc = {"id": new_uuid(), "game_id": gid}
    inc["title"] = title or fill(template["title"], ctx)
    inc["play_description"] = play or fill(template["play"], ctx)
    s = summary or fill(template["summary"], ctx)
    inc["neutral_summary"] = s if s.startswith("Sample data: ") else "Sample data: " + s
    inc["category"] = template["cat"]
    if period == "<random>":
        x = rng.random()
        period = template.get("period") or (None if x < 0.1 else rng.randint(1, 4))
    inc["period"] = period
    if clock == "<random>":
        if period is None:
            clock = None
        elif "clock" in template:
            clock = fill(template["clock"], ctx)
        else:
            clock = None if rng.random() < 0.08 else fmt_clock()
    inc["clock"] = clock
    inc["original_ruling"] = fill(template["orig"], ctx) if orig == "<template>" else orig
    inc["final_ruling"] = fill(template["final"], ctx) if final == "<template>" else final
    inc["replay_involved"] = template["replay"] if replay == "<template>" else replay
    inc["penalty_called"] = template["pen"] if pen == "<template>" else pen
    inc["consequence"] = fill(template["cons"], ctx) if cons == "<template>" else cons
    inc["status"] = status
    inc["origin_kind"] = origin
    if provenance is None and origin != "migration" and rng.random() < 0.5:
        if origin == "human":
            provenance = {"discovery": {"kind": "human",
                                        "contributor": rng.choice(["Sam R.", "Dana K.",
                                                                   "Chris M.", "Pat O."])},
                          "research": {"kind": "editorial"}, "publication": {"kind": "editor"}}
        else:
            provenance = {"discovery": {"kind": "agent", "agent": "sample-lead-agent"},
                          "research": {"kind": "editorial"}, "publication": {"kind": "editor"}}
    if provenance is not None:
        inc["provenance"] = provenance

    # timestamps
    if published is None:
        if g["status"] == "final":
            lag = dt.timedelta(hours=rng.randint(2, 40), minutes=rng.randint(0, 59),
                               seconds=rng.randint(0, 59))
            published = kick + lag
            latest_pub = DEMO_NOW - dt.timedelta(minutes=5)
            if published > latest_pub:
                published = kick + dt.timedelta(seconds=rng.randint(
                    7200, int((latest_pub - kick).total_seconds())))
        else:   # live game: during the game, before DEMO_NOW
            span = int((DEMO_NOW - kick).total_seconds()) - 600
            published = kick + dt.timedelta(seconds=rng.randint(1800, span))
        published = unique_time(published)
    else:
        published = parse_ts(published)
        USED_PUBLISHED.add(ts(published))
    assert published <= DEMO_NOW
    created = max(kick + dt.timedelta(minutes=20),
                  published - dt.timedelta(minutes=rng.randint(10, 300)))
    created = min(created, published)
    reviewed = None
    if status != "developing":
        reviewed = min(DEMO_NOW, published + dt.timedelta(days=rng.randint(0, 9),
                                                          hours=rng.randint(1, 20)))
    inc["published_at"] = ts(published)
    inc["created_at"] = ts(created)
    inc["reviewed_at"] = ts(reviewed) if reviewed else None
    if slug:
        inc["slug"] = slug
    inc["comment_count"] = 0
    inc["visibility"] = visibility or "published"
    inc["duplicate_of"] = duplicate_of

    # sources
    if kinds is None:
        kinds = source_kinds(status, template["cat"])
    latest = min(DEMO_NOW, (reviewed or published) + dt.timedelta(days=2))
    inc["sources"] = make_sources(inc, ctx, kinds, (created, latest)) if kinds else []

    # question
    last = max([published, reviewed or published] +
               [parse_ts(s["added_at"]) for s in inc["sources"]])
    if question == "<template>":
        question = template.get("q")
    if question is not None:
        qtype = "no_call" if template["cat"] == "no_call" else "ruling"
        text, a, b, u = question
        q = {"question_type": qtype, "question_text": text, "option_a_label": a,
             "option_b_label": b, "unsure_label": u, "question_version": 1,
             "created_at": ts(published)}
        fc = factual_context
        if fc is None and template.get("fc") and rng.random() < 0.75:
            down, distance = template["fc"]
            fc = {"down": down, "distance": distance or ctx["fields"]["dist"]}
        if fc:
            q["factual_context"] = fc
        if stored_labels:
            q["stored_option_labels"] = dict(zip(
                ("option_a_label", "option_b_label", "unsure_label"), stored_labels))
        if v1_question:
            v2_created = min(DEMO_NOW, published + dt.timedelta(days=2, hours=3, minutes=17))
            q["question_version"] = 2
            q["created_at"] = ts(v2_created)
            t1, a1, b1, u1 = v1_question
            inc["question_history"] = [{
                "question_version": 1,
                "question": {"question_type": qtype, "question_text": t1,
                             "option_a_label": a1, "option_b_label": b1, "unsure_label": u1},
                "factual_context": {}, "created_at": ts(published),
                "superseded_at": ts(v2_created)}]
            last = max(last, v2_created)
        inc["debate_question"] = q
    else:
        inc["debate_question"] = None

    if n_ballots is None:
        n_ballots = ordinary_ballot_count() if question is not None else 0
    benefit = offense_side if template["cat"] != "no_call" else (
        "away" if offense_side == "home" else "home")
    inc["ballots"] = make_ballots(n_ballots, lean=rng.uniform(0.3, 0.72),
                                  unsure=rng.uniform(0.05, 0.16),
                                  rooting_counts=rooting_counts, benefit=benefit)
    if comment_count is None:
        comment_count = int(n_ballots * rng.uniform(0.05, 0.5)) + rng.randint(0, 6)
    inc["comment_count"] = comment_count
    updated = min(DEMO_NOW, last + dt.timedelta(minutes=rng.randint(0, 180)))
    inc["updated_at"] = ts(max(updated, published))
    INCIDENTS.append(inc)
    return inc


def tmpl(title_prefix):
    for t in TEMPLATES:
        if t["title"].startswith(title_prefix):
            return t
    raise KeyError(title_prefix)


# --- special cases (see the comment block at the top) ----------------------------------
SPECIAL = {}

SPECIAL[T_NO_CALL] = build_incident(
    "cfb:2024-w14-mich-osu", tmpl("No pass interference flag"), "corroborated", "human",
    title=T_NO_CALL, offense_side="home", period=4, clock="0:41",
    play="On second-and-10 from the Michigan 24 with 0:41 left, the Ohio State quarterback "
         "threw to the back corner of the end zone. A Michigan cornerback (No. 7) and the "
         "receiver (No. 4) were hand-fighting as the ball arrived; the pass fell incomplete and "
         "no flag was thrown.",
    summary="no penalty was called on contact between a Michigan defender and an Ohio State "
            "receiver in the end zone late in the fourth quarter. The debate is whether the "
            "hand-fighting was mutual or restricted the receiver before the ball arrived.",
    orig="Incomplete pass; no flag thrown", final=None, replay=False, pen=False,
    cons="Ohio State did not score on the drive.",
    question=("Should a flag have been thrown for defensive pass interference?",)
    + NO_CALL_LABELS,
    n_ballots=240, slug="ohio-state-final-drive-end-zone-no-call",
    kinds=["video", "report", "other"], factual_context={"down": 2, "distance": 10})

SPECIAL[T_VERSION2] = build_incident(
    "nfl:2024-w11-kc-buf", tmpl("Sideline catch by"), "explained", "human",
    title=T_VERSION2, offense_side="away", period=4, clock="1:52",
    play="With 1:52 left, the Chiefs quarterback threw to a receiver (No. 11) on the left "
         "sideline. He caught the ball with his right foot down and dragged his left toe as he "
         "fell out of bounds. The on-field ruling was a catch, and replay confirmed it.",
    summary="a Chiefs sideline catch late in the fourth quarter was ruled complete and "
            "confirmed on review. The debate is whether the receiver's second foot came down "
            "in bounds before he was out.",
    orig="Catch, completed at the Buffalo 38; receiver ruled in bounds",
    final="Catch confirmed after replay review",
    cons="The Chiefs kept the drive going and kicked a field goal.",
    question=("Was the catch correctly confirmed, given where the receiver's second foot "
              "landed?",) + CC,
    v1_question=("Was the catch ruling correct?",) + CC,
    factual_context={"down": 3, "distance": 6,
                     "note": "Reworded after a broadcast angle of the second foot surfaced"},
    n_ballots=131, kinds=["official_statement", "video", "rule"])

SPECIAL[T_CLARIFIED] = build_incident(
    "nfl:2024-w11-bal-pit", tmpl("Roughing-the-passer flag extends"), "corroborated",
    "migration", title=T_CLARIFIED, offense_side="away", period=3, clock="8:14",
    play="On third-and-7, a Steelers edge rusher (No. 90) sacked the Ravens quarterback just "
         "as he tried to throw. The referee flagged roughing the passer for a hit to the head "
         "and neck area, which wiped out the sack.",
    summary="a Steelers third-down sack was erased by a roughing-the-passer flag. The "
            "debate is whether the rusher's hand made forcible contact with the quarterback's "
            "helmet.",
    final="Roughing the passer enforced; Ravens first down",
    cons="The Ravens kept the ball and scored a touchdown on the drive.",
    stored_labels=("Yes", "No", "Unsure"), n_ballots=73, kinds=["report", "video"],
    factual_context={"down": 3, "distance": 7})

SPECIAL[T_WITHDRAWN] = build_incident(
    "cfb:2024-w00-smu-fsu", tmpl("Clock keeps running"), "developing", "agent",
    title=T_WITHDRAWN, period=None, clock=None, replay=None, pen=None,
    play="An early report said the stadium game clock stopped for several plays during a "
         "second-quarter Florida State drive while the official time kept running.",
    summary="an early report described a game-clock malfunction during a Florida State "
            "drive; it could not be matched to the game record.",
    orig=None, final=None, cons=None,
    question=("Was the game clock handled correctly?", "Handled correctly",
              "Handled incorrectly", "Not sure"),
    n_ballots=7, comment_count=2, visibility="withdrawn", kinds=["report"])

SURVIVOR = SPECIAL[T_SURVIVOR] = build_incident(
    "cfb:2025-w14-tamu-tex", tmpl("Goal-line sneak by"), "explained", "human",
    title=T_SURVIVOR, offense_side="home", period=3, clock="4:18",
    play="On fourth-and-goal from inside the 1, the Texas quarterback pushed into the middle "
         "of the line. Officials spotted the ball short of the goal line, and the replay "
         "review found no angle showing the ball across.",
    summary="a Texas fourth-down quarterback sneak was ruled short of the goal line and the "
            "ruling stood after review. The debate is whether the ball broke the plane before "
            "the runner was pushed back.",
    orig="Short of the goal line; turnover on downs",
    final="Ruling stands after review; Texas A&M ball at its own 1",
    cons="Texas A&M took over at its own 1-yard line.",
    question=("Was the ball spotted correctly?", "Correct spot", "Wrong spot", "Not sure"),
    n_ballots=158, slug="texas-fourth-down-sneak-short", kinds=["official_statement", "video",
                                                               "other"])

SPECIAL[T_DUPLICATE] = build_incident(
    "cfb:2025-w14-tamu-tex", tmpl("Goal-line sneak by"), "developing", "agent",
    title=T_DUPLICATE, offense_side="home", period=3, clock="4:18",
    play="Texas was stopped on a fourth-down quarterback sneak at the goal line in the third "
         "quarter; officials ruled the ball short.",
    summary="Texas was stopped on a fourth-down sneak at the goal line; officials ruled the "
            "ball short and the ruling stood.",
    orig="Short of the goal line; turnover on downs", final="Ruling stands after review",
    cons="Texas A&M took over on downs.",
    question=("Was the ball spotted correctly?", "Correct spot", "Wrong spot", "Not sure"),
    n_ballots=6, duplicate_of=SURVIVOR["id"], kinds=["report"],
    published=ts(parse_ts(SURVIVOR["published_at"]) + dt.timedelta(minutes=47, seconds=13)))

SPECIAL[T_B19] = build_incident(
    "nfl:2025-w06-det-kc", tmpl("Illegal-formation flag"), "corroborated", "agent",
    title=T_B19, offense_side="away", period=2, clock="6:40", n_ballots=19,
    kinds=["report", "video"])

SPECIAL[T_B20] = build_incident(
    "cfb:2025-w08-miss-uga", tmpl("{Def} timeout request"), "developing", "human",
    title=T_B20, offense_side="home", period=4, clock="9:03", n_ballots=20,
    play="An Ole Miss assistant signalled for a timeout from the sideline as Georgia lined up "
         "on fourth-and-2. Officials did not grant it, and Georgia converted on the snap.",
    summary="an Ole Miss timeout request was not granted before a Georgia fourth-down "
            "conversion. The debate is whether the request came before the snap and from "
            "someone entitled to make it.", kinds=[])

SPECIAL[T_B49] = build_incident(
    "cfb:2024-w07-osu-ore", tmpl("Simultaneous catch"), "explained", "migration",
    title=T_B49, offense_side="home", period=2, clock="0:37", n_ballots=49,
    play="An Oregon receiver (No. 8) caught a pass at the back of the end zone and tapped his "
         "right toe before his heel landed on the end line. The touchdown was confirmed by "
         "replay.",
    summary="an Oregon touchdown catch at the back line was confirmed on review. The "
            "debate is whether the toe landed in bounds before the heel touched the line.",
    orig="Touchdown", final="Touchdown confirmed on review",
    cons="Oregon took a halftime lead.",
    question=("Was the touchdown catch correctly confirmed?",) + CC,
    kinds=["official_statement", "rule"])

SPECIAL[T_B50] = build_incident(
    "nfl:2025-w13-chi-phi", tmpl("Ten-second runoff"), "corroborated", "human",
    title=T_B50, offense_side="away", period=2, n_ballots=50,
    kinds=["report", "video", "other"])

SPECIAL[T_SUBGROUPS] = build_incident(
    "cfb:2024-w08-ala-tenn", tmpl("Targeting ejection upheld"), "explained", "migration",
    title=T_SUBGROUPS, offense_side="home", period=3, clock="11:26",
    play="A Tennessee receiver (No. 1) reached for a pass over the middle and was hit high by "
         "an Alabama safety (No. 5) as the ball arrived. The targeting flag was confirmed by "
         "replay and the safety was disqualified.",
    summary="an Alabama safety was ejected for targeting after a hit on a Tennessee "
            "receiver over the middle. The debate is whether the receiver was defenceless and "
            "whether the contact was forcible to the head.",
    n_ballots=86, rooting_counts=SUBGROUPS, kinds=["official_statement", "video", "rule"])

SPECIAL[T_B300] = build_incident(
    "nfl:2024-w22-phi-kc", tmpl("Late pass interference"), "explained", "migration",
    title=T_B300, offense_side="away", period=2, clock="2:18",
    play="On third-and-7, the Eagles quarterback threw incomplete to the sideline, but the "
         "side judge flagged a Chiefs cornerback (No. 24) for defensive holding on a receiver "
         "(No. 11) who was running a crossing route.",
    summary="a defensive holding flag on a Chiefs cornerback turned an Eagles incompletion "
            "into a first down in the Super Bowl. Fans debate whether the contact was more "
            "than incidental.",
    orig="Defensive holding, 5 yards and automatic first down",
    final="Defensive holding enforced as called",
    cons="The Eagles kept the ball and scored a touchdown on the drive.",
    question=("Was the defensive holding call correct?",) + CC,
    n_ballots=300, slug="super-bowl-eagles-third-down-holding",
    kinds=["official_statement", "report", "video"])

SPECIAL[T_SAME_TS_1] = build_incident(
    "nfl:2025-w01-dal-phi", tmpl("Holding flag wipes out"), "corroborated", "agent",
    title=T_SAME_TS_1, offense_side="away", period=1, clock="9:12",
    play="A Cowboys returner brought the opening kickoff of the second half past midfield, "
         "but a Dallas blocker (No. 41) was flagged for holding an Eagles cover player at the "
         "30.",
    summary="a long Dallas kickoff return was called back for holding by the return "
            "team. The debate is whether the block was a hold or a legal hand placement.",
    orig="Holding on the receiving team, 10 yards", final="Holding enforced; Dallas ball at its 19",
    cons="Dallas started at its own 19 and punted.",
    question=("Was the holding call on the return correct?",) + CC,
    published=SAME_TS, kinds=["report"])

SPECIAL[T_SAME_TS_2] = build_incident(
    "nfl:2025-w01-dal-phi", tmpl("Replay confirms"), "corroborated", "agent",
    title=T_SAME_TS_2, offense_side="away", period=3, clock="4:55",
    play="An Eagles cornerback (No. 33) caught an underthrown Dallas pass near the sideline at "
         "the Philadelphia 28 and got both feet down before sliding out. Replay confirmed the "
         "interception.",
    summary="an Eagles sideline interception in the season opener was confirmed after "
            "review. The debate is whether he had control before he slid out of bounds.",
    question=("Was the interception ruling correct?",) + CC,
    published=SAME_TS, kinds=["video"])

SPECIAL[T_NO_QUESTION] = build_incident(
    "cfb:2024-w07-osu-ore", tmpl("Officials hold snap"), "developing", "human",
    title=T_NO_QUESTION, offense_side="away", period=4, clock="3:05",
    play="With Ohio State in a hurry-up drive, the umpire stood over the ball while Oregon made "
         "a late substitution. Ohio State had already substituted, and the rule lets the "
         "defense match.",
    summary="officials held the snap so Oregon could match an Ohio State substitution "
            "during a hurry-up drive. No fan question has been set for this one yet.",
    question=None, kinds=[])

SPECIAL[T_LIVE] = build_incident(
    "cfb:2026-w12-lsu-ala", tmpl("Fourth-down spot"), "developing", "agent",
    title=T_LIVE, offense_side="away", period=2, clock="7:44",
    play="On third-and-2 at the Alabama 41, the LSU running back was stopped near the line to "
         "gain and the ball was spotted short. LSU elected to punt.",
    summary="an LSU third-down run was spotted just short of a first down during the game. "
            "Discussion is about where forward progress stopped.",
    orig="Short of the line to gain", final="Ruling stands; LSU punted",
    replay=False, cons="LSU punted on fourth down.", n_ballots=33, kinds=[])

# --- generated incidents ---------------------------------------------------------------
N_INCIDENTS = 72
n_generated = N_INCIDENTS - len(INCIDENTS)
per_game = {}
for inc in INCIDENTS:
    per_game[inc["game_id"]] = per_game.get(inc["game_id"], 0) + 1
ODD_IDS = set(ODD.values())
eligible = {lg: [gid for gid in GAME_ORDER if GAMES[gid]["league"] == lg
                 and GAMES[gid]["status"] == "final" and gid not in ODD_IDS]
            for lg in ("college", "nfl")}
status_cycle = (["developing"] * 11 + ["corroborated"] * 18 + ["explained"] * 14
                + ["resolved"] * 13)[:n_generated]
rng.shuffle(status_cycle)
no_question = set(rng.sample([i for i in range(n_generated) if i % 8 != 6], 5))
used_titles = {inc["title"] for inc in INCIDENTS}
template_uses = {}
for i in range(n_generated):
    cat = CATEGORIES[i % 8]
    league = "college" if cat == "targeting" else ("nfl" if (i // 8) % 2 else "college")
    status = status_cycle[i]
    if status == "resolved":
        origin = "migration"
    else:
        origin = rng.choices(ORIGINS, weights=[5, 3, 2])[0]
    cands = [t for t in TEMPLATES if t["cat"] == cat and t["leagues"] in ("both", league)]
    cands.sort(key=lambda t: template_uses.get(t["title"], 0))
    least = template_uses.get(cands[0]["title"], 0)
    tpl = rng.choice([t for t in cands if template_uses.get(t["title"], 0) == least])
    template_uses[tpl["title"]] = least + 1
    # resolved is a legacy status: keep it on older games
    pool = [gid for gid in eligible[league] if per_game.get(gid, 0) == 0
            and (status != "resolved" or GAMES[gid]["season"] == 2024)]
    if i >= n_generated - 2 and status != "resolved":
        # the two last ones go on this Saturday's finished games, the newest debates
        pool = [gid for gid in pool if GAMES[gid]["season"] == 2026] or pool
    for _attempt in range(50):
        gid = rng.choice(pool)
        side = rng.choice(["home", "away"])
        preview = fill(tpl["title"], context(gid, side, tpl))
        if preview not in used_titles:
            break
    else:
        raise SystemExit("cannot find a unique title for " + tpl["title"])
    used_titles.add(preview)
    per_game[gid] = 1
    slug = None
    if i % 3 == 0:
        g = GAMES[gid]
        slug = hyphenate("%s %s %s %d" % (TEAMS[g["awayTeam"]["id"]]["abbreviation"],
                                        TEAMS[g["homeTeam"]["id"]]["abbreviation"],
                                        tpl["topic"], g["season"]))
    build_incident(gid, tpl, status, origin, offense_side=side, slug=slug,
                   question=None if i in no_question else "<template>",
                   n_ballots=0 if i in no_question else None)
    assert INCIDENTS[-1]["title"] == preview

# --- discussions --------------------------------------------------------------------------
# Every incident gets a thread whose visible comments (published, not hidden) number its
# comment_count: Whistle derives the count from them on import. Around the visible ones,
# the states a moderated discussion has: pending (held for a new account), rejected,
# deleted with its replies kept, hidden by reports, featured and edited comments. Authors
# are sample accounts whose display names say so ("Sample Dana K."). A second RNG keeps
# the rest of the data as it was.

crng = random.Random(SEED + 15)
FIRST = ["Dana", "Riley", "Sam", "Jordan", "Alex", "Casey", "Morgan", "Taylor", "Jamie",
         "Drew", "Quinn", "Avery", "Rowan", "Kendall", "Parker", "Reese", "Skyler", "Emerson",
         "Hayden", "Logan", "Blake", "Cameron", "Devon", "Frankie"]
AUTHORS = ["Sample %s %s." % (f, chr(ord("A") + (i * 7) % 26)) for i, f in enumerate(FIRST)]
OPENERS = [
    "Watched it live and again on the replay: {take}.",
    "{take}. I don't see how anyone reads it differently.",
    "Honest question, not a hot take: {take}?",
    "From the end-zone angle {take}. The broadcast angle hides it.",
    "{take}, but the bigger problem is how long the review took.",
    "Rulebook says the official has to see it clearly. {take}.",
    "As a {team} fan I hate saying it, but {take}.",
    "Everyone is yelling about the call; {take}. The clock mattered more.",
    "Third time watching this. {take}.",
    "The crew was in position, so {take}.",
]
TAKES = [
    "they got it right", "that was the wrong call", "it is closer than people admit",
    "the flag was late but correct", "nothing in the replay was conclusive",
    "the ball is out before the contact", "the contact starts before the ball arrives",
    "the spot was generous", "there was no clear evidence to overturn",
    "that should have been reviewed", "both teams got calls like that today",
]
REPLIES = [
    "Agreed. The second angle settles it for me.",
    "I read it the other way: watch his left foot.",
    "The rule changed two seasons ago, which is why it looks odd.",
    "Fair, but the same thing went uncalled in the first half.",
    "This is the most reasonable take in the thread.",
    "Not sure about that. The sideline view is blocked.",
    "Would love to hear what the league office says.",
    "Exactly what I said at the time.",
    "The announcers changed their minds twice on this one.",
    "Context matters: it was fourth down.",
]
HELD = ["First time posting here. That call decided the game, and it was wrong.",
        "New account, long-time fan: the review standard needs to change."]
REJECTED = ["This crew should never work another game, they are a disgrace.",
            "Buy cheap tickets at the link in my profile!!!"]


def comment_time(start, i, n):
    """The i-th of n comment times, spread over three days after start (never past now)."""
    end = min(DEMO_NOW - dt.timedelta(minutes=1), start + dt.timedelta(days=3))
    span = max(60, int((end - start).total_seconds()))
    return start + dt.timedelta(seconds=span * (i + 1) // (n + 2) + crng.randint(0, 59))


def make_thread(inc):
    visible = inc["comment_count"]
    g = GAMES[inc["game_id"]]
    names = [TEAMS[g["homeTeam"]["id"]]["name"], TEAMS[g["awayTeam"]["id"]]["name"]]
    start = parse_ts(inc["published_at"])
    extra = 0 if visible < 4 else crng.randint(1, 3)  # not shown: held, rejected, hidden
    n = visible + extra + (1 if visible >= 6 else 0)  # a deleted top-level comment too
    out, tops = [], []
    states = ["published"] * visible + crng.sample(
        ["pending", "rejected", "hidden"], extra) + (["deleted"] if visible >= 6 else [])
    crng.shuffle(states)
    # the deleted comment comes early so that later replies can keep it readable
    if "deleted" in states:
        states.remove("deleted")
        states.insert(min(1, len(states)), "deleted")
    for i, state in enumerate(states):
        when = comment_time(start, i, n)
        c = {"id": str(uuid.UUID(int=crng.getrandbits(128), version=4)), "parent_id": None,
             "author": {"display_name": crng.choice(AUTHORS)}}
        reply = tops and state in ("published", "hidden") and crng.random() < 0.4
        if reply:
            c["parent_id"] = crng.choice(tops)
            body = crng.choice(REPLIES)
        elif state == "pending":
            body = crng.choice(HELD)
        elif state == "rejected":
            body = crng.choice(REJECTED)
        else:
            body = crng.choice(OPENERS).format(take=crng.choice(TAKES),
                                               team=crng.choice(names))
            body = body[0].upper() + body[1:]
        c["body"] = "" if state == "deleted" else body
        c["status"] = {"hidden": "published"}.get(state, state)
        c["held_reason"] = "new_account" if state == "pending" else None
        c["featured"] = state == "published" and not reply and not out and visible >= 5
        c["hidden_by_reports"] = state == "hidden"
        c["open_reports"] = 3 if state == "hidden" else 0
        c["created_at"] = ts(when)
        edited = state == "published" and crng.random() < 0.1
        c["edited_at"] = ts(when + dt.timedelta(minutes=crng.randint(1, 9))) if edited else None
        c["deleted_at"] = ts(when + dt.timedelta(hours=1)) if state == "deleted" else None
        reviewed = state in ("rejected", "hidden") or (c["featured"])
        c["reviewed_at"] = ts(when + dt.timedelta(hours=2)) if reviewed and state != "hidden" \
            else None
        if c["parent_id"] is None and state in ("published", "hidden", "deleted"):
            tops.append(c["id"])
        out.append(c)
    return out


for inc in INCIDENTS:
    inc["comments"] = make_thread(inc)

# API order is newest first; the file lists them oldest first (the survivor precedes its
# duplicate), keys in the order of docs/import-format.md.
KEY_ORDER = ["id", "game_id", "title", "play_description", "neutral_summary", "category",
             "period", "clock", "original_ruling", "final_ruling", "replay_involved",
             "penalty_called", "consequence", "status", "origin_kind", "provenance",
             "published_at", "created_at", "updated_at", "reviewed_at", "slug",
             "comment_count", "visibility", "duplicate_of", "sources", "debate_question",
             "question_history", "ballots", "comments"]
assert all(set(inc) <= set(KEY_ORDER) for inc in INCIDENTS)
INCIDENTS = [{k: inc[k] for k in KEY_ORDER if k in inc} for inc in INCIDENTS]
INCIDENTS.sort(key=lambda x: (x["published_at"], x["id"]))

DOC = {
    # the sample-data marker (docs/import-format.md): the pages show a banner while the
    # database holds this document's invented data
    "sample": True,
    "teams": [TEAMS[t] for t in COLLEGE_IDS + NFL_IDS],
    "games": sorted(GAMES.values(), key=lambda g: (g["startsAt"] is None, g["startsAt"] or "",
                                                   g["id"])),
    "incidents": INCIDENTS,
}


# ---------------------------------------------------------------------------------------
# Checks. The import rules are Whistle's own: the document must pass
# `whistle import FILE --dry-run` (the whole import, rolled back). What follows here is only
# what makes it good demo data: realistic values, every case the pages and the API show.

CLOCK_RE = re.compile(r"^([0-9]|1[0-5]):[0-5][0-9]$")
LABELS = ("option_a_label", "option_b_label", "unsure_label")


def whistle_bin():
    return os.environ.get("WHISTLE_BIN") or os.path.join(ROOT, "build", "whistle")


def import_check(text):
    """Runs `whistle import --dry-run` on the document against an empty database; returns
    the refusal (a list of at most one message)."""
    binary = whistle_bin()
    if not os.access(binary, os.X_OK):
        return ["cannot run %s: build it first (make), or set WHISTLE_BIN" % binary]
    with tempfile.TemporaryDirectory(prefix="gen_demo.") as tmp:
        path = os.path.join(tmp, "demo.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([binary, "import", path, "--dry-run", "--json",
                            "--db", os.path.join(tmp, "check.db")],
                           capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return ["whistle import --dry-run: " + (r.stderr.strip() or "exit %d" % r.returncode)]
    return []


def check(doc):
    errors = []

    def need(cond, msg):
        if not cond:
            errors.append(msg)

    teams = {t["id"]: t for t in doc["teams"]}
    for t in doc["teams"]:
        p = "teams[%s]" % t.get("id")
        need(t["active"] is True and t["logoUrl"] is None, p + ": active/logoUrl")
        need(isinstance(t["aliases"], list) and t["aliases"], p + ": aliases")
        if t["league"] == "nfl":
            need(t["conference"] in ("AFC", "NFC") and t["division"].startswith(t["conference"]),
                 p + ": conference/division")
    nteams = {lg: sum(1 for t in teams.values() if t["league"] == lg) for lg in ("college", "nfl")}
    need(nteams["college"] >= 20 and nteams["nfl"] >= 20, "team counts")

    games = {g["id"]: g for g in doc["games"]}
    for g in doc["games"]:
        p = "games[%s]" % g.get("id")
        h, a = g["homeTeam"]["id"], g["awayTeam"]["id"]
        need(teams[h]["league"] == g["league"] == teams[a]["league"], p + ": team league")
        need(g["createdAt"] <= g["updatedAt"], p + ": createdAt/updatedAt")
        need(g["updatedAt"] <= ts(DEMO_NOW), p + ": updatedAt after DEMO_NOW")
        scored = g["status"] in ("final", "live", "delayed")
        for k in ("homeScore", "awayScore"):
            need((isinstance(g[k], int) and g[k] >= 0) if scored else g[k] is None,
                 p + ": " + k)
        if g["status"] == "final":
            need(g["startsAt"] is not None and g["startsAt"] <= ts(DEMO_NOW), p + ": final in past")
            need(g["seasonType"] != "postseason" or g["homeScore"] != g["awayScore"],
                 p + ": postseason tie")
        if g["status"] in ("live", "delayed"):
            need(g["period"] is not None and g["clock"] is not None, p + ": live period/clock")
        if g["status"] == "upcoming":
            need(g["startsAt"] is None or g["startsAt"] >= ts(DEMO_NOW)[:10], p + ": upcoming")
        if g["kickoffTbd"] and g["startsAt"]:
            need(g["startsAt"].endswith("T00:00:00Z"), p + ": TBD kickoff at midnight")
        need(g["seasonType"] != "postseason" or g["stageLabel"], p + ": stageLabel")
    statuses = {g["status"] for g in games.values()}
    need(statuses == set(GAME_STATUSES), "every game status present: %s" % sorted(statuses))
    need({g["seasonType"] for g in games.values()} == set(SEASON_TYPES), "every season type")
    need(len(games) >= 300, "at least 300 games")
    finals = sum(1 for g in games.values() if g["status"] == "final")
    need(finals > len(games) * 0.8, "mostly final")
    need(sum(1 for g in games.values() if g["status"] == "live") >= 2, "a few live games")
    need(any(g["kickoffTbd"] and g["startsAt"] is None for g in games.values()),
         "TBD kickoff with unknown date")
    need(any(g["kickoffTbd"] and g["startsAt"] for g in games.values()),
         "TBD kickoff with a date")
    need(any(g["week"] == 0 and g["league"] == "college" for g in games.values()),
         "college week 0")
    for season in (2024, 2025):
        for lg in ("college", "nfl"):
            need(any(g["season"] == season and g["league"] == lg for g in games.values()),
                 "games for %s %d" % (lg, season))
    labels = {g["stageLabel"] for g in games.values() if g["stageLabel"]}
    for lab in ("Wild Card", "Divisional", "Conference Championship", "Super Bowl",
                "CFP Quarterfinal"):
        need(lab in labels, "stage label " + lab)
    need(any(g["seasonType"] == "preseason" and g["league"] == "nfl" for g in games.values()),
         "NFL preseason")

    for n, inc in enumerate(doc["incidents"]):
        p = "incidents[%d] %r" % (n, inc.get("title"))
        g = games.get(inc["game_id"])
        need(inc["neutral_summary"].startswith("Sample data: "), p + ": Sample data label")
        cs = inc.get("comments", [])
        shown = sum(1 for c in cs if c["status"] == "published" and not c["hidden_by_reports"])
        need(inc["comment_count"] == shown, p + ": comment_count is the visible comments")
        need(all(c["author"]["display_name"].startswith("Sample ") for c in cs),
             p + ": comment authors are labelled sample accounts")
        need(all(inc["published_at"] <= c["created_at"] <= ts(DEMO_NOW) for c in cs),
             p + ": comments between publication and DEMO_NOW")
        need(inc["period"] is None or 1 <= inc["period"] <= 5, p + ": period")
        need(inc["clock"] is None or CLOCK_RE.match(inc["clock"]), p + ": clock")
        need(inc["period"] is not None or inc["clock"] is None, p + ": clock without period")
        need(inc["created_at"] <= inc["published_at"] <= inc["updated_at"] <= ts(DEMO_NOW),
             p + ": timestamp order")
        if g and g["startsAt"]:
            need(inc["created_at"] >= g["startsAt"], p + ": created before kickoff")
        need(g is None or g["status"] in ("final", "live"), p + ": game not final/live")
        need(0 <= len(inc["sources"]) <= 3, p + ": 0..3 sources")
        for s in inc["sources"]:
            need(s["published_at"] is None or s["published_at"] <= s["added_at"],
                 p + ": source published_at")
            need(inc["created_at"] <= s["added_at"] <= inc["updated_at"], p + ": source added_at")
            if s["source_kind"] == "other":
                need(s["supports"] == GAME_RECORD, p + ": box score supports")
        q = inc["debate_question"]
        if q is not None:
            for h in inc.get("question_history", []):
                need(h["superseded_at"] <= q["created_at"], p + ": history times")
        if inc["category"] == "no_call":
            need(inc["final_ruling"] is None, p + ": no_call final_ruling")
            need(q is not None and q["question_type"] == "no_call", p + ": no_call question")

    # demo requirements
    allinc = doc["incidents"]
    need(len(allinc) >= 60, "at least 60 incidents")
    need(len({i["title"] for i in allinc}) == len(allinc), "titles unique")
    need({i["category"] for i in allinc} == set(CATEGORIES), "every category")
    need({i["status"] for i in allinc} == set(STATUSES), "every status")
    for lg in ("college", "nfl"):
        need(any(games[i["game_id"]]["league"] == lg for i in allinc), "incidents in " + lg)
    need({i["origin_kind"] for i in allinc} == set(ORIGINS), "origin kinds")
    need(any(i["period"] is None for i in allinc) and any(i["clock"] is None for i in allinc),
         "some null period/clock")
    for k in ("replay_involved", "penalty_called"):
        need({i[k] for i in allinc} == {True, False, None}, k + " true/false/null")
    need({s["source_kind"] for i in allinc for s in i["sources"]} == set(SOURCE_KINDS),
         "every source kind")
    need(any("slug" in i for i in allinc) and any("slug" not in i for i in allinc), "slug mix")
    pubs = [i["published_at"] for i in allinc]
    shared = [t for t in set(pubs) if pubs.count(t) > 1]
    need(shared == [SAME_TS] and pubs.count(SAME_TS) == 2, "exactly one shared published_at")
    need(sum(1 for i in allinc if i["debate_question"] is None and i["visibility"] == "published"
             and i["duplicate_of"] is None) >= 3, "public incidents without a question")
    need(sum(1 for i in allinc if i["visibility"] == "withdrawn") == 1, "one withdrawn")
    need(sum(1 for i in allinc if i["duplicate_of"]) == 1, "one merged duplicate")
    need(sum(1 for i in allinc if len(i["ballots"]) >= 100) >= 3, "some big ballot sets")

    by_title = {i["title"]: i for i in allinc}

    def special(title):
        inc = by_title.get(title)
        need(inc is not None, "special incident missing: " + title)
        return inc or {"ballots": [], "debate_question": None}

    for title, n in ((T_B19, 19), (T_B20, 20), (T_B49, 49), (T_B50, 50), (T_B300, 300),
                     (T_SUBGROUPS, 86), (T_NO_CALL, 240), (T_VERSION2, 131)):
        need(len(special(title)["ballots"]) == n, "%s: %d ballots" % (title, n))
    for n in (19, 20, 49, 50):
        need(sum(1 for i in allinc if len(i["ballots"]) == n) == 1, "one incident with %d" % n)
    roots = {}
    for b in special(T_SUBGROUPS)["ballots"]:
        roots[b["rooting"]] = roots.get(b["rooting"], 0) + 1
    need(roots == SUBGROUPS, "subgroup sizes %r" % roots)
    nc = special(T_NO_CALL)
    need(nc.get("category") == "no_call" and nc.get("final_ruling", "x") is None
         and nc["debate_question"]["question_type"] == "no_call"
         and nc["debate_question"]["option_a_label"] == "Flag should have been thrown",
         "no-call special")
    v2 = special(T_VERSION2)
    need(v2["debate_question"]["question_version"] == 2
         and [h["question_version"] for h in v2.get("question_history", [])] == [1],
         "version-2 special")
    cl = special(T_CLARIFIED)["debate_question"]
    need(cl["question_version"] == 1 and "stored_option_labels" in cl
         and [cl["stored_option_labels"][k] for k in LABELS] != [cl[k] for k in LABELS],
         "clarified-label special")
    need(special(T_WITHDRAWN).get("visibility") == "withdrawn", "withdrawn special")
    need(special(T_DUPLICATE).get("duplicate_of") == special(T_SURVIVOR).get("id"),
         "duplicate special")
    need(special(T_NO_QUESTION)["debate_question"] is None, "no-question special")
    need(games[special(T_LIVE)["game_id"]]["status"] == "live", "live special")
    need(special(T_SAME_TS_1)["published_at"] == special(T_SAME_TS_2)["published_at"] == SAME_TS,
         "same published_at pair")
    need(doc.get("sample") is True, "the sample-data marker")
    return errors


def summary(doc, size):
    games = doc["games"]
    incs = doc["incidents"]
    by_status = {}
    for g in games:
        by_status[g["status"]] = by_status.get(g["status"], 0) + 1
    return ("demo.json: %d teams, %d games (%s), %d incidents (%d withdrawn, %d duplicate, "
            "%d without question), %d sources, %d ballots, %d comments, %d bytes" % (
                len(doc["teams"]), len(games),
                ", ".join("%s %d" % (s, by_status.get(s, 0)) for s in GAME_STATUSES),
                len(incs), sum(1 for i in incs if i["visibility"] == "withdrawn"),
                sum(1 for i in incs if i["duplicate_of"]),
                sum(1 for i in incs if i["debate_question"] is None),
                sum(len(i["sources"]) for i in incs), sum(len(i["ballots"]) for i in incs),
                sum(len(i.get("comments", [])) for i in incs), size))


def render(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main(argv):
    text = render(DOC)
    if "--check" in argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            on_disk = f.read()
        errors = import_check(on_disk) or check(json.loads(on_disk))
        if on_disk != text:
            errors.append("data/demo.json differs from what gen_demo.py generates")
    else:
        errors = import_check(text) or check(DOC)
        if not errors:
            with open(OUT, "w", encoding="utf-8") as f:
                f.write(text)
    size = len(text.encode("utf-8"))
    if size > 2 * 1024 * 1024:
        errors.append("file is %d bytes, over 2 MB" % size)
    for e in errors:
        print("gen_demo: check failed: " + e, file=sys.stderr)
    if errors:
        return 1
    print(summary(DOC, size))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
