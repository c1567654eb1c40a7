"""Refusals that list a vocabulary (src/domain/vocab.h) name every value, in the spec's
order, on the CLI and in the API: the lists come from the one declaration."""

from helpers import I5, run_cli
from test_import import seeded_db

CATEGORIES = "penalty, replay, clock, spot, targeting, other, no_call, catch"
MATURITIES = "developing, corroborated, explained, resolved"


def refusal(r):
    assert r.returncode == 1, (r.returncode, r.stderr)
    return r.stderr.strip()


def test_cli_refusals_list_the_vocabulary(tmp_path, whistle_bin):
    db = seeded_db(tmp_path)
    assert refusal(run_cli("incident", "set-status", I5, "final", "--db", db)) == (
        "whistle: status must be one of " + MATURITIES)
    r = run_cli("incident", "add-source", I5, "--url", "https://news.example.org/a", "--kind",
                "podcast", "--title", "T", "--supports", "S", "--db", db)
    assert refusal(r) == ("whistle: kind must be one of report, video, image, "
                          "official_statement, rule, other")
    assert refusal(run_cli("lead", "list", "--status", "candidates", "--db", db)) == (
        "whistle: --status must be one of pending, running, rejected, published, duplicate, "
        "failed, candidate")
    for status in ("candidate", "failed"):
        r = run_cli("lead", "list", "--status", status, "--db", db)
        assert r.returncode == 0, r.stderr


def test_api_refusals_list_the_vocabulary(ro_server):
    for path, want in (
            ("/api/v1/incidents?category=foul", "category must be one of: " + CATEGORIES),
            ("/api/v1/incidents?status=final", "status must be one of: " + MATURITIES),
            ("/api/v1/games?status=delayed",
             "status must be one of: upcoming, live, final, postponed, canceled"),
            ("/api/v1/games?league=xfl", "league must be one of: college, nfl"),
            ("/api/v1/games?season_type=bowl",
             "season_type must be one of: preseason, regular, postseason, unknown")):
        r = ro_server.get(path)
        assert r.status_code == 400, path
        assert want in r.json()["error"]["message"], (path, r.json())
