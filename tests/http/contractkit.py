"""The contract crawl (issue 21): every operation of the served OpenAPI document, requested
through an independent validator, Stoplight Prism (`@stoplight/prism-cli` from npm, pinned in
package.json) in proxy mode in front of the real server.

Prism validates each request against the document and each response against the operation's
documented responses (status, media type, body schema, headers) and reports what it found in
the `sl-violations` response header; without `--errors` it forwards every request, invalid
ones included, so the server's own answer to an invalid request is validated too.

Nothing here names an operation: the crawl reads the document (paths, parameters, schemas,
examples, request bodies, security schemes) and derives its requests from it, so a new
operation is crawled without editing this file:
- valid requests: no parameter, then each query parameter alone with every value its schema
  gives (examples, enum values, bounds, defaults, booleans, values of the same name seen in
  earlier answers), pagination to the end following `nextOffset`, and every link the answers
  give (JSON `links`/URLs, HTML `href`/`action`, `Location`) whose path matches a template;
- error cases derived from the schemas: out-of-range integers, non-integers, values outside
  an enum, strings breaking a pattern/format/length, empty and repeated values, an unknown
  parameter; edge strings the schema may or may not allow (an impossible date, a long value);
- POST operations: valid bodies (the document's examples, else a body generated from the
  schema, with CSRF tokens and cookies taken from the crawled page that holds the form) and
  invalid ones (malformed JSON, wrong type, missing fields, an unknown field, wrong media
  type, no credential, a wrong credential).

Outcomes:
- a response violation (Prism's words) fails;
- a request the document allows (Prism reports no request violation for the probed part) that
  the server refuses with 400 is a document gap: it fails when the probe tests a rule the
  document can state (a bound, an enum, a format, a pattern, a length), and is only listed
  when it cannot (a rule between two parameters);
- a request the document refuses (a violation on the probed parameter) that the server
  accepts (2xx) fails: the document is stricter than the server;
- a 5xx fails.
Unknown and repeated query parameters are refused by the server in words only (OpenAPI cannot
forbid them); they are counted, not listed one by one.
"""

import json
import os
import re
import subprocess
import threading
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import requests

from accountkit import free_port

REPO = Path(__file__).resolve().parent.parent.parent
PRISM = REPO / "node_modules" / ".bin" / "prism"
METHODS = ("get", "post", "put", "patch", "delete")
MAX_PAGES = 60          # pagination bound per request chain
MAX_LINKS = 12          # harvested paths crawled per path template
MAX_SEEN = 8            # harvested values tried per parameter name
WORKERS = 4             # concurrent requests of one operation


# ------------------------------------------------------------------ Prism process


class Prism:
    """`prism proxy DOC UPSTREAM` on a free loopback port; stopped with stop()."""

    def __init__(self, doc_path, upstream):
        if not PRISM.exists():
            raise RuntimeError(f"{PRISM} is missing: run `npm ci` (tests/lint-openapi.sh does)")
        shim = Path(__file__).resolve().parent / "prism-no-redirect.cjs"
        env = dict(os.environ, SCARF_ANALYTICS="false", NO_COLOR="1", FORCE_COLOR="0",
                   NODE_OPTIONS=f"--require {shim}")
        for _attempt in range(3):  # the free port may be taken before Prism binds it
            self.port = free_port()
            self.lines = []
            self.proc = subprocess.Popen(
                [str(PRISM), "proxy", str(doc_path), upstream, "--host", "127.0.0.1",
                 "--port", str(self.port), "--errors", "false"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, env=env, cwd=str(REPO))
            self.ready = threading.Event()
            self.listening = False
            threading.Thread(target=self._read, daemon=True).start()
            self.ready.wait(60)
            if self.listening and self.proc.poll() is None:
                self.url = f"http://127.0.0.1:{self.port}"
                return
            self.stop()
        raise RuntimeError("prism did not start:\n" + "\n".join(self.lines[-30:]))

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if "Prism is listening" in line:
                self.listening = True
                self.ready.set()
        self.ready.set()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


# ------------------------------------------------------------------ document helpers


class Doc:
    def __init__(self, doc):
        self.doc = doc
        self.ops = []  # (path, method, operation, parameters)
        for path, item in doc.get("paths", {}).items():
            for method in METHODS:
                op = item.get(method)
                if op is None:
                    continue
                params = {}
                for p in item.get("parameters", []) + op.get("parameters", []):
                    p = self.deref(p)
                    params[(p["name"], p["in"])] = p
                self.ops.append((path, method, op, list(params.values())))

    def deref(self, node, depth=0):
        while isinstance(node, dict) and "$ref" in node and depth < 32:
            ref = node["$ref"]
            assert ref.startswith("#/"), ref
            target = self.doc
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
            depth += 1
        return node

    def security(self, op):
        """Scheme names of the operation's first security requirement ([] when public)."""
        reqs = op.get("security", self.doc.get("security", []))
        return [name for req in reqs[:1] for name in req]


def template_re(path):
    out = "^"
    for part in re.split(r"(\{[^}]+\})", path):
        out += "([^/?#]+)" if part.startswith("{") else re.escape(part)
    return re.compile(out + "$")


def template_names(path):
    return re.findall(r"\{([^}]+)\}", path)


def examples_of(node):
    out = []
    if not isinstance(node, dict):
        return out
    if "example" in node:
        out.append(node["example"])
    ex = node.get("examples")
    if isinstance(ex, list):
        out.extend(ex)
    elif isinstance(ex, dict):
        out.extend(v.get("value") for v in ex.values() if isinstance(v, dict) and "value" in v)
    return out


# ------------------------------------------------------------------ HTML harvesting


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.forms = []  # {"action", "method", "fields": {name: value}}
        self._form = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "form":
            self._form = {"action": a.get("action") or "", "method": (a.get("method") or
                          "get").lower(), "fields": {}}
            self.forms.append(self._form)
        elif tag in ("input", "button") and self._form is not None and a.get("name"):
            if tag == "input" and (a.get("type") or "text").lower() == "hidden":
                self._form["fields"][a["name"]] = a.get("value") or ""
            elif tag == "button" and a.get("value") is not None:
                self._form["fields"].setdefault("__buttons__" + a["name"], a["value"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


# ------------------------------------------------------------------ the crawl


class Finding:
    def __init__(self, kind, op, req, resp, words):
        self.kind, self.op, self.req, self.resp, self.words = kind, op, req, resp, words

    def __str__(self):
        return (f"[{self.kind}] {self.op}\n    request: {self.req}\n    response: {self.resp}\n"
                f"    {self.words}")


class Crawl:
    """crawl = Crawl(served_doc, prism_url, base_url, credentials); crawl.run()."""

    def __init__(self, doc, prism_url, base_url, credentials, origin=None, cookie_sources=None):
        self.doc = Doc(doc)
        self.prism = prism_url
        self.base = base_url.rstrip("/")
        self.origin = origin or self.base
        self.creds = credentials  # security scheme name -> Authorization header value
        # cookie parameter name -> a function giving a fresh value (a signed-in session):
        # operations that declare such a cookie are also crawled with it
        self.cookie_sources = cookie_sources or {}
        self.tls = threading.local()  # one HTTP session per thread
        self.lock = threading.RLock()
        self.failures = []
        self.gaps = []
        self.skipped = []
        self.counts = {}
        self.requests = 0
        self.words_only = 0      # unknown/repeated parameters refused (stated in words)
        self.seen = {}           # JSON key / query name -> set of values seen in answers
        self.links = {}          # path template -> set of concrete paths (with query)
        self.forms = {}          # form action path -> (fields, cookies, page it was on)
        self.cookies = {}        # the crawl's browser: cookie name -> value
        self.templates = [(template_re(p), p) for p, _m, _o, _ps in self.doc.ops]
        self.seq = 0
        self.sent = {}           # GET requests already judged -> their answer

    # -------------------------------------------------------------- sending

    def send(self, label, method, path, query="", headers=None, body=None, probe=None,
             cookies=True):
        """Sends one request through Prism and judges it. probe = (location, name, kind):
        which part of the request is under test ("query"/"path"/"header"/"body", its name)
        and kind: "valid", "invalid" (the schema forbids it), "edge" (the schema may allow
        it; a refusal is a gap the document can state), "cross" (a rule between parameters,
        not statable) or "words" (unknown/repeated parameter, stated in words only)."""
        url = self.prism + path + (("?" + query) if query else "")
        h = {"Accept": "*/*"}
        with self.lock:
            if cookies and self.cookies:
                h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            h.update(headers or {})
            h = {k: v for k, v in h.items() if v is not None}
            key = (url, tuple(sorted(h.items())), probe and probe[2])
            if method == "get" and key in self.sent:
                return self.sent[key]
            self.requests += 1
        data = body.encode("utf-8") if isinstance(body, str) else body
        http = getattr(self.tls, "http", None)
        if http is None:
            http = self.tls.http = requests.Session()
            http.trust_env = False
        try:
            r = http.request(method.upper(), url, headers=h, data=data, timeout=30,
                             allow_redirects=False)
        except requests.RequestException as e:
            with self.lock:
                self.failures.append(Finding("no answer", label, f"{method.upper()} {url}",
                                             "-", str(e)))
            return None
        with self.lock:
            self.judge(label, method, path, query, h, body, r, probe or ("-", "-", "valid"))
            self.harvest(r, path + (("?" + query) if query else "") if method == "get"
                         else None)
            if method == "get":
                self.sent[key] = r
        return r

    def judge(self, label, method, path, query, headers, body, r, probe):
        shown_h = {k: (v[:14] + "…" if k == "Authorization" else v) for k, v in headers.items()
                   if k not in ("Accept",)}
        req = f"{method.upper()} {path}{'?' + query if query else ''}"
        if shown_h:
            req += f" headers={shown_h}"
        if body is not None:
            b = body if isinstance(body, str) else repr(body)
            req += f" body={b[:300]}"
        resp = f"{r.status_code} {r.headers.get('Content-Type', '-')} {r.text[:200]!r}"
        try:
            violations = json.loads(r.headers.get("sl-violations", "[]"))
        except ValueError:
            violations = [{"location": ["response"], "message": "unreadable sl-violations "
                           + r.headers.get("sl-violations", "")}]
        resp_v = [v for v in violations if (v.get("location") or ["?"])[0] != "request"]
        req_v = [v for v in violations if (v.get("location") or ["?"])[0] == "request"]
        key = (label, probe[2], r.status_code)
        self.counts[key] = self.counts.get(key, 0) + 1
        if resp_v:
            words = "; ".join(f"{'.'.join(map(str, v.get('location', [])))}: "
                              f"{v.get('message')}" for v in resp_v)
            self.failures.append(Finding("response violation", label, req, resp, words))
        if r.status_code >= 500:
            self.failures.append(Finding("server error", label, req, resp, "5xx"))
        where, name, kind = probe
        mine = [v for v in req_v if self._about(v, where, name)]
        if kind == "words":
            if r.status_code == 400:
                self.words_only += 1
            return
        if kind in ("valid", "example", "edge", "cross") and not mine and r.status_code == 400:
            words = f"the document allows this request ({where} {name}, {kind}) but the server " \
                    f"refuses it: {r.text[:160]!r}"
            if kind == "cross":
                self.gaps.append(Finding("document gap (not statable)", label, req, resp, words))
            elif kind == "example":
                self.gaps.append(Finding("document gap (example or data)", label, req, resp,
                                         words))
            elif kind == "valid" and where == "body":
                self.gaps.append(Finding("document gap (body)", label, req, resp, words))
            else:
                self.failures.append(Finding("document gap", label, req, resp, words))
        if kind in ("invalid", "edge") and mine and 200 <= r.status_code < 300:
            words = "the document refuses this request but the server accepts it: " + \
                    "; ".join(v.get("message", "") for v in mine)
            self.failures.append(Finding("document stricter than server", label, req, resp,
                                         words))
        if kind in ("valid", "example") and mine and where != "body":
            words = "a value taken from the document breaks the document: " + \
                    "; ".join(v.get("message", "") for v in mine)
            self.failures.append(Finding("invalid example", label, req, resp, words))

    @staticmethod
    def _about(v, where, name):
        loc = [str(x) for x in v.get("location", [])]
        if where == "body":
            return len(loc) >= 2 and loc[1] == "body"
        if where == "-":
            return False
        return len(loc) >= 3 and loc[1] == where and loc[2].lower() == str(name).lower() or \
            (len(loc) >= 2 and loc[1] == where and len(loc) == 2)

    # -------------------------------------------------------------- harvesting

    def harvest(self, r, page=None):
        loc = r.headers.get("Location")
        if loc:
            self.add_link(loc)
        for c in _set_cookies(r):
            k, _, v = c.split(";")[0].partition("=")
            if k.strip():
                self.cookies[k.strip()] = v.strip()
        ctype = r.headers.get("Content-Type", "")
        if "json" in ctype:
            try:
                self._walk(r.json())
            except ValueError:
                pass
        elif "html" in ctype:
            p = _Links()
            try:
                p.feed(r.text)
            except Exception:  # noqa: BLE001 — a broken page is the validator's business
                return
            for href in p.links:
                self.add_link(href)
            for f in p.forms:
                if f["method"] == "post" and f["action"]:
                    action = self.local(f["action"])
                    if action:
                        self.forms[action.split("?")[0]] = (dict(f["fields"]), dict(self.cookies),
                                                            page)
                    self.add_link(f["action"])

    def _walk(self, node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                self._walk(v, k)
        elif isinstance(node, list):
            for v in node:
                self._walk(v, key)
        elif isinstance(node, (str, int)) and not isinstance(node, bool) and key:
            vals = self.seen.setdefault(key, [])
            if node not in vals and len(vals) < 200:
                vals.append(node)
            if isinstance(node, str) and (node.startswith(self.base + "/") or
                                          node.startswith("/")):
                self.add_link(node)

    def local(self, url):
        if url.startswith(self.base + "/") or url == self.base:
            url = url[len(self.base):] or "/"
        if not url.startswith("/") or url.startswith("//"):
            return None
        return url.split("#")[0]

    def add_link(self, url):
        url = self.local(url)
        if not url:
            return
        path = url.split("?")[0]
        for rx, tpl in self.templates:
            if rx.match(path):
                s = self.links.setdefault(tpl, [])
                if url not in s and len(s) < 500:
                    s.append(url)

    # -------------------------------------------------------------- values from schemas

    def valid_values(self, name, schema, param=None):
        return [v for v, _kind in self.valid_probes(name, schema, param)]

    def valid_probes(self, name, schema, param=None):
        """(value, kind) pairs the schema allows: kind "valid" for values the schema itself
        states (enum, bounds, default, booleans: a refusal is a gap the document can state)
        and "example" for examples and values seen in answers (a refusal may depend on the
        data: an example token that names nothing here)."""
        schema = self.doc.deref(schema or {})
        vals = [(v, "example") for v in examples_of(param or {}) + examples_of(schema)]
        if "const" in schema:
            vals.append((schema["const"], "valid"))
        vals += [(v, "valid") for v in schema.get("enum", [])]
        if "default" in schema:
            vals.append((schema["default"], "valid"))
        t = schema.get("type")
        if t == "integer" or t == "number":
            lo, hi = schema.get("minimum"), schema.get("maximum")
            if lo is not None:
                vals.append((lo, "valid"))
            if hi is not None:
                vals.append((hi, "valid"))
            if lo is not None and hi is not None:
                vals.append(((lo + hi) // 2, "valid"))
        if t == "boolean":
            vals += [(True, "valid"), (False, "valid")]
        vals += [(v, "example") for v in self.seen_values(name, schema)]
        out, strs = [], set()
        for v, kind in vals:
            s = _qs(v)
            if s not in strs:
                strs.add(s)
                out.append((s, kind))
        return out

    def seen_values(self, name, schema):
        """Values seen under the same key in earlier answers that fit the schema (a key such
        as `status` means different things in different objects)."""
        out = []
        for v in self.seen.get(name, []):
            if len(out) >= MAX_SEEN:
                break
            if self.fits(v, schema):
                out.append(v)
        return out

    def fits(self, value, schema):
        """A pre-filter for choosing inputs (the verdict is Prism's, not this)."""
        schema = self.doc.deref(schema or {})
        try:
            jsonschema.Draft202012Validator(
                dict(schema, components=self.doc.doc.get("components", {})),
                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(value)
        except jsonschema.exceptions.ValidationError:
            return False
        except Exception:  # noqa: BLE001 — a schema this pre-filter cannot read: try it
            return True
        return True

    def invalid_values(self, schema):
        """(value, kind) pairs: 'invalid' ones break the schema; 'edge' ones may not."""
        schema = self.doc.deref(schema or {})
        t = schema.get("type")
        out = []
        if t in ("integer", "number"):
            if schema.get("minimum") is not None:
                out.append((str(schema["minimum"] - 1), "invalid"))
            if schema.get("maximum") is not None:
                out.append((str(schema["maximum"] + 1), "invalid"))
            out += [("abc", "invalid"), ("1.5", "invalid" if t == "integer" else "edge"),
                    ("", "invalid")]
        elif t == "boolean":
            out += [("yes", "invalid"), ("1", "invalid"), ("", "invalid")]
        elif "enum" in schema:
            out.append(("not-in-the-list", "invalid"))
            if "" not in schema["enum"]:
                out.append(("", "invalid"))
            first = schema["enum"][0]
            if isinstance(first, str) and first.upper() != first:
                out.append((first.upper(), "invalid"))
        elif t == "string" or t is None:
            if schema.get("minLength", 0) >= 1:
                out.append(("", "invalid"))
            if schema.get("maxLength") is not None:
                out.append(("a" * (schema["maxLength"] + 1), "invalid"))
            edge = ["2025-02-30", "2025-11-29 17:00:00Z", "x" * 300, "a b", "\u00e9",
                    "2025-11-29T24:00:00Z"]
            out += [(v, "edge") for v in edge]
        return out

    # -------------------------------------------------------------- operations

    def run(self):
        phases = [
            [o for o in self.doc.ops if o[1] == "get" and not template_names(o[0])],
            [o for o in self.doc.ops if o[1] != "get" and not template_names(o[0])],
            [o for o in self.doc.ops if o[1] == "get" and template_names(o[0])],
            [o for o in self.doc.ops if o[1] != "get" and template_names(o[0])],
        ]
        for phase in phases:
            for path, method, op, params in phase:
                label = f"{method.upper()} {path} ({op.get('operationId', '-')})"
                if method == "get":
                    self.crawl_get(label, path, op, params)
                else:
                    self.crawl_body(label, path, method, op, params)
        return self

    def concrete_paths(self, path, params):
        """Concrete paths for a template: harvested links first, then the document's
        examples, else values generated from the parameters' schemas (most likely a 404,
        still an answer to validate)."""
        names = template_names(path)
        if not names:
            return [path]
        out = [u.split("?")[0] for u in self.links.get(path, [])]
        pp = {p["name"]: p for p in params if p["in"] == "path"}
        ex = path
        for n in names:
            p = pp.get(n, {})
            vals = examples_of(p) + examples_of(self.doc.deref(p.get("schema", {})))
            v = vals[0] if vals else self.generate(p.get("schema", {"type": "string"}), n)
            ex = ex.replace("{" + n + "}", urllib.parse.quote(str(v), safe=":~.-_"))
        out.append(ex)
        uniq = []
        for u in out:
            if u not in uniq:
                uniq.append(u)
        return uniq[:MAX_LINKS]

    def session_jar(self, params):
        """The crawl's cookies plus fresh values of the cookie parameters it has a source
        for, or None when the operation declares none of them."""
        fresh = {p["name"]: self.cookie_sources[p["name"]]() for p in params
                 if p["in"] == "cookie" and p["name"] in self.cookie_sources}
        return dict(self.cookies, **fresh) if fresh else None

    def label_of(self, method, url):
        path = url.split("?")[0]
        for p, m, op, _ps in self.doc.ops:
            if m == method and template_re(p).match(path):
                return f"{m.upper()} {p} ({op.get('operationId', '-')})"
        return f"{method.upper()} {path} (not in the document)"

    def auth_headers(self, label, op):
        schemes = self.doc.security(op)
        if not schemes:
            return {}, []
        for name in schemes:
            if name in self.creds:
                return {"Authorization": self.creds[name]}, schemes
        self.skipped.append(f"{label}: valid requests need security scheme {schemes}, "
                            "which the crawl has no credential for")
        return None, schemes

    def header_params(self, params):
        h = {}
        for p in params:
            if p["in"] == "header" and p.get("required"):
                vals = self.valid_values(p["name"], p.get("schema"), p)
                h[p["name"]] = self.unique_value(vals[0] if vals else "contract-value",
                                                 p.get("schema"))
        return h

    def unique_value(self, v, schema):
        schema = self.doc.deref(schema or {})
        self.seq += 1
        cand = f"{v}-c{self.seq}-{uuid.uuid4().hex[:8]}"
        pat = schema.get("pattern")
        if len(cand) <= schema.get("maxLength", 1 << 30) and (not pat or re.search(pat, cand)):
            return cand
        return v

    def crawl_get(self, label, path, op, params):
        auth, schemes = self.auth_headers(label, op)
        paths = self.concrete_paths(path, params)
        if schemes:
            # no credential: refused, and the refusal must match the document
            self.send(label, "get", paths[0], probe=("-", "-", "words"), cookies=False)
        if auth is None:
            return
        heads = dict(auth, **self.header_params(params))
        queries = [p for p in params if p["in"] == "query"]
        # required query parameters are in every request but the one that leaves them out
        required = {}
        for q in queries:
            if q.get("required"):
                vals = self.valid_values(q["name"], q.get("schema"), q)
                required[q["name"]] = vals[0] if vals else "contract"

        def with_(name=None, value=None, twice=False):
            pairs = [_pair(k, v) for k, v in required.items() if k != name]
            if name is not None:
                pairs.append(_pair(name, value))
                if twice:
                    pairs.append(_pair(name, value))
            return "&".join(pairs)

        # the requests of one operation are independent: they go out a few at a time (a
        # pagination chain stays in order), each job being (path, query, probe, paginate)
        jobs = []
        # every harvested link for the template, as given (valid requests)
        for u in self.links.get(path, [])[:MAX_LINKS]:
            p, _, q = u.partition("?")
            jobs.append((p, q, None, False))
        # with required parameters, the baseline carries an example value (data-dependent)
        first = next(iter(required), None)
        for cp in paths:
            jobs.append((cp, with_(), ("query", first, "example") if first else None, True))
        base = paths[0]
        for name in required:
            rest = "&".join(_pair(k, v) for k, v in required.items() if k != name)
            jobs.append((base, rest, ("query", name, "invalid"), False))
        for q in queries:
            name = q["name"]
            for v, kind in self.valid_probes(name, q.get("schema"), q):
                jobs.append((base, with_(name, v), ("query", name, kind), True))
            for v, kind in self.invalid_values(q.get("schema")):
                jobs.append((base, with_(name, v), ("query", name, kind), False))
            vals = self.valid_values(name, q.get("schema"), q)
            if vals:
                jobs.append((base, with_(name, vals[0], twice=True), ("query", name, "words"),
                             False))
        for query, probe in self.cross_rules(queries):
            jobs.append((base, "&".join(x for x in (with_(), query) if x), probe, False))
        # unknown parameters, and an encoded NUL (refused before routing, on every path)
        for extra in ("contract_unknown=1", "contract_unknown=1&contract_unknown=2",
                      "contract_unknown=", "contract_unknown=%00"):
            jobs.append((base, "&".join(x for x in (with_(), extra) if x),
                         ("query", "contract_unknown", "words"), False))
        # path parameters: values breaking their schema, and edge values
        names = template_names(path)
        for n in names:
            pp = next((p for p in params if p["in"] == "path" and p["name"] == n), {})
            for v, kind in self.invalid_values(pp.get("schema")):
                if v == "":
                    continue
                segs = base.split("/")
                segs[path.split("/").index("{" + n + "}")] = urllib.parse.quote(v, safe=":~.-_")
                jobs.append(("/".join(segs), with_(), ("path", n, kind), False))

        def run(job):
            p, q, probe, pages = job
            if pages:
                self.paginate(label, p, q, heads, queries, probe)
            else:
                self.send(label, "get", p, q, heads, probe=probe)

        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(run, jobs))
        # operations that declare a cookie the crawl has a source for (a signed-in
        # session): their valid requests again with it
        jar = self.session_jar(params)
        if jar is not None:
            saved, self.cookies = self.cookies, jar
            try:
                for cp in paths:
                    self.send(label, "get", cp, with_(), heads)
                for q in queries:
                    for v, kind in self.valid_probes(q["name"], q.get("schema"), q):
                        self.send(label, "get", base, with_(q["name"], v), heads,
                                  probe=("query", q["name"], kind))
            finally:
                self.cookies = saved

    def paginate(self, label, path, query, heads, queries, probe=None):
        has_offset = any(q["name"] == "offset" for q in queries)
        r = self.send(label, "get", path, query, heads, probe=probe)
        pages = 1
        while r is not None and has_offset and pages < MAX_PAGES:
            nxt = _next_offset(r)
            if nxt is None:
                break
            q = "&".join(x for x in query.split("&") if x and not x.startswith("offset="))
            q = (q + "&" if q else "") + f"offset={nxt}"
            r = self.send(label, "get", path, q, heads, probe=("query", "offset", "valid"))
            pages += 1

    def cross_rules(self, queries):
        """Rules between parameters that a schema cannot state: a lower bound after the upper
        bound (parameters named from/to, since/until, after/before). (query, probe) pairs."""
        names = {q["name"]: q for q in queries}
        out = []
        for lo, hi in (("from", "to"), ("since", "until"), ("after", "before")):
            if lo in names and hi in names:
                a = self.valid_values(lo, names[lo].get("schema"), names[lo])
                b = self.valid_values(hi, names[hi].get("schema"), names[hi])
                if a and b and max(a + b) != min(a + b):
                    out.append((_pair(lo, max(a + b)) + "&" + _pair(hi, min(a + b)),
                                ("query", lo, "cross")))
        return out

    # -------------------------------------------------------------- bodies

    def crawl_body(self, label, path, method, op, params):
        jar = self.session_jar(params)
        if jar is None:
            return self._crawl_body(label, path, method, op, params)
        # a fresh session for each such operation (an earlier one may have signed out), and
        # the page holding the form fetched again with it (its CSRF token is the session's)
        saved, self.cookies = self.cookies, jar
        try:
            target = (self.concrete_paths(path, params) or [path])[0]
            found = self.forms.get(target)
            if found and found[2]:
                self.send(self.label_of("get", found[2]), "get", found[2])
            return self._crawl_body(label, path, method, op, params)
        finally:
            self.cookies = saved

    def _crawl_body(self, label, path, method, op, params):
        auth, schemes = self.auth_headers(label, op)
        rb = self.doc.deref(op.get("requestBody", {}))
        content = rb.get("content", {})
        paths = self.concrete_paths(path, params)
        target = paths[0]
        heads = dict(self.header_params(params))
        if schemes:
            # no credential, and a credential of the wrong form
            mt = next(iter(content), "application/json")
            body = self.bodies(label, target, mt, content.get(mt, {}))[0] if content else None
            self.send(label, method, target, "", dict(heads, **{"Content-Type": mt}),
                      _encode(mt, body), probe=("-", "-", "words"), cookies=False)
            self.send(label, method, target, "", dict(heads, **{
                "Content-Type": mt, "Authorization": "Bearer not-a-credential"}),
                _encode(mt, body), probe=("-", "-", "words"), cookies=False)
            if auth is None:
                return
        heads.update(auth or {})
        browser = any(p["in"] == "cookie" for p in params) or \
            "application/x-www-form-urlencoded" in content
        if browser:
            heads["Origin"] = self.origin
        for mt, media in content.items():
            bodies = self.bodies(label, target, mt, media)
            for b in bodies:
                self.send(label, method, target, "", dict(heads, **{"Content-Type": mt}),
                          _encode(mt, b), probe=("body", "-", "valid"))
                if "Idempotency-Key" in heads:
                    heads = dict(heads, **self.header_params(params))
            if not bodies:
                continue
            good = bodies[0]
            bad = [("{", "malformed")] if "json" in mt else []
            bad += [([], "wrong type"), ({}, "missing required fields")]
            if isinstance(good, dict):
                bad.append((dict(good, contract_unknown_field=1), "unknown field"))
                for k in list(good)[:6]:
                    bad.append(({x: y for x, y in good.items() if x != k}, f"without {k}"))
                    bad.append((dict(good, **{k: [1, 2]}), f"{k} of the wrong type"))
            for b, why in bad:
                enc = b if isinstance(b, str) else _encode(mt, b)
                self.send(label, method, target, "", dict(heads, **{"Content-Type": mt}), enc,
                          probe=("body", why, "invalid"))
                if "Idempotency-Key" in heads:
                    heads = dict(heads, **self.header_params(params))
            self.send(label, method, target, "", dict(heads, **{"Content-Type": "text/plain"}),
                      json.dumps(good) if not isinstance(good, str) else good,
                      probe=("-", "-", "words"))
        mt0 = next(iter(content), "application/json")
        b0 = self.bodies(label, target, mt0, content[mt0])[:1] if content else []
        self.send(label, method, target, "contract_unknown=1", dict(heads, **{"Content-Type": mt0}),
                  _encode(mt0, b0[0] if b0 else None), probe=("query", "contract_unknown", "words"))

    def bodies(self, label, target, mt, media):
        """Valid bodies for one media type: the document's examples (in order), else one
        generated from the schema; form fields found on a crawled page fill the rest."""
        schema = self.doc.deref(media.get("schema", {}))
        found = self.forms.get(target)
        if "form" in mt and found is None:
            note = f"{label}: no crawled page holds a form posting to {target} (reached only " \
                   "from an email link, or by an account state the crawl does not make): its " \
                   "bodies go without a valid CSRF token, so only refusals are checked"
            if note not in self.skipped:
                self.skipped.append(note)
        out = [e for e in examples_of(media) if e is not None]
        if not out:
            out = [self.generate(schema)]
        # the same bodies with the values of this database where a field has one (an
        # example's IDs name another database's rows)
        props = schema.get("properties", {})
        for b in list(out):
            if isinstance(b, dict):
                alt = dict(b)
                for k in b:
                    seen = self.seen_values(k, props.get(k, {})) if k in props else []
                    if seen:
                        alt[k] = seen[0]
                if alt != b:
                    out.append(alt)
        if found is not None:
            fields, cookies, _page = found
            self.cookies.update(cookies)
            props = schema.get("properties", {})
            merged = []
            for b in out:
                if not isinstance(b, dict):
                    merged.append(b)
                    continue
                b = dict(b)
                for k, v in fields.items():
                    if k.startswith("__buttons__"):
                        k = k[len("__buttons__"):]
                        if k in props and k not in fields:
                            b[k] = v
                        continue
                    if k in props:
                        b[k] = v
                merged.append(b)
            out = merged
        return out

    def generate(self, schema, name=None, depth=0):
        schema = self.doc.deref(schema or {})
        if depth > 8:
            return None
        for key in ("oneOf", "anyOf"):
            if key in schema and not schema.get("type"):
                return self.generate(schema[key][0], name, depth + 1)
        if "allOf" in schema:
            out = {}
            for s in schema["allOf"]:
                g = self.generate(s, name, depth + 1)
                if isinstance(g, dict):
                    out.update(g)
            return out
        ex = examples_of(schema)
        seen = self.seen.get(name or "", [])
        t = schema.get("type")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), "null")
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return schema["enum"][0]
        if t == "object" or "properties" in schema:
            props = schema.get("properties", {})
            return {k: self.generate(v, k, depth + 1) for k, v in props.items()
                    if k in schema.get("required", [])}
        if t == "array":
            n = max(1, schema.get("minItems", 1))
            return [self.generate(schema.get("items", {}), name, depth + 1) for _ in range(n)]
        if t in ("integer", "number"):
            if ex:
                return ex[0]
            return schema.get("minimum", 0)
        if t == "boolean":
            return True
        if seen and isinstance(seen[0], str):
            return seen[0]
        if ex:
            return ex[0]
        fmt = schema.get("format")
        self.seq += 1
        if fmt == "email":
            return f"contract{self.seq}.{uuid.uuid4().hex[:6]}@example.org"
        if fmt == "uuid":
            return str(uuid.uuid4())
        if fmt in ("uri", "url"):
            return f"https://example.org/contract/{self.seq}"
        if fmt == "date-time":
            return "2025-11-29T17:00:00Z"
        if fmt == "date":
            return "2025-11-29"
        n = max(schema.get("minLength", 0), 12)
        s = f"contract {self.seq} " + uuid.uuid4().hex
        s = (s * (n // len(s) + 1))[:max(n, len(s))]
        return s[:schema.get("maxLength", len(s))]

    # -------------------------------------------------------------- report

    def report(self):
        ops = sorted({k[0] for k in self.counts})
        gaps = len({(g.op, g.req) for g in self.gaps})
        lines = [f"contract crawl: {self.requests} requests over {len(ops)} of "
                 f"{len(self.doc.ops)} operations; {len(self.failures)} failures, {gaps} "
                 f"document gaps listed; {self.words_only} unknown, repeated or NUL-bearing "
                 "parameters refused as the document says in words"]
        missing = [f"{m.upper()} {p}" for p, m, o, _ in self.doc.ops
                   if not any(k.startswith(f"{m.upper()} {p} (") for k in ops)]
        if missing:
            lines.append("not crawled: " + ", ".join(missing))
        for s in self.skipped:
            lines.append("skipped: " + s)
        for op in ops:
            st = {}
            for (label, _kind, status), n in self.counts.items():
                if label == op:
                    st[status] = st.get(status, 0) + n
            lines.append(f"  {op}: " + " ".join(f"{k}x{v}" for k, v in sorted(st.items())))
        listed = set()
        for g in self.gaps:
            if (g.op, g.req) not in listed:
                listed.add((g.op, g.req))
                lines.append(str(g))
        return "\n".join(lines)


# ------------------------------------------------------------------ small helpers


def _qs(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _pair(name, value):
    return urllib.parse.quote(name, safe="") + "=" + urllib.parse.quote(str(value), safe=":~.-_")


def _encode(mt, body):
    if body is None:
        return None
    if isinstance(body, str):
        return body
    if "form" in mt:
        if isinstance(body, dict):
            return urllib.parse.urlencode({k: (json.dumps(v) if isinstance(v, (list, dict))
                                               else _qs(v)) for k, v in body.items()})
        return "contract_unknown=1"
    return json.dumps(body)


def _next_offset(r):
    if "json" not in r.headers.get("Content-Type", ""):
        return None
    try:
        body = r.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    for node in [body] + [v for v in body.values() if isinstance(v, dict)]:
        v = node.get("nextOffset")
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def _set_cookies(r):
    raw = getattr(r.raw, "headers", None)
    if raw is not None and hasattr(raw, "getlist"):
        return list(raw.getlist("Set-Cookie"))
    v = r.headers.get("Set-Cookie")
    return [v] if v else []
