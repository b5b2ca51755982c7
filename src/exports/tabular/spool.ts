// A CSV of many rows (an export of events, up to 300,000) written without holding them:
// each page of query results is flattened and appended to a spool file, one JSON object a
// line, while the caller collects the columns seen; the CSV is then written from the spool
// line by line, under the header all pages make. Runs in the export worker.
import { appendFileSync, closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { writeContentStreamed } from '../assets/files.js';
import type { StoredContent } from '../types.js';
import { csvLine } from './csv.js';
import { tableRows } from './rows.js';
import { buildTable, flattenRow, headerOf, type Cell } from './table.js';

// Appends the page's rows; answers their columns in first-seen order.
export function spoolPage(path: string, results: unknown[][], columns: string[] | null): string[] {
  const keys = new Set<string>();
  let out = '';
  for (const row of tableRows(results, columns)) {
    const flat = flattenRow(row);
    for (const key of flat.keys()) keys.add(key);
    out += JSON.stringify(Object.fromEntries(flat)) + '\n';
  }
  appendFileSync(path, out);
  return [...keys];
}

const CHUNK = 1 << 20;

function* spoolLines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    let rest = '';
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      const lines = (rest + buffer.toString('utf8', 0, n)).split('\n');
      rest = lines.pop() ?? '';
      yield* lines.filter((l) => l !== '');
    }
    if (rest !== '') yield rest;
  } finally {
    closeSync(fd);
  }
}

// The CSV of the spooled rows (`keys`: every page's columns, first seen first), with `note`
// as a last line when given; the spool is deleted.
export function csvFromSpool(dir: string, path: string, keys: string[], requested: string[], rows: number, note: string | null): StoredContent {
  try {
    return writeContentStreamed(dir, (write) => {
      if (rows === 0) {
        const empty = buildTable([], requested);
        write(csvLine(empty.header));
        for (const row of empty.rows) write(csvLine(row));
      } else {
        const header = headerOf(keys, requested);
        write(csvLine(header));
        for (const line of spoolLines(path)) {
          const row = JSON.parse(line) as Record<string, Cell>;
          write(csvLine(header.map((key) => row[key] ?? null)));
        }
      }
      if (note) write(csvLine([note]));
    });
  } finally {
    unlinkSync(path);
  }
}
