// A static cohort's members from an uploaded CSV (PostHog's `csv` field): with a header row
// naming a `distinct_id`, `person_id` or `email` column (any case), that column's values —
// distinct ids, person UUIDs, or the `email` person property — name the members; without
// one, the first cell of every row is a distinct id. Members are kept by distinct id, so a
// person named by UUID or email joins with every distinct id they have now. Looking persons
// up by email reads every person of the project once.
import { errors } from '../../errors.js';
import { personByUuid, personsNewestFirst, type PersonsTables } from '../../persons/index.js';

const COLUMNS = ['distinct_id', 'person_id', 'email'] as const;

/** RFC 4180 rows (quoted cells, doubled quotes, CRLF or LF line ends); blank lines dropped. */
export function csvRows(textValue: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < textValue.length; i++) {
    const ch = textValue[i];
    if (quoted) {
      if (ch === '"' && textValue[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && textValue[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((c) => c.trim() !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  row.push(cell);
  if (row.some((c) => c.trim() !== '')) rows.push(row);
  return rows;
}

export function csvDistinctIds(store: PersonsTables, projectId: number, csv: string): string[] {
  const rows = csvRows(csv.replace(/^\uFEFF/, ''));
  if (rows.length === 0) throw errors.validation('The CSV file is empty.', 'csv');
  const header = rows[0].map((c) => c.trim().toLowerCase());
  const column = COLUMNS.map((name) => ({ name, at: header.indexOf(name) })).find((c) => c.at >= 0);
  if (column === undefined) return rows.map((r) => r[0].trim()).filter((v) => v !== '');
  const values = new Set(rows.slice(1).map((r) => (r[column.at] ?? '').trim()).filter((v) => v !== ''));
  switch (column.name) {
    case 'distinct_id':
      return [...values];
    case 'person_id':
      return [...values].flatMap((uuid) => personByUuid(store, projectId, uuid)?.distinct_ids ?? []);
    case 'email': {
      const out: string[] = [];
      for (const p of personsNewestFirst(store, projectId)) if (values.has(String(p.properties.email ?? ''))) out.push(...p.distinct_ids);
      return out;
    }
  }
}
