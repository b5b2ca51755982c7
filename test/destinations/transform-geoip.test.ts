// The functions transformations get beside PostHog's library, run as the event store's Hog
// worker runs a transformation task, without a server: geoipLookup (PostHog's GeoIP
// transformation sets $geoip_* on events with it): the database's record for the event's
// address, null without a database or an address; isKnownBotUserAgent and isKnownBotIp
// (hedgerow's lists, src/destinations/bots/) and the bot filter template that calls them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProgram, initHog } from '../../src/hog/index.js';
import { runTransformation, type TransformInput, type TransformOutcome } from '../../src/destinations/runtime/transform-run.js';
import type { RunnableFunction } from '../../src/destinations/runtime/runnable.js';
import { bundledDatabasePath } from '../../src/geoip/database.js';
import { isKnownBotIp, isKnownBotUserAgent } from '../../src/destinations/bots/known-bots.js';
import { cidrSet, inCidrSet, parseCidr, parseIp } from '../../src/net/cidr.js';
import { templateById } from '../../src/destinations/templates/index.js';
import { compileTemplateInputs, type InputSchemaItem } from '../../src/hog/index.js';

const s = suite('destinations: geoipLookup and the bot lists in transformations');
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

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.86 Safari/537.36';
const BROWSERS = [
  CHROME,
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.1994 YaBrowser/24.4.1.994 Yowser/2.5 Safari/537.36',
];
const BOTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'curl/8.5.0', 'Wget/1.21.4', 'python-requests/2.32.3', 'Go-http-client/2.0', 'PostmanRuntime/7.42.0', 'Some-CRAWLER-Agent/1.0',
];

s('isKnownBotUserAgent: bots, crawlers, monitors, headless browsers and HTTP clients, in any case; browsers and non-strings not', () => {
  for (const ua of BOTS) assert.ok(isKnownBotUserAgent(ua), ua);
  for (const ua of BROWSERS) assert.not.ok(isKnownBotUserAgent(ua), ua);
  for (const v of [null, undefined, 42, ['Googlebot'], {}]) assert.is(isKnownBotUserAgent(v), false);
});

s('isKnownBotIp: addresses in published crawler ranges, IPv4, IPv6 and IPv4-mapped; others, malformed ones and non-strings not', () => {
  for (const ip of ['66.249.66.1', '66.249.95.255', '157.55.39.12', '20.171.207.3', '5.39.1.225', '2001:4860:4801:10::1', '::ffff:66.249.66.1', '::FFFF:42F9:4201']) {
    assert.ok(isKnownBotIp(ip), ip);
  }
  for (const ip of ['66.249.96.0', '66.249.63.255', '1.2.3.4', '8.8.8.8', '2001:4860:4802::1', '::1', '66.249.66', '066.249.66.1', '66.249.66.1/24', 'x', '']) {
    assert.not.ok(isKnownBotIp(ip), ip);
  }
  assert.is(isKnownBotIp(null), false);
  assert.is(isKnownBotIp(1120000001), false);
});

s('the CIDR matcher: prefix lengths at both ends, a range written off its boundary, and refusals', () => {
  const set = cidrSet(['10.1.2.3/8', '0.0.0.0/0', '2001:db8::/32', '2001:db8:1::5/128']);
  assert.ok(inCidrSet(set, parseIp('255.255.255.255')!));
  assert.ok(inCidrSet(set, parseIp('2001:db8:ffff::1')!));
  assert.not.ok(inCidrSet(cidrSet(['2001:db8:1::5/128']), parseIp('2001:db8:1::6')!));
  assert.ok(inCidrSet(cidrSet(['10.1.2.3/8']), parseIp('10.200.0.1')!));
  assert.not.ok(inCidrSet(cidrSet(['10.0.0.0/8']), parseIp('11.0.0.0')!));
  // An IPv4 range never holds an IPv6 address, nor the other way round.
  assert.not.ok(inCidrSet(cidrSet(['0.0.0.0/0']), parseIp('::1')!));
  assert.ok(inCidrSet(cidrSet(['::/0']), parseIp('::1')!));
  for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0/8', '10.0.0.0/8/1', '1:2:3:4:5:6:7:8:9/64', '1::2::3/64', 'ab/8', '10.0.0.0/-1']) {
    assert.is(parseCidr(bad), null, bad);
  }
  assert.throws(() => cidrSet(['300.0.0.0/8']));
});

// The catalogue's bot filter with its defaults, and an input given.
async function botFilter(events: TransformInput[], given: Record<string, unknown> = {}): Promise<boolean[]> {
  const template = templateById('template-bot-detection')!;
  const compiled = compileProgram(template.code, { functions: ['isKnownBotUserAgent', 'isKnownBotIp'] });
  if (!compiled.ok) throw new Error(compiled.error.message);
  const schema = template.inputs_schema as InputSchemaItem[];
  const inputs = compileTemplateInputs(schema, Object.fromEntries(Object.entries(given).map(([k, v]) => [k, { value: v }])), { functionType: 'transformation' });
  if (!inputs.ok) throw new Error(JSON.stringify(inputs.errors));
  const run = { ...fn, bytecode: compiled.bytecode, inputs: inputs.inputs };
  const out = await runTransformation({ fn: run, project, geoipDb: null, events });
  return out.map((o) => resultOf(o) !== null);
}
const uaEvent = (ua: string | undefined, more: Record<string, unknown> = {}): TransformInput => ({
  ...ev(undefined), properties: { ...(ua === undefined ? {} : { $raw_user_agent: ua }), ...more },
});

s('template-bot-detection drops bots\' events and keeps browsers\', as PostHog\'s: $lib, missing user agents, its own patterns and ranges', async () => {
  assert.equal(await botFilter([...BOTS.map((ua) => uaEvent(ua)), ...BROWSERS.map((ua) => uaEvent(ua, { $lib: 'web' }))]),
    [...BOTS.map(() => false), ...BROWSERS.map(() => true)]);
  // A randomised four-digit Chrome patch on a stock ending; the known lists only for browser SDKs.
  const fake = 'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/44.0.7306.1647 Safari/537.36';
  assert.equal(await botFilter([
    uaEvent(fake), uaEvent('python-httpx', { $lib: 'posthog-python' }), uaEvent('Googlebot/2.1', { $lib: 'js' }),
    uaEvent(CHROME, { $ip: '66.249.66.1' }), uaEvent('python-httpx', { $lib: 'posthog-python', $ip: '66.249.66.1' }), uaEvent(CHROME, { $ip: '1.2.3.4' }),
    uaEvent(undefined), uaEvent(''),
  ]), [false, true, false, false, true, true, true, true]);
  assert.equal(await botFilter([uaEvent(undefined), uaEvent(CHROME)], { keepUndefinedUseragent: 'No' }), [false, true]);
  assert.equal(await botFilter([uaEvent(fake), uaEvent(CHROME, { $ip: '66.249.66.1' })], { filterKnownBotUserAgents: false, filterKnownBotIps: false }), [true, true]);
  // The project's own patterns and ranges apply whatever the SDK.
  assert.equal(await botFilter([
    uaEvent('MyCustomBOT/1.0', { $lib: 'posthog-python' }), uaEvent('Other/2', { $lib: 'posthog-node', $ip: '198.51.100.7' }),
    uaEvent('Other/2', { $ip: '2001:db8:5::1' }), uaEvent('Other/2', { $ip: '203.0.113.1' }),
  ], { customBotPatterns: 'nothing, mycustombot', customIpPrefixes: '198.51.100.0/24, 2001:db8::/32' }), [false, false, false, true]);
});

s.run();
