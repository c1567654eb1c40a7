// Browser test of accounts and the developer portal (docs/accounts.md), in Debian's headless
// Chromium driven by playwright-core. Run through tests/browser/run.sh, which starts the server
// without --smtp-url, so the verification email is written to the server log (SERVER_LOG).
//
// The whole flow by clicking through the pages: /developers → create an account → the emailed
// link → confirm → sign in → create a key (the secret shown once, copied with the button) →
// submit a lead with it → revoke it → the key is refused. Screenshots go to
// tests/browser/artifacts/developers-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE_URL = process.env.BASE_URL;
const SERVER_LOG = process.env.SERVER_LOG;
if (!BASE_URL || !SERVER_LOG) throw new Error('BASE_URL or SERVER_LOG is not set (run tests/browser/run.sh)');

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
const TIMEOUT = 15_000;
const EMAIL = `browser-${Date.now()}@example.org`;
const PASSWORD = 'a long browser passphrase';
const GAME = 'nfl:browser-test-game'; // fixture.json
const VOTE_SLUG = 'browser-account-vote'; // fixture.json: a question without ballots
const VOTE_ID = '7a2d3c4b-5e6f-4a70-8b8c-9d0e1f2a3b4c';

let browser;
let context;
let page;
let secret;
const consoleErrors = [];

const shot = (name, p = page) => p.screenshot({ path: join(ARTIFACTS, `developers-${name}.png`), fullPage: true });

async function until(what, fn, timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
    }
}

// The verification link the worker wrote to the log for EMAIL (no --smtp-url in run.sh).
function verifyLinkFromLog() {
    const lines = readFileSync(SERVER_LOG, 'utf8').split('\n');
    for (const line of lines) {
        if (!line.includes(`to=${EMAIL} `)) continue;
        const m = line.match(/(https?:\/\/\S+\/account\/verify\?token=[0-9A-Za-z]+)/);
        if (m) return m[1];
    }
    return null;
}

async function submitLead(key) {
    return page.evaluate(async ({ key, game }) => {
        const r = await fetch('/api/v1/agent-leads', {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `browser-${Date.now()}` },
            body: JSON.stringify({ game_id: game, description: 'Browser test lead: a late hit not flagged', source_urls: ['https://www.example.com/story/1'] }),
        });
        return { status: r.status, body: await r.text() };
    }, { key, game: GAME });
}

describe('developer portal: sign-up to key creation in Chromium', () => {
    before(async () => {
        mkdirSync(ARTIFACTS, { recursive: true });
        browser = await chromium.launch({
            executablePath: '/usr/bin/chromium',
            headless: true,
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
                '--disable-component-update', '--disable-sync', '--disable-quic'],
        });
        context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
        context.setDefaultTimeout(TIMEOUT);
        page = await context.newPage();
        const isFavicon = (url) => new URL(url, BASE_URL).pathname === '/favicon.ico';
        page.on('console', (m) => {
            // the revoked key's expected 403 is reported on the console too
            const expected = (m.location().url || '').includes('/api/v1/agent-leads');
            if (m.type() === 'error' && !expected && !isFavicon(m.location().url || BASE_URL)) consoleErrors.push(`${m.text()} (${m.location().url})`);
        });
        page.on('pageerror', (e) => consoleErrors.push(String(e)));
        page.on('response', (r) => {
            // the revoked key's 403 is expected; anything else failing is not
            if (r.status() >= 400 && !isFavicon(r.url()) && !r.url().includes('/api/v1/agent-leads')) consoleErrors.push(`${r.status()} ${r.url()}`);
        });
    });

    after(async () => {
        await browser?.close();
    });

    it('a visitor reads the guide and is sent to create an account', async () => {
        const res = await page.goto(`${BASE_URL}/developers`);
        assert.equal(res.status(), 200);
        assert.match(await page.locator('#guide').innerText(), /Idempotency-Key/);
        assert.equal(await page.locator('#create-key-form').count(), 0);
        await shot('1-signed-out');
        // an anonymous incident page offers to sign in to vote with a rooting interest
        await page.goto(`${BASE_URL}/incidents/${VOTE_SLUG}`);
        assert.equal(await page.locator('#vote-form select[name="rooting"]').count(), 0);
        assert.equal(await page.locator('#vote-signin a').getAttribute('href'), `/account/signin?next=/incidents/${VOTE_SLUG}`);
        await page.goto(`${BASE_URL}/developers`);
        await page.locator('#signed-out a', { hasText: 'create an account' }).click();
        await page.waitForURL('**/account/signup');
    });

    it('signs up and is asked to check the inbox', async () => {
        await page.getByLabel('Email address').fill(EMAIL);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.waitForURL('**/account/signup');
        assert.match(await page.locator('#check-inbox').innerText(), new RegExp(EMAIL.replace('.', '\\.')));
        await shot('2-check-inbox');
        // sign-up does not sign in
        const cookies = await context.cookies(BASE_URL);
        assert.equal(cookies.find((c) => c.name === '__Host-whistle_session'), undefined);
    });

    it('opens the emailed link and confirms the address', async () => {
        const link = await until('the verification email in the server log', async () => verifyLinkFromLog());
        const res = await page.goto(link.replace(/^https?:\/\/[^/]+/, BASE_URL));
        assert.equal(res.status(), 200);
        await shot('3-verify');
        await page.getByRole('button', { name: 'Confirm my email address' }).click();
        await page.locator('#verified').waitFor();
        await shot('4-verified');
    });

    it('signs in and lands on the developer page with the key form', async () => {
        await page.getByRole('link', { name: 'Sign in' }).first().click();
        await page.waitForURL('**/account/signin');
        await page.getByLabel('Email address').fill(EMAIL);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL('**/developers');
        await page.locator('#create-key-form').waitFor();
        const session = (await context.cookies(BASE_URL)).find((c) => c.name === '__Host-whistle_session');
        assert.ok(session, 'the session cookie is set');
        assert.equal(session.secure, true);
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, 'Lax');
        assert.equal(session.path, '/');
        await shot('5-signed-in');
    });

    it('creates a key: the secret is shown once and the copy button copies it', async () => {
        await page.getByLabel('Key name').fill('browser bot');
        await page.getByRole('button', { name: 'Create a key' }).click();
        const el = page.locator('#new-key-secret');
        await el.waitFor();
        secret = (await el.innerText()).trim();
        assert.match(secret, /^wk_[0-9A-Za-z]{49}$/);
        const copy = page.locator('#copy-key');
        assert.equal(await copy.isVisible(), true, 'the copy button shows with JavaScript');
        await copy.click();
        await until('the button to say Copied', async () => (await copy.innerText()) === 'Copied');
        const clip = await page.evaluate(() => navigator.clipboard.readText());
        assert.equal(clip, secret);
        await shot('6-key-created');
        const row = page.locator('#key-list tr[data-key-id]');
        assert.equal(await row.count(), 1);
        assert.equal((await row.locator('.key-name').innerText()).trim(), 'browser bot');
        assert.ok(secret.startsWith((await row.locator('.key-prefix').innerText()).replace('…', '')));
    });

    it('votes as the signed-in user with a rooting interest', async () => {
        assert.equal((await page.goto(`${BASE_URL}/incidents/${VOTE_SLUG}`)).status(), 200);
        assert.equal(await page.locator('#vote-signin').count(), 0, 'no sign-in offer when signed in');
        await page.locator('#vote-form select[name="rooting"]').selectOption('home');
        await page.locator('#vote-form button[name="choice"]', { hasText: 'Throw the flag' }).click();
        await until('the total to read 1', async () => (await page.locator('#vote-total').innerText()).trim() === '1');
        await page.waitForLoadState('load');
        await shot('9-signed-in-vote');
        const votes = await page.evaluate(async (id) => (await (await fetch(`/api/v1/incidents/${id}`)).json()).data.votes, VOTE_ID);
        assert.equal(votes.total, 1);
        assert.deepEqual(votes.rooting.home, { correct: 1, incorrect: 0, unsure: 0 });
        // after a reload the page shows this account's ballot and rooting
        await page.goto(`${BASE_URL}/incidents/${VOTE_SLUG}`);
        assert.equal(await page.locator('#vote-form button[value="correct"]').getAttribute('aria-pressed'), 'true');
        assert.equal(await page.locator('#vote-form select[name="rooting"]').inputValue(), 'home');
    });

    it('the key submits a lead; after a reload the secret is gone', async () => {
        const r = await submitLead(secret);
        assert.equal(r.status, 202, r.body);
        await page.goto(`${BASE_URL}/developers`);
        assert.equal(await page.locator('#new-key-secret').count(), 0);
        assert.ok(!(await page.content()).includes(secret), 'the secret never shows again');
        assert.notEqual((await page.locator('#key-list .key-used').innerText()).trim(), 'never');
    });

    it('revokes the key, which then gets 403', async () => {
        // Revoke asks first (a confirmation page, no JavaScript needed)
        await page.locator('#key-list tr[data-key-id]').getByRole('link', { name: 'Revoke' }).click();
        await page.waitForURL('**/developers/keys/*/revoke');
        assert.equal((await page.locator('#revoke-name').innerText()).trim(), 'browser bot');
        await page.getByRole('button', { name: 'Revoke this key' }).click();
        await page.waitForURL('**/developers?notice=revoked');
        assert.equal((await page.locator('#key-list .key-state').innerText()).trim(), 'revoked');
        await shot('7-revoked');
        const r = await submitLead(secret);
        assert.equal(r.status, 403, r.body);
        assert.equal(JSON.parse(r.body).error.code, 'invalid_credential');
    });

    it('signs out', async () => {
        await page.goto(`${BASE_URL}/account`);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL('**/account/signin?notice=signedout');
        await page.goto(`${BASE_URL}/developers`);
        await page.locator('#signed-out').waitFor();
    });

    it('no script errors, CSP violations or failed loads', () => {
        assert.deepEqual(consoleErrors, []);
    });

    it('the developer page fits a phone (390x844)', async () => {
        const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
        try {
            const p = await phone.newPage();
            assert.equal((await p.goto(`${BASE_URL}/developers`)).status(), 200);
            await shot('8-phone', p);
            const { scrollWidth, innerWidth } = await p.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
            assert.ok(scrollWidth <= innerWidth, `page is ${scrollWidth}px wide in a ${innerWidth}px viewport`);
        } finally {
            await phone.close();
        }
    });
});
