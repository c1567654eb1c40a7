"""bench/forgot_timing.py PORT LOG N: how long POST /account/forgot takes for a registered
address and for an unknown one (issue 14 item 8). Run by bench/forgot.sh against one server
whose access log is LOG.

Signs one address up (REGISTERED), then sends WARMUP requests of each kind, then N of each,
in pairs (one registered, one unknown, the first of the pair alternating) on one keep-alive
connection, one at a time. Each answer's
X-Request-Id names its access-log line, whose microseconds are the server's own time for the
request (no client or loopback noise); the client's round trip is measured too.

Prints one tab-separated line: server median µs registered, unknown, their difference, the
median of the paired differences (each registered request minus the unknown one next to it);
client median µs registered, unknown; requests per kind; statuses ("200:560"). Bounded: 2 × (N +
WARMUP) requests, N at most 5,000, at most MAX_S seconds."""

import http.client
import re
import statistics
import sys
import time
import urllib.parse

ORIGIN = "http://bench.test"
REGISTERED = "reg-0001@bench.test"
UNKNOWN = "unk-0001@bench.test"  # the same length: the same bytes to parse and store
WARMUP = 40
MAX_S = 600


def form_state(conn, path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read().decode()
    if r.status != 200:
        raise SystemExit(f"GET {path} answered {r.status}")
    cookies = [h.split(";")[0] for k, h in r.getheaders() if k.lower() == "set-cookie"]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', body))
    return "; ".join(cookies), fields


def post(conn, path, cookie, fields):
    body = urllib.parse.urlencode(fields)
    t = time.perf_counter()
    conn.request("POST", path, body=body,
                 headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": ORIGIN,
                          "Cookie": cookie})
    r = conn.getresponse()
    r.read()
    us = (time.perf_counter() - t) * 1e6
    return r.status, r.getheader("X-Request-Id"), us


def main():
    port, log, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    if not 1 <= n <= 5000:
        raise SystemExit("N: 1 to 5000")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    cookie, fields = form_state(conn, "/account/signup")
    st, _, _ = post(conn, "/account/signup", cookie,
                    dict(fields, email=REGISTERED, password="a long bench passphrase"))
    if st != 200:
        raise SystemExit(f"sign-up answered {st}")
    cookie, fields = form_state(conn, "/account/forgot")
    rids = {"reg": [], "unk": []}
    client = {"reg": [], "unk": []}
    statuses = {}
    start = time.monotonic()
    kinds = (("reg", REGISTERED), ("unk", UNKNOWN))
    for i in range(WARMUP + n):
        # which kind goes first alternates too: neither gains from its place in the pair
        for kind, email in kinds if i % 2 == 0 else kinds[::-1]:
            st, rid, us = post(conn, "/account/forgot", cookie, dict(fields, email=email))
            statuses[st] = statuses.get(st, 0) + 1
            if i >= WARMUP:
                rids[kind].append(rid)
                client[kind].append(us)
        if time.monotonic() - start > MAX_S:
            raise SystemExit("took longer than MAX_S")
    conn.close()
    time.sleep(0.5)  # the last access-log lines
    took = {}
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r"POST /account/forgot \d+ \d+ (\d+)us rid=(\S+)", line)
            if m:
                took[m.group(2)] = int(m.group(1))
    server = {k: [took[r] for r in v if r in took] for k, v in rids.items()}
    if min(len(v) for v in server.values()) < n:
        raise SystemExit("access-log lines missing")
    sreg, sunk = statistics.median(server["reg"]), statistics.median(server["unk"])
    # each registered request against the unknown one of its pair: the machine's load drifts
    # slowly, so the paired difference is steadier than the difference of the medians
    paired = statistics.median(r - u for r, u in zip(server["reg"], server["unk"]))
    creg, cunk = statistics.median(client["reg"]), statistics.median(client["unk"])
    st = " ".join(f"{k}:{v}" for k, v in sorted(statuses.items()))
    print(f"{sreg:.0f}\t{sunk:.0f}\t{sreg - sunk:+.0f}\t{paired:+.0f}\t{creg:.0f}\t{cunk:.0f}"
          f"\t{n}\t{st}")


if __name__ == "__main__":
    main()
