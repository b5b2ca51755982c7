// Which event names a function's filters let through, asked before an event's globals are
// built (PostHog's pre-check on the name: only where events alone are filtered, each by name).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { namedEvents } from '../../src/destinations/runtime/event-names.js';
import { passes } from '../../src/destinations/runtime/prepare.js';
import type { StoredFilters } from '../../src/destinations/types.js';

const s = suite('destinations: event names a function filters on');
const TRUE = ['_H', 1, 29];
const filters = (extra: Partial<StoredFilters>): StoredFilters => ({ bytecode: TRUE, ...extra });

s('events named, no actions: only those names pass, whatever the bytecode says', async () => {
  const f = filters({ events: [{ id: '$pageview', type: 'events' }, { id: 'signup', type: 'events' }] });
  assert.equal([...namedEvents(f)!].sort(), ['$pageview', 'signup']);
  assert.is(await passes(f, 'signup', {}), true);
  assert.is(await passes(f, '$autocapture', {}), false);
});

s('no filters, no events, an "all events" entry (id null) or any action: every name may pass', () => {
  assert.is(namedEvents(null), null);
  assert.is(namedEvents(filters({})), null);
  assert.is(namedEvents(filters({ events: [{ id: '$pageview' }, { id: null, name: 'All events' }] })), null);
  assert.is(namedEvents(filters({ events: [{ id: '$pageview' }], actions: [{ id: 3 }] })), null);
});

s('the answer is read once per filters object', () => {
  const f = filters({ events: [{ id: 'a' }] });
  assert.is(namedEvents(f), namedEvents(f));
});

s.run();
