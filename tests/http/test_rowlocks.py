"""No lock spans the deployment (issue 20 item 1, docs/scale.md "Which lock each write
takes"): on PostgreSQL every write of a request locks only what its rule reads then writes
(an account's key, an address's, an incident's, a lead's, a row), never the deployment-wide
exclusive lock; only maintenance (import, migrations, `whistle cache flush`) still takes it.

- PostgreSQL: with the deployment lock held in *shared* mode from another connection (what
  every ballot and lead holds while it runs), a sign-up, a sign-in, a key creation, a
  sign-out and editorial changes all complete: before, each took the lock exclusively and
  waited for every ballot in flight (here: until lock_timeout, a 503);
- PostgreSQL: with one account's key held from another connection, that account's key
  creation waits, while another address's sign-up, a ballot and a lead complete meanwhile;
- both drivers, over three nodes on one database: parallel sign-ups of one address make one
  account, parallel key creations stop exactly at the cap, and merges that would make a
  chain or a cycle never both succeed;
- no statement of these writes is prepared while a key is held (the driver's warning).
"""

import concurrent.futures as cf
import subprocess
import urllib.parse

import pytest
import requests

from accountkit import Accounts, Browser, soup, text
from helpers import I1, I2, I3, I5, PG, PSQL, db_arg, db_rows, run_cli
from leadkit import Agent, create_key, lead_body
from pagekit import Voter

pg_only = pytest.mark.skipif(not PG, reason="PostgreSQL locks (WHISTLE_TEST_PG)")

# store/pg.c WRITE_LOCK_KEY
DEPLOYMENT_LOCK = 24603125091691621
SLUG = "alpha-bravo-late-hit"  # I1
WARNING = "prepared while a key lock is held"
LIMITS = ("--signup-limit-ip", "1000", "--vote-limit-ip", "100000", "--anon-vote-limit-ip",
          "100000", "--new-voter-limit-ip", "100000")


class Held:
    """A transaction of another connection (psql) holding a lock until release()."""

    def __init__(self, db, lock_sql):
        self.p = subprocess.Popen([PSQL, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d",
                                   db_arg(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.p.stdin.write(f"BEGIN;\n{lock_sql};\n\\echo held\n")
        self.p.stdin.flush()
        for _ in range(10):
            line = self.p.stdout.readline()
            if line.strip() == "held" or not line:
                break
        assert line.strip() == "held", (line, self.p.poll())

    def release(self):
        if self.p.poll() is None:
            out, err = self.p.communicate("COMMIT;\n\\q\n", timeout=30)
            assert self.p.returncode == 0, err


class Kit:
    """Three nodes on one database (the first runs the worker and mails through the sink),
    with the LeadKit interface Agent needs (.server, .base)."""

    def __init__(self, server_factory, tmp_path):
        self.acc = Accounts(server_factory, tmp_path, extra=LIMITS)
        self.server = self.acc.server
        self.db = self.server.db
        self.base = self.server.base_url
        self.nodes = [self.server] + [
            server_factory.start(db=self.db, extra=("--no-worker", *LIMITS)) for _ in range(2)]

    def browser(self, node=0):
        b = Browser(self.nodes[node])
        self.acc.browsers.append(b)
        return b

    def agent(self):
        owner = f"agent-{len(self.acc.browsers)}-{id(self)}@example.org"
        out, _ = create_key(db_arg(self.db), owner, None)
        return Agent(self, owner, out["id"], out["secret"], out["expires_at"])

    def rows(self, sql):
        return db_rows(self.db, sql)

    def warnings(self):
        return [ln for n in self.nodes for ln in n.lines if WARNING in ln]

    def close(self):
        self.acc.close()


@pytest.fixture
def kit(server_factory, tmp_path):
    k = Kit(server_factory, tmp_path)
    yield k
    k.close()


def on_node(b, node):
    """The same browser (cookies, CSRF token) talking to another node."""
    c = Browser(node)
    c.cookies = dict(b.cookies)
    c.csrf = b.csrf
    return c


def signup_form(kit, node, addr):
    b = kit.browser(node)
    return kit.acc.signup(b, addr)


def cli(kit, *args):
    return run_cli(*args, "--db", kit.db, "--json", timeout=60)


def account_id(kit, addr):
    rows = kit.rows(f"SELECT id FROM accounts WHERE email = '{addr}'")
    assert len(rows) == 1, rows
    return rows[0][0]


def active_keys(kit, account):
    return int(kit.rows(f"SELECT count(*) FROM agent_keys WHERE account_id = '{account}'"
                        f" AND revoked_at IS NULL")[0][0])


def ballot(kit, node=1):
    v = Voter(kit.nodes[node])
    v.view(f"/incidents/{SLUG}")
    r = v.vote(SLUG, "correct")
    v.close()
    return r


# ------------------------------------------------------------------ PostgreSQL: who waits


@pg_only
def test_writes_do_not_wait_for_the_shared_deployment_lock(kit):
    user = kit.acc.verified_user("held-share@example.org", kit.browser())
    agent = kit.agent()
    held = Held(kit.db, f"SELECT pg_advisory_xact_lock_shared({DEPLOYMENT_LOCK})")
    try:
        # what a ballot or a lead holds while it runs: none of these waits for it any more
        signup_form(kit, 1, "new-under-share@example.org")
        kit.acc.signin(kit.browser(2), "held-share@example.org")
        r, secret = kit.acc.create_key(on_node(user, kit.nodes[1]), name="under-share")
        assert secret
        assert ballot(kit, 2).status_code == 200
        assert agent.post(lead_body(), server=kit.nodes[1]).status_code == 202
        for args in (("incident", "set-status", I1, "corroborated"),
                     ("incident", "add-source", I5, "--url", "https://news.example.org/r",
                      "--kind", "report", "--title", "A report", "--supports", "The call"),
                     ("incident", "withdraw", I3, "--reason", "test"),
                     ("key", "revoke", agent.key_id)):
            r = cli(kit, *args)
            assert r.returncode == 0, (args, r.stdout, r.stderr)
        # maintenance still takes it exclusively: cache flush waits, then gives up
        r = cli(kit, "cache", "flush")
        assert r.returncode != 0, r.stdout
    finally:
        held.release()
    assert cli(kit, "cache", "flush").returncode == 0
    assert kit.warnings() == []


@pg_only
def test_a_held_account_key_holds_up_that_account_alone(kit):
    addr = "held-key@example.org"
    user = kit.acc.verified_user(addr, kit.browser())
    account = account_id(kit, addr)
    agent = kit.agent()
    held = Held(kit.db, f"SELECT pg_advisory_xact_lock(hashtextextended('account:{account}', 0))")
    with cf.ThreadPoolExecutor(max_workers=1) as ex:
        try:
            waiting = ex.submit(kit.acc.create_key, on_node(user, kit.nodes[1]), "waits")
            # everything that is not this account's goes on meanwhile
            signup_form(kit, 2, "another-address@example.org")
            assert ballot(kit, 0).status_code == 200
            assert agent.post(lead_body(), server=kit.nodes[2]).status_code == 202
            assert cli(kit, "incident", "set-status", I2, "explained").returncode == 0
            assert not waiting.done()
        finally:
            held.release()
        r, secret = waiting.result(timeout=60)
        assert secret
    assert active_keys(kit, account) == 1
    assert kit.warnings() == []


# ------------------------------------------------------------------ exact under parallel writes


def test_parallel_signups_of_one_address_make_one_account(kit):
    addr = "racing-signup@example.org"
    with cf.ThreadPoolExecutor(max_workers=6) as ex:
        rs = list(ex.map(lambda i: signup_form(kit, i % 3, addr), range(6)))
    assert all(r.status_code == 200 for r in rs)
    # every answer reads the same (it tells nothing about the address)
    assert len({text(r).replace(addr, "") for r in rs}) == 1
    assert kit.rows(f"SELECT count(*) FROM accounts WHERE email = '{addr}'") == [(1,)]
    assert kit.warnings() == []


def test_parallel_key_creations_stop_exactly_at_the_cap(kit):
    addr = "racing-keys@example.org"
    user = kit.acc.verified_user(addr, kit.browser())
    account = account_id(kit, addr)
    # a form page per request, each on its node (one CSRF token per page, same session)
    # (all read before any key exists: the page offers no form once the cap is reached)
    forms = []
    for i in range(9):
        b = on_node(user, kit.nodes[i % 3])
        _, doc = b.get("/developers", status=200)
        form = doc.find("form", id="create-key-form")
        fields = {x["name"]: x.get("value", "") for x in form.find_all("input", type="hidden")}
        fields["name"] = f"race-{i}"
        forms.append((b, form["action"], fields))

    def create(i):
        b, action, fields = forms[i]
        fields = dict(fields)
        csrf = fields.pop("csrf", None)
        return b.post(action, fields, csrf=csrf)

    with cf.ThreadPoolExecutor(max_workers=9) as ex:
        rs = list(ex.map(create, range(9)))
    made = [r for r in rs if r.status_code == 200 and soup(r).find(id="new-key-secret")]
    refused = [r for r in rs if r.status_code == 409]
    assert len(made) == 5 and len(refused) == 4, [(r.status_code, text(r)[:120]) for r in rs]
    assert active_keys(kit, account) == 5
    assert kit.warnings() == []


def test_parallel_merges_never_make_a_cycle_or_a_chain(kit):
    def merge(pair):
        return cli(kit, "incident", "merge", pair[0], "--into", pair[1], "--force")

    # a cycle: I1 into I2 and I2 into I1 at once
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        rs = list(ex.map(merge, [(I1, I2), (I2, I1)]))
    assert sorted(r.returncode == 0 for r in rs) == [False, True], [r.stdout for r in rs]
    merged = kit.rows(f"SELECT id, duplicate_of FROM incidents WHERE id IN ('{I1}', '{I2}')"
                      f" AND duplicate_of IS NOT NULL")
    assert len(merged) == 1, merged
    # a chain: I3 into I5 while I5 goes into the survivor of the first pair
    survivor = I2 if merged[0][0] == I1 else I1
    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        rs = list(ex.map(merge, [(I3, I5), (I5, survivor)]))
    ok = [r.returncode == 0 for r in rs]
    assert ok.count(True) == 1, [(r.returncode, r.stdout, r.stderr) for r in rs]
    chains = kit.rows("SELECT d.id FROM incidents d JOIN incidents m ON m.id = d.duplicate_of"
                      " WHERE m.duplicate_of IS NOT NULL")
    assert chains == [], chains
