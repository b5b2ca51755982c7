// Insight charts in the browser: the option builder the PNG exports run
// (src/exports/chart/build.ts, compiled, imported as is), given the browser's text widths
// and the world map hedgerow serves, drawn by ECharts. Imported by ./chart.js when a chart
// is first drawn: ECharts is most of the app's bytes, and pages without a chart skip it.
import * as echarts from 'echarts';
import { buildChartOption, HEIGHT, WIDTH, WORLD_MAP } from 'hedgerow/chart';

const context = document.createElement('canvas').getContext('2d');
const FONT = 'DejaVu Sans, Verdana, sans-serif';
const metrics = (weight) => ({
  width(text, size) {
    context.font = `${weight} ${size}px ${FONT}`;
    return context.measureText(text).width;
  },
});

let countries = new Set();
let world = null;

// The map, fetched and registered the first time an insight shows countries.
export function loadWorld() {
  world ??= fetch('/app/world.json').then((r) => r.json()).then((geo) => {
    echarts.registerMap(WORLD_MAP, geo);
    countries = new Set(geo.features.map((f) => f.properties.name));
  });
  return world;
}

const platform = { fonts: { regular: metrics('normal'), bold: metrics('bold') }, onTheMap: (code) => countries.has(code) };

export function insightOption(insight) {
  return buildChartOption(insight, platform);
}

// Draws into `element` (sized as the exports' canvas), replacing what it held.
export function drawChart(element, insight) {
  const chart = echarts.getInstanceByDom(element) ?? echarts.init(element, null, { renderer: 'svg' });
  chart.setOption({ animation: false, backgroundColor: '#ffffff', textStyle: { fontFamily: FONT }, ...insightOption(insight) }, true);
  return chart;
}

// Draws at the exports' size and scales the picture to `element`'s box (a dashboard tile),
// as the dashboard PNG fits each chart into its tile.
export function drawScaled(element, insight) {
  const chart = echarts.getInstanceByDom(element) ?? echarts.init(element, null, { renderer: 'svg', width: WIDTH, height: HEIGHT });
  chart.setOption({ animation: false, backgroundColor: '#ffffff', textStyle: { fontFamily: FONT }, ...insightOption(insight) }, true);
  const svg = element.querySelector('svg');
  if (svg) {
    svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  }
  return chart;
}
