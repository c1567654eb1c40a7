// Browser test of the editorial desk (docs/desk.md) in Debian's headless Chromium driven by
// playwright-core, on a phone-sized (390×844) and a desktop-sized (1280×900) window. Run
// through tests/browser/run.sh (BASE_URL, SERVER_LOG, WHISTLE_BIN, WHISTLE_DB).
//
// In each window, by clicking through the pages: an admin (role given with `whistle account
// grant`) publishes a researched candidate with a Fan Verdict question, merges a second
// published candidate into it, withdraws it, and bans an account (re-entering the password).
// No JavaScript is needed; the pages never scroll sideways. Screenshots go to
// tests/browser/artifacts/desk-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { chromium } from 'playwright-core';

const { BASE_URL, SERVER_LOG, WHISTLE_BIN, WHISTLE_DB } = process.env;
if (!BASE_URL || !SERVER_LOG || !WHISTLE_BIN || !WHISTLE_DB) throw new Error('run tests/browser/run.sh');

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
const TIMEOUT = 15_000;
const PASSWORD = 'a long browser passphrase';
const GAME = 'nfl:browser-test-game'; // fixture.json
const WINDOWS = [
    { name: 'phone', viewport: { width: 390, height: 844 } },
    { name: 'desktop', viewport: { width: 1280, height: 900 } },
];

let browser;

async function until(what, fn, timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
    }
}

function verifyLinkFromLog(email) {
    for (const line of readFileSync(SERVER_LOG, 'utf8').split('\n')) {
        if (!line.includes(`to=${email} `)) continue;
        const m = line.match(/(https?:\/\/\S+\/account\/verify\?token=[0-9A-Za-z]+)/);
        if (m) return m[1];
    }
    return null;
}

function cli(...args) {
    return execFileSync(WHISTLE_BIN, [...args, '--db', WHISTLE_DB], { encoding: 'utf8' });
}

// SQL on the test database behind the server's back (a researched lead cannot be made
// without fetching real pages): Python's sqlite3, as the black-box tests do.
function sql(statement) {
    execFileSync('/usr/bin/python3', ['-c', 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nwith c: c.execute(sys.argv[2])', WHISTLE_DB, statement]);
}

// A candidate: a lead of owner's agent key that passed every gate, with one fetch record.
function candidate(ownerEmail, text) {
    const key = JSON.parse(cli('key', 'create', '--owner', ownerEmail, '--json'));
    const now = Date.now() * 1000;
    const id = randomUUID();
    sql(`INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls, period, clock, category, status, created_at, updated_at, candidate_at)
         SELECT '${id}', account_id, id, '${GAME}', '${text}', '["https://news.example/a"]', 2, '7:30', 'penalty', 'running', ${now}, ${now}, ${now}
         FROM agent_keys WHERE id = '${key.id}'`);
    sql(`INSERT INTO lead_fetches (lead_id, position, url, final_url, http_status, bytes, domain, fetched_at)
         VALUES ('${id}', 0, 'https://news.example/a', 'https://www.news.example/a', 200, 4321, 'news.example', ${now})`);
    return id;
}

async function person(viewport, tag) {
    const email = `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.org`;
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(TIMEOUT);
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${BASE_URL}/account/signup`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#check-inbox').waitFor();
    const link = await until(`the verification email of ${email}`, async () => verifyLinkFromLog(email));
    await page.goto(link.replace(/^https?:\/\/[^/]+/, BASE_URL));
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.locator('#verified').waitFor();
    await page.goto(`${BASE_URL}/account/signin?next=/account`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/account');
    return { email, context, page, problems };
}

async function noSidewaysScroll(page, what) {
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `${what}: the page scrolls sideways (${scroll} > ${client})`);
}

for (const win of WINDOWS) {
    describe(`the editorial desk in a ${win.name}-sized window`, () => {
        let admin;
        let fan;
        let incident;
        let duplicate;
        const shot = (p, name) => p.screenshot({ path: join(ARTIFACTS, `desk-${win.name}-${name}.png`), fullPage: true });

        before(async () => {
            mkdirSync(ARTIFACTS, { recursive: true });
            if (!browser) {
                browser = await chromium.launch({
                    executablePath: '/usr/bin/chromium',
                    headless: true,
                    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
                        '--disable-component-update', '--disable-sync', '--disable-quic'],
                });
            }
            admin = await person(win.viewport, `admin-${win.name}`);
            fan = await person(win.viewport, `fan-${win.name}`);
            cli('account', 'grant', admin.email, 'admin');
        });

        after(async () => {
            for (const p of [admin, fan]) {
                assert.deepEqual(p?.problems ?? [], []);
                await p?.context.close();
            }
            if (win === WINDOWS[WINDOWS.length - 1]) await browser?.close();
        });

        it('a fan is refused', async () => {
            const r = await fan.page.goto(`${BASE_URL}/desk`);
            assert.equal(r.status(), 403);
        });

        it('publishes a candidate with a Fan Verdict question', async () => {
            const lead = candidate(fan.email, `Holding flag on the ${win.name} punt return`);
            const page = admin.page;
            await page.goto(`${BASE_URL}/desk`);
            await noSidewaysScroll(page, '/desk');
            await shot(page, '1-candidates');
            await page.locator(`li[data-id="${lead}"] a`).click();
            await page.waitForURL(`**/desk/leads/${lead}`);
            assert.match(await page.locator('table.fetches').innerText(), /news\.example/);
            await page.getByLabel('Neutral title').fill(`Punt return holding debate (${win.name})`);
            await page.getByLabel('Neutral summary').fill('The flag is discussed; what happened is not established.');
            await page.getByLabel('Question type').fill('call_correctness');
            await page.getByLabel('Question text').fill('Was the holding flag correct?');
            await page.getByLabel('Option A label').fill('Correct call');
            await page.getByLabel('Option B label').fill('Wrong call');
            await page.getByLabel('Unsure label').fill('Not sure');
            await noSidewaysScroll(page, 'a lead');
            await shot(page, '2-publish-form');
            await page.getByRole('button', { name: 'Publish' }).click();
            await page.waitForURL('**/desk/incidents/*?done=published');
            incident = page.url().match(/incidents\/([0-9a-f-]{36})/)[1];
            assert.equal(await page.locator('#maturity').innerText(), 'developing');
            assert.match(await page.locator('#question-version').innerText(), /Version 1/);
            await noSidewaysScroll(page, 'an incident');
            await shot(page, '3-published');
            const api = await page.evaluate(async (id) => (await fetch(`/api/v1/incidents/${id}`)).json(), incident);
            assert.equal(api.data.debate_question.question_text, 'Was the holding flag correct?');
        });

        it('merges a duplicate into it', async () => {
            const lead = candidate(fan.email, `The same ${win.name} punt return hold`);
            duplicate = JSON.parse(cli('candidate', 'publish', lead, '--title', `Duplicate ${win.name}`, '--json')).incident_id;
            const page = admin.page;
            await page.goto(`${BASE_URL}/desk/incidents/${duplicate}`);
            await page.getByLabel('Survivor incident ID').fill(incident);
            await page.locator('#merge').getByLabel('Reason').fill('the same play');
            await page.getByRole('button', { name: 'Merge' }).click();
            await page.waitForURL(`**/desk/incidents/${duplicate}?done=merged`);
            assert.match(await page.locator('#visibility').innerText(), /^merged/);
            await shot(page, '4-merged');
        });

        it('withdraws it with a reason', async () => {
            const page = admin.page;
            await page.goto(`${BASE_URL}/desk/incidents/${incident}`);
            await page.locator('#withdraw').getByLabel('Reason').fill('could not be verified');
            await page.getByRole('button', { name: 'Withdraw' }).click();
            await page.waitForURL(`**/desk/incidents/${incident}?done=withdrawn`);
            assert.match(await page.locator('#visibility').innerText(), /^withdrawn/);
            assert.match(await page.locator('table.audit').innerText(), /incident\.withdraw/);
            const r = await page.evaluate(async (id) => (await fetch(`/api/v1/incidents/${id}`)).status, incident);
            assert.equal(r, 404);
            await noSidewaysScroll(page, 'a withdrawn incident');
            await shot(page, '5-withdrawn');
        });

        it('bans an account, re-entering the password', async () => {
            const page = admin.page;
            await page.goto(`${BASE_URL}/desk/accounts?q=${encodeURIComponent(fan.email)}`);
            await page.locator('#accounts a').first().click();
            await page.waitForURL('**/desk/accounts/*');
            await page.locator('#ban').getByLabel('Reason').fill('spam');
            await page.locator('#ban').getByLabel('Your password').fill(PASSWORD);
            await noSidewaysScroll(page, 'an account');
            await shot(page, '6-ban-form');
            await page.getByRole('button', { name: 'Ban' }).click();
            await page.waitForURL('**/desk/accounts/*?done=banned');
            assert.match(await page.locator('#account-state').innerText(), /^banned/);
            await shot(page, '7-banned');
            // the fan's session ended at once
            await fan.page.goto(`${BASE_URL}/account`);
            assert.match(fan.page.url(), /\/account\/signin/);
        });
    });
}
