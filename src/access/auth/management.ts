// Management API authentication and authorization: one mechanism for every route.
// A route declares the scope object it needs; read or write follows the method. A
// project's routes are declared once with projectRoutes, which registers them under
// /api/projects/:project_id/ and /api/environments/:project_id/ (PostHog serves both)
// and hands the handler the resolved project.
import { errors } from '../../errors.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { PersonalKey, Project, User } from '../tenancy/types.js';
import { hashKey, sameHash } from '../tenancy/keys.js';
import { accessFor, hasScope, type Access } from './scopes.js';
import type { RateLimiter } from './rate-limit.js';
import { checkSameOrigin, sessionToken } from '../sessions/cookie.js';
import type { SessionStore } from '../sessions/store.js';

export interface AuthContext {
  user: User;
  key: PersonalKey;
}

export interface ProjectContext extends AuthContext {
  project: Project;
}

interface RouteRules {
  methods: readonly string[];
  // The scope object, e.g. 'query' → query:read for GET, query:write otherwise.
  scope: string;
  // The access the scope must grant when it is not the method's (PostHog's query API
  // reads with POST and DELETE: query:read).
  access?: Access;
  bodyLimit?: number;
}

// A route outside any one project (users, organizations, the flag feed).
export interface ManagementRouteSpec extends RouteRules {
  pattern: string;
  // The route acts on the organization rather than one project (project list,
  // organization members): PostHog refuses keys limited to projects there.
  organizationLevel?: boolean;
  handler: (req: HttpRequest, ctx: AuthContext) => HttpResponse | Promise<HttpResponse>;
}

export type ProjectHandler = (req: HttpRequest, ctx: ProjectContext) => HttpResponse | Promise<HttpResponse>;

// A route of one project's resource.
export interface ProjectRouteSpec extends RouteRules {
  // Below the project: 'feature_flags/:id' serves /api/projects/:project_id/feature_flags/:id
  // and /api/environments/:project_id/feature_flags/:id; '' the project itself.
  path: string;
  // What the caller's project membership must allow: 'member' (default) any access;
  // 'manage' PostHog's strict management, member to read and project admin to change.
  projectAccess?: ProjectAccessRule;
  handler: ProjectHandler;
}

const PROJECT_PREFIXES = ['/api/projects', '/api/environments'] as const;

// What auth.route builds: a plain route that still says which scope it enforces,
// so the route table can be audited (test/auth/route-scopes.test.ts).
export interface ManagementRoute extends Route {
  scope: string;
  access?: Access;
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
  // The web app's sessions: a request with no key may act as the user of its session cookie.
  sessions?: SessionStore;
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

  // A session acts as its user with a key of every scope on every project of the
  // organization, as a personal key minted with `*` and no project list: what the user may
  // see and change is then decided by the same scope and explicit-member rules.
  function bySession(req: HttpRequest, token: string): AuthContext {
    const found = opts.sessions!.resolve(token);
    if (!found) {
      opts.onAuthFailure('session');
      throw errors.sessionExpired();
    }
    checkSameOrigin(req);
    const { session, user } = found;
    const key: PersonalKey = {
      id: `session:${session.token_hash.slice(0, 16)}`, user_id: user.id, label: 'session', secure_value: session.token_hash, mask_value: '',
      scopes: ['*'], scoped_projects: null, created_at: session.created_at, last_used_at: null,
    };
    return { user, key };
  }

  function authenticate(req: HttpRequest): AuthContext {
    const raw = bearerKey(req);
    if (!raw) {
      const token = opts.sessions ? sessionToken(req) : null;
      if (token) return bySession(req, token);
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

  // The caller, rate-limited and holding the route's scope.
  function admit(req: HttpRequest, scope: string, fixed?: Access): AuthContext {
    const auth = authenticate(req);
    opts.rateLimit.hit(auth.key.id);
    const access = fixed ?? accessFor(req.method);
    if (!hasScope(auth.key.scopes, scope, access)) throw errors.missingScope(`${scope}:${access}`);
    return auth;
  }

  // The project of the path, once the caller may act on it.
  function enterProject(req: HttpRequest, auth: AuthContext, rule: ProjectAccessRule, fixed?: Access): ProjectContext {
    const project = resolveProject(auth, req.params.project_id);
    opts.projectAccess?.(auth, project, fixed ?? accessFor(req.method), rule);
    return { ...auth, project };
  }

  function route(spec: ManagementRouteSpec): ManagementRoute {
    if (spec.pattern.includes(':project_id')) throw new Error(`${spec.pattern}: a project's routes are declared with projectRoutes`);
    return {
      methods: spec.methods,
      pattern: spec.pattern,
      scope: spec.scope,
      bodyLimit: spec.bodyLimit ?? MANAGEMENT_BODY_LIMIT,
      handler(req) {
        const auth = admit(req, spec.scope);
        if (spec.organizationLevel && auth.key.scoped_projects) throw errors.projectScopedKeyOnOrgRoute();
        return spec.handler(req, auth);
      },
    };
  }

  function projectRoutes(spec: ProjectRouteSpec): ManagementRoute[] {
    const rule = spec.projectAccess ?? 'member';
    const handler = (req: HttpRequest) => spec.handler(req, enterProject(req, admit(req, spec.scope, spec.access), rule, spec.access));
    return PROJECT_PREFIXES.map((prefix) => ({
      methods: spec.methods,
      pattern: spec.path === '' ? `${prefix}/:project_id` : `${prefix}/:project_id/${spec.path}`,
      scope: spec.scope,
      access: spec.access,
      bodyLimit: spec.bodyLimit ?? MANAGEMENT_BODY_LIMIT,
      handler,
    }));
  }

  return { authenticate, resolveProject, route, projectRoutes };
}

export type ManagementAuth = ReturnType<typeof createManagementAuth>;
