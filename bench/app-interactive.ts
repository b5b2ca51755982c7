// "Each page interactive within 1 s on a local server" (issue 32), measured: a server with
// the made-up shop (./app-data.ts), a signed-in Chromium (Debian's, through playwright-core),
// and for each page a fresh load of its address (from about:blank: the HTML, the modules
// revalidated by ETag, the page's API calls) until its main control is there to use (a
// selector that appears only once the page's data is in: the flags' table, the dashboard's
// three charts drawn, …), read as the page's own performance.now() (ms since its navigation
// began). Several runs per page; min / median / max. The same-run reference is the floor of
// any page: the sign-in form of a signed-out load, which loads the same modules and asks
// the API one question. With --cold, each load is a first visit: a new browser context (an
// empty cache) holding only the session cookie.
//   npx tsc -p tsconfig.json && node dist/bench/app-interactive.js [--runs 7] [--cold]
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { EMAIL, PASSWORD, startShop } from './app-data.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const COLD = process.argv.includes('--cold');

const shop = await startShop();
const { t } = shop;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });

interface Target {
  name: string;
  hash: string;
  ready(p: Page): Promise<unknown>;
}

const countOf = (selector: string, n: number) => (p: Page) => p.waitForFunction(([s, k]) =>
  (globalThis as unknown as { document: { querySelectorAll(q: string): ArrayLike<unknown> } }).document.querySelectorAll(s as string).length >= (k as number), [selector, n]);

const TARGETS: Target[] = [
  { name: 'live events', hash: '#/events', ready: (p) => p.getByRole('status').filter({ hasText: 'Live' }).waitFor() },
  { name: 'feature flags', hash: '#/flags', ready: (p) => p.getByRole('checkbox', { name: 'new-checkout active' }).waitFor() },
  { name: 'flag + evaluations chart', hash: `#/flags/${shop.flagId}`, ready: countOf('.chart svg', 1) },
  { name: 'persons', hash: '#/persons', ready: (p) => p.getByRole('link', { name: 'user-3@example.com' }).waitFor() },
  { name: 'insights (builder)', hash: '#/insights', ready: (p) => p.getByRole('link', { name: 'Visit to sign-up' }).waitFor() },
  { name: 'saved funnel', hash: `#/insights/${shop.funnelId}`, ready: (p) => p.getByRole('table', { name: 'Steps' }).waitFor() },
  { name: 'dashboards', hash: '#/dashboards', ready: (p) => p.getByRole('link', { name: 'Shop overview' }).waitFor() },
  { name: 'dashboard (3 charts)', hash: `#/dashboards/${shop.dashboardId}`, ready: countOf('.tile .chart svg', 3) },
  { name: 'hog functions', hash: '#/functions', ready: (p) => p.getByRole('checkbox', { name: 'Orders to the warehouse enabled' }).waitFor() },
  { name: 'hog function + logs', hash: `#/functions/${shop.hookId}`, ready: (p) => p.getByRole('table', { name: 'Logs' }).waitFor() },
  { name: 'status', hash: '#/status', ready: (p) => p.getByText('This node is ready.').waitFor() },
];

// One fresh load: ms from the navigation's start to the control being there. Cold: in a
// context of its own with the cookies of `p`'s (none when signed out).
async function load(p: Page, hash: string, ready: (p: Page) => Promise<unknown>): Promise<number> {
  let context: BrowserContext | null = null;
  if (COLD) {
    const cookies = await p.context().cookies();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(cookies);
    p = await context.newPage();
  }
  try {
    await p.goto('about:blank');
    await p.goto(`${t.url}/${hash}`);
    await ready(p);
    return await p.evaluate(() => performance.now());
  } finally {
    await context?.close();
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const ms = (v: number) => `${Math.round(v)}`;

try {
  const rows: string[] = [];
  const report = (name: string, times: number[]) => {
    const { min, median, max } = stats(times);
    rows.push(`| ${name} | ${ms(min)} | ${ms(median)} | ${ms(max)} | ${max <= 1000 ? 'yes' : 'NO'} |`);
    process.stdout.write(`${name}: ${times.map(ms).join(' ')}\n`);
  };

  const out = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const floor: number[] = [];
  for (let i = 0; i < RUNS; i++) floor.push(await load(out, '#/events', (p) => p.getByRole('button', { name: 'Sign in' }).waitFor()));
  report('floor: sign-in form (signed out)', floor);
  await out.close();

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${t.url}/`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  for (const target of TARGETS) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await load(page, target.hash, target.ready));
    report(target.name, times);
  }
  process.stdout.write(`\n${RUNS} ${COLD ? 'first visits (empty cache)' : 'loads'} each, ms from navigation start to the page's main control\n| page | min | median | max | ≤ 1 s |\n|---|---|---|---|---|\n${rows.join('\n')}\n`);
} finally {
  await browser.close();
  await shop.close();
}
