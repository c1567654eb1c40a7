"""Idempotency-Key semantics of POST /api/v1/agent-leads (docs/agents.md "Idempotency"):
replays, conflicts, canonical JSON, per-account scope, retention, concurrent replays."""

import json
import threading

import requests

from leadkit import (DAY, accepted, error_of, idem, lead_body, quota_refused,
                     ratelimit, status_record)


def test_replay_returns_original_202_and_creates_nothing(leads):
    leads.start()
    a = leads.agent()
    key, body = idem(), lead_body()
    r1 = a.post(body, key)
    lid = accepted(r1)
    for _ in range(4):
        r = a.post(body, key)
        assert accepted(r) == lid
        assert r.json() == r1.json()
        assert r.headers["Location"] == r1.headers["Location"]
        ratelimit(r)
    status_record(a.get(lid), lid)
    # replays consumed nothing: two more leads fit in the minute, the next does not
    a.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")


def test_same_key_changed_payload_409(leads):
    leads.start()
    a = leads.agent()
    key, body = idem(), lead_body()
    lid = a.submit(body, key)
    for change in ({"confidence": 71}, {"description": body["description"] + "!"},
                   {"period": None}, {"source_urls": body["source_urls"] + ["https://b.example/"]}):
        changed = dict(body, **change)
        error_of(a.post(changed, key), 409, "idempotency_conflict")
    dropped = {k: v for k, v in body.items() if k != "clock"}
    error_of(a.post(dropped, key), 409, "idempotency_conflict")
    # the original payload is still the defined retry
    assert a.submit(body, key) == lid
    # the 409s consumed nothing
    a.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")


def test_reordered_keys_and_whitespace_are_a_replay(leads):
    leads.start()
    a = leads.agent()
    key, body = idem(), lead_body()
    lid = a.submit(raw=json.dumps(body), idem_key=key)
    rev = dict(reversed(list(body.items())))
    assert list(rev) != list(body)
    assert a.submit(raw=json.dumps(rev), idem_key=key) == lid
    spaced = json.dumps(rev, indent=4, separators=(" ,  ", " :\t")) + "\n\n"
    assert a.submit(raw=spaced, idem_key=key) == lid
    escaped = json.dumps(body, ensure_ascii=True).replace("Late", "\\u004cate")
    assert a.submit(raw=escaped, idem_key=key) == lid


def test_same_key_other_account_is_independent(leads):
    leads.start()
    a, b = leads.agent(), leads.agent()
    key, body = idem(), lead_body()
    la = a.submit(body, key)
    lb = b.submit(body, key)
    assert la != lb
    status_record(a.get(la), la)
    status_record(b.get(lb), lb)
    error_of(a.get(lb), 404, "not_found")
    error_of(b.get(la), 404, "not_found")
    # a third account may even use the key with another payload
    c = leads.agent()
    c.submit(lead_body(confidence=1), key)
    # and each account's replay still maps to its own lead
    assert a.submit(body, key) == la
    assert b.submit(body, key) == lb


def test_keys_of_one_account_share_idempotency(leads):
    leads.start()
    a = leads.agent()
    a2 = a.second_key()
    key, body = idem(), lead_body()
    lid = a.submit(body, key)
    assert a2.submit(body, key) == lid
    error_of(a2.post(lead_body(), key), 409, "idempotency_conflict")
    status_record(a2.get(lid), lid)


def test_replay_after_quota_exhausted_still_202(leads):
    leads.start()
    a = leads.agent()
    first_key, first_body = idem(), lead_body()
    lid = a.submit(first_body, first_key)
    a.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")
    r = a.post(first_body, first_key)
    assert accepted(r) == lid
    # a changed payload under the same key is still a conflict, not a quota refusal
    error_of(a.post(lead_body(), first_key), 409, "idempotency_conflict")


def test_quota_refused_request_keeps_its_key_free(leads):
    leads.start()
    a = leads.agent()
    for _ in range(3):
        a.submit(lead_body())
    key, body = idem(), lead_body()
    quota_refused(a.post(body, key), "3 leads per minute")
    leads.clock.set(61)
    lid = a.submit(body, key)
    assert a.submit(body, key) == lid


def test_idempotency_kept_7_days_then_forgotten(leads):
    leads.start()
    a = leads.agent()
    key, body = idem(), lead_body()
    lid = a.submit(body, key)
    leads.clock.set(DAY + 60)
    assert a.submit(body, key) == lid  # kept at least 24 h
    leads.clock.set(6 * DAY + 23 * 3600)
    assert a.submit(body, key) == lid
    error_of(a.post(lead_body(), key), 409, "idempotency_conflict")
    leads.clock.set(7 * DAY + 3600)
    lid2 = a.submit(body, key)  # docs/agents.md: after 7 days a reused key starts a new lead
    assert lid2 != lid
    assert a.submit(body, key) == lid2
    status_record(a.get(lid), lid)
    status_record(a.get(lid2), lid2)


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


def test_16_identical_parallel_requests_make_one_lead(leads):
    leads.start(threads=16)
    a = leads.agent()
    key, raw = idem(), json.dumps(lead_body())
    rs = _parallel(16, lambda sess, i: a.post(raw=raw, idem_key=key, session=sess))
    bad = [r for r in rs if not isinstance(r, requests.Response)]
    assert not bad, bad
    assert [r.status_code for r in rs] == [202] * 16, [(r.status_code, r.text[:200]) for r in rs]
    ids = {accepted(r) for r in rs}
    assert len(ids) == 1, ids
    lid = ids.pop()
    status_record(a.get(lid), lid)
    # exactly one lead was created: two more fit in the minute, then 429
    a.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")


def test_16_identical_parallel_requests_over_two_keys_of_one_account(leads):
    leads.start(threads=16)
    a = leads.agent()
    a2 = a.second_key()
    key, raw = idem(), json.dumps(lead_body())
    rs = _parallel(16, lambda sess, i: (a if i % 2 else a2).post(raw=raw, idem_key=key,
                                                                 session=sess))
    assert all(isinstance(r, requests.Response) for r in rs), rs
    assert [r.status_code for r in rs] == [202] * 16, [(r.status_code, r.text[:200]) for r in rs]
    assert len({accepted(r) for r in rs}) == 1


def test_parallel_conflicting_payloads_one_wins(leads):
    leads.start(threads=8)
    a = leads.agent()
    key = idem()
    bodies = [json.dumps(lead_body(confidence=i)) for i in range(8)]
    rs = _parallel(8, lambda sess, i: a.post(raw=bodies[i], idem_key=key, session=sess))
    assert all(isinstance(r, requests.Response) for r in rs), rs
    codes = sorted(r.status_code for r in rs)
    assert codes == [202] + [409] * 7, [(r.status_code, r.text[:200]) for r in rs]
    for r in rs:
        if r.status_code == 409:
            error_of(r, 409, "idempotency_conflict")
