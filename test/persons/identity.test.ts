// The person rules of $identify, $create_alias and $merge_dangerously, driven through the
// pure core with an in-memory world that applies each outcome as the store would.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { processPersonEvent, type PersonEvent, type PersonOutcome } from '../../src/persons/identity.js';
import { personUuid } from '../../src/persons/person-uuid.js';
import type { PersonRecord } from '../../src/persons/tables.js';

const PROJECT = 7;

function world() {
  const byDistinctId = new Map<string, string>();
  const persons = new Map<string, PersonRecord>();
  let ids = 0;
  let n = 0;
  const lookup = (d: string) => { const u = byDistinctId.get(d); return u === undefined ? undefined : persons.get(u); };
  function send(event: string, distinctId: string, properties: Record<string, unknown> = {}, timestamp = '2026-01-10T12:00:00.000Z'): PersonOutcome {
    const ev: PersonEvent = { uuid: `ev-${++n}`, event, distinct_id: distinctId, properties, timestamp, project_id: PROJECT };
    const out = processPersonEvent(ev, lookup);
    const c = out.change;
    if (c?.kind === 'create') {
      const p = { id: ++ids, ...c.person };
      persons.set(p.uuid, p);
      for (const d of p.distinct_ids) byDistinctId.set(d, p.uuid);
    } else if (c) {
      persons.set(c.person.uuid, c.person);
      for (const d of c.person.distinct_ids) byDistinctId.set(d, c.person.uuid);
      if (c.kind === 'merge') persons.delete(c.source.uuid);
    }
    return out;
  }
  return { send, person: (d: string) => lookup(d)!, count: () => persons.size };
}

const s = suite('identity: persons from identify, alias and merge');

s('an ordinary event creates its person, named after its distinct id, with $set_once and $set', () => {
  const w = world();
  const out = w.send('$pageview', 'anon-1', { $set_once: { a: 1, b: 1 }, $set: { b: 2 }, $unset: ['a'] }, '2026-01-10T12:00:01.000Z');
  const p = w.person('anon-1');
  assert.is(out.personUuid, personUuid(PROJECT, 'anon-1'));
  assert.is(p.uuid, personUuid(PROJECT, 'anon-1'));
  // At creation $unset has nothing to remove; the creating event is recorded.
  assert.equal(p.properties, { a: 1, b: 2, $creator_event_uuid: 'ev-1' });
  assert.equal(p.distinct_ids, ['anon-1']);
  assert.is(p.is_identified, false);
  assert.is(p.created_at, '2026-01-10T12:00:01.000Z');
});

s('later events update the same person and report it', () => {
  const w = world();
  w.send('e', 'u');
  const out = w.send('e', 'u', { $set: { plan: 'pro' } });
  assert.is(out.personUuid, personUuid(PROJECT, 'u'));
  assert.equal(w.person('u').properties.plan, 'pro');
  assert.is(w.send('e', 'u', { $set: { plan: 'pro' } }).change, null, 'no change, nothing to write');
});

s('$identify when neither id has a person creates one identified person holding both', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'a@x' } });
  const p = w.person('user-1');
  assert.is(w.person('anon-1'), p);
  assert.is(p.uuid, personUuid(PROJECT, 'user-1'));
  assert.equal(p.distinct_ids, ['user-1', 'anon-1']);
  assert.ok(p.is_identified);
  assert.is(p.properties.email, 'a@x');
});

s('$identify when only the anonymous id has a person attaches the user id to it', () => {
  const w = world();
  w.send('$pageview', 'anon-1', { $set: { seen: true } });
  const anonUuid = w.person('anon-1').uuid;
  const out = w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'a@x' } });
  const p = w.person('user-1');
  assert.is(p.uuid, anonUuid);
  assert.is(out.personUuid, anonUuid);
  assert.equal(p.distinct_ids, ['anon-1', 'user-1']);
  assert.ok(p.is_identified);
  assert.equal(p.properties, { seen: true, email: 'a@x', $creator_event_uuid: 'ev-1' });
});

s('an $anon_distinct_id or alias over 200 characters is cut as capture cuts distinct ids, so it meets its own events', () => {
  const w = world();
  const long = 'a'.repeat(150) + '😀'.repeat(100);
  const cut = Array.from(long).slice(0, 200).join('');
  w.send('$pageview', cut);
  w.send('$identify', 'user-1', { $anon_distinct_id: long });
  assert.equal(w.person('user-1').distinct_ids, [cut, 'user-1']);
  w.send('$pageview', 'other');
  w.send('$create_alias', 'user-1', { alias: 'o'.repeat(300) });
  assert.ok(w.person('user-1').distinct_ids.includes('o'.repeat(200)));
});

s('$identify when only the user id has a person attaches the anonymous id to it', () => {
  const w = world();
  w.send('e', 'user-1');
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-2' });
  assert.equal(w.person('anon-2').distinct_ids, ['user-1', 'anon-2']);
  assert.ok(w.person('anon-2').is_identified);
});

s('$identify when both have persons merges the anonymous person into the user\'s', () => {
  const w = world();
  w.send('e', 'user-1', { $set: { plan: 'pro', shared: 'user' } }, '2026-01-10T12:00:30.000Z');
  w.send('e', 'anon-1', { $set: { utm: 'ad', shared: 'anon' } }, '2026-01-10T11:00:00.000Z');
  const userUuid = w.person('user-1').uuid;
  const anonUuid = w.person('anon-1').uuid;
  const out = w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'a@x' } });
  assert.is(out.change?.kind, 'merge');
  if (out.change?.kind === 'merge') assert.is(out.change.source.uuid, anonUuid);
  const p = w.person('anon-1');
  assert.is(p.uuid, userUuid);
  assert.is(w.count(), 1);
  assert.equal(p.distinct_ids, ['user-1', 'anon-1']);
  // The event's own person wins conflicts; the event's $set applies last.
  assert.is(p.properties.shared, 'user');
  assert.is(p.properties.utm, 'ad');
  assert.is(p.properties.email, 'a@x');
  // The merged person is as old as the older of the two.
  assert.is(p.created_at, '2026-01-10T11:00:00.000Z');
  assert.ok(p.is_identified);
});

s('$identify refuses to merge a person that is already identified, with a warning', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1' });
  w.send('e', 'user-2', { $set: { plan: 'free' } });
  const out = w.send('$identify', 'user-2', { $anon_distinct_id: 'user-1', $set: { email: 'b@x' } });
  assert.is(w.count(), 2);
  assert.equal(out.warnings, [{ type: 'cannot_merge_already_identified', details: { sourcePersonDistinctId: 'user-1', targetPersonDistinctId: 'user-2', eventUuid: 'ev-3' } }]);
  // The event still updates its own person, which becomes identified.
  assert.equal(w.person('user-2').properties, { plan: 'free', email: 'b@x', $creator_event_uuid: 'ev-2' });
  assert.ok(w.person('user-2').is_identified);
  assert.equal(w.person('user-1').distinct_ids, ['user-1', 'anon-1']);
});

s('an id without a person is attached even to an identified person: the restriction is on merging two', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1' });
  const out = w.send('$identify', 'user-2', { $anon_distinct_id: 'user-1' });
  assert.equal(out.warnings, []);
  assert.equal(w.person('user-2').distinct_ids, ['user-1', 'anon-1', 'user-2']);
});

s('$merge_dangerously merges even an identified person', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1' });
  w.send('$identify', 'user-2', { $anon_distinct_id: 'anon-2' });
  const out = w.send('$merge_dangerously', 'user-2', { alias: 'user-1' });
  assert.equal(out.warnings, []);
  assert.is(w.count(), 1);
  assert.equal(w.person('anon-1').distinct_ids, ['user-2', 'anon-2', 'user-1', 'anon-1']);
});

s('$merge_dangerously merges the alias\'s person into the distinct id\'s: its properties win conflicts, then the event\'s $set applies', () => {
  const w = world();
  w.send('e', 'user-1', { $set: { plan: 'free', shared: 'user' } }, '2026-01-10T12:00:30.000Z');
  w.send('e', 'other-1', { $set: { plan: 'pro', shared: 'other', utm: 'ad' } }, '2026-01-10T11:00:00.000Z');
  const otherUuid = w.person('other-1').uuid;
  const out = w.send('$merge_dangerously', 'user-1', { alias: 'other-1', $set: { plan: 'team' } });
  assert.is(w.count(), 1);
  assert.is(out.change?.kind, 'merge');
  if (out.change?.kind === 'merge') assert.is(out.change.source.uuid, otherUuid);
  const p = w.person('other-1');
  assert.is(p.uuid, personUuid(PROJECT, 'user-1'));
  assert.is(out.personUuid, p.uuid);
  assert.equal(p.distinct_ids, ['user-1', 'other-1']);
  assert.equal(p.properties, { plan: 'team', shared: 'user', utm: 'ad', $creator_event_uuid: 'ev-1' });
  assert.is(p.created_at, '2026-01-10T11:00:00.000Z');
  assert.is(p.is_identified, true);
});

s('$create_alias merges the distinct id\'s person into the alias\'s, which becomes the main id (SPEC.md §6)', () => {
  const w = world();
  w.send('e', 'user-1', { $set: { plan: 'free', from_user: true } }, '2026-01-10T12:00:00.000Z');
  w.send('e', 'alias-1', { $set: { plan: 'pro' } }, '2026-01-10T12:00:05.000Z');
  const out = w.send('$create_alias', 'user-1', { alias: 'alias-1', distinct_id: 'user-1', $set: { aliased: true } });
  assert.is(w.count(), 1);
  const p = w.person('user-1');
  assert.is(p.uuid, personUuid(PROJECT, 'alias-1'));
  assert.is(out.personUuid, p.uuid);
  assert.equal(p.distinct_ids, ['alias-1', 'user-1']);
  // On a conflict the alias's person wins; then the event's own updates apply.
  const { $creator_event_uuid: _, ...props } = p.properties;
  assert.equal(props, { plan: 'pro', from_user: true, aliased: true });
  assert.is(p.created_at, '2026-01-10T12:00:00.000Z');
  assert.is(p.is_identified, true);
});

s('$create_alias from an identified person is refused as $identify\'s merge is; the event still updates its own person', () => {
  const w = world();
  w.send('$identify', 'user-3', { $anon_distinct_id: 'anon-3' });
  w.send('e', 'alias-3');
  const refused = w.send('$create_alias', 'user-3', { alias: 'alias-3', $set: { tried: true } });
  assert.equal(refused.warnings, [{
    type: 'cannot_merge_already_identified',
    details: { sourcePersonDistinctId: 'user-3', targetPersonDistinctId: 'alias-3', eventUuid: 'ev-3' },
  }]);
  assert.is(w.count(), 2);
  assert.is(refused.personUuid, w.person('user-3').uuid);
  assert.is(w.person('user-3').properties.tried, true);
  assert.is(w.person('alias-3').properties.tried, undefined);
});

s('$create_alias between two ids without persons creates one named after the alias', () => {
  const w = world();
  w.send('$create_alias', 'user-5', { alias: 'alias-5' });
  assert.equal(w.person('user-5').distinct_ids, ['alias-5', 'user-5']);
  assert.is(w.person('user-5').uuid, personUuid(PROJECT, 'alias-5'));
});

s('$create_alias to an id without a person attaches it', () => {
  const w = world();
  w.send('e', 'user-1');
  w.send('$create_alias', 'user-1', { alias: 'email@x' });
  assert.equal(w.person('email@x').distinct_ids, ['user-1', 'email@x']);
});

s('illegal ids never merge: a warning, and the event goes to its own person unidentified', () => {
  const w = world();
  const out = w.send('$identify', 'user-1', { $anon_distinct_id: 'undefined' });
  assert.equal(out.warnings, [{ type: 'cannot_merge_with_illegal_distinct_id', details: { illegalDistinctId: 'undefined', otherDistinctId: 'user-1', eventUuid: 'ev-1' } }]);
  assert.equal(w.person('user-1').distinct_ids, ['user-1']);
  assert.is(w.person('user-1').is_identified, false);
  assert.is(w.person('undefined'), undefined);
  const other = w.send('$create_alias', 'null', { alias: 'user-1' });
  assert.equal(other.warnings[0].details, { illegalDistinctId: 'null', otherDistinctId: 'user-1', eventUuid: 'ev-2' });
});

s('an illegal id as $identify\'s own distinct_id merges nothing: the event goes to that id\'s own person, unidentified', () => {
  const w = world();
  w.send('e', 'anon-9', { $set: { seen: true } });
  const out = w.send('$identify', 'null', { $anon_distinct_id: 'anon-9', $set: { email: 'a@x' } });
  assert.equal(out.warnings, [{ type: 'cannot_merge_with_illegal_distinct_id', details: { illegalDistinctId: 'null', otherDistinctId: 'anon-9', eventUuid: 'ev-2' } }]);
  assert.is(w.count(), 2);
  const own = w.person('null');
  assert.is(out.personUuid, personUuid(PROJECT, 'null'));
  assert.is(own.uuid, out.personUuid);
  assert.equal(own.distinct_ids, ['null']);
  assert.is(own.is_identified, false);
  assert.is(own.properties.email, 'a@x');
  assert.equal(w.person('anon-9').distinct_ids, ['anon-9']);
  assert.equal(w.person('anon-9').properties, { seen: true, $creator_event_uuid: 'ev-1' });
  assert.is(w.person('anon-9').is_identified, false);
});

s('identifying an id with itself, or without $anon_distinct_id, neither merges nor identifies', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'user-1', $set: { a: 1 } });
  w.send('$identify', 'user-2', { $set: { a: 2 } });
  assert.is(w.person('user-1').is_identified, false);
  assert.is(w.person('user-2').is_identified, false);
  assert.is(w.person('user-2').properties.a, 2);
});

s('identifying two ids of the same person only marks it identified', () => {
  const w = world();
  w.send('$identify', 'user-1', { $anon_distinct_id: 'anon-1' });
  const out = w.send('$identify', 'anon-1', { $anon_distinct_id: 'user-1' });
  assert.is(out.change, null);
  assert.is(w.count(), 1);
});

s('an empty alias asks for no merge', () => {
  const w = world();
  w.send('$create_alias', 'user-1', { alias: '' });
  assert.equal(w.person('user-1').distinct_ids, ['user-1']);
});

// UUIDv5 spelled out with a Hash object, for names of any length.
function personUuidOf(projectId: number, distinctId: string): string {
  const b = createHash('sha1').update(Buffer.from('932979b465c3442484670b66ec27bc22', 'hex')).update(`${projectId}:${distinctId}`).digest();
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex', 0, 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

s('person uuids are PostHog\'s: UUIDv5 of "<project>:<distinct id>"', () => {
  assert.is(personUuid(2, 'abc'), 'fe709dba-6282-5f30-90f7-8ccbc7aa6f8a');
  assert.is(personUuid(1, 'user-1'), '6931a681-6e90-500d-8294-14582dcc2e3f');
  // Multi-byte characters, an empty id, and an id longer than any buffer kept for hashing.
  assert.is(personUuid(2, 'ünïcødé-😀'), 'd1ea1875-c3b3-5d38-a2b4-8be8b487ddba');
  assert.is(personUuid(1, ''), 'a29d8c7e-43ad-58a0-b250-c139a25aa918');
  assert.is(personUuid(7, 'x'.repeat(600)), '7941fbf8-e9e3-5f27-a0d2-eccaa8fca6ba');
  assert.is(personUuid(7, 'x'.repeat(5000)), personUuidOf(7, 'x'.repeat(5000)));
});

s.run();
