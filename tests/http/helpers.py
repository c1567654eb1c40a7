"""Shared helpers for the black-box HTTP tests: server process control, the CLI runner,
timestamp canonicalisation and the expected API objects derived from a fixture document.

Expected values are computed here from the import-format fixture and the rules of
../shared/spec/api-v1.md and docs/api-decisions.md, so a test can compare a whole response
object with `==` instead of spot-checking fields.
"""

import copy
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = HERE / "fixtures"
BIN = os.path.abspath(os.environ.get("WHISTLE_BIN") or str(REPO / "build" / "whistle"))
BASE = "http://whistle.test:8080"

LISTEN_RE = re.compile(r"whistle: listening on (http://127\.0\.0\.1:(\d+))")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$")
UTC_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
RID_RE = re.compile(r"^[0-9a-f]{16}$")

# With WHISTLE_TEST_PG (the libpq URI of a throwaway cluster's maintenance database, set by
# tests/run.sh), every test database path stands for a PostgreSQL database of its own: the
# CLI and the server get its URI in place of the path (db_arg), so the whole suite runs
# against the PostgreSQL driver. Tests about the SQLite file itself are marked sqlite_only.
PG = os.environ.get("WHISTLE_TEST_PG") or None
DRIVER = "postgresql" if PG else "sqlite"
_pg_dbs = {}
_pg_lock = threading.Lock()


def sqlite_only(reason):
    """Marks a test that inspects or breaks the SQLite file; says where PostgreSQL is covered."""
    import pytest

    return pytest.mark.skipif(PG is not None, reason=f"SQLite file test: {reason}")


def pg_uri(dbname):
    """The URI of database `dbname` on the WHISTLE_TEST_PG cluster."""
    u = urllib.parse.urlsplit(PG)
    return urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + dbname, u.query, ""))


def psql(sql, dbname="postgres"):
    """Runs sql on the test cluster (psql from the PostgreSQL installation); returns stdout."""
    r = subprocess.run([PSQL, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", pg_uri(dbname),
                        "-c", sql], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (sql, r.stderr)
    return r.stdout


def _find_psql():
    import glob
    import shutil

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return found[-1] if found else shutil.which("psql")


PSQL = _find_psql() if PG else None


def _pg_name(key):
    """The PostgreSQL database that stands for the test path key (absolute)."""
    return "t_" + hashlib.sha1(key.encode()).hexdigest()[:24]


def db_arg(db):
    """The --db value for a test database path: the path itself, or with WHISTLE_TEST_PG the
    URI of the PostgreSQL database that stands for it (created empty on first use)."""
    db = str(db)
    if not PG or db.startswith(("postgresql://", "postgres://")):
        return db
    key = os.path.abspath(db)
    with _pg_lock:
        name = _pg_dbs.get(key)
        if name is None:
            name = _pg_name(key)
            psql(f"CREATE DATABASE {name}")
            _pg_dbs[key] = name
    return pg_uri(name)


_template = None  # the database every fresh_db is copied from: migrated once a run
_template_lock = threading.Lock()


def _migrated_template():
    """A database `whistle migrate` (the binary under test) made once for this process: a
    SQLite file in a temporary directory, or a PostgreSQL database on the test cluster."""
    global _template
    with _template_lock:
        if _template is None:
            if PG:
                name = f"tpl_{os.getpid()}"
                psql(f"CREATE DATABASE {name}")
                target = pg_uri(name)
            else:
                import atexit

                d = tempfile.mkdtemp(prefix="whistle-template-")
                atexit.register(shutil.rmtree, d, True)
                name = target = os.path.join(d, "whistle.db")
            r = subprocess.run([BIN, "migrate", "--db", target], capture_output=True, text=True,
                               timeout=120)
            assert r.returncode == 0, r.stderr
            # the last connection's close checkpointed the log into the file and removed it:
            # the file alone is the whole database
            assert PG or not os.path.exists(target + "-wal"), "the template kept its WAL"
            _template = name
        return _template


def fresh_db(db):
    """Makes the database of test path db as `whistle migrate` leaves a new one, without
    migrating it again: a copy of the file (SQLite), or a database created from the template
    (PostgreSQL). Migrating every test's database cost 0.15 s a database on SQLite and 0.34 s on
    PostgreSQL. Migrations from an empty database are still run by test_cli.py, by the unit
    tests and by every command or server a test starts on a path that has no database yet."""
    tpl = _migrated_template()
    if not PG:
        assert not os.path.exists(db), db
        shutil.copyfile(tpl, db)
        return
    key = os.path.abspath(str(db))
    with _pg_lock:
        assert key not in _pg_dbs, db
        name = _pg_name(key)
        psql(f"CREATE DATABASE {name} TEMPLATE {tpl}")
        _pg_dbs[key] = name


def db_exists(db):
    """True when the database of a test path exists (the file, or the PostgreSQL database)."""
    if not PG:
        return os.path.exists(db)
    name = _pg_dbs.get(os.path.abspath(str(db)))
    return bool(name) and psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'").strip() == "1"


def db_bytes(db):
    """Everything the database stores, as bytes, for "never stored" checks: the SQLite file
    with its -wal / -shm / -journal, or, on PostgreSQL, the database's relation files on disk
    (after a CHECKPOINT, so nothing is only in shared buffers) plus a pg_dump of it."""
    if not PG:
        blobs = b""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = Path(str(db) + suffix)
            if p.exists():
                blobs += p.read_bytes()
        return blobs
    uri = db_arg(db)
    name = _pg_dbs[os.path.abspath(str(db))]
    psql("CHECKPOINT")
    datadir = psql("SHOW data_directory").strip()
    oid = psql(f"SELECT oid FROM pg_database WHERE datname = '{name}'").strip()
    blobs = b""
    for path in sorted(Path(datadir, "base", oid).iterdir()):
        if path.is_file():
            blobs += path.read_bytes()
    dump = subprocess.run([os.path.join(os.path.dirname(PSQL), "pg_dump"), "-d", uri],
                          capture_output=True, timeout=60)
    assert dump.returncode == 0, dump.stderr
    return blobs + dump.stdout


# What an operator runs after a hand edit (docs/operators.md "Editing the database by hand"):
# moves the content version, so every node's response cache lets go of what it holds.
BUMP_SQL = {"postgresql": "SELECT nextval(to_regclass('whistle_content_seq'))",
            "sqlite": "UPDATE cache_versions SET n = n + 1 WHERE name = 'content'"}


def fragment_body(db, incident_id):
    """The fragment body stored for an incident, as text: on SQLite a compressed one
    (migration 030, store/fragcodec.h: a byte 1, the dictionary's ID and the plain length,
    little endian, then an LZ4 block against that dictionary) is decompressed here."""
    body = db_rows(db, f"SELECT body FROM incident_fragments WHERE incident_id = '{incident_id}'")[0][0]
    if isinstance(body, str):
        return body
    import lz4.block
    import struct

    assert body[0] == 1, body[:1]
    dict_id, plain = struct.unpack("<qI", body[1:13])
    d = db_rows(db, f"SELECT dict FROM fragment_dicts WHERE id = {dict_id}")[0][0]
    return lz4.block.decompress(body[13:], uncompressed_size=plain, dict=d).decode()


def set_fragment_body(db, incident_id, text):
    """Stores a plain fragment body for an incident behind Whistle's back (db_sql)."""
    quoted = text.replace("'", "''")
    return db_sql(db, f"UPDATE incident_fragments SET body = '{quoted}'"
                      f" WHERE incident_id = '{incident_id}'")


def db_sql(db, sql):
    """Runs one SQL statement on the database of a test path, behind Whistle's back (to set
    up states the API cannot reach, e.g. a newer schema), then moves the cache content
    version as an operator's hand edit must (a running server sees the edit at once)."""
    if PG:
        return _db_sql_pg(db, sql)
    import sqlite3

    con = sqlite3.connect(str(db))
    try:
        with con:
            con.execute(sql)
        try:
            with con:
                con.execute(BUMP_SQL["sqlite"])
        except sqlite3.OperationalError:
            pass  # before migration 018 (no cache_versions table)
    finally:
        con.close()
    return ""


def _db_sql_pg(db, sql):
    dbname = _pg_dbs[os.path.abspath(str(db))]
    out = psql(sql, dbname)
    psql(BUMP_SQL["postgresql"], dbname)
    return out


def db_rows(db, sql):
    """Rows of a query on the database of a test path, as tuples (PostgreSQL: integers
    come back as int, NULL as None, everything else as text)."""
    if not PG:
        import sqlite3

        con = sqlite3.connect(str(db))
        try:
            return [tuple(r) for r in con.execute(sql)]
        finally:
            con.close()
    uri = db_arg(db)
    r = subprocess.run([PSQL, "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                        "-P", "null=\x1e", "-d", uri, "-c", sql], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, (sql, r.stderr)

    def value(v):
        if v == "\x1e":
            return None
        return int(v) if re.fullmatch(r"-?\d+", v) else v

    # split on "\n" only: str.splitlines() also splits on \x1e, the null marker
    return [tuple(value(v) for v in line.split("\x1f")) for line in r.stdout.split("\n") if line]


PGCLUSTER_SH = str(REPO / "tests" / "pgcluster.sh")


class PgCluster:
    """A throwaway PostgreSQL cluster of a test's own (tests/pgcluster.sh) that it may stop,
    start and restart (ctl("down") / ctl("up")): tests of database outages own one."""

    def __init__(self, prefix="whistle-pg-"):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        r = subprocess.run(["bash", PGCLUSTER_SH, "start", self.dir], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        self.uri = r.stdout.strip()
        self.n = 0

    def db_uri(self, name):
        u = urllib.parse.urlsplit(self.uri)
        return urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, ""))

    def sql(self, q, db="postgres"):
        r = subprocess.run([PSQL, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d",
                            self.db_uri(db), "-c", q], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, (q, r.stderr)
        return [line.split("|") for line in r.stdout.splitlines() if line]

    def new_db(self):
        self.n += 1
        name = f"mn{self.n}"
        self.sql(f"CREATE DATABASE {name}")
        return name

    def ctl(self, cmd):
        r = subprocess.run(["bash", PGCLUSTER_SH, cmd, self.dir], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr

    def close(self):
        subprocess.run(["bash", PGCLUSTER_SH, "stop", self.dir], capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


class db_outage:
    """Context manager: the database of a test path is unreachable inside the block. SQLite:
    its directory is renamed away. PostgreSQL: the database refuses new connections and
    every open one is terminated (as when the server restarts), then accepts them again."""

    def __init__(self, db):
        self.db = Path(db)

    def __enter__(self):
        if PG:
            self.name = _pg_dbs[os.path.abspath(str(self.db))]
            psql(f"ALTER DATABASE {self.name} ALLOW_CONNECTIONS false")
            psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                 f" WHERE datname = '{self.name}'")
        else:
            self.moved = self.db.parent.with_name(self.db.parent.name + "-moved")
            os.rename(self.db.parent, self.moved)
        return self

    def __exit__(self, *exc):
        if PG:
            psql(f"ALTER DATABASE {self.name} ALLOW_CONNECTIONS true")
        else:
            os.rename(self.moved, self.db.parent)
        return False


def _map_db_args(args):
    args = list(args)
    for i in range(len(args) - 1):
        if args[i] == "--db":
            args[i + 1] = db_arg(args[i + 1])
    return args

I1 = "11111111-1111-4111-8111-111111111111"
I2 = "22222222-2222-4222-8222-222222222222"
I3 = "33333333-3333-4333-8333-333333333333"
I4 = "0badf00d-0000-4000-8000-000000000004"
I5 = "c0ffee00-0000-4000-8000-000000000005"
I6 = "5ca1ab1e-0000-4000-8000-000000000006"
I7 = "77777777-7777-4777-8777-777777777777"
I8 = "88888888-8888-4888-8888-888888888888"
I9 = "99999999-9999-4999-8999-999999999999"
I10 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
WITHDRAWN = "dddddddd-dddd-4ddd-8ddd-dddddddddddd"
DUPLICATE = "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee"
MISSING_UUID = "12345678-1234-4234-8234-123456789abc"

# Public incidents of main.json in API order (published_at desc, id desc).
INCIDENT_ORDER = [I8, I7, I10, I5, I6, I4, I2, I3, I1, I9]
# Games of main.json in sort=kickoff order (ties by id asc, unknown kickoffs last).
GAME_KICKOFF_ORDER = [
    "nfl:2024-pre-01",
    "cfb:2024-w01-a",
    "cfb:2024-w01-b",
    "cfb:2024-w15-ccg",
    "nfl:2025-wk01-kc-bal",
    "nfl:2025-wk02-x",
    "nfl:2025-wk04",
    "cfb:2025-w06",
    "cfb:2025-w07",
    "cfb:2025-w13",
    "cfb:2025-w13-b",
    "cfb:2025-w05-tbd",
    "nfl:2025-wk03-tbd",
]
GAME_RECENT_ORDER = [
    "cfb:2025-w13-b",
    "cfb:2025-w13",
    "cfb:2025-w07",
    "cfb:2025-w06",
    "nfl:2025-wk04",
    "nfl:2025-wk02-x",
    "nfl:2025-wk01-kc-bal",
    "cfb:2024-w15-ccg",
    "cfb:2024-w01-a",
    "cfb:2024-w01-b",
    "nfl:2024-pre-01",
    "cfb:2025-w05-tbd",
    "nfl:2025-wk03-tbd",
]

TEAM_KEYS = {"id", "name", "abbreviation", "logoUrl", "conference", "league", "division",
             "shortName", "active", "aliases"}
GAME_KEYS = {"id", "homeTeam", "awayTeam", "homeScore", "awayScore", "startsAt", "kickoffTbd",
             "period", "clock", "status", "season", "week", "createdAt", "updatedAt", "url",
             "links", "league", "seasonType", "stageLabel"}
INCIDENT_KEYS = {"id", "game_id", "title", "play_description", "neutral_summary", "category",
                 "period", "clock", "original_ruling", "final_ruling", "replay_involved",
                 "consequence", "publication_status", "status", "origin_kind", "provenance",
                 "reviewed_at", "published_at", "created_at", "updated_at", "duplicate_of", "url",
                 "links", "league", "seasonType", "ruling_version", "debate_question",
                 "penalty_called", "votes", "comment_count", "matchup", "slug", "public_url",
                 "display_question"}
DETAIL_KEYS = INCIDENT_KEYS | {"sources", "question_history"}
SOURCE_KEYS = {"id", "url", "title", "publisher", "source_kind", "published_at", "added_at",
               "supports", "added_by"}
QUESTION_KEYS = {"question_type", "question_text", "option_a_label", "option_b_label",
                 "unsure_label", "question_version", "created_at", "label_presentation_version",
                 "stored_option_labels"}
HISTORY_KEYS = {"question_version", "question", "factual_context", "created_at", "superseded_at",
                "presented_question"}
LABELS = ("option_a_label", "option_b_label", "unsure_label")


# ---------------------------------------------------------------- timestamps


def parse_ts(s):
    """Parse an RFC 3339 timestamp (Z or offset, optional fraction) into an aware datetime."""
    assert isinstance(s, str) and TS_RE.match(s), f"not an RFC 3339 timestamp: {s!r}"
    m = re.match(r"^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$", s)
    base, frac, off = m.groups()
    frac = (frac or "0")[:6].ljust(6, "0")
    off = "+00:00" if off == "Z" else off
    return dt.datetime.fromisoformat(f"{base}.{frac}{off}").astimezone(dt.timezone.utc)


def canon_ts(s):
    return parse_ts(s).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canon(obj):
    """Replace every timestamp string (anywhere in obj) by one canonical UTC spelling."""
    if isinstance(obj, dict):
        return {k: canon(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [canon(v) for v in obj]
    if isinstance(obj, str) and TS_RE.match(obj):
        return canon_ts(obj)
    return obj


def iter_strings(obj, path="$"):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from iter_strings(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from iter_strings(v, f"{path}[{i}]")
    elif isinstance(obj, str):
        yield path, obj


# ---------------------------------------------------------------- votes


def round1(x):
    return float(Decimal(str(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def expected_votes(ballots):
    counts = {"correct": 0, "incorrect": 0, "unsure": 0}
    rooting = {}
    for b in ballots or []:
        counts[b["choice"]] += 1
        group = b["rooting"] or "unspecified"
        rooting.setdefault(group, {"correct": 0, "incorrect": 0, "unsure": 0})
        rooting[group][b["choice"]] += 1
    total = sum(counts.values())
    if total:
        pct = {k: round1(Decimal(100 * v) / Decimal(total)) for k, v in counts.items()}
    else:
        pct = {"correct": 0, "incorrect": 0, "unsure": 0}
    return {"total": total, "counts": counts, "percentages": pct, "rooting": rooting}


# ---------------------------------------------------------------- expected objects


class Expect:
    """Expected API objects for a fixture document, as served with a given base URL."""

    def __init__(self, doc, base=BASE):
        self.doc = doc
        self.base = base
        self.teams = {t["id"]: t for t in doc.get("teams", [])}
        self.games = {}
        for g in doc.get("games", []):
            for side in ("homeTeam", "awayTeam"):
                if "name" in g[side]:
                    self.teams[g[side]["id"]] = g[side]
            self.games[g["id"]] = g
        self.incidents = {i["id"]: i for i in doc.get("incidents", [])}

    def team(self, tid):
        t = self.teams[tid]
        return {
            "id": t["id"],
            "name": t["name"],
            "abbreviation": t["abbreviation"],
            "logoUrl": t.get("logoUrl"),
            "conference": t.get("conference"),
            "league": t.get("league"),
            "division": t.get("division"),
            "shortName": t.get("shortName"),
            "active": t.get("active", True),
            "aliases": t.get("aliases", []),
        }

    def game(self, gid):
        g = self.games[gid]
        out = {
            "id": g["id"],
            "homeTeam": self.team(g["homeTeam"]["id"]),
            "awayTeam": self.team(g["awayTeam"]["id"]),
            "homeScore": g.get("homeScore"),
            "awayScore": g.get("awayScore"),
            "startsAt": g.get("startsAt"),
            "kickoffTbd": g.get("kickoffTbd", False),
            "period": g.get("period"),
            "clock": g.get("clock"),
            "status": g["status"],
            "season": g["season"],
            "week": g["week"],
            "createdAt": g["createdAt"],
            "updatedAt": g["updatedAt"],
            "url": f"{self.base}/api/v1/games/{gid}",
            "links": {
                "self": f"{self.base}/api/v1/games/{gid}",
                "incidents": f"{self.base}/api/v1/incidents?game_id={gid}",
            },
            "league": g["league"],
            "seasonType": g.get("seasonType", "regular"),
            "stageLabel": g.get("stageLabel"),
        }
        return canon(out)

    def question(self, inc):
        q = inc.get("debate_question")
        if not q:
            return None
        hist = inc.get("question_history", [])
        version = q.get("question_version", 1 + max([h["question_version"] for h in hist], default=0))
        return canon({
            "question_type": q["question_type"],
            "question_text": q["question_text"],
            "option_a_label": q["option_a_label"],
            "option_b_label": q["option_b_label"],
            "unsure_label": q["unsure_label"],
            "question_version": version,
            "created_at": q.get("created_at", inc["published_at"]),
            "label_presentation_version": 1,
            "stored_option_labels": q.get("stored_option_labels", {k: q[k] for k in LABELS}),
        })

    def history(self, inc):
        """Expected question_history; the `question` snapshots are checked separately."""
        out = []
        for h in inc.get("question_history", []):
            snap = h["question"]
            out.append(canon({
                "question_version": h["question_version"],
                "factual_context": h.get("factual_context", {}),
                "created_at": h["created_at"],
                "superseded_at": h["superseded_at"],
                "presented_question": {
                    "question_type": snap["question_type"],
                    "question_text": snap["question_text"],
                    **{k: snap[k] for k in LABELS},
                    "question_version": h["question_version"],
                    "created_at": h["created_at"],
                    "label_presentation_version": 1,
                    "stored_option_labels": {k: snap[k] for k in LABELS},
                },
            }))
        q = self.question(inc)
        if q:
            out.append({
                "question_version": q["question_version"],
                "factual_context": inc["debate_question"].get("factual_context", {}),
                "created_at": q["created_at"],
                "superseded_at": None,
                "presented_question": q,
            })
        return out

    def source(self, s):
        return canon({
            "url": s["url"],
            "title": s["title"],
            "publisher": s.get("publisher"),
            "source_kind": s["source_kind"],
            "published_at": s.get("published_at"),
            "added_at": s["added_at"],
            "supports": s["supports"],
            "added_by": s.get("added_by"),
        })

    def incident(self, iid, detail=False):
        inc = self.incidents[iid]
        g = self.games[inc["game_id"]]
        home = self.teams[g["homeTeam"]["id"]]
        away = self.teams[g["awayTeam"]["id"]]
        q = self.question(inc)
        origin = inc.get("origin_kind", "migration")
        slug = inc.get("slug")
        out = {
            "id": iid,
            "game_id": inc["game_id"],
            "title": inc["title"],
            "play_description": inc["play_description"],
            "neutral_summary": inc.get("neutral_summary"),
            "category": inc["category"],
            "period": inc.get("period"),
            "clock": inc.get("clock"),
            "original_ruling": inc.get("original_ruling"),
            "final_ruling": inc.get("final_ruling"),
            "replay_involved": inc.get("replay_involved"),
            "consequence": inc.get("consequence"),
            "publication_status": "published",
            "status": inc.get("status", "developing"),
            "origin_kind": origin,
            "provenance": inc.get("provenance", {
                "discovery": {"kind": origin},
                "research": {"kind": "editorial"},
                "publication": {"kind": "import"},
            }),
            "reviewed_at": inc.get("reviewed_at"),
            "published_at": inc["published_at"],
            "created_at": inc.get("created_at", inc["published_at"]),
            "updated_at": inc.get("updated_at", inc["published_at"]),
            "duplicate_of": None,
            "url": f"{self.base}/api/v1/incidents/{iid}",
            "links": {
                "self": f"{self.base}/api/v1/incidents/{iid}",
                "game": f"{self.base}/api/v1/games/{inc['game_id']}",
                "gamePage": f"{self.base}/games/{inc['game_id']}",
            },
            "league": g["league"],
            "seasonType": g.get("seasonType", "regular"),
            "ruling_version": q["question_version"] if q else 1,
            "debate_question": q,
            "penalty_called": inc.get("penalty_called"),
            "votes": expected_votes(inc.get("ballots")),
            "comment_count": expected_comment_count(inc),
            "matchup": f"{away['name']} at {home['name']}",
            "slug": slug,
            "public_url": f"{self.base}/incidents/{slug if slug else iid}",
            "display_question": q["question_text"] if q else inc["title"],
        }
        out = canon(out)
        if detail:
            out["sources"] = [self.source(s) for s in inc.get("sources", [])]
            out["question_history"] = self.history(inc)
        return out


def strip_detail(actual):
    """A detail object made comparable with Expect.incident(detail=True): source ids checked
    for shape and removed; question_history `question` snapshots checked and removed."""
    a = canon(copy.deepcopy(actual))
    for s in a.get("sources", []):
        assert UUID_RE.match(s.get("id", "")), f"source id not a UUID: {s.get('id')!r}"
        del s["id"]
    for h in a.get("question_history", []):
        assert isinstance(h.get("question"), dict), h
        del h["question"]
        pq = h.get("presented_question")
        if isinstance(pq, dict):
            pq.pop("factual_context", None)
    dq = a.get("debate_question")
    if isinstance(dq, dict):
        dq.pop("factual_context", None)
    return a


def strip_incident(actual):
    a = canon(copy.deepcopy(actual))
    dq = a.get("debate_question")
    if isinstance(dq, dict):
        dq.pop("factual_context", None)
    return a


def expected_comment_count(inc):
    """An imported incident's comment_count: its visible comments (published, not hidden by
    reports, author not suspended), whatever the document's own comment_count says."""
    return sum(1 for c in inc.get("comments", [])
               if c.get("status", "published") == "published"
               and not c.get("hidden_by_reports") and not c["author"].get("suspended"))


# ---------------------------------------------------------------- processes


def load_fixture(name):
    with open(FIXTURES / name, encoding="utf-8") as f:
        return json.load(f)


def run_cli(*args, env=None, timeout=60, input=None):
    """Run `whistle ARGS...`; returns CompletedProcess with text stdout/stderr."""
    e = dict(os.environ)
    e.pop("WHISTLE_DB", None)
    if env:
        e.update(env)
    if e.get("WHISTLE_DB"):
        e["WHISTLE_DB"] = db_arg(e["WHISTLE_DB"])
    args = _map_db_args(map(str, args))
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=e,
                          timeout=timeout, input=input)


def import_doc(db, doc_or_path, tmpdir, *extra):
    path = doc_or_path
    if not isinstance(doc_or_path, (str, Path)):
        path = Path(tmpdir) / f"doc-{time.monotonic_ns()}.json"
        path.write_text(json.dumps(doc_or_path), encoding="utf-8")
    r = run_cli("import", path, "--db", db, *extra)
    return r


def export_db(db):
    r = run_cli("export", "--db", db)
    assert r.returncode == 0, r.stderr
    return r.stdout


class Server:
    """A running `whistle serve` process; stderr is collected by a background thread."""

    def __init__(self, db, base_url=BASE, threads=2, extra=(), env=None, prefix=()):
        """prefix: a command that runs the server (e.g. setpriv to run it as another user)."""
        self.db = str(db)
        self.base_url = base_url
        self.lines = []
        self.cond = threading.Condition()
        # base_url None: no --base-url (the server names the port it bound)
        args = [*prefix, BIN, "serve", "--db", db_arg(self.db), "--listen", "127.0.0.1:0",
                *(("--base-url", base_url) if base_url is not None else ()),
                "--threads", str(threads), *extra]
        penv = dict(os.environ)
        penv.pop("WHISTLE_DB", None)
        if env:
            penv.update(env)
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=penv)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.url = None
        deadline = time.monotonic() + 15
        with self.cond:
            while self.url is None:
                for line in self.lines:
                    m = LISTEN_RE.search(line)
                    if m:
                        self.url = m.group(1)
                        break
                if self.url:
                    break
                if self.proc.poll() is not None and not self.reader.is_alive():
                    raise RuntimeError(f"server exited {self.proc.returncode}: {self.lines}")
                left = deadline - time.monotonic()
                if left <= 0:
                    self.proc.kill()
                    raise RuntimeError(f"server did not report listening: {self.lines}")
                self.cond.wait(min(left, 0.2))
        self.http = requests.Session()
        self.http.trust_env = False  # never go through a proxy from the environment
        self.stopped_rc = None

    def _read(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def request(self, method, path, **kw):
        kw.setdefault("allow_redirects", False)
        kw.setdefault("timeout", 10)
        return self.http.request(method, self.url + path, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def head(self, path, **kw):
        return self.request("HEAD", path, **kw)

    def json(self, path, status=200):
        r = self.get(path)
        assert r.status_code == status, (path, r.status_code, r.text)
        return r.json()

    def log_line(self, pred, timeout=3.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def stop(self, timeout=10):
        if self.stopped_rc is not None:
            return self.stopped_rc
        self.http.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.stopped_rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.stopped_rc = "timeout"
        self.reader.join(timeout=5)
        return self.stopped_rc


def list_all(server, path, limit=100):
    """Follow pagination.nextOffset to the end; returns the concatenated data."""
    sep = "&" if "?" in path else "?"
    out, offset, pages = [], 0, 0
    while True:
        body = server.json(f"{path}{sep}limit={limit}&offset={offset}")
        out.extend(body["data"])
        pages += 1
        assert pages < 1000
        nxt = body["pagination"]["nextOffset"]
        if nxt is None:
            return out
        assert nxt == offset + limit
        offset = nxt


def ids(body):
    return [x["id"] for x in body["data"]]
