// Preloaded into Stoplight Prism (NODE_OPTIONS=--require) by tests/http/contractkit.py.
// Prism's proxy forwards with node-fetch, which follows 3xx answers by default: Prism would
// then validate the page a redirect leads to against the redirecting operation, and a
// Location naming the configured base URL (not this loopback port) would fail to resolve.
// This makes node-fetch return the 3xx answer itself (redirect: 'manual'), as a client sees it.
'use strict';
const Module = require('module');
const load = Module._load;
const wrapped = new Map();
Module._load = function (request, parent, isMain) {
    const m = load.call(this, request, parent, isMain);
    if (request !== 'node-fetch' || typeof m !== 'function')
        return m;
    if (!wrapped.has(m)) {
        const fetch = (url, opts) => m(url, Object.assign({}, opts, { redirect: 'manual' }));
        Object.assign(fetch, m);
        fetch.default = fetch;
        wrapped.set(m, fetch);
    }
    return wrapped.get(m);
};
