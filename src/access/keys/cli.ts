// `hedgerow key create | list | revoke`: personal API keys. The key itself is printed
// once, at creation; only its hash is kept.
import { parseScopes } from '../auth/scopes.js';
import { withTenancy } from '../tenancy/open.js';
import { AppliedElsewhereError, type DataDirOpener } from '../../state/index.js';
import type { AccessTables } from '../tables.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { PersonalKey } from '../tenancy/types.js';

export interface KeyOptions {
  dataDir: string;
  // The store and its write path (the control stream's, on a node of a cluster).
  open: DataDirOpener<AccessTables>;
  json: boolean;
  email?: string;
  scopes?: string;
  projects?: string;
  label?: string;
  id?: string;
}

type Flags = Record<string, string | boolean | undefined>;
const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

export function keyCommand(sub: string | undefined, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<AccessTables> }): Promise<string> {
  const o: KeyOptions = {
    dataDir: config.dataDir, open: config.open, json: config.json, email: text(flags.email), scopes: text(flags.scopes),
    projects: text(flags.projects), label: text(flags.label), id: text(flags.id),
  };
  switch (sub) {
    case 'create': return keyCreate(o);
    case 'list': return keyList(o);
    case 'revoke': return keyRevoke(o);
    default: throw new Error('usage: hedgerow key create|list|revoke');
  }
}

function parseProjects(list: string): number[] {
  const ids = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0 || ids.some((s) => !/^\d+$/.test(s))) throw new Error('--projects must be project ids separated by commas');
  return [...new Set(ids.map(Number))];
}

function describe(tenancy: TenancyStore, k: PersonalKey) {
  return {
    id: k.id, label: k.label, user: tenancy.user(k.user_id)?.email ?? null, scopes: k.scopes,
    scoped_projects: k.scoped_projects, mask_value: k.mask_value, created_at: k.created_at, last_used_at: k.last_used_at,
  };
}

export async function keyCreate(o: KeyOptions): Promise<string> {
  if (!o.email) throw new Error('key create needs --email');
  if (!o.scopes) throw new Error('key create needs --scopes (for example insight:read,feature_flag:write or *)');
  const scopes = parseScopes(o.scopes);
  const projects = o.projects === undefined ? null : parseProjects(o.projects);
  const email = o.email;
  return withTenancy(o.dataDir, async (tenancy) => {
    const user = tenancy.userByEmail(email);
    if (!user) throw new Error(`no user with email ${email}`);
    for (const id of projects ?? []) {
      if (tenancy.project(id)?.organization_id !== user.organization_id) throw new Error(`no project ${id} in the organization of ${user.email}`);
    }
    const { key, record } = await tenancy.createPersonalKey(user.id, scopes, projects, o.label ?? '');
    return o.json ? JSON.stringify({ key, ...describe(tenancy, record) }) : key;
  }, o.open);
}

export async function keyList(o: KeyOptions): Promise<string> {
  return withTenancy(o.dataDir, (tenancy) => {
    const keys = tenancy.personalKeys()
      .map((k) => describe(tenancy, k))
      .filter((k) => !o.email || k.user === o.email.toLowerCase())
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
    if (o.json) return JSON.stringify(keys);
    return keys.map((k) => [k.id, k.mask_value, k.user ?? '?', k.label || '-', k.scopes.join(','),
      k.scoped_projects ? `projects ${k.scoped_projects.join(',')}` : 'all projects', k.created_at].join('  ')).join('\n');
  }, o.open);
}

export async function keyRevoke(o: KeyOptions): Promise<string> {
  if (!o.id) throw new Error('key revoke needs --id');
  const id = o.id;
  return withTenancy(o.dataDir, async (tenancy) => {
    const known = tenancy.personalKeys().some((k) => k.id === id);
    const revoked = await tenancy.revokePersonalKey(id).catch((err: unknown) => {
      // A `serve` on this data dir applied it first (cluster mode).
      if (err instanceof AppliedElsewhereError) return known;
      throw err;
    });
    if (!revoked) throw new Error(`no key with id ${id}`);
    return o.json ? JSON.stringify({ revoked: id }) : `revoked key ${id}`;
  }, o.open);
}
