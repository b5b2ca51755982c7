import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyUpdate, hasChanges, propertyUpdate } from '../../src/persons/properties.js';

const TS = '2026-01-10T12:00:00.000Z';
const s = suite('person property updates');
const upd = (event: string, props: Record<string, unknown>, current: Record<string, unknown>) => propertyUpdate(event, props, TS, current);

s('$set_once writes only keys the person lacks', () => {
  const u = upd('e', { $set_once: { a: 1, b: 2 } }, { a: 0 });
  assert.equal(u.set, { b: 2 });
  assert.equal(applyUpdate({ a: 0 }, u), { a: 0, b: 2 });
});

s('$set overwrites', () => {
  assert.equal(applyUpdate({ a: 0, keep: true }, upd('e', { $set: { a: 1 } }, { a: 0, keep: true })), { a: 1, keep: true });
});

s('$unset removes keys, given as a list or as an object', () => {
  assert.equal(applyUpdate({ a: 1, b: 2, c: 3 }, upd('e', { $unset: ['a', 'missing'] }, { a: 1, b: 2, c: 3 })), { b: 2, c: 3 });
  assert.equal(applyUpdate({ a: 1, b: 2 }, upd('e', { $unset: { b: null } }, { a: 1, b: 2 })), { a: 1 });
});

s('order is set_once, then set, then unset', () => {
  // set_once fills k, set overrides it; unset removes what set just wrote.
  const current = { old: 1 };
  const u = upd('e', { $set_once: { k: 'once', gone: 'once' }, $set: { k: 'set', gone: 'set' }, $unset: ['old', 'gone'] }, current);
  // `gone` did not exist before the event; set by it and then unset, it is gone after it.
  assert.equal(applyUpdate(current, u), { k: 'set' });
  assert.not.ok(hasChanges(upd('e', { $set: { brief: 1 }, $unset: ['brief'] }, {})), 'set and unset by one event: no change');
  const u2 = upd('e', { $set_once: { k: 'once' }, $unset: ['k'] }, { k: 'was' });
  assert.equal(applyUpdate({ k: 'was' }, u2), {});
  const u3 = upd('e', { $set: { k: 'new' }, $unset: ['k'] }, { k: 'was' });
  assert.equal(applyUpdate({ k: 'was' }, u3), {});
});

s('keys named like what every object inherits are keys like any other', () => {
  const u = upd('e', { $set_once: { constructor: 'c', toString: 't' }, $set: JSON.parse('{"__proto__": {"polluted": true}, "hasOwnProperty": 1}') }, {});
  const next = applyUpdate({}, u);
  assert.equal(Object.keys(next).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
  assert.equal(Object.getOwnPropertyDescriptor(next, '__proto__')?.value, { polluted: true });
  assert.is(Object.getPrototypeOf(next), Object.prototype);
  assert.is((next as { polluted?: boolean }).polluted, undefined);
  const current = JSON.parse('{"__proto__": {"a": 1}, "constructor": "c"}');
  assert.not.ok(hasChanges(upd('e', { $set_once: { constructor: 'other' }, $set: JSON.parse('{"__proto__": {"a": 1}}') }, current)));
  assert.equal(Object.keys(applyUpdate(current, upd('e', { $unset: ['constructor'] }, current))), ['__proto__']);
});

s('setting the same value is no change; objects compare by content', () => {
  assert.not.ok(hasChanges(upd('e', { $set: { a: 1, o: { x: [1, 2] } } }, { a: 1, o: { x: [1, 2] } })));
  assert.ok(hasChanges(upd('e', { $set: { o: { x: [1, 3] } } }, { o: { x: [1, 2] } })));
});

s('noisy keys alone on an ordinary event are not significant; new keys and other keys are', () => {
  assert.not.ok(upd('$pageview', { $set: { $current_url: 'b', $browser: 'X' } }, { $current_url: 'a', $browser: 'Y' }).significant);
  assert.ok(upd('$pageview', { $set: { $current_url: 'b' } }, {}).significant, 'a new key is significant');
  assert.ok(upd('$pageview', { $set: { $current_url: 'b', plan: 'pro' } }, { $current_url: 'a' }).significant);
  assert.ok(upd('$pageview', { $set_once: { first: 1 } }, {}).significant);
  assert.ok(upd('$pageview', { $unset: ['plan'] }, { plan: 'x' }).significant);
});

s('person events make every change significant', () => {
  for (const event of ['$identify', '$set', '$create_alias', '$merge_dangerously']) {
    assert.ok(upd(event, { $set: { $current_url: 'b' } }, { $current_url: 'a' }).significant, event);
  }
});

s('$exception and $$heatmap never update the person', () => {
  for (const event of ['$exception', '$$heatmap']) assert.not.ok(hasChanges(upd(event, { $set: { a: 1 } }, {})), event);
});

s('"survey shown" records the last survey date; an explicit $set of it wins', () => {
  assert.equal(upd('survey shown', {}, {}).set, { $survey_last_seen_date: TS });
  assert.equal(upd('survey shown', { $set: { $survey_last_seen_date: 'x' } }, {}).set, { $survey_last_seen_date: 'x' });
  assert.not.ok(hasChanges(upd('survey shown', { $set: { $survey_last_seen_date: 'x' } }, { $survey_last_seen_date: 'x' })));
});

s('malformed $set, $set_once and $unset are ignored', () => {
  assert.not.ok(hasChanges(upd('e', { $set: 'a', $set_once: [1], $unset: 'a' }, { a: 1 })));
  assert.equal(upd('e', { $unset: [1, null, 'a'] }, { a: 1 }).unset, ['a']);
});

s.run();
