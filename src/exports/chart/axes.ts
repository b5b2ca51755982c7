// The plot area and axes of the cartesian charts (trends, lifecycle, stickiness, funnels).
import { FAINT, INK, MARGIN, MUTED, RULE, formatTick } from './theme.js';

export const LABEL_SIZE = 12;

export function grid(top: number): Record<string, unknown> {
  return { left: MARGIN, right: MARGIN + 8, top: top + 8, bottom: 28, containLabel: true };
}

export function categoryAxis(categories: string[], name?: string): Record<string, unknown> {
  return {
    type: 'category', data: categories,
    name, nameLocation: 'middle', nameGap: 30, nameTextStyle: { color: MUTED, fontSize: LABEL_SIZE },
    axisTick: { alignWithLabel: true, lineStyle: { color: RULE } },
    axisLine: { lineStyle: { color: FAINT } },
    // Labels that would overlap are left out rather than drawn over each other.
    axisLabel: { color: MUTED, fontSize: LABEL_SIZE, hideOverlap: true, width: 140, overflow: 'truncate' },
  };
}

export function valueAxis(format: (n: number) => string = formatTick): Record<string, unknown> {
  return {
    type: 'value',
    axisLabel: { color: MUTED, fontSize: LABEL_SIZE, formatter: format },
    splitLine: { lineStyle: { color: RULE } },
    axisLine: { show: false },
  };
}

export const valueLabel = { color: INK, fontSize: 11 };
