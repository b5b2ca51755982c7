// `hedgerow destinations failed | resend`: a function's deliveries that failed for good,
// listed or sent again (beyond PostHog: its #30391), on the data directory of a running
// server or a stopped one. Requests go out from this process, under the same address
// policy (HEDGEROW_HOG_FETCH_ALLOW) as the server's.
import type { DataDirOpener } from '../state/index.js';
import { parseAddressPolicy } from '../net/address-policy.js';
import type { DestinationsTables } from './tables.js';
import type { StoredHogFunction } from './types.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from './fetch/http-fetch.js';
import { openDestinationsStore } from './runtime/env.js';
import { failedOf } from './runtime/failed-deliveries.js';
import { resendFailed } from './runtime/resend.js';
import { failedDeliveryResponse, secretRedactor } from './api/failed-deliveries.js';

type Flags = Record<string, string | boolean | undefined>;
const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

export async function destinationsCommand(
  sub: string, flags: Flags, config: { dataDir: string; json: boolean; fetchAllow: string; open: DataDirOpener<DestinationsTables> },
): Promise<string> {
  if (sub !== 'failed' && sub !== 'resend') throw new Error('usage: hedgerow destinations failed|resend --function ID [--id ID]');
  const wanted = text(flags.function);
  if (wanted === undefined) throw new Error(`destinations ${sub} needs --function ID (a hog function's id)`);
  const opened = await config.open(config.dataDir, []);
  const ds = openDestinationsStore(config.dataDir);
  try {
    let fn: StoredHogFunction | undefined;
    for (const { key, value } of opened.store.hogFunctions.getRange()) if (key[1] === wanted) fn = value as StoredHogFunction;
    if (!fn) throw new Error(`no hog function with id ${wanted}`);
    if (sub === 'failed') {
      const redact = secretRedactor(fn);
      const rows = failedOf(ds, fn.id).map((f) => failedDeliveryResponse(f, redact));
      if (config.json) return JSON.stringify(rows);
      if (rows.length === 0) return `no failed deliveries for ${fn.id}`;
      return rows.map((r) => `${r.id}  ${r.failed_at}  event ${r.event_uuid}  ${r.request.method} ${r.request.url}  ${r.error}` +
        (r.resent > 0 ? `  (sent again ${r.resent}x)` : '')).join('\n');
    }
    const id = text(flags.id);
    const policy = parseAddressPolicy(config.fetchAllow);
    const round = await resendFailed(ds, fn, id === undefined ? null : [id],
      (request) => httpFetch(request, { policy, timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }), Date.now);
    if (config.json) return JSON.stringify(round);
    const delivered = round.results.filter((r) => r.delivered).length;
    return `sent ${round.results.length} again: ${delivered} delivered, ${round.results.length - delivered} failed; ${round.remaining} kept` +
      (round.stopped ? ` (stopped: ${round.stopped})` : '');
  } finally {
    await ds.close();
    await opened.close();
  }
}
