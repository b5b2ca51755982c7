// The world's countries for the map display: Natural Earth's 1:110m countries (world-atlas's
// TopoJSON, public domain; shipped in the package, nothing downloads), turned into GeoJSON
// once, on the first map drawn, with each country named by its ISO 3166-1 alpha-2 code, the
// code PostHog's WorldMap breaks down by ($geoip_country_code). Antarctica is left out: no
// visitor comes from there, and it would take a fifth of the picture.
import { createRequire } from 'node:module';
import { WORLD_MAP } from './platform.js';

export { WORLD_MAP };

interface Topology {
  objects: { countries: { geometries: { id?: string; properties: { name: string } }[] } };
}
interface GeoJson {
  type: 'FeatureCollection';
  features: { id?: string; properties: { name: string }; geometry: { type: string; coordinates: unknown } }[];
}

const ANTARCTICA = '010';

type Ring = [number, number][];

// A ring that crosses the antimeridian (Russia's Chukotka, Fiji) jumps from 180° to -180°
// and would be drawn as a band across the whole map: its points on the far side are put on
// the meridian instead, so the sliver beyond it is not drawn.
function keepToOneSide(ring: Ring): Ring {
  if (!ring.some((p, i) => i > 0 && Math.abs(p[0] - ring[i - 1][0]) > 180)) return ring;
  const east = ring.reduce((sum, p) => sum + p[0], 0) > 0;
  return ring.map(([lon, lat]) => [east && lon < 0 ? 180 : !east && lon > 0 ? -180 : lon, lat]);
}

function oneSided(geometry: { type: string; coordinates: unknown }): unknown {
  if (geometry.type === 'Polygon') return { ...geometry, coordinates: (geometry.coordinates as Ring[]).map(keepToOneSide) };
  if (geometry.type === 'MultiPolygon') return { ...geometry, coordinates: (geometry.coordinates as Ring[][]).map((p) => p.map(keepToOneSide)) };
  return geometry;
}

let codes: Set<string> | null = null;
let geometry: GeoJson | null = null;

export function worldGeoJson(): GeoJson {
  if (geometry) return geometry;
  const require = createRequire(import.meta.url);
  const topology = require('world-atlas/countries-110m.json') as Topology;
  const { feature } = require('topojson-client') as { feature(t: Topology, o: unknown): GeoJson };
  const iso = require('i18n-iso-countries') as { numericToAlpha2(n: string): string | undefined };
  const all = feature(topology, topology.objects.countries);
  const features = all.features.filter((f) => f.id !== ANTARCTICA).map((f) => {
    // Three areas have no ISO number (N. Cyprus, Somaliland, Kosovo): they keep their names.
    const code = f.id === undefined ? undefined : iso.numericToAlpha2(f.id);
    return { ...f, geometry: oneSided(f.geometry) as GeoJson['features'][number]['geometry'], properties: { name: code ?? f.properties.name } };
  });
  geometry = { type: 'FeatureCollection', features };
  return geometry;
}

// Whether a breakdown value names a country drawn on the map.
export function onTheMap(code: string): boolean {
  codes ??= new Set(worldGeoJson().features.map((f) => f.properties.name));
  return codes.has(code);
}

type ECharts = typeof import('echarts');

export function registerWorld(echarts: Pick<ECharts, 'getMap' | 'registerMap'>): void {
  // ECharts' GeoJSON type is stricter than the file's shape; the features are the file's own.
  if (!echarts.getMap(WORLD_MAP)) echarts.registerMap(WORLD_MAP, worldGeoJson() as unknown as Parameters<ECharts['registerMap']>[1]);
}

// Whether an ECharts option draws the world map (and so needs it registered).
export const drawsWorld = (option: Record<string, unknown>) => Array.isArray(option.series) && option.series.some((s: { map?: unknown }) => s?.map === WORLD_MAP);
