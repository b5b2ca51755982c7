// The actors behind a trends value: those whose events the series counted at one interval
// (or over the range for the "total value" displays; the active window for weekly and
// monthly active users), of one breakdown value and period. The scan and the breakdown's
// folding into "other" are the series statement's (trends.ts), so the set is the number's:
// for the maths that count actors its size is the value; for the others the actors are the
// ones whose events made it, each with how many.
import type { TrendsQuery } from '../schemas.js';
import { breakdownOf, breakdownUsesPersons, breakdownValueSql, foldedValueSql } from './breakdown.js';
import { bucketOfDay, cellBreakdownValue, type Cell, type CellActors } from './cells.js';
import { actorOf, eventsFrom, needsPersons, nodeUsesPersons, type PlanContext } from './context.js';
import { localToUs, previousRange, resolveRange, shiftedRange, type Interval } from './dates.js';
import { QueryError } from './errors.js';
import { firstTimeBase, FIRST_TIME_MATHS } from './first-time.js';
import { propertyText } from './properties.js';
import { and, int, join, raw, sql, text, type Sql } from './sql.js';
import { bucketSql, localDay, localUs } from './time-sql.js';
import { ACTIVE_WINDOW, countPerActor, groupTypeIndex, mathOf, mathProperty, seriesWhere, TOTAL_VALUE_DISPLAYS, type SeriesRun } from './trends.js';

const DAY_MS = 86_400_000;

export function trendsActors(query: TrendsQuery, ctx: PlanContext, cell: Cell): CellActors {
  const totalValue = TOTAL_VALUE_DISPLAYS.has(query.trendsFilter?.display ?? 'ActionsLineGraph');
  const interval: Interval = totalValue ? 'day' : (query.interval ?? 'day');
  const node = query.series[cell.series];
  if (node === undefined) throw new QueryError(`series ${cell.series} is not one of the insight's ${query.series.length}`, 'source.series');
  let range = resolveRange(query.dateRange, interval, ctx);
  if (cell.previous) {
    if (query.compareFilter?.compare !== true || query.dateRange?.date_from === 'all') throw new QueryError('The insight does not compare periods', 'source.compare');
    const compareTo = query.compareFilter?.compare_to;
    range = compareTo ? shiftedRange(range, compareTo, ctx) : previousRange(range, ctx);
  }
  const run: SeriesRun = { node, order: cell.series, range, previous: cell.previous };
  const breakdown = breakdownOf(query.breakdownFilter, ctx);
  const value = cellBreakdownValue(breakdown, cell.breakdown, 'source.breakdown');
  const math = mathOf(node);
  const prop = mathProperty(node, cell.series);
  const persons = needsPersons(ctx, query.properties) || nodeUsesPersons(node, ctx) || breakdownUsesPersons(breakdown) || prop?.source === 'person';
  if (FIRST_TIME_MATHS.has(math)) {
    // Each person once, by the event that counted them.
    const local = localUs(raw('t'), range.segments, range.fromUs - 31 * DAY_MS * 1000, range.toUs);
    const inBucket = totalValue ? raw('TRUE') : sql`${bucketSql(local, interval, ctx.weekStart)} = ${int(bucketOfDay(range.buckets, requiredDay(cell), interval, ctx.weekStart, 'source.day').id)}`;
    return { sql: sql`WITH first AS (${firstTimeBase(query, run, ctx)}) SELECT pid::VARCHAR AS actor, 1 AS event_count FROM first WHERE ${inBucket}`, groupType: null, eventCount: true, appearances: false };
  }
  const window = ACTIVE_WINDOW[math];
  // unique_group counts the keys of its group type: those are the actors then.
  const groupType = math === 'unique_group' ? groupTypeIndex(node, cell.series) : (query.aggregation_group_type_index ?? null);
  const actor = math === 'unique_group' ? { id: propertyText('event', `$group_${groupType}`), where: [] } : actorOf(query);
  // The series statement's scan: the same rows, so the same top values keep their names.
  const scanned = math === 'dau' || window !== undefined || countPerActor(math) !== null ? actor.where : [];
  const local = localUs(raw('e.timestamp'), range.segments, range.fromUs - 31 * DAY_MS * 1000, range.toUs);
  const cols: Sql[] = [sql`${actor.id} AS pid`];
  const inCell: Sql[] = [raw("coalesce(pid::VARCHAR, '') <> ''")];
  let fromUs = range.fromUs;
  if (window !== undefined) {
    const lastDay = Math.floor(range.toLocal / DAY_MS);
    const firstDay = Math.floor(range.buckets[0].localMs / DAY_MS);
    fromUs = localToUs(range.segments, (totalValue ? lastDay - window + 1 : firstDay - window + 1) * DAY_MS);
    const day = totalValue ? lastDay : Math.floor(bucketOfDay(range.buckets, requiredDay(cell), interval, ctx.weekStart, 'source.day').localMs / DAY_MS);
    cols.push(sql`${localDay(local)} AS day`);
    inCell.push(sql`day BETWEEN ${int(day - window + 1)} AND ${int(day)}`);
  } else if (!totalValue) {
    const bucket = bucketOfDay(range.buckets, requiredDay(cell), interval, ctx.weekStart, 'source.day');
    cols.push(sql`${bucketSql(local, interval, ctx.weekStart)} AS b`);
    inCell.push(sql`b = ${int(bucket.id)}`);
  }
  if (breakdown) cols.push(sql`${breakdownValueSql(breakdown)} AS bv`);
  if (breakdown && value !== null) inCell.push(sql`${foldedValueSql(breakdown)} = ${text(value)}`);
  const base = sql`SELECT ${join(cols, ', ')} FROM ${eventsFrom(persons)} WHERE ${and([seriesWhere(query, run, ctx, fromUs), ...scanned])}`;
  return {
    sql: sql`WITH base AS (${base}) SELECT pid::VARCHAR AS actor, count(*) AS event_count FROM base WHERE ${and(inCell)} GROUP BY pid`,
    groupType, eventCount: true, appearances: false,
  };
}

function requiredDay(cell: Cell): unknown {
  if (cell.day === null) throw new QueryError('day is required: the interval whose actors to list', 'source.day');
  return cell.day;
}
