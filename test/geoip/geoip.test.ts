import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadGeoIp, bundledDatabasePath, deferredGeoIp } from '../../src/geoip/database.js';
import { clientAddress } from '../../src/geoip/properties.js';

const s = suite('GeoIP');
let geo: Awaited<ReturnType<typeof loadGeoIp>>;
s.before(async () => { geo = await loadGeoIp(bundledDatabasePath()); });

s('a known address resolves to the seven PostHog properties', () => {
  // 8.8.8.8 is Google's resolver, registered in the United States.
  const p = geo.lookup('8.8.8.8');
  assert.is(p.$geoip_country_code, 'US');
  assert.is(p.$geoip_country_name, 'United States');
  assert.is(p.$geoip_continent_code, 'NA');
  assert.is(p.$geoip_continent_name, 'North America');
  assert.type(p.$geoip_time_zone, 'string');
});

s('a city-level address carries city, postal code and time zone', () => {
  // 81.2.69.142 is in MaxMind's own documentation as a London address.
  const p = geo.lookup('81.2.69.142');
  assert.is(p.$geoip_country_code, 'GB');
  assert.is(p.$geoip_continent_code, 'EU');
  assert.is(p.$geoip_time_zone, 'Europe/London');
  assert.type(p.$geoip_city_name, 'string');
});

s('private, loopback and malformed addresses give no properties', () => {
  assert.equal(geo.lookup('127.0.0.1'), {});
  assert.equal(geo.lookup('10.1.2.3'), {});
  assert.equal(geo.lookup('not an ip'), {});
});

s('IPv6 addresses resolve too', () => {
  // 2001:4860:4860::8888 is Google's IPv6 resolver.
  assert.is(geo.lookup('2001:4860:4860::8888').$geoip_country_code, 'US');
});

s('client address: first X-Forwarded-For entry, port stripped, else the socket', () => {
  assert.is(clientAddress('203.0.113.9, 10.0.0.1', '127.0.0.1'), '203.0.113.9');
  assert.is(clientAddress('203.0.113.9:4431', '127.0.0.1'), '203.0.113.9');
  assert.is(clientAddress('[2001:db8::1]:443', '127.0.0.1'), '2001:db8::1');
  assert.is(clientAddress('2001:db8::1', '127.0.0.1'), '2001:db8::1');
  assert.is(clientAddress(undefined, '198.51.100.7'), '198.51.100.7');
});

s('before the database loads, lookups find nothing and readiness says so', async () => {
  let release!: (g: typeof geo) => void;
  const deferred = deferredGeoIp(new Promise((r) => { release = r; }), () => {});
  assert.is(deferred.ready(), false);
  assert.equal(deferred.lookup('8.8.8.8'), {});
  release(geo);
  await new Promise((r) => setImmediate(r));
  assert.is(deferred.ready(), true);
  assert.is(deferred.lookup('8.8.8.8').$geoip_country_code, 'US');
});

s.run();
