// posthog-js's remote config, asked on every page load: GET /array/<token>/config.js (a
// script, when the SDK bundle can load scripts) and GET /array/<token>/config (JSON).
// Both bodies are built once per project and rebuilt when its token or its flag
// definitions change. No key beyond the public project token: the config is what any
// page embedding the token may read. Unknown tokens are 404 (JSON error / a JS comment).
import { errors } from '../errors.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import type { FlagsTables } from './tables.js';
import type { TenancyStore, Project } from '../access/index.js';
import { definitionsVersion, projectFlags } from './definitions/store.js';
import { remoteConfig, remoteConfigScript } from './client-config.js';

export interface RemoteConfigDeps {
  store: FlagsTables;
  tenancy: TenancyStore;
}

interface Built {
  token: string;
  version: number;
  json: string;
  script: string;
}

// Browsers and proxies may reuse a config for a minute: a new first flag or a rotated
// token reaches pages within that.
const CACHE_CONTROL = 'public, max-age=60';
const JSON_HEADERS = Object.freeze({ 'Content-Type': 'application/json', 'Cache-Control': CACHE_CONTROL });
const SCRIPT_HEADERS = Object.freeze({ 'Content-Type': 'application/javascript', 'Cache-Control': CACHE_CONTROL });
const UNKNOWN_SCRIPT: HttpResponse = Object.freeze({
  status: 404,
  headers: Object.freeze({ 'Content-Type': 'application/javascript', 'Cache-Control': 'no-store' }),
  body: '// hedgerow: no project has this API key\n',
});

export function remoteConfigRoutes({ store, tenancy }: RemoteConfigDeps): Route[] {
  const built = new Map<number, Built>();

  function current(project: Project): Built {
    const version = definitionsVersion(store, project.id);
    const hit = built.get(project.id);
    if (hit && hit.version === version && hit.token === project.api_token) return hit;
    const hasFlags = projectFlags(store, project.id).some((f) => f.active && !f.deleted);
    const config = remoteConfig(project.api_token, hasFlags);
    const entry = { token: project.api_token, version, json: JSON.stringify(config), script: remoteConfigScript(project.api_token, config) };
    built.set(project.id, entry);
    return entry;
  }

  function configJson(req: HttpRequest): HttpResponse {
    const project = tenancy.projectByToken(req.params.token);
    if (!project) throw errors.notFound();
    return { status: 200, headers: JSON_HEADERS, body: current(project).json };
  }

  function configScript(req: HttpRequest): HttpResponse {
    const project = tenancy.projectByToken(req.params.token);
    if (!project) return UNKNOWN_SCRIPT;
    return { status: 200, headers: SCRIPT_HEADERS, body: current(project).script };
  }

  return [
    { methods: ['GET'], pattern: '/array/:token/config', bodyLimit: 0, handler: configJson },
    { methods: ['GET'], pattern: '/array/:token/config.js', bodyLimit: 0, handler: configScript },
  ];
}
