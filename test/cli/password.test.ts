// `hedgerow user password --email E` as an operator runs it, the password on stdin: stored
// as a scrypt hash (never in clear) that the web app's sign-in then accepts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp-dir.js';
import { cliInit } from '../helpers/cli-server.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { verifyPassword } from '../../src/access/sessions/password.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const s = suite('user password CLI');
let dataDir: string;

const cli = (input: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [MAIN, ...args, '--data', dataDir], { encoding: 'utf8', input, env: { PATH: process.env.PATH }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

s.before(() => {
  dataDir = tempDir();
  cliInit(dataDir);
});
s.after(() => rmSync(dataDir, { recursive: true, force: true }));

s('sets a scrypt hash the password verifies against; the clear text is stored nowhere', async () => {
  assert.is(cli('', 'user', 'add', '--email', 'Dana@Example.com').code, 0);
  const r = cli('a fine long secret\n', 'user', 'password', '--email', 'dana@example.com');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^password set for dana@example\.com/);
  const store = openStore(dataDir, tables);
  try {
    const id = store.tenancy.get(['user_email', 'dana@example.com']) as number;
    const hash = store.tenancy.get(['password', id]) as string;
    assert.match(hash, /^scrypt\$32768\$8\$1\$/);
    assert.ok(await verifyPassword('a fine long secret', hash));
    assert.not.ok(JSON.stringify([...store.tenancy.getRange({})]).includes('a fine long secret'));
  } finally {
    await store.close();
  }
});

s('refuses a short password, an unknown email and no email', () => {
  const short = cli('short\n', 'user', 'password', '--email', 'dana@example.com');
  assert.is(short.code, 1);
  assert.match(short.stderr, /at least 8 characters/);
  const unknown = cli('a fine long secret\n', 'user', 'password', '--email', 'nobody@example.com');
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /no user with email nobody@example\.com/);
  const none = cli('a fine long secret\n', 'user', 'password');
  assert.is.not(none.code, 0);
  assert.match(none.stderr, /--email/);
});

s.run();
