// What the chart option builder needs of where it runs, so that it stays pure and the
// browser app (src/app/) builds the very options the PNG exports draw: text widths (in
// Node, the bundled font's metrics, which resvg draws with; in a browser, its canvas) and
// which country codes the world map has (in Node, read from world-atlas; in a browser,
// from the map the server hands it).
import type { FontMetrics } from './ttf-metrics.js';

export interface ChartPlatform {
  fonts: { regular: FontMetrics; bold: FontMetrics };
  onTheMap(code: string): boolean;
}

// The name the world map is registered under with ECharts, on either side.
export const WORLD_MAP = 'hedgerow-world';
