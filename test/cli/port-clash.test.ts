// `serve` on a port in use stops before it creates or opens its data dir: it prints no keys
// of a server that never ran, and leaves no data dir behind.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hedgerow } from './helpers.js';
import { probePort } from '../../src/http/port.js';

const s = suite('serve: a port in use');
let taken: Server;
let port: number;
let dir: string;
s.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hedgerow-port-'));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
});
s.after(async () => {
  await new Promise((resolve) => taken.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

s('stops with the reason, before a new data dir exists and before any key is printed', () => {
  const data = join(dir, 'new');
  const r = hedgerow(['serve', '--port', String(port), '--host', '127.0.0.1', '--data', data, '--log-level', 'silent']);
  assert.is(r.code, 1);
  assert.is(r.stderr, `hedgerow: could not listen on 127.0.0.1:${port}: the port is in use (another hedgerow?) or not allowed; choose one with --port or PORT\n`);
  assert.not.ok(existsSync(data), 'no data dir was created');
  assert.is(r.stdout, '');
});

s('the probe: refuses a port in use, lets a free one go again, never refuses port 0', async () => {
  const refused = await probePort('127.0.0.1', port).then(() => null, (err: Error) => err.message);
  assert.match(refused ?? 'no refusal', `could not listen on 127.0.0.1:${port}: the port is in use`);
  const free = createServer();
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
  const freePort = (free.address() as AddressInfo).port;
  await new Promise((resolve) => free.close(resolve));
  await probePort('127.0.0.1', freePort);
  await probePort('127.0.0.1', freePort);
  await probePort('127.0.0.1', 0);
});

s.run();
