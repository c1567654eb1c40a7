"""bench/signin_flood.py PORT SIGNINS ADDRESSES: a public read's latency idle, then under a
flood of failed sign-ins (issue 14 item 7). Run by bench/signins.sh against one server.

1. idle: IDLE_READS reads of READ_PATH, one at a time on one keep-alive connection;
2. flood: SIGNINS failed sign-ins (a distinct unknown address each, a wrong password),
   spread over ADDRESSES client addresses 127.0.0.2 … (one thread each, one request at a
   time, in a process of their own so that the reader never waits for Python's global
   lock), while the same reader keeps reading until the last sign-in is answered.

Prints one tab-separated line: idle p50 p90 p99 (ms), flood p50 p90 p99 (ms), reads during
the flood, flood seconds, sign-ins per second, and the sign-in statuses ("403:190 503:10").
Bounded: SIGNINS requests, at most FLOOD_MAX_S seconds."""

import http.client
import multiprocessing
import re
import sys
import threading
import time

READ_PATH = "/api/v1/incidents?limit=20"
IDLE_READS = 400
FLOOD_MAX_S = 300
ORIGIN = "http://bench.test"


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(p / 100.0 * len(xs) + 0.5)) - 1))
    return xs[k]


def read_once(conn):
    t = time.perf_counter()
    conn.request("GET", READ_PATH)
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        raise SystemExit(f"read answered {r.status}")
    return (time.perf_counter() - t) * 1000.0


def signer(port, addr, emails, statuses, lock):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(addr, 0))
    for email in emails:
        conn.request("GET", "/account/signin")
        r = conn.getresponse()
        body = r.read().decode()
        cookies = [h.split(";")[0] for k, h in r.getheaders() if k.lower() == "set-cookie"]
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', body))
        fields.update({"email": email, "password": "wrong password for the bench"})
        form = "&".join(f"{k}={v}" for k, v in fields.items()).replace("@", "%40")
        form = form.replace(" ", "+")
        conn.request("POST", "/account/signin", body=form,
                     headers={"Content-Type": "application/x-www-form-urlencoded",
                              "Origin": ORIGIN, "Cookie": "; ".join(cookies)})
        r = conn.getresponse()
        r.read()
        with lock:
            statuses[r.status] = statuses.get(r.status, 0) + 1
        if r.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120,
                                              source_address=(addr, 0))
    conn.close()


def flood(port, n, naddr, out):
    """The sign-in flood (in its own process): puts {status: count} on out when done."""
    statuses, lock = {}, threading.Lock()
    threads = []
    for a in range(naddr):
        emails = [f"flood{a}-{i}@bench.test" for i in range(a, n, naddr)]
        threads.append(threading.Thread(target=signer, daemon=True,
                                        args=(port, f"127.0.0.{2 + a}", emails, statuses, lock)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=FLOOD_MAX_S)
    out.put(statuses)


def main():
    port, n, naddr = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    reader = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for _ in range(20):  # warm the connection and the response cache
        read_once(reader)
    idle = [read_once(reader) for _ in range(IDLE_READS)]

    out = multiprocessing.Queue()
    proc = multiprocessing.Process(target=flood, args=(port, n, naddr, out), daemon=True)
    start = time.monotonic()
    proc.start()
    flood_reads = []
    while proc.is_alive() and time.monotonic() - start < FLOOD_MAX_S:
        flood_reads.append(read_once(reader))
        time.sleep(0.002)
        if not out.empty():
            break
    secs = time.monotonic() - start
    statuses = out.get(timeout=FLOOD_MAX_S)
    proc.join(timeout=5)
    done = sum(statuses.values())
    st = " ".join(f"{k}:{v}" for k, v in sorted(statuses.items()))
    print("\t".join([f"{pct(idle, 50):.3f}", f"{pct(idle, 90):.3f}", f"{pct(idle, 99):.3f}",
                     f"{pct(flood_reads, 50):.3f}", f"{pct(flood_reads, 90):.3f}",
                     f"{pct(flood_reads, 99):.3f}", str(len(flood_reads)), f"{secs:.1f}",
                     f"{done / secs:.1f}", st]))


if __name__ == "__main__":
    main()
