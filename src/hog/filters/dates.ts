// The is_date_* operators compare against a date fixed when the filter is compiled: a
// relative value ("-7d", "-3m") is resolved against the compile-time clock in the
// project's time zone and written as wall-clock "YYYY-MM-DD HH:MM:SS", as PostHog does.

const RELATIVE = /^-?([0-9]+)([hdwmqysHDWMQY])/;

function wallClock(now: number, timeZone: string): number[] {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(now));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return [get('year'), get('month'), get('day'), get('hour'), get('minute'), get('second')];
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `value` itself unless it is a relative date, which becomes the wall-clock time it names. */
export function resolveDateValue(value: unknown, now: number, timeZone: string): unknown {
  if (typeof value !== 'string') return value;
  const match = RELATIVE.exec(value);
  if (!match) return value;
  const amount = Number(match[1]);
  const unit = match[2];
  let [year, month, day, hour, minute, second] = wallClock(now, timeZone);
  const months = unit === 'm' ? amount : unit === 'q' || unit === 'Q' ? amount * 3 : unit === 'y' || unit === 'Y' ? amount * 12 : 0;
  if (months > 0) {
    // Calendar months back, the day clamped to the target month's length.
    const index = year * 12 + (month - 1) - months;
    year = Math.floor(index / 12);
    month = (index % 12) + 1;
    day = Math.min(day, daysInMonth(year, month));
  }
  const seconds = ({ h: 3600, H: 3600, d: 86400, D: 86400, w: 604800, W: 604800, M: 60, s: 1, S: 1 } as Record<string, number>)[unit] ?? 0;
  const t = new Date(Date.UTC(year, month - 1, day, hour, minute, second) - amount * seconds * 1000);
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ` +
    `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}
