// The look shared by every chart: canvas size, type scale, colours, number formats.

export const WIDTH = 1200;
export const HEIGHT = 630;
export const MARGIN = 32;

export const INK = '#1f2328';
export const MUTED = '#5f6670';
export const FAINT = '#8b929b';
export const RULE = '#e3e6ea';
export const GHOST = '#e9ecf1';

// Distinct at a glance and in greyscale print, in the order series are coloured.
export const PALETTE = [
  '#2f5ee0', '#e8743b', '#1a9f76', '#8c55c9', '#d9436e', '#1497a8', '#b8930c', '#5d6f8a',
  '#c23a2b', '#7a9a2e', '#3f8fd6', '#a0522d', '#6f4bd8', '#d68b00', '#2e8b57',
];

export const seriesColor = (i: number) => PALETTE[i % PALETTE.length];

// Lifecycle statuses in PostHog's order of stacking, with colours that say what they mean.
export const LIFECYCLE = [
  { status: 'new', name: 'New', color: '#1a9f76' },
  { status: 'resurrecting', name: 'Resurrecting', color: '#8c55c9' },
  { status: 'returning', name: 'Returning', color: '#2f5ee0' },
  { status: 'dormant', name: 'Dormant', color: '#d9534f' },
] as const;

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

// Values as a reader writes them: 1,234 and 12.5; axis ticks shortened past 10,000 (12K).
export const formatNumber = (n: number) => whole.format(n);
export const formatTick = (n: number) => (Math.abs(n) >= 10_000 ? compact.format(n) : whole.format(n));
export const formatPercent = (fraction: number) => `${(fraction * 100).toFixed(fraction >= 0.9995 || fraction === 0 ? 0 : 1)}%`;

// Text over a cell of this background: white on dark, ink on light.
export function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance < 0.55 ? '#ffffff' : INK;
}

// A colour between `from` and `to`, t in [0, 1].
export function mix(from: string, to: string, t: number): string {
  const c = (hex: string, i: number) => parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16);
  const k = Math.min(1, Math.max(0, t));
  return '#' + [0, 1, 2].map((i) => Math.round(c(from, i) + (c(to, i) - c(from, i)) * k).toString(16).padStart(2, '0')).join('');
}
