// Sessions over a store of their own, with a clock the test moves: a session answers as
// its user until it expires, a closed one never again, and a user's expired sessions are
// dropped when they open another.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storePerTest } from '../../helpers/temp-store.js';
import { createLocalWrites } from '../../../src/state/local.js';
import type { Store } from '../../../src/tables.js';
import { tenancyCommands } from '../../../src/access/tenancy/commands.js';
import { createTenancyStore, OrgLevel, hashKey } from '../../../src/access/index.js';
import { sessionCommands } from '../../../src/access/sessions/commands.js';
import { createSessionStore } from '../../../src/access/sessions/store.js';

const s = suite('sessions');
let store: Store;
storePerTest(s, 'sessions-', (opened) => { store = opened; });

const HOUR = 3_600_000;

async function setup() {
  let now = Date.parse('2026-11-28T10:00:00Z');
  const clock = () => new Date(now);
  const writes = createLocalWrites(store, [...tenancyCommands, ...sessionCommands]);
  const tenancy = createTenancyStore(store, writes, clock);
  const org = await tenancy.createOrganization('org');
  const project = await tenancy.createProject(org.id, 'p');
  const user = await tenancy.createUser({ email: 'ada@example.com', organization_id: org.id, current_project_id: project.id, level: OrgLevel.member });
  const sessions = createSessionStore({ store, writes, ttlMs: 2 * HOUR, clock });
  return { sessions, user, advance: (ms: number) => { now += ms; } };
}

s('a session lasts its lifetime, then answers nobody', async () => {
  const { sessions, user, advance } = await setup();
  const { token, session } = await sessions.open(user);
  assert.is(session.expires_at, '2026-11-28T12:00:00.000Z');
  assert.is(sessions.resolve(token)?.user.id, user.id);
  advance(2 * HOUR - 1);
  assert.ok(sessions.resolve(token));
  advance(1);
  assert.is(sessions.resolve(token), null);
  assert.is(sessions.resolve('not a token'), null);
});

s('a closed session answers nobody; only hashes are stored', async () => {
  const { sessions, user } = await setup();
  const { token } = await sessions.open(user);
  assert.ok(store.tenancy.get(['session', hashKey(token)]));
  await sessions.close(token);
  assert.is(sessions.resolve(token), null);
  assert.is(store.tenancy.get(['session', hashKey(token)]), undefined);
});

s('opening a session drops the user\'s expired ones, keeps the live ones', async () => {
  const { sessions, user, advance } = await setup();
  const old = await sessions.open(user);
  advance(HOUR);
  const recent = await sessions.open(user);
  advance(HOUR + 1);
  await sessions.open(user);
  assert.is(store.tenancy.get(['session', old.session.token_hash]), undefined);
  assert.ok(store.tenancy.get(['session', recent.session.token_hash]));
});

s('a new password ends the user\'s sessions', async () => {
  const { sessions, user } = await setup();
  const { token } = await sessions.open(user);
  await sessions.setPassword(user.id, 'another password');
  assert.is(sessions.resolve(token), null);
  assert.is(await sessions.setPassword(9999, 'nobody has this'), false);
});

s('check: the right password finds the user, a wrong one or an unknown email nobody', async () => {
  const { sessions, user } = await setup();
  assert.not.ok(sessions.hasPassword(user.id));
  assert.is(await sessions.check('ada@example.com', 'anything at all'), null);
  assert.ok(await sessions.setPassword(user.id, 'the password'));
  assert.ok(sessions.hasPassword(user.id));
  assert.is((await sessions.check(' ADA@example.com ', 'the password'))?.id, user.id);
  assert.is(await sessions.check('ada@example.com', 'the password '), null);
  assert.is(await sessions.check('bob@example.com', 'the password'), null);
});

s.run();
