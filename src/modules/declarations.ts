// What a list of modules declares, put together: the log consumers a process of a role runs,
// the management commands every node applies, and the CLI's commands.
import type { Config } from '../settings.js';
import type { AnyCommandSpec } from '../state/index.js';
import type { RegisteredConsumer } from '../log/consumers/index.js';
import type { CommandEntry } from './command.js';
import type { NodeModule, Role } from './node.js';

export async function consumersOf(modules: readonly NodeModule[], config: Readonly<Config>, role: Role): Promise<RegisteredConsumer[]> {
  return (await Promise.all(modules.map((m) => m.consumers?.(config, role) ?? []))).flat();
}

export async function writeCommandsOf<S>(modules: readonly NodeModule[]): Promise<AnyCommandSpec<S>[]> {
  return (await Promise.all(modules.map((m) => m.writes?.() ?? []))).flat();
}

export function commandsOf(modules: readonly NodeModule[]): CommandEntry[] {
  return modules.flatMap((m) => m.commands ?? []);
}
