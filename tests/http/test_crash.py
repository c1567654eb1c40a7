"""Crash tests (issue 3 "Tests and figures", issue 14 item 10): bounded concurrent writes
while the server is killed with SIGKILL at random moments, then a restart on the same
database: every write that got a success answer before a kill is there afterwards (N acked,
0 lost), on both store drivers. One harness (sigkill_rounds) runs the rounds for both tests.

- test_sigkill_loses_no_acknowledged_lead: agent leads, with their Idempotency-Keys: every
  lead that got a 202 is readable, every acknowledged key still maps to its one lead, and a
  request cut off by a kill settles on one lead or on nothing when re-sent.
- test_sigkill_loses_no_acknowledged_write: one thread per kind of write — Fan Verdict
  ballots, sign-ups, API keys (/developers), scout finishes, comments and desk actions
  (an incident's status, an account's ban and unban) — each checked in the database (or,
  for ballots, on the voter's own page) after the last restart.

Lead quotas must not get in the way: every submission advances the test clock by STEP seconds
(192 leads per 24 h of test-clock time for all agents together, under the global 200) and
each thread rotates over ACCOUNTS accounts (far under 3 per minute and 20 per day each).
The whole run stays under the 7-day idempotency retention (MAX_ATTEMPTS * STEP < 7 days),
so every acknowledged request can be replayed at the end.

Figures go to tests/http/artifacts/crash.json (leads: acked, lost, rounds, …) for the
benchmark, and crash-writes.json (per kind of write).
"""

import json
import os
import random
import re
import threading
import time
import uuid

import requests

from accountkit import PASSWORD, Browser, text
from commentkit import Kit, addr
from helpers import BIN, DRIVER, HERE, I2, Server, db_rows
from leadkit import LeadKit, idem, lead_body
from pagekit import Voter, vote_form

ROUNDS = 5
THREADS = 4
ACCOUNTS = 10           # per thread
STEP = 450              # test-clock seconds per submission
MAX_ATTEMPTS = 1250     # 1250 * 450 s = 6.5 days < 7-day idempotency retention
PAUSE = 0.01            # seconds between a thread's submissions
ARTIFACT = HERE / "artifacts" / ("crash.json" if DRIVER == "sqlite" else f"crash-{DRIVER}.json")


def _write_artifact(fig, path=ARTIFACT):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(fig, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _kill(server):
    server.proc.kill()
    server.proc.wait(timeout=10)
    server.reader.join(timeout=5)
    server.http.close()


def sigkill_rounds(rounds, start, workers, rng, delay=(0.2, 1.0)):
    """The harness: `rounds` times, start() a server on the test's database, run each
    worker(server, stop) in a thread of its own, SIGKILL the server after a random delay
    while they are writing, then stop and join them (each worker bounds its own attempts;
    a request cut off by the kill raises in the worker, which counts it as unknown). Returns
    one {"round", "kill_after_s"} per round."""
    stats = []
    for rnd in range(rounds):
        server = start()
        stop = threading.Event()
        ts = [threading.Thread(target=w, args=(server, stop)) for w in workers]
        for t in ts:
            t.start()
        d = rng.uniform(*delay)
        time.sleep(d)
        _kill(server)  # SIGKILL while requests are in flight
        stop.set()
        for t in ts:
            t.join(30)
        assert not any(t.is_alive() for t in ts)
        stats.append({"round": rnd + 1, "kill_after_s": round(d, 3)})
    return stats


def test_sigkill_loses_no_acknowledged_lead(leads):
    t_start = time.monotonic()
    seed = int(time.time() * 1000) & 0xFFFFFFFF
    rng = random.Random(seed)
    kit: LeadKit = leads
    kit.db = kit.factory.new_db()
    clock = kit.clock
    pools = [[kit.agent() for _ in range(ACCOUNTS)] for _ in range(THREADS)]

    acked = []          # (agent, idem key, raw body, lead id)
    unknown = []        # requests in flight when the server died: (agent, key, raw)
    statuses = {}
    other = []          # non-202 answers (quota refusals are not expected, but tolerated)
    lock = threading.Lock()
    attempts = [0]

    def worker(tid, server, stop):
        sess = requests.Session()
        sess.trust_env = False
        n = 0
        try:
            while not stop.is_set():
                with lock:
                    if attempts[0] >= MAX_ATTEMPTS:
                        return
                    attempts[0] += 1
                agent = pools[tid][n % ACCOUNTS]
                n += 1
                key = f"crash-{tid}-{idem()}"
                raw = json.dumps(lead_body())
                clock.advance(STEP)
                try:
                    r = agent.post(raw=raw, idem_key=key, server=server, session=sess,
                                   timeout=5)
                except requests.RequestException:
                    with lock:
                        unknown.append((agent, key, raw))
                    continue
                with lock:
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                    if r.status_code == 202:
                        lid = r.json()["data"]["id"]
                        acked.append((agent, key, raw, lid))
                    else:
                        other.append((r.status_code, r.text[:200], clock.value))
                time.sleep(PAUSE)
        finally:
            sess.close()

    starts = []

    def start():
        starts.append((len(acked), attempts[0]))
        return Server(kit.db, threads=THREADS, env=clock.env, extra=("--no-worker",))

    workers = [lambda server, stop, i=i: worker(i, server, stop) for i in range(THREADS)]
    round_stats = sigkill_rounds(ROUNDS, start, workers, rng)
    ends = starts[1:] + [(len(acked), attempts[0])]
    for st, (a0, n0), (a1, n1) in zip(round_stats, starts, ends):
        st.update({"attempts": n1 - n0, "acked": a1 - a0})

    # restart cleanly and check every acknowledged lead
    server = kit.factory.start(db=kit.db, threads=THREADS, env=clock.env, extra=("--no-worker",))
    lost, mismatched, replay_refused = [], [], []
    for agent, key, raw, lid in acked:
        r = agent.get(lid, server=server)
        if r.status_code != 200 or r.json()["data"]["id"] != lid:
            lost.append((lid, r.status_code))
        r = agent.post(raw=raw, idem_key=key, server=server)
        if r.status_code != 202:
            replay_refused.append((key, r.status_code, r.text[:200]))
        elif r.json()["data"]["id"] != lid:
            mismatched.append((key, lid, r.json()["data"]["id"]))
    # requests cut off by the kill: retrying them is safe and settles on one lead each. A
    # retry of a request that was never committed is a new lead and may meet the quota (the
    # last 24 h of test-clock time are nearly full): a 429 then shows nothing was committed
    # under that key, since a replay would have been answered first.
    unsettled, retry_quota = [], 0
    for agent, key, raw in unknown:
        r1 = agent.post(raw=raw, idem_key=key, server=server)
        if r1.status_code == 429:
            retry_quota += 1
            continue
        r2 = agent.post(raw=raw, idem_key=key, server=server)
        if not (r1.status_code == r2.status_code == 202
                and r1.json()["data"]["id"] == r2.json()["data"]["id"]):
            unsettled.append((key, r1.status_code, r2.status_code))
            continue
        lid = r1.json()["data"]["id"]
        if agent.get(lid, server=server).status_code != 200:
            unsettled.append((key, "get", lid))
    ids = [a[3] for a in acked]
    duplicates = len(ids) - len(set(ids))
    fig = {
        "rounds": ROUNDS,
        "threads": THREADS,
        "attempts": attempts[0],
        "acked": len(acked),
        "lost": len(lost),
        "replay_mismatches": len(mismatched),
        "replay_refused": len(replay_refused),
        "in_flight_at_kill": len(unknown),
        "in_flight_unsettled": len(unsettled),
        "in_flight_retry_quota_refused": retry_quota,
        "duplicate_ids": duplicates,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "other_answers": other[:10],
        "per_round": round_stats,
        "seed": seed,
        "binary": BIN,
        "seconds": round(time.monotonic() - t_start, 2),
    }
    _write_artifact(fig)
    assert len(acked) > 0, fig
    assert lost == [], (fig, lost[:5])
    assert mismatched == [], (fig, mismatched[:5])
    assert replay_refused == [], (fig, replay_refused[:5])
    assert unsettled == [], (fig, unsettled[:5])
    assert duplicates == 0, fig


# ------------------------------------------------------------------ every kind of write

WRITE_ROUNDS = 4
WRITE_MAX = 150  # attempts per kind of write over the whole run
WRITE_LIMITS = ("--vote-limit-voter", "100000", "--vote-limit-ip", "1000000",
                "--anon-vote-limit-ip", "1000000", "--new-voter-limit-ip", "1000000",
                "--comment-limit-account", "100000", "--comment-limit-ip", "1000000",
                "--max-agent-keys", "1000", "--signup-limit-ip", "1000000")
BALLOT_SLUG = "alpha-bravo-late-hit"
COMMENT_SLUG = "charlie-delta-third-down-no-call"  # I2
CHOICES = ("correct", "incorrect", "unsure")


class WriteKind:
    """One kind of acknowledged write: attempt(n, server) sends write number n and returns
    (status, record), record kept when the answer is the kind's success; present(record)
    looks for it after the last restart. Requests cut off by a kill are counted apart."""

    def __init__(self, name, ok_status, attempt, present):
        self.name, self.ok_status = name, ok_status
        self.attempt, self.present = attempt, present
        self.acked, self.statuses, self.in_flight, self.n = [], {}, 0, 0  # in_flight: no answer

    def worker(self, server, stop):
        while not stop.is_set() and self.n < WRITE_MAX:
            self.n += 1
            try:
                status, rec = self.attempt(self.n, server)
            except requests.RequestException:
                self.in_flight += 1
                time.sleep(0.02)  # the server is dead until the next round: do not spin
                continue
            except AssertionError:  # a page without the form (e.g. already banned)
                status, rec = "no form", None
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == self.ok_status:
                self.acked.append(rec)
            else:
                time.sleep(0.02)


def _rows(db, sql):
    return db_rows(db, sql)[0][0]


def _request_id(r):
    rid = r.headers.get("X-Request-Id", "")
    assert re.fullmatch(r"[0-9a-f]{16}", rid), r.headers
    return rid


def test_sigkill_loses_no_acknowledged_write(server_factory, tmp_path):
    t_start = time.monotonic()
    seed = int(time.time() * 1000) & 0xFFFFFFFF
    rng = random.Random(seed)
    kit = Kit(server_factory, tmp_path, extra=WRITE_LIMITS)
    db = kit.db
    editor, admin = kit.user("Crash Editor"), kit.user("Crash Admin")
    assert kit.cli("account", "grant", editor.email, "editor").returncode == 0
    assert kit.cli("account", "grant", admin.email, "admin").returncode == 0
    target = kit.user("Crash Target")
    target_id = _rows(db, f"SELECT id FROM accounts WHERE email = '{target.email}'")
    keymaker, commenter = kit.user(), kit.user("Crash Commenter")
    r = kit.cli("scout-key", "create", "--name", "crash-scout", "--json")
    assert r.returncode == 0, r.stderr
    scout_secret = json.loads(r.stdout)["secret"]
    voters = [Voter(kit.server) for _ in range(6)]
    for v in voters:
        v.view(f"/incidents/{BALLOT_SLUG}")
    qv = int(vote_form(voters[0].view(f"/incidents/{BALLOT_SLUG}")[1])["question_version"])
    args = ["--smtp-url", kit.acc.sink.url, "--password-memory-kib", "8192", *WRITE_LIMITS,
            "--no-worker"]
    assert kit.server.stop() == 0
    browsers = [editor, admin, keymaker, commenter]
    http = requests.Session()
    http.trust_env = False

    # ballots: one thread, a pool of voters changing their minds; the page must show the last
    # acknowledged choice, or a later one whose answer the kill cut off
    last_ack, after_ack = {}, {}

    def ballot(n, server):
        v = voters[n % len(voters)]
        v.server = server
        choice = CHOICES[rng.randrange(3)]
        after_ack.setdefault(n % len(voters), set()).add(choice)
        r = v.vote(BALLOT_SLUG, choice, qv=qv)
        if r.status_code == 200:
            last_ack[n % len(voters)] = choice
            after_ack[n % len(voters)] = set()
        return r.status_code, (n % len(voters), choice)

    def ballot_present(rec):
        i, _ = rec
        v = voters[i]
        _, doc = v.view(f"/incidents/{BALLOT_SLUG}")
        shown = next((c for c, b in vote_form(doc)["buttons"].items()
                      if b.get("aria-pressed") == "true"), "")
        return shown == last_ack[i] or shown in after_ack[i]

    def signup(n, server):
        b = Browser(server)
        try:
            email = addr("crash-signup")
            r = b.form_post("/account/signup", "signup-form",
                            {"email": email, "password": f"{PASSWORD} {n}"})
            return r.status_code, email
        finally:
            b.close()

    def key(n, server):
        keymaker.server = server
        name = f"crash-key-{n}-{uuid.uuid4().hex[:8]}"
        r = keymaker.form_post("/developers", "create-key-form", {"name": name})
        return r.status_code, name

    def scout_finish(n, server):
        run = str(uuid.uuid4())
        h = {"Authorization": f"Bearer {scout_secret}", "Content-Type": "application/json"}
        r = http.post(server.url + "/api/agents/v1/scout", headers=h, timeout=10,
                      data=json.dumps({"op": "begin", "key": f"crash-{run}", "runId": run}))
        if r.status_code != 200:
            return r.status_code, None
        signal = {"url": f"https://x.example/status/{run}", "text": f"crash signal {n}"}
        r = http.post(server.url + "/api/agents/v1/scout", headers=h, timeout=10,
                      data=json.dumps({"op": "finish", "runId": run, "signals": [signal]}))
        return r.status_code, run

    def comment(n, server):
        commenter.server = server
        commenter.get(f"/incidents/{COMMENT_SLUG}")  # the page's CSRF token
        r = commenter.post(f"/incidents/{COMMENT_SLUG}/comments",
                           {"body": f"Crash test comment number {n}, {uuid.uuid4()}."})
        m = re.search(r"#c-([0-9a-f-]{36})$", r.headers.get("Location", ""))
        return r.status_code, m.group(1) if m else None

    def desk(n, server):
        editor.server = admin.server = server
        if n % 2:
            status = ("corroborated", "explained", "developing")[n % 3]
            r = editor.form_post(f"/desk/incidents/{I2}", "status", {"status": status})
        elif n % 4:
            r = admin.form_post(f"/desk/accounts/{target_id}", "ban",
                                {"reason": f"crash {n}", "password": PASSWORD})
        else:
            r = admin.form_post(f"/desk/accounts/{target_id}", "unban", {"reason": f"crash {n}"})
        return r.status_code, _request_id(r)

    kinds = [
        WriteKind("ballot", 200, ballot, ballot_present),
        WriteKind("signup", 200, signup,
                  lambda e: _rows(db, f"SELECT count(*) FROM accounts WHERE email = '{e}'") == 1),
        WriteKind("api_key", 200, key,
                  lambda k: _rows(db, f"SELECT count(*) FROM agent_keys WHERE name = '{k}'") == 1),
        WriteKind("scout_finish", 200, scout_finish,
                  lambda run: _rows(db, "SELECT count(*) FROM scout_runs WHERE id ="
                                        f" '{run}' AND status = 'completed'") == 1),
        WriteKind("comment", 303, comment,
                  lambda c: _rows(db, f"SELECT count(*) FROM comments WHERE id = '{c}'") == 1),
        WriteKind("desk_action", 303, desk,
                  lambda rid: _rows(db, "SELECT count(*) FROM audit_log WHERE request_id ="
                                        f" '{rid}'") == 1),
    ]

    def start():
        return Server(db, threads=4, env=kit.clock.env, extra=args)

    try:
        round_stats = sigkill_rounds(WRITE_ROUNDS, start, [k.worker for k in kinds], rng,
                                     delay=(0.5, 1.5))
        server = server_factory.start(db=db, threads=4, env=kit.clock.env, extra=args)
        for b in [*browsers, *voters]:
            b.server = server
        lost = {k.name: [rec for rec in k.acked if not k.present(rec)] for k in kinds}
    finally:
        http.close()
        for v in voters:
            v.close()
        kit.close()
    fig = {
        "rounds": WRITE_ROUNDS,
        "per_round": round_stats,
        "kinds": {k.name: {"attempts": k.n, "acked": len(k.acked), "lost": len(lost[k.name]),
                           "no_answer": k.in_flight,  # in flight at a kill, or sent just after
                           "statuses": {str(c): m for c, m in k.statuses.items()}}
                  for k in kinds},
        "seed": seed,
        "seconds": round(time.monotonic() - t_start, 2),
    }
    _write_artifact(fig, ARTIFACT.with_name(ARTIFACT.name.replace("crash", "crash-writes")))
    for k in kinds:
        assert k.acked, (k.name, fig)
    assert all(v == [] for v in lost.values()), (fig, {k: v[:3] for k, v in lost.items()})
