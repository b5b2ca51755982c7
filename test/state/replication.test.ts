// Every management write of the service, taken through a model of a control stream
// (test/helpers/replicated-writes.ts) to two nodes: each command travels as msgpack and
// each node applies the stream in order with the service's own appliers. Both nodes must
// end with the same management state, entry for entry: the appliers take nothing from the
// clock or a random source, and every payload survives encoding (docs/decisions/0015).
import { linkSlot } from '../../src/insights/api/links.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { COMMANDS } from '../helpers/commands.js';
import { bootstrap, createTenancyStore, createMemberStore } from '../../src/access/index.js';
import { insertCohort, insertFlag, saveCohort, saveFlag } from '../../src/flags/definitions/commands.js';
import { createFlagMeter } from '../../src/quota/index.js';
import { deletePersonCommand, writeHashKeyOverridesCommand } from '../../src/persons/commands.js';
import { createInsight, updateInsight } from '../../src/insights/api/insight-write.js';
import { insertHogFunction, rearrangeHogFunctions, saveHogFunction } from '../../src/destinations/commands.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';
import { expireExportsCommand, finishExportCommand, insertExportCommand, resumeExportCommand } from '../../src/exports/assets/commands.js';
import { applyEntries } from '../../src/events/consumer.js';
import { createPersonStep } from '../../src/persons/step.js';
import { personRecordByDistinctId } from '../../src/persons/store.js';
import type { StoredFlag } from '../../src/flags/definitions/types.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventMaker } from '../helpers/person-events.js';
import { createReplicatedWrites } from '../helpers/replicated-writes.js';

const s = suite('management writes replicated');
const NOW = Date.parse('2026-03-10T12:00:00.000Z');
let dirs: string[];
let nodes: Store[];
s.before.each(() => {
  dirs = [tempDir('hedgerow-node-a-'), tempDir('hedgerow-node-b-')];
  nodes = dirs.map((d) => openStore(d, tables));
});
s.after.each(async () => {
  for (const n of nodes) await n.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MANAGED = ['tenancy', 'flags', 'cohorts', 'cohortMembers', 'flagState', 'quota', 'hashKeyOverrides', 'insights', 'hogFunctions', 'hogFunctionVersions', 'exports',
  'persons', 'personDistinctIds', 'personIds', 'personRedirects', 'personSeq'] as const;
const contents = (store: Store, db: (typeof MANAGED)[number]) => [...store[db].getRange()].map(({ key, value }) => [key, value]);

s('two nodes applying the same commands hold the same management state', async () => {
  // Persons come from the event log, which both nodes apply alike.
  const ev = eventMaker(1, NOW);
  const events = [ev('$pageview', 'anon-1'), ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1' }), ev('$pageview', 'gone')];
  for (const store of nodes) await applyEntries(store, [{ seq: 1, events: structuredClone(events) }], createPersonStep(store, () => NOW));

  const [a] = nodes;
  const writes = createReplicatedWrites(nodes, COMMANDS);
  const tenancy = createTenancyStore(a, writes);
  const { project, admin } = await bootstrap(tenancy);
  const { record } = await tenancy.createPersonalKey(admin.id, ['*'], null, 'one');
  tenancy.markPersonalKeyUsed(record, new Date(NOW));
  const second = await tenancy.createPersonalKey(admin.id, ['flag:read'], [project.id], 'two');
  assert.is(await tenancy.revokePersonalKey(second.record.id), true);
  const other = await tenancy.createProject(project.organization_id, 'Other', { access_control: true });
  await tenancy.updateProject(other.id, { name: 'Renamed', timezone: 'Europe/Warsaw' });
  await tenancy.rotateProjectToken(other.id);
  const bob = await tenancy.createUser({ email: 'Bob@Example.com', organization_id: project.organization_id, current_project_id: project.id });
  await tenancy.setCurrentProject(bob.id, other.id);
  await tenancy.createUser({ email: 'bob@example.com', organization_id: project.organization_id, current_project_id: project.id })
    .then(() => assert.unreachable('a second user with one email'), (err: Error) => assert.match(err.message, /already exists/));

  const members = createMemberStore(a, writes);
  const m = (await members.create(other.id, bob.id, 1))!;
  await members.setLevel(m, 8);
  const carol = await tenancy.createUser({ email: 'carol@example.com', organization_id: project.organization_id, current_project_id: project.id });
  await members.remove((await members.create(other.id, carol.id, 1))!);

  const flag = (key: string, deleted = false): Omit<StoredFlag, 'id'> => ({
    project_id: project.id, key, name: key, active: true, deleted, ensure_experience_continuity: true,
    filters: { groups: [{ properties: [], rollout_percentage: 50 }] }, version: 1, evaluation_runtime: 'all', bucketing_identifier: null,
    created_at: new Date(NOW).toISOString(), created_by: admin.id, updated_at: new Date(NOW).toISOString(), last_modified_by: admin.id,
  });
  const old = await insertFlag(writes, flag('reused', true));
  const live = await insertFlag(writes, flag('reused'));
  assert.ok(live.id > old.id);
  await saveFlag(writes, { ...live, version: 2, active: false });
  const cohort = await insertCohort(writes, {
    project_id: project.id, name: 'Static', description: '', filters: { properties: { type: 'AND', values: [] } }, is_static: true, deleted: false,
    created_at: new Date(NOW).toISOString(), created_by: admin.id,
  }, ['user-1', 'user-1', 'x']);
  await saveCohort(writes, cohort, ['y', 'x']);

  const meter = createFlagMeter(a, writes);
  await meter.setQuota(project.organization_id, 1000);
  for (let i = 0; i < 3; i++) meter.record(project.organization_id, NOW);
  await meter.flush();

  const asAdmin = { project, user: admin, key: record };
  const insight = await createInsight(writes, linkSlot().links, { name: 'Views', query: { kind: 'TrendsQuery', series: [{ event: '$pageview' }] } }, asAdmin, new Date(NOW));
  await updateInsight(writes, linkSlot().links, insight, { deleted: true }, asAdmin, new Date(NOW + 1000));
  const hogFunction = (id: string): StoredHogFunction => ({
    id, project_id: project.id, type: 'destination', name: id, description: '', created_at: new Date(NOW).toISOString(), created_by: admin.id,
    updated_at: new Date(NOW).toISOString(), enabled: true, deleted: false, hog: 'return 1', bytecode: ['_H', 1, 33, 1, 38], transpiled: null,
    inputs_schema: [{ key: 'url', type: 'string', secret: true }], inputs: {}, secret_inputs: { url: { value: 'https://x', order: 0 } },
    filters: { source: 'events', bytecode: ['_H', 1, 29] }, masking: null, mappings: null, icon_url: null, template_id: null,
    execution_order: null, watcher_epoch: 0,
  });
  const hf = await insertHogFunction(writes, hogFunction('00000000-0000-4000-8000-000000000001'));
  await insertHogFunction(writes, hogFunction('00000000-0000-4000-8000-000000000002'));
  await saveHogFunction(writes, { ...hf, enabled: false, watcher_epoch: 1 });
  await rearrangeHogFunctions(writes, { project_id: project.id, orders: [[hf.id, 2]], updated_at: new Date(NOW).toISOString() });

  const exportAsset = (expires_after: string) => writes.submit(insertExportCommand, {
    project_id: project.id, created_by: admin.id, dashboard: null, insight: insight.id, export_format: 'image/png', export_context: { columns: ['a'] },
    created_at: new Date(NOW).toISOString(), expires_after, filename: 'export-views-2026-03-10-120000.png', content: null, exception: null, attempts: 1,
  });
  const rendered = await exportAsset('2026-09-06T00:00:00.000Z');
  await writes.submit(finishExportCommand, { project_id: project.id, id: rendered.id, content: { sha256: 'ab'.repeat(32), size: 10 }, exception: null });
  const failed = await exportAsset('2026-09-06T00:00:00.000Z');
  await writes.submit(resumeExportCommand, { project_id: project.id, id: failed.id, maxAttempts: 1, exception: 'interrupted' });
  await exportAsset('2026-03-10T00:00:00.000Z');
  assert.is(await writes.submit(expireExportsCommand, { now: new Date(NOW).toISOString() }), 1);

  // Person commands no longer submitted (0032), as a control stream's history may hold them.
  assert.is(await writes.submit(writeHashKeyOverridesCommand, { project_id: 1, distinct_ids: ['user-1', 'nobody'], flag_keys: ['reused'], hash_key: 'anon-1' }), true);
  await writes.submit(deletePersonCommand, { project_id: 1, uuid: personRecordByDistinctId(a, 1, 'gone')!.uuid });
  await writes.settled();

  const [, b] = nodes;
  for (const db of MANAGED) assert.equal(contents(b, db), contents(a, db), `${db} differs`);
  // The state is what the writes made, not two empty stores.
  assert.is(personRecordByDistinctId(b, 1, 'gone'), undefined);
  assert.is(createTenancyStore(b, writes).project(other.id)!.name, 'Renamed');
  assert.is(meter.usage(project.organization_id, NOW), 3);
  assert.ok(writes.stream.length >= 20);
});

s.run();
