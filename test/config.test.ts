// The consumer's transaction size is a setting: a whole number of events from the
// environment, 50,000 unless set, refused at start-up when it is not usable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseCommandLine } from '../src/config.js';

const s = suite('config: consumer transaction size');
const parse = (env: NodeJS.ProcessEnv) => parseCommandLine(['serve'], env).config;

s('defaults to 50,000 events and takes HEDGEROW_CONSUMER_BATCH_EVENTS', () => {
  assert.is(parse({}).consumerBatchEvents, 50_000);
  assert.is(parse({ HEDGEROW_CONSUMER_BATCH_EVENTS: '2000' }).consumerBatchEvents, 2000);
});

s('refuses zero, a fraction and text, naming the setting', () => {
  for (const bad of ['0', '1.5', 'many']) {
    assert.throws(() => parse({ HEDGEROW_CONSUMER_BATCH_EVENTS: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_CONSUMER_BATCH_EVENTS|consumerBatchEvents/.test((err as Error).message));
  }
});

s.run();
