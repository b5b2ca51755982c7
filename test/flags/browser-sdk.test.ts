// The real posthog-js, from its npm package, in headless Chromium (Debian's, driven by
// playwright-core) against a real hedgerow on another origin: the page loads the SDK,
// which fetches its remote config, captures, identifies and reads flags. No request may
// fail or answer 4xx/5xx, and events must arrive gzipped at /i/v0/e/, the endpoint the
// remote config names. Two bundles: array.js loads config.js as a script,
// array.no-external.js fetches the JSON config.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';
import { createFlag } from './serving.js';

const CHROMIUM = '/usr/bin/chromium';
const require = createRequire(import.meta.url);
const BUNDLES: Record<string, string> = {
  'array.js': readFileSync(require.resolve('posthog-js/dist/array.js'), 'utf8'),
  'array.no-external.js': readFileSync(require.resolve('posthog-js/dist/array.no-external.js'), 'utf8'),
};

const s = suite('posthog-js in a browser');
let t: TestServer;
let site: Server;
let siteUrl: string;
let browser: Browser | null = null;

// Launched by the first test rather than in `before`, so that a missing Chromium fails
// a test with this message (uvu does not print errors thrown by hooks).
async function launched(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  return browser;
}

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  await createFlag(t, { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(t, {
    key: 'pro-only',
    filters: { groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }], rollout_percentage: 100 }] },
  });
  // The site the SDK is embedded in: a page and the bundle, on an origin of its own.
  site = createServer((req, res) => {
    const name = req.url!.slice(1);
    if (BUNDLES[name]) {
      res.writeHead(200, { 'Content-Type': 'application/javascript' }).end(BUNDLES[name]);
    } else if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><head><title>shop</title></head><body><button>buy</button></body></html>');
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://localhost:${(site.address() as { port: number }).port}`;
});

s.after(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await t?.close();
});

interface Sent {
  path: string;
  query: URLSearchParams;
  body: Buffer | null;
}

interface PageResult {
  anonymousId: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

async function runPage(bundle: string, distinctId: string) {
  const context = await (await launched()).newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  const sent: Sent[] = [];
  const hedgerowPaths: string[] = [];
  page.on('requestfailed', (r) => problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.request().method()} ${r.url()}`); });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!t.url.endsWith(`:${url.port}`)) return;
    hedgerowPaths.push(url.pathname);
    if (r.method() === 'POST' && !url.pathname.startsWith('/flags') && !url.pathname.startsWith('/decide')) {
      sent.push({ path: url.pathname, query: url.searchParams, body: r.postDataBuffer() });
    }
  });
  try {
    await page.goto(`${siteUrl}/`);
    await page.addScriptTag({ url: `/${bundle}` });
    const result: PageResult = await page.evaluate(async ({ host, token, distinctId }) => {
      const w = globalThis as unknown as { posthog: any };
      const flagsLoaded = () => new Promise<Record<string, unknown>>((resolve) => {
        const stop = w.posthog.onFeatureFlags(() => {
          stop();
          resolve({ everyone: w.posthog.getFeatureFlag('everyone'), 'pro-only': w.posthog.getFeatureFlag('pro-only') });
        });
      });
      w.posthog.init(token, {
        api_host: host,
        // Chromium driven by playwright identifies as automated; posthog-js drops such events unless told not to.
        opt_out_useragent_filter: true,
        request_queue_config: { flush_interval_ms: 200 },
      });
      const before = await flagsLoaded();
      const anonymousId = w.posthog.get_distinct_id();
      w.posthog.capture('clicked buy', { button: 'buy' });
      const reloaded = flagsLoaded();
      w.posthog.identify(distinctId, { plan: 'pro' });
      const after = await reloaded;
      return { anonymousId, before, after };
    }, { host: t.url, token: t.projectKey, distinctId });
    return { page, context, result, problems, sent, hedgerowPaths };
  } catch (err) {
    await context.close();
    throw err;
  }
}

async function eventsOf(distinctId: string, n: number) {
  return eventually(async () => {
    const r = await request(`${t.url}/api/environments/${t.projectId}/events/?distinct_id=${encodeURIComponent(distinctId)}`, { headers: bearer(t.personalKey) });
    return r.body.results.length >= n ? r.body.results as Array<{ event: string; properties: Record<string, unknown> }> : null;
  }, 15_000);
}

for (const [bundle, configPath] of [['array.js', 'config.js'], ['array.no-external.js', 'config']] as const) {
  s(`${bundle}: remote config from /array/<token>/${configPath}, gzip to /i/v0/e/, identify and flags, no failed request`, async () => {
    const distinctId = `browser-${bundle}-${process.pid}`;
    const { context, result, problems, sent, hedgerowPaths } = await runPage(bundle, distinctId);
    try {
      assert.ok(hedgerowPaths.includes(`/array/${t.projectKey}/${configPath}`), `asked: ${hedgerowPaths.join(' ')}`);
      assert.equal(result.before, { everyone: true, 'pro-only': false });
      assert.equal(result.after, { everyone: true, 'pro-only': true });

      const anonymous = await eventsOf(result.anonymousId, 2);
      const names = anonymous.map((e) => e.event);
      assert.ok(names.includes('$pageview') && names.includes('clicked buy'), names.join(', '));
      assert.is(anonymous.find((e) => e.event === 'clicked buy')!.properties.button, 'buy');
      for (const e of anonymous) assert.is(e.properties.$lib, 'web');
      const identified = await eventsOf(distinctId, 1);
      const identify = identified.find((e) => e.event === '$identify');
      assert.ok(identify, identified.map((e) => e.event).join(', '));
      assert.is(identify!.properties.$anon_distinct_id, result.anonymousId);

      assert.ok(sent.length > 0, 'no capture request seen');
      // posthog-js fixes a request's endpoint when the event is captured and compresses when it
      // sends, so the first $pageview, captured before the config came, goes gzipped to /e/.
      // Everything captured later goes to /i/v0/e/, the endpoint the config names.
      const endpointOf = new Map<string, string>();
      for (const r of sent) {
        assert.ok(r.path === '/i/v0/e/' || r.path === '/e/', r.path);
        assert.ok(r.body && r.body[0] === 0x1f && r.body[1] === 0x8b, `a ${r.path} body is not gzip`);
        for (const e of JSON.parse(gunzipSync(r.body).toString()).batch) endpointOf.set(e.event, r.path);
      }
      assert.is(endpointOf.get('clicked buy'), '/i/v0/e/');
      assert.is(endpointOf.get('$identify'), '/i/v0/e/');
      assert.equal(problems, []);
    } finally {
      await context.close();
    }
  });
}

s.run();
