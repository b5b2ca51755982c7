// Text on a dashboard's picture and pages: a text card's markdown read as plain lines, and
// lines wrapped to a width by a measure of the font in use (pure).

// Markdown's marks dropped (headings, emphasis, links, list bullets kept as "•"): what a
// reader of the card sees, without its styling.
export function plainLines(markdown: string): string[] {
  return markdown.replace(/\r\n?/g, '\n').split('\n').map((line) => line
    .replace(/^\s{0,3}#{1,6}\s+/, '')
    .replace(/^\s*[-*+]\s+/, '• ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*|_|`)(.+?)\1/g, '$2'));
}

// Each line broken at spaces (a word longer than the width is cut) so that none is wider
// than `width` by `measure`.
export function wrap(lines: readonly string[], width: number, measure: (s: string) => number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') {
      out.push('');
      continue;
    }
    let current = '';
    for (const word of line.split(/\s+/).filter(Boolean)) {
      const next = current === '' ? word : `${current} ${word}`;
      if (measure(next) <= width) {
        current = next;
        continue;
      }
      if (current !== '') out.push(current);
      current = word;
      while (measure(current) > width && current.length > 1) {
        let cut = current.length - 1;
        while (cut > 1 && measure(current.slice(0, cut)) > width) cut--;
        out.push(current.slice(0, cut));
        current = current.slice(cut);
      }
    }
    out.push(current);
  }
  return out;
}

// "28 Nov 2026, 09:00" in the project's time zone (UTC when the zone is unknown).
export function localTime(iso: string, timeZone: string): string {
  const at = new Date(iso);
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(at);
  } catch {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' }).format(at);
  }
}
