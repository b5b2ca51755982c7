// Which chart an insight gets, by the kind of its query: the one option builder, pure, that
// the PNG/PDF exports (./option.ts) and the browser app (src/app/web/chart.ts) both run.
import { isRecord, queryKind, sourceQuery } from '../query.js';
import type { InsightData } from '../types.js';
import { frame } from './frame.js';
import { funnelsChart } from './funnels.js';
import { lifecycleChart } from './lifecycle.js';
import { retentionChart } from './retention.js';
import { stickinessChart } from './stickiness.js';
import { tableChart } from './table-chart.js';
import { FAINT, HEIGHT } from './theme.js';
import { trendsChart } from './trends.js';
import type { ChartPlatform } from './platform.js';

// The browser imports these from this module alone (src/app/static.ts serves its closure).
export { WORLD_MAP, type ChartPlatform } from './platform.js';
export { WIDTH, HEIGHT, formatPercent } from './theme.js';
export { retentionFill } from './retention.js';

function isEmpty(result: unknown): boolean {
  if (Array.isArray(result)) return result.length === 0;
  return !isRecord(result) || !Array.isArray(result.bins) || result.bins.length === 0;
}

// An insight whose query found nothing still gets its title, and says so.
function noData(insight: InsightData, p: ChartPlatform): Record<string, unknown> {
  const f = frame(p, insight.name, [queryKind(insight.query).replace(/Query$/, '') || 'Insight', insight.timezone].join(' · '), []);
  const message = { type: 'text', left: 'center', top: HEIGHT / 2, style: { text: 'No data for this insight', fontSize: 20, fill: FAINT } };
  return { ...f.components, graphic: [message] };
}

export function buildChartOption(insight: InsightData, p: ChartPlatform): Record<string, unknown> {
  if (isEmpty(insight.result)) return noData(insight, p);
  const source = sourceQuery(insight.query);
  switch (source.kind) {
    case 'TrendsQuery': return trendsChart(insight, p, source);
    case 'FunnelsQuery': return funnelsChart(insight, p, source);
    case 'RetentionQuery': return retentionChart(insight, p, source);
    case 'LifecycleQuery': return lifecycleChart(insight, p, source);
    case 'StickinessQuery': return stickinessChart(insight, p, source);
    default: return tableChart(insight, p);
  }
}
