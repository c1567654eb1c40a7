"""GET /incidents/feed.xml (docs/pages.md "RSS", issue 5): RSS 2.0 that parses with feedparser,
is well-formed XML with the required channel elements and atom:link rel="self", and whose
items (newest first, at most 50) carry the canonical URL, a permalink guid, an RFC 822
pubDate, the league as category and the whistle: elements with the API's values; withdrawn
and merged incidents vanish on the next request; every value is escaped."""

import email.utils
import re
import xml.etree.ElementTree as ET

import feedparser

from helpers import BASE, DUPLICATE, I1, I7, WITHDRAWN, load_fixture, parse_ts
from pagekit import Voter, cli_ok, generated_doc, soup

FEED = "/incidents/feed.xml"
# the extension namespace is the deployment's own URL (docs/pages.md "RSS")
NS = {"atom": "http://www.w3.org/2005/Atom", "whistle": f"{BASE}/ns/1.0"}
W = "{" + NS["whistle"] + "}"
RFC822_RE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} "
                       r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
                       r"\d{2}:\d{2}:\d{2} (GMT|UT|Z|[+-]\d{4})$")


def fetch(server):
    r = server.get(FEED)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    return r


def channel(raw):
    root = ET.fromstring(raw)
    assert root.tag == "rss" and root.get("version") == "2.0", (root.tag, root.attrib)
    chans = root.findall("channel")
    assert len(chans) == 1
    return chans[0]


def items(raw):
    return channel(raw).findall("item")


def rfc822(s):
    assert s and RFC822_RE.match(s.strip()), s
    d = email.utils.parsedate_to_datetime(s.strip())
    assert d.tzinfo is not None, s
    return d


def api_items(server):
    return server.json("/api/v1/incidents?limit=100")["data"]


def item_id(it, by_url):
    return by_url[it.findtext("link")]["id"]


# ------------------------------------------------------------------ transport and format


def test_content_type_and_headers(ro_server):
    r = fetch(ro_server)
    ct = r.headers.get("Content-Type", "")
    assert re.fullmatch(r"application/rss\+xml;\s*charset=utf-8", ct, re.I), ct
    assert r.headers.get("Cache-Control") == "no-store"
    assert r.headers.get("X-Content-Type-Options") == "nosniff"


def test_parses_with_feedparser(ro_server):
    f = feedparser.parse(fetch(ro_server).content)
    assert f.bozo == 0, f.get("bozo_exception")
    assert f.version == "rss20"
    assert f.feed.title
    assert f.feed.link == f"{BASE}/"
    assert f.feed.get("subtitle") or f.feed.get("description")
    assert f.feed.get("language") == "en"
    selfs = [l for l in f.feed.get("links", []) if l.get("rel") == "self"]
    assert [l["href"] for l in selfs] == [f"{BASE}{FEED}"], f.feed.get("links")
    assert len(f.entries) == len(api_items(ro_server))


def test_wellformed_with_required_channel_elements(ro_server):
    raw = fetch(ro_server).content
    assert raw.lstrip().startswith(b"<?xml") or raw.lstrip().startswith(b"<rss")
    ch = channel(raw)
    for name in ("title", "link", "description"):
        el = ch.find(name)
        assert el is not None and (el.text or "").strip(), name
    assert ch.findtext("link") == f"{BASE}/"
    assert ch.findtext("language") == "en"
    rfc822(ch.findtext("lastBuildDate"))
    selfs = [l for l in ch.findall("atom:link", NS) if l.get("rel") == "self"]
    assert len(selfs) == 1, ET.tostring(ch)[:500]
    assert selfs[0].get("href") == f"{BASE}{FEED}"
    assert selfs[0].get("type") in (None, "application/rss+xml")
    # the channel's own elements come before the items (RSS 2.0 layout)
    names = [c.tag for c in ch]
    first_item = names.index("item") if "item" in names else len(names)
    assert all(n == "item" for n in names[first_item:]), names


def test_no_credential_needed_and_head(ro_server):
    r = ro_server.head(FEED)
    assert r.status_code == 200
    assert r.headers.get("Content-Type", "").startswith("application/rss+xml")


# ------------------------------------------------------------------ items


def test_items_newest_first_and_match_the_api(ro_server):
    raw = fetch(ro_server).content
    api = api_items(ro_server)
    by_url = {i["public_url"]: i for i in api}
    its = items(raw)
    assert [it.findtext("link") for it in its if it.findtext("link") not in by_url] == []
    assert {it.findtext("link") for it in its} == set(by_url)
    dates = [rfc822(it.findtext("pubDate")) for it in its]
    assert dates == sorted(dates, reverse=True)
    for it in its:
        inc = by_url[it.findtext("link")]
        assert it.findtext("title") == inc["title"]
        guid = it.find("guid")
        assert guid is not None and guid.text == inc["public_url"]
        assert guid.get("isPermaLink") == "true"
        assert rfc822(it.findtext("pubDate")) == parse_ts(inc["published_at"])
        assert [c.text for c in it.findall("category")] == [inc["league"]]
        w = {c.tag[len(W):]: c.text or "" for c in it if c.tag.startswith(W)}
        assert {"league", "matchup", "question", "maturity", "updated", "votes",
                "comments"} <= set(w), sorted(w)
        assert w["league"] == inc["league"]
        assert w["matchup"] == inc["matchup"]
        q = inc["debate_question"]
        if q:
            assert w["question"] in (q["question_text"], inc["display_question"]), w["question"]
        else:
            assert w["question"] in ("", inc["display_question"]), w["question"]
        assert w["maturity"] == inc["status"]
        assert parse_ts(w["updated"]) == parse_ts(inc["updated_at"])
        assert w["votes"] == str(inc["votes"]["total"])
        assert w["comments"] == str(inc["comment_count"])
        desc = it.findtext("description") or ""
        assert inc["matchup"] in desc, desc
        assert re.search(rf"\b{inc['status']}\b", desc, re.I), desc
        if q:
            assert q["question_text"] in desc, desc
        assert not re.search(r"<[a-zA-Z/]", desc), f"description is not plain text: {desc!r}"


def test_items_with_feedparser(ro_server):
    f = feedparser.parse(fetch(ro_server).content)
    by_url = {i["public_url"]: i for i in api_items(ro_server)}
    for e in f.entries:
        inc = by_url[e.link]
        assert e.id == e.link  # (feedparser sets guidislink only when <link> is absent)
        assert e.title == inc["title"]
        assert e.published_parsed is not None
        assert [t["term"] for t in e.get("tags", [])] == [inc["league"]]
        assert e.get("whistle_league") == inc["league"]
        assert e.get("whistle_matchup") == inc["matchup"]
        assert e.get("whistle_maturity") == inc["status"]
        assert e.get("whistle_votes") == str(inc["votes"]["total"])
        assert e.get("whistle_comments") == str(inc["comment_count"])


def test_votes_and_comments_are_populated(server_factory):
    """comment_count is the visible comments (an imported document's own count is ignored:
    main.json says 7 for I1 and carries no comments)."""
    doc = load_fixture("main.json")
    doc["incidents"][0]["comments"] = [
        {"id": f"c0000000-0000-4000-8000-00000000000{n}", "author": {"display_name": name},
         "body": body, "status": status}
        for n, name, body, status in ((1, "Feed Reader", "Late, and it mattered.", "published"),
                                      (2, "Other Reader", "It was on time.", "published"),
                                      (3, "Other Reader", "Held for review.", "pending"))]
    s = server_factory.start(db=server_factory.new_db(doc))
    its = {it.findtext("link"): it for it in items(fetch(s).content)}
    i1 = its[f"{BASE}/incidents/alpha-bravo-late-hit"]
    assert i1.findtext("whistle:votes", namespaces=NS) == "7"
    assert i1.findtext("whistle:comments", namespaces=NS) == "2"
    i3 = its[f"{BASE}/incidents/ccg-overtime-fumble-replay"]
    assert i3.findtext("whistle:comments", namespaces=NS) == "0"


def test_withdrawn_and_merged_not_in_feed(ro_server):
    links = {it.findtext("link") for it in items(fetch(ro_server).content)}
    for bad in ("withdrawn-sample", WITHDRAWN, "late-hit-duplicate", DUPLICATE):
        assert f"{BASE}/incidents/{bad}" not in links


def test_withdrawn_vanishes_on_next_request(server_factory):
    s = server_factory.start()
    i1 = f"{BASE}/incidents/alpha-bravo-late-hit"
    i7 = f"{BASE}/incidents/echo-bravo-sideline-warning"
    links = {it.findtext("link") for it in items(fetch(s).content)}
    assert i1 in links and i7 in links
    cli_ok("incident", "withdraw", I1, "--db", s.db)
    links = {it.findtext("link") for it in items(fetch(s).content)}
    assert i1 not in links and i7 in links
    cli_ok("incident", "merge", I7, "--force", "--into", "33333333-3333-4333-8333-333333333333",
           "--db", s.db)
    links = {it.findtext("link") for it in items(fetch(s).content)}
    assert i7 not in links
    assert len(links) == len(api_items(s)) == 8


def test_vote_totals_follow_ballots(server_factory):
    s = server_factory.start()
    v = Voter(s)
    v.view("/incidents/alpha-bravo-late-hit")
    fetch(s)
    r = v.vote("alpha-bravo-late-hit", "correct")
    assert r.status_code == 200, r.text
    its = {it.findtext("link"): it for it in items(fetch(s).content)}
    it = its[f"{BASE}/incidents/alpha-bravo-late-hit"]
    assert it.findtext("whistle:votes", namespaces=NS) == "8"
    v.close()


def test_latest_50_newest_first(server_factory):
    s = server_factory.start(doc=generated_doc(55, tag=0xfeed))
    its = items(fetch(s).content)
    assert [it.findtext("link") for it in its] == \
        [f"{BASE}/incidents/generated-{k}" for k in range(55, 5, -1)]
    f = feedparser.parse(fetch(s).content)
    assert f.bozo == 0 and len(f.entries) == 50


def test_empty_feed_is_valid(server_factory):
    s = server_factory.start(doc=None)
    raw = fetch(s).content
    assert items(raw) == []
    ch = channel(raw)
    for name in ("title", "link", "description"):
        assert (ch.findtext(name) or "").strip(), name
    f = feedparser.parse(raw)
    assert f.bozo == 0 and f.version == "rss20"


def test_namespace_is_a_url_the_deployment_answers(ro_server):
    """The whistle: namespace is {base_url}/ns/1.0, and that URL answers 200 with an HTML
    page describing each element the items carry."""
    raw = fetch(ro_server).content
    assert f'xmlns:whistle="{BASE}/ns/1.0"'.encode() in raw
    assert b"whistle.example/ns" not in raw
    used = {el.tag[len(W):] for it in items(raw) for el in it if el.tag.startswith(W)}
    r = ro_server.get("/ns/1.0")
    assert r.status_code == 200, r.status_code
    assert re.fullmatch(r"text/html;\s*charset=utf-8", r.headers["Content-Type"], re.I)
    doc = soup(r)
    assert doc.find(id="namespace").get_text() == f"{BASE}/ns/1.0"
    described = {dt["id"] for dt in doc.select("#elements dt")}
    assert used and used <= described, (used, described)
    assert ro_server.get("/ns/1.0?x=1").status_code == 400


def test_feed_follows_the_base_url(server_factory):
    base = "https://whistle.example.org"
    s = server_factory.start(base_url=base)
    raw = fetch(s).content
    assert f'xmlns:whistle="{base}/ns/1.0"'.encode() in raw
    ch = channel(raw)
    assert ch.findtext("link") == f"{base}/"
    assert [l.get("href") for l in ch.findall("atom:link", NS)] == [f"{base}{FEED}"]
    for it in ch.findall("item"):
        assert it.findtext("link").startswith(f"{base}/incidents/")
        assert it.findtext("guid") == it.findtext("link")


# ------------------------------------------------------------------ escaping


ESC = load_fixture("escape.json")
ESC_INC = ESC["incidents"][0]


def test_escaping(server_factory):
    s = server_factory.start(doc="escape.json")
    raw = fetch(s).content
    assert b"<script>" not in raw and b"<img src=x" not in raw and b"<b>" not in raw
    f = feedparser.parse(raw)
    assert f.bozo == 0, f.get("bozo_exception")
    assert len(f.entries) == 1
    e = f.entries[0]
    assert e.link == f"{BASE}/incidents/escape-test"
    its = items(raw)  # well-formed XML
    assert len(its) == 1
    it = its[0]
    api = s.json(f"/api/v1/incidents/{ESC_INC['id']}")["data"]
    assert it.findtext("title") == ESC_INC["title"] == api["title"]
    assert e.title == ESC_INC["title"]
    assert it.findtext("whistle:matchup", namespaces=NS) == api["matchup"]
    assert it.findtext("whistle:question", namespaces=NS) == \
        ESC_INC["debate_question"]["question_text"]
    desc = it.findtext("description")
    assert api["matchup"] in desc and ESC_INC["debate_question"]["question_text"] in desc


# Characters XML 1.0 forbids even escaped (issue 14 item 8): C0 controls other than tab, LF
# and CR, U+FFFE and U+FFFF. The import takes them (JSON can carry them); the feed drops them
# from every text it writes, the JSON API keeps them exactly, the HTML page still renders.
FORBIDDEN = "\x01\x08\x0b\x0c\x1f\ufffe\uffff"


def _with_forbidden(s):
    return s[:3] + FORBIDDEN + s[3:]


def _strip_forbidden(s):
    return "".join(ch for ch in s if ch not in FORBIDDEN)


def test_characters_xml_forbids_are_dropped_and_the_feed_stays_valid(server_factory):
    doc = generated_doc(2, tag=0xfffe)
    inc = doc["incidents"][1]
    inc["title"] = _with_forbidden("Late \u2028 hit \U0001F3C8 é, tab\there")
    inc["neutral_summary"] = _with_forbidden("A summary")
    inc["debate_question"]["question_text"] = _with_forbidden("Was it right?")
    doc["teams"][0]["name"] = _with_forbidden("Generated Home")
    s = server_factory.start(doc=doc)
    raw = fetch(s).content
    f = feedparser.parse(raw)
    assert f.bozo == 0, f.get("bozo_exception")
    assert len(f.entries) == 2
    its = items(raw)  # well-formed XML
    it = next(i for i in its if i.findtext("link").endswith("/generated-2"))
    assert it.findtext("title") == _strip_forbidden(inc["title"])
    assert f.entries[0].title == _strip_forbidden(inc["title"])
    assert it.findtext("whistle:question", namespaces=NS) == "Was it right?"
    assert "Generated Home" in it.findtext("whistle:matchup", namespaces=NS)
    desc = it.findtext("description")
    assert "A summary" in desc and "Was it right?" in desc
    for ch in FORBIDDEN:
        assert ch.encode() not in raw, repr(ch)
    # the JSON API keeps the text exactly (escaped where JSON requires it)
    r = s.get(f"/api/v1/incidents/{inc['id']}")
    assert r.status_code == 200
    api = r.json()["data"]  # json.loads is strict: a raw control character would fail here
    assert api["title"] == inc["title"]
    assert api["neutral_summary"] == inc["neutral_summary"]
    assert api["debate_question"]["question_text"] == inc["debate_question"]["question_text"]
    lst = s.json("/api/v1/incidents?limit=10")["data"]
    assert inc["title"] in [d["title"] for d in lst]
    # the HTML pages render the title (valid UTF-8, escaped, the visible text intact)
    for path in ("/incidents/generated-2", "/"):
        r = s.get(path)
        assert r.status_code == 200, (path, r.status_code)
        text = r.content.decode("utf-8")
        assert "Late \u2028 hit \U0001F3C8 é" in _strip_forbidden(text), path
