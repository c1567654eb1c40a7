"""Loopback spellings are one origin (issue 18 item 3): with a loopback base URL
(http://localhost:8080), ballots and account forms posted from http://127.0.0.1:8080 or
http://[::1]:8080 are accepted, and a redirect keeps the browser on the spelling it used;
another port or scheme is still refused, and a refused form explains itself in words a fan
understands, with a link back to the form's page (docs/pages.md)."""

import pytest

from helpers import I1
from pagekit import Voter, api_votes, check_html_headers, soup

SLUG = "alpha-bravo-late-hit"
LOCAL = "http://localhost:8080"


@pytest.fixture
def srv(server_factory):
    return server_factory.start(base_url=LOCAL)


def voter(srv, origin):
    v = Voter(srv, origin=origin)
    v.view(f"/incidents/{SLUG}")
    assert v.cookie and v.csrf
    return v


@pytest.mark.parametrize("origin", ["http://localhost:8080", "http://127.0.0.1:8080",
                                    "http://[::1]:8080", "http://LOCALHOST:8080"])
def test_every_loopback_spelling_may_vote(srv, origin):
    before = sum(api_votes(srv, I1)["counts"].values())
    v = voter(srv, origin)
    r = v.vote(SLUG, "correct", as_json=False)
    assert r.status_code == 303, (r.status_code, r.text[:300])
    r = v.vote(SLUG, "incorrect", as_json=True, origin=None,
               referer=f"{origin}/incidents/{SLUG}")  # a Referer alone, another spelling
    assert r.status_code == 200, (r.status_code, r.text[:300])
    assert sum(api_votes(srv, I1)["counts"].values()) == before + 1  # replaced, not doubled


def test_redirect_keeps_the_spelling_the_browser_used(srv):
    v = voter(srv, "http://127.0.0.1:8080")
    r = v.vote(SLUG, "correct", as_json=False, headers={"Host": "127.0.0.1:8080"})
    assert r.status_code == 303
    assert r.headers["Location"] == f"http://127.0.0.1:8080/incidents/{SLUG}#verdict", r.headers
    # a Host that is not a loopback spelling of the base is never echoed
    r = v.vote(SLUG, "correct", as_json=False, headers={"Host": "evil.example:8080"})
    assert r.headers["Location"] == f"{LOCAL}/incidents/{SLUG}#verdict", r.headers


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8081", "https://localhost:8080",
                                    "http://127.0.0.2:8080", "http://evil.example", "null"])
def test_other_origins_refused_in_words(srv, origin):
    before = api_votes(srv, I1)
    v = voter(srv, LOCAL)
    r = v.vote(SLUG, "correct", as_json=False, origin=origin)
    assert r.status_code == 403
    check_html_headers(r)
    doc = soup(r)
    text = doc.select_one("#refusal").get_text(" ", strip=True)
    assert "nothing was saved" in text and "reload it" in text, text
    assert "Origin" not in r.text and "Referer" not in r.text and "CSRF" not in r.text
    assert doc.select_one("a#back")["href"] == f"/incidents/{SLUG}"
    assert api_votes(srv, I1) == before
    # JSON clients keep the machine-readable code
    r = v.vote(SLUG, "correct", as_json=True, origin=origin)
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_failed"


def test_expired_form_explained_with_a_link_back(srv):
    v = voter(srv, LOCAL)
    r = v.vote(SLUG, "correct", as_json=False, csrf="x" * len(v.csrf))
    assert r.status_code == 403
    doc = soup(r)
    assert "This form has expired" in doc.select_one("h1").get_text()
    assert "cookie" in doc.select_one("#refusal").get_text()
    assert doc.select_one("a#back")["href"] == f"/incidents/{SLUG}"
    # an account form: the link goes back to the form's own page
    r = v.post("/account/signup", data={"email": "fan@example.com", "password": "x" * 12,
                                        "csrf": "wrong"}, origin="http://[::1]:8080")
    assert r.status_code == 403
    doc = soup(r)
    assert "This form has expired" in doc.select_one("h1").get_text()
    assert doc.select_one("a#back")["href"] == "/account/signup"
    # a signed-out visitor posting a developer form is told to sign in, with the link
    r = v.post("/developers/keys", data={"name": "k", "csrf": "x"}, origin="http://evil.example")
    assert r.status_code == 403
    doc = soup(r)
    assert "You are signed out" in doc.select_one("h1").get_text()
    assert doc.select_one("a#back")["href"] == "/account/signin"
