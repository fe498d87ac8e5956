// The web page in a real browser (issue 36): headless Chromium (Debian's `chromium`, driven by
// playwright-core with its executablePath) against a real server on a loopback port. Loads the
// overview, searches, opens an item, follows a supersede link, forgets with confirmation, opens a
// turn and sees why an item was held back, signs in with a token and is refused another namespace.
// A screenshot of each page goes to test-artifacts/ui/ (not committed). Skipped, saying so, only
// when no Chromium binary is found (KIOKU_CHROMIUM names one elsewhere).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const CHROMIUM = [process.env['KIOKU_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
if (!CHROMIUM) process.stderr.write('tests/ui-browser.test.ts: SKIPPED — no Chromium binary (apt-get install chromium, or set KIOKU_CHROMIUM)\n');
const ARTIFACTS = join(REPO, 'test-artifacts', 'ui');
const ALPHA = 'alpha-token-0123456789abcdef';
const BETA = 'beta-token-0123456789abcdefgh';

async function seed(server: TestServer): Promise<string> {
  const memories = Array.from({ length: 8 }, (_, i) => ({ id: `deploy-${i}`, kind: 'fact', text: `The billing deploy step ${i} runs scripts/deploy.sh on Fridays after ledger check ${i}.`, tags: ['billing'] }));
  memories.push({ id: 'old', kind: 'fact', text: 'The billing deploy runs on Mondays.', tags: [] });
  memories.push({ id: 'new', kind: 'fact', text: 'The billing deploy runs on Thursdays now.', tags: [] });
  memories.push({ id: 'lunch', kind: 'note', text: 'The team lunch is on Fridays.', tags: [] });
  expect((await server.call('POST', '/v1/memories', { memories })).status).toBe(200);
  expect((await server.call('POST', '/v1/memories/new/supersede', { superseded_ids: ['old'] })).status).toBe(200);
  await server.call('POST', '/v1/sessions/open', { agent: 'browser-test', session_id: 's1' });
  const turn = await server.call('POST', '/v1/turns/start', { session_id: 's1', query: 'when does the billing deploy run?' });
  return turn.body['turn_id'] as string;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

describe.skipIf(!CHROMIUM)('the web page in headless Chromium', () => {
  let browser: Browser;
  let open: TestServer;
  let page: Page;
  let turnId: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [browser, open] = await Promise.all([chromium.launch({ executablePath: CHROMIUM }), startTestServer()]);
    turnId = await seed(open);
    page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    page.setDefaultTimeout(8_000); // a missing element fails the test in seconds, not at the test timeout
    page.on('pageerror', (e) => {
      throw e;
    });
  });
  afterAll(async () => {
    await browser?.close();
    await open?.stop();
  });

  it('loads the overview: every card fills, and the keyboard reaches the page first through its skip link', async () => {
    await page.goto(`${open.url}/ui#/overview`);
    for (const card of ['library', 'log', 'store', 'embedding', 'charts']) await page.waitForSelector(`[data-card="${card}"][data-ready="true"]`);
    await expect.poll(() => page.textContent('[data-card="library"]')).toContain('11 active items');
    expect(await page.textContent('[data-card="charts"]')).toContain('held back 6');
    expect(await page.textContent('[data-card="charts"]')).toContain('keyword:utterance'); // a lane's bar
    await page.keyboard.press('Tab');
    // runs in the page (no DOM types here: the project's lib is Node's)
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent)).toBe('Skip to content');
    await shot(page, 'overview');
  });

  it('searches with the recall core and shows why each record was found', async () => {
    await page.goto(`${open.url}/ui#/library`);
    await page.fill('#f-q', 'billing deploy Thursdays');
    await page.press('#f-q', 'Enter');
    await page.waitForSelector('#results table');
    expect(await page.textContent('#results')).toContain('Thursdays');
    expect(await page.textContent('#results')).toMatch(/fused \d/);
    // every field is labelled (a screen reader names it)
    const unlabelled = await page.$$eval('input, select', (els) =>
      els.filter((e) => !(e as unknown as { labels: { length: number } }).labels.length && !e.getAttribute('aria-label')).map((e) => e.id),
    );
    expect(unlabelled).toEqual([]);
    await shot(page, 'library');
  });

  it('opens an item from the library and follows its supersede link', async () => {
    await page.goto(`${open.url}/ui#/library?text=Mondays&include_retired=1`);
    await page.click('#results a.item');
    await page.waitForSelector('[data-field="text"]');
    expect(await page.textContent('main')).toContain('This item is superseded.');
    await shot(page, 'item');
    await page.click('main p a:text("new")');
    await expect.poll(() => page.textContent('[data-field="text"]')).toBe('The billing deploy runs on Thursdays now.');
    expect(await page.textContent('main')).toContain('Supersedes old');
  });

  it('forgets a memory only once the dialog is confirmed', async () => {
    await page.goto(`${open.url}/ui#/item/${encodeURIComponent('ev1:private:memory:lunch')}`);
    await page.click('button:text("Forget…")');
    await page.click('dialog button:text("Cancel")');
    expect((await open.call('GET', '/v1/evidence/ev1%3Aprivate%3Amemory%3Alunch')).body['status']).toBe('active');
    await page.click('button:text("Forget…")');
    expect(await page.isVisible('dialog')).toBe(true);
    await page.click('dialog button:text("Forget")');
    // shown as forgotten, or (where forgetting hides an item from reads) as gone
    await page.waitForSelector('text=/This item is forgotten\\.|it may have been forgotten/');
    const after = await open.call('GET', '/v1/evidence/ev1%3Aprivate%3Amemory%3Alunch');
    expect(after.status === 404 || after.body['status'] === 'forgotten').toBe(true);
  });

  it('opens a turn from the list and shows the rule that held each other candidate back', async () => {
    await page.goto(`${open.url}/ui#/turns`);
    await page.waitForSelector('main table');
    await shot(page, 'turns');
    await page.click('a:text("when does the billing deploy run?")');
    await page.waitForSelector('text=held back: no_slot');
    expect(page.url()).toContain(`#/turn/${turnId}`);
    expect(await page.locator('text=delivered').count()).toBeGreaterThan(0);
    await shot(page, 'turn');
  });

  it('shows the cold knowledge and delivery reports', async () => {
    await page.goto(`${open.url}/ui#/cold`);
    await page.waitForSelector('h2:text("Cold knowledge")');
    await shot(page, 'cold');
    await page.goto(`${open.url}/ui#/delivery`);
    await page.waitForSelector('text=Share of each delivered excerpt');
    await shot(page, 'delivery');
  });

  it('signs in with a token, keeps it out of the URL and script, and is refused another namespace', async () => {
    const guarded = await startTestServer({
      tokens: {
        tokens: [
          { name: 'alpha', token: ALPHA, namespace: 'alpha', scopes: ['memory:read', 'memory:write'] },
          { name: 'beta', token: BETA, namespace: 'beta', scopes: ['memory:read', 'memory:write'] },
        ],
      },
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    try {
      await guarded.call('POST', '/v1/memories', { namespace: 'beta', memories: [{ id: 'secret-plan', kind: 'fact', text: 'Beta only.' }] }, BETA);
      const p = await context.newPage();
      p.setDefaultTimeout(8_000);
      await p.goto(`${guarded.url}/ui`);
      await p.fill('#token', 'wrong-token-0123456789abcdef');
      await p.press('#token', 'Enter');
      await p.waitForSelector('text=KIOKU_UNAUTHORIZED');
      await shot(p, 'signin');
      await p.fill('#token', ALPHA);
      await p.click('button:text("Sign in")');
      await p.waitForSelector('#who code:text("alpha")');
      await p.waitForSelector('[data-card="library"][data-ready="true"]');
      expect(p.url()).not.toContain(ALPHA);
      expect(await p.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
      const cookie = (await context.cookies()).find((c) => c.name === 'kioku_ui');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      const other = await p.evaluate(() => fetch('/v1/stats?namespace=beta').then((r) => r.status));
      expect(other).toBe(403);
      await p.goto(`${guarded.url}/ui#/item/${encodeURIComponent('ev1:beta:memory:secret-plan')}`);
      await p.waitForSelector('text=KIOKU_FORBIDDEN');
      expect(await p.textContent('main')).not.toContain('Beta only.');
    } finally {
      await context.close();
      await guarded.stop();
    }
  });
});
