// posthog-js-like traffic for bench/sustained: the events a site's browsers send, in the
// shape posthog-js 1.x gives them (token and ~40 $-properties on every event, $set_once
// with the initial properties, UUIDv7 ids, $elements_chain on $autocapture), from a
// population of devices of which a share is replaced by new ones as the traffic goes
// (new anonymous distinct ids arrive), some identifying as users ($identify with
// $anon_distinct_id, which merges persons) and setting person properties ($set).
//
// The mix (of events): $pageview 40%, $autocapture 30%, custom events 17%, $pageleave 8%,
// $identify 3% (a known user's device once identified: $set instead), $set 2%. A
// quarter of pageviews are of /pricing, so a destination filtering on "$pageview whose
// $current_url contains /pricing" matches ~10% of events (matchesPricing counts them).
// Randomness is a seeded xorshift (reproducible traffic) except the event uuids.
import { randomFillSync } from 'node:crypto';
import { xorshift } from '../test/helpers/xorshift.js';

export interface TrafficOptions {
  token: string;
  // Devices active at any time (~distinct ids in flight).
  devices: number;
  // Chance, per event, that the device it comes from is a new one replacing another.
  newDeviceShare: number;
  seed: number;
}

export type SdkEvent = {
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
  timestamp: string;
  $set?: Record<string, unknown>;
  $set_once?: Record<string, unknown>;
};

interface Device {
  anonId: string;
  userId: string | null;
  sessionId: string;
  windowId: string;
  ua: UserAgent;
  screen: [number, number];
  viewport: [number, number];
  language: string;
  timezone: string;
  referrer: string;
  referringDomain: string;
  entryUrl: string;
  entryPath: string;
  lastPath: string | null;
  pageviewId: string;
  pageviews: number;
}

interface UserAgent { os: string; osVersion: string; browser: string; version: number; type: string; raw: string }

const AGENTS: UserAgent[] = [
  { os: 'Mac OS X', osVersion: '14.6.1', browser: 'Chrome', version: 131, type: 'Desktop', raw: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' },
  { os: 'Windows', osVersion: '10.0', browser: 'Chrome', version: 130, type: 'Desktop', raw: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36' },
  { os: 'Windows', osVersion: '10.0', browser: 'Microsoft Edge', version: 131, type: 'Desktop', raw: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0' },
  { os: 'iOS', osVersion: '18.1', browser: 'Mobile Safari', version: 18.1, type: 'Mobile', raw: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1' },
  { os: 'Android', osVersion: '14.0', browser: 'Chrome', version: 131, type: 'Mobile', raw: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36' },
  { os: 'Linux', osVersion: '', browser: 'Firefox', version: 132, type: 'Desktop', raw: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0' },
];
const DESKTOP_SCREENS: [number, number][] = [[1920, 1080], [1440, 900], [2560, 1440], [1536, 864]];
const MOBILE_SCREENS: [number, number][] = [[390, 844], [412, 915]];
const LANGUAGES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'pt-BR'];
const TIMEZONES = ['America/New_York', 'Europe/London', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Tokyo', 'America/Sao_Paulo'];
const REFERRERS = ['$direct', 'https://www.google.com/', 'https://news.ycombinator.com/', 'https://twitter.com/', 'https://www.linkedin.com/feed/'];
// Pageview paths, /pricing a quarter of them.
const PATHS = ['/pricing', '/pricing', '/pricing', '/', '/', '/docs/getting-started', '/docs/api/capture', '/blog/sustained-ingestion', '/features/analytics', '/signup', '/login', '/changelog'];
const TITLES: Record<string, string> = { '/pricing': 'Pricing – Example', '/': 'Example – product analytics', '/signup': 'Sign up – Example', '/login': 'Log in – Example' };
const CUSTOM = ['clicked cta', 'video played', 'search performed', 'added to cart', 'signed up', 'purchase completed', 'invite sent'];
const FLAGS = ['new-onboarding', 'pricing-test', 'beta-dashboard', 'dark-mode'];
const ELEMENTS = [
  'button.btn.btn-primary:attr__class="btn btn-primary"attr__data-attr="cta-start"nth-child="2"nth-of-type="1"text="Start for free";div.hero__actions:attr__class="hero__actions"nth-child="3"nth-of-type="2";section.hero:attr__class="hero"attr__id="top"nth-child="1"nth-of-type="1";main:nth-child="2"nth-of-type="1";body:nth-child="2"nth-of-type="1"',
  'a.nav-link:attr__class="nav-link"attr__href="/pricing"href="/pricing"nth-child="4"nth-of-type="4"text="Pricing";li.nav-item:attr__class="nav-item"nth-child="4"nth-of-type="4";ul.navbar-nav:attr__class="navbar-nav"nth-child="1"nth-of-type="1";nav.navbar:attr__class="navbar"nth-child="1"nth-of-type="1";header:nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"',
  'input.search-input:attr__class="search-input"attr__name="q"attr__placeholder="Search the docs"attr__type="search"nth-child="1"nth-of-type="1";form.search:attr__action="/search"attr__class="search"nth-child="2"nth-of-type="1";aside.sidebar:attr__class="sidebar"nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"',
];
const LIB_VERSION = '1.200.0';
const HOST = 'example.com';

function hex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

// A UUIDv7 (posthog-js's event and session ids): 48 bits of milliseconds, then random.
const random16 = new Uint8Array(16);
export function uuidv7(ms: number): string {
  randomFillSync(random16);
  const t = ms.toString(16).padStart(12, '0');
  const r = hex(random16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${r.slice(1, 4)}-${((parseInt(r[4], 16) & 3) | 8).toString(16)}${r.slice(5, 8)}-${r.slice(8, 20)}`;
}

export function createTraffic(opts: TrafficOptions) {
  const rnd = xorshift(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  let users = 0;

  function newDevice(ms: number, midSession: boolean): Device {
    const ua = pick(AGENTS);
    const screen = ua.type === 'Mobile' ? pick(MOBILE_SCREENS) : pick(DESKTOP_SCREENS);
    const referrer = pick(REFERRERS);
    const entryPath = pick(PATHS);
    // A device the bench starts with is in the middle of its session; a new one starts with a pageview.
    return {
      anonId: uuidv7(ms), userId: null, sessionId: uuidv7(ms), windowId: uuidv7(ms), ua, screen,
      viewport: [screen[0] - (ua.type === 'Mobile' ? 0 : 16), screen[1] - (ua.type === 'Mobile' ? 120 : 140)],
      language: pick(LANGUAGES), timezone: pick(TIMEZONES), referrer, referringDomain: referrer === '$direct' ? '$direct' : new URL(referrer).host,
      entryUrl: `https://${HOST}${entryPath}${referrer.includes('google') ? '?utm_source=google&utm_medium=cpc&utm_campaign=brand' : ''}`, entryPath,
      lastPath: midSession ? entryPath : null, pageviewId: uuidv7(ms), pageviews: 0,
    };
  }
  const devices: Device[] = Array.from({ length: opts.devices }, () => newDevice(Date.now(), true));

  // What posthog-js puts on every event of a device.
  function common(d: Device, ms: number, path: string): Record<string, unknown> {
    const flags = FLAGS.filter((_, i) => (d.anonId.charCodeAt(35) + i) % 3 !== 0);
    const props: Record<string, unknown> = {
      $os: d.ua.os, $os_version: d.ua.osVersion, $browser: d.ua.browser, $device_type: d.ua.type, $timezone: d.timezone,
      $current_url: `https://${HOST}${path}`, $host: HOST, $pathname: path, $raw_user_agent: d.ua.raw,
      $browser_version: d.ua.version, $browser_language: d.language,
      $screen_height: d.screen[1], $screen_width: d.screen[0], $viewport_height: d.viewport[1], $viewport_width: d.viewport[0],
      $lib: 'web', $lib_version: LIB_VERSION, $insert_id: hex(Uint8Array.from({ length: 8 }, () => Math.floor(rnd() * 256))),
      $time: ms / 1000, distinct_id: d.userId ?? d.anonId, $device_id: d.anonId,
      $initial_person_info: { r: d.referrer, u: d.entryUrl },
      $replay_sample_rate: null, $web_vitals_enabled_server_side: true,
      $active_feature_flags: flags, ...Object.fromEntries(flags.map((f) => [`$feature/${f}`, f === 'pricing-test' ? 'test' : true])),
      $referrer: d.referrer, $referring_domain: d.referringDomain,
      $session_id: d.sessionId, $window_id: d.windowId, $pageview_id: d.pageviewId,
      $session_entry_url: d.entryUrl, $session_entry_pathname: d.entryPath, $session_entry_referrer: d.referrer,
      $is_identified: d.userId !== null, $process_person_profile: true,
      $configured_session_timeout_ms: 1_800_000, $recording_status: 'disabled', $sdk_debug_retry_queue_size: 0,
      token: opts.token,
    };
    if (d.entryUrl.includes('utm_source')) Object.assign(props, { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'brand' });
    return props;
  }

  function setOnce(d: Device): Record<string, unknown> {
    return {
      $initial_os: d.ua.os, $initial_browser: d.ua.browser, $initial_device_type: d.ua.type,
      $initial_current_url: d.entryUrl, $initial_pathname: d.entryPath,
      $initial_referrer: d.referrer, $initial_referring_domain: d.referringDomain,
      $initial_browser_version: d.ua.version, $initial_os_version: d.ua.osVersion,
    };
  }

  /** The next event at time `ms`. */
  function next(ms: number): SdkEvent {
    const slot = Math.floor(rnd() * devices.length);
    if (rnd() < opts.newDeviceShare) devices[slot] = newDevice(ms, false);
    const d = devices[slot];
    const uuid = uuidv7(ms);
    const timestamp = new Date(ms).toISOString();
    const r = rnd();
    if (r < 0.40 || d.lastPath === null) {
      const path = pick(PATHS);
      if (d.lastPath !== null) d.pageviewId = uuidv7(ms);
      const properties = common(d, ms, path);
      properties.title = TITLES[path] ?? 'Example';
      if (d.lastPath !== null) {
        Object.assign(properties, { $prev_pageview_pathname: d.lastPath, $prev_pageview_duration: Math.round(rnd() * 120), $prev_pageview_last_scroll: Math.round(rnd() * 3000), $prev_pageview_max_content_percentage: Math.round(rnd() * 100) / 100 });
      }
      d.lastPath = path;
      d.pageviews++;
      return { uuid, event: '$pageview', properties, timestamp, $set_once: setOnce(d) };
    }
    const path = d.lastPath;
    if (r < 0.70) {
      const chain = pick(ELEMENTS);
      const properties = common(d, ms, path);
      Object.assign(properties, { $event_type: 'click', $ce_version: 1, $elements_chain: chain, $el_text: /text="([^"]*)"/.exec(chain)?.[1] ?? '' });
      return { uuid, event: '$autocapture', properties, timestamp };
    }
    if (r < 0.87) {
      const properties = common(d, ms, path);
      Object.assign(properties, { plan: d.userId ? pick(['free', 'pro', 'enterprise']) : 'anonymous', value: Math.round(rnd() * 10000) / 100, source: pick(['hero', 'navbar', 'footer']) });
      return { uuid, event: pick(CUSTOM), properties, timestamp };
    }
    if (r < 0.95) {
      const properties = common(d, ms, path);
      Object.assign(properties, { $prev_pageview_pathname: path, $prev_pageview_duration: Math.round(rnd() * 300) });
      return { uuid, event: '$pageleave', properties, timestamp };
    }
    if (r < 0.98 && d.userId === null) {
      d.userId = `user-${++users}`;
      const properties = common(d, ms, path);
      properties.$anon_distinct_id = d.anonId;
      return { uuid, event: '$identify', properties, timestamp, $set: { email: `${d.userId}@example.org`, name: `User ${users}`, plan: 'free' }, $set_once: setOnce(d) };
    }
    const properties = common(d, ms, path);
    return { uuid, event: '$set', properties, timestamp, $set: { plan: pick(['free', 'pro', 'enterprise']), last_seen_page: path } };
  }

  return { next };
}

/** Whether the ~10% destination's filters ($pageview, $current_url contains /pricing) match. */
export function matchesPricing(e: SdkEvent): boolean {
  return e.event === '$pageview' && (e.properties.$current_url as string).includes('/pricing');
}
