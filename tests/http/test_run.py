"""`make run` and a busy port (issue 18 item 4): PORT= and HOST= reach the server, running
installs only what building and running need, and a port already in use is named and refused
before the worker starts."""

import socket
import subprocess

from helpers import BIN, REPO, db_arg


def make_n(*args):
    r = subprocess.run(["make", "-n", *args], cwd=REPO, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_make_run_honours_port_and_host():
    out = make_n("run", "PORT=8123", "HOST=127.0.0.5")
    assert "--listen 127.0.0.5:8123" in out, out
    assert "--allow-fetch 127.0.0.2:8091 --allow-fetch 127.0.0.3:8091" in out, out
    assert "demo-sources" in out and "scripts/demo-db.sh" in out, out
    assert "--listen 127.0.0.1:8080" in make_n("run"), "defaults changed"


def test_make_run_installs_only_what_running_needs():
    run = make_n("deps-run")
    for tool in ("chromium", "pytest", "clang-format", "cmocka", "jq"):
        assert tool not in run, (tool, run)
    assert "libmicrohttpd-dev" in run
    everything = make_n("deps")
    assert "chromium" in everything and "clang-format" in everything


def test_busy_port_is_named_and_refused_before_the_worker(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([BIN, "serve", "--db", db_arg(tmp_path / "w.db"),
                            "--listen", f"127.0.0.1:{port}"],
                           capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, r.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr, r.stderr
    assert "worker: started" not in r.stderr, r.stderr
