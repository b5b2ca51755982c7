// What the domains' commands on a data dir share: printing their answer, the settings they
// take, and opening the data dir as serve would (its tables, its write path: the control
// stream with NATS, so what they write reaches every node).
import type { DataDirOpener } from '../state/index.js';
import type { Store } from '../tables.js';
import type { CommandFlag, ConfiguredInput, Flags } from './command.js';

export const print = (out: string): number => {
  if (out) process.stdout.write(out + '\n');
  return 0;
};

// The settings of a command on a data dir, which with NATS writes through the control stream.
export const DATA_DIR = ['data', 'nats'] as const;

export const emailFlag = (doc: string, required = false): CommandFlag => ({ name: 'email', type: 'string', value: 'E', doc, required });

export type StoreCommand = (sub: string, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<Store> }) => Promise<string>;

export async function storeCommand(load: () => Promise<StoreCommand>, sub: string, { flags, config, service }: ConfiguredInput): Promise<number> {
  const [run, { cliDataDir }] = await Promise.all([load(), import('./writes.js')]);
  return print(await run(sub, flags, { ...config, open: cliDataDir(config, service) }));
}
