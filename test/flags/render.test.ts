// renderBody writes the response bodies as text; it must say what the projections say.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { responseBody } from '../../src/flags/index.js';
import { renderBody } from '../../src/flags/render.js';
import { reason } from '../../src/flags/reasons.js';
import type { EvaluationResult, FlagEvaluation, ResponseProtocol } from '../../src/flags/index.js';

const PROTOCOLS: ResponseProtocol[] = ['decide_v1', 'decide_v2', 'flags_v1', 'flags_v2'];

function flag(key: string, over: Partial<FlagEvaluation> = {}): FlagEvaluation {
  const enabled = over.enabled ?? true;
  const variant = over.variant ?? null;
  return {
    key, id: 11, version: 3, enabled, variant, value: variant ?? enabled, payload: null,
    reason: reason(enabled ? 'condition_match' : 'no_condition_match', 0), failed: false, ...over,
  };
}

/** JSON text with every object's members sorted: equal for equal values, whatever the order. */
function canonical(text: string): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== 'object') return v;
    const out: [string, unknown][] = Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]);
    return out;
  };
  return JSON.stringify(sort(JSON.parse(text)));
}

/** What a client reads: the same JSON values (member order aside). */
function parsedSame(result: EvaluationResult) {
  for (const p of PROTOCOLS) assert.is(canonical(renderBody(p, result)), canonical(JSON.stringify(responseBody(p, result))), p);
}

const s = suite('renderBody');

s('every protocol, for on, off, variant, payload and failed flags', () => {
  parsedSame({
    flags: [
      flag('on', { payload: '{"a":1}' }),
      flag('off', { enabled: false }),
      flag('colour', { variant: 'red', payload: '"warm"' }),
      flag('held', { variant: 'holdout-4', reason: reason('holdout_condition_value', null) }),
      flag('broken', { enabled: false, failed: true, reason: reason('dependency_not_found_cohort', null) }),
    ],
    errors_while_computing_flags: true,
  });
});

s('no flags at all', () => {
  parsedSame({ flags: [], errors_while_computing_flags: false });
});

s('keys and payloads that need escaping, integer-like and prototype keys', () => {
  parsedSame({
    flags: [
      flag('42'),
      flag('__proto__', { payload: 'line\nbreak "quoted" \\ \u2028 é 😀' }),
      flag('say "hi"', { variant: 'v"1', payload: { nested: [1, 'two', null] } }),
      flag('constructor', { enabled: false }),
    ],
    errors_while_computing_flags: false,
  });
  assert.is(renderBody('decide_v2', { flags: [flag('__proto__')], errors_while_computing_flags: false }), '{"featureFlags":{"__proto__":true}}');
});

s('reasons built outside the core (not frozen) are rendered fresh each time', () => {
  const mutable = { code: 'condition_match' as const, condition_index: 2, description: 'Matched condition set 3' };
  const result = { flags: [flag('x', { reason: mutable })], errors_while_computing_flags: false };
  assert.is(JSON.parse(renderBody('flags_v2', result)).flags.x.reason.condition_index, 2);
  mutable.condition_index = 5;
  assert.is(JSON.parse(renderBody('flags_v2', result)).flags.x.reason.condition_index, 5);
});

s.run();
