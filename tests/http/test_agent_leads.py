"""POST /api/v1/agent-leads and GET /api/v1/agent-leads/{id} (issue 3, docs/agents.md):
authentication, headers, the AgentLead body rules, the receipt and the status record."""

import datetime as dt
import json
import os
import time

import pytest
import requests

from helpers import MISSING_UUID, db_outage, parse_ts
from leadkit import (DROP, GAME, KEY_RE, LEADS, accepted, check_common, error_of, idem,
                     lead_body, quota_refused, ratelimit, status_record)


@pytest.fixture(scope="module")
def agent(shared_leads):
    """One agent for requests that are refused (refusals consume nothing)."""
    return shared_leads.agent()


@pytest.fixture
def fresh(shared_leads):
    """A new agent (account) on the shared server, for requests that are accepted."""
    return shared_leads.agent()


def raw_post(server, headers, data=b"{}"):
    return requests.post(server.url + LEADS, headers=headers, data=data, timeout=10,
                         allow_redirects=False)


# ------------------------------------------------------------------ receipt


def test_accepted_receipt_location_and_headers(fresh):
    r = fresh.post(lead_body())
    lid = accepted(r)
    assert r.headers["Location"].startswith("http://whistle.test:8080/api/v1/agent-leads/")
    name, remaining, t = ratelimit(r)
    assert (name, remaining) == ("minute", 2), r.headers["RateLimit"]
    assert 1 <= t <= 60
    d = status_record(fresh.get(lid), lid)
    now = dt.datetime.now(dt.timezone.utc)
    assert abs((parse_ts(d["created_at"]) - now).total_seconds()) < 60, d


def test_location_follows_base_url(leads, server_factory):
    leads.base = "https://debates.example.org"
    leads.start()
    a = leads.agent()
    r = a.post(lead_body())
    lid = accepted(r, base="https://debates.example.org")
    assert r.headers["Location"] == f"https://debates.example.org{LEADS}/{lid}"


def test_minimal_body_only_required_fields(fresh):
    body = {"game_id": GAME, "description": "Ten chars!", "source_urls": ["https://a.example/"]}
    lid = fresh.submit(body)
    status_record(fresh.get(lid), lid)


def test_all_optional_fields_null(fresh):
    lid = fresh.submit(lead_body(period=None, clock=None, category=None, confidence=None))
    status_record(fresh.get(lid), lid)


def test_lead_of_another_game(fresh):
    lid = fresh.submit(lead_body(game_id="nfl:2025-wk02-x"))
    status_record(fresh.get(lid), lid, game_id="nfl:2025-wk02-x")


# ------------------------------------------------------------------ authentication


def test_missing_authorization_401_with_challenge(agent):
    h = agent.headers(key=False, idem_key=idem())
    r = raw_post(agent.kit.server, h, json.dumps(lead_body()).encode())
    error_of(r, 401, "invalid_credential")
    assert r.headers.get("WWW-Authenticate", "").split(" ")[0] == "Bearer", r.headers


def test_basic_scheme_is_not_a_bearer_header_401(agent):
    h = agent.headers(idem_key=idem())
    h["Authorization"] = "Basic dXNlcjpwYXNz"
    r = raw_post(agent.kit.server, h, json.dumps(lead_body()).encode())
    # docs/agents.md: 401 when there is no `Authorization: Bearer …` header
    error_of(r, 401, "invalid_credential")
    assert r.headers.get("WWW-Authenticate", "").split(" ")[0] == "Bearer", r.headers


def _variants(secret):
    payload = secret[3:]
    swapped = "A" if payload[5] != "A" else "B"
    last = "0" if secret[-1] != "0" else "1"
    return {
        "wrong_prefix": "wx_" + payload,
        "upper_prefix": "WK_" + payload,
        "no_prefix": payload,
        "too_short": secret[:-1],
        "too_long": secret + "a",
        "bad_alphabet_dash": secret[:10] + "-" + secret[11:],
        "bad_alphabet_underscore": secret[:20] + "_" + secret[21:],
        "bad_alphabet_nonascii": secret[:12] + "é" + secret[13:],
        "checksum_payload_char": "wk_" + payload[:5] + swapped + payload[6:],
        "checksum_last_char": secret[:-1] + last,
        "trailing_garbage": secret + " extra",
        "empty_after_prefix": "wk_",
    }


VARIANT_NAMES = list(_variants("wk_" + "a" * 49))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_malformed_keys_403(agent, variant):
    bad = _variants(agent.secret)[variant]
    assert bad != agent.secret
    h = agent.headers(idem_key=idem())
    h["Authorization"] = ("Bearer " + bad).encode("utf-8")
    r = raw_post(agent.kit.server, h, json.dumps(lead_body()).encode())
    error_of(r, 403, "invalid_credential")
    r = agent.http.get(f"{agent.kit.server.url}{LEADS}/{MISSING_UUID}",
                       headers={"Authorization": h["Authorization"]}, timeout=10)
    error_of(r, 403, "invalid_credential")


def test_unknown_well_formed_key_403(agent, leads):
    # a real key of another database: right format and checksum, unknown here
    leads.start()
    other = leads.agent()
    assert KEY_RE.match(other.secret)
    r = agent.post(lead_body(), headers={"Authorization": f"Bearer {other.secret}"})
    error_of(r, 403, "invalid_credential")
    r = agent.get(MISSING_UUID, key=other.secret)
    error_of(r, 403, "invalid_credential")


def test_bad_credential_checked_with_valid_body(agent):
    # the body is valid: only the credential is wrong
    r = agent.post(lead_body(), headers={"Authorization": "Bearer wk_nope"})
    error_of(r, 403, "invalid_credential")


# ------------------------------------------------------------------ headers


@pytest.mark.parametrize("key", [None, "", "abcdefg", "a" * 129, "abcd efgh", "abcdefg!",
                                 "abcd/efgh", "abcd+efgh", "abc,defgh", "abcdefgh#"])
def test_bad_idempotency_key_400(agent, key):
    headers = {"Idempotency-Key": key}
    r = agent.post(lead_body(), headers=headers)
    msg = error_of(r, 400, "invalid_request")
    assert "idempotency-key" in msg.lower(), msg


@pytest.mark.parametrize("key", ["abcdefgh", "a" * 128, "aZ09_.:-", "Lead:2025-11-29.osu_mich-01"])
def test_good_idempotency_keys_accepted(fresh, key):
    fresh.submit(lead_body(), idem_key=key)


@pytest.mark.parametrize("ctype", [None, "text/plain", "application/x-www-form-urlencoded",
                                   "application/jsonx", "application/json-patch+json",
                                   "multipart/form-data; boundary=x"])
def test_bad_content_type_400(agent, ctype):
    r = agent.post(lead_body(), headers={"Content-Type": ctype})
    error_of(r, 400, "invalid_request")


def test_content_type_with_charset_accepted(fresh):
    fresh.submit(lead_body(), headers={"Content-Type": "application/json; charset=utf-8"})


def _padded(size):
    body = json.dumps(lead_body()).encode()
    assert len(body) < size
    return body + b" " * (size - len(body))


def test_body_over_64_kib_413(agent):
    r = agent.post(raw=_padded(65537))
    error_of(r, 413, "payload_too_large")


def test_body_much_larger_413(agent):
    r = agent.post(raw=_padded(300 * 1024))
    error_of(r, 413, "payload_too_large")


def test_body_too_large_with_description_413(agent):
    r = agent.post(lead_body(description="x" * 70000))
    error_of(r, 413, "payload_too_large")


def test_chunked_body_over_64_kib_413(agent):
    data = _padded(70000)

    def gen():
        for i in range(0, len(data), 8192):
            yield data[i:i + 8192]

    h = agent.headers(idem_key=idem())
    r = agent.http.post(agent.kit.server.url + LEADS, data=gen(), headers=h, timeout=10)
    error_of(r, 413, "payload_too_large")


def test_body_of_exactly_64_kib_accepted(fresh):
    fresh.submit(raw=_padded(65536))


# ------------------------------------------------------------------ body: JSON


@pytest.mark.parametrize("raw", [b"", b"{", b'{"game_id": }', b"nul", b"{}x",
                                 b'{"game_id":"cfb:2025-w13"} {}', b"\xff\xfe{}",
                                 b'{"game_id":"\xff\xfe","description":"0123456789",'
                                 b'"source_urls":["https://a.example/"]}'])
def test_invalid_json_400(agent, raw):
    r = agent.post(raw=raw)
    error_of(r, 400, "invalid_request")


@pytest.mark.parametrize("raw", [b"[]", b'"lead"', b"null", b"1", b"true",
                                 b'[{"game_id":"cfb:2025-w13"}]'])
def test_non_object_body_400(agent, raw):
    r = agent.post(raw=raw)
    error_of(r, 400, "invalid_request")


@pytest.mark.parametrize("field", ["game_id", "description", "confidence", "period"])
def test_duplicate_key_400_names_field(agent, field):
    body = lead_body()
    text = json.dumps(body)
    dup = json.dumps({field: body[field]})[1:-1]
    raw = (text[:-1] + ", " + dup + "}").encode()
    assert raw.count(f'"{field}"'.encode()) == 2
    r = agent.post(raw=raw)
    error_of(r, 400, "invalid_request", field)


@pytest.mark.parametrize("extra", ["extra", "Game_id", "gameId", "status", "id", "incidentId"])
def test_unknown_key_400_names_it(agent, extra):
    body = lead_body()
    body[extra] = "x"
    r = agent.post(body)
    error_of(r, 400, "invalid_request", extra)


# ------------------------------------------------------------------ body: fields

INVALID = [
    # game_id
    ("game_id", DROP),
    ("game_id", None),
    ("game_id", 12),
    ("game_id", ["cfb:2025-w13"]),
    ("game_id", ""),
    ("game_id", "g" * 256),
    ("game_id", "cfb:2025-w13" + "x" * 244),  # 256 characters
    ("game_id", "cfb:no-such-game"),
    ("game_id", "x" * 255),  # allowed length, but names no game
    # description
    ("description", DROP),
    ("description", None),
    ("description", 1234567890),
    ("description", ["0123456789"]),
    ("description", "123456789"),
    ("description", "x" * 5001),
    ("description", "é" * 9),
    ("description", "😀" * 9),
    ("description", "é" * 5001),
    ("description", "😀" * 5001),
    ("description", ""),
    # source_urls
    ("source_urls", DROP),
    ("source_urls", None),
    ("source_urls", "https://a.example/"),
    ("source_urls", []),
    ("source_urls", [f"https://a.example/{i}" for i in range(6)]),
    ("source_urls", [1]),
    ("source_urls", [None]),
    ("source_urls", [["https://a.example/"]]),
    ("source_urls", ["ftp://x"]),
    ("source_urls", ["ftp://files.example/a"]),
    ("source_urls", ["http://"]),
    ("source_urls", ["https://"]),
    ("source_urls", ["/relative"]),
    ("source_urls", ["relative/path"]),
    ("source_urls", ["not a url"]),
    ("source_urls", ["http:// space.com"]),
    ("source_urls", ["https://a.example/x y"]),
    ("source_urls", ["mailto:ref@example.org"]),
    ("source_urls", ["javascript:alert(1)"]),
    ("source_urls", ["//a.example/x"]),
    ("source_urls", [""]),
    ("source_urls", ["https://a.example/1", "https://a.example/1"]),
    ("source_urls", ["https://a.example/ok", "ftp://x"]),
    # period
    ("period", 0),
    ("period", 31),
    ("period", -1),
    ("period", 1.5),
    ("period", "4"),
    ("period", True),
    ("period", [4]),
    # clock
    ("clock", "16:00"),
    ("clock", "1:60"),
    ("clock", "1:5"),
    ("clock", "123:00"),
    ("clock", ""),
    ("clock", "15:60"),
    ("clock", "-1:00"),
    ("clock", "1:05 "),
    ("clock", "1.05"),
    ("clock", "1:05:00"),
    ("clock", ":05"),
    ("clock", "99:00"),
    ("clock", 105),
    ("clock", True),
    # category
    ("category", "no_call"),
    ("category", "catch"),
    ("category", "Penalty"),
    ("category", ""),
    ("category", "holding"),
    ("category", 1),
    ("category", ["penalty"]),
    # confidence
    ("confidence", -1),
    ("confidence", 100.5),
    ("confidence", 101),
    ("confidence", -0.001),
    ("confidence", "50"),
    ("confidence", True),
    ("confidence", {"v": 50}),
]


def _case_id(case):
    field, value = case
    s = repr(value)
    return f"{field}={s[:30]}"


@pytest.mark.parametrize("field,value", INVALID, ids=[_case_id(c) for c in INVALID])
def test_invalid_field_400_names_field(agent, field, value):
    r = agent.post(lead_body(**{field: value}))
    error_of(r, 400, "invalid_request", field)


VALID = [
    ("description", "0123456789"),
    ("description", "x" * 5000),
    ("description", "éééééééééé"),
    ("description", "😀" * 10),
    ("description", "é" * 5000),
    ("description", "😀" * 5000),
    ("source_urls", ["https://a.example/only"]),
    ("source_urls", [f"https://a.example/{i}" for i in range(5)]),
    ("source_urls", ["http://plain.example/path?q=1&r=2#frag", "https://b.example:8443/x"]),
    ("period", 1),
    ("period", 30),
    ("period", None),
    ("period", DROP),
    ("clock", "0:00"),
    ("clock", "9:59"),
    ("clock", "15:59"),
    ("clock", "05:00"),
    ("clock", "15:00"),
    ("clock", None),
    ("clock", DROP),
    ("category", "penalty"),
    ("category", "replay"),
    ("category", "clock"),
    ("category", "spot"),
    ("category", "targeting"),
    ("category", "other"),
    ("category", None),
    ("category", DROP),
    ("confidence", 0),
    ("confidence", 100),
    ("confidence", 55.5),
    ("confidence", None),
    ("confidence", DROP),
    ("game_id", "nfl:2025-wk03-tbd"),
]


@pytest.mark.parametrize("field,value", VALID, ids=[_case_id(c) for c in VALID])
def test_valid_field_values_accepted(fresh, field, value):
    body = lead_body(**{field: value})
    lid = fresh.submit(body)
    status_record(fresh.get(lid), lid, game_id=body["game_id"])


@pytest.mark.parametrize("n,ok", [(10, True), (9, False)])
def test_description_counts_escaped_surrogate_pairs_as_characters(shared_leads, agent, n, ok):
    pair = "\\ud83d\\ude00"  # one character (U+1F600) as an escaped surrogate pair
    raw = json.dumps(lead_body(description="@")).replace('"@"', '"' + pair * n + '"')
    assert raw.count("\\ud83d") == n
    if ok:
        a = shared_leads.agent()
        lid = a.submit(raw=raw)
        status_record(a.get(lid), lid)
    else:
        error_of(agent.post(raw=raw), 400, "invalid_request", "description")


def test_description_lone_surrogate_400(agent):
    raw = json.dumps(lead_body(description="@")).replace('"@"', '"\\ud800 lone surrogate"')
    error_of(agent.post(raw=raw), 400, "invalid_request")


def test_refused_requests_consume_no_quota(fresh):
    a = fresh
    refusals = [
        a.post(lead_body(description="short")),
        a.post(lead_body(), headers={"Idempotency-Key": "short"}),
        a.post(lead_body(), headers={"Content-Type": "text/plain"}),
        a.post(raw=_padded(65537)),
        a.post(raw=b"{"),
        a.post(lead_body(extra=1)),
        a.post(lead_body(game_id="cfb:no-such-game")),
    ]
    assert [r.status_code for r in refusals] == [400, 400, 400, 413, 400, 400, 400]
    for _ in range(3):
        a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")


def test_refused_request_keeps_its_idempotency_key_free(fresh):
    key = idem()
    r = fresh.post(lead_body(description="too short"), idem_key=key)
    error_of(r, 400, "invalid_request", "description")
    # nothing was recorded for the key: a valid payload with it is a new lead, not a 409
    lid = fresh.submit(lead_body(), idem_key=key)
    status_record(fresh.get(lid), lid)


# ------------------------------------------------------------------ GET status record


def test_get_owner_sees_pending_lead(fresh):
    body = lead_body(game_id="nfl:2025-wk04")
    lid = fresh.submit(body)
    d = status_record(fresh.get(lid), lid, game_id="nfl:2025-wk04")
    assert d["status"] == "pending" and d["incidentId"] is None


def test_get_via_links_self(fresh):
    r = fresh.post(lead_body())
    lid = accepted(r)
    path = r.json()["data"]["links"]["self"].replace("http://whistle.test:8080", "")
    r2 = fresh.http.get(fresh.kit.server.url + path,
                        headers={"Authorization": f"Bearer {fresh.secret}"}, timeout=10)
    status_record(r2, lid)


def test_get_other_account_404_same_account_other_key_200(fresh, shared_leads):
    lid = fresh.submit(lead_body())
    other = shared_leads.agent()
    error_of(other.get(lid), 404, "not_found")
    sibling = fresh.second_key()
    status_record(sibling.get(lid), lid)


@pytest.mark.parametrize("bad", ["nope", "12345", MISSING_UUID + "0", MISSING_UUID[:-1],
                                 "12345678-1234-4234-8234-123456789abg",
                                 "123456781234423482341234567890ab", "%20"])
def test_get_invalid_id_400(agent, bad):
    error_of(agent.get(bad), 400, "invalid_request")


def test_get_unknown_uuid_404(agent):
    error_of(agent.get(MISSING_UUID), 404, "not_found")


def test_get_bad_credentials(fresh):
    lid = fresh.submit(lead_body())
    error_of(fresh.get(lid, key="wk_" + "A" * 49), 403, "invalid_credential")
    error_of(fresh.get(lid, key="nonsense"), 403, "invalid_credential")
    r = fresh.get(lid, key=False)
    error_of(r, 401, "invalid_credential")
    assert r.headers.get("WWW-Authenticate", "").split(" ")[0] == "Bearer", r.headers


def test_created_at_follows_the_server_clock(leads):
    leads.start()
    a = leads.agent()
    leads.clock.set(3600)
    lid = a.submit(lead_body())
    d = status_record(a.get(lid), lid)
    expect = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=3600)
    assert abs((parse_ts(d["created_at"]) - expect).total_seconds()) < 60, d


# ------------------------------------------------------------------ methods


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_collection_other_methods_405(agent, method):
    r = agent.http.request(method, agent.kit.server.url + LEADS,
                           headers=agent.headers(idem_key=idem()),
                           data=json.dumps(lead_body()), timeout=10)
    error_of(r, 405, "method_not_allowed")
    allow = {m.strip() for m in r.headers.get("Allow", "").split(",")}
    assert allow == {"POST"}, r.headers.get("Allow")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_item_other_methods_405(agent, method):
    r = agent.http.request(method, f"{agent.kit.server.url}{LEADS}/{MISSING_UUID}",
                           headers=agent.headers(idem_key=idem()),
                           data=json.dumps(lead_body()), timeout=10)
    error_of(r, 405, "method_not_allowed")
    allow = {m.strip() for m in r.headers.get("Allow", "").split(",")}
    assert allow in ({"GET"}, {"GET", "HEAD"}), r.headers.get("Allow")


def test_common_headers_on_lead_responses(fresh):
    r = fresh.post(lead_body())
    check_common(r)
    check_common(fresh.get(accepted(r)))
    check_common(fresh.post(lead_body(period=0)))
    check_common(fresh.get("nope"))


# ------------------------------------------------------------------ store unavailable


def test_store_unavailable_503_then_recovers(leads):
    # as in test_http_rules.py: the database disappears before the server's first request
    leads.start(threads=1)
    a = leads.agent()
    key, body = idem(), lead_body()
    with db_outage(leads.db):
        error_of(a.post(body, key), 503, "unavailable")
        error_of(a.get(MISSING_UUID), 503, "unavailable")
    # PostgreSQL: the server reconnects after its backoff (≤ 2 s)
    deadline = time.monotonic() + 5
    while a.get(MISSING_UUID).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.05)
    # the failed request left nothing behind: its key is free and three slots remain
    lid = a.submit(body, key)
    status_record(a.get(lid), lid)
    a.submit(lead_body())
    a.submit(lead_body())
    quota_refused(a.post(lead_body()), "3 leads per minute")
