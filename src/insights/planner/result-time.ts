// An instant in a query's answer as PostHog's renderer (orjson with OPT_UTC_Z) writes it:
// RFC 3339 on the project's wall clock with that zone's offset, `Z` for UTC, and a fraction
// of six digits only when there is one (`2026-01-02T03:04:05Z`, `…05.123000+09:00`).
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const FORMATS = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = FORMATS.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset',
    });
    FORMATS.set(zone, format);
  }
  return format;
}

// `us`: microseconds since the epoch.
export function instantText(us: number, zone: string): string {
  const micros = ((us % 1_000_000) + 1_000_000) % 1_000_000;
  const d = new Date((us - micros) / 1000);
  const fraction = micros ? `.${pad(micros, 6)}` : '';
  if (zone === 'UTC') {
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction}Z`;
  }
  const p = Object.fromEntries(zoneFormat(zone).formatToParts(d).map((x) => [x.type, x.value]));
  const offset = p.timeZoneName === 'GMT' ? '+00:00' : p.timeZoneName.replace('GMT', '');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${fraction}${offset}`;
}
