"""Helpers for the comment and moderation tests (issue 15; docs/comments.md): a server with
an SMTP sink and a test clock (accountkit.Accounts), commenters with a display name, posting
through the page's own forms, and the operator CLI on the server's database."""

import itertools
import json
import re
import time

from accountkit import Accounts, text
from helpers import db_arg, db_rows, run_cli
from leadkit import Clock
from pagekit import soup

_n = itertools.count(1)
SLUG = "charlie-delta-third-down-no-call"  # I2: comment_count 0 in main.json
I2 = "22222222-2222-4222-8222-222222222222"
WARMUP = "foxtrot-charlie-targeting"  # where accounts earn their trust
COMMENT_KEYS = {"id", "parent_id", "author", "body", "created_at", "edited_at", "featured",
                "reply_count"}


def addr(tag="fan"):
    return f"{tag}{next(_n)}-{time.monotonic_ns()}@example.org"


class Kit:
    def __init__(self, factory, tmp, extra=()):
        self.clock = Clock(tmp / f"now-offset-{next(_n)}")
        self.acc = Accounts(factory, tmp, clock=self.clock,
                            extra=("--password-memory-kib", "8192", *extra))
        self.server = self.acc.server
        self.db = self.server.db

    def close(self):
        self.acc.close()

    def cli(self, *args):
        r = run_cli(*args, "--db", db_arg(self.db), env=self.clock.env)
        return r

    def cli_json(self, *args):
        r = self.cli(*args, "--json")
        assert r.returncode == 0, (args, r.stderr)
        return json.loads(r.stdout)

    def user(self, name="", email=None):
        """A signed-in, verified browser with a display name (none when name is None)."""
        email = email or addr()
        b = self.acc.verified_user(email)
        b.email = email
        if name is not None:
            b.name = name or f"Fan {next(_n)}"
            r = b.form_post("/account/profile", "profile-form", {"display_name": b.name})
            assert r.status_code == 303, (r.status_code, text(r)[:300])
        return b

    def post(self, b, slug=SLUG, body="A fair call, in my view.", parent=None, **kw):
        """Posts through the incident page's form (a reply when parent is given)."""
        b.get(f"/incidents/{slug}", status=200)
        data = {"body": body}
        if parent:
            data["parent_id"] = parent
        return b.post(f"/incidents/{slug}/comments", data, **kw)

    def posted(self, b, slug=SLUG, body="A fair call, in my view.", parent=None):
        r = self.post(b, slug, body, parent)
        assert r.status_code == 303, (r.status_code, text(r)[:400])
        m = re.search(r"#c-([0-9a-f-]{36})$", r.headers["Location"])
        assert m, r.headers["Location"]
        return m.group(1)

    def approve(self, cid):
        r = self.cli("comment", "approve", cid)
        assert r.returncode == 0, r.stderr

    def trusted(self, name=""):
        """A user whose first three comments were approved: the next ones publish at once."""
        b = self.user(name)
        for i in range(3):
            self.approve(self.posted(b, WARMUP, f"Warm-up comment number {i + 1}."))
        self.clock.advance(61)  # the warm-up leaves the per-minute window
        return b

    def moderator(self, name=""):
        b = self.user(name)
        r = self.cli("account", "grant", b.email, "moderator")
        assert r.returncode == 0, r.stderr
        return b

    def api(self, iid=I2, query=""):
        r = self.server.get(f"/api/v1/incidents/{iid}/comments{query}")
        assert r.status_code == 200, (r.status_code, r.text[:300])
        return r.json()

    def api_all(self, iid=I2):
        out, offset = [], 0
        while True:
            j = self.api(iid, f"?limit=100&offset={offset}")
            out += j["data"]
            if j["pagination"]["nextOffset"] is None:
                return out
            offset = j["pagination"]["nextOffset"]

    def count(self, iid=I2):
        return self.server.json(f"/api/v1/incidents/{iid}")["data"]["comment_count"]

    def visible_rows(self, iid=I2):
        return db_rows(self.db, "SELECT count(*) FROM comments WHERE incident_id = "
                                f"'{iid}' AND status = 'published' AND report_hidden = 0"
                                " AND author_hidden = 0")[0][0]

    def page(self, b=None, slug=SLUG, query=""):
        if b is None:
            r = self.server.get(f"/incidents/{slug}{query}")
            return r, soup(r)
        return b.get(f"/incidents/{slug}{query}", status=200)


def comment_el(doc, cid):
    return doc.find(id=f"c-{cid}")
