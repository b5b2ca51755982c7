// Feeds internal destinations with feature flag changes (./flag-changes.ts): after each
// flag write this node applied for its own API (a write another node made runs there),
// the flags table is compared with what was seen, and each change runs the project's
// internal destinations (./run-internal.ts), one change after another.
import type { StateWrites } from '../../state/index.js';
import type { TenancyStore } from '../../access/index.js';
import { flagActivity, seeFlags, type FlagSeen } from './flag-changes.js';
import { runInternalEvent, type InternalDeps } from './run-internal.js';

const FLAG_WRITES = new Set(['flags.insert_flag', 'flags.save_flag']);

type Rows = () => Iterable<Record<string, unknown>>;

export function watchFlags(writes: StateWrites, rows: Rows, tenancy: TenancyStore, deps: InternalDeps, onError: (err: Error) => void): { idle(): Promise<void> } {
  let seen: Map<string, FlagSeen> = seeFlags(rows());
  let chain: Promise<void> = Promise.resolve();
  writes.onApplied((kind, origin) => {
    if (!FLAG_WRITES.has(kind)) return;
    const now = new Date().toISOString();
    const events = [];
    const all = [...rows()];
    for (const row of all) {
      const activity = origin === 'here' ? flagActivity(row, seen.get(`${row.project_id}/${row.id}`), now) : null;
      if (activity !== null) events.push(activity);
    }
    seen = seeFlags(all);
    for (const { userId, ...ev } of events) {
      const user = userId === null ? undefined : tenancy.user(userId);
      const internal = {
        ...ev,
        properties: { ...ev.properties, user: user ? { first_name: user.first_name, email: user.email } : null },
        user: user ? { distinct_id: user.distinct_id, id: user.uuid, properties: { email: user.email, first_name: user.first_name, last_name: user.last_name } } : null,
      };
      chain = chain.then(() => runInternalEvent(deps, internal)).catch(onError);
    }
  });
  return { idle: () => chain };
}
