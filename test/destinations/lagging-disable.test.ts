// What matched while a function was off is not delivered, however far behind the
// destinations consumer runs (issue 30, item 2): here it does not run at all while a
// function is enabled, disabled, enabled again and events are captured in between; a server
// started later on the same data dir runs it over the whole log. Events captured while the
// function was off are not delivered; those captured while it was on are.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { apiClient } from '../helpers/api.js';
import { eventually, postJson, startTestServer, tempDir, EVENTS_ONLY, NO_INSIGHTS } from '../helpers/server.js';
import { startSink } from '../helpers/http-sink.js';

const s = suite('destinations: off periods with a lagging consumer');

s('events captured while the function was disabled or deleted are not delivered by a consumer that reads them later', async () => {
  const dataDir = tempDir('hedgerow-lagging-');
  const sink = await startSink();
  const env = { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' };
  // The destinations consumer starts at the log's end: it runs once, so it stands at the start.
  let t = await startTestServer({ env, dataDir, consumers: NO_INSIGHTS });
  await t.applied();
  await t.close();
  t = await startTestServer({ env, dataDir, consumers: EVENTS_ONLY });
  try {
    let api = apiClient(t);
    const fns = `/api/environments/${t.projectId}/hog_functions/`;
    const made = await api('POST', fns, t.personalKey, {
      enabled: true, template_id: 'template-webhook', name: 'lagging',
      inputs: { url: { value: `${sink.url}/lag` }, body: { value: { n: '{event.properties.n}' } } },
      filters: { events: [{ id: 'tick', type: 'events' }] },
    });
    assert.is(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id as string;
    const capture = async (...ns: number[]) => {
      const res = await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: ns.map((n) => ({ event: 'tick', distinct_id: `d${n}`, properties: { n } })) });
      assert.is(res.status, 200);
      await t.applied();
    };
    const patch = async (body: object) => assert.is((await api('PATCH', `${fns}${id}/`, t.personalKey, body)).status, 200);
    await capture(1, 2);
    await patch({ enabled: false });
    await capture(3, 4);
    await patch({ enabled: true });
    await capture(5);
    await patch({ deleted: true });
    await capture(6);
    await patch({ deleted: false });
    await capture(7, 8);
    const stored = (await api('GET', `${fns}${id}/`, t.personalKey)).body;
    assert.is(stored.enabled, true);
    await t.close();

    // The consumer runs now, over all of it.
    t = await startTestServer({ env, dataDir, consumers: NO_INSIGHTS });
    api = apiClient(t);
    await t.applied();
    await eventually(async () => {
      const totals = (await api('GET', `${fns}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
      return totals.succeeded === 5;
    });
    await t.applied();
    assert.equal(sink.requests.map((r) => r.json().n).sort((a: number, b: number) => a - b), [1, 2, 5, 7, 8]);
    const totals = (await api('GET', `${fns}${id}/metrics/totals/?breakdown_by=name`, t.personalKey)).body.totals;
    assert.is(totals.triggered, 5);
  } finally {
    await t.close();
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
