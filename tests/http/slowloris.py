"""A bounded slowloris attack and a normal client measured while it runs (issue 14, item 1).

Used by test_slowloris.py and, as a script, to measure a running server:
    /usr/bin/python3 tests/http/slowloris.py http://127.0.0.1:8080 [SECONDS] [CONNECTIONS]

The attack holds up to `conns` connections from several loopback addresses (127.0.0.2...),
each sending a request line and then one header line every `line_every` seconds and never
finishing its head; a connection the server closes is opened again (after a short pause
when it was refused at once). Meanwhile a normal client opens a fresh connection from
127.0.0.1 every `every` seconds and asks for /healthz. Everything is bounded by `seconds`.
"""

import errno
import resource
import selectors
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

ATTACK_ADDRS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]


def raise_nofile():
    """Soft RLIMIT_NOFILE up to the hard limit; the server started afterwards inherits it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def normal_client(host, port, stop, every, results):
    """GET /healthz on a new connection every `every` seconds until stop is set."""
    req = f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
    while not stop.is_set():
        t0 = time.monotonic()
        ok = False
        try:
            with socket.create_connection((host, port), timeout=5, source_address=("127.0.0.1", 0)) as s:
                s.sendall(req)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                ok = data.startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        results.append((ok, time.monotonic() - t0))
        left = every - (time.monotonic() - t0)
        if left > 0:
            stop.wait(left)


class Attacker:
    def __init__(self, host, port, conns, line_every, addrs=ATTACK_ADDRS):
        self.host, self.port = host, port
        self.conns, self.line_every = conns, line_every
        self.addrs = addrs
        self.sel = selectors.DefaultSelector()
        self.socks = {}  # socket -> state dict
        self.opened = 0  # connections that got established
        self.cut = 0  # connections the server closed after holding them a while (>= 1 s)
        self.refused = 0  # connections closed at once (refused at accept) or never connected
        self.lifetimes = []  # seconds from connect to the server's close, for cut ones
        self.max_open = 0
        self.next_addr = 0

    def _open(self, now):
        addr = self.addrs[self.next_addr % len(self.addrs)]
        self.next_addr += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((addr, 0))
            s.connect((self.host, self.port))
        except BlockingIOError:
            pass
        except OSError as e:
            s.close()
            if e.errno in (errno.EMFILE, errno.ENFILE, errno.EADDRNOTAVAIL):
                return False
            return True
        st = {"t0": now, "next": now, "lines": 0}
        self.socks[s] = st
        self.sel.register(s, selectors.EVENT_READ, st)
        return True

    def _close(self, s, now):
        st = self.socks.pop(s)
        self.sel.unregister(s)
        s.close()
        if st["lines"] > 0 and now - st["t0"] >= 1.0:
            self.cut += 1
            self.lifetimes.append(now - st["t0"])
            return True
        self.refused += 1
        return False

    def run(self, seconds):
        end = time.monotonic() + seconds
        retry_at = 0.0
        while True:
            now = time.monotonic()
            if now >= end:
                break
            # top up (a burst of at most 200 new connections per pass)
            if now >= retry_at:
                for _ in range(min(200, self.conns - len(self.socks))):
                    if not self._open(now):
                        retry_at = now + 0.5
                        break
            # one line per connection when its turn comes
            for s, st in list(self.socks.items()):
                if st["next"] > now:
                    continue
                line = (f"GET /healthz HTTP/1.1\r\nHost: {self.host}\r\n" if st["lines"] == 0
                        else f"X-Slow-{st['lines']}: {'a' * 8}\r\n")
                try:
                    s.send(line.encode(), socket.MSG_NOSIGNAL)
                except BlockingIOError:
                    continue  # not connected yet
                except OSError:
                    self._close(s, now)
                    retry_at = max(retry_at, now + 0.2)
                    continue
                if st["lines"] == 0:
                    self.opened += 1
                st["lines"] += 1
                st["next"] = now + self.line_every
            self.max_open = max(self.max_open, sum(1 for st in self.socks.values() if st["lines"]))
            for key, _ in self.sel.select(timeout=0.05):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data and not self._close(s, time.monotonic()):
                    retry_at = max(retry_at, time.monotonic() + 0.5)  # refused: pause
        for s in list(self.socks):
            self.sel.unregister(s)
            s.close()
        self.socks.clear()


def attack(url, seconds=20, conns=3000, line_every=2.0, every=0.1):
    """Runs the attack and the normal client together; returns a dict of figures."""
    u = urlsplit(url)
    host, port = u.hostname, u.port
    stop = threading.Event()
    results = []
    client = threading.Thread(target=normal_client, args=(host, port, stop, every, results))
    a = Attacker(host, port, conns, line_every)
    time.sleep(0)  # the attack starts first, the client a moment later
    client.start()
    try:
        a.run(seconds)
    finally:
        stop.set()
        client.join(timeout=10)
    lat = sorted(t for ok, t in results if ok)
    answered = sum(1 for ok, _ in results if ok)

    def pct(p):
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None

    return {
        "requests": len(results),
        "answered": answered,
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "max_ms": round(lat[-1] * 1000, 1) if lat else None,
        "attack_opened": a.opened,
        "attack_max_open": a.max_open,
        "attack_cut": a.cut,
        "attack_refused": a.refused,
        "attack_lifetime_median_s": round(statistics.median(a.lifetimes), 1) if a.lifetimes else None,
    }


if __name__ == "__main__":
    raise_nofile()
    target = sys.argv[1]
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    print(attack(target, seconds=secs, conns=n))
