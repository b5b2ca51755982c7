// Cross-SDK consistency: distinct_id_0 … distinct_id_999 on a 45% boolean flag and a 55%
// five-variant flag must land exactly where every PostHog library puts them.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFlags, evaluateFlags } from '../../src/flags/index.js';
import type { FlagDefinition, FlagValue } from '../../src/flags/index.js';
import { NOW, readConformance } from './conformance.js';

interface Consistency {
  flags: Omit<FlagDefinition, 'id'>[];
  cases: ({ distinct_id: string } & Record<string, FlagValue>)[];
}

const data = readConformance<Consistency>('flag-consistency-1000.json');
const compiled = compileFlags({ flags: data.flags.map((f, i) => ({ id: i + 1, ...f })) });
const s = suite('flag consistency: 1000 ids × 2 flags');

s('the data has 1000 ids', () => {
  assert.is(data.cases.length, 1000);
});

for (const flagKey of ['simple-flag', 'multivariate-flag']) {
  s(`${flagKey} matches for every id`, () => {
    let checked = 0;
    for (const c of data.cases) {
      const result = evaluateFlags(compiled, { distinct_id: c.distinct_id, now: NOW, flag_keys_to_evaluate: [flagKey] });
      assert.is(result.flags.length, 1);
      assert.is(result.flags[0].value, c[flagKey], `${flagKey} for ${c.distinct_id}`);
      checked++;
    }
    assert.is(checked, 1000);
  });
}

s.run();
