"""Human pages (docs/pages.md, issue 5): the home page and its filters, the incident page,
the game page, permanent redirects (UUID, old slug, merged duplicate), 404 for withdrawn and
unknown incidents, HTML escaping of every printed value, and the Fan Verdict results under
the display conventions (api-v1.md Votes rule 4)."""

import copy
import json
import re
from collections import Counter

import pytest

from helpers import (BASE, DUPLICATE, I1, I2, I3, I4, I5, I6, I7, I8, I10, MISSING_UUID,
                     WITHDRAWN, load_fixture, parse_ts, run_cli)
from pagekit import (CHOICES, abs_url, check_html_headers, cli_ok, element_with_text,
                     generated_doc, hrefs, linked_in_order, norm_text, page, pct_of,
                     redirect_target, soup, verdict, vote_form)

I1_SLUG = "alpha-bravo-late-hit"
RESULT_KEYS = {"correct", "incorrect", "unsure"}


def detail(server, iid):
    return server.json(f"/api/v1/incidents/{iid}")["data"]


def api_list(server, query=""):
    sep = "&" if query else ""
    return server.json(f"/api/v1/incidents?limit=100{sep}{query}")["data"]


def path_of(url):
    assert url.startswith(BASE + "/"), url
    return url[len(BASE):]


def check_newest_first(linked, by_url):
    times = [parse_ts(by_url[u]["published_at"]) for u in linked]
    assert times == sorted(times, reverse=True), linked


# ------------------------------------------------------------------ home


def test_home_lists_published_debates_newest_first(ro_server):
    _, doc = page(ro_server, "/")
    items = api_list(ro_server)
    by_url = {i["public_url"]: i for i in items}
    linked = linked_in_order(doc, by_url)
    assert set(linked) == set(by_url), sorted(set(by_url) - set(linked))
    check_newest_first(linked, by_url)
    text = norm_text(doc)
    for i in items:
        assert i["title"] in text, i["title"]
    # neither the withdrawn nor the merged duplicate is listed
    all_links = set(hrefs(doc))
    for bad in ("/incidents/withdrawn-sample", f"/incidents/{WITHDRAWN}",
                "/incidents/late-hit-duplicate", f"/incidents/{DUPLICATE}"):
        assert BASE + bad not in all_links, bad
    assert "Withdrawn sample incident" not in text
    assert "Duplicate of the late hit" not in text


@pytest.mark.parametrize("query", [
    "league=college", "league=nfl", "status=developing", "status=corroborated",
    "status=explained", "status=resolved", "league=nfl&status=developing",
    "status=corroborated&league=college",
])
def test_home_filters(ro_server, query):
    _, doc = page(ro_server, f"/?{query}")
    want = api_list(ro_server, query)
    everything = {i["public_url"]: i for i in api_list(ro_server)}
    linked = linked_in_order(doc, everything)
    assert set(linked) == {i["public_url"] for i in want}, query
    check_newest_first(linked, everything)


def test_home_filter_form_all_choice_means_no_filter(ro_server):
    """The filter form's "All" options submit empty values: the unfiltered list."""
    _, doc = page(ro_server, "/?league=&status=")
    everything = {i["public_url"]: i for i in api_list(ro_server)}
    _, plain = page(ro_server, "/")
    assert linked_in_order(doc, everything) == linked_in_order(plain, everything)
    _, doc = page(ro_server, "/?league=nfl&status=")
    assert set(linked_in_order(doc, everything)) == {
        i["public_url"] for i in api_list(ro_server, "league=nfl")}


@pytest.mark.parametrize("query", [
    "foo=1", "league=nfl&league=college", "league=&league=nfl", "status=developing&status=developing", "league=xfl",
    "status=open", "league=NFL", "limit=5", "page=0", "page=two", "page=",
    "page=1&page=2", "page=3335",
])
def test_home_bad_parameters_give_400_page(ro_server, query):
    r = ro_server.get(f"/?{query}")
    assert r.status_code == 400, (query, r.status_code)
    check_html_headers(r)


def test_home_shows_the_latest_30(module_factory):
    s = module_factory.start(doc=generated_doc(35, tag=0x4a0e))
    _, doc = page(s, "/")
    urls = [f"{BASE}/incidents/generated-{k}" for k in range(1, 36)]
    linked = linked_in_order(doc, urls)
    assert linked == [f"{BASE}/incidents/generated-{k}" for k in range(35, 5, -1)]


# ------------------------------------------------------------------ page hygiene


@pytest.mark.parametrize("path", ["/", f"/incidents/{I1_SLUG}", "/games/cfb:2024-w01-a",
                                  "/incidents/no-such-incident"])
def test_pages_headers_and_csp(ro_server, path):
    r = ro_server.get(path)
    assert r.status_code in (200, 404)
    check_html_headers(r)
    assert r.headers.get("X-Content-Type-Options") == "nosniff"
    csp = r.headers["Content-Security-Policy"]
    directives = {d.strip().split()[0]: d.strip().split()[1:] for d in csp.split(";") if d.strip()}
    for kind in ("script-src", "style-src"):
        srcs = directives.get(kind, directives.get("default-src"))
        assert srcs is not None, (kind, csp)
        assert "'self'" in srcs or "'none'" in srcs, (kind, csp)
        for bad in ("'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:", "data:"):
            assert bad not in srcs, (kind, csp)
    # the page itself respects its policy: no inline script, no inline style
    d = soup(r)
    for sc in d.find_all("script"):
        assert sc.get("src"), f"inline script on {path}"
        assert not re.match(r"^[a-z]+:", sc["src"], re.I) or sc["src"].startswith(BASE), sc["src"]
    assert not d.find_all("style"), f"inline <style> on {path}"
    assert not d.find_all(style=True), f"style attribute on {path}"
    for el in d.find_all(True):
        for attr in el.attrs:
            assert not attr.lower().startswith("on"), (path, el.name, attr)


# ------------------------------------------------------------------ incident page


def test_incident_page_content(ro_server):
    d = detail(ro_server, I1)
    assert d["public_url"] == f"{BASE}/incidents/{I1_SLUG}"
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    assert element_with_text(doc, d["title"]) is not None
    assert d["title"] in doc.title.get_text()
    # the matchup "Bravo State at Alpha University" (scores may sit next to the names)
    assert re.search(r"Bravo State\b.{0,12}\bat\b.{0,12}Alpha University", text), text
    assert d["links"]["gamePage"] in hrefs(doc)
    assert element_with_text(doc, d["play_description"]) is not None
    assert element_with_text(doc, d["neutral_summary"]) is not None
    assert re.search(r"\bpenalty\b", text, re.I)
    assert re.search(r"original ruling\W{0,3}Unnecessary roughness, 15 yards", text, re.I), text
    assert re.search(r"final ruling\W{0,3}Unnecessary roughness, 15 yards", text, re.I), text
    assert re.search(r"\bcorroborated\b", text, re.I)


def test_game_context_on_incident_page(ro_server):
    # game context: the league and the score of the game next to the matchup
    _, doc = page(ro_server, f"/incidents/{I1_SLUG}")
    text = norm_text(doc)
    assert re.search(r"\b17\b", text) and re.search(r"\b24\b", text), text


def test_rulings_none_where_null(ro_server):
    d = detail(ro_server, I2)
    assert d["original_ruling"] is None and d["final_ruling"] is None
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    assert re.search(r"original ruling\W{0,3}none\b", text, re.I), text
    assert re.search(r"final ruling\W{0,3}none\b", text, re.I), text


def test_rulings_original_and_final_differ(ro_server):
    d = detail(ro_server, I3)
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    assert re.search(r"original ruling\W{0,3}Fumble, recovered by Echo", text, re.I), text
    assert re.search(r"final ruling\W{0,3}Down by contact", text, re.I), text


@pytest.mark.parametrize("iid,status", [(I2, "developing"), (I1, "corroborated"),
                                        (I3, "explained"), (I4, "resolved")])
def test_maturity_in_words(ro_server, iid, status):
    d = detail(ro_server, iid)
    assert d["status"] == status
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    assert re.search(rf"\b{status}\b", text, re.I), (status, text)
    if status == "developing":
        # Developing is explained as not being a verdict
        assert re.search(r"not a verdict", text, re.I), text


@pytest.mark.parametrize("iid", [I1, I7, I3])
def test_sources_linked_attributed_never_embedded(ro_server, iid):
    d = detail(ro_server, iid)
    assert d["sources"], iid
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    anchors = {a["href"]: a for a in doc.find_all("a", href=True)}
    for s in d["sources"]:
        assert s["url"] in anchors, (s["url"], list(anchors))
        a = anchors[s["url"]]
        assert s["title"] in norm_text(a) or s["title"] in norm_text(a.parent), s["title"]
        if s["publisher"]:
            assert s["publisher"] in text, s["publisher"]
        assert s["supports"] in text, s["supports"]
    for tag in ("iframe", "embed", "object", "video", "audio", "frame"):
        assert not doc.find_all(tag), tag
    source_urls = {s["url"] for s in d["sources"]}
    for el in doc.find_all(src=True):
        assert el["src"] not in source_urls, el


@pytest.mark.parametrize("iid", [I1, I2, I6, I7, I10])
def test_question_with_supplied_labels(ro_server, iid):
    d = detail(ro_server, iid)
    q = d["debate_question"]
    _, doc = page(ro_server, path_of(d["public_url"]))
    assert q["question_text"] in norm_text(doc)
    f = vote_form(doc)
    assert f is not None, "no #vote-form"
    labels = {"correct": q["option_a_label"], "incorrect": q["option_b_label"],
              "unsure": q["unsure_label"]}
    assert set(f["buttons"]) == RESULT_KEYS
    for key, label in labels.items():
        assert f["buttons"][key].get_text().strip() == label, (key, label)
    # a result key is never shown in place of a label (unless the label is that very word)
    supplied = {label.lower() for label in labels.values()}
    for b in doc.find_all("button"):
        t = b.get_text().strip().lower()
        assert t not in RESULT_KEYS or t in supplied, b
    v = verdict(doc)
    assert set(v["items"]) == RESULT_KEYS
    for key, label in labels.items():
        assert v["items"][key]["text"].startswith(f"{label}:"), (v["items"][key]["text"], label)


def test_no_call_labels_never_show_the_stored_result_words(ro_server):
    # I2: stored labels "Correct"/"Incorrect"/"Unsure", presented "Yes, throw the flag", ...
    d = detail(ro_server, I2)
    assert d["debate_question"]["stored_option_labels"]["option_a_label"] == "Correct"
    _, doc = page(ro_server, path_of(d["public_url"]))
    f = vote_form(doc)
    visible = [b.get_text().strip() for b in f["buttons"].values()]
    assert visible == ["Yes, throw the flag", "No, let them play", "Can't tell"] or \
        sorted(visible) == sorted(["Yes, throw the flag", "No, let them play", "Can't tell"])
    for t in visible + [i["text"] for i in verdict(doc)["items"].values()]:
        assert not re.search(r"\b(in)?correct\b", t, re.I), t


@pytest.mark.parametrize("iid,version", [(I1, 1), (I2, 2)])
def test_vote_form_shape(ro_server, iid, version):
    d = detail(ro_server, iid)
    _, doc = page(ro_server, path_of(d["public_url"]))
    f = vote_form(doc)
    assert f["method"] == "post"
    assert abs_url(f["action"]) in (f"{d['public_url']}/vote", f"{BASE}/incidents/{iid}/vote")
    assert f["csrf"], "empty csrf token"
    assert f["question_version"] == str(version)
    for b in f["buttons"].values():
        assert b.get("name") == "choice"
        assert b.get("aria-pressed") == "false", b


def test_opinion_reminder(ro_server):
    _, doc = page(ro_server, f"/incidents/{I1_SLUG}")
    assert re.search(r"opinions?\b.{0,40}\bnot (a )?rulings?\b", norm_text(doc), re.I)


def test_question_history_when_the_question_changed(ro_server):
    d = detail(ro_server, I2)
    _, doc = page(ro_server, path_of(d["public_url"]))
    text = norm_text(doc)
    assert re.search(r"history", text, re.I)
    old = d["question_history"][0]["presented_question"]
    assert old["question_text"] == "Was the no-call on third down correct?"
    assert old["question_text"] in text
    for k in ("option_a_label", "option_b_label"):
        assert old[k] in text, old[k]
    assert d["debate_question"]["question_text"] in text


def test_no_question_history_when_unchanged(ro_server):
    _, doc = page(ro_server, f"/incidents/{I1_SLUG}")
    assert not re.search(r"question history", norm_text(doc), re.I)


def test_question_history_after_set_question(server_factory, tmp_path):
    s = server_factory.start()
    _, before = page(s, f"/incidents/{I1_SLUG}")
    assert vote_form(before)["question_version"] == "1"
    q = {"question_type": "ruling", "question_text": "Did the defender hit the sliding QB late?",
         "option_a_label": "Yes, late", "option_b_label": "No, in time",
         "unsure_label": "Hard to say", "factual_context": {"rule": "2-27-1"}}
    qf = tmp_path / "q.json"
    qf.write_text(json.dumps(q))
    cli_ok("incident", "set-question", I1, "--file", qf, "--db", s.db)
    _, doc = page(s, f"/incidents/{I1_SLUG}")
    text = norm_text(doc)
    f = vote_form(doc)
    assert f["question_version"] == "2"
    assert [f["buttons"][k].get_text().strip() for k in CHOICES] == \
        ["Yes, late", "No, in time", "Hard to say"]
    v = verdict(doc)
    assert v["total"] == 0 and all(i["count"] == 0 for i in v["items"].values())
    assert re.search(r"history", text, re.I)
    assert "Was the roughness flag the right call?" in text  # version 1 kept in the history
    assert q["question_text"] in text


def test_incident_without_question_has_no_form(ro_server):
    d = detail(ro_server, I3)
    assert d["debate_question"] is None
    _, doc = page(ro_server, path_of(d["public_url"]))
    assert vote_form(doc) is None
    assert element_with_text(doc, d["title"]) is not None


def test_incident_without_slug_lives_at_its_uuid(ro_server):
    d = detail(ro_server, I8)
    assert d["slug"] is None and d["public_url"] == f"{BASE}/incidents/{I8}"
    _, doc = page(ro_server, f"/incidents/{I8}")
    assert element_with_text(doc, d["title"]) is not None


# ------------------------------------------------------------------ redirects and 404


@pytest.mark.parametrize("iid", [I1, I2, I4, I5, I6, I7, I10])
def test_uuid_page_redirects_308_to_slug(ro_server, iid):
    d = detail(ro_server, iid)
    r = ro_server.get(f"/incidents/{iid}")
    assert r.status_code == 308, (r.status_code, r.text[:200])
    assert redirect_target(r) == path_of(d["public_url"])
    page(ro_server, redirect_target(r))


@pytest.mark.parametrize("path", ["/incidents/late-hit-duplicate", f"/incidents/{DUPLICATE}"])
def test_merged_duplicate_redirects_to_survivor(ro_server, path):
    r = ro_server.get(path)
    assert r.status_code == 308, (r.status_code, r.text[:200])
    assert redirect_target(r) == f"/incidents/{I1_SLUG}"


@pytest.mark.parametrize("path", ["/incidents/withdrawn-sample", f"/incidents/{WITHDRAWN}",
                                  "/incidents/no-such-debate", f"/incidents/{MISSING_UUID}"])
def test_withdrawn_and_unknown_pages_404(ro_server, path):
    r = ro_server.get(path)
    assert r.status_code == 404, (path, r.status_code)
    check_html_headers(r)
    assert "Withdrawn sample incident" not in r.text
    assert "This incident was withdrawn." not in r.text


def test_withdraw_and_merge_take_effect_on_next_request(server_factory):
    s = server_factory.start()
    page(s, "/incidents/foxtrot-charlie-clock")
    page(s, "/incidents/echo-bravo-sideline-warning")
    cli_ok("incident", "withdraw", I4, "--db", s.db)
    cli_ok("incident", "merge", I7, "--force", "--into", I1, "--db", s.db)
    assert s.get("/incidents/foxtrot-charlie-clock").status_code == 404
    assert s.get(f"/incidents/{I4}").status_code == 404
    for p in ("/incidents/echo-bravo-sideline-warning", f"/incidents/{I7}"):
        r = s.get(p)
        assert r.status_code == 308, (p, r.status_code)
        assert redirect_target(r) == f"/incidents/{I1_SLUG}"
    _, home = page(s, "/")
    links = set(hrefs(home))
    assert f"{BASE}/incidents/foxtrot-charlie-clock" not in links
    assert f"{BASE}/incidents/echo-bravo-sideline-warning" not in links


def test_old_slug_redirects_after_operator_reslug(server_factory, main_doc):
    s = server_factory.start()
    inc = copy.deepcopy(next(i for i in main_doc["incidents"] if i["id"] == I1))
    for n, new in enumerate(["alpha-bravo-late-hit-2024", "late-hit-alpha-bravo"]):
        inc["slug"] = new
        r = run_cli("import", "-", "--db", s.db, input=json.dumps({"incidents": [inc]}))
        assert r.returncode == 0, r.stderr
        d = detail(s, I1)
        assert d["slug"] == new and d["public_url"] == f"{BASE}/incidents/{new}"
        page(s, f"/incidents/{new}")
        olds = ["alpha-bravo-late-hit", "alpha-bravo-late-hit-2024"][:n + 1]
        for old in olds + [I1]:
            r = s.get(f"/incidents/{old}")
            assert r.status_code == 308, (old, r.status_code)
            assert redirect_target(r) == f"/incidents/{new}", old
    # the merged duplicate follows its survivor's new slug too
    r = s.get("/incidents/late-hit-duplicate")
    assert r.status_code == 308 and redirect_target(r) == "/incidents/late-hit-alpha-bravo"


def test_slug_derived_once_and_kept_on_headline_edit(server_factory, main_doc):
    s = server_factory.start()
    new_id = "f1e1d000-0000-4000-8000-000000000001"
    inc = {"id": new_id, "game_id": "cfb:2025-w13", "title": "Fresh Headline About A Spot",
           "play_description": "A spot was disputed.", "category": "spot",
           "published_at": "2025-12-01T00:00:00Z"}
    r = run_cli("import", "-", "--db", s.db, input=json.dumps({"incidents": [inc]}))
    assert r.returncode == 0, r.stderr
    d = detail(s, new_id)
    slug = d["slug"]
    assert slug and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), slug
    assert "fresh" in slug and "spot" in slug, slug
    assert d["public_url"] == f"{BASE}/incidents/{slug}"
    inc["title"] = "Completely Different Words Now"
    r = run_cli("import", "-", "--db", s.db, input=json.dumps({"incidents": [inc]}))
    assert r.returncode == 0, r.stderr
    d2 = detail(s, new_id)
    assert d2["slug"] == slug and d2["public_url"] == d["public_url"]
    _, doc = page(s, f"/incidents/{slug}")
    assert element_with_text(doc, "Completely Different Words Now") is not None
    r = s.get(f"/incidents/{new_id}")
    assert r.status_code == 308 and redirect_target(r) == f"/incidents/{slug}"


# ------------------------------------------------------------------ game page


def test_game_page(ro_server):
    g = ro_server.json("/api/v1/games/cfb:2024-w01-a")["data"]
    d1 = detail(ro_server, I1)
    assert d1["links"]["gamePage"] == f"{BASE}/games/cfb:2024-w01-a"
    _, doc = page(ro_server, "/games/cfb:2024-w01-a")
    text = norm_text(doc)
    assert g["homeTeam"]["name"] in text and g["awayTeam"]["name"] in text
    assert re.search(r"\b24\b", text) and re.search(r"\b17\b", text), text
    assert re.search(r"\bfinal\b", text, re.I)
    assert "TBD" not in text
    # kickoff 2024-08-31T16:00:00Z: a <time datetime> or the date in the text
    times = [parse_ts(t["datetime"]) for t in doc.find_all("time", datetime=True)
             if re.match(r"^\d{4}-\d{2}-\d{2}T", t["datetime"])]
    assert parse_ts("2024-08-31T16:00:00Z") in times or "2024-08-31" in text, (times, text)
    links = set(hrefs(doc))
    assert d1["public_url"] in links
    for bad in ("withdrawn-sample", WITHDRAWN, "late-hit-duplicate", DUPLICATE):
        assert f"{BASE}/incidents/{bad}" not in links, bad
    assert d1["title"] in text
    assert "Withdrawn sample incident" not in text and "Duplicate of the late hit" not in text


def test_game_page_lists_its_incidents_newest_first(ro_server):
    items = api_list(ro_server, "game_id=nfl:2025-wk02-x")
    assert {i["id"] for i in items} == {I4, I5, I6}
    _, doc = page(ro_server, "/games/nfl:2025-wk02-x")
    by_url = {i["public_url"]: i for i in items}
    linked = linked_in_order(doc, by_url)
    assert set(linked) == set(by_url)
    check_newest_first(linked, by_url)
    text = norm_text(doc)
    assert re.search(r"\blive\b", text, re.I)
    assert re.search(r"\b14\b", text) and re.search(r"\b10\b", text)


@pytest.mark.parametrize("gid", ["nfl:2025-wk03-tbd", "cfb:2025-w05-tbd"])
def test_game_page_kickoff_tbd(ro_server, gid):
    g = ro_server.json(f"/api/v1/games/{gid}")["data"]
    assert g["startsAt"] is None
    _, doc = page(ro_server, f"/games/{gid}")
    text = norm_text(doc)
    assert "TBD" in text
    assert re.search(rf"\b{g['status']}\b", text, re.I)


def test_game_page_unknown_404(ro_server):
    r = ro_server.get("/games/cfb:no-such-game")
    assert r.status_code == 404
    check_html_headers(r)


# ------------------------------------------------------------------ escaping


@pytest.fixture(scope="module")
def esc(module_factory):
    return module_factory.start(doc="escape.json")


ESC = load_fixture("escape.json")
ESC_INC = ESC["incidents"][0]
ESC_Q = ESC_INC["debate_question"]
RAW_PAYLOADS = ["<script>alert(", "<img src=x", "<b>Omega", "<b>bold", "<iframe src=x",
                "<b>Yes</b>", "<i>call", "<u>why", "<em>Holding", "<s>stalled", "<Corp>",
                'onmouseover="alert']


def check_no_injection(r, doc):
    for p in RAW_PAYLOADS:
        assert p not in r.text, p
    assert not doc.find_all(["iframe", "corp"])
    assert not doc.find_all("img", src="x")
    for el in doc.find_all(["b", "i", "u", "em", "s"]):
        assert not re.search(r"Omega|bold|Yes|call|why|Holding|stalled", el.get_text()), el
    for sc in doc.find_all("script"):
        assert sc.get("src") and not sc.get_text().strip(), sc
    for el in doc.find_all(True):
        for attr in el.attrs:
            assert not attr.lower().startswith("on"), (el.name, attr)


def test_escaping_on_incident_page(esc):
    r, doc = page(esc, "/incidents/escape-test")
    check_no_injection(r, doc)
    assert element_with_text(doc, ESC_INC["title"]) is not None
    assert ESC_INC["title"] in doc.title.get_text()
    assert element_with_text(doc, ESC_INC["play_description"]) is not None
    assert element_with_text(doc, ESC_INC["neutral_summary"]) is not None
    assert element_with_text(doc, ESC_Q["question_text"]) is not None
    f = vote_form(doc)
    assert f["buttons"]["correct"].get_text().strip() == ESC_Q["option_a_label"]
    assert f["buttons"]["incorrect"].get_text().strip() == ESC_Q["option_b_label"]
    assert f["buttons"]["unsure"].get_text().strip() == ESC_Q["unsure_label"]
    v = verdict(doc)
    assert v["items"]["correct"]["text"].startswith(ESC_Q["option_a_label"] + ":")
    text = doc.get_text()
    for s in (ESC_INC["original_ruling"], ESC_INC["consequence"], ESC["teams"][0]["name"],
              ESC["teams"][1]["name"], ESC_INC["sources"][0]["publisher"],
              ESC_INC["sources"][0]["supports"], ESC_INC["sources"][0]["title"]):
        assert s in text, s
    src = ESC_INC["sources"][0]["url"]
    assert src in [a["href"] for a in doc.find_all("a", href=True)], src


def test_escaping_on_home_page(esc):
    r, doc = page(esc, "/")
    check_no_injection(r, doc)
    assert element_with_text(doc, ESC_INC["title"]) is not None
    assert f"{BASE}/incidents/escape-test" in hrefs(doc)


def test_escaping_on_game_page(esc):
    r, doc = page(esc, "/games/nfl:escape-1")
    check_no_injection(r, doc)
    text = doc.get_text()
    assert ESC["teams"][0]["name"] in text and ESC["teams"][1]["name"] in text
    assert ESC_INC["title"] in text
    assert element_with_text(doc, ESC_INC["title"]) is not None


def test_escaping_on_error_page(esc):
    r = esc.get("/incidents/%3Cscript%3Ealert(1)%3C%5Cscript%3E%22%26")
    assert r.status_code in (400, 404)
    check_html_headers(r)
    assert "<script>alert(" not in r.text


@pytest.mark.parametrize("path", ["/incidents/escape-test?utm_source=rss",
                                  "/games/nfl:escape-1?x=1", "/?league=<script>"])
def test_pages_with_query_answer_html(esc, path):
    # "All pages are text/html": a page refused for its query string is a 400 page
    r = esc.get(path)
    assert r.status_code in (200, 400), r.status_code
    check_html_headers(r)
    assert "<script>" not in r.text


# ------------------------------------------------------------------ display conventions


PAGES = load_fixture("pages.json")
PAGE_INCIDENTS = {i["slug"]: i for i in PAGES["incidents"]}


@pytest.fixture(scope="module")
def display(module_factory):
    return module_factory.start(doc="pages.json")


def expected_results(inc):
    counts = Counter(b["choice"] for b in inc["ballots"])
    groups = {}
    for b in inc["ballots"]:
        g = groups.setdefault(b["rooting"] or "unspecified", Counter())
        g[b["choice"]] += 1
    return len(inc["ballots"]), {k: counts[k] for k in CHOICES}, \
        {g: {k: c[k] for k in CHOICES} for g, c in groups.items()}


@pytest.mark.parametrize("slug", sorted(PAGE_INCIDENTS))
def test_results_counts_first_and_total(display, slug):
    inc = PAGE_INCIDENTS[slug]
    total, counts, _ = expected_results(inc)
    api = display.json(f"/api/v1/incidents/{inc['id']}")["data"]["votes"]
    assert api["total"] == total and api["counts"] == counts
    _, doc = page(display, f"/incidents/{slug}")
    v = verdict(doc)
    assert v["total"] == total
    q = inc["debate_question"]
    labels = dict(zip(CHOICES, (q["option_a_label"], q["option_b_label"], q["unsure_label"])))
    for k in CHOICES:
        item = v["items"][k]
        assert item["count"] == counts[k], (k, item)
        assert item["count_first"], item
        assert item["text"].startswith(f"{labels[k]}: {counts[k]}"), item["text"]


@pytest.mark.parametrize("slug,shown", [("pages-total-0", False), ("pages-total-19", False),
                                        ("pages-total-20", True), ("pages-total-49", True),
                                        ("pages-total-50", True), ("pages-subgroups", True)])
def test_percentages_from_20_ballots(display, slug, shown):
    inc = PAGE_INCIDENTS[slug]
    total, counts, _ = expected_results(inc)
    _, doc = page(display, f"/incidents/{slug}")
    v = verdict(doc)
    if not shown:
        assert v["pct_elements"] == [], v["pct_elements"]
        assert "%" not in norm_text(v["section"]), norm_text(v["section"])
        return
    for k in CHOICES:
        item = v["items"][k]
        assert item["pct"] is not None, (k, item)
        assert abs(item["pct"] - pct_of(counts[k], total)) <= 0.051, (k, item, counts)
        assert item["pct_text"].endswith("%"), item["pct_text"]


@pytest.mark.parametrize("slug,shown", [("pages-total-0", False), ("pages-total-19", False),
                                        ("pages-total-20", False), ("pages-total-49", False),
                                        ("pages-total-50", True), ("pages-subgroups", True),
                                        ("pages-subgroups-50", True)])
def test_rooting_breakdown_from_50_ballots(display, slug, shown):
    _, doc = page(display, f"/incidents/{slug}")
    v = verdict(doc)
    if not shown:
        assert v["rooting_section"] is None
        assert not doc.select("tr[data-group]")
    else:
        assert v["rooting_section"] is not None
        assert v["rooting_section"].find_parent(id="verdict") is not None or \
            doc.find(id="verdict") is not None


# slug -> {group: "hidden" | "counts" | "pct"}
SUBGROUPS = {
    "pages-total-50": {"home": "pct", "away": "pct"},
    "pages-subgroups": {"home": "hidden", "away": "counts", "neutral": "counts",
                        "undisclosed": "pct", "unspecified": "pct"},
    "pages-subgroups-50": {"home": "counts", "away": "hidden", "neutral": "counts",
                           "unspecified": "pct"},
}


@pytest.mark.parametrize("slug", sorted(SUBGROUPS))
def test_rooting_subgroups_9_10_19_20(display, slug):
    inc = PAGE_INCIDENTS[slug]
    _, _, groups = expected_results(inc)
    _, doc = page(display, f"/incidents/{slug}")
    rows = verdict(doc)["rooting"]
    assert rows is not None
    want = SUBGROUPS[slug]
    listed = {g for g, mode in want.items() if mode != "hidden"}
    assert set(rows) == listed, (sorted(rows), sorted(listed))
    for g in listed:
        c = groups[g]
        n = sum(c.values())
        assert rows[g]["counts"] == c, (g, rows[g], c)
        if want[g] == "counts":
            assert 10 <= n <= 19
            assert rows[g]["pcts"] == {}, (g, rows[g])
        else:
            assert n >= 20
            assert set(rows[g]["pcts"]) == set(CHOICES), (g, rows[g])
            for k in CHOICES:
                assert abs(rows[g]["pcts"][k] - pct_of(c[k], n)) <= 0.051, (g, k, rows[g])
    # a hidden subgroup leaves no trace of its numbers in the rooting table
    for g, mode in want.items():
        if mode == "hidden":
            assert not doc.select(f'#rooting [data-group="{g}"]'), g
