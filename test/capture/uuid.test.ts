import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { uuidv7 } from '../../src/capture/uuid.js';

const s = suite('uuidv7');

s('is an RFC 9562 version 7, variant 10 UUID carrying the millisecond timestamp', () => {
  const ms = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const id = uuidv7(ms);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), ms);
});

s('sorts by time across milliseconds and does not repeat', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 10)));
  assert.is(new Set(ids).size, ids.length);
  for (let i = 10; i < ids.length; i += 10) assert.ok(ids[i - 10] < ids[i]);
});

s.run();
