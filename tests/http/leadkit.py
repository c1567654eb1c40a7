"""Helpers for the agent-lead tests (issue 3; docs/agents.md is the contract).

A LeadKit owns one test clock (the WHISTLE_TEST_NOW_OFFSET_FILE hook), one database and the
server started on it, and creates agents (accounts with keys) through the operator CLI with
the same clock. An Agent sends POST/GET agent-leads with its Bearer key.
"""

import itertools
import json
import os
import re
import threading
import time
from pathlib import Path

import requests

from helpers import BASE, UTC_TS_RE, UUID_RE, parse_ts, run_cli

LEADS = "/api/v1/agent-leads"
GAME = "cfb:2025-w13"
KEY_RE = re.compile(r"^wk_[0-9A-Za-z]{49}$")
IDEM_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-"
POLICY = {"minute": {"q": 3, "w": 60}, "day": {"q": 20, "w": 86400},
          "global": {"q": 200, "w": 86400}}
DAY = 86400

_seq = itertools.count(1)


def uniq():
    return f"{os.getpid()}-{next(_seq)}-{time.monotonic_ns()}"


def lead_body(**over):
    """A valid AgentLead; keyword arguments replace (or, with value DROP, remove) fields."""
    body = {
        "game_id": GAME,
        "description": f"Late hit out of bounds on the quarterback not flagged ({uniq()})",
        "source_urls": ["https://www.espn.example/story/123"],
        "period": 4,
        "clock": "2:13",
        "category": "penalty",
        "confidence": 70,
    }
    for k, v in over.items():
        if v is DROP:
            body.pop(k, None)
        else:
            body[k] = v
    return body


class _Drop:
    def __repr__(self):
        return "DROP"


DROP = _Drop()


def idem():
    return "idem-" + uniq().replace("-", "_")


# ------------------------------------------------------------------ checks


def error_of(r, status, code, *fragments):
    """Asserts an error response of the agent endpoints and returns its message."""
    assert r.status_code == status, (status, r.status_code, r.text[:300])
    check_common(r)
    body = r.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    msg = body["error"]["message"]
    assert isinstance(msg, str) and msg, body
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


def check_common(r):
    assert r.headers.get("Cache-Control") == "no-store", r.headers
    assert r.headers.get("X-Content-Type-Options") == "nosniff", r.headers
    assert re.match(r"^[0-9a-f]{16}$", r.headers.get("X-Request-Id", "")), r.headers
    assert r.headers.get("Content-Type", "").split(";")[0].strip() == "application/json", \
        r.headers


def parse_sf_list(value):
    """An IETF structured-field list of `"name";k=v;…` items → {name: {k: int}} (ordered)."""
    out = {}
    for item in value.split(","):
        parts = [p.strip() for p in item.strip().split(";")]
        name = parts[0]
        assert re.match(r'^"[^"]+"$', name), (value, name)
        params = {}
        for p in parts[1:]:
            k, _, v = p.partition("=")
            assert re.match(r"^\d+$", v), (value, p)
            params[k.strip()] = int(v)
        out[name.strip('"')] = params
    return out


def ratelimit(r, slack=0, policy=None):
    """Checks RateLimit-Policy/RateLimit on a 202 or 429; returns (name, r, t). `slack`
    tolerates t up to window + slack (concurrent requests, see test_lead_quotas.py); `policy`
    is the expected policy when the server's amounts were raised (default: the spec's)."""
    policy = policy or POLICY
    pol = r.headers.get("RateLimit-Policy")
    assert pol is not None, ("no RateLimit-Policy", r.status_code, dict(r.headers))
    assert parse_sf_list(pol) == policy, pol
    rl = r.headers.get("RateLimit")
    assert rl is not None, ("no RateLimit", r.status_code, dict(r.headers))
    items = parse_sf_list(rl)
    assert len(items) == 1, rl
    (name, params), = items.items()
    assert name in policy, rl
    assert set(params) == {"r", "t"}, rl
    assert 0 <= params["r"] <= policy[name]["q"], rl
    assert 0 <= params["t"] <= policy[name]["w"] + slack, rl
    return name, params["r"], params["t"]


def accepted(r, base=BASE, slack=0, policy=None):
    """Asserts a 202 lead receipt; returns the lead id."""
    assert r.status_code == 202, (r.status_code, r.text[:300])
    check_common(r)
    body = r.json()
    assert set(body) == {"data"}, body
    d = body["data"]
    assert set(d) == {"id", "status", "links"}, d
    assert isinstance(d["id"], str) and UUID_RE.match(d["id"]), d
    assert d["status"] == "accepted_for_validation", d
    assert d["links"] == {"self": f"{base}{LEADS}/{d['id']}"}, d
    assert r.headers.get("Location") == d["links"]["self"], r.headers
    ratelimit(r, slack, policy)
    return d["id"]


def quota_refused(r, fragment, slack=0, policy=None):
    """Asserts a 429 naming the limit; returns (Retry-After, RateLimit tuple)."""
    error_of(r, 429, "quota_exceeded", fragment)
    ra = r.headers.get("Retry-After")
    assert ra is not None and re.match(r"^\d+$", ra), r.headers
    return int(ra), ratelimit(r, slack, policy)


def status_record(r, lead_id, game_id=GAME):
    assert r.status_code == 200, (r.status_code, r.text[:300])
    check_common(r)
    body = r.json()
    assert set(body) == {"data"}, body
    d = body["data"]
    # the spec's keys, and `reason` (a Whistle extension, docs/api-decisions.md)
    assert set(d) == {"id", "game_id", "created_at", "status", "updatedAt", "incidentId",
                      "reason"}, d
    assert d["id"] == lead_id and d["game_id"] == game_id, d
    assert d["status"] == "pending", d
    assert d["incidentId"] is None and d["reason"] is None, d
    for k in ("created_at", "updatedAt"):
        assert isinstance(d[k], str) and UTC_TS_RE.match(d[k]), d
    assert parse_ts(d["updatedAt"]) >= parse_ts(d["created_at"]), d
    return d


# ------------------------------------------------------------------ clock, agents, kit


class Clock:
    """The server's test clock: an integer offset in seconds in a file, read per request."""

    def __init__(self, path):
        self.path = Path(path)
        self.value = 0
        self.lock = threading.Lock()
        self.set(0)

    @property
    def env(self):
        return {"WHISTLE_TEST_NOW_OFFSET_FILE": str(self.path)}

    def set(self, secs):
        with self.lock:
            self.value = int(secs)
            tmp = self.path.with_name(self.path.name + f".tmp{threading.get_ident()}")
            tmp.write_text(f"{self.value}\n")
            os.replace(tmp, self.path)  # atomic: the server never reads a partial file

    def advance(self, secs):
        with self.lock:
            v = self.value + int(secs)
        self.set(v)
        return v


class Agent:
    def __init__(self, kit, owner, key_id, secret, expires_at):
        self.kit = kit
        self.owner = owner
        self.key_id = key_id
        self.secret = secret
        self.expires_at = expires_at
        self.http = requests.Session()
        self.http.trust_env = False

    def headers(self, key=None, idem_key=None, ctype="application/json"):
        h = {}
        if key is not False:
            h["Authorization"] = f"Bearer {key or self.secret}"
        if idem_key is not None:
            h["Idempotency-Key"] = idem_key
        if ctype is not None:
            h["Content-Type"] = ctype
        return h

    def post(self, body=None, idem_key=None, raw=None, headers=None, server=None, session=None,
             timeout=10):
        """POSTs a lead (a fresh Idempotency-Key unless given); `raw` sends bytes as is.
        `headers` entries override the defaults (a None value removes the header)."""
        s = server or self.kit.server
        h = self.headers(idem_key=idem_key if idem_key is not None else idem())
        for k, v in (headers or {}).items():
            if v is None:
                h.pop(k, None)
            else:
                h[k] = v
        data = raw if raw is not None else json.dumps(body if body is not None else lead_body())
        if isinstance(data, str):
            data = data.encode("utf-8")
        return (session or self.http).post(s.url + LEADS, data=data, headers=h, timeout=timeout,
                                           allow_redirects=False)

    def submit(self, body=None, idem_key=None, **kw):
        """POSTs and asserts 202; returns the lead id."""
        return accepted(self.post(body, idem_key, **kw), self.kit.base)

    def get(self, lead_id, key=None, server=None):
        s = server or self.kit.server
        h = {} if key is False else {"Authorization": f"Bearer {key or self.secret}"}
        return self.http.get(f"{s.url}{LEADS}/{lead_id}", headers=h, timeout=10,
                             allow_redirects=False)

    def second_key(self, name=None):
        """Another key of the same account (an Agent sharing quotas and idempotency)."""
        return self.kit.agent(self.owner, name=name)


def create_key(db, owner, env, name=None):
    args = ["key", "create", "--owner", owner, "--db", db, "--json"]
    if name:
        args += ["--name", name]
    r = run_cli(*args, env=env)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    out = json.loads(r.stdout)
    return out, r


class LeadKit:
    def __init__(self, factory, tmpdir, base=BASE):
        self.factory = factory
        self.tmpdir = Path(tmpdir)
        self.base = base
        self.clock = Clock(self.tmpdir / f"now-offset-{uniq()}")
        self.server = None
        self.db = None
        self.agents = []
        self.n = 0

    def start(self, threads=4, db=None, doc="main.json", extra=("--no-worker",)):
        """The intake tests run no research worker (--no-worker): a lead stays pending, as
        the API left it, whatever the research of its example.org URLs would decide."""
        self.db = db or self.factory.new_db(doc)
        self.server = self.factory.start(db=self.db, threads=threads, env=self.clock.env,
                                         base_url=self.base, extra=extra)
        return self.server

    def cli(self, *args):
        return run_cli(*args, env=self.clock.env)

    def agent(self, owner=None, name=None):
        assert self.db is not None, "start() first"
        self.n += 1
        owner = owner or f"agent{self.n}-{uniq()}@example.org"
        out, _ = create_key(self.db, owner, self.clock.env, name=name)
        a = Agent(self, owner, out["id"], out["secret"], out["expires_at"])
        self.agents.append(a)
        return a

    def close(self):
        for a in self.agents:
            a.http.close()
