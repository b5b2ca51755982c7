// The ingestion warnings API answer: warnings grouped by type, most recent type first,
// each with its count, a per-day sparkline and its 50 latest occurrences. Pure.
import type { IngestionWarningRecord } from './tables.js';
import type { WarningSummary } from './schemas.js';

const EXAMPLES_PER_TYPE = 50;

// `records` oldest first; `search` matches the type or the details' JSON text.
export function summarizeWarnings(records: readonly IngestionWarningRecord[], search?: string): WarningSummary[] {
  const byType = new Map<string, { summary: WarningSummary; days: Map<string, number> }>();
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (search && !r.type.includes(search) && !JSON.stringify(r.details).includes(search)) continue;
    let entry = byType.get(r.type);
    if (!entry) {
      entry = { summary: { type: r.type, lastSeen: r.timestamp, sparkline: [], warnings: [], count: 0 }, days: new Map() };
      byType.set(r.type, entry);
    }
    entry.summary.count++;
    if (entry.summary.warnings.length < EXAMPLES_PER_TYPE) entry.summary.warnings.push({ type: r.type, timestamp: r.timestamp, details: r.details });
    const day = r.timestamp.slice(0, 10);
    entry.days.set(day, (entry.days.get(day) ?? 0) + 1);
  }
  const out = [...byType.values()].map(({ summary, days }) => ({ ...summary, sparkline: [...days].map(([day, n]) => [n, day] as [number, string]).reverse() }));
  return out.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
}
