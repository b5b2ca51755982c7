// The chart option of an insight as the exports draw it: the pure builder (./build.ts) with
// the bundled font's metrics (the widths resvg draws with) and world-atlas's countries.
import type { InsightData } from '../types.js';
import { buildChartOption } from './build.js';
import { fontMetrics } from './fonts.js';
import type { ChartPlatform } from './platform.js';
import { onTheMap } from './world.js';

const NODE_PLATFORM: ChartPlatform = { get fonts() { return fontMetrics(); }, onTheMap };

export function chartOption(insight: InsightData): Record<string, unknown> {
  return buildChartOption(insight, NODE_PLATFORM);
}
