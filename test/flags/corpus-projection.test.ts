// PostHog's projection matrix: one evaluation outcome, each response protocol. The
// corpus pins key, enabled, variant, failed, reason code and index, and metadata id,
// version and payload; descriptions ride along unpinned and are checked to be present.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFlags, decideV1Body, decideV2Body, evaluateFlags, flagsV1Body, flagsV2Body, responseBody, responseProtocol } from '../../src/flags/index.js';
import type { EvaluationResult, FlagEvaluation, FlagsV2Body, ReasonCode } from '../../src/flags/index.js';
import { readConformance } from './conformance.js';

interface Outcome {
  key: string;
  flag_id: number;
  flag_version: number;
  enabled: boolean;
  variant: string | null;
  payload: string | null;
  failed: boolean;
  omitted: boolean;
  reason: { code: string; condition_index: number | null };
}

type Projection = Record<string, unknown> & { response_version: number };

interface Case {
  id: string;
  outcome: Outcome;
  projections: { flags_v2: Projection; flags_v1: Projection; decide_v2: Projection; decide_v1: Projection };
}

const corpus = readConformance<{ cases: Case[] }>('flag-rules-v2/corpus/legacy_projection.json');

function resultOf(o: Outcome): EvaluationResult {
  if (o.omitted) return { flags: [], errors_while_computing_flags: false };
  const flag: FlagEvaluation = {
    key: o.key,
    id: o.flag_id,
    version: o.flag_version,
    enabled: o.enabled,
    variant: o.variant,
    value: o.variant ?? o.enabled,
    payload: o.payload,
    reason: { code: o.reason.code as ReasonCode, condition_index: o.reason.condition_index, description: 'described' },
    failed: o.failed,
  };
  return { flags: [flag], errors_while_computing_flags: o.failed };
}

function withoutVersion(p: Projection): Record<string, unknown> {
  const { response_version: _version, ...body } = p;
  return body;
}

/** The flags_v2 fields the corpus pins, descriptions dropped after checking they exist. */
function pinned(body: FlagsV2Body): unknown {
  const flags: Record<string, unknown> = {};
  for (const [key, d] of Object.entries(body.flags)) {
    assert.type(d.reason.description, 'string');
    assert.ok('description' in d.metadata);
    const { description: _r, ...reason } = d.reason;
    const { description: _m, ...metadata } = d.metadata;
    flags[key] = { ...d, reason, metadata };
  }
  return { ...body, flags };
}

const s = suite('flag rules v2 corpus: legacy projection');

s('the corpus has all 11 cases', () => {
  assert.is(corpus.cases.length, 11);
});

for (const c of corpus.cases) {
  s(c.id, () => {
    const result = resultOf(c.outcome);
    assert.equal(pinned(flagsV2Body(result)), withoutVersion(c.projections.flags_v2), 'flags_v2');
    assert.equal(flagsV1Body(result), withoutVersion(c.projections.flags_v1), 'flags_v1');
    assert.equal(decideV2Body(result), withoutVersion(c.projections.decide_v2), 'decide_v2');
    assert.equal(decideV1Body(result), withoutVersion(c.projections.decide_v1), 'decide_v1');
  });
}

s('each endpoint and version selects its protocol', () => {
  assert.is(responseProtocol('decide', undefined), 'decide_v1');
  assert.is(responseProtocol('decide', 1), 'decide_v1');
  assert.is(responseProtocol('decide', 2), 'decide_v2');
  assert.is(responseProtocol('decide', 3), 'flags_v1');
  assert.is(responseProtocol('decide', 4), 'flags_v2');
  assert.is(responseProtocol('decide', 7), 'flags_v2');
  assert.is(responseProtocol('flags', undefined), 'flags_v1');
  assert.is(responseProtocol('flags', 1), 'flags_v1');
  assert.is(responseProtocol('flags', 2), 'flags_v2');
  assert.is(responseProtocol('flags', 3), 'flags_v2');
});

s('an evaluation projects with PostHog\'s reason descriptions and a null flag description', () => {
  const compiled = compileFlags({
    flags: [
      { id: 7, key: 'staged', version: 2, active: true, filters: { groups: [{ properties: [{ key: 'plan', type: 'person', value: 'x' }] }, { properties: [] }], payloads: { true: '"p"' } } },
      { id: 8, key: 'off', active: true, filters: { groups: [{ properties: [{ key: 'plan', type: 'person', value: 'x' }] }] } },
    ],
  });
  const result = evaluateFlags(compiled, { distinct_id: 'u', now: 0 });
  assert.equal(responseBody('flags_v2', result), {
    flags: {
      staged: {
        key: 'staged',
        enabled: true,
        variant: null,
        reason: { code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' },
        metadata: { id: 7, version: 2, description: null, payload: '"p"' },
      },
      off: {
        key: 'off',
        enabled: false,
        variant: null,
        reason: { code: 'no_condition_match', condition_index: 0, description: 'No matching condition set' },
        metadata: { id: 8, version: 0, description: null, payload: null },
      },
    },
    errorsWhileComputingFlags: false,
  });
  assert.equal(responseBody('decide_v1', result), { featureFlags: ['staged'] });
});

s('a flag keyed __proto__ is a key like any other', () => {
  const result = resultOf({ ...corpus.cases[0].outcome, key: '__proto__' });
  assert.equal(Object.keys(flagsV1Body(result).featureFlags), ['__proto__']);
  assert.is(JSON.stringify(decideV2Body(result)), '{"featureFlags":{"__proto__":true}}');
});

s.run();
