// Runs a project's enabled internal destinations on one of hedgerow's own events, on the
// node where it happened (PostHog runs them from its internal events topic through the
// destination pipeline). Each runs once as a test run runs (filters, inputs, its program,
// each fetch made once under the address policy), its logs and metrics written as a
// delivery's. Not queued: an internal event is delivered at most once, and a node that
// stops while one runs loses it.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { TaskRunner } from '../../pools/index.js';
import type { DestinationsTables } from '../tables.js';
import { projectHogFunctions } from '../store.js';
import type { HogExecTasks } from '../tasks.js';
import { runDestination, TEST_RUN_TIMEOUT_MS } from '../api/invoke.js';
import type { DestinationsStore } from '../runtime/env.js';
import { projectUrl, type EventContext } from '../runtime/globals.js';
import { instanceIdOf } from '../runtime/queue.js';
import { createTelemetry } from '../runtime/telemetry.js';

export interface InternalEvent {
  projectId: number;
  event: string;
  properties: Record<string, unknown>;
  // Who did it: the event's distinct_id and person (PostHog: the user), else `team_<id>`.
  user: { distinct_id: string; id: string; properties: Record<string, unknown> } | null;
}

export interface InternalDeps {
  store: DestinationsTables;
  ds: DestinationsStore;
  exec: TaskRunner<HogExecTasks>;
  fetchAllow: string;
  siteUrl: string;
  projectName(id: number): string;
}

const LEVELS = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', warning: 'WARN', error: 'ERROR' } as const;

export async function runInternalEvent(deps: InternalDeps, ev: InternalEvent): Promise<void> {
  const fns = projectHogFunctions(deps.store, ev.projectId).filter((f) => f.type === 'internal_destination' && f.enabled && !f.deleted && Array.isArray(f.bytecode));
  if (fns.length === 0) return;
  const uuid = randomUUID();
  const ctx: EventContext = {
    project: { id: ev.projectId, name: deps.projectName(ev.projectId), url: projectUrl(deps.siteUrl, ev.projectId) },
    event: {
      uuid, event: ev.event, distinct_id: ev.user?.distinct_id ?? `team_${ev.projectId}`, properties: ev.properties,
      timestamp: new Date().toISOString(), elements_chain: '',
    },
    person: ev.user ? { id: ev.user.id, properties: ev.user.properties } : null,
    groups: {},
  };
  await Promise.all(fns.map(async (fn) => {
    const logs: { level: string; timestamp: string; message: string }[] = [];
    const run = await runDestination(fn, ctx, { exec: deps.exec, fetchAllow: deps.fetchAllow, endsAt: performance.now() + TEST_RUN_TIMEOUT_MS, logs })
      .catch((err: unknown) => ({ status: 'error' as const, errors: [err instanceof Error ? err.message : String(err)], logs, result: null }));
    const telemetry = createTelemetry(Date.now);
    const instance = instanceIdOf([fn.id, uuid, 0]);
    for (const line of run.logs) telemetry.log(fn.id, instance, LEVELS[line.level as keyof typeof LEVELS] ?? 'INFO', line.message);
    if (run.status === 'skipped') telemetry.count(fn.id, 'filtered');
    else {
      telemetry.count(fn.id, 'triggered');
      telemetry.count(fn.id, run.status === 'error' ? 'failed' : 'succeeded');
    }
    await deps.ds.root.transaction(() => telemetry.write(deps.ds));
  }));
}
