"""The README's tour, run as a newcomer runs it (issue 18 item 2): from a clean database
prepared as `make run` prepares it (scripts/demo-db.sh), with the sample publishers of
`whistle demo-sources` and a server allowed to fetch them, every ```sh block of README.md
from "## A tour" to "## Documentation" runs in order, as written, in one bash (set -eu).
Only the addresses change: the server's and the sample publishers' ports are free ones.
A lead goes pending → running → published, and a lead without a play is rejected with its
reason in the status record.
"""

import json
import os
import re
import socket
import subprocess
import threading
import time

from helpers import BIN, REPO, Server, db_arg

README = REPO / "README.md"


def tour_blocks():
    text = README.read_text()
    tour = text[text.index("## A tour"):text.index("## Documentation")]
    return re.findall(r"^```sh\n(.*?)^```", tour, flags=re.S | re.M)


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class DemoSources:
    """`whistle demo-sources` on two loopback publishers; ready once it names its allow list."""

    def __init__(self, ports):
        self.listen = [f"127.0.0.2:{ports[0]}", f"127.0.0.3:{ports[1]}"]
        args = [BIN, "demo-sources"]
        for a in self.listen:
            args += ["--listen", a]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = []
        ready = threading.Event()

        def read():
            for line in self.proc.stderr:
                self.lines.append(line)
                if "--allow-fetch" in line:
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(15) and self.proc.poll() is None, self.lines

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(10) == 0, self.lines


def test_readme_tour_runs_end_to_end(tmp_path):
    blocks = tour_blocks()
    assert len(blocks) >= 5, "the README tour lost its command blocks"
    work = tmp_path / "clone"
    (work / "build").mkdir(parents=True)
    os.symlink(BIN, work / "build" / "whistle")
    os.symlink(REPO / "data", work / "data")
    db = db_arg(tmp_path / "whistle.db")
    prep = subprocess.run([str(REPO / "scripts" / "demo-db.sh"), BIN, db], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert prep.returncode == 0, prep.stderr

    demo = DemoSources([free_port("127.0.0.2"), free_port("127.0.0.3")])
    extra = ["--poll-ms", "50"]
    for a in demo.listen:
        extra += ["--allow-fetch", a]
    server = Server(db, base_url="http://127.0.0.1:8080", extra=extra)
    try:
        script = "set -eu\n" + "\n".join(blocks)
        script = script.replace("http://127.0.0.1:8080", server.url)
        script = script.replace("127.0.0.2:8091", demo.listen[0])
        script = script.replace("127.0.0.3:8091", demo.listen[1])
        env = dict(os.environ, WHISTLE_DB=db)
        for v in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
            env.pop(v, None)
        r = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                           text=True, timeout=240)
        out = r.stdout
        assert r.returncode == 0, f"the tour stopped (exit {r.returncode}):\n{out[-3000:]}\n{r.stderr[-3000:]}"

        statuses = [json.loads(line) for line in out.splitlines()
                    if line.startswith('{"status":')]
        seen = [s["status"] for s in statuses]
        # submission, candidate, after publish; then the rejected lead
        assert seen[0] in ("pending", "running"), seen
        assert seen[1] == "running" and statuses[1]["reason"] is None, statuses
        assert seen[2] == "published" and statuses[2]["incidentId"], statuses
        assert seen[3] == "rejected", statuses
        assert statuses[3]["reason"].startswith("unknown play: the lead names no period"), statuses

        # the published incident is public, built from the two sample publishers' pages
        inc = server.json(f"/api/v1/incidents/{statuses[2]['incidentId']}")["data"]
        assert inc["status"] == "developing" and inc["period"] == 3 and inc["clock"] == "13:05"
        publishers = {s["publisher"] for s in inc["sources"]}
        assert publishers == {"Demo Sports Daily", "Sample Gridiron Gazette"}, inc["sources"]
        assert (work / "backup.json").stat().st_size > 0
    finally:
        assert server.stop() == 0, server.lines[-10:]
        demo.stop()
