// Public face of the exports domain: render an insight to a file in one of PostHog's
// export formats, and the rules that name and expire the files.
export { defaultExpiresAfter, exportFilename, slugify, type FilenameParts } from './asset-rules.js';
export { EXPORT_FORMATS, FORMAT_EXTENSIONS, XLSX_TYPE, parseExportFormat, type ExportFormat } from './formats.js';
export { renderExport } from './render.js';
export type { ExportTasks, RenderTask } from './tasks.js';
export type { ExportContext, InsightData, RenderedExport } from './types.js';
