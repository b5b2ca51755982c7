// An export request's body, field by field as PostHog's ExportedAssetSerializer reads it:
// the fields in its order (dashboard, insight, export_format, expires_after), the first bad
// one the error, then the checks across fields. export_context is free-form and kept as sent.
import { errors } from '../../errors.js';
import { pythonType } from '../../http/body.js';
import { parseQuery, QueryError } from '../../insights/index.js';
import { DASHBOARD_FORMATS, parseExportFormat, type ExportFormat } from '../formats.js';
import { contextQuery } from '../assets/asset-store.js';

type Body = Record<string, unknown>;

// What the request needs to know of an insight, wherever it is.
export interface InsightTarget {
  project_id: number;
  deleted: boolean;
  hasQuery: boolean;
}

export interface DashboardTarget {
  project_id: number;
  deleted: boolean;
}

export interface ExportRequest {
  format: ExportFormat;
  insight: number | null;
  dashboard: number | null;
  exportContext: unknown;
  // null: the format's default.
  expiresAfter: Date | null;
}

// DRF's PrimaryKeyRelatedField: an integer or its text.
function pkField(body: Body, name: string): { pk: number; raw: unknown } | null {
  const v = body[name];
  if (v === undefined || v === null) return null;
  const text = typeof v === 'number' && Number.isInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : null;
  if (text === null || !/^-?\d+$/.test(text)) throw errors.incorrectPkType(name, pythonType(v));
  return { pk: Number(text), raw: v };
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

// ISO 8601 as Django reads it: a date (midnight), or a date and time with an optional
// offset (none: UTC, the service's time zone).
export function parseDateTime(value: string): Date | null {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m.slice(1, 8);
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0').slice(0, 3)));
  const at = new Date(ms);
  // Rejects 2026-02-30 and 25:00 rather than rolling them over.
  if (at.getUTCFullYear() !== Number(y) || at.getUTCMonth() !== Number(mo) - 1 || at.getUTCDate() !== Number(d) || at.getUTCHours() !== Number(h)
    || at.getUTCMinutes() !== Number(mi)) return null;
  const zone = m[8];
  if (!zone || zone.toUpperCase() === 'Z') return at;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return new Date(ms - sign * offset * 60_000);
}

function expiresField(body: Body): Date | null {
  const v = body.expires_after;
  if (v === undefined || v === null) return null;
  const at = typeof v === 'string' ? parseDateTime(v) : null;
  if (!at) throw errors.dateTimeFormat('expires_after');
  return at;
}

function checkSource(source: unknown): void {
  try {
    parseQuery(source);
  } catch (err) {
    if (err instanceof QueryError) throw errors.validation(err.message, err.attr ? `export_context.source.${err.attr}` : 'export_context.source');
    throw err;
  }
}

// Python's falsiness, which the serializer's "is there a target" check uses.
function falsy(v: unknown): boolean {
  if (v === null || v === false || v === 0 || v === '') return true;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

export interface ExportTargets {
  insight(id: number): InsightTarget | undefined;
  dashboard(id: number): DashboardTarget | undefined;
}

export function parseExportRequest(body: Body, projectId: number, targets: ExportTargets): ExportRequest {
  const dashboardPk = pkField(body, 'dashboard');
  const dashboard = dashboardPk ? targets.dashboard(dashboardPk.pk) : undefined;
  // Deleted dashboards are hidden as deleted insights are.
  if (dashboardPk && (!dashboard || dashboard.deleted)) throw errors.doesNotExist('dashboard', dashboardPk.raw);
  const findInsight = (id: number) => targets.insight(id);
  const insightPk = pkField(body, 'insight');
  const insight = insightPk ? findInsight(insightPk.pk) : undefined;
  // PostHog's insights manager leaves deleted insights out: to a request they do not exist.
  if (insightPk && (!insight || insight.deleted)) throw errors.doesNotExist('insight', insightPk.raw);
  const format = parseExportFormat(body.export_format);
  const expiresAfter = expiresField(body);
  const exportContext = body.export_context ?? null;

  if (!insight && !dashboard && falsy(exportContext)) throw errors.exportTargetRequired();
  if (dashboard && dashboard.project_id !== projectId) throw errors.dashboardOfAnotherProject();
  if (dashboard && !insight) {
    if (!(DASHBOARD_FORMATS as readonly string[]).includes(format)) throw errors.dashboardFormat(format, DASHBOARD_FORMATS);
  } else if (insight) {
    if (insight.project_id !== projectId) throw errors.insightOfAnotherProject();
    if (!insight.hasQuery) throw errors.insightWithoutQuery();
  } else {
    const source = contextQuery(exportContext);
    if (source === null) throw errors.exportContextWithoutQuery();
    checkSource(source);
  }
  return { format, insight: insightPk?.pk ?? null, dashboard: dashboardPk?.pk ?? null, exportContext, expiresAfter };
}
