// Trends displayed as a world map (PostHog's WorldMap): each country shaded by its total,
// from a pale blue for the least to the first series colour for the most; countries with no
// value are grey. Values are placed by the breakdown's ISO 3166-1 alpha-2 code
// ($geoip_country_code); a value that names no country on the map (none, an unknown code)
// is counted in the subtitle rather than dropped silently.
import type { Json } from '../query.js';
import type { InsightData } from '../types.js';
import { frame } from './frame.js';
import { FAINT, GHOST, HEIGHT, MARGIN, MUTED, PALETTE, formatNumber, mix } from './theme.js';
import { WORLD_MAP, type ChartPlatform } from './platform.js';

export const NO_VALUE = GHOST;
const LEAST = '#d3ddf8';
const MOST = PALETTE[0];
const KEY_TOP = HEIGHT - 40;
const KEY_WIDTH = 220;

// A country's colour: its share of the largest total, from LEAST to MOST.
export const shade = (value: number, max: number) => mix(LEAST, MOST, max > 0 ? value / max : 0);

export function worldMapChart(insight: InsightData, p: ChartPlatform, items: Json[], subtitle: string): Record<string, unknown> {
  const totals = new Map<string, number>();
  let elsewhere = 0;
  for (const item of items) {
    // A comparison's previous period is not drawn: one map shows one period.
    if (item.compare_label === 'previous') continue;
    const code = typeof item.breakdown_value === 'string' ? item.breakdown_value.toUpperCase() : '';
    const value = typeof item.aggregated_value === 'number' && Number.isFinite(item.aggregated_value) ? item.aggregated_value : 0;
    if (p.onTheMap(code)) totals.set(code, (totals.get(code) ?? 0) + value);
    else elsewhere++;
  }
  const max = Math.max(0, ...totals.values());
  const data = [...totals].map(([code, value]) => ({ name: code, value, itemStyle: { areaColor: shade(value, max) } }));
  const words = elsewhere > 0 ? `${subtitle} · ${elsewhere} ${elsewhere === 1 ? 'value' : 'values'} not on the map (no or unknown country code)` : subtitle;
  const f = frame(p, insight.name, words, []);
  const label = (left: number, text: string) => ({ type: 'text', left, top: KEY_TOP + 16, style: { text, fontSize: 12, fill: MUTED } });
  const key = [
    {
      type: 'rect', left: MARGIN, top: KEY_TOP, shape: { width: KEY_WIDTH, height: 10 },
      style: { fill: { type: 'linear', x: 0, y: 0, x2: 1, y2: 0, colorStops: [{ offset: 0, color: LEAST }, { offset: 1, color: MOST }] } },
    },
    label(MARGIN, '0'),
    { type: 'text', left: MARGIN + KEY_WIDTH, top: KEY_TOP + 16, style: { text: formatNumber(max), fontSize: 12, fill: MUTED, align: 'right' } },
    { type: 'rect', left: MARGIN + KEY_WIDTH + 40, top: KEY_TOP, shape: { width: 16, height: 10 }, style: { fill: NO_VALUE, stroke: FAINT, lineWidth: 0.5 } },
    label(MARGIN + KEY_WIDTH + 62, 'No value'),
  ];
  return {
    ...f.components,
    graphic: key,
    series: [{
      type: 'map', map: WORLD_MAP, left: MARGIN, right: MARGIN, top: f.top, bottom: 64, roam: false, silent: true,
      label: { show: false }, emphasis: { disabled: true }, select: { disabled: true },
      itemStyle: { areaColor: NO_VALUE, borderColor: '#ffffff', borderWidth: 0.6 },
      data,
    }],
  };
}
