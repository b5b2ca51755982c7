// A hog function made from a template and run on one event through the code the
// destinations' Hog workers run (src/destinations/runtime/steps.ts: filters, mappings,
// inputs, then the program up to each fetch and resumed with its answer), in this process,
// with each fetch answered by `respond` (a fake of the service's API) instead of the network.
// The function is validated and compiled as the API does on a create with `template_id`.
import { initHog } from '../../src/hog/index.js';
import { validateHogFunction } from '../../src/destinations/api/validate.js';
import type { EventContext } from '../../src/destinations/runtime/globals.js';
import { runnable } from '../../src/destinations/runtime/runnable.js';
import { createSteps, type StepOutcome } from '../../src/destinations/runtime/steps.js';
import type { StoredHogFunction } from '../../src/destinations/types.js';

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  // The body parsed as JSON (null when it is not JSON).
  json: any;
}

export interface TemplateRun {
  // Per invocation (one per matching mapping, or one): the requests it made, its log lines
  // and its error (null when it ended well).
  invocations: { mappingIndex: number; requests: SentRequest[]; logs: string[]; error: string | null; result: unknown; captured: unknown[] }[];
  // Why no invocation was made (filtered, or its inputs failed), else null.
  skipped: string | null;
}

export type Respond = (request: SentRequest) => { status: number; body: unknown };

const parsed = (body: string | null) => {
  if (body === null) return null;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
};

export function templateEvent(overrides: Partial<EventContext['event']> = {}, person: EventContext['person'] = null,
  groups: EventContext['groups'] = {}): EventContext {
  return {
    project: { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' },
    event: {
      uuid: '0193a7a0-0000-7000-8000-000000000001', event: '$pageview', distinct_id: 'd-1',
      properties: { $current_url: 'https://example.com/pricing' }, timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '',
      ...overrides,
    },
    person, groups,
  };
}

let ready: Promise<void> | null = null;

/** Validates `body` (template_id, inputs, mappings, filters) as a create does; throws the API's error. */
export async function fromTemplate(body: Record<string, unknown>): Promise<StoredHogFunction> {
  ready ??= initHog();
  await ready;
  const fields = validateHogFunction(body, null, { projectId: 1, timeZone: 'UTC', now: Date.parse('2026-11-27T12:00:00Z'), siteUrl: 'http://localhost:8000', actions: {}, testAccountFilters: [], cohorts: {} });
  return {
    ...fields, id: '0193a7a0-0000-7000-8000-00000000f001', project_id: 1, created_at: '2026-11-27T00:00:00Z', created_by: null,
    updated_at: '2026-11-27T00:00:00Z', watcher_epoch: 0,
  };
}

// Programs get 5 s rather than 550 ms: this is about what they send, and a loaded machine
// pausing the thread must not fail one.
const steps = createSteps(0, 5_000);

export async function runTemplate(body: Record<string, unknown>, event: EventContext, respond: Respond): Promise<TemplateRun> {
  const fn = await fromTemplate(body);
  const run = runnable(fn);
  const started = await steps.start({ functions: [run], events: [{ uuid: event.event.uuid, ctx: event, functions: [0] }], start: [true], forget: [] });
  const out: TemplateRun = { invocations: [], skipped: null };
  for (const outcome of started.outcomes) {
    if (outcome.kind !== 'invocation') {
      out.skipped = outcome.kind === 'filtered' ? 'filtered' : `${outcome.kind}: ${outcome.message}`;
      continue;
    }
    const invocation = {
      mappingIndex: outcome.mappingIndex, requests: [] as SentRequest[], logs: [] as string[], error: null as string | null, result: null as unknown,
      captured: [] as unknown[],
    };
    let slice: StepOutcome | null = outcome.slice;
    while (slice !== null) {
      invocation.logs.push(...slice.logs.map((l) => l.message));
      invocation.captured.push(...slice.captured);
      if (slice.fetch === null) {
        invocation.error = slice.error;
        invocation.result = slice.result;
        break;
      }
      const { url, options } = slice.fetch;
      const request: SentRequest = { url, method: options.method, headers: options.headers, body: options.body, json: parsed(options.body) };
      invocation.requests.push(request);
      const response = respond(request);
      slice = steps.continue({
        token: slice.fetch.token, bytecode: null, state: null, response, globals: null, functionId: run.id,
        mappingIndex: outcome.mappingIndex, secretKeys: run.secretKeys, logsSoFar: invocation.logs.length, capturedSoFar: invocation.captured.length,
      });
    }
    out.invocations.push(invocation);
  }
  return out;
}
