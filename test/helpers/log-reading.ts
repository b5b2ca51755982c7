// Reads a log through its reader until a condition holds or time runs out, then
// stops the reader; assertions then say what was missing.
import type { LogEntry, LogReader } from '../../src/log/types.js';

export async function readUntil(reader: LogReader, after: number, done: (entries: LogEntry[]) => boolean,
  timeoutMs = 5000): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  await reader.consume(after, async (batch) => {
    entries.push(...batch);
    if (done(entries)) controller.abort();
  }, controller.signal);
  clearTimeout(timer);
  return entries;
}

export const eventCount = (entries: LogEntry[]) => entries.reduce((n, e) => n + e.events.length, 0);

export const uuidsOf = (entries: LogEntry[]) => entries.flatMap((e) => e.events.map((ev) => ev.uuid));

export function readEvents(reader: LogReader, after: number, n: number, timeoutMs?: number): Promise<LogEntry[]> {
  return readUntil(reader, after, (entries) => eventCount(entries) >= n, timeoutMs);
}
