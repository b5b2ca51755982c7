import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventTimestamp, isoString } from '../../src/capture/normalize.js';
import { normalizeCapture } from '../../src/capture/scan.js';
import { ApiError } from '../../src/errors.js';

const now = new Date('2026-01-10T12:00:00.000Z');
let n = 0;
const ctx = (query = '') => ({ now, ip: '10.1.2.3', query: new URLSearchParams(query), newUuid: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` });

const s = suite('capture normalization');

s('a single event takes its token from api_key and keeps its fields', () => {
  const r = normalizeCapture({ api_key: 'phc_a', event: 'e', distinct_id: 'u', properties: { x: 1 } }, ctx());
  assert.is(r.token, 'phc_a');
  assert.is(r.events.length, 1);
  assert.is(r.events[0].event, 'e');
  assert.is(r.events[0].distinct_id, 'u');
  assert.equal(r.events[0].properties, { x: 1, $ip: '10.1.2.3' });
  assert.is(r.events[0].timestamp, now.toISOString());
  assert.is(r.events[0].historical, false);
});

s('a batch object carries token, historical_migration and sent_at', () => {
  const r = normalizeCapture({ token: 'phc_b', historical_migration: true, sent_at: '2026-01-10T11:59:00.000Z',
    batch: [{ event: 'e', properties: { distinct_id: 'u' }, timestamp: '2026-01-10T11:58:00.000Z' }] }, ctx());
  assert.is(r.token, 'phc_b');
  assert.is(r.events[0].historical, true);
  // Client clock one minute behind: event happened one minute before it was sent.
  assert.is(r.events[0].timestamp, '2026-01-10T11:59:00.000Z');
});

s('an array body is a list of events and tokens come from each event', () => {
  const r = normalizeCapture([{ event: 'a', distinct_id: 'u', $token: 'phc_c' }, { event: 'b', distinct_id: 'u', properties: { token: 'phc_c' } }], ctx());
  assert.is(r.token, 'phc_c');
  assert.is(r.events.length, 2);
});

s('query token and api_key are token locations too', () => {
  assert.is(normalizeCapture({ event: 'a', distinct_id: 'u' }, ctx('token=phc_q')).token, 'phc_q');
  assert.is(normalizeCapture({ event: 'a', distinct_id: 'u' }, ctx('api_key=phc_r')).token, 'phc_r');
});

s('disagreeing tokens in one request are refused', () => {
  assert.throws(() => normalizeCapture({ api_key: 'phc_a', batch: [{ event: 'a', distinct_id: 'u', token: 'phc_b' }] }, ctx()),
    (e: unknown) => e instanceof ApiError && e.status === 400);
});

s('a personal API key as token is refused with 401', () => {
  assert.throws(() => normalizeCapture({ api_key: 'phx_secret', event: 'a', distinct_id: 'u' }, ctx()),
    (e: unknown) => e instanceof ApiError && e.status === 401);
});

s('no events at all is a 400', () => {
  assert.throws(() => normalizeCapture({ api_key: 'phc_a', batch: [] }, ctx()), (e: unknown) => e instanceof ApiError && e.status === 400);
  assert.throws(() => normalizeCapture([], ctx()), (e: unknown) => e instanceof ApiError && e.status === 400);
  assert.throws(() => normalizeCapture('text', ctx()), (e: unknown) => e instanceof ApiError && e.status === 400);
});

s('events with no name, no distinct_id or an empty one are dropped and counted, the rest kept', () => {
  const r = normalizeCapture({ api_key: 'phc_a', batch: [
    { distinct_id: 'u' }, { event: '', distinct_id: 'u' }, { event: 'x' }, { event: 'x', distinct_id: '' },
    { event: 'x', distinct_id: '   ' }, { event: 'ok', distinct_id: 'u' }, 'not an object', { event: 'x', distinct_id: 'u', properties: 5 },
  ] }, ctx());
  assert.equal(r.events.map((e) => e.event), ['ok']);
  assert.equal(r.dropped, { missing_event_name: 2, missing_distinct_id: 3, invalid_event: 2 });
});

s('distinct id comes from distinct_id, $distinct_id or properties, stringified and cut to 200', () => {
  assert.is(normalizeCapture({ api_key: 'k', event: 'e', $distinct_id: 'd' }, ctx()).events[0].distinct_id, 'd');
  assert.is(normalizeCapture({ api_key: 'k', event: 'e', properties: { distinct_id: 42 } }, ctx()).events[0].distinct_id, '42');
  assert.is(normalizeCapture({ api_key: 'k', event: 'e', distinct_id: 'x'.repeat(300) }, ctx()).events[0].distinct_id.length, 200);
});

s('an object distinct id nested too deep to stringify drops its event, not the request', () => {
  const deep = JSON.parse('['.repeat(5000) + ']'.repeat(5000)) as unknown;
  const r = normalizeCapture({ api_key: 'k', batch: [{ event: 'e', distinct_id: deep }, { event: 'ok', distinct_id: { a: 1 } }] }, ctx());
  assert.equal(r.events.map((e) => [e.event, e.distinct_id]), [['ok', '{"a":1}']]);
  assert.equal(r.dropped, { invalid_event: 1 });
});

s('a missing uuid is generated, a given one kept; an invalid one drops the event', () => {
  const r = normalizeCapture({ api_key: 'k', batch: [
    { event: 'e', distinct_id: 'u' },
    { event: 'e', distinct_id: 'u', uuid: '0190A0E4-1C4E-7B1A-9E5B-1D2C3B4A5F60' },
    { event: 'e', distinct_id: 'u', uuid: 'nope' },
  ] }, ctx());
  assert.match(r.events[0].uuid, /^00000000-0000-7000-8000-/);
  assert.is(r.events[1].uuid, '0190a0e4-1c4e-7b1a-9e5b-1d2c3b4a5f60');
  assert.is(r.events.length, 2);
  assert.equal(r.dropped, { invalid_event: 1 });
});

s('top-level $set and $set_once fold into properties, properties winning', () => {
  const r = normalizeCapture({ api_key: 'k', event: '$identify', distinct_id: 'u', $set: { a: 1, b: 1 }, $set_once: { c: 1 }, properties: { $set: { b: 2 } } }, ctx());
  assert.equal(r.events[0].properties.$set, { a: 1, b: 2 });
  assert.equal(r.events[0].properties.$set_once, { c: 1 });
});

s('$ip from the client address unless the event has one', () => {
  assert.is(normalizeCapture({ api_key: 'k', event: 'e', distinct_id: 'u', properties: { $ip: '1.1.1.1' } }, ctx()).events[0].properties.$ip, '1.1.1.1');
});

s('timestamps: skew correction, offset, _ param, $ignore_sent_at, future clamp', () => {
  const nowMs = now.getTime();
  assert.is(eventTimestamp({ timestamp: '2026-01-10T13:00:00Z' }, {}, nowMs, Date.parse('2026-01-10T13:00:05Z')), '2026-01-10T11:59:55.000Z');
  assert.is(eventTimestamp({ timestamp: '2026-01-10T13:00:00Z' }, { $ignore_sent_at: true }, nowMs, Date.parse('2026-01-10T13:00:05Z')), '2026-01-10T13:00:00.000Z');
  assert.is(eventTimestamp({ offset: 1500 }, {}, nowMs, null), '2026-01-10T11:59:58.500Z');
  assert.is(eventTimestamp({ timestamp: '2027-01-01T00:00:00Z' }, {}, nowMs, null), now.toISOString());
  assert.is(eventTimestamp({ timestamp: 'garbage' }, {}, nowMs, null), now.toISOString());
  const r = normalizeCapture({ api_key: 'k', event: 'e', distinct_id: 'u', timestamp: '2026-01-10T13:00:00Z' }, ctx(`_=${Date.parse('2026-01-10T13:00:10Z')}`));
  assert.is(r.events[0].timestamp, '2026-01-10T11:59:50.000Z');
});

s('isoString formats exactly as Date.prototype.toISOString', () => {
  const edges = [0, 1, 999, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2100, 1, 28), Date.UTC(2100, 2, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, -1, -62198755200000, 1.5, 8.64e15];
  for (const ms of edges) assert.is(isoString(ms), new Date(ms).toISOString(), String(ms));
  // Every day from 1970 to 9999, at a time of day that moves with the day.
  for (let d = 0; d < 2_932_897; d += 7) {
    const ms = d * 86_400_000 + ((d * 7919) % 86_400_000);
    if (isoString(ms) !== new Date(ms).toISOString()) assert.is(isoString(ms), new Date(ms).toISOString());
  }
});

s.run();
