// An insight's chart as a component. The drawing (ECharts and the exports' option builder,
// ./draw.js) is imported the first time a chart is shown, not with the app.
import { useEffect, useRef } from 'preact/hooks';
import { html } from './ui.js';

let drawing = null;
const loadDrawing = () => (drawing ??= import('./draw.js'));

// For a page that will draw a chart once its data comes: the drawing loads meanwhile.
export function prefetchDrawing() {
  loadDrawing();
}

const shownOnMap = (insight) => (insight.query?.source ?? insight.query)?.trendsFilter?.display === 'WorldMap';

// Drawn once per insight, disposed when it goes. `scaled`: fitted to its box (dashboard
// tiles) rather than drawn at the exports' size.
export function Chart({ insight, scaled = false }) {
  const box = useRef(null);
  useEffect(() => {
    let chart = null;
    let gone = false;
    loadDrawing().then(async (d) => {
      // A world map is drawn over the atlas, fetched and registered first.
      if (shownOnMap(insight)) await d.loadWorld();
      if (gone || !box.current) return;
      chart = (scaled ? d.drawScaled : d.drawChart)(box.current, insight);
    });
    return () => {
      gone = true;
      chart?.dispose();
    };
  }, [insight]);
  return html`<div class=${scaled ? 'chart scaled' : 'chart'} ref=${box} role="img" aria-label=${`Chart of ${insight.name}`}></div>`;
}
