import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { XLSX_TYPE, type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { crc32 } from '../../src/exports/xlsx/zip.js';
import { parseCsv } from '../helpers/csv.js';
import { sheetRows } from '../helpers/sheet.js';
import { unzip } from '../helpers/unzip.js';
import * as fx from './fixtures.js';

const s = suite('exports: XLSX workbooks');

function workbook(insight: InsightData, context: Record<string, unknown> | null = null) {
  const { contentType, bytes } = renderExport(XLSX_TYPE, insight, context);
  assert.is(contentType, XLSX_TYPE);
  const parts = unzip(bytes);
  return { parts, rows: sheetRows(parts.get('xl/worksheets/sheet1.xml')!.toString('utf8')) };
}

s('CRC-32 of the check string', () => {
  assert.is(crc32(Buffer.from('123456789')), 0xcbf43926);
});

s('a ZIP of the OOXML parts, each part referenced from where a reader looks for it', () => {
  const { parts } = workbook(fx.signupFunnel);
  assert.equal([...parts.keys()].sort(), ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
  const types = parts.get('[Content_Types].xml')!.toString();
  assert.ok(types.includes('PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"'));
  assert.ok(types.includes('PartName="/xl/worksheets/sheet1.xml"'));
  assert.ok(parts.get('_rels/.rels')!.toString().includes('Target="xl/workbook.xml"'));
  assert.ok(parts.get('xl/_rels/workbook.xml.rels')!.toString().includes('Target="worksheets/sheet1.xml"'));
  assert.ok(parts.get('xl/workbook.xml')!.toString().includes('<sheet name="Sheet" sheetId="1" r:id="rId1"/>'));
  for (const [name, data] of parts) assert.ok(data.toString('utf8').startsWith('<?xml version="1.0" encoding="UTF-8"'), name);
});

for (const [name, insight] of Object.entries(fx.everyKind)) {
  s(`${name}: the same rows as the CSV, numbers as numbers`, () => {
    const csv = parseCsv(Buffer.from(renderExport('text/csv', insight, null).bytes).toString('utf8'));
    const { rows } = workbook(insight);
    assert.is(rows.length, csv.length);
    rows.forEach((row, r) => {
      csv[r].forEach((cell, c) => {
        const v = row[c] ?? null;
        if (typeof v === 'number') assert.is(String(v), cell, `row ${r} col ${c}`);
        else if (typeof v === 'boolean') assert.is(v ? 'True' : 'False', cell);
        else assert.is(v ?? '', cell, `row ${r} col ${c}`);
      });
    });
    const numbers = rows.slice(1).flat().filter((v) => typeof v === 'number').length;
    const numericCsv = csv.slice(1).flat().filter((c) => c !== '' && !Number.isNaN(Number(c)) && !/^\d{4}-/.test(c)).length;
    assert.is(numbers, numericCsv, 'every number is a number cell');
  });
}

s('the header row is bold and frozen; text is escaped; characters XML cannot hold are dropped; formulas defused', () => {
  const insight: InsightData = {
    ...fx.eventsTable, columns: ['a', 'b', 'c'], types: ['String', 'String', 'Bool'],
    result: [['<b>&"x"</b>', 'bell\u0007 tab\t', true], ['=SUM(A1)', '@x', false]],
  };
  const { parts, rows } = workbook(insight);
  const xml = parts.get('xl/worksheets/sheet1.xml')!.toString();
  assert.ok(xml.includes('<c r="A1" s="1" t="inlineStr">'), 'header style 1');
  assert.ok(parts.get('xl/styles.xml')!.toString().includes('<font><b/>'));
  assert.ok(xml.includes('state="frozen"'));
  assert.ok(xml.includes('&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;'));
  assert.equal(rows[1], ['<b>&"x"</b>', 'bell tab\t', true]);
  assert.equal(rows[2], ["'=SUM(A1)", "'@x", false]);
});

s('export_context.columns shapes the sheet as it shapes the CSV', () => {
  const { rows } = workbook(fx.eventsTable, { columns: ['properties.amount', 'event'] });
  assert.equal(rows.slice(0, 4), [['properties.amount', 'event'], [49.9, 'purchase'], [120, 'purchase'], [15.25, 'purchase']]);
  assert.is(rows.length, 1 + (fx.eventsTable.result as unknown[]).length);
});

s('more columns than a sheet holds: a clear error, no file', () => {
  const wide: InsightData = { ...fx.eventsTable, columns: Array.from({ length: 16_385 }, (_, i) => `c${i}`), types: ['Int'], result: [Array.from({ length: 16_385 }, () => 1)] };
  assert.throws(() => renderExport(XLSX_TYPE, wide, null), /at most 16384 columns/);
});

s.run();
