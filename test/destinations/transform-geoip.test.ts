// geoipLookup in transformations (PostHog's GeoIP transformation sets $geoip_* on events with
// it): the database's record for the event's address, null without a database or an address.
// Run as the event store's Hog worker runs a transformation task, without a server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProgram, initHog } from '../../src/hog/index.js';
import { runTransformation, type TransformInput, type TransformOutcome } from '../../src/destinations/runtime/transform-run.js';
import type { RunnableFunction } from '../../src/destinations/runtime/runnable.js';
import { bundledDatabasePath } from '../../src/geoip/database.js';

const s = suite('destinations: geoipLookup in transformations');
// Written here after PostHog's GeoIP template's behaviour: the record's English names and codes
// onto the event, the event unchanged when the lookup finds nothing.
const SOURCE = `
let record := geoipLookup(event.properties.$ip)
if (not record) {
  return event
}
let props := event.properties
props['$geoip_country_code'] := record.country.iso_code
props['$geoip_continent_code'] := record.continent.code
props['$geoip_time_zone'] := record.location.time_zone
return {'properties': cleanNullValues(props)}
`;
let fn: RunnableFunction;
const project = { id: 1, name: 'p', url: 'http://localhost/project/1' };
const ev = (ip: unknown): TransformInput => ({ uuid: 'u', event: '$pageview', distinct_id: 'd', properties: { $ip: ip, a: 1 }, timestamp: '2026-11-28T00:00:00.000Z' });
const resultOf = (o: TransformOutcome) => {
  if (o.kind !== 'returned') throw new Error(`${o.kind}: ${'message' in o ? o.message : ''}`);
  return o.result as { properties: Record<string, unknown> };
};

s.before(async () => {
  await initHog();
  const compiled = compileProgram(SOURCE, { functions: ['geoipLookup', 'cleanNullValues'] });
  if (!compiled.ok) throw new Error(compiled.error.message);
  fn = { id: 'f', name: 'GeoIP', bytecode: compiled.bytecode, inputs: {}, secretKeys: [], filters: null, mappings: null, masking: null };
});

s('a known address gets its country, continent and time zone; private and malformed addresses nothing', async () => {
  const [london, google, loopback, garbage, none] = await runTransformation({
    fn, project, geoipDb: bundledDatabasePath(), events: [ev('81.2.69.142'), ev('8.8.8.8'), ev('127.0.0.1'), ev('not an address'), ev(null)],
  });
  assert.equal(resultOf(london).properties, { $ip: '81.2.69.142', a: 1, $geoip_country_code: 'GB', $geoip_continent_code: 'EU', $geoip_time_zone: 'Europe/London' });
  assert.equal([resultOf(google).properties.$geoip_country_code, resultOf(google).properties.$geoip_continent_code], ['US', 'NA']);
  for (const unchanged of [loopback, garbage, none]) assert.not.ok('$geoip_country_code' in resultOf(unchanged).properties);
});

s('without a database (HEDGEROW_GEOIP_DB=none) the lookup finds nothing and the event passes as it was', async () => {
  const [out] = await runTransformation({ fn, project, geoipDb: null, events: [ev('81.2.69.142')] });
  assert.equal(resultOf(out).properties, { $ip: '81.2.69.142', a: 1 });
});

s.run();
