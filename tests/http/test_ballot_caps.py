"""Ballot stuffing by dropping the voter cookie (issue 14, item 3; docs/pages.md "The Fan
Verdict's integrity", docs/security.md).

Before: three addresses cast 360 accepted ballots on one incident in 65 s, each counted as
a distinct voter. Now one client address counts at most 20 anonymous ballots per debate per
day (--anon-vote-limit-ip) and at most 30 new anonymous voters an hour
(--new-voter-limit-ip), whatever cookies it presents; refusals are 429 with Retry-After,
JSON for the API and a page in words for the form. Runs on both drivers (the PostgreSQL
path is the server-side whistle_cast_ballot of migration 013)."""

import json
import time

from helpers import HERE, I1, I2
from pagekit import CHOICES, Voter, api_votes, check_html_headers, error_code, soup

SLUG, IID = "alpha-bravo-late-hit", I1  # question version 1
OTHER, OTHER_IID, OTHER_QV = "charlie-delta-third-down-no-call", I2, 2
ARTIFACT = HERE / "artifacts" / "ballot_caps.json"


def total(server, iid):
    return sum(api_votes(server, iid)["counts"].values())


def cookieless_ballot(server, slug, k, qv=1, as_json=True, ip=None):
    """A client that drops its cookie: a fresh page view (a new voter cookie), one ballot."""
    v = Voter(server, ip=ip)
    try:
        v.view(f"/incidents/{slug}")
        return v.vote(slug, CHOICES[k % 3], qv=qv, as_json=as_json)
    finally:
        v.close()


def test_cookieless_ballots_from_one_address_count_20_per_debate(server_factory):
    s = server_factory.start()  # the default limits
    assert api_votes(s, IID)["counts"]  # the debate exists
    before = total(s, IID)
    codes = []
    for k in range(30):
        r = cookieless_ballot(s, SLUG, k)
        codes.append(r.status_code)
        if r.status_code == 429:
            assert error_code(r) == "rate_limited"
            msg = r.json()["error"]["message"]
            assert "20 anonymous ballots on this debate today" in msg and "sign in" in msg, msg
            ra = int(r.headers["Retry-After"])
            assert 86400 - 120 <= ra <= 86400, ra  # until a day after the first ballot
    assert codes[:20] == [200] * 20 and set(codes[20:]) == {429}, codes
    assert total(s, IID) == before + 20
    # the form gets a page in words, with Retry-After
    r = cookieless_ballot(s, SLUG, 0, as_json=False)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    check_html_headers(r)
    assert "20 anonymous ballots on this debate today" in soup(r).get_text(" ")
    assert total(s, IID) == before + 20
    # another debate is another count, up to the new-voter cap (30 new voters an hour: 20
    # used above, 10 left)
    other = [cookieless_ballot(s, OTHER, k, qv=OTHER_QV).status_code for k in range(12)]
    assert other[:10] == [200] * 10, other
    r = cookieless_ballot(s, OTHER, 0, qv=OTHER_QV)
    assert r.status_code == 429
    msg = r.json()["error"]["message"]
    assert "new anonymous voters" in msg and "sign in" in msg, msg
    assert 0 < int(r.headers["Retry-After"]) <= 3600


def test_a_returning_voter_is_not_a_new_voter(server_factory):
    s = server_factory.start(extra=("--new-voter-limit-ip", "2", "--anon-vote-limit-ip", "100"))
    kept = Voter(s)
    kept.view(f"/incidents/{SLUG}")
    assert kept.vote(SLUG, "correct").status_code == 200
    assert cookieless_ballot(s, SLUG, 1).status_code == 200
    r = cookieless_ballot(s, SLUG, 2)  # a third new voter this hour
    assert r.status_code == 429 and "new anonymous voters" in r.json()["error"]["message"]
    # the voter who kept its cookie votes on another debate and changes its ballot
    kept.view(f"/incidents/{OTHER}")
    assert kept.vote(OTHER, "incorrect", qv=OTHER_QV).status_code == 200
    assert kept.vote(SLUG, "unsure").status_code == 200
    kept.close()


def test_flood_from_three_addresses_measured(server_factory):
    """The red team's attack, bounded: three client addresses each drop the cookie before
    every ballot on one debate, 120 attempts each. At most 20 per address are counted."""
    s = server_factory.start(threads=4)
    before = total(s, IID)
    accepted = {}
    t0 = time.monotonic()
    for ip in ("127.0.0.1", "127.0.0.2", "127.0.0.3"):
        accepted[ip] = sum(cookieless_ballot(s, SLUG, k, ip=ip).status_code == 200
                           for k in range(120))
    seconds = round(time.monotonic() - t0, 1)
    counted = total(s, IID) - before
    assert all(n == 20 for n in accepted.values()), accepted
    assert counted == 60
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(json.dumps({"attempts": 360, "addresses": 3, "seconds": seconds,
                                    "accepted": accepted, "counted": counted}, indent=2) + "\n",
                        encoding="utf-8")
