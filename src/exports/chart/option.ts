// Which chart an insight gets, by the kind of its query.
import { sourceQuery } from '../query.js';
import type { InsightData } from '../types.js';
import { funnelsChart } from './funnels.js';
import { lifecycleChart } from './lifecycle.js';
import { retentionChart } from './retention.js';
import { stickinessChart } from './stickiness.js';
import { tableChart } from './table-chart.js';
import { trendsChart } from './trends.js';

export function chartOption(insight: InsightData): Record<string, unknown> {
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
