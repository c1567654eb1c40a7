"""A typed client generated from the served document compiles and reads every endpoint
(issue 18 item 5; docs/clients.md): openapi-typescript turns GET /api/v1/openapi.json into
types, tsc --strict compiles tests/client/read-every-endpoint.ts (openapi-fetch) against them,
and node runs it against the server: every JSON read, an agent lead and its status record,
the probes, and a typed error body."""

import os
import shutil
import subprocess

import pytest

from helpers import BIN, REPO, db_arg

NODE_BIN = REPO / "node_modules" / ".bin"


def run(args, cwd, env=None, timeout=180):
    r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{args[0]}: {r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def test_generated_client_compiles_and_reads_every_endpoint(server_factory, tmp_path):
    if not (NODE_BIN / "openapi-typescript").exists() or not (NODE_BIN / "tsc").exists():
        pytest.fail("npm tooling missing: run `npm ci` (tests/lint-openapi.sh does)")
    s = server_factory.start()
    key = run([BIN, "key", "create", "--owner", "typed@example.com", "--json",
               "--db", db_arg(s.db)], REPO)
    secret = __import__("json").loads(key.stdout)["secret"]
    work = tmp_path / "client"
    work.mkdir()
    (work / "openapi.json").write_bytes(s.get("/api/v1/openapi.json").content)
    shutil.copy(REPO / "tests" / "client" / "read-every-endpoint.ts", work)
    shutil.copy(REPO / "tests" / "client" / "tsconfig.json", work)
    (work / "package.json").write_text('{"type": "module", "private": true}\n')
    os.symlink(REPO / "node_modules", work / "node_modules")
    run([str(NODE_BIN / "openapi-typescript"), "openapi.json", "-o", "whistle.d.ts"], work)
    run([str(NODE_BIN / "tsc"), "-p", "tsconfig.json"], work)
    env = dict(os.environ, BASE_URL=s.url, WHISTLE_KEY=secret)
    out = run(["node", "read-every-endpoint.js"], work, env=env).stdout
    for what in ("GET /api/v1/teams", "GET /api/v1/games", "GET /api/v1/games/{id}",
                 "GET /api/v1/incidents", "GET /api/v1/incidents/{id}",
                 "GET /api/v1/openapi.json", "POST /api/v1/agent-leads",
                 "GET /api/v1/agent-leads/{id}", "GET /healthz", "GET /readyz",
                 "error body typed"):
        assert f"ok {what}\n" in out, out
