// The export formats hedgerow renders, as PostHog names them (media types), and the file
// extension of each (PostHog's filename uses the format's enum name in lower case).
import { errors } from '../errors.js';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export const EXPORT_FORMATS = ['image/png', 'application/pdf', 'text/csv', XLSX_TYPE, 'application/json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const FORMAT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = {
  'image/png': 'png',
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  [XLSX_TYPE]: 'xlsx',
  'application/json': 'json',
};

// What a whole dashboard exports as (./dashboard/render.ts): a picture, a document, its data.
export const DASHBOARD_FORMATS: readonly ExportFormat[] = ['image/png', 'application/pdf', 'application/json'];

const known = new Set<string>(EXPORT_FORMATS);

function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && known.has(value);
}

// export_format as a client sends it: anything else is a 400 naming the allowed values.
export function parseExportFormat(value: unknown): ExportFormat {
  if (value === undefined) throw errors.required('export_format');
  if (value === null) throw errors.nullField('export_format');
  if (!isExportFormat(value)) throw errors.invalidExportFormat(value, EXPORT_FORMATS);
  return value;
}
