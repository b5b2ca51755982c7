// The web app end to end in Debian's Chromium (playwright-core, no browser download): one
// browser and one server for the file. Signs in, watches an event captured over HTTP
// appear live and opens its properties, creates a flag and reads it from /flags?v=2,
// switches it off and charts its evaluations, visits persons and status, draws and saves a
// trend, builds and saves a funnel and opens it again, runs HogQL (its table, its error's
// place), builds a filtered, broken-down property-sum trend over custom dates and reopens
// it as built (and a funnel broken down), builds a trend of two series with a cohort filter
// and a funnel on a cohort and reopens both as built, lays out a dashboard of two charts and exports
// it, moves and resizes a tile by button and keyboard and reopens the saved layout, removes
// a tile and renames the dashboard, makes a webhook from its template and reads its logs
// before switching it off, edits it (inputs filled in, filters, enabled) and test-invokes
// it, and signs out. Every page is
// worked by labels and roles and passes axe-core's WCAG 2 A/AA rules, and no request
// fails, no console error (a CSP refusal would be one) is printed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually, startTestServer, postJson, request, type TestServer } from '../helpers/server.js';
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
// Where the webhook made in the app delivers (allowed by HEDGEROW_HOG_FETCH_ALLOW).
let sink: Server;
const delivered: string[] = [];

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
  // Every consumer: the event store, the insights replica (trends, funnels, dashboards) and
  // the hog functions (the webhook's deliveries and logs).
  sink = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => { delivered.push(body); res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}'); });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' } });
  const { user } = await addUser(t, { level: OrgLevel.admin, email: EMAIL });
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD, 1 << 10) });
});

s.after(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((resolve) => sink?.close(resolve));
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
  // A refused form keeps what was typed beside the error.
  await p.getByRole('button', { name: 'New flag' }).click();
  await p.getByLabel('Key').fill('made-in-app');
  await p.getByLabel('Description').fill('A second one');
  await p.getByRole('button', { name: 'Create flag' }).click();
  await p.getByRole('alert').waitFor();
  assert.equal([await p.getByLabel('Key').inputValue(), await p.getByLabel('Description').inputValue()], ['made-in-app', 'A second one']);

  await p.getByRole('checkbox', { name: 'made-in-app active' }).uncheck();
  await p.getByRole('row', { name: /made-in-app/ }).getByText('off').waitFor();
  // An inactive flag is left out of /flags, as in PostHog.
  assert.is((await flagsFor('anyone'))['made-in-app'], undefined);
});

s("a flag's page charts its evaluations per day, by answer", async () => {
  const p = await opened();
  // What posthog-js sends when the app reads a flag.
  const called = (who: string, response: boolean) =>
    ({ event: '$feature_flag_called', distinct_id: who, properties: { $feature_flag: 'made-in-app', $feature_flag_response: response } });
  const r = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [called('a', true), called('b', true), called('c', false)] });
  assert.is(r.status, 200);
  await t.applied();
  await p.getByRole('link', { name: 'made-in-app' }).click();
  await p.getByRole('heading', { name: 'Evaluations over time' }).waitFor();
  await p.getByText('3 evaluations in the last 30 days, by answer:').waitFor();
  await p.locator('.chart svg').waitFor();
  const table = p.getByRole('table', { name: 'Evaluations by answer' });
  assert.equal(await table.getByRole('row').allInnerTexts(), ['Answer\tEvaluations', 'true\t2', 'false\t1']);
  await accessible(p, 'a flag with its evaluations');
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

s('a funnel built, saved and opened again; a retention table saved; a HogQL table and where a query went wrong', async () => {
  const p = await opened();
  const ev = (event: string, who: string, minutesAgo: number) => ({ event, distinct_id: who, timestamp: new Date(Date.now() - minutesAgo * 60_000).toISOString(), properties: {} });
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [ev('cart_opened', 'f1', 30), ev('cart_paid', 'f1', 20), ev('cart_opened', 'f2', 25)] });
  await t.applied();
  await p.getByRole('link', { name: 'Insights' }).click();
  await p.getByRole('radio', { name: 'Funnel' }).check();
  await p.getByLabel('Step 1 event').fill('cart_opened');
  await p.getByLabel('Step 2 event').fill('cart_paid');
  await p.getByLabel('Conversion window').fill('1');
  await p.getByLabel('Window unit').selectOption('day');
  await p.getByRole('button', { name: 'Show funnel' }).click();
  const steps = p.getByRole('table', { name: 'Steps' });
  await steps.waitFor();
  assert.equal(await steps.getByRole('row').allInnerTexts(), [
    'Step\tEvent\tPersons\tFrom previous step\tFrom first step\tDropped off', '1\tcart_opened\t2\t\t100%\t', '2\tcart_paid\t1\t50.0%\t50.0%\t1',
  ]);
  await p.locator('.chart svg').waitFor();
  await accessible(p, 'funnel');
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  const saved = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  const funnel = saved.body.results.find((i: { name: string }) => i.name === 'Funnel: cart_opened → cart_paid');
  assert.ok(funnel, JSON.stringify(saved.body.results.map((i: { name: string }) => i.name)));
  assert.is(funnel.query.source.kind, 'FunnelsQuery');
  assert.equal(funnel.query.source.funnelsFilter.funnelWindowInterval, 1);

  // Opened from the list: the form filled from its query, and its steps again.
  await p.getByRole('radio', { name: 'Trend' }).check();
  await p.getByRole('link', { name: 'Funnel: cart_opened → cart_paid' }).click();
  await p.getByRole('link', { name: '← New insight' }).waitFor();
  await p.getByRole('table', { name: 'Steps' }).getByRole('cell', { name: '50.0%' }).first().waitFor();
  assert.ok(await p.getByRole('radio', { name: 'Funnel' }).isChecked());
  assert.is(await p.getByLabel('Step 2 event').inputValue(), 'cart_paid');
  assert.is(await p.getByLabel('Conversion window').inputValue(), '1');

  // Retention: the cohort table beside the exports' grid, saved as a RetentionQuery.
  await p.getByRole('radio', { name: 'Retention' }).check();
  await p.getByLabel('Cohort event (first time)').fill('cart_opened');
  await p.getByLabel('Returning event').fill('cart_paid');
  await p.getByRole('button', { name: 'Show retention' }).click();
  const cohorts = p.getByRole('table', { name: 'Cohorts' });
  await cohorts.waitFor();
  assert.match((await cohorts.getByRole('row').first().innerText()).replace(/\s+/g, ' '), /^Cohort Persons Day 0 Day 1 /);
  await p.locator('.chart svg').waitFor();
  await accessible(p, 'retention');
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  const kinds = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  const retention = kinds.body.results.find((i: { name: string }) => i.name === 'Retention: cart_opened then cart_paid');
  assert.is(retention?.query.source.retentionFilter.returningEntity.id, 'cart_paid');

  await p.getByRole('radio', { name: 'HogQL' }).check();
  await p.getByLabel('HogQL query').fill("select event, count() as n from events where event like 'cart_%' group by event order by event");
  await p.getByRole('button', { name: 'Run query' }).click();
  const rows = p.getByRole('table', { name: '2 rows' });
  await rows.waitFor();
  assert.equal(await rows.getByRole('row').allInnerTexts(), ['event\tn', 'cart_opened\t2', 'cart_paid\t1']);
  await accessible(p, 'HogQL results');
  await p.getByLabel('HogQL query').fill('select event\nfrom events where');
  await p.getByRole('button', { name: 'Run query' }).click();
  await p.getByRole('alert').filter({ hasText: 'Syntax error at line 2' }).waitFor();
  // That 400 was the point.
  problems.splice(0, problems.length, ...problems.filter((x) => !x.startsWith('400 ') && !x.includes('status of 400')));
  // The line it stopped on, a caret under the place, and the cursor put there.
  const at = await p.locator('#q-error-at').innerText();
  assert.match(at, /^line 2: from events where\n\s+\^$/, JSON.stringify(at));
  const cursor = await p.getByLabel('HogQL query').evaluate((el) => (el as unknown as { selectionStart: number }).selectionStart);
  assert.ok(cursor > 'select event\n'.length, `cursor at ${cursor}`);
  await accessible(p, 'HogQL error');
});

s('a trend of a property sum, filtered, broken down, over custom dates: saved and reopened as built; a funnel broken down', async () => {
  const p = await opened();
  const paid = (who: string, plan: string, amount: number) => ({ event: 'order_paid', distinct_id: who, properties: { plan, amount } });
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [paid('o1', 'pro', 10), paid('o2', 'pro', 20), paid('o3', 'free', 5), paid('o4', 'trial', 100)] });
  await t.applied();
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  await p.getByRole('link', { name: 'Insights' }).click();
  await p.getByRole('radio', { name: 'Trend' }).check();
  await p.getByLabel('Event', { exact: true }).fill('order_paid');
  await p.getByLabel('Measure').selectOption('sum');
  await p.getByLabel('Of property').fill('amount');
  await p.getByLabel('Date range').selectOption('custom');
  await p.getByLabel('From', { exact: true }).fill(day(-2));
  await p.getByLabel('To', { exact: true }).fill(day(1));
  await p.getByRole('button', { name: 'Add filter' }).click();
  await p.getByLabel('Filter 1 property').fill('plan');
  await p.getByLabel('Filter 1 operator').selectOption('is_not');
  await p.getByLabel('Filter 1 value').fill('trial');
  await p.getByLabel('Breakdown by').selectOption('event');
  await p.getByLabel('Breakdown property').fill('plan');
  assert.is(await p.getByLabel('Breakdown limit').inputValue(), '25');
  await accessible(p, 'trend with filters and a breakdown');
  await p.getByRole('button', { name: 'Show trend' }).click();
  const results = p.getByRole('table', { name: 'Results' });
  await results.waitFor();
  // A row per plan left by the filter, each the sum of its amounts (the trial's 100 filtered out).
  const totals = Object.fromEntries((await results.locator('tbody tr').allInnerTexts()).map((r) => { const c = r.split('\t'); return [c[0], c.at(-1)]; }));
  assert.equal(Object.keys(totals).length, 2, JSON.stringify(totals));
  assert.is(Object.entries(totals).find(([k]) => k.includes('pro'))?.[1], '30', JSON.stringify(totals));
  assert.is(Object.entries(totals).find(([k]) => k.includes('free'))?.[1], '5', JSON.stringify(totals));
  await p.locator('.chart svg').waitFor();
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  const saved = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  const trend = saved.body.results.find((i: { name: string }) => i.name === 'order_paid sum of amount by plan');
  assert.ok(trend, JSON.stringify(saved.body.results.map((i: { name: string }) => i.name)));
  const source = trend.query.source;
  assert.equal(source.series[0].math_property, 'amount');
  assert.equal(source.properties, [{ key: 'plan', type: 'event', operator: 'is_not', value: ['trial'] }]);
  assert.equal(source.breakdownFilter, { breakdown: 'plan', breakdown_type: 'event', breakdown_limit: 25 });
  assert.equal(source.dateRange, { date_from: day(-2), date_to: day(1) });

  // Reopened: every field as it was saved.
  await p.getByRole('link', { name: 'order_paid sum of amount by plan' }).click();
  await p.getByRole('table', { name: 'Results' }).waitFor();
  assert.equal([
    await p.getByLabel('Measure').inputValue(), await p.getByLabel('Of property').inputValue(), await p.getByLabel('Date range').inputValue(),
    await p.getByLabel('From', { exact: true }).inputValue(), await p.getByLabel('Filter 1 operator').inputValue(), await p.getByLabel('Filter 1 value').inputValue(),
    await p.getByLabel('Breakdown by').inputValue(), await p.getByLabel('Breakdown property').inputValue(),
  ], ['sum', 'amount', 'custom', day(-2), 'is_not', 'trial', 'event', 'plan']);

  // A funnel broken down by plan: a table of steps per value.
  await p.getByRole('link', { name: '← New insight' }).click();
  await p.getByRole('radio', { name: 'Funnel' }).check();
  await p.getByLabel('Step 1 event').fill('order_paid');
  await p.getByLabel('Step 2 event').fill('order_paid');
  await p.getByLabel('Breakdown by').selectOption('event');
  await p.getByLabel('Breakdown property').fill('plan');
  await p.getByRole('button', { name: 'Show funnel' }).click();
  await p.getByRole('table', { name: 'Steps: pro' }).waitFor();
  assert.is(await p.getByRole('table', { name: 'Steps: pro' }).getByRole('row').nth(1).locator('td').nth(1).innerText(), '2');
  await accessible(p, 'funnel with a breakdown');
});

s('a trend of two series, one filtered on a cohort, and a funnel filtered on a cohort: saved and reopened as built', async () => {
  const p = await opened();
  // Three people (two gold): each visits; c1 buys twice, c3 once.
  // Visits a minute before the buys, so each funnel's steps come in order.
  const ev = (event: string, who: string, tier?: string) => ({
    event, distinct_id: who, timestamp: new Date(Date.now() - (event === 'visit' ? 120_000 : 60_000)).toISOString(), properties: tier ? { $set: { tier } } : {},
  });
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [
    ev('visit', 'c1', 'gold'), ev('visit', 'c2', 'gold'), ev('visit', 'c3', 'silver'), ev('buy', 'c1'), ev('buy', 'c1'), ev('buy', 'c3'),
  ] });
  await t.applied();
  const auth = { Authorization: `Bearer ${t.personalKey}` };
  const made = await request(`${t.url}/api/projects/${t.projectId}/cohorts/`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({
    name: 'Gold members', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'tier', type: 'person', operator: 'exact', value: ['gold'] }] }] } },
  }) });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const cohort = made.body.id as number;
  // A fresh builder (the page is mounted anew, so no earlier form carries over).
  await p.getByRole('link', { name: 'Status' }).click();
  await p.getByText('This node is ready.').waitFor();
  await p.getByRole('link', { name: 'Insights' }).click();
  await p.getByRole('radio', { name: 'Trend' }).check();
  const first = p.getByRole('group', { name: 'Series 1', exact: true });
  await first.getByLabel('Event', { exact: true }).fill('visit');
  await first.getByRole('button', { name: 'Add series 1 filter' }).click();
  await p.getByLabel('Series 1 filter 1 on').selectOption('cohort');
  await p.getByLabel('Series 1 filter 1 cohort').selectOption({ label: 'Gold members' });
  await p.getByRole('button', { name: 'Add series', exact: true }).click();
  const second = p.getByRole('group', { name: 'Series 2', exact: true });
  await second.getByLabel('Event', { exact: true }).fill('buy');
  await accessible(p, 'trend of two series with a cohort filter');
  await p.getByRole('button', { name: 'Show trend' }).click();
  const results = p.getByRole('table', { name: 'Results' });
  await results.waitFor();
  // A row per series: visits by the gold cohort only (c1, c2), every buy (3).
  const totals = Object.fromEntries((await results.locator('tbody tr').allInnerTexts()).map((r) => { const c = r.split('\t'); return [c[0], c.at(-1)]; }));
  assert.equal(totals, { visit: '2', buy: '3' });
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  const saved = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: auth });
  const trend = saved.body.results.find((i: { name: string }) => i.name === 'visit count & buy count');
  assert.ok(trend, JSON.stringify(saved.body.results.map((i: { name: string }) => i.name)));
  assert.equal(trend.query.source.series.map((x: { event: string; math: string; properties?: unknown }) => [x.event, x.math, x.properties]), [
    ['visit', 'total', [{ key: 'id', type: 'cohort', operator: 'in', value: cohort }]], ['buy', 'total', undefined],
  ]);
  // Reopened: both series as built.
  await p.getByRole('link', { name: 'visit count & buy count' }).click();
  await p.getByRole('table', { name: 'Results' }).waitFor();
  assert.equal([
    await first.getByLabel('Event', { exact: true }).inputValue(), await p.getByLabel('Series 1 filter 1 on').inputValue(),
    await p.getByLabel('Series 1 filter 1 cohort').inputValue(), await second.getByLabel('Event', { exact: true }).inputValue(),
  ], ['visit', 'cohort', String(cohort), 'buy']);
  // The second series removed: one again.
  await p.getByRole('button', { name: 'Remove series 2' }).click();
  assert.is(await p.getByRole('group', { name: 'Series 2', exact: true }).count(), 0);

  // A funnel of the gold cohort: both visited, c1 bought.
  await p.getByRole('link', { name: '← New insight' }).click();
  await p.getByRole('radio', { name: 'Funnel' }).check();
  await p.getByLabel('Step 1 event').fill('visit');
  await p.getByLabel('Step 2 event').fill('buy');
  await p.getByRole('button', { name: 'Add filter', exact: true }).click();
  await p.getByLabel('Filter 1 on', { exact: true }).selectOption('cohort');
  await p.getByLabel('Filter 1 cohort', { exact: true }).selectOption({ label: 'Gold members' });
  await accessible(p, 'funnel with a cohort filter');
  await p.getByRole('button', { name: 'Show funnel' }).click();
  const steps = p.getByRole('table', { name: 'Steps' });
  await steps.waitFor();
  assert.equal(await steps.locator('tbody tr td:nth-child(3)').allInnerTexts(), ['2', '1']);
  await p.getByRole('button', { name: 'Save insight' }).click();
  await p.getByRole('status').filter({ hasText: 'Saved as insight' }).waitFor();
  const funnels = await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: auth });
  const funnel = funnels.body.results.find((i: { name: string }) => i.name === 'Funnel: visit → buy');
  assert.equal(funnel?.query.source.properties, [{ key: 'id', type: 'cohort', operator: 'in', value: cohort }]);
  await p.getByRole('link', { name: 'Funnel: visit → buy' }).click();
  await p.getByRole('table', { name: 'Steps' }).waitFor();
  assert.equal([await p.getByLabel('Filter 1 on', { exact: true }).inputValue(), await p.getByLabel('Filter 1 cohort', { exact: true }).inputValue()], ['cohort', String(cohort)]);
});

s('a dashboard of two saved insights draws both charts, refreshes and exports a PNG', async () => {
  const p = await opened();
  await p.getByRole('link', { name: 'Dashboards' }).click();
  await p.getByRole('heading', { name: 'Dashboards', exact: true }).waitFor();
  await p.getByLabel('Name').fill('Shop');
  await p.getByRole('button', { name: 'Create dashboard' }).click();
  await p.getByRole('heading', { name: 'Shop' }).waitFor();
  await p.getByText('No tiles yet').waitFor();
  for (const name of ['checkout_done count', 'Funnel: cart_opened → cart_paid']) {
    await p.getByLabel('Saved insight').selectOption({ label: name });
    await p.getByRole('button', { name: 'Add insight' }).click();
    await p.getByRole('heading', { name }).waitFor();
  }
  await p.getByLabel('Text card').fill('Numbers of the shop');
  await p.getByRole('button', { name: 'Add text' }).click();
  await p.getByText('Numbers of the shop').waitFor();
  // Both tiles drawn by the exports' builder: each SVG carries its insight's title.
  await p.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ innerHTML: string }> } }).document;
    const charts = Array.from(doc.querySelectorAll('.tile .chart svg'));
    return charts.length === 2 && charts[0].innerHTML.includes('checkout_done count') && charts[1].innerHTML.includes('cart_paid');
  });
  await accessible(p, 'dashboard');
  await p.getByRole('button', { name: 'Refresh' }).click();
  await p.getByRole('status').filter({ hasText: 'Computed' }).waitFor();
  await p.getByRole('button', { name: 'Export PNG' }).click();
  const link = p.getByRole('link', { name: 'Download PNG' });
  await link.waitFor();
  const png = await p.context().request.get(new URL(String(await link.getAttribute('href')), t.url).toString());
  assert.is(png.status(), 200);
  assert.is(png.headers()['content-type'], 'image/png');
  assert.equal([...(await png.body()).subarray(1, 4)], [0x50, 0x4e, 0x47]);
  const listed = await request(`${t.url}/api/projects/${t.projectId}/dashboards`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.equal(listed.body.results.map((d: { name: string }) => d.name), ['Shop']);
  // Laid out by a button and by the keyboard, saved to the tiles' `layouts` (PostHog's `sm`).
  const dashboardId = listed.body.results[0].id as number;
  await p.getByRole('button', { name: 'Edit layout' }).click();
  await p.getByRole('button', { name: 'Wider checkout_done count' }).click();
  const tile = p.getByRole('region', { name: 'checkout_done count' });
  await tile.focus();
  await p.keyboard.press('ArrowDown');
  await tile.getByText('Column 1, row 2, 7 wide, 5 tall').waitFor();
  await accessible(p, 'dashboard layout mode');
  await p.getByRole('button', { name: 'Save layout' }).click();
  await p.getByRole('button', { name: 'Edit layout' }).waitFor();
  const laid = await request(`${t.url}/api/projects/${t.projectId}/dashboards/${dashboardId}`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  const tiles = laid.body.tiles as { insight: { name: string } | null; text: { body: string } | null; layouts: { sm: { x: number; y: number; w: number; h: number } } }[];
  assert.equal(tiles.find((x) => x.insight?.name === 'checkout_done count')?.layouts.sm, { x: 0, y: 1, w: 7, h: 5 });
  // Whatever the wider, lower tile now covers went below it.
  const text = tiles.find((x) => x.text)!.layouts.sm;
  assert.ok(text.y >= 6, JSON.stringify(text));
  // Reopened as saved; the text tile removed; the dashboard renamed.
  await p.reload();
  await p.getByRole('button', { name: 'Edit layout' }).click();
  await p.getByRole('region', { name: 'checkout_done count' }).getByText('Column 1, row 2, 7 wide, 5 tall').waitFor();
  await p.getByRole('button', { name: 'Remove Text: Numbers of the shop' }).click();
  await p.getByText('Numbers of the shop', { exact: true }).waitFor({ state: 'detached' });
  await p.getByRole('button', { name: 'Cancel layout' }).click();
  await p.getByRole('button', { name: 'Rename' }).click();
  await p.getByLabel('Dashboard name').fill('Shop floor');
  await accessible(p, 'dashboard rename');
  await p.getByRole('button', { name: 'Save name' }).click();
  await p.getByRole('heading', { name: 'Shop floor' }).waitFor();
  const after = await request(`${t.url}/api/projects/${t.projectId}/dashboards/${dashboardId}`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.is(after.body.name, 'Shop floor');
  assert.equal(after.body.tiles.map((x: { insight: { name: string } | null }) => x.insight?.name).sort(), ['Funnel: cart_opened → cart_paid', 'checkout_done count']);
});

s('a webhook made from its template delivers, shows its logs, and is switched off', async () => {
  const p = await opened();
  await p.getByRole('link', { name: 'Hog functions' }).click();
  await p.getByRole('heading', { name: 'Hog functions', exact: true }).waitFor();
  await p.getByRole('button', { name: 'New from template' }).click();
  await p.getByLabel('Template').selectOption({ label: 'HTTP Webhook' });
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
  await p.getByLabel('Webhook URL (required)').fill(sinkUrl);
  await p.getByLabel('Method').selectOption('PUT');
  await p.getByLabel('Headers key 1').waitFor();
  await p.getByRole('button', { name: 'Add headers entry' }).click();
  await p.getByLabel('Headers key 3').fill('X-From');
  await p.getByLabel('Headers value 3').fill('hedgerow-app');
  await p.getByLabel('Log responses').check();
  await accessible(p, 'new hog function');
  await p.getByRole('button', { name: 'Create function' }).click();
  await p.getByRole('heading', { name: 'Metrics' }).waitFor();
  const made = await request(`${t.url}/api/projects/${t.projectId}/hog_functions`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.is(made.body.results.length, 1);
  const id = made.body.results[0].id as string;
  const full = await request(`${t.url}/api/projects/${t.projectId}/hog_functions/${id}`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.is(full.body.inputs.url.value, sinkUrl);
  assert.is(full.body.inputs.method.value, 'PUT');
  assert.is(full.body.inputs.headers.value['X-From'], 'hedgerow-app');
  assert.is(full.body.enabled, true);

  await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'webhook_me', distinct_id: 'hooked', properties: {} });
  // Delivered (a delivery runs after the consumer has taken the event), then its log lines.
  await eventually(async () => delivered.some((b) => b.includes('webhook_me')));
  const logs = p.getByRole('table', { name: 'Logs' });
  await eventually(async () => {
    await p.getByRole('button', { name: 'Reload logs' }).click();
    return (await logs.getByText('Response', { exact: false }).count()) > 0;
  });
  await accessible(p, 'hog function');
  await p.getByRole('checkbox', { name: 'HTTP Webhook enabled' }).uncheck();
  await p.getByText('off', { exact: true }).waitFor();
  const after = await request(`${t.url}/api/projects/${t.projectId}/hog_functions/${id}`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.is(after.body.enabled, false);
  await p.getByRole('link', { name: '← All hog functions' }).click();
  await p.getByRole('row', { name: /HTTP Webhook/ }).getByText('off').waitFor();
  // Edited after creation: the creation form filled with what is stored, filters added, switched on again.
  await p.getByRole('link', { name: 'HTTP Webhook' }).click();
  await p.getByRole('button', { name: 'Edit function' }).click();
  assert.equal([await p.getByLabel('Webhook URL (required)').inputValue(), await p.getByLabel('Method').inputValue(), await p.getByLabel('Headers value 3').inputValue()],
    [sinkUrl, 'PUT', 'hedgerow-app']);
  await p.getByLabel('Name', { exact: true }).fill('Order hook');
  await p.getByLabel('Enabled', { exact: true }).check();
  await p.getByRole('button', { name: 'Add event' }).click();
  await p.getByLabel('Event 1').fill('order_placed');
  await p.getByRole('button', { name: 'Add filter' }).click();
  await p.getByLabel('Filter 1 property').fill('tier');
  await p.getByLabel('Filter 1 value').fill('gold');
  await accessible(p, 'hog function edit form');
  await p.getByRole('button', { name: 'Save function' }).click();
  await p.getByRole('heading', { name: 'Order hook' }).waitFor();
  const edited = await request(`${t.url}/api/projects/${t.projectId}/hog_functions/${id}`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
  assert.is(edited.body.enabled, true);
  assert.is(edited.body.inputs.url.value, sinkUrl);
  assert.equal(edited.body.filters.events.map((e: { id: string }) => e.id), ['order_placed']);
  assert.equal(edited.body.filters.properties, [{ key: 'tier', type: 'event', operator: 'exact', value: ['gold'] }]);
  // A test invocation through the API's …/invocations, its fetch mocked: an event the filters
  // pass, then one they leave out.
  const before = delivered.length;
  await p.getByLabel('Test event (JSON)').fill(JSON.stringify({ event: 'order_placed', distinct_id: 'tester', properties: { tier: 'gold' } }));
  await p.getByRole('button', { name: 'Test function' }).click();
  await p.getByRole('status').filter({ hasText: 'Test success' }).waitFor();
  await p.getByRole('table', { name: 'Test logs' }).getByText("Async function 'fetch' was mocked", { exact: false }).waitFor();
  await p.getByLabel('Test event (JSON)').fill(JSON.stringify({ event: 'order_placed', distinct_id: 'tester', properties: { tier: 'silver' } }));
  await p.getByRole('button', { name: 'Test function' }).click();
  await p.getByRole('status').filter({ hasText: 'Test skipped' }).waitFor();
  assert.is(delivered.length, before);
  await accessible(p, 'hog function test invocation');
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
