// The consumer's transaction size is a setting: a whole number of log bytes from the
// environment, 16 MiB unless set, refused at start-up when it is not usable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseCommandLine } from '../src/config.js';

const s = suite('config: consumer transaction size');
const parse = (env: NodeJS.ProcessEnv) => parseCommandLine(['serve'], env).config;

s('defaults to 16 MiB and takes HEDGEROW_CONSUMER_BATCH_BYTES', () => {
  assert.is(parse({}).consumerBatchBytes, 16 * 1024 * 1024);
  assert.is(parse({ HEDGEROW_CONSUMER_BATCH_BYTES: '600000' }).consumerBatchBytes, 600_000);
});

s('refuses zero, a fraction and text, naming the setting', () => {
  for (const bad of ['0', '1.5', 'many']) {
    assert.throws(() => parse({ HEDGEROW_CONSUMER_BATCH_BYTES: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_CONSUMER_BATCH_BYTES|consumerBatchBytes/.test((err as Error).message));
  }
});

s.run();
