// Screenshots of the web app's pages for the README (docs/app/*.png): a server on a
// temporary data dir with a little made-up data (events, persons, flags, a saved trend),
// a signed-in Chromium (Debian's, through playwright-core), one picture per page.
// Not a test: run it after changing a page, and commit the pictures.
//   npm run build && node dist/bench/app-screenshots.js
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startTestServer, postJson, bearer, NO_DESTINATIONS } from '../test/helpers/server.js';
import { addUser } from '../test/helpers/users.js';
import { OrgLevel } from '../src/access/index.js';
import { setPassword } from '../src/access/sessions/commands.js';
import { hashPassword } from '../src/access/sessions/password.js';

const OUT = fileURLToPath(new URL('../../docs/app/', import.meta.url));
const EMAIL = 'ada@example.com';
const PASSWORD = 'screenshots only';

const t = await startTestServer({ consumers: NO_DESTINATIONS });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const { user } = await addUser(t, { level: OrgLevel.admin, email: EMAIL });
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD) });

  // A week of a small shop: pageviews and sign-ups by a dozen people.
  const now = Date.now();
  const batch: object[] = [];
  for (let i = 0; i < 240; i++) {
    const who = `user-${i % 12}`;
    const ts = new Date(now - ((i * 2_520_000) % (7 * 86_400_000))).toISOString();
    batch.push({ event: '$pageview', distinct_id: who, timestamp: ts, properties: { $current_url: `https://shop.example/${['', 'pricing', 'docs', 'blog'][i % 4]}`, $browser: ['Chrome', 'Firefox', 'Safari'][i % 3] } });
    if (i % 9 === 0) batch.push({ event: 'signed_up', distinct_id: who, timestamp: ts, properties: { plan: i % 2 ? 'pro' : 'free', $set: { email: `${who}@example.com`, plan: i % 2 ? 'pro' : 'free' } } });
  }
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch });
  for (const [key, rollout, name] of [['new-checkout', 50, 'The one-page checkout'], ['dark-mode', 100, 'Dark theme for everyone'], ['beta-reports', 10, 'Reports beta']] as const) {
    await postJson(`${t.url}/api/projects/${t.projectId}/feature_flags/`, { key, name, active: key !== 'beta-reports', filters: { groups: [{ properties: [], rollout_percentage: rollout }] } }, bearer(t.personalKey));
  }
  await t.applied();

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
  await page.getByRole('link', { name: 'Persons' }).click();
  await page.getByRole('link', { name: 'user-3@example.com' }).click();
  await page.getByRole('heading', { name: 'Properties' }).waitFor();
  await shot('person');
  await page.getByRole('link', { name: 'Insights' }).click();
  await page.getByRole('button', { name: 'Show trend' }).click();
  await page.locator('.chart svg').waitFor();
  await shot('insights');
  await page.getByRole('link', { name: 'Status' }).click();
  await page.getByText('This node is ready.').waitFor();
  await shot('status');
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await t.close();
}
