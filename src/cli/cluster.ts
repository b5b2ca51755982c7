// A CLI command's cluster handle: one connection, assets made as used; `readonly` creates
// nothing and fails at once without a server (`hedgerow status`).
import type { Config } from '../settings.js';
import { clusterSettings, openCluster, type Cluster } from '../cluster/index.js';

export const commandCluster = (config: Readonly<Config>, role: 'command' | 'readonly' = 'command'): Promise<Cluster> =>
  openCluster(clusterSettings(config), role);
