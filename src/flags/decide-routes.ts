// /decide and /flags: decode the request like capture, resolve the project, apply
// the quota, add GeoIP properties, and hand evaluation to the flag worker pool. The
// worker answers with the flags body as JSON text, spliced here into the envelope.
import { randomUUID } from 'node:crypto';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import { json } from '../http/reply.js';
import { errors } from '../errors.js';
import type { Logger } from '../logger.js';
import type { TenancyStore } from '../access/index.js';
import type { GeoIp } from '../geoip/database.js';
import { clientAddress } from '../geoip/properties.js';
import { decodePayload } from '../capture/decode.js';
import type { FlagMeter } from '../quota/index.js';
import type { PersonOperations } from '../persons/index.js';
import type { TaskRunner } from '../pools/index.js';
import { responseProtocol, type ResponseProtocol } from './projection.js';
import { readFlagRequest, readFlagToken, requestVersion } from './request.js';
import { decideEnvelope, emptyFlagsBody, QUOTA_LIMITED } from './envelope.js';
import type { FlagTaskResult, FlagTasks } from './tasks.js';

export interface DecideDeps {
  // Flag hash keys for experience continuity go into the event log, not awaited.
  persons: Pick<PersonOperations, 'writeHashKeyOverrides'>;
  meter: FlagMeter;
  tenancy: TenancyStore;
  pool: TaskRunner<FlagTasks>;
  geoip: GeoIp;
  log: Logger;
  maxDecompressedBytes: number;
  bodyLimit: number;
}

const JSON_HEADERS = Object.freeze({ 'Content-Type': 'application/json' });
// The /decide envelope as JSON text without its closing brace, computed once.
const DECIDE_PREFIX = JSON.stringify(decideEnvelope()).slice(0, -1);

function splice(prefix: string, requestId: string, errorsFlag: boolean | null, body: string): string {
  // `body` is a JSON object with at least one member, so slice(1) keeps its members.
  const head = prefix === '{' ? '{' : `${prefix},`;
  const errorsMember = errorsFlag === null ? '' : `"errorsWhileComputingFlags":${errorsFlag},`;
  return `${head}"requestId":"${requestId}",${errorsMember}${body.slice(1)}`;
}

// /decide always carries the client config; /flags only when asked with ?config=true.
function withConfig(endpoint: 'decide' | 'flags', query: URLSearchParams): boolean {
  return endpoint === 'decide' || query.get('config') === 'true';
}

function hasErrorsMember(protocol: ResponseProtocol): boolean {
  return protocol === 'flags_v1' || protocol === 'flags_v2';
}

export function decideRoutes(deps: DecideDeps): Route[] {
  const { persons, meter, tenancy, pool, geoip, log } = deps;

  function envelopeFor(endpoint: 'decide' | 'flags', query: URLSearchParams): Record<string, unknown> {
    return withConfig(endpoint, query) ? decideEnvelope() : {};
  }

  async function evaluate(endpoint: 'decide' | 'flags', req: HttpRequest): Promise<HttpResponse> {
    const protocol = responseProtocol(endpoint, requestVersion(req.query));
    if (req.method === 'GET' && req.query.get('data') === null) {
      // No body to evaluate: the configuration with no flags, as PostHog answers a GET.
      return json(200, { ...envelopeFor(endpoint, req.query), ...emptyFlagsBody(protocol) });
    }
    const payload = await decodePayload({
      body: req.body, query: req.query, contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'], maxDecompressedBytes: deps.maxDecompressedBytes,
    });
    const project = tenancy.projectByToken(readFlagToken(payload, req.query));
    if (!project) throw errors.invalidProjectKey();
    const request = readFlagRequest(payload, req.query);
    const now = Date.now();
    const requestId = randomUUID();

    if (meter.exceeded(project.organization_id, now)) {
      return json(200, { ...envelopeFor(endpoint, req.query), requestId, ...emptyFlagsBody(protocol), quotaLimited: QUOTA_LIMITED });
    }
    meter.record(project.organization_id, now);

    const geo = request.geoipDisable ? {} : geoip.lookup(clientAddress(req.headers['x-forwarded-for'], req.ip));
    let result: FlagTaskResult;
    try {
      result = await pool.run('evaluate', {
        projectId: project.id, distinctId: request.distinctId, groups: request.groups,
        personProperties: request.personProperties, groupProperties: request.groupProperties, geo: geo as Record<string, string>,
        flagKeys: request.flagKeys, anonDistinctId: request.anonDistinctId, deviceId: request.deviceId, protocol, now,
      });
    } catch (err) {
      log.error('flag evaluation failed', { error: (err as Error).message, project_id: project.id });
      throw errors.unavailable('Flags could not be evaluated right now. Retry later.');
    }

    if (result.missingOverrides && request.anonDistinctId) {
      persons.writeHashKeyOverrides(project.id, [request.distinctId, request.anonDistinctId], result.missingOverrides, request.anonDistinctId)
        .catch((err: Error) => log.warn('hash key overrides not written', { error: err.message, project_id: project.id }));
    }

    // The envelope is constant: the precomputed config text, or nothing.
    const prefix = withConfig(endpoint, req.query) ? DECIDE_PREFIX : '{';
    const body = splice(prefix, requestId, hasErrorsMember(protocol) ? null : result.errors, result.body);
    return { status: 200, headers: JSON_HEADERS, body };
  }

  const decide = (req: HttpRequest) => evaluate('decide', req);
  const flags = (req: HttpRequest) => evaluate('flags', req);
  const methods = ['GET', 'POST'] as const;
  return [
    { methods, pattern: '/decide', bodyLimit: deps.bodyLimit, handler: decide },
    { methods, pattern: '/flags', bodyLimit: deps.bodyLimit, handler: flags },
  ];
}
