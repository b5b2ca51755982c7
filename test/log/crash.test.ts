// The durability promise end to end: the real CLI serving captures under load is
// killed with SIGKILL, restarted on the same data dir, and every event that was
// answered 200 is readable through the events API.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { postJson, request, bearer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { cliInit, cliServe, cliStop, type CliKeys } from '../helpers/cli-server.js';

const ACKED_BEFORE_KILL = 100;
const CONNECTIONS = 32;
const BATCH_SIZE = 10;
const DISTINCT_ID = `crash-${randomUUID()}`;

const event = (uuid: string) => ({ uuid, event: 'under load', distinct_id: DISTINCT_ID });

// Keeps one connection busy alternating single events and batches, recording the
// uuids of every request answered 200, until `stop` is set.
async function loadLoop(url: string, token: string, acked: Set<string>, stop: { now: boolean }, errors: { count: number }): Promise<void> {
  for (let i = 0; !stop.now; i++) {
    const uuids = Array.from({ length: i % 2 ? BATCH_SIZE : 1 }, () => randomUUID());
    const send = uuids.length === 1
      ? postJson(`${url}/i/v0/e/`, { api_key: token, ...event(uuids[0]) })
      : postJson(`${url}/batch/`, { api_key: token, batch: uuids.map(event) });
    try {
      if ((await send).status === 200) for (const u of uuids) acked.add(u);
    } catch {
      // The server died with this request in flight: never acknowledged, so no promise to keep.
      errors.count++;
    }
  }
}

async function readAllUuids(url: string, keys: CliKeys): Promise<Set<string>> {
  const seen = new Set<string>();
  let next: string | null = `${url}/api/environments/${keys.project_id}/events/?distinct_id=${DISTINCT_ID}&limit=1000`;
  while (next) {
    const r = await request(next, { headers: bearer(keys.personal_api_key) });
    assert.is(r.status, 200);
    for (const e of r.body.results as Array<{ uuid: string }>) seen.add(e.uuid);
    next = r.body.next;
  }
  return seen;
}

const s = suite('crash: SIGKILL under load loses no acknowledged event');
const dataDir = tempDir('hedgerow-crash-');
s.after(() => rmSync(dataDir, { recursive: true, force: true }));

s('every uuid answered 200 before the kill is readable after a restart on the same data dir', async () => {
  const keys = cliInit(dataDir);
  const first = await cliServe(dataDir);
  const acked = new Set<string>();
  const stop = { now: false };
  const failures = { count: 0 };
  const loops = Array.from({ length: CONNECTIONS }, () => loadLoop(first.url, keys.project_api_key, acked, stop, failures));
  // However slow the machine, the kill comes once more than a hundred events were
  // acknowledged: a load window of fixed length acknowledged too few on a busy machine.
  await eventually(async () => acked.size > ACKED_BEFORE_KILL, 60_000);
  // Killed while requests are still in flight, then the load stops.
  await cliStop(first.child, 'SIGKILL');
  stop.now = true;
  await Promise.all(loops);
  assert.ok(acked.size > ACKED_BEFORE_KILL, `only ${acked.size} events were acknowledged under load`);
  assert.ok(failures.count > 0, 'the kill did not land mid-load');

  const second = await cliServe(dataDir);
  try {
    const seen = await eventually(async () => {
      const s = await readAllUuids(second.url, keys);
      return [...acked].every((u) => s.has(u)) ? s : null;
    }, 15_000).catch(() => readAllUuids(second.url, keys));
    const lost = [...acked].filter((u) => !seen.has(u));
    assert.is(lost.length, 0, `${lost.length} of ${acked.size} acknowledged events lost`);
    // The restarted server still captures.
    assert.is((await postJson(`${second.url}/i/v0/e/`, { api_key: keys.project_api_key, ...event(randomUUID()) })).status, 200);
  } finally {
    await cliStop(second.child, 'SIGKILL');
  }
});

s.run();
