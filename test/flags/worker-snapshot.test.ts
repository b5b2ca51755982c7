// The flag worker reads its own store handle while another thread writes: lmdb-js keeps a
// read snapshot until a timer of the reading thread's event loop ends it, so a batch taken
// in the same loop turn as the one before read definitions as they were then, missing a
// change the management API had already answered for. Two stores opened on one data dir
// in this process are separate LMDB environments, as the worker's and the main thread's
// are: the task server runs on the reader, the writer commits between two batches in one
// turn, and the second batch must see the commit.
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { flagTaskServer } from '../../src/flags/serve/worker.js';
import { insertFlagCommand, saveFlagCommand } from '../../src/flags/definitions/commands.js';
import type { StoredFlag } from '../../src/flags/definitions/types.js';
import type { FlagTask, FlagTaskResult } from '../../src/flags/tasks.js';
import type { BatchOutcome } from '../../src/pools/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('flag worker: each batch reads a fresh snapshot');
const PROJECT = 1;
let dir: string;
let writer: Store;
let reader: Store;

s.before.each(() => {
  dir = tempDir('hedgerow-flag-snapshot-');
  writer = openStore(dir, tables);
  reader = openStore(dir, tables);
});
s.after.each(async () => {
  await reader.close();
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const task: FlagTask = {
  projectId: PROJECT, distinctId: 'reader', groups: {}, personProperties: {}, groupProperties: {}, geo: {},
  // flags_v1 (/decide?v=3) answers disabled flags too, as false.
  flagKeys: null, anonDistinctId: null, deviceId: null, protocol: 'flags_v1', now: 0,
};
const message = { kind: 'evaluate', inputs: [task] };

function flagFields(key: string, rollout: number): Omit<StoredFlag, 'id'> {
  const at = new Date(0).toISOString();
  return {
    project_id: PROJECT, key, name: key, active: true, deleted: false, ensure_experience_continuity: false,
    filters: { groups: [{ properties: [], rollout_percentage: rollout }] },
    version: 1, evaluation_runtime: 'all', bucketing_identifier: null, created_at: at, created_by: null, updated_at: at, last_modified_by: null,
  };
}

// As the applier commits a management write: one synchronous write transaction.
const commit = <R>(write: () => R): R => writer.root.transactionSync(write);

async function featureFlags(outcome: Promise<BatchOutcome<unknown>>): Promise<Record<string, unknown>> {
  const { outputs, failed } = await outcome;
  assert.is(failed, null);
  return JSON.parse((outputs[0] as FlagTaskResult).body).featureFlags;
}

s('a flag created, then rolled out, between two batches of one turn answers in the second', async () => {
  const serve = flagTaskServer(reader);
  const flag = commit(() => insertFlagCommand.apply(writer, flagFields('ramp', 0)));
  // No await between a batch and the next: the three are taken in one event-loop turn.
  const before = serve(message);
  commit(() => insertFlagCommand.apply(writer, flagFields('fresh', 100)));
  const created = serve(message);
  commit(() => saveFlagCommand.apply(writer, { ...flag, version: 2, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }));
  const rolledOut = serve(message);
  assert.equal(await featureFlags(before), { ramp: false });
  assert.equal(await featureFlags(created), { ramp: false, fresh: true });
  assert.equal(await featureFlags(rolledOut), { ramp: true, fresh: true });
});

s.run();
