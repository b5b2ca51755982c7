// Work done once per cluster (docs/decisions/0031): a consumer whose effects leave the
// service (hog function deliveries) runs on one node of a NATS cluster at a time, the one
// holding its claim: a key in a JetStream KV bucket whose entries expire (HEDGEROW_CLAIMS),
// created by the first node to try and renewed by its holder. While it holds the claim the
// holder also records the consumer's position under the same key in a bucket that keeps it
// (HEDGEROW_CLAIM_POSITIONS); a node taking the claim over starts the consumer from there
// (from its own position only when nobody recorded one). The position recorded is the
// holder's to choose: the destinations record where a successor must replay from for
// nothing the holder still had queued to be lost (src/destinations/runtime/queue.ts).
import { connect, StorageType, type KV, type NatsConnection } from 'nats';

export interface ClaimOptions {
  url: string;
  // The claimed work (a consumer's name): the key in both buckets.
  name: string;
  node: string;
  // How long a claim outlives its holder's last renewal; it is renewed every third of it.
  ttlMs?: number;
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

export const CLAIMS_BUCKET = 'HEDGEROW_CLAIMS';
export const CLAIM_POSITIONS_BUCKET = 'HEDGEROW_CLAIM_POSITIONS';
const DEFAULT_TTL_MS = 10_000;

const text = new TextEncoder();
const fromText = new TextDecoder();

export async function claimWork(opts: ClaimOptions): Promise<Claim> {
  const ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
  const nc: NatsConnection = await connect({ servers: opts.url, name: `hedgerow-claim-${opts.name}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  const js = nc.jetstream();
  let claims: KV;
  let positions: KV;
  try {
    claims = await js.views.kv(CLAIMS_BUCKET, { ttl: ttlMs, history: 1, storage: StorageType.File });
    positions = await js.views.kv(CLAIM_POSITIONS_BUCKET, { history: 1, storage: StorageType.File });
  } catch (err) {
    await nc.close();
    throw err;
  }
  let revision = 0;
  let holding = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let turn: Promise<void> = Promise.resolve();

  async function recordPosition() {
    await positions.put(opts.name, text.encode(String(opts.position())));
  }

  async function attempt() {
    if (closed) return;
    const value = text.encode(JSON.stringify({ node: opts.node, at: Date.now() }));
    if (holding) {
      try {
        revision = await claims.update(opts.name, value, revision);
        await recordPosition();
      } catch (err) {
        holding = false;
        opts.onError?.(err as Error);
        await opts.onLose();
      }
      return;
    }
    try {
      revision = await claims.create(opts.name, value);
    } catch {
      return; // Held elsewhere (or NATS unreachable): try again at the next turn.
    }
    holding = true;
    const recorded = await positions.get(opts.name).catch(() => null);
    const at = recorded && recorded.operation === 'PUT' ? Number(fromText.decode(recorded.value)) : NaN;
    await opts.onAcquire(Number.isSafeInteger(at) && at >= 0 ? at : null);
  }

  const tick = () => {
    turn = turn.then(attempt).catch((err) => opts.onError?.(err as Error));
    void turn.then(() => { if (!closed) timer = setTimeout(tick, ttlMs / 3); });
  };
  tick();
  await turn;

  return {
    held: () => holding,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await turn;
      if (holding) {
        holding = false;
        await opts.onLose();
        await recordPosition().catch(() => undefined);
        await claims.delete(opts.name, { previousSeq: revision }).catch(() => undefined);
      }
      await nc.drain().catch(() => nc.close());
    },
  };
}
