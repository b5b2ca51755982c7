// Work done once per cluster (docs/decisions/0031): a consumer whose effects leave the
// service (hog function deliveries) runs on one node of a NATS cluster at a time, the one
// holding its claim: a lease (src/cluster/leases.ts) on a key of the KV bucket HEDGEROW_CLAIMS,
// which every other node tries to take every third of its TTL. Embedded, the one node always
// gets it (the cluster's twin): the work runs through the same code. While it holds the claim the
// holder also records the consumer's position under the same key in a bucket that keeps it
// (HEDGEROW_CLAIM_POSITIONS); a node taking the claim over starts the consumer from there
// (from its own position only when nobody recorded one). The position recorded is the
// holder's to choose: the destinations record where a successor must replay from for
// nothing the holder still had queued to be lost (src/destinations/runtime/queue.ts).
import type { Cluster, Lease, Leases, KvView } from '../../cluster/index.js';

export interface ClaimOptions {
  // The claimed work (a consumer's name): the key in both buckets.
  name: string;
  // The position to record at each renewal: where a successor starts.
  position(): number;
  // Called on taking the claim, with the position the last holder recorded (null for none);
  // the work starts when it resolves.
  onAcquire(recorded: number | null): Promise<void>;
  // Called on losing it (a renewal refused: another node holds it now); the work stops.
  onLose(): Promise<void>;
  onError?(err: Error): void;
}

export interface Claim {
  held(): boolean;
  // Stops renewing and gives the claim up, so another node takes it at its next try.
  close(): Promise<void>;
}

const text = new TextEncoder();
const fromText = new TextDecoder();

// The claim's lease TTL is the claims bucket's (the cluster timings' claimTtlMs when this
// node made it); the positions bucket keeps what the holder records.
export async function claimWork(cluster: Cluster, opts: ClaimOptions): Promise<Claim> {
  const leases: Leases = await cluster.leases('claims');
  const positions: KvView = await cluster.kv('claimPositions');
  let lease: Lease | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  // Taking the claim, and the work's start and stop, run one after another on this chain.
  let turn: Promise<void> = Promise.resolve();

  async function recordPosition() {
    await positions.put(opts.name, text.encode(String(opts.position())));
  }

  function lost(from: Lease, err: Error) {
    turn = turn.then(async () => {
      if (lease !== from) return; // Given up by close() meanwhile.
      lease = null;
      opts.onError?.(err);
      await opts.onLose();
    }).catch((e) => opts.onError?.(e as Error));
  }

  // While the claim is held the lease renews itself (recording the position each time).
  async function attempt() {
    if (closed || lease) return;
    const taken = await leases.acquire(opts.name, { renewed: recordPosition, lost: (err) => lost(taken!, err) });
    if (!taken) return; // Held elsewhere (or NATS unreachable): try again at the next turn.
    lease = taken;
    const recorded = await positions.get(opts.name).catch(() => null);
    const at = recorded && recorded.operation === 'PUT' ? Number(fromText.decode(recorded.value)) : NaN;
    await opts.onAcquire(Number.isSafeInteger(at) && at >= 0 ? at : null);
  }

  const tick = () => {
    turn = turn.then(attempt).catch((err) => opts.onError?.(err as Error));
    void turn.then(() => { if (!closed) timer = setTimeout(tick, leases.ttlMs / 3); });
  };
  tick();
  await turn;

  return {
    held: () => lease?.held() ?? false,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await turn;
      const giving = lease;
      lease = null;
      if (giving) {
        await opts.onLose();
        // Not once lost: the position is then the next holder's to record.
        if (giving.held()) {
          await recordPosition().catch(() => undefined);
          await giving.release();
        }
      }
      await leases.close();
    },
  };
}
