// Browser test of comments and moderation (docs/comments.md) in Debian's headless Chromium
// driven by playwright-core, on a phone-sized (390×844) and a desktop-sized (1280×900) window.
// Run through tests/browser/run.sh (BASE_URL, SERVER_LOG, WHISTLE_BIN, WHISTLE_DB).
//
// In each window, by clicking through the pages: two people sign up (the verification link
// is read from the server log), a fan chooses a display name, posts a comment (it waits for
// review), a moderator (role given with `whistle account grant`) approves it on /moderate, the
// moderator replies, the fan reports nothing of theirs but the moderator's reply is reported
// by the fan, the moderator features the fan's comment. No JavaScript is needed by any of it;
// the pages never scroll sideways. Screenshots go to tests/browser/artifacts/comments-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, BASE_URL, WINDOWS, cli, launch, noSidewaysScroll, person } from './kit.mjs';

const SLUG = 'browser-test-incident'; // fixture.json
const INCIDENT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

let browser;

for (const win of WINDOWS) {
    describe(`comments and moderation in a ${win.name}-sized window`, () => {
        let fan;
        let mod;
        let fanName;
        let modName;
        let commentId;
        let replyId;
        const shot = (p, name) => p.screenshot({ path: join(ARTIFACTS, `comments-${win.name}-${name}.png`), fullPage: true });

        before(async () => {
            mkdirSync(ARTIFACTS, { recursive: true });
            if (!browser) browser = await launch();
            fan = await person(browser, win.viewport, `fan-${win.name}`);
            mod = await person(browser, win.viewport, `mod-${win.name}`);
            cli('account', 'grant', mod.email, 'moderator');
            const suffix = String(Date.now() % 100000);
            fanName = `Fan ${win.name} ${suffix}`;
            modName = `Desk ${win.name} ${suffix}`;
        });

        after(async () => {
            for (const p of [fan, mod]) {
                assert.deepEqual(p?.problems ?? [], []);
                await p?.context.close();
            }
            if (win === WINDOWS[WINDOWS.length - 1]) await browser?.close();
        });

        it('chooses a display name from the account page', async () => {
            for (const [p, name] of [[fan, fanName], [mod, modName]]) {
                await p.page.goto(`${BASE_URL}/account`);
                await p.page.locator('#profile-link').click();
                await p.page.waitForURL('**/account/profile');
                await p.page.getByLabel('Display name').fill('me@example.org');
                await p.page.getByRole('button', { name: 'Save display name' }).click();
                assert.match(await p.page.locator('#form-error').innerText(), /email/);
                await p.page.getByLabel('Display name').fill(name);
                await p.page.getByRole('button', { name: 'Save display name' }).click();
                await p.page.waitForURL('**/account/profile');
                assert.equal(await p.page.locator('#display-name').innerText(), name);
            }
            await shot(fan.page, '1-profile');
        });

        it('posts a comment, which waits for review', async () => {
            const page = fan.page;
            await page.goto(`${BASE_URL}/incidents/${SLUG}`);
            assert.equal(await page.locator('#commenting-as').innerText(), fanName);
            await page.locator('#comment-body').fill('x');
            // the browser's own minlength check would stop "x": submit past it to see the server's answer
            await page.locator('#comment-form').evaluate((f) => f.setAttribute('novalidate', ''));
            await page.getByRole('button', { name: 'Post comment' }).click();
            assert.match(await page.locator('#form-error').innerText(), /too short/);
            assert.equal(await page.locator('#comment-body').inputValue(), 'x', 'the typed text is kept');
            await page.locator('#comment-body').fill(`The corner was early, ${win.name} view.\nSecond line: https://example.org/rulebook`);
            await page.getByRole('button', { name: 'Save' }).click();
            await page.waitForURL(`**/incidents/${SLUG}#c-*`);
            commentId = page.url().split('#c-')[1];
            const el = page.locator(`#c-${commentId}`);
            assert.equal(await el.getAttribute('data-status'), 'pending');
            assert.match(await el.locator('.pending-note').innerText(), /Awaiting review/);
            assert.equal(await el.locator('a[rel="nofollow ugc noopener"]').getAttribute('href'), 'https://example.org/rulebook');
            await noSidewaysScroll(page, 'the incident page');
            await shot(page, '2-pending');
        });

        it('the moderator approves it on /moderate', async () => {
            const page = mod.page;
            await page.goto(`${BASE_URL}/moderate`);
            const item = page.locator(`#m-${commentId}`);
            await item.waitFor();
            assert.match(await item.innerText(), /new account/);
            await noSidewaysScroll(page, '/moderate');
            await shot(page, '3-moderate-pending');
            await item.getByRole('button', { name: 'Approve' }).click();
            await page.waitForURL('**/moderate?queue=pending&done=approve');
            assert.equal(await page.locator(`#m-${commentId}`).count(), 0);
            const api = await page.evaluate(async (id) => (await fetch(`/api/v1/incidents/${id}/comments?limit=100`)).json(), INCIDENT);
            assert.ok(api.data.some((c) => c.id === commentId && c.author.display_name === fanName));
        });

        it('the moderator replies; the reply carries a badge', async () => {
            const page = mod.page;
            await page.goto(`${BASE_URL}/incidents/${SLUG}`);
            const el = page.locator(`#c-${commentId}`);
            await el.locator('details.reply > summary').click();
            await el.locator('details.reply textarea').fill('Thanks — the replay angle agrees.');
            await el.getByRole('button', { name: 'Post reply' }).click();
            await page.waitForURL(`**/incidents/${SLUG}#c-*`);
            replyId = page.url().split('#c-')[1];
            // the moderator's account is new too: its reply waits; approve it from the queue
            await page.goto(`${BASE_URL}/moderate`);
            await page.locator(`#m-${replyId}`).getByRole('button', { name: 'Approve' }).click();
            await page.waitForURL('**/moderate?queue=pending&done=approve');
            await page.goto(`${BASE_URL}/incidents/${SLUG}`);
            const reply = page.locator(`#c-${commentId} .replies #c-${replyId}`);
            assert.match(await reply.locator('.badge').innerText(), /Moderator/);
            await noSidewaysScroll(page, 'a thread with a reply');
            await shot(page, '4-reply');
        });

        it('the fan reports the reply with a reason', async () => {
            const page = fan.page;
            await page.goto(`${BASE_URL}/incidents/${SLUG}`);
            const reply = page.locator(`#c-${replyId}`);
            await reply.locator('details.report > summary').click();
            await reply.locator('select[name="reason"]').selectOption('off_topic');
            await reply.getByRole('button', { name: 'Report' }).click();
            await page.locator('#notice').waitFor();
            assert.match(await page.locator('#notice').innerText(), /report was recorded/);
            await shot(page, '5-reported');
        });

        it('the moderator sees it reported, then features the fan\'s comment', async () => {
            const page = mod.page;
            await page.goto(`${BASE_URL}/moderate?queue=reported`);
            const item = page.locator(`#m-${replyId}`);
            assert.match(await item.locator('.reports').innerText(), /off_topic 1/);
            await shot(page, '6-moderate-reported');
            await item.getByRole('button', { name: 'Approve' }).click();
            await page.waitForURL('**/moderate?queue=reported&done=approve');
            await page.goto(`${BASE_URL}/moderate?queue=recent`);
            await page.locator(`#m-${commentId}`).getByRole('button', { name: 'Feature' }).click();
            await page.waitForURL('**/moderate?queue=recent&done=feature');
            await page.locator(`#m-${commentId} details.log > summary`).click();
            const log = await page.locator(`#m-${commentId} details.log`).innerText();
            assert.match(log, /held/);
            assert.match(log, new RegExp(`approve by ${modName}`));
            assert.match(log, new RegExp(`feature by ${modName}`));
            await fan.page.goto(`${BASE_URL}/incidents/${SLUG}`);
            assert.equal(await fan.page.locator(`#c-${commentId} .featured`).innerText(), 'Featured');
            const count = await fan.page.locator('#comment-count').innerText();
            const api = await fan.page.evaluate(async (id) => (await fetch(`/api/v1/incidents/${id}`)).json(), INCIDENT);
            assert.equal(Number(count), api.data.comment_count);
            await shot(fan.page, '7-featured');
        });
    });
}
