"""Agent keys (issue 3, docs/agents.md "Keys" and "Operator commands"): `whistle key
create|list|revoke`, `whistle account ban|unban`, 90-day expiry, and that no secret is ever
stored (database, WAL, SHM) or printed after creation."""

import datetime as dt
import json
import os

from helpers import PG, MISSING_UUID, UTC_TS_RE, UUID_RE, db_bytes, parse_ts, run_cli, sqlite_only
from leadkit import DAY, KEY_RE, error_of, lead_body, status_record

LIST_KEYS = {"id", "owner", "name", "prefix", "created_at", "expires_at", "revoked_at",
             "last_used_at", "state"}


def refused(r, *fragments, code=1):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert err.startswith("whistle: "), err
    for f in fragments:
        assert f in err, (f, err)


def ok_json(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


def key_list(kit, *extra):
    out = ok_json(kit.cli("key", "list", "--db", kit.db, "--json", *extra))
    assert set(out) == {"keys"}, out
    return out["keys"]


def listed(kit, key_id):
    rows = [k for k in key_list(kit) if k["id"] == key_id]
    assert len(rows) == 1, rows
    return rows[0]


# ------------------------------------------------------------------ create


def test_key_create_json(leads):
    leads.start()
    r = leads.cli("key", "create", "--owner", "ops@example.org", "--db", leads.db, "--json")
    out = ok_json(r)
    assert set(out) == {"id", "secret", "owner", "expires_at"}, out
    assert UUID_RE.match(out["id"]), out
    assert KEY_RE.match(out["secret"]), out
    assert out["owner"] == "ops@example.org"
    assert UTC_TS_RE.match(out["expires_at"]), out
    expect = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=90)
    assert abs((parse_ts(out["expires_at"]) - expect).total_seconds()) < 120, out
    assert len(r.stdout.strip().splitlines()) == 1


def test_key_create_secrets_are_distinct_and_work(leads):
    leads.start()
    agents = [leads.agent() for _ in range(5)]
    secrets = {a.secret for a in agents}
    assert len(secrets) == 5
    assert len({a.key_id for a in agents}) == 5
    for a in agents:
        assert KEY_RE.match(a.secret), a.secret
        a.submit(lead_body())


def test_key_create_name_shown_in_list(leads):
    leads.start()
    a = leads.agent(name="nightly-scraper")
    row = listed(leads, a.key_id)
    assert row["name"] == "nightly-scraper"
    assert row["owner"] == a.owner


def test_key_create_usage_errors(leads):
    leads.start()
    db = leads.db
    r = leads.cli("key", "create", "--db", db, "--json")  # no --owner
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.strip() and "wk_" not in r.stdout
    for args in (("key",), ("key", "frobnicate", "--db", db),
                 ("account", "ban", "--db", db), ("key", "revoke", "--db", db)):
        r = leads.cli(*args)
        assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
        assert r.stderr.strip(), args
    assert key_list(leads) == []


def test_key_create_bad_owner_refused(leads):
    leads.start()
    for owner in ("", "not-an-email"):
        r = leads.cli("key", "create", "--owner", owner, "--db", leads.db, "--json")
        assert r.returncode in (1, 2), (owner, r.returncode, r.stdout)
        assert r.stderr.strip(), r
        assert "wk_" not in r.stdout
    assert key_list(leads) == []


# ------------------------------------------------------------------ list


def test_key_list_fields_state_and_no_secret(leads):
    leads.start()
    a = leads.agent()
    b = leads.agent()
    r = leads.cli("key", "list", "--db", leads.db, "--json")
    assert r.returncode == 0, r.stderr
    for ag in (a, b):
        assert ag.secret not in r.stdout and ag.secret[3:] not in r.stdout
    rows = json.loads(r.stdout)["keys"]
    assert {x["id"] for x in rows} == {a.key_id, b.key_id}
    for row in rows:
        assert LIST_KEYS <= set(row), row
        assert "secret" not in row and "hash" not in json.dumps(row).lower()
        ag = a if row["id"] == a.key_id else b
        assert row["owner"] == ag.owner
        assert row["state"] == "active"
        assert row["revoked_at"] is None
        assert row["last_used_at"] is None
        assert row["prefix"].startswith("wk_") and ag.secret.startswith(row["prefix"])
        assert len(row["prefix"]) <= 16, row["prefix"]
        assert UTC_TS_RE.match(row["created_at"]) and UTC_TS_RE.match(row["expires_at"])
        delta = parse_ts(row["expires_at"]) - parse_ts(row["created_at"])
        assert delta == dt.timedelta(days=90), row
        assert parse_ts(row["expires_at"]) == parse_ts(ag.expires_at), (row, ag.expires_at)
    # text output too
    r = leads.cli("key", "list", "--db", leads.db)
    assert r.returncode == 0, r.stderr
    for ag in (a, b):
        assert ag.secret not in r.stdout and ag.secret[3:] not in r.stdout
        assert ag.key_id in r.stdout


def test_key_list_owner_filter(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    b = leads.agent()
    rows = key_list(leads, "--owner", a.owner)
    assert {x["id"] for x in rows} == {a.key_id, a2.key_id}
    rows = key_list(leads, "--owner", b.owner)
    assert [x["id"] for x in rows] == [b.key_id]
    assert key_list(leads, "--owner", "nobody@example.org") == []


def test_last_used_at_recorded(leads):
    leads.start()
    a = leads.agent()
    b = leads.agent()
    assert listed(leads, a.key_id)["last_used_at"] is None
    before = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=5)
    lid = a.submit(lead_body())
    row = listed(leads, a.key_id)
    assert row["last_used_at"] is not None and UTC_TS_RE.match(row["last_used_at"]), row
    assert parse_ts(row["last_used_at"]) >= before
    assert parse_ts(row["last_used_at"]) >= parse_ts(row["created_at"])
    assert listed(leads, b.key_id)["last_used_at"] is None
    # a later use moves it (the test clock is one hour ahead)
    leads.clock.set(3600)
    status_record(a.get(lid), lid)
    a.submit(lead_body())
    later = listed(leads, a.key_id)
    assert parse_ts(later["last_used_at"]) > parse_ts(row["last_used_at"]) + dt.timedelta(
        seconds=3000), (row, later)


# ------------------------------------------------------------------ revoke


def test_revoke_stops_the_key_at_once(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    lid = a.submit(lead_body())
    r = leads.cli("key", "revoke", a.key_id, "--db", leads.db, "--json")
    out = ok_json(r)
    assert isinstance(out, dict)
    assert a.secret not in r.stdout
    error_of(a.post(lead_body()), 403, "invalid_credential")
    error_of(a.get(lid), 403, "invalid_credential")
    row = listed(leads, a.key_id)
    assert row["state"] == "revoked" and UTC_TS_RE.match(row["revoked_at"] or ""), row
    # the account's other key still works and still sees the lead
    status_record(a2.get(lid), lid)
    a2.submit(lead_body())
    assert listed(leads, a2.key_id)["state"] == "active"


def test_revoke_plain_output(leads):
    leads.start()
    a = leads.agent()
    r = leads.cli("key", "revoke", a.key_id, "--db", leads.db)
    assert r.returncode == 0, r.stderr
    error_of(a.post(lead_body()), 403, "invalid_credential")


def test_revoke_unknown_or_bad_id_refused(leads):
    leads.start()
    a = leads.agent()
    refused(leads.cli("key", "revoke", MISSING_UUID, "--db", leads.db))
    r = leads.cli("key", "revoke", "not-a-uuid", "--db", leads.db)
    assert r.returncode in (1, 2), r
    assert r.stderr.strip(), r
    assert listed(leads, a.key_id)["state"] == "active"
    a.submit(lead_body())


# ------------------------------------------------------------------ ban / unban


def test_ban_stops_every_key_and_unban_restores(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    b = leads.agent()
    lid = a.submit(lead_body())
    out = ok_json(leads.cli("account", "ban", a.owner, "--db", leads.db, "--json"))
    assert isinstance(out, dict)
    for k in (a, a2):
        error_of(k.post(lead_body()), 403, "invalid_credential")
        error_of(k.get(lid), 403, "invalid_credential")
        assert listed(leads, k.key_id)["state"] == "banned"
    b.submit(lead_body())
    assert listed(leads, b.key_id)["state"] == "active"
    out = ok_json(leads.cli("account", "unban", a.owner, "--db", leads.db, "--json"))
    assert isinstance(out, dict)
    for k in (a, a2):
        assert listed(leads, k.key_id)["state"] == "active"
    status_record(a2.get(lid), lid)
    a.submit(lead_body())
    a2.submit(lead_body())


def test_ban_does_not_revive_revoked_key(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    assert leads.cli("key", "revoke", a.key_id, "--db", leads.db).returncode == 0
    assert leads.cli("account", "ban", a.owner, "--db", leads.db).returncode == 0
    assert leads.cli("account", "unban", a.owner, "--db", leads.db).returncode == 0
    error_of(a.post(lead_body()), 403, "invalid_credential")
    assert listed(leads, a.key_id)["state"] == "revoked"
    a2.submit(lead_body())


def test_ban_unknown_account_refused(leads):
    leads.start()
    refused(leads.cli("account", "ban", "nobody@example.org", "--db", leads.db))
    refused(leads.cli("account", "unban", "nobody@example.org", "--db", leads.db))


# ------------------------------------------------------------------ expiry


def test_expiry_after_90_days(leads):
    leads.start()
    a = leads.agent()
    lid = a.submit(lead_body())
    leads.clock.set(89 * DAY)
    a.submit(lead_body())
    status_record(a.get(lid), lid)
    assert listed(leads, a.key_id)["state"] == "active"
    leads.clock.set(90 * DAY - 30)
    a.submit(lead_body())
    leads.clock.set(90 * DAY + 1)
    error_of(a.post(lead_body()), 403, "invalid_credential")
    error_of(a.get(lid), 403, "invalid_credential")
    assert listed(leads, a.key_id)["state"] == "expired"
    # a new key of the same account works and sees the account's leads
    a2 = a.second_key()
    status_record(a2.get(lid), lid)
    a2.submit(lead_body())


# ------------------------------------------------------------------ secrets at rest


def _leaks(directory, secrets):
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        for s in secrets:
            for needle in (s, s[3:], s[3:-6]):
                if needle.encode() in data:
                    found.append((name, needle[:12] + "…"))
    return found


def test_database_and_wal_never_contain_a_secret(leads):
    s = leads.start()
    agents = [leads.agent() for _ in range(4)]
    agents.append(agents[0].second_key())
    for a in agents:
        lid = a.submit(lead_body())
        status_record(a.get(lid), lid)
    error_of(agents[1].post(lead_body(period=99)), 400, "invalid_request", "period")
    leads.cli("key", "revoke", agents[2].key_id, "--db", leads.db)
    error_of(agents[2].post(lead_body()), 403, "invalid_credential")
    secrets = [a.secret for a in agents]
    if PG:
        # the database's relation files and a dump of it (see helpers.db_bytes)
        blob = db_bytes(leads.db)
        assert [x[:12] for x in secrets for n in (x, x[3:], x[3:-6]) if n.encode() in blob] == []
    d = os.path.dirname(leads.db)
    names = set(os.listdir(d))
    assert PG or "whistle.db" in names
    assert _leaks(d, secrets) == []
    # nor the server's log
    assert not [ln for ln in s.lines for x in secrets if x[3:] in ln]
    assert s.stop() == 0
    assert _leaks(d, secrets) == []


@sqlite_only("on PostgreSQL the test above reads the database's files itself")
def test_wal_files_checked_while_running(leads):
    """The server keeps a WAL while running: the check above must have looked at it."""
    leads.start()
    a = leads.agent()
    a.submit(lead_body())
    d = os.path.dirname(leads.db)
    names = set(os.listdir(d))
    assert {"whistle.db", "whistle.db-wal"} <= names, names
    assert _leaks(d, [a.secret]) == []


def test_cli_never_echoes_secret_after_creation(leads):
    leads.start()
    a = leads.agent()
    outs = [leads.cli("key", "list", "--db", leads.db, "--json"),
            leads.cli("key", "list", "--db", leads.db),
            leads.cli("key", "list", "--owner", a.owner, "--db", leads.db),
            run_cli("export", "--db", leads.db)]
    for r in outs:
        assert a.secret[3:] not in r.stdout and a.secret[3:] not in r.stderr
