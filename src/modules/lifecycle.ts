// The lifecycle of a list of modules: started in order, each seeing what the ones before
// provide; closed in reverse; a start that fails closes everything already started before
// the error goes on, so a failing start leaves nothing running.
import type { Route } from '../http/types.js';
import type { Module, Started, Use } from './module.js';

export interface Running {
  readonly routes: readonly Route[];
  // What a started module provides (as `use` in a start).
  readonly use: Use;
  // Every module's checks, by name; ok when all of them hold; and why those failing do, where
  // their modules say.
  readiness(): { ok: boolean; checks: Record<string, boolean>; reasons?: Record<string, string> };
  // Closes every module in reverse order, once (later calls share the first's promise).
  // A module whose close throws does not keep the others open: the first error is thrown
  // after all of them closed.
  close(): Promise<void>;
}

interface Entry { name: string; started: Started<unknown> }

// Told of each module's close and how long it took: a stop that is slow says where.
export type OnClosed = (name: string, ms: number) => void;

export async function startModules<C>(modules: readonly Module<C, unknown>[], ctx: C, onClosed?: OnClosed): Promise<Running> {
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`two modules are named ${m.name}`);
    names.add(m.name);
  }
  const entries: Entry[] = [];
  const provided = new Map<Module<never, unknown>, unknown>();
  const use: Use = <P>(module: Module<never, P>): P => {
    if (!provided.has(module)) throw new Error(`module ${module.name} is not started before the module asking for it`);
    return provided.get(module) as P;
  };
  for (const m of modules) {
    try {
      const started = (await m.start?.(ctx, use)) ?? {};
      entries.push({ name: m.name, started });
      provided.set(m as Module<never, unknown>, started.provides);
    } catch (err) {
      // The start's own error is the one to report; a close failing while unwinding is not.
      await closeEntries(entries, onClosed).catch(() => undefined);
      throw err;
    }
  }
  let closing: Promise<void> | null = null;
  return {
    use,
    routes: entries.flatMap((e) => e.started.routes ?? []),
    readiness() {
      const checks: Record<string, boolean> = {};
      const reasons: Record<string, string> = {};
      for (const { started } of entries) {
        const own = started.ready?.() ?? {};
        Object.assign(checks, own);
        const why = Object.values(own).every(Boolean) ? {} : started.unready?.() ?? {};
        for (const [name, reason] of Object.entries(why)) if (own[name] === false) reasons[name] = reason;
      }
      const ok = Object.values(checks).every(Boolean);
      return Object.keys(reasons).length > 0 ? { ok, checks, reasons } : { ok, checks };
    },
    close: () => (closing ??= closeEntries(entries, onClosed)),
  };
}

async function closeEntries(entries: readonly Entry[], onClosed?: OnClosed): Promise<void> {
  let first: unknown = null;
  for (const { name, started } of [...entries].reverse()) {
    const t0 = performance.now();
    try {
      await started.close?.();
    } catch (err) {
      first ??= new Error(`closing ${name}: ${(err as Error).message}`);
    }
    onClosed?.(name, Math.round(performance.now() - t0));
  }
  if (first) throw first;
}
