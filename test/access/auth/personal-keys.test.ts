// Where a personal API key may travel, what is stored of it, and its last use.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, NO_CONSUMERS, request, bearer, postJson, eventually, type TestServer } from '../../helpers/server.js';
import { hashKey } from '../../../src/access/tenancy/keys.js';

const s = suite('personal API keys');
let t: TestServer;

// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t.close(); });

s('the key is accepted as Bearer header, JSON body field or query parameter', async () => {
  assert.is((await request(`${t.url}/api/users/@me/`, { headers: bearer(t.personalKey) })).status, 200);
  assert.is((await request(`${t.url}/api/users/@me/?personal_api_key=${t.personalKey}`)).status, 200);
  const viaBody = await postJson(`${t.url}/api/projects/`, { personal_api_key: t.personalKey, name: 'Body auth' });
  assert.is(viaBody.status, 201);
  assert.is(viaBody.body.name, 'Body auth');
});

s('only the hash is stored; last_used_at is set on use', async () => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const { key, record } = await t.server.tenancy.createPersonalKey(owner.id, ['user:read'], null, 'fresh');
  assert.is(record.secure_value, hashKey(key));
  assert.not.ok(JSON.stringify(t.server.tenancy.personalKeys()).includes(key));
  assert.is(record.last_used_at, null);
  const sending = Date.now();
  assert.is((await request(`${t.url}/api/users/@me/`, { headers: bearer(key) })).status, 200);
  const used = await eventually(async () => t.server.tenancy.personalKeyByHash(record.secure_value)?.last_used_at);
  // The time of that request.
  assert.ok(Date.parse(used) >= sending && Date.parse(used) <= Date.now(), used);
});

s('a revoked key is refused at once and never revived by its last use', async () => {
  const owner = t.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const { key, record } = await t.server.tenancy.createPersonalKey(owner.id, ['user:read'], null, 'short-lived');
  assert.is((await request(`${t.url}/api/users/@me/`, { headers: bearer(key) })).status, 200);
  await t.server.tenancy.revokePersonalKey(record.id);
  const r = await request(`${t.url}/api/users/@me/`, { headers: bearer(key) });
  assert.is(r.status, 401);
  assert.is(r.body.detail, 'Personal API key found in request Authorization header is invalid.');
  // Management writes are applied in the order they were submitted: once a write submitted
  // after the requests above is applied (revoking it again changes nothing), so is any
  // last-use write they caused.
  await t.server.tenancy.revokePersonalKey(record.id);
  assert.is(t.server.tenancy.personalKeyByHash(record.secure_value), undefined);
});

s.run();
