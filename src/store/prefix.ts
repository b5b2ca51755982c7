// Scans every entry whose array key starts with `prefix`. Bounds are checked on the
// keys themselves rather than with a sentinel upper bound, which some strings outsort.
import type { Database, Key } from 'lmdb';

export function* withPrefix<V>(db: Database<V, any>, prefix: readonly (string | number)[]): Generator<{ key: (string | number)[]; value: V }> {
  for (const entry of db.getRange({ start: prefix as Key })) {
    const key = entry.key as (string | number)[];
    for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return;
    yield { key, value: entry.value };
  }
}
