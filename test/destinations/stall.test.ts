// A paused process fails no well-behaved function (issue 30, item 2): the real `hedgerow
// serve` is stopped with SIGSTOP for 120 ms at a time, again and again (as a loaded host or a
// long GC pause stops it), while a few hundred matching events flow to a local sink. The
// budgets of filters, input templates and programs are wall-clock backstops for runaway
// code; with 100 ms budgets this lost 4–9 of 6,000 events and failed 2–5 more.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { cliInit, cliServe, cliStop } from '../helpers/cli-server.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { startSink } from '../helpers/http-sink.js';

const s = suite('destinations under stalls');

const EVENTS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

s('SIGSTOP 120 ms at a time while events flow: every matching event delivered, none failed', async () => {
  const dataDir = tempDir('hedgerow-stall-');
  const sink = await startSink();
  const keys = cliInit(dataDir);
  const { child, url } = await cliServe(dataDir, { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' });
  let pausing = true;
  let pauses = 0;
  try {
    const created = await request(`${url}/api/environments/${keys.project_id}/hog_functions/`, {
      method: 'POST', headers: { ...bearer(keys.personal_api_key), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        template_id: 'template-webhook', enabled: true,
        inputs: {
          url: { value: `${sink.url}/deliver` },
          body: { value: { n: '{event.properties.n}', who: '{person.properties.email}', label: "{concat('order ', event.properties.n)}" } },
        },
        // A filter with a property test, so the filter program runs for every event.
        filters: { events: [{ id: 'order', type: 'events', properties: [{ key: 'n', value: 0, operator: 'gt', type: 'event' }] }] },
      }),
    });
    assert.is(created.status, 201, JSON.stringify(created.body));
    const totals = async () => (await request(`${url}/api/environments/${keys.project_id}/hog_functions/${created.body.id}/metrics/totals/?breakdown_by=name`,
      { headers: bearer(keys.personal_api_key) })).body.totals as Record<string, number>;

    // Stopped 120 ms, running 30 ms, over and over, until every event has been answered.
    const pauser = (async () => {
      while (pausing && child.exitCode === null) {
        child.kill('SIGSTOP');
        await sleep(120);
        child.kill('SIGCONT');
        pauses++;
        await sleep(30);
      }
    })();
    for (let from = 1; from <= EVENTS; from += 30) {
      const batch = [];
      for (let n = from; n < from + 30 && n <= EVENTS; n++) {
        batch.push({ event: 'order', distinct_id: `c${n % 11}`, properties: { n, $set: { email: `c${n % 11}@x.test` } } });
        batch.push({ event: 'ignored', distinct_id: `c${n % 11}`, properties: { n } });
      }
      assert.is((await postJson(`${url}/batch/`, { api_key: keys.project_api_key, batch })).status, 200);
    }
    await eventually(async () => new Set(sink.answered.map((r) => r.json().n)).size === EVENTS, 120_000);
    pausing = false;
    await pauser;
    await eventually(async () => { const { triggered = 0, succeeded = 0, failed = 0 } = await totals(); return triggered === EVENTS && succeeded + failed === EVENTS; }, 30_000);
    const t = await totals();
    assert.is(t.failed ?? 0, 0, JSON.stringify(t));
    assert.is(t.succeeded, EVENTS);
    assert.is(t.filtering_failed ?? 0, 0);
    assert.is(t.inputs_failed ?? 0, 0);
    const got = new Set(sink.answered.map((r) => r.json().n));
    assert.equal([...got].sort((a, b) => a - b), Array.from({ length: EVENTS }, (_, i) => i + 1));
    const one = sink.answered.find((r) => r.json().n === 12)!.json();
    assert.equal(one, { n: 12, who: 'c1@x.test', label: 'order 12' });
    // The process really was stopped while it worked.
    assert.ok(pauses >= 5, `paused ${pauses} times`);
  } finally {
    pausing = false;
    if (child.exitCode === null) child.kill('SIGCONT');
    await cliStop(child, 'SIGKILL');
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
