// A table drawn as ECharts graphic elements (rectangles and text): the retention grid
// and the rows of table queries. Text is truncated with an ellipsis to its column.
import { INK, MUTED, RULE } from './theme.js';

export interface Column {
  title: string;
  width: number;
  align: 'left' | 'right' | 'center';
}

export interface TableCell {
  text: string;
  fill?: string;
  color?: string;
  bold?: boolean;
}

export interface TableLayout {
  left: number;
  top: number;
  headerHeight: number;
  rowHeight: number;
  fontSize: number;
}

const PAD = 8;

function textAt(x: number, width: number, y: number, align: Column['align'], cell: TableCell, fontSize: number): unknown {
  const anchor = align === 'left' ? x + PAD : align === 'right' ? x + width - PAD : x + width / 2;
  return {
    type: 'text', x: anchor, y, silent: true,
    style: {
      text: cell.text, fontSize, fontWeight: cell.bold ? 'bold' : 'normal', fill: cell.color ?? INK,
      align, verticalAlign: 'middle', width: width - 2 * PAD, overflow: 'truncate',
    },
  };
}

export function drawTable(columns: Column[], rows: TableCell[][], layout: TableLayout): unknown[] {
  const out: unknown[] = [];
  const total = columns.reduce((s, c) => s + c.width, 0);
  const { left, top, headerHeight, rowHeight, fontSize } = layout;
  let x = left;
  for (const col of columns) {
    out.push(textAt(x, col.width, top + headerHeight / 2, col.align, { text: col.title, color: MUTED, bold: true }, fontSize));
    x += col.width;
  }
  out.push({ type: 'line', silent: true, shape: { x1: left, y1: top + headerHeight, x2: left + total, y2: top + headerHeight }, style: { stroke: RULE, lineWidth: 1 } });
  rows.forEach((cells, r) => {
    const y = top + headerHeight + r * rowHeight;
    let cx = left;
    cells.forEach((cell, c) => {
      const col = columns[c];
      if (!col) return;
      if (cell.fill) out.push({ type: 'rect', silent: true, shape: { x: cx + 1, y: y + 1, width: col.width - 2, height: rowHeight - 2, r: 2 }, style: { fill: cell.fill } });
      if (cell.text) out.push(textAt(cx, col.width, y + rowHeight / 2, col.align, cell, fontSize));
      cx += col.width;
    });
    out.push({ type: 'line', silent: true, shape: { x1: left, y1: y + rowHeight, x2: left + total, y2: y + rowHeight }, style: { stroke: RULE, lineWidth: 0.5 } });
  });
  return out;
}
