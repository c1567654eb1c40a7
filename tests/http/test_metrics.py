"""GET /metrics on --metrics-listen (issue 18 item 8; docs/operators.md "Metrics"): the
Prometheus text format parses (python3-prometheus-client's parser, plus the stricter rules
it does not check), counts are exact after known requests, routes are labelled by their
pattern and never by the raw path, the database's gauges are read at scrape time, and the
public listener has no /metrics. Both drivers (WHISTLE_TEST_PG)."""

import re

import requests
from prometheus_client.parser import text_string_to_metric_families

from helpers import I1, MISSING_UUID, db_sql
from pagekit import Voter

METRICS_RE = re.compile(r"whistle: metrics on (http://\S+/metrics)")
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|'
                       r'\\[\\"n])*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def start(server_factory, **kw):
    s = server_factory.start(extra=("--metrics-listen", "127.0.0.1:0"), **kw)
    line = s.log_line(lambda ln: METRICS_RE.search(ln) is not None)
    assert line, s.lines
    s.metrics_url = METRICS_RE.search(line).group(1)
    return s


def scrape(s):
    r = requests.get(s.metrics_url, timeout=10)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert r.headers["Cache-Control"] == "no-store"
    return r.text


def strict_parse(text):
    """The exposition format's rules, checked line by line: every sample belongs to a family
    declared by one HELP and one TYPE line before it, no series appears twice, histogram
    buckets are cumulative and end in +Inf == _count. Returns {(name, labels): value}."""
    assert text.endswith("\n")
    types, helps, seen = {}, set(), {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ")[2]
            assert name not in helps, line
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name not in types and name in helps, line
            assert kind in ("counter", "gauge", "histogram"), line
            types[name] = kind
            continue
        m = SAMPLE_RE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        assert family in types, f"sample before its TYPE: {line}"
        key = (name, labels)
        assert key not in seen, f"series twice: {line}"
        seen[key] = float(value)
    for name, kind in types.items():
        if kind != "histogram":
            continue
        buckets = [(k[1], v) for k, v in seen.items() if k[0] == name + "_bucket"]
        values = [v for _, v in buckets]
        assert values == sorted(values) and buckets[-1][0] == '{le="+Inf"}'
        assert buckets[-1][1] == seen[(name + "_count", "")]
    return seen


def families(text):
    return {f.name: f for f in text_string_to_metric_families(text)}


def value(text, name, **labels):
    for f in text_string_to_metric_families(text):
        for sm in f.samples:
            if sm.name == name and sm.labels == labels:
                return sm.value
    return 0


def test_counts_after_known_requests_are_exact(server_factory):
    s = start(server_factory)
    for _ in range(3):
        assert s.get("/api/v1/games?limit=1").status_code == 200
    for _ in range(2):
        assert s.get(f"/api/v1/incidents/{I1}").status_code == 200
    assert s.get(f"/api/v1/incidents/{MISSING_UUID}").status_code == 404
    assert s.get("/no/such/page-12345").status_code == 404
    assert s.request("POST", "/api/v1/games", data="{}").status_code == 405
    text = scrape(s)
    strict_parse(text)
    fam = families(text)
    assert fam["whistle_http_requests"].type == "counter"
    assert fam["whistle_http_request_duration_seconds"].type == "histogram"
    req = "whistle_http_requests_total"
    assert value(text, req, route="/api/v1/games", method="GET", status="200") == 3
    assert value(text, req, route="/api/v1/incidents/{id}", method="GET", status="200") == 2
    assert value(text, req, route="/api/v1/incidents/{id}", method="GET", status="404") == 1
    assert value(text, req, route="none", method="GET", status="404") == 1
    assert value(text, req, route="none", method="POST", status="405") == 1
    total = sum(sm.value for sm in fam["whistle_http_requests"].samples)
    assert total == 8
    assert value(text, "whistle_http_request_duration_seconds_count") == 8
    # never the raw path: no label names an ID or the unknown path
    assert I1 not in text and MISSING_UUID not in text and "no/such" not in text
    # a scrape is not a request of the public listener: counts stand still
    again = scrape(s)
    assert value(again, "whistle_http_request_duration_seconds_count") == 8


def test_public_listener_has_no_metrics(server_factory):
    s = start(server_factory)
    for method in ("GET", "HEAD"):
        r = s.request(method, "/metrics")
        assert r.status_code == 404
        assert "whistle_http" not in r.text
    # and the metrics listener serves nothing else
    base = s.metrics_url.rsplit("/metrics", 1)[0]
    assert requests.get(base + "/api/v1/games", timeout=10).status_code == 404
    assert requests.post(s.metrics_url, data="x", timeout=10).status_code == 405


def test_off_by_default(server_factory):
    s = server_factory.start()
    assert not any("metrics on" in ln for ln in s.lines)
    assert s.get("/metrics").status_code == 404


def test_ballots_and_database_gauges(server_factory):
    s = start(server_factory)
    text = scrape(s)
    assert value(text, "whistle_database_up") == 1
    assert value(text, "whistle_ballots_cast_total") == 0
    for status in ("pending", "running", "rejected", "published", "duplicate", "failed"):
        assert value(text, "whistle_leads", status=status) == 0
    assert value(text, "whistle_store_errors_total", kind="gone") == 0
    v = Voter(s)
    v.view("/incidents/alpha-bravo-late-hit")
    for choice in ("correct", "incorrect"):  # a changed ballot is cast again
        assert v.vote("alpha-bravo-late-hit", choice, as_json=False).status_code == 303
    # leads and email as the database holds them at scrape time, whoever wrote them
    db_sql(s.db, "INSERT INTO outbox (id, recipient, subject, body, created_at,"
                 " next_attempt_at) VALUES ('m1', 'a@b.example', 's', 'b', 1, 1)")
    db_sql(s.db, "INSERT INTO outbox (id, recipient, subject, body, created_at,"
                 " next_attempt_at, sent_at) VALUES ('m2', 'a@b.example', 's', '', 1, 1, 2)")
    text = scrape(s)
    strict_parse(text)
    assert value(text, "whistle_ballots_cast_total") == 2
    assert value(text, "whistle_outbox_messages", state="queued") == 1
    assert value(text, "whistle_outbox_messages", state="sent") == 1
    assert value(text, "whistle_worker_queue_depth", queue="outbox") == 1
    vote = "/incidents/{id}/vote"
    assert value(text, "whistle_http_requests_total", route=vote, method="POST",
                 status="303") == 2


def test_a_busy_metrics_port_is_refused_before_starting(tmp_path):
    import socket

    from helpers import db_arg, run_cli

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = run_cli("serve", "--db", db_arg(tmp_path / "w.db"), "--listen", "127.0.0.1:0",
                    "--metrics-listen", f"127.0.0.1:{port}", "--no-worker", timeout=30)
    assert r.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr, r.stderr
