"""Lead quotas (docs/agents.md "Quotas"): 3 per rolling minute and 20 per rolling 24 h per
agent (account), 200 per rolling 24 h for all agents; 429 + Retry-After + a message naming
the limit; RateLimit-Policy/RateLimit on 202 and 429. Time moves through the test clock."""

import json
import threading

import requests

from leadkit import (DAY, accepted, error_of, idem, lead_body, quota_refused, ratelimit,
                     status_record)

MINUTE_MSG = "3 leads per minute"
DAY_MSG = "20 leads per 24 hours"
GLOBAL_MSG = "200 leads per 24 hours"


def test_minute_window(leads):
    leads.start()
    a = leads.agent()
    seen = []
    for _ in range(3):
        r = a.post(lead_body())
        accepted(r)
        seen.append(ratelimit(r)[:2])
    assert seen == [("minute", 2), ("minute", 1), ("minute", 0)], seen
    ra, (name, rem, t) = quota_refused(a.post(lead_body()), MINUTE_MSG)
    assert 1 <= ra <= 60, ra
    assert (name, rem) == ("minute", 0)
    assert abs(t - ra) <= 1, (t, ra)
    leads.clock.set(30)
    ra, _ = quota_refused(a.post(lead_body()), MINUTE_MSG)
    assert 1 <= ra <= 31, ra
    leads.clock.set(61)
    # the two 429s consumed nothing: three slots again
    for _ in range(3):
        a.submit(lead_body())
    quota_refused(a.post(lead_body()), MINUTE_MSG)


def test_minute_window_is_rolling(leads):
    leads.start()
    a = leads.agent()
    for off in (0, 20, 40):
        leads.clock.set(off)
        a.submit(lead_body())
    leads.clock.set(50)
    ra, _ = quota_refused(a.post(lead_body()), MINUTE_MSG)
    assert 5 <= ra <= 11, ra  # the lead of t=0 leaves at t=60
    leads.clock.set(61)
    a.submit(lead_body())  # only the t=0 lead has left the window
    ra, _ = quota_refused(a.post(lead_body()), MINUTE_MSG)
    assert 14 <= ra <= 20, ra  # the lead of t=20 leaves at t=80
    leads.clock.set(81)
    a.submit(lead_body())


def test_keys_of_one_account_share_quotas_other_accounts_do_not(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    a.submit(lead_body())
    a2.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a2.post(lead_body()), MINUTE_MSG)
    quota_refused(a.post(lead_body()), MINUTE_MSG)
    b = leads.agent()
    b.submit(lead_body())


def _twenty_leads(leads, a):
    """20 leads, 3 per 61 s; returns the final clock offset (366)."""
    for i in range(20):
        if i and i % 3 == 0:
            leads.clock.advance(61)
        r = a.post(lead_body())
        accepted(r)
        if i == 18:  # 19th: minute r=1, day r=1, global r=181
            assert ratelimit(r)[:2] in (("minute", 1), ("day", 1)), r.headers["RateLimit"]
        if i == 19:  # 20th: minute r=1, day r=0 — the day is closest to exhaustion
            assert ratelimit(r)[:2] == ("day", 0), r.headers["RateLimit"]
    return leads.clock.value


def test_rolling_day_window(leads):
    leads.start()
    a = leads.agent()
    end = _twenty_leads(leads, a)
    assert end == 366
    r = a.post(lead_body())
    ra, (name, rem, t) = quota_refused(r, DAY_MSG)
    assert DAY - end - 15 <= ra <= DAY - end + 1, ra
    assert (name, rem) == ("day", 0), r.headers["RateLimit"]
    assert abs(t - ra) <= 1, (t, ra)
    # later the same day: still refused, however the calendar day may have turned
    leads.clock.set(DAY - 10)
    ra, _ = quota_refused(a.post(lead_body()), DAY_MSG)
    assert 1 <= ra <= 11, ra
    # 24 h after the first three leads, their three slots are free again (and only those)
    leads.clock.set(DAY + 1)
    for _ in range(3):
        a.submit(lead_body())
    leads.clock.set(DAY + 62)
    for _ in range(3):
        a.submit(lead_body())
    leads.clock.set(DAY + 62 + 61)
    for _ in range(3):
        a.submit(lead_body())
    r = a.post(lead_body())
    assert r.status_code == 429  # 20 in the last 24 h again


def test_day_quota_shared_by_keys_of_one_account(leads):
    leads.start()
    a = leads.agent()
    keys = [a, a.second_key(), a.second_key()]
    for i in range(20):
        if i and i % 3 == 0:
            leads.clock.advance(61)
        keys[i % 3].submit(lead_body())
    for k in keys:
        quota_refused(k.post(lead_body()), DAY_MSG)


def test_ratelimit_headers_on_202_and_429(leads):
    leads.start()
    a = leads.agent()
    r = a.post(lead_body())
    accepted(r)
    assert r.headers["RateLimit-Policy"].replace(" ", "") == \
        '"minute";q=3;w=60,"day";q=20;w=86400,"global";q=200;w=86400'
    a.submit(lead_body())
    a.submit(lead_body())
    r = a.post(lead_body())
    quota_refused(r, MINUTE_MSG)
    ratelimit(r)
    # no quota headers needed on other errors, but they must not break the body
    error_of(a.post(lead_body(period=0)), 400, "invalid_request", "period")


def _parallel(n, fn):
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        sess = requests.Session()
        sess.trust_env = False
        try:
            barrier.wait(timeout=10)
            results[i] = fn(sess, i)
        except Exception as e:  # noqa: BLE001
            results[i] = e
        finally:
            sess.close()

    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    return results


def test_10_parallel_distinct_submissions_exactly_three_accepted(leads):
    leads.start(threads=16)
    a = leads.agent()
    bodies = [json.dumps(lead_body()) for _ in range(10)]
    rs = _parallel(10, lambda sess, i: a.post(raw=bodies[i], idem_key=idem(), session=sess))
    assert all(isinstance(r, requests.Response) for r in rs), rs
    codes = sorted(r.status_code for r in rs)
    assert codes == [202] * 3 + [429] * 7, [(r.status_code, r.text[:200]) for r in rs]
    ids = set()
    for r in rs:
        if r.status_code == 202:
            ids.add(accepted(r))
        else:
            # the server reads the clock under the write lock, so even under concurrency no
            # wait exceeds the 60 s window
            ra, _ = quota_refused(r, MINUTE_MSG)
            assert 1 <= ra <= 60, ra
    assert len(ids) == 3
    for lid in ids:
        status_record(a.get(lid), lid)


def test_parallel_over_two_keys_of_one_account_exactly_three(leads):
    leads.start(threads=16)
    a = leads.agent()
    a2 = a.second_key()
    rs = _parallel(12, lambda sess, i: (a if i % 2 else a2).post(lead_body(), session=sess))
    assert all(isinstance(r, requests.Response) for r in rs), rs
    assert sorted(r.status_code for r in rs) == [202] * 3 + [429] * 9, \
        [(r.status_code, r.text[:200]) for r in rs]


def test_global_limit_across_67_agents(leads):
    leads.start(threads=8)
    agents = [leads.agent() for _ in range(68)]
    first = {}
    total = 0
    for i, a in enumerate(agents[:67]):
        for j in range(3):
            if total == 200:
                break
            key, body = idem(), lead_body()
            r = a.post(body, key)
            lid = accepted(r)
            total += 1
            if j == 0:
                first[i] = (key, body, lid)
            if total == 199:
                assert ratelimit(r)[:2] == ("global", 1), r.headers["RateLimit"]
            if total == 200:
                assert ratelimit(r)[:2] == ("global", 0), r.headers["RateLimit"]
    assert total == 200
    # the 201st lead of the day: agent 67 has used 2 of its 3 per minute
    r = agents[66].post(lead_body())
    ra, (name, rem, _) = quota_refused(r, GLOBAL_MSG)
    assert (name, rem) == ("global", 0)
    assert DAY - 120 <= ra <= DAY, ra
    # a fresh agent is refused too
    quota_refused(agents[67].post(lead_body()), GLOBAL_MSG)
    # replays still answer with their original 202
    key, body, lid = first[0]
    assert agents[0].submit(body, key) == lid
    # 24 h later the day's leads have left the window
    leads.clock.set(DAY + 1)
    agents[67].submit(lead_body())
    agents[0].submit(lead_body())


def test_amounts_are_serve_options(leads):
    """--lead-quota-minute/-day/-global raise the amounts for a load test: the decision, the
    429's message and both RateLimit headers speak of the configured amounts."""
    leads.start(extra=("--no-worker", "--lead-quota-minute", "5", "--lead-quota-day", "6",
                       "--lead-quota-global", "1000"))
    pol = {"minute": {"q": 5, "w": 60}, "day": {"q": 6, "w": 86400},
           "global": {"q": 1000, "w": 86400}}
    a = leads.agent()
    for left in (4, 3, 2, 1, 0):
        r = a.post(lead_body())
        accepted(r, policy=pol)
        assert ratelimit(r, policy=pol)[:2] == ("minute", left), r.headers["RateLimit"]
    ra, (name, rem, _) = quota_refused(a.post(lead_body()),
                                       "the per-agent limit of 5 leads per minute", policy=pol)
    assert (name, rem) == ("minute", 0) and 1 <= ra <= 60
    leads.clock.set(61)
    accepted(a.post(lead_body()), policy=pol)  # the sixth of the day
    quota_refused(a.post(lead_body()), "the per-agent limit of 6 leads per 24 hours", policy=pol)


def test_amount_options_are_checked():
    from helpers import run_cli  # the CLI as an operator types it
    for bad in ("0", "-1", "1000001", "x"):
        out = run_cli("serve", "--lead-quota-minute", bad)
        assert out.returncode == 1 and "--lead-quota-minute" in out.stderr, (bad, out.stderr)
