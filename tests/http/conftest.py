"""Fixtures for the black-box tests: they build nothing (the Makefile builds first), they
locate build/whistle (or $WHISTLE_BIN), create temporary databases, import fixture documents
and run `whistle serve` on 127.0.0.1:0 with a distinct --base-url."""

import os
from pathlib import Path

import pytest

import helpers
from helpers import BASE, BIN, Expect, Server, import_doc, load_fixture, run_cli


@pytest.fixture(scope="session")
def whistle_bin():
    if not (os.path.isfile(BIN) and os.access(BIN, os.X_OK)):
        pytest.fail(f"whistle binary not found at {BIN} (run make, or set WHISTLE_BIN)")
    return BIN


@pytest.fixture(scope="session")
def main_doc():
    return load_fixture("main.json")


@pytest.fixture(scope="session")
def expect(main_doc):
    return Expect(main_doc, BASE)


@pytest.fixture
def cli(whistle_bin):
    """cli("import", path, "--db", db) -> CompletedProcess."""
    return run_cli


class ServerFactory:
    def __init__(self, tmpdir):
        self.tmpdir = Path(tmpdir)
        self.servers = []
        self.n = 0

    def new_db(self, doc="main.json", name=None):
        """A fresh database with `doc` imported (a fixture file name, a dict or None)."""
        self.n += 1
        d = self.tmpdir / (name or f"db{self.n}")
        d.mkdir(parents=True, exist_ok=True)
        db = d / "whistle.db"
        if doc is not None:
            helpers.fresh_db(db)
            src = helpers.FIXTURES / doc if isinstance(doc, str) else doc
            r = import_doc(db, src, d)
            assert r.returncode == 0, f"fixture import failed: {r.stderr}"
        return db

    def start(self, db=None, doc="main.json", base_url=BASE, threads=2, extra=(), env=None):
        if db is None:
            db = self.new_db(doc)
        s = Server(db, base_url=base_url, threads=threads, extra=extra, env=env)
        self.servers.append(s)
        return s

    def stop_all(self):
        bad = []
        for s in self.servers:
            rc = s.stop()
            if rc != 0:
                bad.append((s.url, rc, s.lines[-5:]))
        assert not bad, f"server did not exit 0 on SIGTERM: {bad}"


@pytest.fixture
def server_factory(whistle_bin, tmp_path):
    f = ServerFactory(tmp_path)
    yield f
    f.stop_all()


@pytest.fixture(scope="session")
def ro_server(whistle_bin, tmp_path_factory):
    """One server on main.json shared by every test that does not change data."""
    f = ServerFactory(tmp_path_factory.mktemp("ro"))
    s = f.start()
    yield s
    f.stop_all()


# ---------------------------------------------------------------- agent leads (issue 3)


@pytest.fixture
def leads(server_factory, tmp_path):
    """A LeadKit (leadkit.py): a test clock, a database and, after .start(), a server."""
    from leadkit import LeadKit

    kit = LeadKit(server_factory, tmp_path)
    yield kit
    kit.close()


@pytest.fixture(scope="module")
def shared_leads(whistle_bin, tmp_path_factory):
    """One started LeadKit per module, for tests whose requests are refused (they consume
    nothing) or that use fresh agents of their own."""
    from leadkit import LeadKit

    f = ServerFactory(tmp_path_factory.mktemp("leads"))
    kit = LeadKit(f, f.tmpdir)
    kit.start(threads=4)
    yield kit
    kit.close()
    f.stop_all()


# ---------------------------------------------------------------- pages, votes, feed (issue 5)


@pytest.fixture(scope="module")
def module_factory(whistle_bin, tmp_path_factory):
    """A ServerFactory whose servers live for the whole module (read-mostly page, vote and
    feed tests that share one database)."""
    f = ServerFactory(tmp_path_factory.mktemp("mod"))
    yield f
    f.stop_all()
