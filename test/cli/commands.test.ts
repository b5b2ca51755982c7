// `hedgerow user add` and `hedgerow key create|list|revoke` as an operator runs them:
// separate processes on the data directory of a running server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startTestServer, NO_CONSUMERS, tempDir, request, bearer, type TestServer } from '../helpers/server.js';
import { cliRun } from '../helpers/cli-server.js';

const s = suite('user and key CLI');
let dataDir: string;
let t: TestServer;

const cli = (...args: string[]) => cliRun(dataDir, ...args);

const get = (path: string, key: string) => request(`${t.url}${path}`, { headers: bearer(key) });

s.before(async () => {
  dataDir = tempDir();
});
s.after(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

s('user add before init is refused', async () => {
  const r = await cli('user', 'add', '--email', 'early@example.com');
  assert.is(r.code, 1);
  assert.match(r.stderr, /run `hedgerow init` first/);
});

s('user add joins the organization at the given level', async () => {
  assert.is((await cli('init', '--json')).code, 0);
  // No log consumers: these commands and the members API never read what they apply.
  t = await startTestServer({ dataDir, consumers: NO_CONSUMERS });
  const r = await cli('user', 'add', '--email', 'Bob@Example.com', '--first-name', 'Bob', '--last-name', 'Builder', '--level', 'admin', '--json');
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.is(out.email, 'bob@example.com');
  assert.is(out.first_name, 'Bob');
  assert.is(out.last_name, 'Builder');
  assert.is(out.level, 8);
  const plain = await cli('user', 'add', '--email', 'carol@example.com');
  assert.is(plain.code, 0);
  assert.match(plain.stdout, /^user carol@example\.com added: id \d+, uuid [0-9a-f-]{36}, level member\n$/);
  const members = await get('/api/organizations/@current/members/', t.personalKey);
  const levels = Object.fromEntries(members.body.results.map((m: { user: { email: string }; level: number }) => [m.user.email, m.level]));
  assert.is(levels['bob@example.com'], 8);
  assert.is(levels['carol@example.com'], 1);
});

s('user add refuses a duplicate email, a bad level, no email', async () => {
  const [dup, king, none, remove] = await Promise.all([
    cli('user', 'add', '--email', 'BOB@example.com'),
    cli('user', 'add', '--email', 'x@example.com', '--level', 'king'),
    cli('user', 'add'),
    cli('user', 'remove'),
  ]);
  assert.is(dup.code, 1);
  assert.match(dup.stderr, /already exists/);
  assert.match(king.stderr, /--level must be member, admin or owner/);
  assert.is(none.code, 1);
  // No such command: a usage error, with the user commands' usage.
  assert.is(remove.code, 2);
  assert.match(remove.stderr, /unknown command "user remove"\nusage: hedgerow user add --email E/);
});

s('key create prints the key once; it works at once against the running server, within its scopes and projects', async () => {
  const r = await cli('key', 'create', '--email', 'bob@example.com', '--scopes', 'project:read,query:read', '--projects', '1', '--label', 'ci');
  assert.is(r.code, 0, r.stderr);
  const key = r.stdout.trim();
  assert.match(key, /^phx_[A-Za-z0-9]{47}$/);
  assert.is((await get('/api/projects/1/', key)).status, 200);
  assert.is((await get('/api/environments/1/events/', key)).status, 200);
  assert.is((await get('/api/users/@me/', key)).body.detail, "API key missing required scope 'user:read'");
  const other = await t.server.tenancy.createProject(t.server.tenancy.userByEmail('bob@example.com')!.organization_id, 'Two');
  assert.is((await get(`/api/projects/${other.id}/`, key)).body.detail, `API key does not have access to the requested project: ID ${other.id}.`);

  const list = await cli('key', 'list', '--json', '--email', 'bob@example.com');
  assert.is(list.code, 0);
  assert.not.match(list.stdout, key);
  const keys = JSON.parse(list.stdout);
  assert.is(keys.length, 1);
  assert.equal(Object.keys(keys[0]).sort(), ['created_at', 'id', 'label', 'last_used_at', 'mask_value', 'scoped_projects', 'scopes', 'user']);
  assert.equal(keys[0].scopes, ['project:read', 'query:read']);
  assert.equal(keys[0].scoped_projects, [1]);
  assert.is(keys[0].label, 'ci');
  assert.is(keys[0].mask_value, `${key.slice(0, 4)}...${key.slice(-4)}`);
  const table = await cli('key', 'list');
  assert.match(table.stdout, new RegExp(`${keys[0].id}\\s+phx_\\.\\.\\.${key.slice(-4)}\\s+bob@example\\.com\\s+ci\\s+project:read,query:read\\s+projects 1`));

  const revoked = await cli('key', 'revoke', '--id', keys[0].id);
  assert.is(revoked.code, 0);
  assert.match(revoked.stdout, /revoked key/);
  const after = await get('/api/projects/1/', key);
  assert.is(after.status, 401);
  assert.is(after.body.code, 'authentication_failed');
  assert.match((await cli('key', 'revoke', '--id', keys[0].id)).stderr, /no key with id/);
});

s('key create: * for everything; refuses unknown scopes, users and projects', async () => {
  const all = await cli('key', 'create', '--email', 'carol@example.com', '--scopes', '*', '--json');
  assert.is(all.code, 0);
  const created = JSON.parse(all.stdout);
  assert.equal(created.scopes, ['*']);
  assert.is(created.scoped_projects, null);
  assert.is((await get('/api/users/@me/', created.key)).body.email, 'carol@example.com');

  const refusals = await Promise.all([
    cli('key', 'create', '--email', 'carol@example.com', '--scopes', 'insight:delete'),
    cli('key', 'create', '--email', 'nobody@example.com', '--scopes', '*'),
    cli('key', 'create', '--email', 'carol@example.com', '--scopes', '*', '--projects', '999'),
    cli('key', 'create', '--email', 'carol@example.com'),
    cli('key', 'create', '--email', 'carol@example.com', '--scopes', '*', '--projects', 'a,b'),
  ]);
  const expected = [/unknown scope "insight:delete"/, /no user with email/, /no project 999/, /needs --scopes/, /--projects must be/];
  refusals.forEach((r, i) => {
    assert.is(r.code, 1);
    assert.match(r.stderr, expected[i]);
  });
});

s.run();
