// A test run of a configuration (POST …/hog_functions/<id|new>/invocations/), as PostHog's
// API and CDP answer it (reference/hog.md §1 "invocations"): the configuration validated and
// compiled like a save, the given globals (or ClickHouse event) turned into the invocation's,
// filters, mappings and inputs as the pipeline runs them, then the code, its fetches
// mocked (the default) or made for real, once, under the operator's address policy.
// Run here, on the HTTP thread, as the pipeline runs deliveries: compiling in the API's
// compile pool, each synchronous step (filters and inputs, a slice of the program) in the
// test runs' Hog pool under its deadline, fetches here, so a test run waiting for an
// endpoint holds no worker and one stuck in Hog code holds one for a slice's deadline.
import { performance } from 'node:perf_hooks';
import { PoolOverloadedError, TaskDeadlineError, type TaskRunner } from '../../pools/index.js';
import { errors as apiErrors } from '../../errors.js';
import type { ExecutionTiming } from '../../hog/index.js';
import { parseAddressPolicy } from '../../net/address-policy.js';
import { fetchRequest, programResponse } from '../fetch/fetch-rules.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from '../fetch/http-fetch.js';
import type { EventContext } from '../runtime/globals.js';
import { redactor, type LogLine } from '../runtime/run-slice.js';
import { completionLog } from '../runtime/completion-log.js';
import { runnable } from '../runtime/runnable.js';
import type { TransformOutcome } from '../runtime/transform-run.js';
import type { HogExecTasks, ValidateResult, ValidateTask } from '../tasks.js';
import type { StoredHogFunction } from '../types.js';
import type { ValidationContext } from './validate.js';
import { COMPILE_DEADLINE_MS } from './pools.js';

export interface InvokeTask {
  body: Record<string, unknown>;
  // The saved function when the path names one (its secret inputs are used), else null ("new").
  existing: StoredHogFunction | null;
  ctx: ValidationContext;
  project: { id: number; name: string; url: string };
  fetchAllow: string;
}

export interface InvokeDeps {
  // Compiles the configuration in the compile pool, in the project's turn.
  compile: (task: ValidateTask) => Promise<ValidateResult>;
  exec: TaskRunner<HogExecTasks>;
}

// A test run ends with an error once this much time has passed, fetches included.
export const TEST_RUN_TIMEOUT_MS = 30_000;

export interface InvokeResult {
  status: number;
  body: unknown;
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// DRF's nested error dictionary for one error at `attr` (a__b__c → {a: {b: {c: [detail]}}}).
function nestedErrors(attr: string | null, detail: string): Record<string, unknown> {
  const path = attr === null ? ['non_field_errors'] : attr.split('__');
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), [detail]) as Record<string, unknown>;
}

// The event a ClickHouse row describes (properties as JSON text), as PostHog converts it.
function globalsFromClickhouse(row: Record<string, unknown>): Record<string, unknown> {
  const parse = (v: unknown) => {
    if (typeof v !== 'string') return isDict(v) ? v : {};
    try { return JSON.parse(v) as Record<string, unknown>; } catch { return {}; }
  };
  return {
    event: {
      uuid: row.uuid, event: row.event, distinct_id: row.distinct_id, properties: parse(row.properties),
      timestamp: row.timestamp, elements_chain: row.elements_chain ?? '',
    },
    // Named even when undefined: PostHog's conversion always writes the key (see EventContext.personKeyed).
    person: row.person_id ? { id: row.person_id, properties: parse(row.person_properties) } : undefined,
  };
}

function eventContext(globals: Record<string, unknown>, project: InvokeTask['project']): EventContext {
  const event = globals.event as Record<string, unknown>;
  const person = isDict(globals.person) ? globals.person : null;
  const groups: EventContext['groups'] = {};
  if (isDict(globals.groups)) {
    for (const [type, g] of Object.entries(globals.groups)) {
      if (!isDict(g)) continue;
      groups[type] = { index: Number(g.index ?? 0), key: String(g.id ?? g.key ?? ''), properties: isDict(g.properties) ? g.properties : {} };
    }
  }
  return {
    project,
    event: {
      uuid: String(event.uuid ?? ''), event: String(event.event ?? event.name ?? ''), distinct_id: String(event.distinct_id ?? ''),
      properties: isDict(event.properties) ? event.properties : {}, timestamp: String(event.timestamp ?? ''),
      elements_chain: String(event.elements_chain ?? ''),
    },
    person: person ? { id: String(person.id ?? person.uuid ?? ''), properties: isDict(person.properties) ? person.properties : {} } : null,
    personKeyed: person === null && 'person' in globals && (globals.person === null || globals.person === undefined),
    groups,
  };
}

const mockedFetch = (url: unknown, options: unknown, redact: (text: string) => string): LogLine[] => [
  { level: 'INFO', message: "Async function 'fetch' was mocked with arguments:" },
  { level: 'INFO', message: redact(`fetch('${String(url)}', ${JSON.stringify(options ?? {}, null, 2)})`) },
];

// The Hog pool failed under a step (its worker ran out of memory, or past its deadline):
// the step fails as the program's error would, and the test run answers it.
class WorkerFailure extends Error {}

async function step<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof PoolOverloadedError) throw err;
    throw new WorkerFailure(`HogWorkerError: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function invokeConfiguration(task: InvokeTask, deps: InvokeDeps): Promise<InvokeResult> {
  const { body } = task;
  if (!isDict(body.configuration)) return { status: 400, body: { configuration: ['This field is required.'] } };
  let validated;
  try {
    validated = await deps.compile({
      body: body.configuration, existing: task.existing, ctx: task.ctx, maxExecutionOrder: 0, enabledOfType: 0,
    });
  } catch (err) {
    if (err instanceof TaskDeadlineError) return { status: 400, body: apiErrors.compileTimedOut(COMPILE_DEADLINE_MS / 1000, 'configuration').body };
    throw err;
  }
  if (!validated.ok) return { status: 400, body: { configuration: nestedErrors(validated.error.attr, validated.error.detail) } };
  const fields = validated.fields;
  if (body.invocation_id !== undefined && body.invocation_id !== null && !(typeof body.invocation_id === 'string' && UUID.test(body.invocation_id))) {
    return { status: 400, body: { status: 'error', errors: ['Invalid invocation ID'] } };
  }
  const globals = isDict(body.clickhouse_event) ? globalsFromClickhouse(body.clickhouse_event) : isDict(body.globals) ? body.globals : {};
  if (!isDict(globals.event)) return { status: 400, body: { status: 'error', errors: ['Missing event'] } };
  const mock = body.mock_async_functions !== false;
  const now = new Date(task.ctx.now).toISOString();
  const fn: StoredHogFunction = {
    ...fields, id: task.existing?.id ?? 'new', project_id: task.project.id, created_at: now, created_by: null, updated_at: now,
    watcher_epoch: 0,
  };
  const ctx = eventContext(globals, task.project);
  const logs: RunOnceResult['logs'] = [];
  const endsAt = performance.now() + TEST_RUN_TIMEOUT_MS;

  if (fn.type === 'transformation') return { status: 200, body: await testTransformation(fn, ctx, task.project, deps.exec, logs) };
  if (fn.type !== 'destination' && fn.type !== 'internal_destination') {
    return { status: 400, body: { status: 'error', errors: ['Invalid function type'] } };
  }
  return { status: 200, body: await runDestination(fn, ctx, { exec: deps.exec, fetchAllow: mock ? null : task.fetchAllow, endsAt, logs }) };
}

// A transformation's test run: the event store's own task (filters, inputs, the program with
// the transformations' functions: ../runtime/transform-run.ts) on the one event; the result
// is what the program returned.
async function testTransformation(
  fn: StoredHogFunction, ctx: EventContext, project: InvokeTask['project'], exec: TaskRunner<HogExecTasks>, logs: RunOnceResult['logs'],
): Promise<RunOnceResult> {
  const log = (line: LogLine) => logs.push({ level: line.level.toLowerCase(), timestamp: new Date().toISOString(), message: line.message });
  const { uuid, event, distinct_id, properties, timestamp } = ctx.event;
  let outcome: TransformOutcome;
  try {
    [outcome] = await step(exec.run('transform', { fn: runnable(fn), project, events: [{ uuid, event, distinct_id, properties, timestamp }], geoipDb: null }));
  } catch (err) {
    if (!(err instanceof WorkerFailure)) throw err;
    return { result: null, status: 'error', errors: [err.message], logs };
  }
  if (outcome.kind === 'filtered') return { result: null, status: 'skipped', errors: [], logs };
  outcome.logs.forEach(log);
  if (outcome.kind !== 'returned') {
    log({ level: 'ERROR', message: outcome.message });
    return { result: null, status: 'error', errors: [outcome.message], logs };
  }
  return { result: outcome.result, status: 'success', errors: [], logs };
}

export interface RunOnceOptions {
  exec: TaskRunner<HogExecTasks>;
  // The address policy fetches go under; null: fetches are mocked.
  fetchAllow: string | null;
  // performance.now() past which the run ends with an error.
  endsAt: number;
  // Where its log lines go (a test run's, or the function's for an internal event).
  logs: { level: string; timestamp: string; message: string }[];
}

export interface RunOnceResult {
  result: unknown;
  status: 'error' | 'skipped' | 'success';
  errors: string[];
  logs: { level: string; timestamp: string; message: string }[];
}

/**
 * Runs a destination (or internal destination) once on one event, here: filters, mappings
 * and inputs, then its program slice by slice, each fetch made once (or mocked). Test runs
 * and internal events (../internal/) run so.
 */
export async function runDestination(fn: StoredHogFunction, ctx: EventContext, opts: RunOnceOptions): Promise<RunOnceResult> {
  const deps = { exec: opts.exec };
  const { logs, endsAt } = opts;
  const errors: string[] = [];
  const log = (line: LogLine) => logs.push({ level: line.level.toLowerCase(), timestamp: new Date().toISOString(), message: line.message });
  const overTime = () => performance.now() > endsAt;
  const timedOut = `The test run took longer than ${TEST_RUN_TIMEOUT_MS / 1000} seconds`;

  let prepared;
  try {
    prepared = await step(deps.exec.run('prepare', { functions: [runnable(fn)], events: [{ ctx, functions: [0] }] }));
  } catch (err) {
    if (!(err instanceof WorkerFailure)) throw err;
    prepared = [{ kind: 'filtering_failed' as const, message: `Error filtering event ${ctx.event.uuid}: ${err.message}` }];
  }
  const policy = opts.fetchAllow === null ? null : parseAddressPolicy(opts.fetchAllow);
  let skipped = false;
  let ran = false;
  let result: unknown = null;
  for (const outcome of prepared) {
    if (outcome.kind === 'filtered') {
      skipped = true;
      log({ level: 'INFO', message: 'Mapping trigger not matching filters was ignored.' });
      continue;
    }
    if (outcome.kind !== 'invocation') {
      errors.push(outcome.message);
      log({ level: 'ERROR', message: outcome.message });
      continue;
    }
    ran = true;
    let state: unknown = null;
    let response: { status: number; body: unknown } | null = null;
    let logsSoFar = 0;
    const timings: ExecutionTiming[] = [];
    for (;;) {
      if (overTime()) {
        errors.push(timedOut);
        log({ level: 'ERROR', message: `Error executing function on event ${ctx.event.uuid}: ${timedOut}` });
        break;
      }
      let run;
      try {
        run = await step(deps.exec.run('run', {
          bytecode: state === null ? fn.bytecode : null, state, response, globals: outcome.globals, secretKeys: Object.keys(fn.secret_inputs), logsSoFar,
        }));
      } catch (err) {
        if (!(err instanceof WorkerFailure)) throw err;
        errors.push(err.message);
        log({ level: 'ERROR', message: `Error executing function on event ${ctx.event.uuid}: ${err.message}` });
        break;
      }
      run.logs.forEach(log);
      logsSoFar += run.logs.length;
      timings.push(...run.timings);
      if (run.fetch === null) {
        if (run.error !== null) {
          errors.push(run.errorMessage ?? run.error);
          log({ level: 'ERROR', message: `Error executing function on event ${ctx.event.uuid}: ${run.error}` });
        } else {
          log({ level: 'DEBUG', message: completionLog(timings, run.ops, run.maxMemoryBytes, (outcome.globals.event as { url?: string }).url) });
        }
        result = run.result;
        break;
      }
      state = run.fetch.state;
      const fetchStarted = performance.now();
      if (policy === null) {
        mockedFetch(run.fetch.url, run.fetch.options, redactor(outcome.globals, Object.keys(fn.secret_inputs))).forEach(log);
        response = { status: 200, body: {} };
      } else {
        const timeoutMs = Math.max(1, Math.min(FETCH_TIMEOUT_MS, endsAt - fetchStarted));
        response = programResponse(await httpFetch(fetchRequest(run.fetch.url, run.fetch.options), {
          policy, timeoutMs, maxResponseBytes: MAX_RESPONSE_BYTES,
        }));
      }
      timings.push({ kind: 'async_function', durationMs: performance.now() - fetchStarted });
    }
  }
  const status = errors.length > 0 ? 'error' : skipped && !ran ? 'skipped' : 'success';
  return { result, status, errors, logs };
}
