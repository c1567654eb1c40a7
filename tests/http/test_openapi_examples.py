"""The OpenAPI document's examples use the ID formats the data really has (issue 18 item 5,
part): every team ID an example names is a team of the bundled demo data (nfl-kc, not
nfl:kc), and every example game ID has the demo games' shape (league:season-wWEEK-…)."""

import json
import re

from helpers import REPO

DOC = json.loads((REPO / "src" / "api" / "openapi.json").read_text())
DEMO = json.loads((REPO / "data" / "demo.json").read_text())
TEAMS = {t["id"] for t in DEMO["teams"]}
GAME_RE = re.compile(r"^(nfl|cfb):\d{4}-[wp]\d{2}(-[a-z0-9-]+)?$")


def walk(o, found):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("homeTeam", "awayTeam") and isinstance(v, dict) and "id" in v:
                found["team"].add(v["id"])
            elif k == "game_id" and isinstance(v, str):
                found["game"].add(v)
            walk(v, found)
    elif isinstance(o, list):
        for x in o:
            walk(x, found)


def test_examples_use_the_data_id_formats():
    found = {"team": set(), "game": set()}
    walk(DOC, found)
    params = DOC["components"]["parameters"]
    found["team"].add(params["TeamId"]["example"])
    found["game"].add(params["GameIdFilter"]["example"])
    assert found["team"] and found["game"]
    assert found["team"] <= TEAMS, found["team"] - TEAMS
    bad = {g for g in found["game"] if not GAME_RE.match(g)}
    assert not bad, bad
    assert all(GAME_RE.match(g["id"]) for g in DEMO["games"][:50])
