"""A value written around the rules (a hand edit of the database, or a bug) never stops the
server (issue 12 item 6: assertions state invariants the program keeps, not what a row may
hold). The store reads a text column into an array sized by the domain's maximum for it; a
longer value used to fail an assertion and abort the whole process on the next request that
read it. Now that read alone fails: logged, counted, never truncated, and the server keeps
serving."""

import time

from helpers import db_sql, run_cli, db_arg

SAMPLE_SETTING = "sample_data"  # app/import.h IMPORT_SAMPLE_SETTING: "1" or absent


def set_sample(db, value):
    db_sql(db, "DELETE FROM settings WHERE name = '%s'" % SAMPLE_SETTING)
    db_sql(db, "INSERT INTO settings (name, value) VALUES ('%s', '%s')" % (SAMPLE_SETTING, value))


def test_overlong_setting_fails_the_read_not_the_server(server_factory):
    s = server_factory.start()
    set_sample(s.db, "1")
    assert 'id="sample-banner"' in s.get("/").text
    # 40 bytes do not fit the array the marker is read into
    set_sample(s.db, "x" * 40)
    deadline = time.monotonic() + 10
    while not any("the read fails" in line for line in s.lines):
        assert time.monotonic() < deadline, s.lines[-10:]
        assert s.get("/").status_code == 200
        time.sleep(0.05)
    r = s.get("/")
    assert r.status_code == 200 and 'id="sample-banner"' not in r.text
    assert s.proc.poll() is None, "the server must keep running"
    assert s.get("/healthz").status_code == 200
    assert s.get("/api/v1/incidents").status_code == 200
    # the export cannot say whether the database holds the sample: it refuses, exit 1
    r = run_cli("export", "--db", db_arg(s.db))
    assert r.returncode == 1 and "export failed" in r.stderr, (r.returncode, r.stderr)
    set_sample(s.db, "1")
    deadline = time.monotonic() + 10
    while 'id="sample-banner"' not in s.get("/").text:
        assert time.monotonic() < deadline, "the banner is back once the value is mended"
        time.sleep(0.05)
    assert run_cli("export", "--db", db_arg(s.db)).returncode == 0
