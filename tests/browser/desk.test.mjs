// Browser test of the editorial desk (docs/desk.md) in Debian's headless Chromium driven by
// playwright-core, on a phone-sized (390×844) and a desktop-sized (1280×900) window. Run
// through tests/browser/run.sh (BASE_URL, SERVER_LOG, WHISTLE_BIN, WHISTLE_DB).
//
// In each window, by clicking through the pages: an admin (role given with `whistle account
// grant`) publishes a researched candidate with a Fan Verdict question, merges a second
// published candidate into it, withdraws it, issues a scout credential (re-entering the
// password; the secret shown once works on the scout endpoint) and disables it, and bans an
// account (re-entering the password).
// No JavaScript is needed; the pages never scroll sideways. Screenshots go to
// tests/browser/artifacts/desk-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ARTIFACTS, BASE_URL, PASSWORD, WINDOWS, WHISTLE_DB, cli, launch, noSidewaysScroll, person } from './kit.mjs';

const GAME = 'nfl:browser-test-game'; // fixture.json

let browser;

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

for (const win of WINDOWS) {
    describe(`the editorial desk in a ${win.name}-sized window`, () => {
        let admin;
        let fan;
        let incident;
        let duplicate;
        const shot = (p, name) => p.screenshot({ path: join(ARTIFACTS, `desk-${win.name}-${name}.png`), fullPage: true });

        before(async () => {
            mkdirSync(ARTIFACTS, { recursive: true });
            if (!browser) browser = await launch();
            admin = await person(browser, win.viewport, `admin-${win.name}`);
            fan = await person(browser, win.viewport, `fan-${win.name}`);
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

        it('issues a scout credential, re-entering the password', async () => {
            const page = admin.page;
            const name = `nightly-${win.name}`;
            await page.goto(`${BASE_URL}/desk`);
            await page.getByRole('link', { name: 'Scout credentials' }).click();
            await page.waitForURL('**/desk/scout-keys');
            const create = page.locator('#scout-create');
            await create.getByLabel('Name', { exact: true }).fill(name);
            await create.getByLabel('X reads per day').fill('250');
            await create.getByLabel('Expires after').fill('30');
            await create.getByLabel('Your password').fill(PASSWORD);
            await noSidewaysScroll(page, 'the scout credentials');
            await shot(page, '6-scout-form');
            await create.getByRole('button', { name: 'Create' }).click();
            await page.waitForURL('**/desk/scout-keys');
            const secret = await page.locator('#secret').innerText();
            assert.match(secret, /^ws_[A-Za-z0-9]{49}$/);
            await noSidewaysScroll(page, 'a new scout credential');
            await shot(page, '7-scout-secret');
            // the secret works on the scout endpoint, and is never shown again
            const status = await page.evaluate(async (s) => (await fetch('/api/agents/v1/scout', {
                method: 'POST', headers: { 'Authorization': `Bearer ${s}`, 'Content-Type': 'application/json' },
                body: JSON.stringify({ op: 'status' }),
            })).status, secret);
            assert.equal(status, 200);
            await page.getByRole('link', { name: 'Back to the credentials' }).click();
            const row = page.locator('li.scout-key', { hasText: name });
            assert.match(await row.innerText(), /X 250\/day/);
            assert.ok(!(await page.content()).includes(secret));
            await row.getByRole('button', { name: 'Disable' }).click();
            await page.waitForURL('**/desk/scout-keys?done=disabled');
            assert.match(await page.locator('li.scout-key', { hasText: name }).locator('.state').innerText(), /disabled/);
            await shot(page, '8-scout-disabled');
        });

        it('bans an account, re-entering the password', async () => {
            const page = admin.page;
            await page.goto(`${BASE_URL}/desk/accounts?q=${encodeURIComponent(fan.email)}`);
            await page.locator('#accounts a').first().click();
            await page.waitForURL('**/desk/accounts/*');
            await page.locator('#ban').getByLabel('Reason').fill('spam');
            await page.locator('#ban').getByLabel('Your password').fill(PASSWORD);
            await noSidewaysScroll(page, 'an account');
            await shot(page, '9-ban-form');
            await page.getByRole('button', { name: 'Ban' }).click();
            await page.waitForURL('**/desk/accounts/*?done=banned');
            assert.match(await page.locator('#account-state').innerText(), /^banned/);
            await shot(page, '10-banned');
            // the fan's session ended at once
            await fan.page.goto(`${BASE_URL}/account`);
            assert.match(fan.page.url(), /\/account\/signin/);
        });
    });
}
