// An XLSX worksheet's cells for tests, read from its XML (as the export writes it: inline
// strings, numbers, booleans).
export type Value = string | number | boolean | null;

// The sheet's cells by row, from its XML: numbers and booleans typed, inline strings unescaped.
export function sheetRows(xml: string): Value[][] {
  const unescape = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const rows: Value[][] = [];
  for (const [, r, body] of xml.matchAll(/<row r="(\d+)">(.*?)<\/row>/g)) {
    const row: Value[] = [];
    for (const [, ref, attrs, inner] of body.matchAll(/<c r="([A-Z]+)\d+"([^>]*)>(.*?)<\/c>/g)) {
      const col = [...ref].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
      while (row.length < col) row.push(null);
      if (attrs.includes('t="inlineStr"')) row.push(unescape(/<t[^>]*>(.*?)<\/t>/s.exec(inner)![1]));
      else if (attrs.includes('t="b"')) row.push(/<v>(.*)<\/v>/.exec(inner)![1] === '1');
      else row.push(Number(/<v>(.*)<\/v>/.exec(inner)![1]));
    }
    rows[Number(r) - 1] = row;
  }
  return rows;
}
