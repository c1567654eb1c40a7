// Browser test of loopback origins and refused forms (issue 18 item 3; docs/pages.md), in
// Debian's headless Chromium driven by playwright-core. Run through tests/browser/run.sh,
// whose server's base URL says http://localhost:PORT.
//
// A newcomer opening http://127.0.0.1:PORT instead can still use the forms; a form posted
// from anywhere else is refused with a page that says, in words, that nothing was saved and
// what to do, with a link back to the form. Screenshots go to tests/browser/artifacts/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE_URL = process.env.BASE_URL;
if (!BASE_URL) throw new Error('BASE_URL is not set (run tests/browser/run.sh)');
const OTHER = BASE_URL.replace('//localhost:', '//127.0.0.1:');
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
const PASSWORD = 'a long browser passphrase';

let browser;
let page;
const shot = (name) => page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });

describe('loopback spellings and refused forms in Chromium', () => {
    before(async () => {
        assert.notEqual(OTHER, BASE_URL, 'run.sh serves a localhost base URL');
        mkdirSync(ARTIFACTS, { recursive: true });
        browser = await chromium.launch({
            executablePath: '/usr/bin/chromium',
            headless: true,
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--disable-quic'],
        });
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        context.setDefaultTimeout(10_000);
        page = await context.newPage();
    });

    after(async () => {
        await browser?.close();
    });

    it('signs up from http://127.0.0.1 while the base URL says localhost', async () => {
        const res = await page.goto(`${OTHER}/account/signup`);
        assert.equal(res.status(), 200);
        await page.getByLabel('Email address').fill(`origin-${Date.now()}@example.org`);
        await page.getByLabel('Password').fill(PASSWORD);
        const [answer] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST'),
            page.getByRole('button', { name: 'Create account' }).click(),
        ]);
        assert.equal(answer.status(), 200, 'the other loopback spelling is the same origin');
        await page.locator('#check-inbox').waitFor();
        assert.ok(page.url().startsWith(OTHER), page.url());
        await shot('origin-loopback-signup.png');
    });

    it('refuses a form posted from another page, in words, with a link back', async () => {
        await page.goto('about:blank');
        await page.setContent(`<form method="post" action="${BASE_URL}/account/signup">
            <input name="email" value="elsewhere@example.org">
            <input name="password" value="${PASSWORD}"><input name="csrf" value="x">
            <button>Send</button></form>`);
        const [answer] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST'),
            page.getByRole('button', { name: 'Send' }).click(),
        ]);
        assert.equal(answer.status(), 403);
        await page.locator('#refusal').waitFor();
        assert.equal(await page.locator('h1').innerText(), 'We could not accept this form');
        const words = await page.locator('#refusal').innerText();
        assert.match(words, /nothing was saved/);
        assert.match(words, /reload it/);
        assert.doesNotMatch(await page.locator('main, body').first().innerText(),
            /Origin|Referer|CSRF|cross-origin/);
        await shot('origin-refused-form.png');
        await page.locator('a#back').click();
        await page.waitForURL('**/account/signup');
        assert.equal(await page.getByLabel('Email address').count(), 1);
    });
});
