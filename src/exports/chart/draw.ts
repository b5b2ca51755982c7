// ECharts option → SVG (ECharts' server-side renderer, no DOM) → PNG (resvg, with the
// bundled fonts only). ECharts measures text through the platform hook set below, with the
// bundled font's own advance widths, so the layout it computes is the one resvg draws.
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILES, fontMetrics } from './fonts.js';
import { HEIGHT, WIDTH } from './theme.js';
import { drawsWorld, registerWorld } from './world.js';

type ECharts = typeof import('echarts');

// ECharts' one-file CommonJS build, required on the first chart: its ES modules are some
// hundreds of files that took ~0.6 s of CPU to load (~0.1 s for this build), paid by every
// export worker at start, CSV and JSON exports included.
let loaded: ECharts | null = null;

function echarts(): ECharts {
  if (loaded) return loaded;
  loaded = createRequire(import.meta.url)('echarts') as ECharts;
  loaded.setPlatformAPI({
    measureText(text: string, font?: string) {
      const spec = font ?? '';
      const size = Number(/(\d+(?:\.\d+)?)px/.exec(spec)?.[1] ?? 12);
      const face = /\b(bold|bolder|[6-9]00)\b/.test(spec) ? fontMetrics().bold : fontMetrics().regular;
      return { width: face.width(text ?? '', size) };
    },
  });
  return loaded;
}

export function optionToSvg(option: Record<string, unknown>): string {
  if (drawsWorld(option)) registerWorld(echarts());
  const chart = echarts().init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({ animation: false, backgroundColor: '#ffffff', textStyle: { fontFamily: FONT_FAMILY }, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

function rasterize(svg: string, zoom: number) {
  return new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    fitTo: zoom === 1 ? { mode: 'original' } : { mode: 'zoom', value: zoom },
    background: '#ffffff',
  }).render();
}

export function svgToPng(svg: string): Buffer {
  return rasterize(svg, 1).asPng();
}

export interface Raster {
  // RGBA, row by row, opaque.
  rgba: Buffer;
  width: number;
  height: number;
}

export function svgToPixels(svg: string, zoom: number): Raster {
  const image = rasterize(svg, zoom);
  return { rgba: image.pixels, width: image.width, height: image.height };
}
