// Work claimed across a NATS cluster (docs/decisions/0031, "Work done once"): a lease is a
// key in a JetStream KV bucket whose entries expire, created by the first node to ask
// (`create` fails while the key exists) and renewed by its holder every third of the
// bucket's TTL (`update` naming the revision it holds). A holder that was paused past the
// TTL finds the key gone or at another node's revision: its renewal is refused and the
// lease is lost, which it is told. Giving a lease up deletes the key naming the revision
// held, after any renewal in flight, so the delete never misses and never removes another
// node's lease. A holder that dies lets its leases lapse at the TTL.
// Used by the claimed log consumers (src/log/consumers/claim.ts) and export renders
// (src/exports/assets/nats-shared.ts): one mechanism, one bucket each.
import { StorageType, type JetStreamClient, type KV } from 'nats';

export interface LeasesOptions {
  bucket: string;
  // The TTL the bucket is created with when missing. An existing bucket keeps its own,
  // and renewals follow that one.
  ttlMs: number;
  // Written in the key's value: who holds it (read by operators, `nats kv get`).
  node: string;
  // Replicas of what this creates when missing (HEDGEROW_NATS_REPLICAS; 1 when omitted).
  replicas?: number;
}

export interface LeaseHooks {
  // Runs after each renewal, before the next one (a release waits for it); throwing loses
  // the lease as a refused renewal does.
  renewed?(): Promise<void>;
  // The lease was lost (a renewal refused or failed); it is no longer renewed.
  lost?(err: Error): void;
}

export interface Lease {
  held(): boolean;
  // Stops renewing and deletes the key (once; later calls share the first one's promise).
  release(): Promise<void>;
}

export interface Leases {
  // The bucket's TTL: a lease outlives its holder's last renewal by this much.
  readonly ttlMs: number;
  // The lease on `key`, or null when it is held (by another node, or by this one already)
  // or NATS cannot be reached.
  acquire(key: string, hooks?: LeaseHooks): Promise<Lease | null>;
  // The lease this node holds on `key`, if any.
  holding(key: string): Lease | undefined;
  // Releases every lease still held and waits for the releases in flight.
  close(): Promise<void>;
}

const text = new TextEncoder();
const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

export async function openLeases(js: JetStreamClient, opts: LeasesOptions): Promise<Leases> {
  const kv: KV = await js.views.kv(opts.bucket, { ttl: opts.ttlMs, history: 1, storage: StorageType.File, replicas: opts.replicas ?? 1 });
  const ttlMs = (await kv.status()).ttl || opts.ttlMs;
  const value = () => text.encode(JSON.stringify({ node: opts.node, at: Date.now() }));
  const held = new Map<string, Lease>();
  const releasing = new Set<Promise<void>>();

  async function acquire(key: string, hooks: LeaseHooks = {}): Promise<Lease | null> {
    if (held.has(key)) return null;
    let revision: number;
    try {
      revision = await kv.create(key, value());
    } catch {
      return null; // Held elsewhere, or NATS unreachable: the caller tries again later.
    }
    let holding = true;
    // Renewals and the release run one after another on this chain.
    let turn: Promise<void> = Promise.resolve();
    let released: Promise<void> | null = null;
    const renew = () => {
      turn = turn.then(async () => {
        if (!holding) return;
        try {
          revision = await kv.update(key, value(), revision);
          await hooks.renewed?.();
        } catch (err) {
          holding = false;
          clearInterval(timer);
          if (held.get(key) === lease) held.delete(key);
          hooks.lost?.(asError(err));
        }
      });
    };
    const timer = setInterval(renew, ttlMs / 3);
    timer.unref();
    const lease: Lease = {
      held: () => holding,
      release() {
        if (released) return released;
        clearInterval(timer);
        if (held.get(key) === lease) held.delete(key);
        released = turn.then(async () => {
          if (!holding) return;
          holding = false;
          await kv.delete(key, { previousSeq: revision }).catch(() => undefined);
        });
        releasing.add(released);
        void released.finally(() => releasing.delete(released!));
        return released;
      },
    };
    held.set(key, lease);
    return lease;
  }

  return {
    ttlMs,
    acquire,
    holding: (key) => held.get(key),
    async close() {
      await Promise.all([...held.values()].map((lease) => lease.release()));
      await Promise.all([...releasing]);
    },
  };
}
