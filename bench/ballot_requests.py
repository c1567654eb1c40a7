"""bench/ballot_requests.py: the requests of bench/openloop.c for bench/writes.sh (issue 20),
the same ballots bench/ballots.lua sends: request k is a JSON ballot of voter k mod V on
incident k mod N (one line in INCIDENTS: one hot debate), the choice cycling once per pass
over the voters so that a voter's later ballots replace the earlier ones, from the voter's
own address (X-Forwarded-For 10.a.b.c, believed from the trusted 127.0.0.1) when ADDRESSES
is per-voter. Three passes over the voters; each request ends with a NUL byte.

    ballot_requests.py VOTERS INCIDENTS ADDRESSES OUT
"""
import sys

voters_path, incidents_path, addresses, out = sys.argv[1:5]
voters = [l.split() for l in open(voters_path) if l.strip()]
incidents = [l.strip() for l in open(incidents_path) if l.strip()]
choices = ["correct", "incorrect", "unsure"]
with open(out, "wb") as f:
    for k in range(3 * len(voters)):
        cookie, csrf = voters[k % len(voters)]
        iid = incidents[k % len(incidents)]
        body = ('{"choice":"%s","question_version":1,"csrf":"%s"}'
                % (choices[(k // len(voters)) % 3], csrf)).encode()
        head = ("POST /incidents/%s/vote HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nOrigin: http://bench.test\r\n"
                "Cookie: __Host-whistle_voter=%s\r\n" % (iid, cookie))
        if addresses == "per-voter":
            v = k % len(voters)
            head += "X-Forwarded-For: 10.%d.%d.%d\r\n" % ((v >> 16) & 255, (v >> 8) & 255, v & 255)
        head += "Content-Length: %d\r\n\r\n" % len(body)
        f.write(head.encode() + body + b"\0")
