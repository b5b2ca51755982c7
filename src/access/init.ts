// `hedgerow init`: the default organization, project and admin (made when missing), and a
// new personal key for the admin, over the data dir opened as serve opens it (with NATS:
// joined from a snapshot when empty, caught up with the control stream).
import type { DataDirOpener } from '../state/index.js';
import type { AccessTables } from './tables.js';
import { withTenancy } from './tenancy/open.js';
import { bootstrap } from './tenancy/bootstrap.js';
import { ALL_SCOPES } from './auth/scopes.js';

export async function initCommand(config: { dataDir: string; json: boolean; open: DataDirOpener<AccessTables> }): Promise<string> {
  const out = await withTenancy(config.dataDir, async (tenancy) => {
    const boot = await bootstrap(tenancy);
    const { key } = await tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'init');
    return { project_id: boot.project.id, project_api_key: boot.project.api_token, personal_api_key: key };
  }, config.open);
  return config.json ? JSON.stringify(out) :
    `project id: ${out.project_id}\nproject API key: ${out.project_api_key}\npersonal API key: ${out.personal_api_key}`;
}
