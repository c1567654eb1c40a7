// Browser test of the incident page and Fan Verdict voting (docs/pages.md), in Debian's
// headless Chromium driven by playwright-core. Run through tests/browser/run.sh, which
// imports tests/browser/fixture.json, starts the server and sets BASE_URL.
//
// Load the page, vote, see the results change, reload and see the same ballot selected,
// revote (the ballot is replaced, never double-counted), compare with the API's `votes`,
// and render the page at a phone viewport. Screenshots go to tests/browser/artifacts/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE_URL = process.env.BASE_URL;
if (!BASE_URL) throw new Error('BASE_URL is not set (run tests/browser/run.sh)');

const SLUG = 'browser-test-incident';
const INCIDENT_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'; // fixture.json
const PAGE_URL = `${BASE_URL}/incidents/${SLUG}`;
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
const TIMEOUT = 10_000;

const LABELS = { correct: 'Correct call', incorrect: 'Wrong call', unsure: 'Not sure' };

let browser;
let context;
let page;
const consoleErrors = [];

// Poll fn until it returns a truthy value. Errors are retried: a form post answered with
// 303 navigates, and a read during the navigation may fail; the next poll reads the new page.
async function until(what, fn, timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    let last;
    for (;;) {
        try {
            const v = await fn();
            if (v) return v;
            last = `last value: ${JSON.stringify(v)}`;
        } catch (e) {
            last = `last error: ${e.message.split('\n')[0]}`;
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${last})`);
        await new Promise((r) => setTimeout(r, 100));
    }
}

const voteButton = (choice) => page.locator(`#vote-form button[name="choice"][value="${choice}"]`);

async function readInt(locator) {
    const text = (await locator.textContent({ timeout: 2000 })).trim();
    assert.match(text, /^\d+$/, `expected an integer, got ${JSON.stringify(text)}`);
    return Number(text);
}
const total = () => readInt(page.locator('#vote-total'));
const count = (choice) => readInt(page.locator(`#verdict li[data-choice="${choice}"] .count`));

async function waitForTotal(want) {
    await until(`#vote-total to read ${want}`, async () => (await total()) === want);
    await page.waitForLoadState('load');
}

async function pressedState() {
    const out = {};
    for (const choice of Object.keys(LABELS)) {
        out[choice] = await voteButton(choice).getAttribute('aria-pressed', { timeout: 2000 });
    }
    return out;
}

async function apiVotes() {
    // From the page's own context: same origin, same cookies, the page's CSP applies.
    const res = await page.evaluate(async (id) => {
        const r = await fetch(`/api/v1/incidents/${id}`, { headers: { Accept: 'application/json' } });
        return { status: r.status, body: await r.text() };
    }, INCIDENT_ID);
    assert.equal(res.status, 200, `GET /api/v1/incidents/${INCIDENT_ID}: ${res.body}`);
    return JSON.parse(res.body).data.votes;
}

const shot = (name, p = page, opts = {}) => p.screenshot({ path: join(ARTIFACTS, name), ...opts });

describe('incident page: Fan Verdict voting in Chromium', () => {
    let total0;
    let counts0;

    before(async () => {
        mkdirSync(ARTIFACTS, { recursive: true });
        // chromium.launch gives every run a fresh temporary --user-data-dir of its own.
        browser = await chromium.launch({
            executablePath: '/usr/bin/chromium',
            headless: true,
            args: [
                '--headless',
                '--no-sandbox',
                '--disable-gpu',
                '--no-first-run',
                '--disable-background-networking',
                '--disable-component-update',
                '--disable-sync',
                '--disable-quic',
            ],
        });
        context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        context.setDefaultTimeout(TIMEOUT);
        page = await context.newPage();
        // Script errors, CSP violations and failed loads of what the page references. The
        // browser's own /favicon.ico probe is not the page's doing.
        const isFavicon = (url) => new URL(url, BASE_URL).pathname === '/favicon.ico';
        page.on('console', (m) => {
            if (m.type() === 'error' && !isFavicon(m.location().url || BASE_URL)) {
                consoleErrors.push(`${m.text()} (${m.location().url})`);
            }
        });
        page.on('pageerror', (e) => consoleErrors.push(String(e)));
        page.on('response', (r) => {
            if (r.status() >= 400 && !isFavicon(r.url())) consoleErrors.push(`${r.status()} ${r.url()}`);
        });
    });

    after(async () => {
        await browser?.close();
    });

    it('shows the question, its labels and the results with percentages (25 ballots)', async () => {
        const res = await page.goto(PAGE_URL);
        assert.equal(res.status(), 200);
        assert.match(res.headers()['content-type'], /^text\/html; charset=utf-8/i);
        await shot('before.png', page, { fullPage: true });

        for (const [choice, label] of Object.entries(LABELS)) {
            const text = (await voteButton(choice).innerText()).trim();
            assert.ok(text.includes(label), `the ${choice} button reads ${JSON.stringify(text)}, want ${label}`);
        }
        total0 = await total();
        assert.equal(total0, 25, 'the fixture carries 25 ballots');
        counts0 = { correct: await count('correct'), incorrect: await count('incorrect'), unsure: await count('unsure') };
        assert.deepEqual(counts0, { correct: 12, incorrect: 9, unsure: 4 });
        assert.ok((await page.locator('#verdict .pct').count()) > 0, 'percentages shown at 20+ ballots');
        assert.equal(await page.locator('#rooting').count(), 0, 'no rooting breakdown below 50 ballots');
        // The first view issued the anonymous voter cookie.
        const cookies = await context.cookies(BASE_URL);
        const voter = cookies.find((c) => c.name === '__Host-whistle_voter');
        assert.ok(voter, `voter cookie set (have: ${cookies.map((c) => c.name).join(', ') || 'none'})`);
        assert.equal(voter.path, '/');
        assert.equal(voter.secure, true);
        assert.equal(voter.httpOnly, true);
        // Nobody has voted from this browser yet.
        assert.deepEqual(await pressedState(), { correct: 'false', incorrect: 'false', unsure: 'false' });
    });

    it('a vote for "Wrong call" raises the total by one and marks the button', async (t) => {
        let navigations = 0;
        const onNav = (f) => {
            if (f === page.mainFrame()) navigations += 1;
        };
        page.on('framenavigated', onNav);
        await page.locator('#vote-form button[name="choice"]', { hasText: LABELS.incorrect }).click();
        await waitForTotal(total0 + 1);
        page.off('framenavigated', onNav);
        t.diagnostic(navigations ? 'the page reloaded after the form post' : 'the page script updated the results in place');
        await shot('after-vote.png', page, { fullPage: true });
        assert.equal(await count('incorrect'), counts0.incorrect + 1);
        assert.equal(await count('correct'), counts0.correct);
        assert.equal(await count('unsure'), counts0.unsure);
        assert.deepEqual(await pressedState(), { correct: 'false', incorrect: 'true', unsure: 'false' });
        const votes = await apiVotes();
        assert.equal(votes.total, total0 + 1, 'the API shows the ballot on the next request');
        assert.equal(votes.counts.incorrect, counts0.incorrect + 1);
    });

    it('after a reload the same ballot is still selected and the total is unchanged', async () => {
        const res = await page.goto(PAGE_URL);
        assert.equal(res.status(), 200);
        await shot('after-reload.png', page, { fullPage: true });
        assert.equal(await total(), total0 + 1);
        assert.deepEqual(await pressedState(), { correct: 'false', incorrect: 'true', unsure: 'false' });
    });

    it('a revote for "Correct call" replaces the ballot: same total, counts move', async () => {
        await page.locator('#vote-form button[name="choice"]', { hasText: LABELS.correct }).click();
        await until('the "Correct call" count to rise', async () => (await count('correct')) === counts0.correct + 1);
        await page.waitForLoadState('load');
        assert.equal(await total(), total0 + 1, 'a revote never double-counts');
        assert.equal(await count('incorrect'), counts0.incorrect, 'the old ballot is withdrawn');
        assert.deepEqual(await pressedState(), { correct: 'true', incorrect: 'false', unsure: 'false' });
        await shot('after-revote.png', page, { fullPage: true });

        const votes = await apiVotes();
        assert.equal(votes.total, total0 + 1);
        assert.deepEqual(votes.counts, { correct: counts0.correct + 1, incorrect: counts0.incorrect, unsure: counts0.unsure });

        await page.goto(PAGE_URL);
        assert.equal(await total(), total0 + 1);
        assert.deepEqual(await pressedState(), { correct: 'true', incorrect: 'false', unsure: 'false' });
    });

    it('no script errors, CSP violations or failed loads on the page', () => {
        assert.deepEqual(consoleErrors, []);
    });

    it('votes without JavaScript: the form post answers 303 back to the page', async () => {
        const nojs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
        nojs.setDefaultTimeout(TIMEOUT);
        try {
            const p = await nojs.newPage();
            assert.equal((await p.goto(PAGE_URL)).status(), 200);
            const before = await readInt(p.locator('#vote-total'));
            const unsure = await readInt(p.locator('#verdict li[data-choice="unsure"] .count'));
            const posted = p.waitForResponse((r) => r.request().method() === 'POST');
            await p.locator('#vote-form button[name="choice"]', { hasText: LABELS.unsure }).click();
            const post = await posted;
            assert.equal(post.status(), 303, 'a form post answers 303');
            assert.equal(new URL(post.headers()['location'], BASE_URL).pathname, `/incidents/${SLUG}`);
            await p.waitForURL(`**/incidents/${SLUG}#verdict`);
            await p.waitForLoadState('load');
            await shot('nojs-after-vote.png', p, { fullPage: true });
            assert.equal(await readInt(p.locator('#vote-total')), before + 1);
            assert.equal(await readInt(p.locator('#verdict li[data-choice="unsure"] .count')), unsure + 1);
            assert.equal(await p.locator('#vote-form button[value="unsure"]').getAttribute('aria-pressed'), 'true');
        } finally {
            await nojs.close();
        }
    });

    it('renders on a phone (390x844) without horizontal scrolling', async () => {
        const phone = await browser.newContext({
            viewport: { width: 390, height: 844 },
            deviceScaleFactor: 2,
            isMobile: true,
            hasTouch: true,
        });
        try {
            const p = await phone.newPage();
            const res = await p.goto(PAGE_URL);
            assert.equal(res.status(), 200);
            await shot('phone.png', p, { fullPage: true });
            const { scrollWidth, innerWidth } = await p.evaluate(() => ({
                scrollWidth: document.documentElement.scrollWidth,
                innerWidth: window.innerWidth,
            }));
            // A mobile browser lays a page out at 980px unless it declares a device-width viewport.
            assert.equal(innerWidth, 390, 'the page lays out at the device width (<meta name="viewport">)');
            assert.ok(scrollWidth <= innerWidth, `page is ${scrollWidth}px wide in a ${innerWidth}px viewport`);
            // The vote buttons fit in the viewport and are big enough to tap.
            for (const choice of Object.keys(LABELS)) {
                const box = await p.locator(`#vote-form button[value="${choice}"]`).boundingBox();
                assert.ok(box, `${choice} button is rendered`);
                assert.ok(box.x >= 0 && box.x + box.width <= innerWidth, `${choice} button fits the width`);
                assert.ok(box.height >= 24, `${choice} button is ${box.height}px tall (want 24+)`);
            }
        } finally {
            await phone.close();
        }
    });
});
