// GET …/hog_functions/:id/logs/ (PostHog's LogEntryMixin): the function's newest log lines
// matching the filters, at most `limit` (50 by default, 1 to 500), then paged like any list.
import { errors } from '../../errors.js';
import type { HttpRequest } from '../../http/types.js';
import type { DestinationsStore, FunctionLogEntry } from '../runtime/env.js';

export interface LogsQuery {
  limit: number;
  after: number | null;
  before: number | null;
  levels: string[];
  search: string | null;
  instanceId: string | null;
}

export interface LogRow {
  log_source_id: string;
  instance_id: string;
  timestamp: string;
  level: string;
  message: string;
}

// A bound on how many lines one request reads, so a selective search over a large log
// cannot hold the thread: the newest matches among them are answered.
const MAX_SCANNED = 100_000;

export function dateTimeParam(req: HttpRequest, name: string): number | null {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return null;
  const ms = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) {
    throw errors.validation('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', name, 'invalid');
  }
  return ms;
}

export function logsQuery(req: HttpRequest): LogsQuery {
  const rawLimit = req.query.get('limit');
  let limit = 50;
  if (rawLimit !== null && rawLimit !== '') {
    if (!/^-?\d+$/.test(rawLimit)) throw errors.validation('A valid integer is required.', 'limit', 'invalid');
    limit = Number(rawLimit);
    if (limit > 500) throw errors.validation('Ensure this value is less than or equal to 500.', 'limit', 'max_value');
    if (limit < 1) throw errors.validation('Ensure this value is greater than or equal to 1.', 'limit', 'min_value');
  }
  const levels = req.query.getAll('level').flatMap((l) => l.split(',')).map((l) => l.trim().toUpperCase()).filter(Boolean);
  return {
    limit, levels, after: dateTimeParam(req, 'after'), before: dateTimeParam(req, 'before'),
    search: req.query.get('search') || null, instanceId: req.query.get('instance_id') || null,
  };
}

function matches(q: LogsQuery, at: number, entry: FunctionLogEntry): boolean {
  if (q.after !== null && at <= q.after) return false;
  if (q.levels.length > 0 && !q.levels.includes(entry.level)) return false;
  if (q.instanceId !== null && entry.instance_id !== q.instanceId) return false;
  if (q.search !== null && !entry.message.toLowerCase().includes(q.search.toLowerCase())) return false;
  return true;
}

export function functionLogs(store: DestinationsStore, functionId: string, q: LogsQuery): LogRow[] {
  const rows: LogRow[] = [];
  let scanned = 0;
  // Newest first; `before` is exclusive.
  const start: [string, number, number] = q.before !== null ? [functionId, q.before, -1] : [functionId, Number.MAX_SAFE_INTEGER, 0];
  for (const { key, value } of store.logs.getRange({ start, end: [functionId, q.after ?? -1, 0], reverse: true })) {
    if (++scanned > MAX_SCANNED) break;
    const at = key[1];
    if (!matches(q, at, value)) continue;
    rows.push({ log_source_id: functionId, instance_id: value.instance_id, timestamp: new Date(at).toISOString(), level: value.level, message: value.message });
    if (rows.length >= q.limit) break;
  }
  return rows;
}
