// Which chart an insight gets, by the kind of its query.
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

function isEmpty(result: unknown): boolean {
  if (Array.isArray(result)) return result.length === 0;
  return !isRecord(result) || !Array.isArray(result.bins) || result.bins.length === 0;
}

// An insight whose query found nothing still gets its title, and says so.
function noData(insight: InsightData): Record<string, unknown> {
  const f = frame(insight.name, [queryKind(insight.query).replace(/Query$/, '') || 'Insight', insight.timezone].join(' · '), []);
  const message = { type: 'text', left: 'center', top: HEIGHT / 2, style: { text: 'No data for this insight', fontSize: 20, fill: FAINT } };
  return { ...f.components, graphic: [message] };
}

export function chartOption(insight: InsightData): Record<string, unknown> {
  if (isEmpty(insight.result)) return noData(insight);
  const source = sourceQuery(insight.query);
  switch (source.kind) {
    case 'TrendsQuery': return trendsChart(insight, source);
    case 'FunnelsQuery': return funnelsChart(insight, source);
    case 'RetentionQuery': return retentionChart(insight, source);
    case 'LifecycleQuery': return lifecycleChart(insight, source);
    case 'StickinessQuery': return stickinessChart(insight, source);
    default: return tableChart(insight);
  }
}
