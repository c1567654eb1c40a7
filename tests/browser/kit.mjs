// Shared pieces of the browser tests that sign people up (comments.test.mjs, desk.test.mjs):
// the environment tests/browser/run.sh passes, the two window sizes, a person signed in to a
// new verified account (the verification link read from the server log), the operator CLI on
// the test database, Chromium's launch and the no-sideways-scroll check.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const { BASE_URL, SERVER_LOG, WHISTLE_BIN, WHISTLE_DB } = process.env;
if (!BASE_URL || !SERVER_LOG || !WHISTLE_BIN || !WHISTLE_DB) throw new Error('run tests/browser/run.sh');

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
export const TIMEOUT = 15_000;
export const PASSWORD = 'a long browser passphrase';
export const WINDOWS = [
    { name: 'phone', viewport: { width: 390, height: 844 } },
    { name: 'desktop', viewport: { width: 1280, height: 900 } },
];

export async function until(what, fn, timeout = TIMEOUT) {
    const deadline = Date.now() + timeout;
    for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
    }
}

export function verifyLinkFromLog(email) {
    for (const line of readFileSync(SERVER_LOG, 'utf8').split('\n')) {
        if (!line.includes(`to=${email} `)) continue;
        const m = line.match(/(https?:\/\/\S+\/account\/verify\?token=[0-9A-Za-z]+)/);
        if (m) return m[1];
    }
    return null;
}

export function cli(...args) {
    return execFileSync(WHISTLE_BIN, [...args, '--db', WHISTLE_DB], { encoding: 'utf8' });
}

export function launch() {
    return chromium.launch({
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync', '--disable-quic'],
    });
}

// A page of a fresh browser context, signed in to a new account with a verified email.
export async function person(browser, viewport, tag) {
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

export async function noSidewaysScroll(page, what) {
    const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `${what}: the page scrolls sideways (${scroll} > ${client})`);
}
