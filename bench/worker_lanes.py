"""bench/worker_lanes.py: when do sign-up verification mails go out while tarpit leads are being
researched? (issue 14 item 4; docs/security.md). Not a test: it prints figures.

Runs $WHISTLE_BIN serve (default build/whistle) with its worker, a real SMTP sink (aiosmtpd)
and a tarpit (a loopback listener that accepts and never answers), queues LEADS leads of five
tarpit sources each, waits until research is stuck in the first one, then signs up MAILS
accounts at once and prints, for each verification mail, the seconds from the sign-up to its
delivery, and the seconds the server took to stop on SIGTERM. Default fetch timeout (10 s).
Bounded: at most LIMIT_S seconds of waiting for mail.

    WHISTLE_BIN=build/whistle /usr/bin/python3 bench/worker_lanes.py
"""

import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "http"))

from accountkit import Browser, MailSink  # noqa: E402
from conftest import ServerFactory  # noqa: E402
from leadkit import LeadKit, lead_body  # noqa: E402
from test_worker_lanes import Tarpit  # noqa: E402

LEADS, MAILS, LIMIT_S = 4, 3, 240


def main():
    tmp = tempfile.mkdtemp(prefix="whistle-lanes-")
    pit, sink = Tarpit("127.0.0.4"), MailSink()
    factory = ServerFactory(tmp)
    kit = LeadKit(factory, tmp)
    try:
        s = kit.start(threads=2, extra=("--poll-ms", "20", "--smtp-url", sink.url,
                                        "--allow-fetch", pit.allow))
        agents = [kit.agent(), kit.agent()]
        for k in range(LEADS):
            urls = [pit.url(f"/lead{k}/source{i}") for i in range(5)]
            r = agents[k % 2].post(lead_body(source_urls=urls))
            assert r.status_code == 202, r.text
        pit.wait_accepted(1)
        t0 = time.monotonic()
        addrs = [f"lanes{i}@example.org" for i in range(MAILS)]

        def signup(addr):
            b = Browser(s)
            b.form_post("/account/signup", "signup-form",
                        {"email": addr, "password": "correct horse battery staple"})
            b.close()

        ts = [threading.Thread(target=signup, args=(a,)) for a in addrs]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        got = {}
        while len(got) < MAILS and time.monotonic() - t0 < LIMIT_S:
            for a in addrs:
                if a not in got and sink.to(a):
                    got[a] = time.monotonic() - t0
            time.sleep(0.05)
        stop0 = time.monotonic()
        rc = s.stop(timeout=120)
        stop_s = time.monotonic() - stop0
        mails = ", ".join(f"+{got[a]:.1f} s" if a in got else f"none within {LIMIT_S} s"
                          for a in addrs)
        print(f"verification mails: {mails}; tarpit connections: {pit.accepted}; "
              f"stop on SIGTERM: {stop_s:.1f} s (exit {rc})")
    finally:
        kit.close()
        sink.stop()
        pit.close()


main()
