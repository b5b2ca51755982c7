// What PostHog's HogQL has and hedgerow lacks is a 400 naming it (through the real server):
// WITH ROLLUP / CUBE / TOTALS, which PostHog's parser drops (the query would run as a plain
// GROUP BY), GROUP BY ROLLUP(...) / CUBE(...) / GROUPING SETS, and PostHog's fields hedgerow's
// tables lack (groups.updated_at, ...). Beside them, the fields added here: the sessions'
// entry referrer, host and campaign, events' $window_id and elements_chain_* columns.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const u = suite('hogql: refused by name');
let t: TestServer;
let api: ApiCall;

const hogql = async (query: string) =>
  api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' });
const rows = async (query: string) => {
  const r = await hogql(query);
  assert.is(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body.results as unknown[][];
};
const refused = async (query: string, detail: RegExp) => {
  const r = await hogql(query);
  assert.is(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.type, 'validation_error');
  assert.match(r.body.detail, detail);
  return r.body.detail as string;
};

u.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS, env: { HEDGEROW_HOGQL_PARSER: 'warm' } });
  api = apiClient(t);
  const ev = (event: string, timestamp: string, properties: Record<string, unknown>) => ({ uuid: randomUUID(), event, distinct_id: 'd1', timestamp, properties });
  const batch = [
    // s1: enters on a.example from google with a campaign, leaves on b.example.
    ev('$identify', '2024-06-01T08:59:00Z', { $session_id: 's1', utm_source: 'ignored-no-url' }),
    ev('$pageview', '2024-06-01T09:00:00Z', { $session_id: 's1', $window_id: 'w1', $current_url: 'https://a.example/x', $host: 'a.example', $referring_domain: 'www.google.com', utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'summer', gclid: 'g-1' }),
    ev('$pageview', '2024-06-01T09:05:00Z', { $session_id: 's1', $window_id: 'w1', $current_url: 'https://b.example/y', $host: 'b.example', $referring_domain: '$direct', utm_source: 'other' }),
    // s2: one page view, no campaign.
    ev('$pageview', '2024-06-02T10:00:00Z', { $session_id: 's2', $current_url: 'https://a.example/', $host: 'a.example', $referring_domain: '$direct' }),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
  assert.equal(await rows('select count() from events'), [[4]]);
});
u.after(async () => { await t?.close(); });

u('WITH ROLLUP, WITH CUBE, WITH TOTALS: a 400 naming them at their place, not a plain GROUP BY', async () => {
  const r = await hogql('select event, count() from events group by event with rollup');
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.match(r.body.detail, /^WITH ROLLUP is not supported by hedgerow: it returns the groups only/);
  await refused('select event, count() from events group by event WITH  CUBE order by event', /^WITH CUBE is not supported by hedgerow/);
  await refused('select event, count() from events group by event\n  with totals', /^WITH TOTALS is not supported by hedgerow/);
  await refused('select count() from (select event, count() c from events group by event with rollup)', /^WITH ROLLUP is not supported/);
  // Found past a long string of escaped quotes (the text is scanned once, not backtracked over).
  await refused(`select '${"\\'".repeat(50_000)}' as s group by s with totals`, /^WITH TOTALS is not supported by hedgerow/);
  // The words inside strings, quoted names and comments are not the modifier.
  assert.equal(await rows("select 'with rollup' as `with totals` -- with cube\n"), [['with rollup']]);
  assert.equal(await rows("select event /* group by x with rollup */, count() from events where event != 'with totals' group by event order by event"), [['$identify', 1], ['$pageview', 3]]);
});

u('GROUP BY ROLLUP(...), CUBE(...) and GROUPING SETS: a 400 naming them', async () => {
  await refused('select event, count() from events group by rollup(event)', /^GROUP BY ROLLUP is not supported by hedgerow/);
  await refused('select event, count() from events group by cube(event)', /^GROUP BY CUBE is not supported by hedgerow/);
  await refused('select event, count() from events group by grouping sets ((event), ())', /^GROUP BY GROUPING SETS is not supported by hedgerow/);
});

u('PostHog’s fields hedgerow lacks: a 400 naming the field and why', async () => {
  await refused('select key, updated_at from groups', /^The field groups\.updated_at is not supported by hedgerow: hedgerow keeps each group as its latest \$groupidentify left it/);
  await refused('select g.updated_at from groups g', /^The field groups\.updated_at is not supported by hedgerow/);
  await refused('select group_0.updated_at from events', /^The field groups\.updated_at is not supported by hedgerow/);
  await refused('select person_mode from events', /^The field events\.person_mode is not supported by hedgerow/);
  await refused('select $channel_type, count() from sessions group by 1', /^The field sessions\.\$channel_type is not supported by hedgerow: .*\$entry_referring_domain/);
  await refused('select session.$channel_type from events', /^The field sessions\.\$channel_type is not supported by hedgerow/);
  // Anything else is PostHog's wording.
  await refused('select nosuch from groups', /^Unable to resolve field: nosuch/);
});

u('PostHog’s functions hedgerow lacks: a 400 naming the function, why, and what to use', async () => {
  await refused('select cityHash64(distinct_id) % 10 from events', /^Unsupported function call 'cityHash64\(\.\.\.\)': ClickHouse's non-cryptographic hashes are not reproduced by hedgerow .* hex\(MD5\(x\)\)\.$/);
  await refused("select sipHash64('a')", /^Unsupported function call 'sipHash64\(\.\.\.\)': ClickHouse's non-cryptographic/);
  await refused("select windowFunnel(3600)(timestamp, event = '$pageview', event = '$identify') from events group by distinct_id", /^Unsupported function call 'windowFunnel\(\.\.\.\)': .*FunnelsQuery or RetentionQuery/);
  await refused('select uniqMerge(x) from (select uniqState(distinct_id) as x from events)', /^Unsupported function call 'uniq(Merge|State)\(\.\.\.\)': aggregate states come from PostHog's pre-aggregated tables/);
  await refused("select convertCurrency('USD', 'EUR', 10)", /^Unsupported function call 'convertCurrency\(\.\.\.\)': hedgerow keeps no exchange rates\.$/);
  // A name PostHog lacks too keeps PostHog's wording and hint.
  await refused('select cityHash6(1)', /^Unsupported function call 'cityHash6\(\.\.\.\)'\.( Perhaps|$)/);
});

u('sessions: the entry event’s referrer, host and campaign; the exit host', async () => {
  assert.equal(await rows('select session_id, $entry_referring_domain, $entry_hostname, $end_hostname, $entry_utm_source, $entry_utm_medium, $entry_utm_campaign, $entry_utm_term, $entry_gclid from sessions order by session_id'), [
    ['s1', 'www.google.com', 'a.example', 'b.example', 'google', 'cpc', 'summer', null, 'g-1'],
    ['s2', '$direct', 'a.example', 'a.example', null, null, null, null, null],
  ]);
  assert.equal(await rows("select session.$entry_utm_source, count() from events where event = '$pageview' group by 1 order by 1"), [['google', 2], [null, 1]]);
});

u('events: $window_id from its property, elements_chain_* empty as elements_chain', async () => {
  assert.equal(await rows("select $window_id, count() from events group by 1 order by 1"), [['', 2], ['w1', 2]]);
  assert.equal(await rows('select elements_chain_href, elements_chain_texts, elements_chain_ids, elements_chain_elements from events limit 1'), [['', [], [], []]]);
});

u.run();
