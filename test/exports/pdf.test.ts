import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { PdfName, pdfText, readPdf, type PdfDict } from '../helpers/pdf.js';
import { parseCsv } from '../helpers/csv.js';
import * as fx from './fixtures.js';

const s = suite('exports: PDF reports');

// Rendering draws the chart at 2400×1260: each insight is rendered once for the suite (its
// bytes kept too, for the test that renders one again).
const rendered = new Map<InsightData, { bytes: Uint8Array; doc: ReturnType<typeof readPdf> }>();
function render(insight: InsightData): { bytes: Uint8Array; doc: ReturnType<typeof readPdf> } {
  let done = rendered.get(insight);
  if (!done) {
    const { bytes } = renderExport('application/pdf', insight, null);
    rendered.set(insight, (done = { bytes, doc: readPdf(bytes) }));
  }
  return done;
}
const pdf = (insight: InsightData): ReturnType<typeof readPdf> => render(insight).doc;
const csvRows = (insight: InsightData) => parseCsv(Buffer.from(renderExport('text/csv', insight, null).bytes).toString('utf8'));
const allText = (doc: ReturnType<typeof pdf>) => doc.pages.flatMap((p) => p.texts);

for (const [name, insight] of Object.entries(fx.everyKind)) {
  s(`${name}: opens with a parser that follows the xref; A4 landscape; the chart as an RGB image; the CSV's header in the table`, () => {
    const doc = pdf(insight);
    assert.is(doc.version, '1.4');
    assert.is(pdfText(doc.info.get('Title')), insight.name);
    const [first] = doc.pages;
    assert.equal(first.mediaBox, [0, 0, 842, 595]);
    assert.is(first.images.length, 1);
    const image = first.images[0];
    assert.equal([image.width, image.height, image.colorSpace, image.bitsPerComponent], [2400, 1260, 'DeviceRGB', 8]);
    assert.is(image.data.length, 2400 * 1260 * 3);
    let dark = 0;
    for (let i = 0; i < image.data.length; i += 3 * 50) if (image.data[i] < 200) dark++;
    assert.ok(dark > 200, 'the image is not blank');
    const texts = new Set(allText(doc));
    const header = csvRows(insight)[0];
    for (const title of header) assert.ok(texts.has(title) || [...texts].some((t) => t.endsWith('…') && title.startsWith(t.slice(0, -1))), `header "${title}" in the table`);
    assert.ok(texts.has(`${insight.name} · page 1 of ${doc.pages.length}`), 'footer');
  });
}

s('the table holds the values: counts in full with separators, text as it is', () => {
  const texts = allText(pdf(fx.signupFunnel));
  for (const v of ['9,830', '2,410', '1,502', '611', '$pageview', 'first_project_created', '3,725', '7,325', '10,925']) assert.ok(texts.includes(v), v);
  const trends = allText(pdf(fx.trendsByBrowser));
  const items = fx.trendsByBrowser.result as Array<{ data: number[] }>;
  for (const n of items.flatMap((i) => i.data)) assert.ok(trends.includes(n.toLocaleString('en-US')), String(n));
});

s('a table wider than the page is cut into bands that repeat the series and breakdown columns', () => {
  const doc = pdf(fx.trendsByBrowser);
  const texts = allText(doc);
  const bands = texts.filter((t) => t.startsWith('Values (columns'));
  assert.ok(bands.length >= 2, `${bands.length} bands`);
  // Each row once per band, with its series (the result's label: the breakdown value) and
  // breakdown value; the header over each band and again where a band goes on to the next page.
  assert.is(texts.filter((t) => t === 'Chrome').length, bands.length * 2);
  assert.is(texts.filter((t) => t === 'Safari').length, bands.length * 2);
  const headers = texts.filter((t) => t === 'series').length;
  assert.ok(headers >= bands.length);
  assert.is(texts.filter((t) => t === '$browser').length, headers);
  // Every date column is in some band.
  for (const label of csvRows(fx.trendsByBrowser)[0].slice(2)) assert.ok(texts.includes(label), label);
});

s('a long table continues over pages under a repeated header', () => {
  const rows = Array.from({ length: 150 }, (_, i) => [`event-${i}`, i, '2024-05-01T00:00:00Z']);
  const long: InsightData = { ...fx.eventsTable, columns: ['event', 'n', 'timestamp'], types: ['String', 'Int', 'DateTime'], result: rows };
  const doc = pdf(long);
  assert.ok(doc.pages.length >= 4, `${doc.pages.length} pages`);
  const texts = allText(doc);
  for (let i = 0; i < 150; i++) assert.is(texts.filter((t) => t === `event-${i}`).length, 1, `row ${i} once`);
  for (const page of doc.pages.slice(1)) assert.ok(page.texts.includes('event') && page.texts.includes('timestamp'), 'header on each page');
  assert.ok(texts.includes('1 May 2024 10:00:00'), 'timestamps in the project\'s time zone (Sydney)');
  doc.pages.forEach((page, i) => assert.ok(page.texts.includes(`${long.name} · page ${i + 1} of ${doc.pages.length}`)));
});

s('standard fonts, nothing embedded; text outside WinAnsi prints as "?", the title keeps it', () => {
  const name = 'Umsatz – Übersicht ✓ 日本';
  const doc = pdf({ ...fx.signupFunnel, name, result: [{ action_id: 'café ✓', name: 'café ✓', order: 0, count: 5 }] });
  assert.is(pdfText(doc.info.get('Title')), name);
  const texts = allText(doc);
  assert.ok(texts.includes('café ?'));
  assert.ok(texts.includes('Umsatz – Übersicht ? ?? · page 1 of 1'));
  const fonts = [...doc.objects.values()].filter((o): o is PdfDict => o instanceof Map && (o.get('Type') as PdfName)?.name === 'Font');
  assert.equal(fonts.map((f) => (f.get('BaseFont') as PdfName).name).sort(), ['Helvetica', 'Helvetica-Bold']);
  assert.ok(fonts.every((f) => !f.has('FontDescriptor')));
});

s('the same insight gives the same bytes', () => {
  // The suite's first render of it (or one now, alone) and another.
  const a = Buffer.from(render(fx.lifecycle).bytes);
  const b = Buffer.from(renderExport('application/pdf', fx.lifecycle, null).bytes);
  assert.ok(a.equals(b));
});

s.run();
