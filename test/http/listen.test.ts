// One server per port: a second one on a port in use fails to start with a message
// that says so, instead of sharing the port with the first (Linux's SO_REUSEPORT).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { MODULES } from '../../src/main.js';
import { startServer } from '../../src/node/serve.js';
import { createLogger } from '../../src/logger.js';
import { discard, startTestServer, NO_CONSUMERS, tempDir, testConfig, type TestServer } from '../helpers/server.js';

const s = suite('listening');
let t: TestServer;
// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t.close(); });

s('a second server on a port in use fails to start and says why', async () => {
  const dataDir = tempDir();
  try {
    const config = testConfig(dataDir, ['--port', String(t.server.port)]);
    let error: Error | null = null;
    try {
      const second = await startServer(config, MODULES, { log: createLogger('silent'), out: discard() });
      await second.close();
    } catch (err) {
      error = err as Error;
    }
    assert.ok(error, 'the second server started');
    assert.match(error!.message, `could not listen on 127.0.0.1:${t.server.port}: the port is in use`);
    const r = await fetch(`${t.url}/_liveness`);
    assert.is(r.status, 200);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
