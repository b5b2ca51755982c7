// `hedgerow dead-letters`: what the log's consumers set aside (./dead-letters.ts): log
// records none could decode, and events one could not apply, on the data directory of a
// running server or a stopped one. With --json, one object a line, each with its bytes
// in base64.
import { openStore } from '../../store/index.js';
import { logTables } from '../tables.js';
import { listDeadLetters } from './dead-letters.js';

export async function deadLettersCommand(config: { dataDir: string; json: boolean }): Promise<string> {
  const store = openStore(config.dataDir, [logTables]);
  try {
    const letters = listDeadLetters(store);
    if (config.json) return letters.map((l) => JSON.stringify(l)).join('\n');
    if (letters.length === 0) return 'no log records were set aside';
    return letters.map((l) => `${l.log} #${l.seq}${l.consumer === undefined ? '' : ` event ${l.event} (consumer ${l.consumer})`}, ` +
      `set aside ${l.quarantined_at}: ${l.error} (${l.record === null ? 'no bytes kept' : `${l.bytes} bytes`})`).join('\n');
  } finally {
    await store.close();
  }
}
