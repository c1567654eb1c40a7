"""The private scout interface (issue 7; docs/scout.md is the contract): POST
/api/agents/v1/scout with its four ops, `whistle scout-key …`, budgets, runs, leases,
reservations, signal intake and the credential matrix. Time moves with the server's test
clock (WHISTLE_TEST_NOW_OFFSET_FILE), never by sleeping."""

import datetime as dt
import json
import re
import threading
import uuid
from pathlib import Path

import pytest
import requests

from helpers import UTC_TS_RE, db_bytes, db_rows, parse_ts, run_cli
from leadkit import LEADS, Clock, check_common, create_key, error_of, idem, lead_body, uniq

SCOUT = "/api/agents/v1/scout"
SECRET_RE = re.compile(r"^ws_[0-9A-Za-z]{49}$")
DAY = 86400
CRED_KEYS = {"id", "name", "prefix", "state", "x_per_day", "model_micro_usd_per_day",
             "x_per_run", "model_micro_usd_per_run", "run_seconds", "created_at", "expires_at",
             "revoked_at", "last_used_at"}
STATUS_KEYS = {"enabled", "candidateCreation", "day", "resetsAt", "budgets", "perRun", "key",
               "activeRun", "checkpoints", "activeRuns"}
RECEIPT_KEYS = {"runId", "key", "status", "startedAt", "expiresAt", "remaining", "checkpoints"}
RUN_KEYS = {"runId", "key", "status", "startedAt", "expiresAt", "caps", "used", "remaining"}


def rid():
    return str(uuid.uuid4())


class Scout:
    """One scout credential and a session that posts ops with it."""

    def __init__(self, kit, created):
        self.kit = kit
        self.id = created["id"]
        self.secret = created["secret"]
        self.created = created
        self.http = requests.Session()
        self.http.trust_env = False

    def post(self, body, secret=None, raw=None, headers=None, server=None):
        h = {"Content-Type": "application/json"}
        if secret is not False:
            h["Authorization"] = f"Bearer {secret or self.secret}"
        for k, v in (headers or {}).items():
            if v is None:
                h.pop(k, None)
            else:
                h[k] = v
        data = raw if raw is not None else json.dumps(body)
        if isinstance(data, str):
            data = data.encode("utf-8")
        s = server or self.kit.server
        return self.http.post(s.url + SCOUT, data=data, headers=h, timeout=30,
                              allow_redirects=False)

    def ok(self, body, **kw):
        r = self.post(body, **kw)
        assert r.status_code == 200, (r.status_code, r.text[:500])
        check_common(r)
        return r.json()

    def status(self, key=None):
        body = {"op": "status"}
        if key is not None:
            body["key"] = key
        out = self.ok(body)
        assert set(out) == STATUS_KEYS, out
        return out

    def begin(self, key, run_id=None):
        return self.ok({"op": "begin", "key": key, "runId": run_id or rid()})

    def reserve(self, run_id, kind, units, **kw):
        return self.ok({"op": "reserve", "runId": run_id, "kind": kind, "units": units}, **kw)

    def finish(self, run_id, signals=(), **extra):
        return self.ok({"op": "finish", "runId": run_id, "signals": list(signals), **extra})


class ScoutKit:
    def __init__(self, factory, tmpdir):
        self.factory = factory
        self.tmpdir = Path(tmpdir)
        self.clock = Clock(self.tmpdir / f"now-offset-{uniq()}")
        self.db = None
        self.server = None
        self.scouts = []

    def start(self, extra=(), threads=4):
        self.db = self.factory.new_db("main.json")
        self.server = self.factory.start(db=self.db, threads=threads, env=self.clock.env,
                                         extra=extra)
        return self.server

    def second_server(self, extra=()):
        return self.factory.start(db=self.db, threads=4, env=self.clock.env, extra=extra)

    def cli(self, *args):
        return run_cli(*args, "--db", self.db, env=self.clock.env)

    def scout(self, name=None, **budgets):
        args = ["scout-key", "create", "--name", name or f"scout-{uniq()}", "--json"]
        for k, v in budgets.items():
            args += [f"--{k.replace('_', '-')}", str(v)]
        r = self.cli(*args)
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
        s = Scout(self, json.loads(r.stdout))
        self.scouts.append(s)
        return s

    def agent_key(self):
        out, _ = create_key(self.db, f"agent-{uniq()}@example.org", self.clock.env)
        return out["secret"]

    def close(self):
        for s in self.scouts:
            s.http.close()


@pytest.fixture
def kit(server_factory, tmp_path):
    k = ScoutKit(server_factory, tmp_path)
    k.start()
    yield k
    k.close()


def skip_of(body, reason):
    assert body == {"skip": True, "reason": reason}, body


def refused(r, status, code, *fragments):
    return error_of(r, status, code, *fragments)


# ------------------------------------------------------------------ a whole run


def test_whole_run(kit):
    sc = kit.scout(x_per_day=50, model_micro_usd_per_day=10000, x_per_run=5,
                   model_micro_usd_per_run=1200, run_seconds=600)
    st = sc.status("nfl-week-13")
    assert st["enabled"] is True and st["candidateCreation"] is False
    assert st["budgets"] == {"x": {"limit": 50, "used": 0, "remaining": 50},
                             "model": {"limit": 10000, "used": 0, "remaining": 10000}}
    assert st["perRun"] == {"x": 5, "model": 1200, "seconds": 600}
    assert st["key"] == "nfl-week-13" and st["activeRun"] is None and st["checkpoints"] is None
    assert st["activeRuns"] == []
    assert re.match(r"^\d{4}-\d{2}-\d{2}$", st["day"]) and UTC_TS_RE.match(st["resetsAt"])
    assert parse_ts(st["resetsAt"]).time() == dt.time(0, 0)

    run = rid()
    rec = sc.begin("nfl-week-13", run)
    assert set(rec) == RECEIPT_KEYS, rec
    assert rec["runId"] == run and rec["key"] == "nfl-week-13" and rec["status"] == "running"
    assert rec["remaining"] == {"x": 5, "model": 1200}
    assert rec["checkpoints"] is None
    lease = parse_ts(rec["expiresAt"]) - parse_ts(rec["startedAt"])
    assert lease == dt.timedelta(seconds=600), rec

    # status shows the active run
    st = sc.status("nfl-week-13")
    assert st["activeRun"]["runId"] == run and set(st["activeRun"]) == RUN_KEYS
    assert [r["runId"] for r in st["activeRuns"]] == [run]

    # X reads until the run cap, then a skip; model micro-USD likewise
    left = []
    for _ in range(5):
        g = sc.reserve(run, "x", 1)
        assert set(g) == {"runId", "kind", "units", "expiresAt", "remaining"}, g
        assert g["kind"] == "x" and g["units"] == 1 and g["runId"] == run
        left.append(g["remaining"]["x"])
    assert left == [4, 3, 2, 1, 0]
    skip_of(sc.reserve(run, "x", 1), "budget_exhausted")
    assert sc.reserve(run, "model", 1000)["remaining"] == {"x": 0, "model": 200}
    skip_of(sc.reserve(run, "model", 201), "budget_exhausted")
    assert sc.reserve(run, "model", 200)["remaining"]["model"] == 0

    signals = [
        {"url": "https://x.com/ref_watch/status/1862", "author": "@ref_watch",
         "posted_at": "2025-11-29T20:01:02Z", "text": "No flag on that late hit out of bounds?!",
         "game_id": "cfb:2025-w13", "period": 4, "clock": "2:13"},
        {"url": "https://www.reddit.example/r/cfb/comments/abc", "text": None},
    ]
    done = sc.finish(run, signals, checkpoints={"since_id": "1862", "cursor": 7},
                     evaluations={"proposals": [{"signal": 0, "play": "late hit"}]},
                     report={"queries": 3, "notes": "quiet night"})
    assert done == {"runId": run, "key": "nfl-week-13", "status": "completed", "accepted": 2,
                    "duplicates": 0, "rejected": []}, done

    st = sc.status("nfl-week-13")
    assert st["checkpoints"] == {"cursor": 7, "since_id": "1862"}
    assert st["activeRun"] is None and st["activeRuns"] == []
    assert st["budgets"] == {"x": {"limit": 50, "used": 5, "remaining": 45},
                             "model": {"limit": 10000, "used": 1200, "remaining": 8800}}

    # the next run of the key starts from the stored checkpoints
    rec2 = sc.begin("nfl-week-13")
    assert rec2["checkpoints"] == {"cursor": 7, "since_id": "1862"}
    # checkpoints are per key: another key has none
    assert sc.status("other-key")["checkpoints"] is None


def test_second_begin_while_active_skips(kit):
    sc = kit.scout()
    first = rid()
    sc.begin("k", first)
    skip_of(sc.begin("k"), "run_active")
    # another key of the same credential runs independently
    other = sc.begin("k2")
    assert other["status"] == "running"
    # another credential with the same key too
    assert kit.scout().begin("k")["status"] == "running"
    st = sc.status()
    assert st["key"] is None and st["activeRun"] is None and st["checkpoints"] is None
    assert sorted(r["key"] for r in st["activeRuns"]) == ["k", "k2"]
    # once finished, the key is free again
    sc.finish(first)
    assert sc.begin("k")["status"] == "running"


def test_retried_begin_returns_the_same_receipt(kit):
    sc = kit.scout(x_per_run=3)
    run = rid()
    a = sc.post({"op": "begin", "key": "k", "runId": run})
    kit.clock.advance(30)
    b = sc.post({"op": "begin", "key": "k", "runId": run.upper()})  # the same UUID
    assert a.status_code == b.status_code == 200
    assert a.content == b.content
    sc.reserve(run, "x", 1)
    assert sc.post({"op": "begin", "key": "k", "runId": run}).content == a.content
    # the same runId with another key is a conflict, not a second run
    refused(sc.post({"op": "begin", "key": "other", "runId": run}), 409, "idempotency_conflict",
            "different key")
    # a runId of another credential is not this credential's
    refused(kit.scout().post({"op": "begin", "key": "k", "runId": run}), 400, "invalid_request",
            "runId")
    sc.finish(run)
    refused(sc.post({"op": "begin", "key": "k", "runId": run}), 409, "run_completed")


# ------------------------------------------------------------------ reservations


def concurrently(n, fn):
    results = [None] * n
    barrier = threading.Barrier(n)

    def go(i):
        barrier.wait()
        results[i] = fn(i)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_twenty_concurrent_reserves_never_exceed_the_run_cap(kit):
    sc = kit.scout(x_per_run=7, x_per_day=1000)
    run = sc.begin("k")["runId"]
    second = kit.second_server()  # two processes on one database

    def reserve(i):
        s = requests.Session()
        s.trust_env = False
        r = s.post((second if i % 2 else kit.server).url + SCOUT,
                   json={"op": "reserve", "runId": run, "kind": "x", "units": 1},
                   headers={"Authorization": f"Bearer {sc.secret}"}, timeout=30)
        s.close()
        assert r.status_code == 200, r.text
        return r.json()

    out = concurrently(20, reserve)
    granted = [o for o in out if "skip" not in o]
    skipped = [o for o in out if o.get("skip")]
    assert len(granted) == 7 and len(skipped) == 13, out
    assert all(o == {"skip": True, "reason": "budget_exhausted"} for o in skipped)
    assert sorted(o["remaining"]["x"] for o in granted) == [0, 1, 2, 3, 4, 5, 6]
    assert sc.status()["budgets"]["x"]["used"] == 7
    assert db_rows(kit.db, "SELECT count(*), sum(units) FROM scout_reservations") == [(7, 7)]


def test_twenty_concurrent_reserves_never_exceed_the_daily_cap(kit):
    sc = kit.scout(model_micro_usd_per_day=1000, model_micro_usd_per_run=1000)
    runs = [sc.begin(f"k{i}")["runId"] for i in range(4)]  # four runs share one day
    second = kit.second_server()

    def reserve(i):
        return sc.reserve(runs[i % 4], "model", 150, server=second if i % 2 else None)

    out = concurrently(20, reserve)
    granted = [o for o in out if "skip" not in o]
    assert len(granted) == 6, out  # 6 x 150 = 900 <= 1000 < 7 x 150
    st = sc.status()
    assert st["budgets"]["model"] == {"limit": 1000, "used": 900, "remaining": 100}
    skip_of(sc.reserve(runs[0], "model", 101), "budget_exhausted")
    assert sc.reserve(runs[0], "model", 100)["remaining"]["model"] == 0


def test_begin_skips_when_the_day_is_spent_and_the_day_resets_at_midnight(kit):
    sc = kit.scout(x_per_day=3, model_micro_usd_per_day=0, x_per_run=10)
    # move the server clock to 23:59:00 UTC of some day
    now = dt.datetime.now(dt.timezone.utc)
    to_2359 = (dt.datetime.combine(now.date(), dt.time(23, 59), dt.timezone.utc) - now)
    kit.clock.set(int(to_2359.total_seconds()))
    day = sc.status()["day"]
    run = sc.begin("k")
    assert run["remaining"] == {"x": 3, "model": 0}
    skip_of(sc.reserve(run["runId"], "model", 1), "budget_exhausted")
    sc.reserve(run["runId"], "x", 3)
    sc.finish(run["runId"])
    skip_of(sc.begin("k"), "budget_exhausted")
    assert sc.status()["budgets"]["x"] == {"limit": 3, "used": 3, "remaining": 0}
    kit.clock.advance(120)  # 00:01 the next UTC day
    st = sc.status()
    assert st["day"] != day
    assert st["budgets"]["x"] == {"limit": 3, "used": 0, "remaining": 3}
    assert sc.begin("k")["remaining"] == {"x": 3, "model": 0}


def test_units_above_every_budget_skip_and_huge_units_are_safe(kit):
    sc = kit.scout()
    run = sc.begin("k")["runId"]
    skip_of(sc.reserve(run, "x", 101), "budget_exhausted")
    skip_of(sc.reserve(run, "model", 2**62), "budget_exhausted")
    assert sc.status()["budgets"]["x"]["used"] == 0


def test_concurrent_begins_claim_one_run_per_key(kit):
    sc = kit.scout()
    second = kit.second_server()
    runs = [rid() for _ in range(10)]
    out = concurrently(10, lambda i: sc.begin("k", runs[i]) if i % 2 else
                       sc.ok({"op": "begin", "key": "k", "runId": runs[i]}, server=second))
    began = [o for o in out if "skip" not in o]
    assert len(began) == 1, out
    assert all(o == {"skip": True, "reason": "run_active"} for o in out if o is not began[0])
    assert [r["runId"] for r in sc.status()["activeRuns"]] == [began[0]["runId"]]


def test_concurrent_identical_finishes_record_once(kit):
    sc = kit.scout()
    run = sc.begin("k")["runId"]
    second = kit.second_server()
    body = json.dumps({"op": "finish", "runId": run, "signals": [
        {"url": f"https://n{i}.example.com/"} for i in range(50)]})
    out = concurrently(6, lambda i: sc.post(None, raw=body, server=second if i % 2 else None))
    assert all(r.status_code == 200 for r in out), [r.text for r in out]
    assert len({r.content for r in out}) == 1
    assert out[0].json()["accepted"] == 50
    assert db_rows(kit.db, "SELECT count(*) FROM scout_signals") == [(50,)]


# ------------------------------------------------------------------ finish


def test_finish_retry_identical_same_receipt_changed_409(kit):
    sc = kit.scout()
    run = sc.begin("k")["runId"]
    body = json.dumps({"op": "finish", "runId": run, "signals": [
        {"url": "https://news.example.com/a"}, {"url": "bad"}], "report": {"n": 1}})
    a = sc.post(None, raw=body)
    b = sc.post(None, raw=body)
    assert a.status_code == b.status_code == 200, (a.text, b.text)
    assert a.content == b.content
    assert a.json()["accepted"] == 1 and a.json()["rejected"][0]["index"] == 1
    # the same JSON serialized differently is not the identical payload
    refused(sc.post(None, raw=body.replace(", ", ",")), 409, "idempotency_conflict")
    refused(sc.post({"op": "finish", "runId": run, "signals": []}), 409, "idempotency_conflict")
    # nothing was recorded twice
    assert db_rows(kit.db, "SELECT count(*) FROM scout_signals") == [(1,)]
    # and the retry still answers after the lease has ended
    kit.clock.advance(DAY)
    assert sc.post(None, raw=body).content == a.content


def test_expired_run(kit):
    sc = kit.scout(run_seconds=60)
    run = sc.begin("k")["runId"]
    kit.clock.advance(59)
    sc.reserve(run, "x", 1)
    kit.clock.advance(1)  # the lease ends at startedAt + 60 s exactly
    refused(sc.post({"op": "finish", "runId": run, "signals": [
        {"url": "https://news.example.com/late"}]}), 409, "run_expired", run)
    refused(sc.post({"op": "reserve", "runId": run, "kind": "x", "units": 1}), 409,
            "run_expired")
    refused(sc.post({"op": "begin", "key": "k", "runId": run}), 409, "run_expired")
    st = sc.status("k")
    assert st["activeRun"] is None and st["activeRuns"] == []
    assert st["budgets"]["x"]["used"] == 1  # a reservation is spent whether used or not
    # the expired run freed its key
    assert sc.begin("k")["status"] == "running"
    assert db_rows(kit.db, "SELECT count(*) FROM scout_signals") == [(0,)]


def test_signals_deduplicated_across_runs_and_invalid_items_reported(kit):
    sc = kit.scout()
    r1 = sc.begin("a")["runId"]
    text = "Replay clearly showed the knee was down before the fumble, terrible call"
    first = sc.finish(r1, [
        {"url": "https://twitter.com/fan1/status/99?s=20", "game_id": "cfb:2025-w13",
         "period": 2, "clock": "11:04"},
        {"url": "https://news.example.com/story?utm_source=x", "text": text},
        {"url": "https://news.example.com/story"},  # the same story, in the same payload
    ])
    assert (first["accepted"], first["duplicates"], first["rejected"]) == (2, 1, [])
    r2 = kit.scout().begin("b")["runId"]  # another credential, another run
    other = [s for s in kit.scouts if s is not sc][0]
    second = other.finish(r2, [
        {"url": "https://x.com/fan1/status/99"},  # canonical URL seen before
        {"url": "https://copycat.example.org/p/1", "text": text.upper() + " https://t.co/z"},
        {"url": "https://fresh.example.net/1", "text": "short"},
        {"url": "ftp://nope.example/x"},
        {"url": "https://fresh.example.net/2", "period": 31},
        {"url": "https://fresh.example.net/3", "likes": 4},
        "https://not-an-object.example",
        {"url": "https://fresh.example.net/4", "clock": "2:60"},
        {"url": "https://fresh.example.net/5", "posted_at": "2025-13-01"},
        {"url": "https://fresh.example.net/6", "game_id": "has space"},
    ])
    assert second["accepted"] == 1 and second["duplicates"] == 2, second
    assert [(x["index"], x["field"]) for x in second["rejected"]] == [
        (3, "url"), (4, "period"), (5, "likes"), (6, None), (7, "clock"), (8, "posted_at"),
        (9, "game_id")]
    for x in second["rejected"]:
        assert set(x) == {"index", "field", "message"} and x["message"], x


def test_signal_limits(kit):
    sc = kit.scout()
    run = sc.begin("k")["runId"]
    many = [{"url": f"https://many.example.com/{i}"} for i in range(501)]
    refused(sc.post({"op": "finish", "runId": run, "signals": many}), 400, "invalid_request",
            "signals", "500")
    # the run is still running: the refused finish wrote nothing
    assert sc.status("k")["activeRun"]["runId"] == run
    done = sc.finish(run, many[:500])
    assert done["accepted"] == 500
    # 500 signals with long texts fit in the body limit; more than 1 MiB is 413
    run = sc.begin("k")["runId"]
    big = [{"url": f"https://big.example.com/{i}", "text": "x" * 2500} for i in range(420)]
    r = sc.post({"op": "finish", "runId": run, "signals": big})
    refused(r, 413, "payload_too_large")


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("body,fragment", [
    ({}, "op is required"),
    ({"op": "dance"}, "op must be one of"),
    ({"op": None}, "op must be one of"),
    ({"op": "status", "verbose": True}, "unsupported field verbose"),
    ({"op": "status", "runId": "11111111-1111-4111-8111-111111111111"}, "runId is not a field"),
    ({"op": "status", "key": ""}, "key must be"),
    ({"op": "status", "key": "k" * 101}, "key must be"),
    ({"op": "status", "key": ["k"]}, "key must be"),
    ({"op": "begin", "runId": "11111111-1111-4111-8111-111111111111"}, "key is required"),
    ({"op": "begin", "key": "k"}, "runId is required"),
    ({"op": "begin", "key": "k", "runId": "run-1"}, "runId must be a UUID"),
    ({"op": "begin", "key": "k", "runId": 12}, "runId must be a UUID"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "x"},
     "units is required"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "units": 1},
     "kind is required"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "gpu",
      "units": 1}, "kind must be"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "x",
      "units": 0}, "units must be an integer >= 1"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "x",
      "units": -5}, "units must be an integer >= 1"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "x",
      "units": "3"}, "units must be an integer"),
    ({"op": "reserve", "runId": "11111111-1111-4111-8111-111111111111", "kind": "x",
      "units": 2.5}, "units must be an integer"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111"}, "signals is required"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111", "signals": "none"},
     "signals must be an array"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111", "signals": [],
      "checkpoints": []}, "checkpoints must be a JSON object"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111", "signals": [],
      "evaluations": "good"}, "evaluations must be a JSON object"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111", "signals": [],
      "checkpoints": {"k": "x" * 17000}}, "checkpoints must be at most"),
    ({"op": "finish", "runId": "11111111-1111-4111-8111-111111111111", "signals": [],
      "kind": "x"}, "kind is not a field of op finish"),
])
def test_bad_input_400_names_the_field(kit, body, fragment):
    sc = kit.scout()
    refused(sc.post(body), 400, "invalid_request", fragment)


def test_bad_bodies_and_requests(kit):
    sc = kit.scout()
    refused(sc.post(None, raw="{not json"), 400, "invalid_request", "not valid JSON")
    refused(sc.post(None, raw='{"op":"status","op":"status"}'), 400, "invalid_request")
    refused(sc.post(None, raw="[]"), 400, "invalid_request", "JSON object")
    refused(sc.post({"op": "status"}, headers={"Content-Type": "text/plain"}), 400,
            "invalid_request", "Content-Type")
    r = sc.http.post(kit.server.url + SCOUT + "?op=status", json={"op": "status"},
                     headers={"Authorization": f"Bearer {sc.secret}"})
    refused(r, 400, "invalid_request")
    r = sc.http.get(kit.server.url + SCOUT, headers={"Authorization": f"Bearer {sc.secret}"})
    refused(r, 405, "method_not_allowed")
    assert r.headers["Allow"] == "POST"
    # a runId that is unknown, or another credential's, is 400 for reserve and finish
    other_run = kit.scout().begin("k")["runId"]
    for run in (other_run, rid()):
        refused(sc.post({"op": "reserve", "runId": run, "kind": "x", "units": 1}), 400,
                "invalid_request", "not a run of this scout credential")
        refused(sc.post({"op": "finish", "runId": run, "signals": []}), 400,
                "invalid_request", "not a run of this scout credential")


# ------------------------------------------------------------------ credentials


def test_credential_matrix(kit):
    sc = kit.scout()
    agent = kit.agent_key()
    s = requests.Session()
    s.trust_env = False
    status = json.dumps({"op": "status"})

    def scout_call(auth, cookies=None):
        h = {"Content-Type": "application/json"}
        if auth:
            h["Authorization"] = auth
        return s.post(kit.server.url + SCOUT, data=status, headers=h, cookies=cookies)

    # the scout endpoint: only a scout credential
    assert scout_call(f"Bearer {sc.secret}").status_code == 200
    refused(scout_call(None), 403, "invalid_credential", "scout credential is required")
    refused(scout_call(f"Bearer {agent}"), 403, "invalid_credential", "agent key")
    refused(scout_call(f"Basic {sc.secret}"), 403, "invalid_credential")
    # one character changed (never to itself: the secret may already end in "A")
    typo = sc.secret[:-1] + ("B" if sc.secret.endswith("A") else "A")
    refused(scout_call(f"Bearer {typo}"), 403, "invalid_credential", "malformed")
    refused(scout_call("Bearer ws_" + "A" * 49), 403, "invalid_credential")
    # a browser session (any cookie) is not a credential here
    page = s.get(kit.server.url + "/")
    assert page.status_code == 200
    refused(scout_call(None, cookies=s.cookies.get_dict() or {"session": "x"}), 403,
            "invalid_credential")

    # the agent endpoints: a scout credential is refused
    h = {"Authorization": f"Bearer {sc.secret}", "Content-Type": "application/json",
         "Idempotency-Key": idem()}
    r = s.post(kit.server.url + LEADS, data=json.dumps(lead_body()), headers=h)
    refused(r, 403, "invalid_credential", "scout credential")
    r = s.get(f"{kit.server.url}{LEADS}/{rid()}", headers={"Authorization": f"Bearer {sc.secret}"})
    refused(r, 403, "invalid_credential", "scout credential")
    # … while an agent key works there and no credential stays 401
    h["Authorization"] = f"Bearer {agent}"
    r = s.post(kit.server.url + LEADS, data=json.dumps(lead_body()), headers=h)
    assert r.status_code == 202, r.text
    lead = r.json()["data"]["id"]
    assert s.get(f"{kit.server.url}{LEADS}/{lead}",
                 headers={"Authorization": f"Bearer {agent}"}).status_code == 200
    r = s.post(kit.server.url + LEADS, data=json.dumps(lead_body()),
               headers={"Content-Type": "application/json", "Idempotency-Key": idem()})
    refused(r, 401, "invalid_credential")
    refused(s.get(f"{kit.server.url}{LEADS}/{lead}"), 401, "invalid_credential")
    s.close()


def test_revoked_expired_and_disabled_credentials(kit):
    sc = kit.scout(expires_days=1)
    run = sc.begin("k")["runId"]
    # disabled: authenticates, but begin and reserve skip
    out = json.loads(kit.cli("scout-key", "disable", sc.id, "--json").stdout)
    assert out["state"] == "disabled"
    assert sc.status()["enabled"] is False
    skip_of(sc.begin("k2"), "disabled")
    skip_of(sc.reserve(run, "x", 1), "disabled")
    assert kit.cli("scout-key", "enable", sc.id).returncode == 0
    assert sc.status()["enabled"] is True
    sc.reserve(run, "x", 1)
    # expired (after --expires-days)
    kit.clock.advance(DAY)
    refused(sc.post({"op": "status"}), 403, "invalid_credential", "expired")
    kit.clock.set(0)
    # revoked: at once
    r = kit.cli("scout-key", "revoke", sc.id, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["state"] == "revoked"
    refused(sc.post({"op": "status"}), 403, "invalid_credential", "revoked")
    r = kit.cli("scout-key", "revoke", sc.id)
    assert r.returncode == 1 and "already revoked" in r.stderr


def test_candidate_creation_is_a_server_setting(kit, server_factory):
    sc = kit.scout()
    assert sc.status()["candidateCreation"] is False
    on = kit.second_server(extra=("--scout-candidates",))
    assert sc.ok({"op": "status"}, server=on)["candidateCreation"] is True


def test_responses_reveal_no_incidents(kit):
    sc = kit.scout()
    run = sc.begin("k")["runId"]
    done = sc.finish(run, [{"url": "https://news.example.com/x", "game_id": "cfb:2025-w13",
                            "period": 4, "clock": "2:13", "text": "x" * 40}])
    bodies = json.dumps([sc.status("k"), done])
    ids = [r[0] for r in db_rows(kit.db, "SELECT id FROM incidents")]
    assert ids
    for i in ids:
        assert i not in bodies
    assert "incident" not in bodies.lower() and "candidate\"" not in bodies


# ------------------------------------------------------------------ operator commands


def test_scout_key_create_list_and_no_secret_stored(kit):
    r = kit.cli("scout-key", "create", "--name", "nightly", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == CRED_KEYS | {"secret"}, out
    assert SECRET_RE.match(out["secret"]) and out["prefix"] == out["secret"][:10]
    assert (out["x_per_day"], out["model_micro_usd_per_day"], out["x_per_run"],
            out["model_micro_usd_per_run"], out["run_seconds"]) == (1000, 5000000, 100, 500000,
                                                                  900)
    assert out["state"] == "active" and out["expires_at"] is None
    r = kit.cli("scout-key", "list", "--json")
    assert r.returncode == 0 and out["secret"] not in r.stdout and out["secret"][3:] not in r.stdout
    rows = json.loads(r.stdout)["scout_keys"]
    assert [x["id"] for x in rows] == [out["id"]]
    assert set(rows[0]) == CRED_KEYS
    r = kit.cli("scout-key", "list")
    assert r.returncode == 0 and out["id"] in r.stdout and "nightly" in r.stdout
    for f in Path(kit.db).parent.glob("whistle.db*"):
        assert out["secret"].encode() not in f.read_bytes(), f
    assert out["secret"].encode() not in db_bytes(kit.db)  # the files of either driver
    # text mode says the secret is shown once
    r = kit.cli("scout-key", "create", "--name", "text")
    assert r.returncode == 0 and "shown once" in r.stderr
    assert SECRET_RE.match(json.loads(r.stdout)["secret"])


def test_scout_key_set_budget(kit):
    sc = kit.scout(x_per_run=2)
    run = sc.begin("k")["runId"]
    r = kit.cli("scout-key", "set-budget", sc.id, "--x-per-day", "7", "--x-per-run", "5",
                "--run-seconds", "120", "--model-micro-usd-per-day", "3",
                "--model-micro-usd-per-run", "3", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["x_per_day"], out["x_per_run"], out["run_seconds"], out["model_micro_usd_per_day"],
            out["model_micro_usd_per_run"]) == (7, 5, 120, 3, 3)
    st = sc.status()
    assert st["budgets"]["x"]["limit"] == 7 and st["perRun"] == {"x": 5, "model": 3,
                                                                 "seconds": 120}
    # a running run keeps the caps it began with; the daily limit applies at once
    assert sc.reserve(run, "x", 2)["remaining"]["x"] == 0
    sc.finish(run)
    rec = sc.begin("k")
    assert rec["remaining"] == {"x": 5, "model": 3}
    assert parse_ts(rec["expiresAt"]) - parse_ts(rec["startedAt"]) == dt.timedelta(seconds=120)
    sc.reserve(rec["runId"], "x", 5)
    sc.reserve(rec["runId"], "model", 3)
    sc.finish(rec["runId"])
    # 7 X reads per day: 2 + 5 used; 3 model micro-USD: 3 used
    skip_of(sc.begin("k"), "budget_exhausted")


@pytest.mark.parametrize("args,code,fragment", [
    (("scout-key",), 2, "usage"),
    (("scout-key", "frobnicate"), 2, "usage"),
    (("scout-key", "create"), 2, "usage"),
    (("scout-key", "create", "--name", ""), 1, "--name"),
    (("scout-key", "create", "--name", "\udcff"), 1, "--name"),  # invalid UTF-8
    (("scout-key", "create", "--name", "a\tb"), 1, "--name"),
    (("scout-key", "create", "--name", "n", "--x-per-day", "-1"), 1, "--x-per-day"),
    (("scout-key", "create", "--name", "n", "--x-per-run", "ten"), 1, "--x-per-run"),
    (("scout-key", "create", "--name", "n", "--run-seconds", "5"), 1, "--run-seconds"),
    (("scout-key", "create", "--name", "n", "--expires-days", "0"), 1, "--expires-days"),
    (("scout-key", "set-budget", "11111111-1111-4111-8111-111111111111"), 2, "usage"),
    (("scout-key", "set-budget", "11111111-1111-4111-8111-111111111111", "--x-per-day", "1"),
     1, "no scout credential"),
    (("scout-key", "revoke", "not-a-uuid"), 1, "UUID"),
    (("scout-key", "disable"), 2, "usage"),
])
def test_scout_key_refusals(kit, args, code, fragment):
    r = kit.cli(*args)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert fragment in r.stderr, r.stderr
    assert "ws_" not in r.stdout


# ------------------------------------------------------------------ the OpenAPI document


def test_answers_match_the_openapi_document(kit):
    from jsonschema import Draft202012Validator, FormatChecker, RefResolver

    doc = kit.server.json("/api/v1/openapi.json")
    op = doc["paths"][SCOUT]["post"]
    assert op["security"] == [{"scoutCredential": []}]
    assert doc["components"]["securitySchemes"]["scoutCredential"]["scheme"] == "bearer"

    def check(name, instance):
        v = Draft202012Validator({"$ref": f"#/components/schemas/{name}"},
                                 resolver=RefResolver(base_uri="", referrer=doc),
                                 format_checker=FormatChecker())
        errors = list(v.iter_errors(instance))
        assert not errors, (name, instance, [e.message for e in errors[:5]])

    sc = kit.scout(x_per_run=1)
    run = rid()
    begin_body = {"op": "begin", "key": "k", "runId": run}
    check("ScoutRequest", begin_body)
    receipt = sc.ok(begin_body)
    check("ScoutRunReceipt", receipt)
    check("ScoutResponse", receipt)
    check("ScoutStatus", sc.status("k"))
    check("ScoutStatus", sc.status())
    check("ScoutReservation", sc.reserve(run, "x", 1))
    check("ScoutSkip", sc.reserve(run, "x", 1))
    done = sc.finish(run, [{"url": "https://a.example/1"}, {"url": "nope"}],
                     checkpoints={"c": 1})
    check("ScoutFinishReceipt", done)
    check("ScoutStatus", sc.status("k"))
    for ex in op["requestBody"]["content"]["application/json"]["examples"].values():
        check("ScoutRequest", ex["value"])
    for ex in op["responses"]["200"]["content"]["application/json"]["examples"].values():
        check("ScoutResponse", ex["value"])


# ------------------------------------------------------------------ signals in research


@pytest.mark.parametrize("candidates", [True, False])
def test_scout_signals_feed_research_only_when_the_server_says_so(server_factory, tmp_path,
                                                                   candidates):
    """One publisher is not independent discussion (docs/research.md); completed scout
    signals about the same game and play from two more domains are, with --scout-candidates."""
    from leadkit import LeadKit
    from test_research import MENTION, Origin, wait_status

    origin = Origin("127.0.0.2")
    try:
        leads = LeadKit(server_factory, tmp_path)
        leads.db = server_factory.new_db("main.json")
        extra = ["--poll-ms", "20", "--allow-fetch", origin.allow, "--auto-publish"]
        if candidates:
            extra.append("--scout-candidates")
        leads.server = server_factory.start(db=leads.db, threads=2, env=leads.clock.env,
                                            extra=extra)
        kit = ScoutKit(server_factory, tmp_path)
        kit.db, kit.server, kit.clock = leads.db, leads.server, leads.clock
        sc = kit.scout()
        assert sc.status()["candidateCreation"] is candidates
        run = sc.begin("cfb-week-13")["runId"]
        play = {"game_id": "cfb:2025-w13", "period": 4}
        done = sc.finish(run, [
            {"url": "https://x.com/fan/status/77", "clock": "2:20", **play},
            {"url": "https://news.example.com/late-flag", **play},  # no clock: any clock
            {"url": "https://far.example.org/other-play", "clock": "9:00", **play},
            {"url": "https://wrong-period.example.net/", "clock": "2:13",
             "game_id": "cfb:2025-w13", "period": 3},
        ])
        assert done["accepted"] == 4
        url = origin.page("/story", MENTION.format(title="Late flag", site="Alpha"))
        agent = leads.agent()
        lead = agent.submit(lead_body(source_urls=[url], period=4, clock="2:13"))
        d = wait_status(agent, lead, {"rejected", "published", "failed"})
        assert d["status"] == ("published" if candidates else "rejected"), d
        # the scout learns nothing about it
        assert set(sc.status("cfb-week-13")) == STATUS_KEYS
        leads.close()
        kit.close()
    finally:
        origin.close()
