// Small charts drawn with Unicode blocks: horizontal bars with eighth-cell precision, sparklines,
// and a two-part ratio bar. Plain strings; the caller colours them.

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/**
 * A bar `value / max` of `width` cells, in eighths of a cell; any value above 0 shows at least
 * one eighth. The result is at most `width` cells wide (not padded).
 */
export function bar(value: number, max: number, width: number): string {
  if (!(value > 0) || !(max > 0) || width <= 0) return '';
  const eighths = Math.max(1, Math.round((Math.min(value, max) / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

/** One character per value, scaled to the largest; 0 is a blank, any other value at least `▁`. */
export function sparkline(values: readonly number[], max = values.reduce((m, v) => Math.max(m, v), 0)): string {
  return values
    .map((v) => {
      if (!(v > 0) || !(max > 0)) return ' ';
      return SPARKS[Math.min(7, Math.max(0, Math.ceil((v / max) * 8) - 1))]!;
    })
    .join('');
}

/**
 * Sums consecutive values into at most `columns` groups of equal size (the last may be shorter);
 * answers the groups and how many values each column stands for.
 */
export function resample(values: readonly number[], columns: number): { values: number[]; per: number } {
  const per = Math.max(1, Math.ceil(values.length / Math.max(1, columns)));
  if (per === 1) return { values: values.slice(), per };
  const out: number[] = [];
  for (let i = 0; i < values.length; i += per) out.push(values.slice(i, i + per).reduce((a, b) => a + b, 0));
  return { values: out, per };
}

/**
 * Two shares of one bar: `█` for the first, `░` for the second, `width` cells in all (blank when
 * both are 0). Each non-zero share gets at least one cell.
 */
export function splitBar(a: number, b: number, width: number): [string, string] {
  const total = a + b;
  if (total <= 0 || width <= 0) return ['', ''];
  let left = Math.round((a / total) * width);
  if (a > 0 && left === 0) left = 1;
  if (b > 0 && left === width && width > 1) left = width - 1;
  return ['█'.repeat(left), '░'.repeat(width - left)];
}
