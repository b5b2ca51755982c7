// Dates on charts, in the project's time zone. PostHog's results carry dates two ways: a
// wall-clock date or time already in the project's zone ("2024-01-05", "2024-01-05
// 14:00:00"), shown as written, and an instant with an offset ("2024-01-05T00:00:00Z",
// retention cohorts), shown as the project's clock read it then.

export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month';

interface WallTime {
  year: number;
  month: number; // 1–12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    } catch {
      // An unknown zone name: dates read in UTC rather than failing the export.
      f = zoneFormat('UTC');
    }
    zoneFormats.set(timeZone, f);
  }
  return f;
}

export function wallTime(value: string, timeZone: string): WallTime | null {
  const m = ISO.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = m;
  const fields = { year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: +s };
  if (!zone) return fields;
  const instant = new Date(value.trim().replace(' ', 'T'));
  if (Number.isNaN(instant.getTime())) return null;
  const parts: Record<string, number> = {};
  for (const p of zoneFormat(timeZone).formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

const pad = (n: number) => String(n).padStart(2, '0');

// A bucket's label: "14:00" times carry their day, days and weeks "5 Jan", months "Jan 2024".
export function formatBucket(value: unknown, interval: Interval, timeZone: string): string {
  if (typeof value !== 'string') return value === null || value === undefined ? '' : String(value);
  const t = wallTime(value, timeZone);
  if (!t) return value;
  const date = `${t.day} ${MONTHS[t.month - 1]}`;
  switch (interval) {
    case 'minute':
    case 'hour': return `${date} ${pad(t.hour)}:${pad(t.minute)}`;
    case 'month': return `${MONTHS[t.month - 1]} ${t.year}`;
    default: return date;
  }
}

// A full date for subtitles and table cells: "5 Jan 2024", with the time when it has one.
export function formatDate(value: string, timeZone: string, withTime = false): string {
  const t = wallTime(value, timeZone);
  if (!t) return value;
  const date = `${t.day} ${MONTHS[t.month - 1]} ${t.year}`;
  return withTime ? `${date} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}` : date;
}

export function formatRange(first: string, last: string, timeZone: string, withTime: boolean): string {
  const a = formatDate(first, timeZone, withTime);
  const b = formatDate(last, timeZone, withTime);
  return a === b ? a : `${a} – ${b}`;
}

export function parseInterval(value: unknown): Interval {
  return value === 'minute' || value === 'hour' || value === 'week' || value === 'month' ? value : 'day';
}
