// One transformation run on a chunk of events, in a Hog worker (the event store's
// transformer sends it, ./transformer.ts): for each event its filters, its inputs, then its
// program, with the globals PostHog's ingestion gives a transformation (the project and the
// event, whose `url` is its `$current_url`; no person, no groups) and the functions it may
// call (cleanNullValues, geoipLookup, isKnownBotUserAgent, isKnownBotIp). What the program
// returned travels back as it is: the event store applies PostHog's rules to it
// (./transform-result.ts).
import type { CityResponse, Reader } from 'mmdb-lib';
import { openCityDatabase } from '../../geoip/database.js';
import { errorText, evaluateInputs, runSlice, type ExecutionTiming } from '../../hog/index.js';
import { isKnownBotIp, isKnownBotUserAgent } from '../bots/known-bots.js';
import { filterGlobals, type EventContext } from './globals.js';
import { passes } from './prepare.js';
import { HOG_MEMORY_LIMIT, HOG_TIMEOUT_MS, MAX_LOG_LINES, redactor, type LogLine } from './run-slice.js';
import type { RunnableFunction } from './runnable.js';

// An event as a transformation sees it (the event store's, as the transformations before
// this one left it).
export interface TransformInput {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
}

export interface TransformTask {
  fn: RunnableFunction;
  project: { id: number; name: string; url: string };
  events: TransformInput[];
  // The GeoIP database geoipLookup reads (null: none; it then finds nothing).
  geoipDb: string | null;
}

// `timings`: the program's Hog time (none when it did not run), which the watcher charges.
export type TransformOutcome =
  | { kind: 'filtered' }
  | { kind: 'filtering_failed' | 'inputs_failed' | 'failed'; message: string; logs: LogLine[]; timings?: ExecutionTiming[] }
  // The program ended: what it returned, as plain data.
  | { kind: 'returned'; result: unknown; logs: LogLine[]; timings?: ExecutionTiming[] };

// Filters and inputs get hogvm's default budget, as the destinations' (./prepare.ts).
const INPUTS_TIMEOUT_MS = 5_000;

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// PostHog's cleanNullValues: null entries of dicts and arrays left out, three levels deep.
function cleanNullValues(value: unknown, depth = 1): unknown {
  if (depth > 3 || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => cleanNullValues(v, depth + 1)).filter((v) => v !== null);
  if (isDict(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const cleaned = cleanNullValues(v, depth + 1);
      if (cleaned !== null) out[k] = cleaned;
    }
    return out;
  }
  return value;
}

// The City database of this worker, opened by the first task whose program calls
// geoipLookup (PostHog's GeoIP transformation), kept for the next.
let cityDatabase: { path: string; reader: Promise<Reader<CityResponse>> } | null = null;

async function cityReader(path: string | null, fn: RunnableFunction): Promise<Reader<CityResponse> | null> {
  if (path === null || !fn.bytecode.includes('geoipLookup')) return null;
  if (cityDatabase?.path !== path) cityDatabase = { path, reader: openCityDatabase(path) };
  return cityDatabase.reader;
}

// PostHog's geoipLookup: the database's record for an address (city, country, continent,
// location, postal, subdivisions, ... as MaxMind writes them), or null.
function geoipLookup(reader: Reader<CityResponse> | null, ip: unknown): unknown {
  if (reader === null || typeof ip !== 'string') return null;
  try {
    return reader.get(ip);
  } catch {
    // Not an address.
    return null;
  }
}

const functionsWith = (reader: Reader<CityResponse> | null) => ({
  cleanNullValues: (value: unknown) => cleanNullValues(value),
  geoipLookup: (ip: unknown) => geoipLookup(reader, ip),
  isKnownBotUserAgent,
  isKnownBotIp,
});

export function transformationGlobals(project: TransformTask['project'], ev: TransformInput): Record<string, unknown> {
  const props = ev.properties;
  return {
    project,
    event: {
      uuid: ev.uuid, event: ev.event, distinct_id: ev.distinct_id, properties: props,
      elements_chain: typeof props.elements_chain === 'string' ? props.elements_chain : '',
      timestamp: ev.timestamp, url: typeof props.$current_url === 'string' ? props.$current_url : '',
    },
  };
}

function filterContext(project: TransformTask['project'], ev: TransformInput): EventContext {
  const chain = typeof ev.properties.elements_chain === 'string' ? ev.properties.elements_chain : '';
  return { project, event: { ...ev, elements_chain: chain }, person: null, groups: {} };
}

async function transformOne(fn: RunnableFunction, project: TransformTask['project'], ev: TransformInput, functions: ReturnType<typeof functionsWith>): Promise<TransformOutcome> {
  const logs: LogLine[] = [];
  try {
    if (!(await passes(fn.filters, ev.event, filterGlobals(filterContext(project, ev))))) return { kind: 'filtered' };
  } catch (err) {
    return { kind: 'filtering_failed', message: `Error filtering event ${ev.uuid}: ${err instanceof Error ? err.message : String(err)}`, logs };
  }
  const base = transformationGlobals(project, ev);
  const evaluated = await evaluateInputs(fn.inputs, base, { timeoutMs: INPUTS_TIMEOUT_MS });
  if (!evaluated.ok) return { kind: 'inputs_failed', message: `Error building inputs for event ${ev.uuid}: ${evaluated.message}`, logs };
  const globals = { ...base, inputs: evaluated.inputs };
  const redact = redactor(globals, fn.secretKeys);
  let kept = 0;
  const slice = runSlice(fn.bytecode, globals, {
    print: (line) => {
      if (kept > MAX_LOG_LINES) return;
      kept++;
      logs.push(kept > MAX_LOG_LINES
        ? { level: 'WARN', message: `Function exceeded maximum log entries. No more logs will be collected. Event: ${ev.uuid}` }
        : { level: 'INFO', message: redact(line) });
    },
    functions, timeoutMs: HOG_TIMEOUT_MS, memoryLimit: HOG_MEMORY_LIMIT, maxAsyncSteps: 0,
  });
  const { timings } = slice;
  if (slice.error) return { kind: 'failed', message: `Error executing function on event ${ev.uuid}: ${errorText(slice.error)}`, logs, timings };
  if (slice.suspended !== null) {
    return { kind: 'failed', message: `Error executing function on event ${ev.uuid}: HogVMException: Unsupported async function call: ${slice.suspended.name}`, logs, timings };
  }
  return { kind: 'returned', result: slice.result, logs, timings };
}

export async function runTransformation(task: TransformTask): Promise<TransformOutcome[]> {
  const out: TransformOutcome[] = [];
  const functions = functionsWith(await cityReader(task.geoipDb, task.fn));
  for (const ev of task.events) out.push(await transformOne(task.fn, task.project, ev, functions));
  return out;
}
