// The web app over HTTP: its files (types, caching, no traversal), sign-in with a password,
// the session cookie standing for the user under the same rules as their personal key,
// CSRF, failed sign-ins limited, sign-out, the live events tail and the status route.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, request, postJson, bearer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { clearSignInFailures, failureOf, recordSignInFailures, setPassword } from '../../src/access/sessions/commands.js';
import { hashPassword, verifyPassword } from '../../src/access/sessions/password.js';
import { OrgLevel } from '../../src/access/index.js';

const s = suite('web app over HTTP');
let t: TestServer;
const PASSWORD = 'correct horse battery';
// Stored with a small scrypt cost so the many sign-ins here stay quick; the default's own
// test is below.
const CHEAP = 1 << 10;
let email: string;
let userId: number;

// Each test signs in from an address of its own, so the per-address limit of one does not
// spill into the next.
let address = 0;
// The app's header goes with every sign-in, as the app sends it (a login is a write: CSRF).
const from = () => ({ 'X-Forwarded-For': `203.0.113.${++address}`, 'X-Hedgerow-App': '1' });

async function signIn(who = email, password = PASSWORD, headers: Record<string, string> = from()) {
  return postJson(`${t.url}/api/login`, { email: who, password }, headers);
}

function cookieOf(res: { headers: Headers }): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0];
}

s.before(async () => {
  t = await startTestServer({ consumers: [], env: { HEDGEROW_SIGNIN_ATTEMPTS: '3' } });
  const { user } = await addUser(t, { level: OrgLevel.member, email: 'ada@example.com' });
  email = user.email;
  userId = user.id;
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD, CHEAP) });
});

s.after(async () => { await t?.close(); });

s('passwords: scrypt at N=2^15, r=8, salted, verified only by the same password', async () => {
  const a = await hashPassword(PASSWORD);
  const b = await hashPassword(PASSWORD);
  assert.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.is.not(a, b);
  assert.ok(await verifyPassword(PASSWORD, a));
  assert.not.ok(await verifyPassword(`${PASSWORD}!`, a));
  assert.not.ok(await verifyPassword(PASSWORD, 'sha256$whatever'));
});

// The page's entry module, style sheet and import map: where the app's own files are.
function pageParts(html: string) {
  const map = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)![1]) as { imports: Record<string, string> };
  const entry = /<script type="module" src="([^"]+)">/.exec(html)![1];
  const style = /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1];
  // /app/v/<version>/: every file of the app's own, cached for good (a new version is new URLs).
  const base = /^(\/app\/v\/[\w-]+\/)web\/main\.js$/.exec(entry)![1];
  return { map, entry, style, base };
}

s('the page and its files: content types, caching, 304 on a matching ETag', async () => {
  const page = await fetch(`${t.url}/`);
  assert.is(page.status, 200);
  assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(page.headers.get('cache-control'), 'no-cache');
  assert.is(page.headers.get('x-content-type-options'), 'nosniff');
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self' 'sha256-/);
  const html = await page.text();
  const { map, entry, style, base } = pageParts(html);
  assert.match(map.imports.preact, /^\/app\/vendor\/preact@\d+\.\d+\.\d+\/preact\.mjs$/);
  assert.is(style, `${base}web/app.css`);
  for (const name of ['hedgerow/chart', 'hedgerow/layout']) assert.ok(map.imports[name].startsWith(`${base}dist/`), name);
  // The modules every load needs are named up front; ECharts and the drawing wait for a chart.
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  // The entry's static import graph: web/'s pages and parts, the libraries (hooks through the
  // map) and the compiled chart builder and grid with their relative imports.
  for (const url of [
    entry, `${base}web/chart.js`, `${base}web/insight-filters.js`, `${base}web/tile-layout.js`, map.imports.preact, map.imports['preact/hooks'], map.imports.htm,
    map.imports['hedgerow/chart'], map.imports['hedgerow/layout'], `${base}dist/src/exports/chart/funnels.js`,
  ]) assert.ok(preloaded.includes(url), url);
  assert.is(new Set(preloaded).size, preloaded.length);
  assert.not.ok(preloaded.includes(map.imports.echarts));
  assert.not.ok(preloaded.includes(`${base}web/draw.js`));
  assert.is((await request(`${t.url}${base}web/draw.js`)).status, 200);
  for (const url of preloaded) assert.is((await request(`${t.url}${url}`)).status, 200, url);

  const preact = await request(`${t.url}${map.imports.preact}`);
  assert.is(preact.status, 200);
  assert.is(preact.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(preact.headers.get('cache-control'), 'public, max-age=31536000, immutable');

  const main = await request(`${t.url}${entry}`);
  assert.is(main.status, 200);
  assert.is(main.headers.get('content-type'), 'text/javascript; charset=utf-8');
  // The app's own files are cached for good too: the page names their version.
  assert.is(main.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const etag = main.headers.get('etag')!;
  assert.ok(etag);
  const again = await fetch(`${t.url}${entry}`, { headers: { 'If-None-Match': etag } });
  assert.is(again.status, 304);
  assert.is(await again.text(), '');
  const css = await request(`${t.url}${style}`);
  assert.is(css.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.is(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // Only the version the page names: the unversioned address and another version are 404s.
  assert.is((await request(`${t.url}/app/web/main.js`)).status, 404);
  assert.is((await request(`${t.url}/app/v/AAAAAAAAAAAAAAAA/web/main.js`)).status, 404);

  // The chart builder the exports run, compiled, with every module it imports.
  const chart = await fetch(`${t.url}${map.imports['hedgerow/chart']}`);
  assert.is(chart.status, 200);
  assert.match(await chart.text(), /export function buildChartOption/);
  const trends = await request(`${t.url}${base}dist/src/exports/chart/trends.js`);
  assert.is(trends.status, 200);
  // The dashboard grid the PNG/PDF exports lay tiles out on, which the dashboards page uses.
  const layout = await fetch(`${t.url}${map.imports['hedgerow/layout']}`);
  assert.is(layout.status, 200);
  assert.match(await layout.text(), /export function gridBoxes/);
});

s('no path reaches a file outside the table', async () => {
  const { base } = pageParts(await (await fetch(`${t.url}/`)).text());
  for (const path of [
    '/app/web/../../package.json', '/app/web/..%2F..%2Fpackage.json', '/app/web/%2e%2e/%2e%2e/package.json', '/app/vendor/../../../etc/passwd',
    '/app/dist/src/settings.js', '/app/web/', '/app/web/nope.js', '/app/dist/src/exports/chart/draw.js',
    `${base}web/../../../../package.json`, `${base}web/..%2F..%2F..%2F..%2Fpackage.json`, `${base}dist/src/settings.js`, `${base}web/`, `${base}web/nope.js`,
  ]) {
    const res = await fetch(`${t.url}${path}`);
    assert.is(res.status, 404, path);
    const body = await res.json() as { type: string };
    assert.is(body.type, 'invalid_request', path);
  }
});

s('sign-in: a wrong password and an unknown email answer alike; the right one sets an HttpOnly, SameSite=Lax cookie', async () => {
  const wrong = await signIn(email, 'not the password');
  assert.is(wrong.status, 400);
  assert.equal(wrong.body, { type: 'validation_error', code: 'invalid_credentials', detail: 'Invalid email or password.', attr: null });
  const nobody = await signIn('nobody@example.com', PASSWORD);
  assert.equal(nobody.body, wrong.body);
  const missing = await postJson(`${t.url}/api/login`, { email }, from());
  assert.is(missing.status, 400);
  assert.is(missing.body.attr, 'password');
  // Without the app's header (a form another site posts): refused before any password is read.
  const forged = await postJson(`${t.url}/api/login`, { email, password: PASSWORD }, { 'X-Forwarded-For': '198.51.100.1' });
  assert.is(forged.status, 403);
  assert.is(forged.body.code, 'csrf_failed');

  const ok = await signIn(email.toUpperCase());
  assert.is(ok.status, 200);
  assert.is(ok.body.email, email);
  const set = ok.headers.get('set-cookie')!;
  assert.match(set, /^hedgerow_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  // Behind a TLS proxy the cookie is Secure.
  const tls = await signIn(email, PASSWORD, { ...from(), 'X-Forwarded-Proto': 'https' });
  assert.match(tls.headers.get('set-cookie')!, /; Secure$/);
  // Only the token's hash is stored.
  const token = cookieOf(ok).split('=')[1];
  const stored = JSON.stringify([...t.server.store.tenancy.getRange({ start: ['session'], end: ['session', '\uffff'] })]);
  assert.not.ok(stored.includes(token));
});

s('the cookie is the user: the API answers as their personal key would, explicit members included', async () => {
  const cookie = cookieOf(await signIn());
  const me = await request(`${t.url}/api/users/@me`, { headers: { Cookie: cookie } });
  assert.is(me.status, 200);
  assert.is(me.body.email, email);
  const flags = await request(`${t.url}/api/projects/@current/feature_flags`, { headers: { Cookie: cookie } });
  assert.is(flags.status, 200);

  // A project with access control the user is no explicit member of: refused as their key is.
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const closed = await t.server.tenancy.createProject(owner.organization_id, 'closed', { access_control: true });
  const byCookie = await request(`${t.url}/api/projects/${closed.id}/feature_flags`, { headers: { Cookie: cookie } });
  const { key } = await t.server.tenancy.createPersonalKey(userId, ['*'], null, 'same user');
  const byKey = await request(`${t.url}/api/projects/${closed.id}/feature_flags`, { headers: bearer(key) });
  assert.is(byKey.status, 403);
  assert.is(byCookie.status, byKey.status);
  assert.equal(byCookie.body, byKey.body);

  // Without a cookie or with a made-up one: 401.
  assert.is((await request(`${t.url}/api/users/@me`)).status, 401);
  const forged = await request(`${t.url}/api/users/@me`, { headers: { Cookie: 'hedgerow_session=forged' } });
  assert.is(forged.status, 401);
  assert.is(forged.body.type, 'authentication_error');
});

s('writes under a session need the app header and this origin (CSRF)', async () => {
  const cookie = cookieOf(await signIn());
  const url = `${t.url}/api/projects/@current/feature_flags`;
  const body = JSON.stringify({ key: 'csrf-check', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const bare = await request(url, { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body });
  assert.is(bare.status, 403);
  assert.is(bare.body.code, 'csrf_failed');
  const elsewhere = await request(url, {
    method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json', 'X-Hedgerow-App': '1', Origin: 'https://evil.example' }, body,
  });
  assert.is(elsewhere.status, 403);
  assert.is(elsewhere.body.code, 'csrf_failed');
  // Another origin may not read under the session either (CORS would let it).
  const read = await request(`${t.url}/api/users/@me`, { headers: { Cookie: cookie, Origin: 'https://evil.example' } });
  assert.is(read.status, 403);
  const host = new URL(t.url).host;
  const ok = await request(url, { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json', 'X-Hedgerow-App': '1', Origin: `http://${host}` }, body });
  assert.is(ok.status, 201);
  assert.is(ok.body.key, 'csrf-check');
  // A personal key needs neither (it is no ambient credential).
  const byKey = await request(url, { method: 'POST', headers: { ...bearer(t.personalKey), 'Content-Type': 'application/json' }, body: body.replace('csrf-check', 'by-key') });
  assert.is(byKey.status, 201);
});

s('failed sign-ins are limited per email and per address (429 with Retry-After)', async () => {
  const { user } = await addUser(t, { email: 'grace@example.com' });
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD, CHEAP) });
  // Per email: three failures from three addresses, then even the right password waits.
  for (let i = 0; i < 3; i++) assert.is((await signIn(user.email, 'wrong wrong')).status, 400);
  const limited = await signIn(user.email, PASSWORD);
  assert.is(limited.status, 429);
  assert.is(limited.body.type, 'throttled_error');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  // Per address: three failures for three emails, then the address waits for any email.
  const one = from();
  for (const who of ['a@example.com', 'b@example.com', 'c@example.com']) assert.is((await signIn(who, 'wrong wrong', one)).status, 400);
  assert.is((await signIn(email, PASSWORD, one)).status, 429);
  // Elsewhere the first user still signs in.
  assert.is((await signIn()).status, 200);
});

s('failed sign-ins are shared records: a window ends, and the next failure drops the windows that ended', async () => {
  const at = Date.now();
  const window_ms = 60_000;
  await t.server.writes.submit(recordSignInFailures, { keys: ['email:old@example.com', 'ip:192.0.2.1'], at, window_ms });
  await t.server.writes.submit(recordSignInFailures, { keys: ['email:old@example.com'], at: at + 1000, window_ms });
  assert.equal(failureOf(t.server.store, 'email:old@example.com'), { since: at, count: 2 });
  // Past the window: the key counts from one again, and the address's ended window is gone.
  await t.server.writes.submit(recordSignInFailures, { keys: ['email:old@example.com'], at: at + window_ms, window_ms });
  assert.equal(failureOf(t.server.store, 'email:old@example.com'), { since: at + window_ms, count: 1 });
  assert.is(failureOf(t.server.store, 'ip:192.0.2.1'), undefined);
  const indexed = [...t.server.store.tenancy.getRange({ start: ['signin_since', at], end: ['signin_since', at + window_ms - 1, '\uffff'] })];
  assert.equal(indexed, []);
  await t.server.writes.submit(clearSignInFailures, { key: 'email:old@example.com' });
  assert.is(failureOf(t.server.store, 'email:old@example.com'), undefined);
});

s('sign-out ends the session on the server, not only in the browser', async () => {
  const cookie = cookieOf(await signIn());
  assert.is((await request(`${t.url}/api/users/@me`, { headers: { Cookie: cookie } })).status, 200);
  const out = await request(`${t.url}/api/logout`, { method: 'POST', headers: { Cookie: cookie, 'X-Hedgerow-App': '1' } });
  assert.is(out.status, 204);
  assert.match(out.headers.get('set-cookie')!, /^hedgerow_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
  const after = await request(`${t.url}/api/users/@me`, { headers: { Cookie: cookie } });
  assert.is(after.status, 401);
});

s('a new password signs out the sessions the old one opened', async () => {
  const cookie = cookieOf(await signIn());
  await t.server.writes.submit(setPassword, { user_id: userId, hash: await hashPassword(PASSWORD, CHEAP) });
  assert.is((await request(`${t.url}/api/users/@me`, { headers: { Cookie: cookie } })).status, 401);
});

s('live events: a watcher gets what is captured after it is ready, filtered', async () => {
  const cookie = cookieOf(await signIn());
  const res = await fetch(`${t.url}/api/projects/@current/live_events?event=signed_up`, { headers: { Cookie: cookie } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/event-stream');
  const reader = res.body!.getReader();
  let text = '';
  const until = async (re: RegExp) => {
    while (!re.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${re}: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
  };
  await until(/event: ready/);
  const batch = [
    { event: 'pageview', distinct_id: 'u1', properties: {} },
    { event: 'signed_up', distinct_id: 'u1', properties: { plan: 'pro' } },
  ];
  const captured = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch });
  assert.is(captured.status, 200);
  await until(/\ndata: \[.*\]\n\n/);
  const events = JSON.parse(/\ndata: (\[.*\])\n\n/.exec(text)![1]) as { event: string; distinct_id: string; properties: Record<string, unknown> }[];
  assert.equal(events.map((e) => e.event), ['signed_up']);
  assert.is(events[0].distinct_id, 'u1');
  assert.is(events[0].properties.plan, 'pro');
  await reader.cancel();
});

s('status: readiness, each consumer and its lag', async () => {
  const cookie = cookieOf(await signIn());
  const status = await request(`${t.url}/api/app/status`, { headers: { Cookie: cookie } });
  assert.is(status.status, 200);
  assert.is(status.body.ready, true);
  assert.is(status.body.log.id, 'lmdb');
  assert.ok(Array.isArray(status.body.consumers));
  assert.is(status.body.control, null);
  assert.is(status.body.nodes, null);
  assert.is((await request(`${t.url}/api/app/status`)).status, 401);
});

s.run();
