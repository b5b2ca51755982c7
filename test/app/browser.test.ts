// The web app end to end in Debian's Chromium (playwright-core, no browser download): one
// browser and one server for the file. Signs in, watches an event captured over HTTP
// appear live and opens its properties, creates a flag and reads it from /flags?v=2,
// switches it off, visits persons and status, draws and saves a trend, and signs out. Every page is
// worked by labels and roles and passes axe-core's WCAG 2 A/AA rules, and no request
// fails, no console error (a CSP refusal would be one) is printed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, postJson, request, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { OrgLevel } from '../../src/access/index.js';
import { setPassword } from '../../src/access/sessions/commands.js';
import { hashPassword } from '../../src/access/sessions/password.js';

const CHROMIUM = '/usr/bin/chromium';
const EMAIL = 'ops@example.com';
const PASSWORD = 'a long enough password';

// axe-core's WCAG 2 A and AA rules, run in the page (through the DevTools protocol, which
// the page's CSP does not govern) on each page as the test reaches it.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const s = suite('web app in a browser');
let t: TestServer;
let browser: Browser | null = null;
let page: Page;
const problems: string[] = [];

async function accessible(p: Page, name: string): Promise<void> {
  if (!(await p.evaluate(() => 'axe' in globalThis))) await p.evaluate(AXE);
  const { passed, violations } = await p.evaluate(async () => {
    type Axe = { run(o: unknown): Promise<{ passes: unknown[]; violations: { id: string; nodes: { target: string[] }[] }[] }> };
    const r = await (globalThis as unknown as { axe: Axe }).axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return { passed: r.passes.length, violations: r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`) };
  });
  assert.equal(violations, [], `${name}: accessibility violations`);
  // The rules ran (labels, contrast, names of buttons and links, …), not nothing.
  assert.ok(passed >= 5, `${name}: axe passed ${passed} rules`);
}

// Launched by the first test rather than in `before`, so that a missing Chromium fails a
// test with this message (uvu does not print errors thrown by hooks).
async function opened(): Promise<Page> {
  if (page) return page;
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
  page.on('response', (r) => {
    // The sign-in page asks who is signed in (401) before anyone is.
    if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith('/api/users/@me'))) problems.push(`${r.status()} ${r.url()}`);
  });
  return page;
}

s.before(async () => {
  // The event store and the insights replica (the trend); no hog functions.
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  const { user } = await addUser(t, { level: OrgLevel.admin, email: EMAIL });
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD, 1 << 10) });
});

s.after(async () => {
  await browser?.close();
  await t?.close();
});

s('sign in with email and password', async () => {
  const p = await opened();
  await p.goto(`${t.url}/`);
  await p.getByLabel('Email').fill(EMAIL);
  await p.getByLabel('Password').fill('not it at all');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('alert').filter({ hasText: 'Invalid email or password.' }).waitFor();
  await accessible(p, 'sign-in');
  problems.length = 0; // that 400 was the point
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Live events' }).waitFor();
  const cookies = await p.context().cookies();
  const session = cookies.find((c) => c.name === 'hedgerow_session')!;
  assert.ok(session.httpOnly);
  assert.is(session.sameSite, 'Lax');
});

s('an event captured over HTTP appears live, and its properties open', async () => {
  const p = await opened();
  await p.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  const sent = await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'checkout_done', distinct_id: 'shopper-1', properties: { basket: 'b-42' } });
  assert.is(sent.status, 200);
  const button = p.getByRole('button', { name: 'checkout_done' });
  await button.waitFor();
  assert.is(await button.getAttribute('aria-expanded'), 'false');
  await button.focus();
  await p.keyboard.press('Enter');
  assert.is(await button.getAttribute('aria-expanded'), 'true');
  await p.getByText('"basket": "b-42"').waitFor();
  await accessible(p, 'live events');
  // Filtered by another event's name, it is gone; the filter's own events still come.
  await p.getByLabel('Event name').fill('other_event');
  await p.getByRole('button', { name: 'Filter' }).click();
  await p.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'checkout_done', distinct_id: 'shopper-1', properties: {} });
  await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'other_event', distinct_id: 'shopper-2', properties: {} });
  await p.getByRole('button', { name: 'other_event' }).waitFor();
  assert.is(await p.getByRole('button', { name: 'checkout_done' }).count(), 0);
});

async function flagsFor(distinctId: string): Promise<Record<string, { enabled: boolean }>> {
  const r = await postJson(`${t.url}/flags/?v=2`, { api_key: t.projectKey, distinct_id: distinctId });
  assert.is(r.status, 200);
  return r.body.flags;
}

s('a flag created in the app is answered by /flags?v=2, and switched off there', async () => {
  const p = await opened();
  await p.getByRole('link', { name: 'Feature flags' }).click();
  await p.getByRole('heading', { name: 'Feature flags', exact: true }).waitFor();
  await p.getByRole('button', { name: 'New flag' }).click();
  await p.getByLabel('Key').fill('made-in-app');
  await p.getByLabel('Description').fill('From the browser');
  await p.getByLabel('Rollout (% of users)').fill('100');
  await accessible(p, 'feature flags with the new flag form');
  await p.getByRole('button', { name: 'Create flag' }).click();
  await p.getByRole('cell', { name: 'made-in-app', exact: true }).waitFor();
  assert.is((await flagsFor('anyone'))['made-in-app']?.enabled, true);

  await p.getByRole('checkbox', { name: 'made-in-app active' }).uncheck();
  await p.getByRole('row', { name: /made-in-app/ }).getByText('off').waitFor();
  // An inactive flag is left out of /flags, as in PostHog.
  assert.is((await flagsFor('anyone'))['made-in-app'], undefined);
});

s('persons, insights and status open', async () => {
  const p = await opened();
  await p.getByRole('link', { name: 'Persons' }).click();
  await p.getByRole('heading', { name: 'Persons', exact: true }).waitFor();
  await p.getByLabel('Search (distinct ID, email, name)').waitFor();
  await accessible(p, 'persons');
  await p.getByRole('link', { name: 'Status' }).click();
  await p.getByText('This node is ready.').waitFor();
  await accessible(p, 'status');
  await p.getByRole('link', { name: 'Insights' }).click();
  await p.getByRole('heading', { name: 'Insights', exact: true }).waitFor();
  await p.getByLabel('Event').fill('checkout_done');
  await p.getByRole('button', { name: 'Show trend' }).click();
  // The chart the exports' builder made, drawn by ECharts (an SVG with the insight's title).
  await p.locator('.chart svg, [role="alert"]').first().waitFor();
  assert.is(await p.getByRole('alert').count(), 0, `the query failed: ${await p.getByRole('alert').allTextContents()}`);
  // A function, not a string: Playwright runs a string predicate through eval in the page,
  // which the app's Content-Security-Policy refuses (an EvalError, whenever it polls again).
  await p.waitForFunction(() => {
    const page = globalThis as unknown as { document: { querySelector(selector: string): { innerHTML: string } | null } };
    return page.document.querySelector('.chart')?.innerHTML.includes('checkout_done count') === true;
  });
  await accessible(p, 'insights');
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  await p.getByRole('listitem').filter({ hasText: 'checkout_done count' }).waitFor();
  const saved = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.equal(saved.body.results.map((i: { name: string }) => i.name), ['checkout_done count']);
});

s('sign out ends the session', async () => {
  const p = await opened();
  await p.getByRole('button', { name: 'Sign out' }).click();
  await p.getByRole('heading', { name: 'Sign in to hedgerow' }).waitFor();
  const me = await p.context().request.get(`${t.url}/api/users/@me`);
  assert.is(me.status(), 401);
  problems.splice(0, problems.length, ...problems.filter((x) => !x.startsWith('401 ')));
  assert.equal(problems, []);
  assert.is((await request(`${t.url}/_liveness`)).status, 200);
});

s.run();
