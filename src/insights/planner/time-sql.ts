// Local time and interval buckets in SQL. The project's wall clock is the event's epoch
// microseconds plus the zone's offset, chosen among the few offset segments of the queried
// span (DST transitions) by a CASE on bound instants: integer arithmetic per row, about ten
// times cheaper in DuckDB than a per-row time zone conversion and date_trunc (measured on
// 3.7 M rows: 60 ms against 570 ms).
import type { OffsetSegment } from '../../time/zone.js';
import { weekOffset, type Interval } from './dates.js';
import { int, raw, sql, type Sql } from './sql.js';

const US_PER_HOUR = 3_600_000_000;
export const US_PER_DAY = 86_400_000_000;
// DuckDB's // truncates toward zero; shifting by a whole number of weeks (about 1,900
// years) keeps every plausible instant positive, so the division floors.
const BIAS_DAYS = 700_000;
const BIAS_US = BIAS_DAYS * US_PER_DAY;

/** Local wall-clock µs of `column` (a TIMESTAMPTZ), for instants in [fromUs, toUs). */
export function localUs(column: Sql, segments: readonly OffsetSegment[], fromUs: number, toUs: number): Sql {
  const epoch = sql`epoch_us(${column})`;
  const relevant = segments.filter((s, i) => {
    const end = i + 1 < segments.length ? segments[i + 1].fromMs * 1000 : Infinity;
    return end > fromUs && s.fromMs * 1000 < toUs;
  });
  const used = relevant.length > 0 ? relevant : segments.slice(-1);
  if (used.length === 1) {
    return used[0].offsetMs === 0 ? epoch : sql`(${epoch} + ${int(used[0].offsetMs * 1000)})`;
  }
  const whens: Sql[] = [];
  for (let i = 1; i < used.length; i++) whens.push(sql` WHEN ${epoch} < ${int(used[i].fromMs * 1000)} THEN ${int(used[i - 1].offsetMs * 1000)}`);
  return sql`(${epoch} + CASE${{ parts: whens }} ELSE ${int(used[used.length - 1].offsetMs * 1000)} END)`;
}

/** Local day number (days since 1970-01-01 on the project's wall clock). */
export function localDay(local: Sql): Sql {
  return sql`((${local} + ${raw(String(BIAS_US))}) // ${raw(String(US_PER_DAY))} - ${raw(String(BIAS_DAYS))})`;
}

/** The bucket id of a local time: the same integers planner/dates.ts bucketId gives. */
export function bucketSql(local: Sql, interval: Interval, weekStart: 0 | 1): Sql {
  switch (interval) {
    case 'hour':
      return sql`((${local} + ${raw(String(BIAS_US))}) // ${raw(String(US_PER_HOUR))} - ${raw(String(BIAS_DAYS * 24))})`;
    case 'day':
      return localDay(local);
    case 'week':
      return sql`((${localDay(local)} + ${int(weekOffset(weekStart) + BIAS_DAYS)}) // 7 - ${raw(String(BIAS_DAYS / 7))})`;
    case 'month':
      return sql`(year(make_timestamp(${local})) * 12 + month(make_timestamp(${local})) - 1)`;
  }
}

