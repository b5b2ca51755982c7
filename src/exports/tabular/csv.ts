// A table as CSV the way PostHog writes it (Python's csv module, default dialect): comma
// separated, CRLF line ends, fields quoted only when they hold a comma, a quote or a line
// break, quotes doubled, None as an empty field, booleans as True/False.
import { defuseFormula, type Cell, type Table } from './table.js';
import { pyStr } from './rows.js';

// A comma, a double quote (\u0022) or a line break makes a field quoted.
const NEEDS_QUOTES = /[,\u0022\r\n]/;

function field(value: Cell): string {
  const s = value === null ? '' : typeof value === 'string' ? value : pyStr(value);
  return NEEDS_QUOTES.test(s) ? `"${s.split('"').join('""')}"` : s;
}

export function csvLine(cells: Cell[]): string {
  // A lone empty field is written as "" so the line is not mistaken for a blank one.
  if (cells.length === 1 && (cells[0] === null || cells[0] === '')) return '""\r\n';
  return cells.map((c) => field(defuseFormula(c))).join(',') + '\r\n';
}

export function tableToCsv(table: Table): Uint8Array {
  let out = csvLine(table.header);
  for (const row of table.rows) out += csvLine(row);
  return Buffer.from(out, 'utf8');
}
