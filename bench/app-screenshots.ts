// Screenshots of the web app's pages for the README (docs/app/*.png): a server with a
// little made-up data (./app-data.ts), a signed-in Chromium (Debian's, through
// playwright-core), one picture per page.
// Not a test: run it after changing a page, and commit the pictures.
//   npm run build && node dist/bench/app-screenshots.js
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { postJson } from '../test/helpers/server.js';
import { EMAIL, PASSWORD, startShop } from './app-data.js';

const OUT = fileURLToPath(new URL('../../docs/app/', import.meta.url));

const shop = await startShop();
const { t } = shop;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  mkdirSync(OUT, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const shot = (name: string) => page.screenshot({ path: `${OUT}${name}.png`, fullPage: false });
  await page.goto(`${t.url}/`);
  await page.getByLabel('Email').fill(EMAIL);
  await shot('sign-in');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, event: 'checkout_done', distinct_id: 'user-3', properties: { basket: 'b-42', total: 31.5 } });
  await page.getByRole('button', { name: '$pageview' }).first().waitFor();
  await page.getByRole('button', { name: 'checkout_done' }).click();
  await shot('live-events');
  await page.getByRole('link', { name: 'Feature flags' }).click();
  await page.getByRole('cell', { name: 'new-checkout', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Edit new-checkout' }).click();
  await shot('feature-flags');
  await page.getByRole('link', { name: 'new-checkout' }).click();
  await page.locator('.chart svg').waitFor();
  await page.getByRole('heading', { name: 'Evaluations over time' }).scrollIntoViewIfNeeded();
  await shot('flag-evaluations');
  await page.getByRole('link', { name: 'Persons' }).click();
  await page.getByRole('link', { name: 'user-3@example.com' }).click();
  await page.getByRole('heading', { name: 'Properties' }).waitFor();
  await shot('person');
  await page.getByRole('link', { name: 'Insights' }).click();
  await page.getByRole('button', { name: 'Add filter' }).click();
  await page.getByLabel('Filter 1 property').fill('$current_url');
  await page.getByLabel('Filter 1 operator').selectOption('not_icontains');
  await page.getByLabel('Filter 1 value').fill('/blog');
  await page.getByLabel('Breakdown by').selectOption('event');
  await page.getByLabel('Breakdown property').fill('$current_url');
  // A second series: the sign-ups' unique users beside the pageviews.
  await page.getByRole('button', { name: 'Add series', exact: true }).click();
  await page.getByRole('group', { name: 'Series 2', exact: true }).getByLabel('Event', { exact: true }).fill('signed_up');
  await page.getByRole('group', { name: 'Series 2', exact: true }).getByLabel('Measure').selectOption('dau');
  await page.getByRole('button', { name: 'Show trend' }).click();
  await page.locator('.chart svg').waitFor();
  // Filling the second series scrolled the page: the picture starts at the builder's top.
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await shot('insights');
  await page.locator('.chart-wrap').scrollIntoViewIfNeeded();
  await shot('insights-breakdown');
  await page.getByRole('link', { name: 'Visit to sign-up' }).click();
  await page.getByRole('table', { name: 'Steps' }).waitFor();
  await shot('insights-funnel');
  await page.getByRole('link', { name: 'Returning visitors' }).click();
  await page.getByRole('table', { name: 'Cohorts' }).waitFor();
  await page.getByRole('table', { name: 'Cohorts' }).scrollIntoViewIfNeeded();
  await shot('insights-retention');
  await page.getByRole('link', { name: '← New insight' }).click();
  await page.getByRole('radio', { name: 'HogQL' }).check();
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.getByRole('table').first().waitFor();
  await shot('insights-hogql');
  await page.getByRole('link', { name: 'Dashboards' }).click();
  await page.getByRole('link', { name: 'Shop overview' }).click();
  await page.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('.tile .chart svg').length === 3);
  await shot('dashboard');
  await page.getByRole('button', { name: 'Edit layout' }).click();
  await page.getByRole('button', { name: 'Narrower Pageviews per day' }).click();
  await page.getByRole('region', { name: 'Visit to sign-up' }).focus();
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await shot('dashboard-layout');
  await page.getByRole('button', { name: 'Cancel layout' }).click();
  await page.getByRole('link', { name: 'Hog functions' }).click();
  await page.getByRole('link', { name: 'Orders to the warehouse' }).waitFor();
  await page.getByRole('button', { name: 'New from template' }).click();
  await page.getByLabel('Template').selectOption({ label: 'HTTP Webhook' });
  await shot('hog-functions');
  await page.getByRole('link', { name: 'Orders to the warehouse' }).click();
  await page.getByRole('table', { name: 'Logs' }).waitFor();
  await shot('hog-function');
  await page.getByRole('button', { name: 'Edit function' }).click();
  await page.getByRole('button', { name: 'Add filter' }).click();
  await page.getByLabel('Filter 1 property').fill('plan');
  await page.getByLabel('Filter 1 value').fill('pro');
  await page.getByRole('heading', { name: 'Filters' }).scrollIntoViewIfNeeded();
  await shot('hog-function-edit');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByLabel('Test event (JSON)').fill(JSON.stringify({ event: 'signed_up', distinct_id: 'user-3', properties: { plan: 'pro' } }, null, 2));
  await page.getByRole('button', { name: 'Test function' }).click();
  await page.getByRole('table', { name: 'Test logs' }).waitFor();
  await page.getByRole('heading', { name: 'Test' }).scrollIntoViewIfNeeded();
  await shot('hog-function-test');
  await page.getByRole('link', { name: 'Status' }).click();
  await page.getByText('This node is ready.').waitFor();
  await shot('status');
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await shop.close();
}
