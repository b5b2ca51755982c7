// Capture's promise whatever log sits behind it: an event answered 200 becomes
// readable through the events API, whole. One case list, run against every log
// (test/log/capture-over-logs.test.ts); any capture suite may register it too.
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { postJson, request, bearer, eventually, type TestServer } from '../helpers/server.js';

interface ApiEvent { uuid: string; event: string; distinct_id: string; properties: Record<string, unknown>; timestamp: string }

async function storedEvent(t: TestServer, uuid: string): Promise<ApiEvent> {
  return eventually(async () => {
    const r = await request(`${t.url}/api/environments/${t.projectId}/events/${uuid}/`, { headers: bearer(t.personalKey) });
    return r.status === 200 ? r.body as ApiEvent : null;
  });
}

async function storedEvents(t: TestServer, distinctId: string, n: number): Promise<ApiEvent[]> {
  return eventually(async () => {
    const r = await request(`${t.url}/api/environments/${t.projectId}/events/?distinct_id=${distinctId}&limit=1000`,
      { headers: bearer(t.personalKey) });
    return r.status === 200 && r.body.results.length >= n ? r.body.results as ApiEvent[] : null;
  });
}

const batchOf = (n: number, distinctId: string) => Array.from({ length: n }, (_, i) => ({
  uuid: randomUUID(), event: 'batched', distinct_id: distinctId, properties: { i },
  timestamp: new Date(Date.now() - (n - i) * 1000).toISOString(),
}));

export function durableCaptureCases(s: Test, server: () => TestServer): void {
  s('a single event answered 200 is readable by its uuid, with its name, distinct_id, properties and timestamp', async () => {
    const t = server();
    const sent = { uuid: randomUUID(), event: 'signed up', distinct_id: `single-${randomUUID()}`,
      properties: { plan: 'pro', seats: 3 }, timestamp: '2026-01-02T03:04:05.678Z' };
    const r = await postJson(`${t.url}/i/v0/e/`, { api_key: t.projectKey, ...sent });
    assert.is(r.status, 200);
    assert.equal(r.body, { status: 1 });
    const got = await storedEvent(t, sent.uuid);
    assert.is(got.event, sent.event);
    assert.is(got.distinct_id, sent.distinct_id);
    assert.is(got.properties.plan, 'pro');
    assert.is(got.properties.seats, 3);
    assert.is(new Date(got.timestamp).toISOString(), sent.timestamp);
  });

  s('every event of a /batch/ answered 200 is readable, newest first', async () => {
    const t = server();
    const distinctId = `batch-${randomUUID()}`;
    const batch = batchOf(50, distinctId);
    const r = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch });
    assert.is(r.status, 200);
    const got = await storedEvents(t, distinctId, 50);
    assert.equal(got.map((e) => e.uuid), batch.map((e) => e.uuid).reverse());
  });

  s('a gzip batch (magic bytes as text/plain, and Content-Encoding: gzip) is readable', async () => {
    const t = server();
    const distinctId = `gzip-${randomUUID()}`;
    const [a, b] = [batchOf(5, distinctId), batchOf(5, distinctId)];
    const body = (batch: unknown[]) => gzipSync(JSON.stringify({ api_key: t.projectKey, batch }));
    const sends = await Promise.all([
      fetch(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: body(a) }),
      fetch(`${t.url}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: body(b) }),
    ]);
    for (const res of sends) assert.is(res.status, 200);
    const got = new Set((await storedEvents(t, distinctId, 10)).map((e) => e.uuid));
    for (const e of [...a, ...b]) assert.ok(got.has(e.uuid), `missing ${e.uuid}`);
  });

  s('an event sent twice (an SDK retry) is stored once', async () => {
    const t = server();
    const distinctId = `retry-${randomUUID()}`;
    const event = { uuid: randomUUID(), event: 'retried', distinct_id: distinctId };
    for (let i = 0; i < 2; i++) assert.is((await postJson(`${t.url}/e/`, { api_key: t.projectKey, ...event })).status, 200);
    const marker = { uuid: randomUUID(), event: 'after retries', distinct_id: distinctId };
    assert.is((await postJson(`${t.url}/e/`, { api_key: t.projectKey, ...marker })).status, 200);
    const got = await storedEvents(t, distinctId, 2);
    assert.equal(got.map((e) => e.uuid).sort(), [event.uuid, marker.uuid].sort());
  });
}
