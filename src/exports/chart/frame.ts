// What every chart image has around its plot: the insight's name, a line saying what is
// shown (kind, period, time zone), and a legend that wraps onto at most three lines —
// series beyond those are drawn but not named, and the image says how many.
import type { ChartPlatform } from './platform.js';
import { FAINT, HEIGHT, INK, MARGIN, MUTED, WIDTH } from './theme.js';

export interface LegendItem {
  name: string;
  color: string;
}

export interface Frame {
  // ECharts components: title, legend, graphic.
  components: Record<string, unknown>;
  // Where the plot area may begin.
  top: number;
}

const TITLE_SIZE = 22;
const SUBTITLE_SIZE = 13;
const LEGEND_SIZE = 12;
const LEGEND_TOP = 86;
const LEGEND_LINE = 22;
const LEGEND_ICON = 14;
const LEGEND_GAP = 20;
const LEGEND_TEXT_MAX = 240;
const LEGEND_LINES = 3;

// How many legend items fit on LEGEND_LINES lines of the canvas width, and the lines used.
function legendFit(p: ChartPlatform, items: LegendItem[]): { shown: number; lines: number } {
  const { regular } = p.fonts;
  const room = WIDTH - 2 * MARGIN;
  let lines = 1;
  let x = 0;
  for (let i = 0; i < items.length; i++) {
    const w = LEGEND_ICON + 5 + Math.min(LEGEND_TEXT_MAX, regular.width(items[i].name, LEGEND_SIZE));
    if (x > 0 && x + w > room) {
      if (lines === LEGEND_LINES) return { shown: i, lines };
      lines++;
      x = 0;
    }
    x += w + LEGEND_GAP;
  }
  return { shown: items.length, lines };
}

export function frame(p: ChartPlatform, title: string, subtitle: string, legend: LegendItem[]): Frame {
  const titles = [
    { text: title || 'Untitled insight', left: MARGIN, top: 22, textStyle: { fontSize: TITLE_SIZE, fontWeight: 'bold', color: INK, width: WIDTH - 2 * MARGIN, overflow: 'truncate' } },
    { text: subtitle, left: MARGIN, top: 56, textStyle: { fontSize: SUBTITLE_SIZE, fontWeight: 'normal', color: MUTED, width: WIDTH - 2 * MARGIN, overflow: 'truncate' } },
  ];
  if (legend.length === 0) return { components: { title: titles }, top: LEGEND_TOP };
  const { shown, lines } = legendFit(p, legend);
  const components: Record<string, unknown> = {
    title: titles,
    legend: {
      left: MARGIN, top: LEGEND_TOP, width: WIDTH - 2 * MARGIN, orient: 'horizontal', padding: 0,
      itemGap: LEGEND_GAP, itemWidth: LEGEND_ICON, itemHeight: 10, icon: 'roundRect',
      data: legend.slice(0, shown).map((l) => ({ name: l.name, itemStyle: { color: l.color } })),
      textStyle: { fontSize: LEGEND_SIZE, color: INK, width: LEGEND_TEXT_MAX, overflow: 'truncate' },
    },
  };
  if (shown < legend.length) {
    components.graphic = [{
      type: 'text', right: MARGIN, top: HEIGHT - 24,
      style: { text: `Legend shows ${shown} of ${legend.length} series`, fontSize: 11, fill: FAINT },
    }];
  }
  return { components, top: LEGEND_TOP + lines * LEGEND_LINE + 8 };
}
