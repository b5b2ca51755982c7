// A distinct id as PostHog keeps it: its first 200 characters. Ids an event names in
// its properties ($anon_distinct_id, alias) are cut the same way, so they still meet
// the events that carried them as distinct_id, and every id fits an LMDB key.
const MAX_DISTINCT_ID = 200;

export function limitDistinctId(id: string): string {
  return id.length > MAX_DISTINCT_ID ? Array.from(id).slice(0, MAX_DISTINCT_ID).join('') : id;
}
