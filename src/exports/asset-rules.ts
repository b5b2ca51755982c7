// How PostHog names and expires an exported asset's file (its ExportedAsset model), for
// the exports API: pure functions of the asset's fields and the clock.
import { FORMAT_EXTENSIONS, XLSX_TYPE, type ExportFormat } from './formats.js';

// Django's slugify: accents folded to ASCII, anything but letters, digits, "_", "-" and
// spaces dropped, lower case, runs of spaces and hyphens made one hyphen, "-" and "_"
// trimmed from the ends.
export function slugify(value: string): string {
  const ascii = value.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
  return ascii.toLowerCase().replace(/[^\w\s-]/g, '').replace(/[-\s]+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
}

export interface FilenameParts {
  format: ExportFormat;
  // export_context.filename, when the client gave one: it replaces the whole stem.
  contextFilename?: unknown;
  dashboardName?: string | null;
  // The insight's name, else its derived name.
  insightName?: string | null;
  hasInsight?: boolean;
  createdAt: Date;
}

const pad = (n: number) => String(n).padStart(2, '0');

// "export-<slug>-YYYY-MM-DD-HHMMSS.<ext>", the time in UTC.
export function exportFilename(p: FilenameParts): string {
  let stem = 'export';
  if (p.contextFilename !== undefined && p.contextFilename !== null && p.contextFilename !== '') stem = slugify(String(p.contextFilename));
  else if (typeof p.dashboardName === 'string') stem = `${stem}-${slugify(p.dashboardName)}`;
  else if (p.hasInsight) stem = `${stem}-${slugify(p.insightName || 'insight')}`;
  const t = p.createdAt;
  const stamp = `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}-${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}${pad(t.getUTCSeconds())}`;
  return `${stem}-${stamp}.${FORMAT_EXTENSIONS[p.format]}`;
}

const DAY = 86_400_000;

// Tabular files are kept 7 days, images and documents about six months (180 days); the
// expiry falls at the start of that day, UTC.
export function defaultExpiresAfter(format: ExportFormat, now: Date): Date {
  const days = format === 'text/csv' || format === XLSX_TYPE ? 7 : 180;
  const at = new Date(now.getTime() + days * DAY);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}
