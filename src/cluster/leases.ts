// Liveness by TTL, one mechanism (docs/decisions/0031, 0036): a lease is a key of a KV bucket
// (./kv.ts) that its holder writes and renews against the revision it holds; when the
// holder stops renewing (it died, or lost NATS), the lease lapses one TTL after its last
// write and everyone reads the holder as gone. Its uses:
// - work done once (`acquire`, exclusive): created by the first node to ask (`create` fails
//   while the key exists), renewed every third of the TTL. A holder paused past the TTL
//   finds the key gone or at another node's revision: its renewal is refused and it is told
//   it lost the lease. Any failed renewal loses it: a holder that cannot renew cannot know
//   that nobody else took it. Giving it up deletes the key naming the revision held, after
//   any renewal in flight, so the delete never misses and never removes another node's lease.
//   The claimed log consumers, snapshots and export renders.
// - a key only its holder writes (`hold`): written whatever it held, renewed against its
//   revision. A renewal another writer's write refused ends it (a cancelled query's status),
//   or, with `keep`, the key is written anew (a node's announcement); a renewal that failed
//   is retried at the next turn. Node announcements and query statuses.
// The TTL is the bucket's own when JetStream expires the entries (claims, announcements), or
// shorter than the bucket's when the entry is kept as a record after its holder is gone (a
// query status: lost after 10 s, kept 10 minutes): readers judge `live` from the time of
// the last write, which the server stamps, so every node judges alike.
import { isRefused, type KvView } from './kv.js';

export interface LeaseHooks {
  // The value written at each write (default: who holds it and when, for operators to read).
  value?(): Uint8Array | Promise<Uint8Array>;
  // Runs after each renewal, before the next one (a release waits for it); throwing loses an
  // exclusive lease as a refused renewal does.
  renewed?(): Promise<void>;
  // The lease was lost (a renewal refused, or for an exclusive one failed); it is no longer renewed.
  lost?(err: Error): void;
  // A held key's renewal failed without being refused (NATS unreachable): tried again next turn.
  failed?(err: Error): void;
}

export interface Lease {
  held(): boolean;
  // The revision this holder last wrote.
  revision(): number;
  // Resolves once no write of this lease is in flight.
  idle(): Promise<void>;
  // Stops renewing and deletes the key (once; later calls share the first one's promise).
  release(): Promise<void>;
  // Stops renewing and writes a last value against the revision held, which stays until the
  // bucket's max age; false when the write was refused (another writer wrote the key).
  end(value: () => Uint8Array | Promise<Uint8Array>): Promise<boolean>;
  // Stops renewing and leaves the key to lapse.
  abandon(): void;
}

export interface Leases {
  // A lease outlives its holder's last write by this much; it is renewed every `renewMs`.
  readonly ttlMs: number;
  readonly renewMs: number;
  // False embedded: one node, whose leases nobody else can hold or see lapse.
  readonly shared: boolean;
  // The lease on `key`, or null when it is held (by another node, or by this one already)
  // or NATS cannot be reached.
  acquire(key: string, hooks?: LeaseHooks): Promise<Lease | null>;
  // Holds `key`, this holder's own. Without `keep`, rejects when the first write fails.
  hold(key: string, hooks: LeaseHooks & { keep?: boolean }): Promise<Lease>;
  // The lease this node holds on `key`, if any.
  holding(key: string): Lease | undefined;
  // Whether an entry written at `created` is still within the TTL (its holder renewing).
  live(entry: { created: Date }, now?: number): boolean;
  // Releases every lease still held and waits for the releases in flight.
  close(): Promise<void>;
}

export interface LeasesOptions {
  // Written in the default value: who holds a lease (read by operators, `nats kv get`).
  node: string;
  ttlMs: number;
  // Default: a third of the TTL.
  renewMs?: number;
  shared: boolean;
}

const text = new TextEncoder();
const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

export function createLeases(kv: KvView, opts: LeasesOptions): Leases {
  const { ttlMs } = opts;
  const renewMs = opts.renewMs ?? ttlMs / 3;
  const defaultValue = () => text.encode(JSON.stringify({ node: opts.node, at: Date.now() }));
  const held = new Map<string, Lease>();
  const releasing = new Set<Promise<void>>();

  // One lease: its writes (renewals, the last one) run one after another on `turn`.
  function lease(key: string, hooks: LeaseHooks, first: number, mode: 'exclusive' | 'hold' | 'keep'): Lease {
    const value = hooks.value ?? defaultValue;
    let revision = first;
    let holding = true;
    let turn: Promise<unknown> = Promise.resolve();
    let renewing = false;
    let released: Promise<void> | null = null;
    const stop = () => {
      clearInterval(timer);
      if (held.get(key) === self) held.delete(key);
    };
    const lose = (err: unknown) => {
      holding = false;
      stop();
      hooks.lost?.(asError(err));
    };
    // A kept key never written (NATS was away), or whose renewal was refused (it lapsed
    // meanwhile), is written anew.
    const write = async (): Promise<number> => {
      if (revision === 0) return kv.put(key, await value());
      try {
        return await kv.update(key, await value(), revision);
      } catch (err) {
        if (mode !== 'keep' || !isRefused(err)) throw err;
        return kv.put(key, await value());
      }
    };
    async function renew() {
      if (!holding) return;
      try {
        revision = await write();
      } catch (err) {
        if (mode === 'exclusive' || isRefused(err)) return lose(err);
        hooks.failed?.(asError(err));
        return;
      }
      try {
        await hooks.renewed?.();
      } catch (err) {
        lose(err);
      }
    }
    // A renewal is skipped while the last one is still in flight (NATS slow): they would only queue.
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      turn = turn.then(renew).finally(() => { renewing = false; });
    }, renewMs);
    timer.unref();
    const self: Lease = {
      held: () => holding,
      revision: () => revision,
      idle: () => turn.then(() => undefined),
      release() {
        if (released) return released;
        stop();
        released = turn.then(async () => {
          if (!holding) return;
          holding = false;
          if (revision > 0) await kv.delete(key, { previousSeq: revision }).catch(() => undefined);
        });
        releasing.add(released);
        void released.finally(() => releasing.delete(released!));
        return released;
      },
      end(last) {
        stop();
        const written = turn.then(async () => {
          if (!holding) return false;
          holding = false;
          try {
            revision = await kv.update(key, await last(), revision);
            return true;
          } catch (err) {
            if (isRefused(err)) return false;
            throw err;
          }
        });
        turn = written.catch(() => undefined);
        return written;
      },
      abandon() {
        holding = false;
        stop();
      },
    };
    held.set(key, self);
    return self;
  }

  return {
    ttlMs,
    renewMs,
    shared: opts.shared,
    async acquire(key, hooks = {}) {
      if (held.has(key)) return null;
      let revision: number;
      try {
        revision = await kv.create(key, await (hooks.value ?? defaultValue)());
      } catch {
        return null; // Held elsewhere, or NATS unreachable: the caller tries again later.
      }
      return lease(key, hooks, revision, 'exclusive');
    },
    async hold(key, hooks) {
      held.get(key)?.abandon();
      let revision = 0;
      try {
        revision = await kv.put(key, await (hooks.value ?? defaultValue)());
      } catch (err) {
        if (!hooks.keep) throw err;
        hooks.failed?.(asError(err));
      }
      return lease(key, hooks, revision, hooks.keep ? 'keep' : 'hold');
    },
    holding: (key) => held.get(key),
    live: (entry, now = Date.now()) => now - entry.created.getTime() <= ttlMs,
    async close() {
      await Promise.all([...held.values()].map((l) => l.release()));
      await Promise.all([...releasing]);
    },
  };
}
