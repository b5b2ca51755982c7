// One insight, one format, one file: the renderers' single entry point, run in the
// export worker (workers/exports.ts).
import { chartOption } from './chart/option.js';
import { optionToSvg, svgToPixels, svgToPng } from './chart/draw.js';
import type { ExportFormat } from './formats.js';
import { XLSX_TYPE } from './formats.js';
import { resultsToJson } from './json.js';
import { insightPdf } from './pdf/document.js';
import { tableToCsv } from './tabular/csv.js';
import { resultRows } from './tabular/rows.js';
import { buildTable, requestedColumns } from './tabular/table.js';
import type { ExportContext, InsightData, RenderedExport } from './types.js';
import { tableToXlsx } from './xlsx/workbook.js';

// The PDF's chart is drawn at twice the PNG's resolution, to stay sharp when printed.
const PDF_ZOOM = 2;

export function renderExport(format: ExportFormat, insight: InsightData, context: ExportContext | null): RenderedExport {
  return { contentType: format, bytes: renderBytes(format, insight, context) };
}

function renderBytes(format: ExportFormat, insight: InsightData, context: ExportContext | null): Uint8Array {
  switch (format) {
    case 'text/csv': return tableToCsv(buildTable(resultRows(insight), requestedColumns(context)));
    case XLSX_TYPE: return tableToXlsx(buildTable(resultRows(insight), requestedColumns(context)));
    case 'application/json': return resultsToJson(insight);
    case 'image/png': return svgToPng(optionToSvg(chartOption(insight)));
    case 'application/pdf': {
      const chart = svgToPixels(optionToSvg(chartOption(insight)), PDF_ZOOM);
      return insightPdf(insight, chart, buildTable(resultRows(insight), requestedColumns(context)));
    }
  }
}
