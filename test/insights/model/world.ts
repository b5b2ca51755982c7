// The reference model's world: persons (each known by all its distinct ids), groups and
// events, generated from a seed; `batch` is the same world as the events capture receives.
// Every person starts with an $identify (merging an anonymous id for some) that sets all its
// properties, so person properties read the same at any event; timestamps are whole seconds,
// never two alike for one person, and some fall within the hour either side of midnight.
// Each group is identified a second before the first event that carries it (its creation).
import { randomUUID } from 'node:crypto';
import { xorshift } from '../../helpers/xorshift.js';

export interface ModelEvent {
  uuid: string;
  event: string;
  distinctId: string;
  person: number;
  ts: number;
  props: Record<string, unknown>;
}

export interface ModelPerson {
  n: number;
  ids: string[];
  props: Record<string, unknown>;
  createdAt: number;
}

export interface World {
  /** The events queries count ($identify and $groupidentify left out). */
  events: ModelEvent[];
  persons: Map<number, ModelPerson>;
  /** Group type 0 (company): key → properties. */
  groups: Map<string, Record<string, unknown>>;
  /** Group type 0: key → when it was created (its $groupidentify). */
  groupCreatedAt: Map<string, number>;
  /** What capture receives, in time order. */
  batch: Array<{ uuid: string; event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }>;
  /** The first day (UTC) of the generated range, and how many days it spans. */
  firstDay: string;
  days: number;
}

export const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
export const PLANS = ['free', 'pro', 'team'];
export const URLS = ['https://shop.example/', 'https://shop.example/pricing', 'https://shop.example/docs/start', 'https://shop.example/pricing?plan=pro'];
export const COMPANIES = ['acme', 'globex', 'initech', 'umbrella', 'hooli'];

export function generateWorld(seed: number, persons: number, firstDay: string, days: number): World {
  const next = xorshift(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const start = Date.parse(`${firstDay}T00:00:00Z`);
  const world: World = { events: [], persons: new Map(), groups: new Map(), groupCreatedAt: new Map(), batch: [], firstDay, days };
  const raw: Array<{ event: string; distinctId: string; ts: number; props: Record<string, unknown>; person: number | null }> = [];

  COMPANIES.forEach((key, k) => world.groups.set(key, { industry: k % 2 ? 'retail' : 'saas', size: 10 * (k + 1) }));

  for (let n = 1; n <= persons; n++) {
    const anonymous = n % 3 === 0;
    const props = { email: n % 7 === 0 ? `p${n}@test.example` : `p${n}@mail.example`, plan: PLANS[n % 3], age: 18 + ((n * 7) % 40), tier: n % 4, ...(n % 5 === 0 ? {} : { country: n % 2 ? 'DE' : 'US' }) };
    const browser = BROWSERS[n % 4];
    const company = n % 6 === 5 ? null : COMPANIES[n % 5];
    const firstActive = Math.floor(next() * days * 0.6);
    const ids = anonymous ? [`user-${n}`, `anon-${n}`] : [`user-${n}`];
    const identifyAt = start + firstActive * 86_400_000 + 60_000 * n;
    raw.push({ event: '$identify', distinctId: `user-${n}`, ts: identifyAt, props: { $set: props, ...(anonymous ? { $anon_distinct_id: `anon-${n}` } : {}) }, person: n });
    world.persons.set(n, { n, ids, props, createdAt: identifyAt });

    const activeDays = 1 + Math.floor(next() * 9);
    const used = new Set<number>();
    for (let i = 0; i < activeDays; i++) {
      const day = Math.min(days - 1, firstActive + Math.floor(next() * (days - firstActive)));
      // Some days start within the hour before midnight, so that time zones move them.
      const late = next() < 0.2;
      let ts = start + day * 86_400_000 + (late ? 23 * 3_600_000 : 3_600_000 + Math.floor(next() * 20) * 3_600_000) + Math.floor(next() * 1800) * 1000;
      if (ts <= identifyAt) ts = identifyAt + 1000;
      const session = `s-${n}-${day}-${i}`;
      const step = () => {
        ts += (5 + Math.floor(next() * 3000)) * 1000;
        while (used.has(ts)) ts += 1000;
        used.add(ts);
        return ts;
      };
      const base = () => ({ $browser: next() < 0.85 ? browser : pick(BROWSERS), $session_id: session, ...(company ? { $groups: { company } } : {}) });
      const id = () => (anonymous && next() < 0.4 ? `anon-${n}` : `user-${n}`);
      const views = 1 + Math.floor(next() * 3);
      for (let v = 0; v < views; v++) raw.push({ event: '$pageview', distinctId: id(), ts: step(), props: { ...base(), $current_url: pick(URLS) }, person: n });
      if (next() < 0.55) raw.push({ event: 'signup', distinctId: id(), ts: step(), props: { ...base(), source: pick(['ads', 'search', 'friend']) }, person: n });
      if (next() < 0.2) raw.push({ event: '$pageview', distinctId: id(), ts: step(), props: { ...base(), $current_url: pick(URLS) }, person: n });
      if (next() < 0.4) {
        const amount = next() < 0.85 ? 5 + Math.floor(next() * 195) : undefined;
        raw.push({ event: 'purchase', distinctId: id(), ts: step(), props: { ...base(), ...(amount === undefined ? {} : { amount }), coupon: next() < 0.3 ? 'SPRING' : 'none' }, person: n });
      }
    }
  }

  for (const [key, props] of world.groups) {
    const first = Math.min(...raw.filter((r) => (r.props.$groups as Record<string, string> | undefined)?.company === key).map((r) => r.ts));
    const ts = Number.isFinite(first) ? first - 1000 : start - 86_400_000;
    world.groupCreatedAt.set(key, ts);
    raw.push({ event: '$groupidentify', distinctId: 'group-admin', ts, props: { $group_type: 'company', $group_key: key, $group_set: props }, person: null });
  }

  raw.sort((a, b) => a.ts - b.ts);
  for (const r of raw) {
    const uuid = randomUUID();
    world.batch.push({ uuid, event: r.event, distinct_id: r.distinctId, timestamp: new Date(r.ts).toISOString(), properties: r.props });
    if (r.person === null || r.event === '$identify') continue;
    const props: Record<string, unknown> = { ...r.props };
    const groups = props.$groups as Record<string, string> | undefined;
    if (groups) props.$group_0 = groups.company;
    world.events.push({ uuid, event: r.event, distinctId: r.distinctId, person: r.person, ts: r.ts, props });
  }
  return world;
}
