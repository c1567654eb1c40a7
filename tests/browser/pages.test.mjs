// Browser test of a newcomer's pages (docs/pages.md, issue 18 item 7) at 390x844 and
// 1280x900 in headless Chromium: the site nav on one line, the sample-data banner (absent for
// the fixture, a real import; present once a document marked "sample": true is imported),
// the home page's older / newer links through every debate, the games index by week, the
// Fan Verdict bars, and /developers on a phone (Revoke in view, a confirmation step that
// works without JavaScript, code samples that wrap). Screenshots go to
// tests/browser/artifacts/pages-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, BASE_URL, WINDOWS, cli, launch, noSidewaysScroll, person } from './kit.mjs';

const VERDICT_SLUG = 'browser-test-incident'; // fixture.json: 25 ballots, so percentages show
const SAMPLE_COUNT = 35; // more than one home page (30)

// A document marked as sample data: one game and SAMPLE_COUNT debates, a minute apart.
function sampleDoc() {
    const uuid = (k) => `5a3b1e00-0000-4000-8000-${String(k).padStart(12, '0')}`;
    const incidents = [];
    for (let k = 1; k <= SAMPLE_COUNT; k++) {
        const at = new Date(Date.UTC(2027, 0, 10, 18, k)).toISOString().replace('.000', '');
        incidents.push({
            id: uuid(k), game_id: 'nfl:browser-sample-game', slug: `browser-sample-${k}`,
            title: `Sample debate number ${k}`, play_description: `Sample play number ${k}.`,
            category: k % 2 ? 'no_call' : 'spot', period: 2, clock: '2:18', published_at: at,
        });
    }
    return {
        sample: true,
        teams: [
            { id: 'browser-sample-home', name: 'Sample Home Hawks', abbreviation: 'SHH', league: 'nfl' },
            { id: 'browser-sample-away', name: 'Sample Away Owls', abbreviation: 'SAO', league: 'nfl' },
        ],
        games: [{
            id: 'nfl:browser-sample-game', homeTeam: { id: 'browser-sample-home' },
            awayTeam: { id: 'browser-sample-away' }, status: 'final', season: 2026, week: 19,
            seasonType: 'postseason', league: 'nfl', startsAt: '2027-01-10T18:00:00Z',
            homeScore: 17, awayScore: 14,
        }],
        incidents,
    };
}

// The top offset of every link of the site nav, and whether the nav shows all of them.
async function navLayout(page) {
    return page.evaluate(() => {
        const nav = document.getElementById('site-nav');
        const links = [...nav.querySelectorAll('a')];
        return {
            tops: links.map((a) => Math.round(a.getBoundingClientRect().top)),
            rights: links.map((a) => Math.round(a.getBoundingClientRect().right)),
            overflow: nav.scrollWidth - nav.clientWidth,
            width: document.documentElement.clientWidth,
        };
    });
}

// Whether el lies inside the viewport horizontally (a phone user can see and tap it).
async function inViewportX(page, locator) {
    const box = await locator.boundingBox();
    const width = page.viewportSize().width;
    return box && box.x >= 0 && box.x + box.width <= width;
}

let browser;
let imported = false;

for (const win of WINDOWS) {
    describe(`a newcomer's pages in a ${win.name}-sized window`, () => {
        let context;
        let page;
        const problems = [];
        const shot = (name, p = page) => p.screenshot({ path: join(ARTIFACTS, `pages-${win.name}-${name}.png`), fullPage: true });

        before(async () => {
            mkdirSync(ARTIFACTS, { recursive: true });
            if (!browser) browser = await launch();
            context = await browser.newContext({ viewport: win.viewport });
            page = await context.newPage();
            page.on('pageerror', (e) => problems.push(String(e)));
            page.on('console', (m) => {
                if (m.type() === 'error' && !(m.location().url || '').endsWith('/favicon.ico')) problems.push(m.text());
            });
        });

        after(async () => {
            assert.deepEqual(problems, []);
            await context?.close();
            if (win === WINDOWS[WINDOWS.length - 1]) await browser?.close();
        });

        it('the site nav stays on one line', async () => {
            for (const path of ['/', '/games', '/developers', `/incidents/${VERDICT_SLUG}`]) {
                assert.equal((await page.goto(`${BASE_URL}${path}`)).status(), 200, path);
                const nav = await navLayout(page);
                assert.equal(new Set(nav.tops).size, 1, `${path}: the nav wraps (link tops ${nav.tops})`);
                assert.ok(nav.overflow <= 0, `${path}: the nav hides ${nav.overflow}px of links`);
                assert.ok(Math.max(...nav.rights) <= nav.width, `${path}: a nav link is off screen`);
                await noSidewaysScroll(page, path);
            }
            await shot('1-nav');
        });

        it('no sample banner for real data; one once the sample document is imported', async () => {
            if (!imported) {
                await page.goto(`${BASE_URL}/`);
                assert.equal(await page.locator('#sample-banner').count(), 0, 'a banner before any sample import');
                const dir = mkdtempSync(join(tmpdir(), 'whistle-pages-'));
                try {
                    writeFileSync(join(dir, 'sample.json'), JSON.stringify(sampleDoc()));
                    cli('import', join(dir, 'sample.json'));
                } finally {
                    rmSync(dir, { recursive: true, force: true });
                }
                imported = true;
            }
            for (const path of ['/', '/games', `/incidents/${VERDICT_SLUG}`, '/games/nfl:browser-sample-game']) {
                await page.goto(`${BASE_URL}${path}`);
                const banner = page.locator('#sample-banner');
                assert.equal(await banner.isVisible(), true, path);
                assert.match(await banner.innerText(), /Sample data/);
                const box = await banner.boundingBox();
                assert.ok(box.y < win.viewport.height / 2, `${path}: the banner is not near the top`);
                assert.ok(await inViewportX(page, banner), `${path}: the banner is cut off`);
            }
            await page.goto(`${BASE_URL}/`);
            await shot('2-banner');
        });

        it('the home page pages through every debate with older and newer links', async () => {
            await page.goto(`${BASE_URL}/`);
            const titles = async () => page.locator('ul.incidents > li > a').allInnerTexts();
            const first = await titles();
            assert.equal(first.length, 30);
            assert.equal(first[0], `Sample debate number ${SAMPLE_COUNT}`);
            assert.match((await page.locator('ul.incidents .meta').first().innerText()), /No call/);
            assert.equal(await page.locator('#newer').count(), 0);
            const older = page.getByRole('link', { name: 'Older debates →' });
            await older.scrollIntoViewIfNeeded();
            assert.ok(await inViewportX(page, older), 'the older link is off screen');
            await shot('3-home-page-1');
            await older.click();
            await page.waitForURL('**/?page=2');
            const second = await titles();
            assert.ok(second.length > 0);
            assert.deepEqual(second.filter((t) => first.includes(t)), [], 'page 2 repeats page 1');
            assert.ok(second.includes('Sample debate number 1'));
            await shot('4-home-page-2');
            await page.getByRole('link', { name: '← Newer debates' }).click();
            await page.waitForURL(`${BASE_URL}/`);
            assert.deepEqual(await titles(), first);
        });

        it('the games index lists games by league, season and week', async () => {
            await page.goto(`${BASE_URL}/games`);
            const seasons = await page.locator('#games > h2').allInnerTexts();
            assert.ok(seasons.includes('NFL 2026') && seasons.includes('NFL 2025'), seasons.join(' | '));
            const weeks = await page.locator('#games section.week h3').allInnerTexts();
            assert.ok(weeks.includes('Postseason, week 19'), weeks.join(' | '));
            assert.ok(weeks.includes('Regular season, week 13'), weeks.join(' | '));
            await noSidewaysScroll(page, '/games');
            await shot('5-games');
            await page.getByRole('link', { name: /Sample Away Owls 14 at Sample Home Hawks 17/ }).click();
            await page.waitForURL('**/games/nfl:browser-sample-game');
            assert.equal((await page.locator('#game-status').innerText()).trim(), 'Final');
            assert.match(await page.locator('.game-status').innerText(), /2026 Postseason, week 19/);
            await page.locator('ul.incidents a').first().click();
            await page.waitForURL('**/incidents/browser-sample-*');
            assert.equal((await page.locator('.play-time').innerText()).trim(), 'Q2 2:18');
        });

        it('the Fan Verdict shows bars beside the counts and percentages', async () => {
            await page.goto(`${BASE_URL}/incidents/${VERDICT_SLUG}`);
            const rows = await page.locator('#results li[data-choice]').evaluateAll((lis) => lis.map((li) => {
                const m = li.querySelector('meter');
                const r = m && m.getBoundingClientRect();
                return {
                    count: li.querySelector('.count')?.textContent,
                    pct: parseFloat(li.querySelector('.pct')?.textContent),
                    value: m ? m.value : null,
                    label: m ? m.getAttribute('aria-label') : null,
                    width: r ? r.width : 0,
                    countFirst: !!m && !!(li.querySelector('.count').compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING),
                };
            }));
            assert.equal(rows.length, 3);
            for (const r of rows) {
                assert.match(r.count, /^\d+$/);
                assert.equal(r.value, r.pct, 'the bar is the printed percentage');
                assert.ok(r.width > 100, `a bar ${r.width}px wide`);
                assert.ok(r.countFirst, 'the count comes before the bar');
                assert.match(r.label, /% of \d+ votes$/);
            }
            await page.locator('#verdict').scrollIntoViewIfNeeded();
            await page.locator('#verdict').screenshot({ path: join(ARTIFACTS, `pages-${win.name}-6-verdict.png`) });
        });

        it('/developers: Revoke in view, a confirmation step without JavaScript, wrapped code', async () => {
            const dev = await person(browser, win.viewport, `pages-${win.name}`);
            let state;
            try {
                await dev.page.goto(`${BASE_URL}/developers`);
                await dev.page.getByLabel('Key name').fill(`phone key ${win.name}`);
                await dev.page.getByRole('button', { name: 'Create a key' }).click();
                await dev.page.locator('#new-key-secret').waitFor();
                state = await dev.context.storageState();
                assert.deepEqual(dev.problems, []);
            } finally {
                await dev.context.close();
            }
            // the same person in a browser without JavaScript
            const noJs = await browser.newContext({ viewport: win.viewport, javaScriptEnabled: false, storageState: state });
            try {
                const p = await noJs.newPage();
                await p.goto(`${BASE_URL}/developers`);
                await noSidewaysScroll(p, '/developers');
                const wide = await p.locator('pre').evaluateAll((pres) => pres.filter((e) => e.scrollWidth > e.clientWidth).length);
                assert.equal(wide, 0, 'a code sample runs off the screen');
                const revoke = p.locator('#key-list tr[data-key-id]').getByRole('link', { name: 'Revoke' });
                await revoke.scrollIntoViewIfNeeded();
                assert.equal(await revoke.isVisible(), true);
                assert.ok(await inViewportX(p, revoke), 'Revoke is off screen');
                await shot('7-developers', p);
                await revoke.click();
                await p.waitForURL('**/developers/keys/*/revoke');
                assert.equal((await p.locator('#revoke-name').innerText()).trim(), `phone key ${win.name}`);
                const confirm = p.getByRole('button', { name: 'Revoke this key' });
                assert.ok(await inViewportX(p, confirm), 'the confirm button is off screen');
                await shot('8-revoke-confirm', p);
                // Cancel keeps the key
                await p.getByRole('link', { name: 'Cancel, keep it' }).click();
                await p.waitForURL(`${BASE_URL}/developers`);
                assert.equal((await p.locator('#key-list .key-state').innerText()).trim(), 'active');
                await p.locator('#key-list tr[data-key-id]').getByRole('link', { name: 'Revoke' }).click();
                await p.getByRole('button', { name: 'Revoke this key' }).click();
                await p.waitForURL('**/developers?notice=revoked');
                assert.equal((await p.locator('#key-list .key-state').innerText()).trim(), 'revoked');
                assert.equal(await p.locator('#key-list').getByRole('link', { name: 'Revoke' }).count(), 0);
                await shot('9-revoked', p);
            } finally {
                await noJs.close();
            }
        });
    });
}
