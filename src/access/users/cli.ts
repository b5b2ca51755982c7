// `hedgerow user add`: a user joins the organization at a level.
import { OrgLevel, type OrgLevelName } from '../tenancy/types.js';
import { withTenancy } from '../tenancy/open.js';
import { AppliedElsewhereError, type DataDirOpener } from '../../state/index.js';
import type { AccessTables } from '../tables.js';
import { userBasic } from './serialize.js';

export interface UserAddOptions {
  dataDir: string;
  // The store and its write path (the control stream's, on a node of a cluster).
  open: DataDirOpener<AccessTables>;
  json: boolean;
  email?: string;
  firstName?: string;
  lastName?: string;
  level?: string;
}

type Flags = Record<string, string | boolean | undefined>;
const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

export function userCommand(sub: string | undefined, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<AccessTables> }): Promise<string> {
  if (sub !== 'add') throw new Error('usage: hedgerow user add --email E [--first-name F] [--last-name L] [--level member|admin|owner]');
  return userAdd({
    dataDir: config.dataDir, open: config.open, json: config.json, email: text(flags.email), firstName: text(flags['first-name']),
    lastName: text(flags['last-name']), level: text(flags.level),
  });
}

export async function userAdd(o: UserAddOptions): Promise<string> {
  if (!o.email) throw new Error('user add needs --email');
  const levelName = (o.level ?? 'member') as OrgLevelName;
  if (!Object.hasOwn(OrgLevel, levelName)) throw new Error('--level must be member, admin or owner');
  const email = o.email;
  return withTenancy(o.dataDir, async (tenancy) => {
    const org = tenancy.firstOrganization();
    if (!org) throw new Error('no organization yet: run `hedgerow init` first');
    const home = tenancy.projects().filter((p) => p.organization_id === org.id).sort((a, b) => a.id - b.id)[0];
    const user = await tenancy.createUser({
      email, first_name: o.firstName, last_name: o.lastName, level: OrgLevel[levelName],
      organization_id: org.id, current_project_id: home.id,
    }).catch((err: unknown) => {
      // A `serve` on this data dir applied it first (cluster mode): the user is there.
      if (err instanceof AppliedElsewhereError && tenancy.userByEmail(email)) return tenancy.userByEmail(email)!;
      throw err;
    });
    return o.json
      ? JSON.stringify({ ...userBasic(user), level: user.organization_level })
      : `user ${user.email} added: id ${user.id}, uuid ${user.uuid}, level ${levelName}`;
  }, o.open);
}
