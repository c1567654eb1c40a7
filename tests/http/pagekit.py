"""Helpers for the human pages, the Fan Verdict ballot endpoint and the RSS feed
(docs/pages.md): HTML parsing with BeautifulSoup (html.parser), the verdict hooks, redirect
targets, raw Set-Cookie headers and an anonymous browser voter that carries its
`__Host-whistle_voter` cookie explicitly (requests never sends a Secure cookie over http)."""

import datetime as dt
import json
import re
import uuid
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urljoin, urlsplit

import requests
import requests.adapters
from bs4 import BeautifulSoup

from helpers import BASE, run_cli

COOKIE = "__Host-whistle_voter"
ORIGIN = "{0.scheme}://{0.netloc}".format(urlsplit(BASE))
CHOICES = ("correct", "incorrect", "unsure")
GROUPS = ("home", "away", "neutral", "undisclosed", "unspecified")


# ---------------------------------------------------------------- HTML


def soup(r_or_text):
    text = r_or_text if isinstance(r_or_text, str) else r_or_text.text
    return BeautifulSoup(text, "html.parser")


def norm_text(node):
    """The visible text of a node with runs of whitespace collapsed."""
    return re.sub(r"\s+", " ", node.get_text(" ")).strip()


def page(server, path, status=200, **kw):
    """GET an HTML page; checks status and the page headers; returns (response, soup)."""
    r = server.get(path, **kw)
    assert r.status_code == status, (path, r.status_code, r.text[:500])
    check_html_headers(r)
    r.encoding = "utf-8"
    return r, soup(r)


def check_html_headers(r):
    ct = r.headers.get("Content-Type", "")
    assert re.fullmatch(r"text/html;\s*charset=utf-8", ct, re.I), ct
    assert r.headers.get("Cache-Control") == "no-store", r.headers
    assert r.headers.get("Content-Security-Policy"), r.headers


def abs_url(href, base=BASE):
    """An href resolved against the page's own address under `base`."""
    return urljoin(base + "/", href)


def hrefs(doc, base=BASE):
    return [abs_url(a["href"], base) for a in doc.find_all("a", href=True)]


def linked_in_order(doc, urls, base=BASE):
    """The subset of `urls` linked from the page, in the order of their first link."""
    wanted = set(urls)
    out = []
    for u in hrefs(doc, base):
        if u in wanted and u not in out:
            out.append(u)
    return out


def element_with_text(doc, text):
    """The first element whose whole visible text equals `text` (leading/trailing space
    ignored), or None."""
    for el in doc.find_all(True):
        if el.get_text().strip() == text:
            return el
    return None


def redirect_target(r, base=BASE):
    """Location of a redirect, as a path (with fragment); an absolute Location must be under
    the configured base URL."""
    loc = r.headers.get("Location")
    assert loc, ("no Location", r.status_code, r.headers)
    if re.match(r"^[a-z][a-z0-9+.-]*:", loc, re.I):
        assert loc.startswith(base + "/"), (loc, base)
        loc = loc[len(base):]
    assert loc.startswith("/"), loc
    return loc


# ---------------------------------------------------------------- verdict hooks


def num(text):
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    assert m, text
    return float(m.group(0))


def round1(x):
    return float(Decimal(str(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def pct_of(part, total):
    return round1(Decimal(100 * part) / Decimal(total)) if total else 0.0


def _by_choice(elements):
    """Map count/pct elements of one row to choices: by a data-choice attribute on the element
    or an ancestor cell when present, else by column order (correct, incorrect, unsure)."""
    out = {}
    for k, el in enumerate(elements):
        key = None
        for node in [el, *el.parents]:
            if getattr(node, "attrs", None) and node.get("data-choice"):
                key = node["data-choice"]
                break
            if node.name == "tr":
                break
        out[key or CHOICES[k]] = num(el.get_text())
    return out


def verdict(doc):
    """Parse <section id="verdict">: total, the choice items, the rooting table (or None)."""
    sec = doc.find(id="verdict")
    assert sec is not None, "no #verdict section"
    total_el = sec.find(id="vote-total")
    items = {}
    for li in sec.select("li[data-choice]"):
        choice = li["data-choice"]
        count_el = li.select_one(".count")
        pct_el = li.select_one(".pct")
        items[choice] = {
            "text": norm_text(li),
            "count": int(num(count_el.get_text())) if count_el else None,
            "pct": num(pct_el.get_text()) if pct_el else None,
            "pct_text": pct_el.get_text().strip() if pct_el else None,
            "count_first": _count_before_pct(li),
        }
    rooting_sec = doc.find(id="rooting")
    rooting = None
    if rooting_sec is not None:
        rooting = {}
        for tr in rooting_sec.select("tr[data-group]"):
            counts = _by_choice(tr.select(".count"))
            pcts = _by_choice(tr.select(".pct"))
            rooting[tr["data-group"]] = {"counts": {k: int(v) for k, v in counts.items()},
                                         "pcts": pcts}
    return {
        "section": sec,
        "total": int(num(total_el.get_text())) if total_el else None,
        "items": items,
        "pct_elements": sec.select(".pct"),
        "rooting_section": rooting_sec,
        "rooting": rooting,
    }


def _count_before_pct(li):
    s = str(li)
    c = s.find('class="count"')
    p = s.find('class="pct"')
    return c != -1 and (p == -1 or c < p)


def vote_form(doc):
    form = doc.find("form", id="vote-form")
    if form is None:
        return None
    csrf = form.find("input", attrs={"name": "csrf"})
    qv = form.find("input", attrs={"name": "question_version"})
    buttons = {b.get("value"): b for b in form.find_all("button", attrs={"name": "choice"})}
    return {"form": form, "action": form.get("action"),
            "method": (form.get("method") or "").lower(),
            "csrf": csrf.get("value") if csrf else None,
            "question_version": qv.get("value") if qv else None, "buttons": buttons}


# ---------------------------------------------------------------- cookies


def set_cookie_headers(r):
    """Every raw Set-Cookie header of a response (requests joins them otherwise)."""
    h = r.raw.headers
    if hasattr(h, "getlist"):
        return list(h.getlist("Set-Cookie"))
    return [v for k, v in h.items() if k.lower() == "set-cookie"]


def voter_cookie_header(r):
    """The raw Set-Cookie header that sets __Host-whistle_voter, or None."""
    found = [h for h in set_cookie_headers(r) if h.split("=", 1)[0].strip() == COOKIE]
    assert len(found) <= 1, found
    return found[0] if found else None


def cookie_value(header):
    return header.split(";", 1)[0].split("=", 1)[1].strip()


def cookie_attrs(header):
    attrs = {}
    for part in header.split(";")[1:]:
        k, _, v = part.strip().partition("=")
        attrs[k.strip().lower()] = v.strip()
    return attrs


def tamper(cookie):
    """The cookie with one character of its signature changed (a middle one, so that the
    change is never absorbed by base64 padding bits)."""
    vid, _, sig = cookie.partition(".")
    assert sig, cookie
    i = len(sig) // 2
    c = sig[i]
    for alphabet in ("0123456789abcdef", "0123456789ABCDEF", "0123456789",
                     "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "-_"):
        if c in alphabet and (len(alphabet) != 16 or all(ch in alphabet for ch in sig)):
            break
    else:
        raise AssertionError(f"unexpected signature character {c!r}")
    repl = alphabet[(alphabet.index(c) + 1) % len(alphabet)]
    return f"{vid}.{sig[:i]}{repl}{sig[i + 1:]}"


# ---------------------------------------------------------------- the voter


class SourceAdapter(requests.adapters.HTTPAdapter):
    """Connects from a given local address (any 127.0.0.0/8 address is this machine's)."""

    def __init__(self, ip, **kw):
        self.source_ip = ip
        super().__init__(**kw)

    def init_poolmanager(self, *args, **kw):
        kw["source_address"] = (self.source_ip, 0)
        super().init_poolmanager(*args, **kw)


class Voter:
    """An anonymous browser: views incident pages, keeps its voter cookie and the page's CSRF
    token, and posts ballots with a same-origin Origin (the configured base URL's)."""

    def __init__(self, server, origin=ORIGIN, ip=None, headers=None):
        """ip: the loopback source address to connect from (127.0.0.2, ...: another client
        address); headers: sent with every request (an X-Forwarded-For, say)."""
        self.server = server
        self.origin = origin
        self.cookie = None
        self.csrf = None
        self.extra = dict(headers or {})
        self.http = requests.Session()
        self.http.trust_env = False
        if ip:
            self.http.mount("http://", SourceAdapter(ip))

    def close(self):
        self.http.close()

    def _headers(self, cookie=True, extra=None):
        h = dict(self.extra)
        if cookie and self.cookie:
            h["Cookie"] = f"{COOKIE}={self.cookie}"
        if extra:
            h.update(extra)
        return h

    def view(self, path, status=200):
        """GET a page with this voter's cookie; adopts a newly issued cookie and the page's
        CSRF token. Returns (response, soup)."""
        r = self.http.get(self.server.url + path, headers=self._headers(), allow_redirects=False,
                          timeout=10)
        assert r.status_code == status, (path, r.status_code, r.text[:300])
        r.encoding = "utf-8"
        doc = soup(r)
        h = voter_cookie_header(r)
        if h:
            self.cookie = cookie_value(h)
        f = vote_form(doc)
        if f and f["csrf"]:
            self.csrf = f["csrf"]
        return r, doc

    def post(self, path, data=None, json_body=None, origin="default", referer=None,
             cookie=True, headers=None, raw=None, content_type=None):
        h = self._headers(cookie)
        o = self.origin if origin == "default" else origin
        if o is not None:
            h["Origin"] = o
        if referer is not None:
            h["Referer"] = referer
        if headers:
            h.update(headers)
        kw = {}
        if json_body is not None:
            kw["data"] = json.dumps(json_body).encode()
            h["Content-Type"] = "application/json"
        elif raw is not None:
            kw["data"] = raw
            h["Content-Type"] = content_type or "application/x-www-form-urlencoded"
        else:
            kw["data"] = data or {}
        return self.http.post(self.server.url + path, headers=h, allow_redirects=False,
                              timeout=10, **kw)

    def vote(self, slug, choice, qv=1, csrf="default", as_json=True, **kw):
        token = self.csrf if csrf == "default" else csrf
        body = {"choice": choice, "question_version": qv}
        if token is not None:
            body["csrf"] = token
        path = f"/incidents/{slug}/vote"
        if as_json:
            return self.post(path, json_body=body, **kw)
        return self.post(path, data=body, **kw)


def api_votes(server, iid):
    return server.json(f"/api/v1/incidents/{iid}")["data"]["votes"]


def error_code(r):
    assert r.headers.get("Content-Type", "").split(";")[0].strip() == "application/json", (
        r.status_code, r.headers.get("Content-Type"), r.text[:300])
    body = r.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"].get("message"), str) and body["error"]["message"], body
    return body["error"]["code"]


# ---------------------------------------------------------------- documents


def ballots(spec):
    """[(choice, rooting, n), ...] -> import-format ballots."""
    out = []
    for choice, rooting, n in spec:
        out.extend({"choice": choice, "rooting": rooting} for _ in range(n))
    return out


def gen_uuid(n, tag=0xabc):
    return str(uuid.UUID(f"{tag:08x}-0000-4000-8000-{n:012x}"))


def question(text="Was the call right?", a="Right call", b="Wrong call", u="Not sure"):
    return {"question_type": "ruling", "question_text": text, "option_a_label": a,
            "option_b_label": b, "unsure_label": u}


def ts(base, minutes):
    t = dt.datetime.fromisoformat(base.replace("Z", "+00:00")) + dt.timedelta(minutes=minutes)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def generated_doc(n, tag=0xabc, with_question=True):
    """One game and `n` incidents published one minute apart (the last is the newest)."""
    doc = {
        "teams": [
            {"id": "gen-home", "name": "Generated Home", "abbreviation": "GHO", "league": "nfl"},
            {"id": "gen-away", "name": "Generated Away", "abbreviation": "GAW", "league": "nfl"},
        ],
        "games": [{"id": "nfl:gen-1", "homeTeam": {"id": "gen-home"},
                   "awayTeam": {"id": "gen-away"}, "status": "final", "season": 2026,
                   "week": 3, "league": "nfl", "startsAt": "2026-09-20T17:00:00Z",
                   "homeScore": 3, "awayScore": 0}],
        "incidents": [],
    }
    for k in range(n):
        inc = {"id": gen_uuid(k + 1, tag), "game_id": "nfl:gen-1",
               "title": f"Generated play {k + 1}",
               "play_description": f"Generated play number {k + 1}.", "category": "penalty",
               "published_at": ts("2026-09-20T18:00:00Z", k), "slug": f"generated-{k + 1}"}
        if with_question:
            inc["debate_question"] = question(f"Generated question {k + 1}?")
        doc["incidents"].append(inc)
    return doc


def cli_ok(*args):
    r = run_cli(*args)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r
