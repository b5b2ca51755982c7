// What a transformation's outcome does to its event, by PostHog's ingestion rules
// (src/destinations/runtime/transform-result.ts), without a server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyOutcome, recordVerdicts, startVerdicts } from '../../src/destinations/runtime/transform-result.js';
import type { TransformInput } from '../../src/destinations/runtime/transform-run.js';

const s = suite('destinations: transformation results');
const ev = (properties: Record<string, unknown> = { a: 1 }): TransformInput => ({
  uuid: 'u1', event: 'signup', distinct_id: 'ann', properties, timestamp: '2026-11-28T00:00:00.000Z',
});
const returned = (result: unknown) => ({ kind: 'returned' as const, result, logs: [] });

s('null drops; a dict without properties fails and leaves the event; a result replaces properties, name and distinct id', () => {
  for (const nothing of [null, false, 0, '']) assert.is(applyOutcome(ev(), returned(nothing)).verdict, 'dropped');
  const e = ev();
  const bad = applyOutcome(e, returned({ event: 'x' }));
  assert.is(bad.verdict, 'failed');
  assert.match(bad.reason!, /missing or invalid properties/);
  assert.equal([e.event, e.properties], ['signup', { a: 1 }]);
  assert.is(applyOutcome(e, returned({ properties: [1] })).verdict, 'failed');
  const ok = applyOutcome(e, returned({ event: 'signed up', distinct_id: 'bob', properties: { b: 2 } }));
  assert.equal([ok.verdict, e.event, e.distinct_id, e.properties], ['succeeded', 'signed up', 'bob', { b: 2 }]);
});

s('a name or distinct id that is not a string fails the transformation, and the properties it returned stay (as in PostHog)', () => {
  const e = ev();
  const named = applyOutcome(e, returned({ event: 7, properties: { c: 3 } }));
  assert.equal([named.verdict, e.event, e.properties], ['failed', 'signup', { c: 3 }]);
  assert.match(named.reason!, /event name must be a string/);
  const who = applyOutcome(e, returned({ distinct_id: null, properties: { d: 4 } }));
  assert.equal([who.verdict, e.distinct_id, e.properties], ['failed', 'ann', { d: 4 }]);
});

s('filtered, or its filters failing, skips; other errors fail; the lists go after those the event came with', () => {
  assert.is(applyOutcome(ev(), { kind: 'filtered' }).verdict, 'skipped');
  assert.is(applyOutcome(ev(), { kind: 'filtering_failed', message: 'm', logs: [] }).verdict, 'skipped');
  assert.is(applyOutcome(ev(), { kind: 'inputs_failed', message: 'm', logs: [] }).verdict, 'failed');
  const e = ev({ $transformations_succeeded: ['earlier (1)'] });
  const verdicts = startVerdicts(e);
  // A transformation replacing the properties does not lose the lists the event came with.
  applyOutcome(e, returned({ properties: {} }));
  verdicts.succeeded.push('now (2)');
  verdicts.failed.push('broken (3)');
  recordVerdicts(e, verdicts);
  assert.equal(e.properties, { $transformations_failed: ['broken (3)'], $transformations_succeeded: ['earlier (1)', 'now (2)'] });
});

s.run();
