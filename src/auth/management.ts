// Management API authentication and authorization: one mechanism for every route.
// A route declares the scope object it needs; read or write follows the method.
import { errors } from '../errors.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { PersonalKey, Project, User } from '../tenancy/types.js';
import { hashKey, sameHash } from './keys.js';
import { accessFor, hasScope } from './scopes.js';
import type { RateLimiter } from './rate-limit.js';

export interface AuthContext {
  user: User;
  key: PersonalKey;
}

export interface ProjectContext extends AuthContext {
  project: Project;
}

export interface ManagementRouteSpec {
  methods: readonly string[];
  pattern: string;
  // The scope object, e.g. 'query' → query:read for GET, query:write otherwise.
  scope: string;
  // The route acts on the organization rather than one project (project list,
  // organization members): PostHog refuses keys limited to projects there.
  organizationLevel?: boolean;
  // What the caller's project membership must allow: 'member' (default) any access;
  // 'manage' PostHog's strict management, member to read and project admin to change.
  projectAccess?: ProjectAccessRule;
  bodyLimit?: number;
  handler: (req: HttpRequest, ctx: ProjectContext | AuthContext) => HttpResponse | Promise<HttpResponse>;
}

// What auth.route builds: a plain route that still says which scope it enforces,
// so the route table can be audited (test/auth/route-scopes.test.ts).
export interface ManagementRoute extends Route {
  scope: string;
}

export type ProjectAccessRule = 'member' | 'manage';

// A project's access gate beyond scopes (explicit members); allowed by default.
export type ProjectAccessCheck = (ctx: AuthContext, project: Project, access: 'read' | 'write', rule: ProjectAccessRule) => void;

export interface ManagementAuthOptions {
  tenancy: TenancyStore;
  onAuthFailure: (reason: string) => void;
  // Per-key request budget; counted for every authenticated request, refused or not.
  rateLimit: RateLimiter;
  projectAccess?: ProjectAccessCheck;
}

const MANAGEMENT_BODY_LIMIT = 10 * 1024 * 1024;

// PostHog looks for the key in the Authorization header, then a JSON body field, then
// the query string.
function bearerKey(req: HttpRequest): string | null {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : null;
  }
  return bodyKey(req.body) ?? req.query.get('personal_api_key');
}

function bodyKey(body: Buffer): string | null {
  if (body.length === 0 || body[0] !== 0x7b) return null;
  try {
    const key = (JSON.parse(body.toString('utf8')) as { personal_api_key?: unknown }).personal_api_key;
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

export function createManagementAuth(opts: ManagementAuthOptions) {
  const { tenancy } = opts;

  function authenticate(req: HttpRequest): AuthContext {
    const raw = bearerKey(req);
    if (!raw) {
      opts.onAuthFailure('missing');
      throw errors.notAuthenticated();
    }
    const hash = hashKey(raw);
    const key = tenancy.personalKeyByHash(hash);
    if (!key || !sameHash(key.secure_value, hash)) {
      opts.onAuthFailure('invalid');
      throw errors.invalidPersonalKey();
    }
    const user = tenancy.user(key.user_id);
    if (!user) {
      opts.onAuthFailure('invalid');
      throw errors.invalidPersonalKey();
    }
    tenancy.markPersonalKeyUsed(key, new Date());
    return { user, key };
  }

  function resolveProject(ctx: AuthContext, param: string): Project {
    const id = param === '@current' ? ctx.user.current_project_id : /^\d+$/.test(param) ? Number(param) : NaN;
    const project = Number.isNaN(id) ? undefined : tenancy.project(id);
    if (!project) throw errors.projectNotFound();
    if (ctx.key.scoped_projects && !ctx.key.scoped_projects.includes(project.id)) {
      throw errors.permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
    }
    // A project of another organization: no membership, so no access (PostHog answers 403 too).
    if (project.organization_id !== ctx.user.organization_id) throw errors.noProjectAccess();
    return project;
  }

  function route(spec: ManagementRouteSpec): ManagementRoute {
    return {
      methods: spec.methods,
      pattern: spec.pattern,
      scope: spec.scope,
      bodyLimit: spec.bodyLimit ?? MANAGEMENT_BODY_LIMIT,
      handler(req) {
        const auth = authenticate(req);
        opts.rateLimit.hit(auth.key.id);
        const access = accessFor(req.method);
        if (!hasScope(auth.key.scopes, spec.scope, access)) throw errors.missingScope(`${spec.scope}:${access}`);
        const projectParam = req.params.project_id;
        if (projectParam === undefined) {
          if (spec.organizationLevel && auth.key.scoped_projects) throw errors.projectScopedKeyOnOrgRoute();
          return spec.handler(req, auth);
        }
        const project = resolveProject(auth, projectParam);
        opts.projectAccess?.(auth, project, access, spec.projectAccess ?? 'member');
        return spec.handler(req, { ...auth, project });
      },
    };
  }

  return { authenticate, resolveProject, route };
}

export type ManagementAuth = ReturnType<typeof createManagementAuth>;
