// A table as an XLSX workbook (Office Open XML SpreadsheetML): one sheet named "Sheet",
// the header row bold and frozen, numbers as numbers, booleans as booleans, text as
// inline strings. Values are written as PostHog's XLSX export writes them: characters
// XML cannot hold removed, formula-like text prefixed with a quote.
import { defuseFormula, type Cell, type Table } from '../tabular/table.js';
import { zip } from './zip.js';

// Excel's limits: longer cells make it refuse the file, more rows or columns do not fit.
const MAX_CELL_CHARS = 32_767;
const MAX_ROWS = 1_048_576;
const MAX_COLUMNS = 16_384;
const MAX_COLUMN_WIDTH = 60;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

// Control characters other than tab, line feed and carriage return, lone surrogates and
// the two non-characters XML 1.0 forbids.
// eslint-disable-next-line no-control-regex
const XML_ILLEGAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function cellXml(ref: string, value: Cell, style: string): string {
  if (value === null) return '';
  if (typeof value === 'number') return `<c r="${ref}"${style}><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}"${style} t="b"><v>${value ? 1 : 0}</v></c>`;
  const text = String(defuseFormula(value.replace(XML_ILLEGAL, ''))).slice(0, MAX_CELL_CHARS);
  return `<c r="${ref}"${style} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

function rowXml(index: number, cells: Cell[], style: string): string {
  let xml = `<row r="${index + 1}">`;
  cells.forEach((value, col) => { xml += cellXml(`${columnName(col)}${index + 1}`, value, style); });
  return xml + '</row>';
}

function displayLength(value: Cell): number {
  return value === null ? 0 : String(value).length;
}

function sheetXml(table: Table): string {
  const widths = table.header.map((h, col) => {
    let chars = h.length;
    for (const row of table.rows) chars = Math.max(chars, displayLength(row[col]));
    return Math.min(MAX_COLUMN_WIDTH, Math.max(8, chars + 2));
  });
  const cols = widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('');
  const rows = [rowXml(0, table.header, ' s="1"'), ...table.rows.map((cells, i) => rowXml(i + 1, cells, ''))];
  return XML_HEAD +
    `<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
    '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
    `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData>${rows.join('')}</sheetData></worksheet>`;
}

const CONTENT_TYPES = XML_HEAD +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
  '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
  '</Types>';

const ROOT_RELS = XML_HEAD +
  `<Relationships xmlns="${NS_PKG_REL}">` +
  `<Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/>` +
  '</Relationships>';

const WORKBOOK = XML_HEAD +
  `<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheets><sheet name="Sheet" sheetId="1" r:id="rId1"/></sheets></workbook>`;

const WORKBOOK_RELS = XML_HEAD +
  `<Relationships xmlns="${NS_PKG_REL}">` +
  `<Relationship Id="rId1" Type="${NS_REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${NS_REL}/styles" Target="styles.xml"/>` +
  '</Relationships>';

// Style 0 is the default, style 1 the bold header.
const STYLES = XML_HEAD +
  `<styleSheet xmlns="${NS_MAIN}">` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

export function tableToXlsx(table: Table): Uint8Array {
  if (table.header.length > MAX_COLUMNS) throw new Error(`an XLSX sheet holds at most ${MAX_COLUMNS} columns; this export has ${table.header.length}`);
  if (table.rows.length + 1 > MAX_ROWS) throw new Error(`an XLSX sheet holds at most ${MAX_ROWS} rows; this export has ${table.rows.length + 1}`);
  const utf8 = (s: string) => Buffer.from(s, 'utf8');
  return zip([
    { name: '[Content_Types].xml', data: utf8(CONTENT_TYPES) },
    { name: '_rels/.rels', data: utf8(ROOT_RELS) },
    { name: 'xl/workbook.xml', data: utf8(WORKBOOK) },
    { name: 'xl/_rels/workbook.xml.rels', data: utf8(WORKBOOK_RELS) },
    { name: 'xl/styles.xml', data: utf8(STYLES) },
    { name: 'xl/worksheets/sheet1.xml', data: utf8(sheetXml(table)) },
  ]);
}
