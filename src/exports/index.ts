// Public face of the exports domain: render an insight to a file in one of PostHog's
// export formats, the rules that name and expire the files, and the exports API (assets
// written through the management write path, rendered in the export worker pool; with
// NATS, renders claimed across the cluster and files in a JetStream object store).
// The renderer itself (renderExport) is imported from ./render.js by what renders: it loads
// ECharts, resvg and the PDF writer, which the service's main thread never needs (about a
// second of CPU at every start).
export { defaultExpiresAfter, exportFilename, slugify, type FilenameParts } from './asset-rules.js';
export { EXPORT_FORMATS, FORMAT_EXTENSIONS, XLSX_TYPE, parseExportFormat, type ExportFormat } from './formats.js';
export type { ExportTasks, RenderTask, StoreTask } from './tasks.js';
export type { ExportContext, InsightData, RenderedExport } from './types.js';
export { parseDateTime } from './api/validate.js';
export { createExportsApi, type ExportsApi, type ExportsApiOptions, type ExportsSettings } from './api/wiring.js';
export { exportCommands } from './assets/commands.js';
export type { RenderClaims, AssetKey } from './assets/claims.js';
export { openSharedExports, type SharedExports, type SharedFiles } from './assets/shared.js';
export type { ExportsTables } from './tables.js';
