// `hedgerow init`: the default organization, project and admin, and a new personal key.
// With NATS the node is opened as serve opens it (joined from a snapshot, caught up with
// the control stream), which loads the service; embedded, only the store and access.
import type { Config } from '../settings.js';

export async function init(config: Readonly<Config>): Promise<number> {
  const [{ openStore }, { tables }, { ALL_SCOPES, bootstrap, createTenancyStore, tenancyCommands }, { createLocalWrites }, { createLogger }] = await Promise.all([
    import('../store/index.js'), import('../tables.js'), import('../access/index.js'), import('../state/index.js'), import('../logger.js'),
  ]);
  // Embedded, no cluster handle is needed: the write path is the data dir's LMDB.
  const cluster = config.natsUrl ? await (await import('./cluster.js')).commandCluster(config) : null;
  const opened = cluster
    ? await (await import('../main.js')).openNode(cluster, config, createLogger('silent')).catch(async (err: unknown) => { await cluster.close(); throw err; })
    : null;
  const store = opened?.store ?? openStore(config.dataDir, tables);
  const tenancy = createTenancyStore(store, opened?.writes ?? createLocalWrites(store, tenancyCommands));
  const boot = await bootstrap(tenancy);
  const { key } = await tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'init');
  await opened?.control?.close();
  await cluster?.close();
  await store.close();
  const out = { project_id: boot.project.id, project_api_key: boot.project.api_token, personal_api_key: key };
  process.stdout.write(config.json ? JSON.stringify(out) + '\n' :
    `project id: ${out.project_id}\nproject API key: ${out.project_api_key}\npersonal API key: ${out.personal_api_key}\n`);
  return 0;
}
