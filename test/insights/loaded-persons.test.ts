// The insights consumer's memo of the persons it loaded (src/insights/from-store.ts): a
// person whose fingerprint did not change is not sent again, and the memo holds at most
// its bound in characters, forgetting everything (a resend, never a missed change) past it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LoadedPersons } from '../../src/insights/from-store.js';

const s = suite('loaded persons');

s('a person is unchanged only with the fingerprint last committed', () => {
  const memo = new LoadedPersons();
  assert.is(memo.unchanged('1\u0000a', 'v1'), false);
  memo.commit(new Map([['1\u0000a', 'v1']]));
  assert.is(memo.unchanged('1\u0000a', 'v1'), true);
  assert.is(memo.unchanged('1\u0000a', 'v2'), false);
  memo.commit(new Map([['1\u0000a', 'v2']]));
  assert.is(memo.unchanged('1\u0000a', 'v2'), true);
});

s('past its bound in characters the memo forgets what it held and keeps the batch just committed', () => {
  // Each entry: a 3-character key and a 7-character fingerprint.
  const memo = new LoadedPersons(30);
  memo.commit(new Map([['1:a', 'aaaaaaa'], ['1:b', 'bbbbbbb']]));
  // Replacing a fingerprint counts it once: 20 characters still.
  memo.commit(new Map([['1:a', 'AAAAAAA']]));
  assert.is(memo.unchanged('1:a', 'AAAAAAA'), true);
  assert.is(memo.unchanged('1:b', 'bbbbbbb'), true);
  // 20 + 20 > 30: the earlier persons are forgotten (sent again when next seen).
  memo.commit(new Map([['1:c', 'ccccccc'], ['1:d', 'ddddddd']]));
  assert.is(memo.unchanged('1:a', 'AAAAAAA'), false);
  assert.is(memo.unchanged('1:b', 'bbbbbbb'), false);
  assert.is(memo.unchanged('1:c', 'ccccccc'), true);
  assert.is(memo.unchanged('1:d', 'ddddddd'), true);
});

s.run();
