import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { displayName, presentPerson, sortDistinctIds } from '../../src/persons/present.js';
import { personFilter } from '../../src/persons/person-filter.js';
import { summarizeWarnings } from '../../src/ingestion-warnings/summary.js';
import type { PersonRecord } from '../../src/persons/tables.js';

const person = (over: Partial<PersonRecord>): PersonRecord => ({
  id: 3, uuid: '0190aaaa-0000-5000-8000-000000000001', created_at: '2026-01-01T00:00:00.000Z', properties: {}, is_identified: false, distinct_ids: [], ...over,
});

const s = suite('person presentation, filters, warning summaries');

s('distinct ids list chosen ids before SDK-generated anonymous ids', () => {
  assert.equal(sortDistinctIds(['0190f6c1-7a9e-7c2b-8f3a-111111111111', 'alice', 'bob']), ['alice', 'bob', '0190f6c1-7a9e-7c2b-8f3a-111111111111']);
});

s('a person is named by email, name or username, else by its best distinct id, else its id', () => {
  assert.is(displayName(person({ properties: { name: 'Al', email: 'al@x' } })), 'al@x');
  assert.is(displayName(person({ properties: { username: 'al' } })), 'al');
  assert.is(displayName(person({ distinct_ids: ['0190f6c1-7a9e-7c2b-8f3a-111111111111', 'user-9'] })), 'user-9');
  assert.is(displayName(person({})), '3');
});

s('the API person object has PostHog\'s fields', () => {
  const p = person({ properties: { email: 'a@x' }, distinct_ids: ['u'], is_identified: true });
  assert.equal(presentPerson(p), { id: 3, uuid: p.uuid, name: 'a@x', distinct_ids: ['u'], properties: { email: 'a@x' }, created_at: p.created_at, is_identified: true });
});

s('search matches email, name, uuid or any distinct id, case-insensitively', () => {
  const match = personFilter({ search: ' ALICE ' }, 0);
  assert.ok(match(person({ properties: { email: 'alice@x' } })));
  assert.ok(match(person({ properties: { name: 'Alice' } })));
  assert.ok(match(person({ distinct_ids: ['x', 'user-alice'] })));
  assert.not.ok(match(person({ properties: { plan: 'alice' } })));
  assert.ok(personFilter({ search: '0190aaaa' }, 0)(person({})));
});

s('property filters use the flag operators; email is exact', () => {
  const pro = person({ properties: { plan: 'pro', seats: 12, email: 'A@x' } });
  assert.ok(personFilter({ properties: [{ key: 'plan', value: 'pro' }] }, 0)(pro));
  assert.ok(personFilter({ properties: [{ key: 'seats', value: 10, operator: 'gt', type: 'person' }] }, 0)(pro));
  assert.not.ok(personFilter({ properties: [{ key: 'plan', value: 'pro' }, { key: 'seats', value: 20, operator: 'gte' }] }, 0)(pro));
  assert.ok(personFilter({ properties: [{ key: 'missing', value: null, operator: 'is_not_set' }] }, 0)(pro));
  assert.ok(personFilter({ email: 'A@x' }, 0)(pro));
  assert.not.ok(personFilter({ email: 'a@x' }, 0)(pro));
});

s('warnings are grouped by type, latest type first, with counts, daily sparkline and latest examples', () => {
  const w = (type: string, timestamp: string, details: Record<string, unknown> = {}) => ({ type, timestamp, details });
  const summary = summarizeWarnings([
    w('a', '2026-01-01T10:00:00.000Z', { id: 1 }),
    w('b', '2026-01-02T10:00:00.000Z'),
    w('a', '2026-01-03T10:00:00.000Z', { id: 2 }),
    w('a', '2026-01-03T11:00:00.000Z', { id: 3 }),
  ]);
  assert.equal(summary.map((x) => [x.type, x.count, x.lastSeen]), [['a', 3, '2026-01-03T11:00:00.000Z'], ['b', 1, '2026-01-02T10:00:00.000Z']]);
  assert.equal(summary[0].warnings.map((x) => x.details.id), [3, 2, 1]);
  assert.equal(summary[0].sparkline, [[1, '2026-01-01'], [2, '2026-01-03']]);
  assert.equal(summarizeWarnings([w('a', '2026-01-01T00:00:00.000Z', { d: 'needle' }), w('b', '2026-01-01T00:00:00.000Z')], 'needle').map((x) => x.type), ['a']);
});

s.run();
