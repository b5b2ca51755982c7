// A dashboard in one format, run in the export worker: PNG (one picture, laid out), PDF (a
// title page and a page per tile) or JSON (every tile's query and results). CSV and XLSX
// have no dashboard form (the request is refused before).
import type { ExportFormat } from '../formats.js';
import { dashboardPdf } from './document.js';
import { dashboardPng } from './picture.js';
import type { DashboardData } from './types.js';

function dashboardJson(d: DashboardData): Uint8Array {
  const body = {
    dashboard: { id: d.id, name: d.name, description: d.description, filters: d.filters, timezone: d.timezone, computed_at: d.computedAt },
    tiles: d.tiles.map((t) => ({
      id: t.id, layout: t.layout, text: t.text, error: t.error,
      insight: t.insight && {
        id: t.insight.id, name: t.insight.name, query: t.insight.query, results: t.insight.result ?? null,
        ...(t.insight.columns ? { columns: t.insight.columns } : {}), ...(t.insight.types ? { types: t.insight.types } : {}),
      },
    })),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

export function renderDashboard(format: ExportFormat, d: DashboardData): Uint8Array {
  switch (format) {
    case 'image/png': return dashboardPng(d);
    case 'application/pdf': return dashboardPdf(d);
    case 'application/json': return dashboardJson(d);
    default: throw new Error(`A dashboard cannot be exported as ${format}.`);
  }
}
