// PostHog's feature_flag_rules_v2 corpus (version 1 arm): every case, evaluated as the
// authoritative server evaluator must, including reasons, condition indexes, payloads and
// omissions.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFlags, evaluateFlags } from '../../src/flags/index.js';
import type { FlagDefinition, FlagEvaluation } from '../../src/flags/index.js';
import { NOW, readConformance } from './conformance.js';

interface ExpectedFlag {
  value: boolean | string;
  enabled: boolean;
  variant: string | null;
  payload: string | null;
  reason: { code: string; condition_index: number | null };
}

interface Case {
  id: string;
  definitions: { flags: FlagDefinition[]; group_type_mapping?: Record<string, string> };
  context: {
    distinct_id: string;
    person_properties?: Record<string, unknown>;
    groups?: Record<string, unknown>;
    group_properties?: Record<string, Record<string, unknown>>;
  };
  expected: { flags: Record<string, ExpectedFlag>; omitted_flags: string[] };
}

const corpus = readConformance<{ cases: Case[] }>('flag-rules-v2/corpus/v1_evaluation.json');
const s = suite('flag rules v2 corpus: v1 evaluation');

s('the corpus has all 31 cases', () => {
  assert.is(corpus.cases.length, 31);
});

for (const c of corpus.cases) {
  s(c.id, () => {
    const compiled = compileFlags(c.definitions);
    const result = evaluateFlags(compiled, { ...c.context, now: NOW });
    const byKey = new Map<string, FlagEvaluation>(result.flags.map((f) => [f.key, f]));

    assert.equal([...byKey.keys()].sort(), Object.keys(c.expected.flags).sort(), 'evaluated flags');
    for (const omitted of c.expected.omitted_flags) assert.not.ok(byKey.has(omitted), `${omitted} is omitted`);

    for (const [key, expected] of Object.entries(c.expected.flags)) {
      const actual = byKey.get(key)!;
      assert.equal(actual.value, expected.value, `${key} value`);
      assert.is(actual.enabled, expected.enabled, `${key} enabled`);
      assert.is(actual.variant, expected.variant, `${key} variant`);
      assert.is(actual.payload, expected.payload, `${key} payload`);
      assert.is(actual.reason.code, expected.reason.code, `${key} reason`);
      assert.is(actual.reason.condition_index, expected.reason.condition_index, `${key} condition_index`);
      assert.is(actual.failed, false, `${key} did not fail`);
    }
    assert.is(result.errors_while_computing_flags, false);
  });
}

s.run();
