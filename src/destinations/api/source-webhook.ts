// A source webhook's request run as PostHog's CDP runs it: the function's inputs and its Hog
// with PostHog's globals (the request's method, headers without the proxy and cookie ones,
// ip, body and its text, query; a `$incoming_webhook` event whose distinct id is the body's;
// the source and project), in the API's Hog pool under the programs' bounds. What it
// captures with postHogCapture() goes into its project through the capture path. Its answer:
// the `httpResponse` its result gives (a text or JSON body), else 200 `{"status": "ok"}`, 500
// `{"status": "Unhandled error"}` when it failed, or 201 `{"status": "queued"}` when it
// waits for a fetch: the rest then runs here, each fetch made once (not retried, and not
// resumed after a restart). Logs and metrics go to the function's, on this node.
import { randomUUID } from 'node:crypto';
import { PoolOverloadedError, type TaskRunner } from '../../pools/index.js';
import { parseAddressPolicy } from '../../net/address-policy.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, HttpResponse } from '../../http/types.js';
import { fetchRequest, programResponse } from '../fetch/fetch-rules.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from '../fetch/http-fetch.js';
import type { CapturedRequest } from '../runtime/captured.js';
import type { DestinationsStore } from '../runtime/env.js';
import { projectUrl } from '../runtime/globals.js';
import type { RunOutcome } from '../runtime/run-slice.js';
import { createTelemetry, type Telemetry } from '../runtime/telemetry.js';
import type { HogExecTasks } from '../tasks.js';
import type { StoredHogFunction } from '../types.js';

// PostHog's: headers a webhook's Hog never sees.
const DISALLOWED_HEADERS = new Set([
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'cookie', 'x-csrftoken', 'proxy-authorization',
  'referer', 'forwarded', 'x-real-ip', 'true-client-ip',
]);
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;\s*charset=[\w-]+)?$/i;
const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface SourceWebhookDeps {
  exec: TaskRunner<HogExecTasks>;
  ds: DestinationsStore;
  // Appends what the program captured to the log, in its project.
  capture: (projectId: number, events: readonly CapturedRequest[]) => Promise<unknown>;
  fetchAllow: string;
  siteUrl: string;
  now: () => number;
  onError: (err: Error) => void;
}

// The body as PostHog's parsers leave it: JSON, or a form's fields, else an empty dict.
function parsedBody(req: HttpRequest, text: string): unknown {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return text.length === 0 ? {} : JSON.parse(text);
  } catch {
    return {};
  }
}

export function requestGlobals(fn: StoredHogFunction, req: HttpRequest, siteUrl: string, nowMs: number): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) if (value && !DISALLOWED_HEADERS.has(key.toLowerCase())) headers[key.toLowerCase()] = value;
  const stringBody = req.body.toString('utf8');
  const body = parsedBody(req, stringBody);
  const url = projectUrl(siteUrl, fn.project_id);
  return {
    source: { name: fn.name || `Hog function: ${fn.id}`, url: `${url}/functions/${fn.id}` },
    project: { id: fn.project_id, name: '', url: '' },
    event: {
      event: '$incoming_webhook', properties: {}, uuid: randomUUID(), distinct_id: isDict(body) ? body.distinct_id ?? null : null,
      elements_chain: '', timestamp: new Date(nowMs).toISOString(), url: '',
    },
    request: { method: req.method.toUpperCase(), headers, ip: req.ip, body, stringBody, query: Object.fromEntries(req.query) },
  };
}

// The program's own answer (`return {'httpResponse': {'status': …, 'body': …}}`), as PostHog sends it.
function customResponse(result: unknown): HttpResponse | null {
  if (!isDict(result) || !isDict(result.httpResponse)) return null;
  const r = result.httpResponse;
  const status = typeof r.status === 'number' && Number.isInteger(r.status) && r.status >= 200 && r.status <= 599 ? r.status : 500;
  const headers = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'" };
  if (typeof r.body === 'string') {
    const type = typeof r.contentType === 'string' && CONTENT_TYPE.test(r.contentType) ? r.contentType : 'text/plain';
    return { status, headers: { ...headers, 'Content-Type': type }, body: r.body };
  }
  if (typeof r.body === 'object' && r.body !== null) return json(status, r.body, headers);
  return { status, headers, body: '' };
}

export function createSourceWebhooks(deps: SourceWebhookDeps) {
  const policy = parseAddressPolicy(deps.fetchAllow);
  const running = new Set<Promise<void>>();

  const write = (telemetry: Telemetry) => {
    if (telemetry.empty()) return;
    deps.ds.root.transaction(() => { telemetry.write(deps.ds); }).catch(deps.onError);
  };

  // A slice's lines, captures and fault; true when it failed.
  async function took(fn: StoredHogFunction, slice: RunOutcome, log: (level: 'INFO' | 'WARN' | 'ERROR' | 'DEBUG', m: string) => void, uuid: string): Promise<boolean> {
    for (const line of slice.logs) log(line.level, line.message);
    if (slice.captured.length > 0) await deps.capture(fn.project_id, slice.captured);
    if (slice.error !== null) log('ERROR', `Error executing function on event ${uuid}: ${slice.error}`);
    return slice.error !== null;
  }

  // The rest of a run suspended at a fetch.
  async function finish(fn: StoredHogFunction, first: RunOutcome, globals: Record<string, unknown>, telemetry: Telemetry, instance: string): Promise<void> {
    const log = (level: 'INFO' | 'WARN' | 'ERROR' | 'DEBUG', m: string) => telemetry.log(fn.id, instance, level, m);
    const uuid = String((globals.event as { uuid: string }).uuid);
    let slice = first;
    let logsSoFar = first.logs.length;
    let capturedSoFar = first.captured.length;
    try {
      while (slice.fetch !== null) {
        telemetry.count(fn.id, 'fetch');
        const response = programResponse(await httpFetch(fetchRequest(slice.fetch.url, slice.fetch.options), {
          policy, timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES,
        }));
        slice = await deps.exec.run('run', {
          bytecode: null, state: slice.fetch.state, response, globals, secretKeys: Object.keys(fn.secret_inputs), logsSoFar, capturedSoFar,
        });
        logsSoFar += slice.logs.length;
        capturedSoFar += slice.captured.length;
        if (await took(fn, slice, log, uuid)) {
          telemetry.count(fn.id, 'failed');
          return;
        }
      }
      telemetry.count(fn.id, 'succeeded');
    } catch (err) {
      telemetry.count(fn.id, 'failed');
      log('ERROR', `Error executing function on event ${uuid}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      write(telemetry);
    }
  }

  async function handle(fn: StoredHogFunction, req: HttpRequest): Promise<HttpResponse> {
    const telemetry = createTelemetry(deps.now);
    const instance = randomUUID();
    const log = (level: 'INFO' | 'WARN' | 'ERROR' | 'DEBUG', m: string) => telemetry.log(fn.id, instance, level, m);
    const base = requestGlobals(fn, req, deps.siteUrl, deps.now());
    const uuid = String((base.event as { uuid: string }).uuid);
    let answer: HttpResponse;
    try {
      const inputs = await deps.exec.run('inputs', { inputs: { ...fn.inputs, ...fn.secret_inputs }, globals: base });
      if (!inputs.ok) {
        telemetry.count(fn.id, 'inputs_failed');
        log('ERROR', `Error building inputs for event ${uuid}: ${inputs.message}`);
        return json(500, { status: 'Unhandled error' });
      }
      const globals = { ...base, inputs: inputs.inputs };
      const slice = await deps.exec.run('run', {
        bytecode: fn.bytecode ?? [], state: null, response: null, globals, secretKeys: Object.keys(fn.secret_inputs), logsSoFar: 0, capturedSoFar: 0,
      });
      if (await took(fn, slice, log, uuid)) {
        telemetry.count(fn.id, 'failed');
        return json(500, { status: 'Unhandled error' });
      }
      if (slice.fetch !== null) {
        const rest = finish(fn, slice, globals, telemetry, instance).catch(deps.onError).finally(() => running.delete(rest));
        running.add(rest);
        return json(201, { status: 'queued' });
      }
      telemetry.count(fn.id, 'succeeded');
      const custom = customResponse(slice.result);
      if (custom !== null) log(custom.status >= 400 ? 'WARN' : 'INFO', `Responded with response status - ${custom.status}`);
      answer = custom ?? json(200, { status: 'ok' });
    } catch (err) {
      if (err instanceof PoolOverloadedError) throw err;
      telemetry.count(fn.id, 'failed');
      log('ERROR', `Error executing function on event ${uuid}: HogWorkerError: ${err instanceof Error ? err.message : String(err)}`);
      return json(500, { status: 'Unhandled error' });
    } finally {
      // What the first slice left (a run waiting for a fetch writes the rest when it ends).
      write(telemetry);
    }
    return answer;
  }

  return {
    handle,
    async close() {
      await Promise.all([...running]);
    },
  };
}
