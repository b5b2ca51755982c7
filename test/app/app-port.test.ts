// HEDGEROW_APP_PORT: the web app on a listener of its own (the API beside it, since the
// app calls it on its own origin), and PORT then serves no page; `off` serves none at all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, request, bearer, type TestServer } from '../helpers/server.js';

const s = suite('web app port');
let t: TestServer;

s.before(async () => { t = await startTestServer({ consumers: [], env: { HEDGEROW_APP_PORT: '0' } }); });
s.after(async () => { await t?.close(); });

s('the page on its own port, the API on both, no page on PORT', async () => {
  const appPort = t.server.appPort;
  assert.type(appPort, 'number');
  assert.is.not(appPort, t.server.port);
  const app = `http://127.0.0.1:${appPort}`;
  const page = await fetch(`${app}/`);
  assert.is(page.status, 200);
  // The entry module, under the version of the app's files.
  const main = /<script type="module" src="(\/app\/v\/[\w-]+\/web\/main.js)">/.exec(await page.text())?.[1];
  assert.ok(main);
  assert.is((await fetch(`${app}${main}`)).status, 200);
  assert.is((await request(`${app}/api/users/@me`, { headers: bearer(t.personalKey) })).status, 200);
  assert.is((await fetch(`${t.url}/`)).status, 404);
  assert.is((await fetch(`${t.url}${main}`)).status, 404);
  assert.is((await request(`${t.url}/api/users/@me`, { headers: bearer(t.personalKey) })).status, 200);
});

s('a port that is not a number, same or off is refused when the settings are read', async () => {
  const { parseSettings } = await import('../../src/settings.js');
  assert.throws(() => parseSettings({ HEDGEROW_APP_PORT: 'elsewhere' }), /HEDGEROW_APP_PORT must be same, off or a port number/);
  assert.is(parseSettings({ HEDGEROW_APP_PORT: 'off' }).config.app.port, 'off');
  assert.is(parseSettings({}).config.app.port, 'same');
});

s.run();
