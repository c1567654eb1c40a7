"""Helpers for the account and developer-portal tests (issue 6; docs/accounts.md).

MailSink is a real SMTP server (Debian's python3-aiosmtpd) on 127.0.0.1 and a free port,
started by the test; the server under test delivers to it with `--smtp-url`. Browser is a
browser-like client that keeps the `__Host-` cookies itself (requests never sends a Secure
cookie over http), reads each page's CSRF token and posts forms with a same-origin Origin.
"""

import email
import email.policy
import re
import socket
import threading
import time
from urllib.parse import urlsplit

import requests
from aiosmtpd.controller import Controller

from helpers import BASE
from pagekit import COOKIE as VOTER_COOKIE
from pagekit import ORIGIN, cookie_value, set_cookie_headers, soup

SESSION_COOKIE = "__Host-whistle_session"
PASSWORD = "correct horse battery staple"
KEY_RE = re.compile(r"^wk_[0-9A-Za-z]{49}$")
LINK_RE = re.compile(r"https?://[^\s]+/account/(verify|reset)\?token=([0-9A-Za-z]+)")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _Handler:
    def __init__(self, sink):
        self.sink = sink

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content,
                                       policy=email.policy.default)
        with self.sink.cond:
            self.sink.messages.append({"from": envelope.mail_from,
                                       "to": list(envelope.rcpt_tos), "msg": msg,
                                       "body": msg.get_content()})
            self.sink.cond.notify_all()
        return "250 OK"


class MailSink:
    """An SMTP server collecting every message it is given."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.messages = []
        self.cond = threading.Condition()
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def stop(self):
        self.controller.stop()

    def wait(self, to, count=1, timeout=10.0):
        """The messages to `to`, once there are at least `count` of them."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                got = [m for m in self.messages if to in m["to"]]
                if len(got) >= count:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no mail for {to} within {timeout}s "
                                         f"(have {[m['to'] for m in self.messages]})")
                self.cond.wait(left)

    def to(self, rcpt):
        with self.cond:
            return [m for m in self.messages if rcpt in m["to"]]


def link_of(body, kind):
    """The path (with query) of the `kind` link ("verify" or "reset") in a mail body."""
    m = [x for x in LINK_RE.finditer(body) if x.group(1) == kind]
    assert m, (kind, body)
    url = m[-1].group(0)
    assert url.startswith(BASE + "/"), url
    return url[len(BASE):]


def token_of(path):
    return path.split("token=", 1)[1]


class Browser:
    """One browser: its voter and session cookies, and the CSRF token of the last page."""

    def __init__(self, server, origin=ORIGIN):
        self.server = server
        self.origin = origin
        self.cookies = {}
        self.csrf = None
        self.http = requests.Session()
        self.http.trust_env = False
        self.last_set_cookies = []

    def close(self):
        self.http.close()

    @property
    def session(self):
        return self.cookies.get(SESSION_COOKIE)

    def _cookie_header(self):
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items() if v)

    def _adopt(self, r):
        self.last_set_cookies = set_cookie_headers(r)
        for h in self.last_set_cookies:
            name = h.split("=", 1)[0].strip()
            value = cookie_value(h)
            if "max-age=0" in h.lower() or not value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value

    def get(self, path, status=None):
        h = {}
        if self.cookies:
            h["Cookie"] = self._cookie_header()
        r = self.http.get(self.server.url + path, headers=h, allow_redirects=False, timeout=30)
        if status is not None:
            assert r.status_code == status, (path, r.status_code, r.text[:500])
        r.encoding = "utf-8"
        self._adopt(r)
        doc = soup(r)
        inp = doc.find("input", attrs={"name": "csrf"})
        if inp is not None:
            self.csrf = inp.get("value")
        return r, doc

    def post(self, path, data, csrf="default", origin="default", headers=None):
        body = dict(data)
        token = self.csrf if csrf == "default" else csrf
        if token is not None:
            body["csrf"] = token
        h = {}
        if self.cookies:
            h["Cookie"] = self._cookie_header()
        o = self.origin if origin == "default" else origin
        if o is not None:
            h["Origin"] = o
        if headers:
            h.update(headers)
        r = self.http.post(self.server.url + path, data=body, headers=h, allow_redirects=False,
                           timeout=30)
        r.encoding = "utf-8"
        self._adopt(r)
        return r

    def form_post(self, page, form_id, data, **kw):
        """GET page, then POST form #form_id with its hidden fields and `data`."""
        _, doc = self.get(page, status=200)
        form = doc.find("form", id=form_id)
        assert form is not None, (page, form_id)
        fields = {i["name"]: i.get("value", "") for i in form.find_all("input", type="hidden")}
        fields.update(data)
        csrf = fields.pop("csrf", None)
        return self.post(form["action"], fields, csrf=csrf, **kw)


def location(r):
    loc = r.headers.get("Location", "")
    assert loc.startswith(BASE + "/"), (r.status_code, loc)
    return loc[len(BASE):]


def text(r):
    return re.sub(r"\s+", " ", soup(r).get_text(" ")).strip()


def page_message(r):
    """The error or notice paragraph of a page (the form error, or the error page's)."""
    doc = soup(r)
    el = doc.find(id="form-error") or doc.find(class_="error") or doc.find(id="check-inbox")
    return re.sub(r"\s+", " ", el.get_text(" ")).strip() if el else None


class Accounts:
    """A server with an SMTP sink, and the steps of the account flows."""

    def __init__(self, factory, tmp_path, extra=(), smtp=True, clock=None, poll_ms=20):
        self.sink = MailSink() if smtp else None
        self.clock = clock
        # many sign-ups come from 127.0.0.1 here: the per-address limit is tested on its own;
        # poll_ms None: the worker's default interval
        args = ["--signup-limit-ip", "1000", *extra]
        if poll_ms is not None:
            args = ["--poll-ms", str(poll_ms), *args]
        if self.sink:
            args = ["--smtp-url", self.sink.url, *args]
        self.server = factory.start(extra=args, env=clock.env if clock else None)
        self.browsers = []

    def close(self):
        for b in self.browsers:
            b.close()
        if self.sink:
            self.sink.stop()

    def browser(self):
        b = Browser(self.server)
        self.browsers.append(b)
        return b

    def signup(self, b, addr, password=PASSWORD, status=200):
        r = b.form_post("/account/signup", "signup-form", {"email": addr, "password": password})
        assert r.status_code == status, (r.status_code, text(r)[:400])
        return r

    def verify_link(self, addr, n=1):
        msgs = self.sink.wait(addr, n)
        return link_of(msgs[n - 1]["body"], "verify")

    def verify(self, b, link):
        r, doc = b.get(link, status=200)
        form = doc.find("form", id="verify-form")
        assert form is not None, text(r)[:300]
        tok = form.find("input", attrs={"name": "token"})["value"]
        return b.post("/account/verify", {"token": tok})

    def signin(self, b, addr, password=PASSWORD, status=303, next_path=None):
        page = "/account/signin" + (f"?next={next_path}" if next_path else "")
        r = b.form_post(page, "signin-form", {"email": addr, "password": password})
        assert r.status_code == status, (r.status_code, text(r)[:400])
        return r

    def verified_user(self, addr, b=None):
        """A browser signed in to a new account with a verified email."""
        b = b or self.browser()
        self.signup(b, addr)
        r = self.verify(b, self.verify_link(addr))
        assert r.status_code == 200, text(r)[:300]
        self.signin(b, addr)
        return b

    def create_key(self, b, name="my-bot", status=200):
        r = b.form_post("/developers", "create-key-form", {"name": name})
        assert r.status_code == status, (r.status_code, text(r)[:400])
        if status != 200:
            return r, None
        doc = soup(r)
        el = doc.find(id="new-key-secret")
        assert el is not None, text(r)[:400]
        secret = el.get_text().strip()
        assert KEY_RE.match(secret), secret
        return r, secret


def origin_of(url):
    u = urlsplit(url)
    return f"{u.scheme}://{u.netloc}"
