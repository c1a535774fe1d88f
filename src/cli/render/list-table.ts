// The table of a list, streamed: written once for every list command. Rows print as they arrive;
// the column widths are decided from a sample (the first SAMPLE_ROWS rows, or what came in the
// first SAMPLE_MS), and every later row is fitted to them, so the first row shows at once and
// memory stays flat whatever the length of the list.
//
// On a terminal the table fits its width. Each list declares its columns and which matter most;
// when they do not fit, in this order:
//   1. random ids (UUIDv4) show a prefix (ID_PREFIX characters, as git and docker shorten ids;
//      longer when two ids of the sample share one),
//   2. free text (content, value) is cut with `…`, before roles and types, which are cut only
//      to their minimum; a record's name (what identifies it, as its id does) is never cut,
//   3. the least important columns are hidden until the minimums fit.
// `wide` (-o wide, or columns named by --fields) cuts and hides nothing: its lines may be wider
// than the terminal (as kubectl's -o wide). Off a terminal (`-o table` into a pipe) nothing is
// cut: a later cell longer than its column pushes the rest of its line along. A note for under
// the table says what was done: the zone, and every column shortened, cut or hidden.
//
// An id cell always identifies its record: it is never cut with `…`. Only a random UUID is
// shortened, to a prefix: its first characters are random, so a prefix tells ids apart as the
// whole id does (8 hexadecimal characters: a chance repeat among a screenful is about one in a
// billion). Any other id (a name-like `demo-support-bot-m19`, a time-ordered UUIDv7 whose first
// characters are its millisecond) is shown whole. The prefix length is checked against the sample
// only (checking every row would cost memory in proportion to the list), and the note says so:
// over a long list two ids may share a prefix (for 8 characters, even odds after some 77,000
// ids). Dates are never cut either. A later id or date wider than its column (widths come from
// the sample) is printed whole, and its row gives way elsewhere: free text and the other cells'
// unused room first, then labels, so that the line still fits the terminal. To act on ids, take
// them whole (-q, -o wide, json).
import { stdoutPaint } from '../base/color.js';
import { formatInstant, zoneNote, type Zone } from '../base/dates.js';
import { displayWidth, sanitize, truncate, wrap } from './text.js';

export type ColumnKind = 'id' | 'name' | 'date' | 'label' | 'text';

export interface Column {
  /** Key of the record; dots reach into nested objects (`details.name`): the caller reads it. */
  key: string;
  /** Heading; default the key. */
  header?: string;
  /** How the column gives way: `id` to a prefix, `text` first, `label` last, `name` and `date` never. */
  kind: ColumnKind;
  /** The cell's text for a value, when the default (one line of text, dates in the zone) is not it. */
  cell?: (value: unknown) => string;
}

export interface ListView {
  columns: Column[];
  /** Keys, most important first; the last are hidden first. Default: the columns' order. */
  priority?: string[];
}

const SAMPLE_ROWS = 200;
export const SAMPLE_MS = 300;
const ID_PREFIX = 8;
const GAP = 2;
// Room for later ids longer than the sampled ones, taken before free text shares the line: ids
// that count (`…-m0` to `…-m199` in the sample, `…-m199999` later) grow by a few characters, and
// a row with a wider id has to give way (as it still does beyond this).
const ID_HEADROOM = 4;
// Below these a cell says too little (a role cut to `userMe…`): a less important column is
// hidden instead. A label no longer than its minimum is never cut.
const MIN_WIDTH: Record<ColumnKind, number> = { id: ID_PREFIX, name: 0, date: 0, label: 20, text: 20 };

/** A column for a key named by `--fields`, its kind guessed from the name. */
export function columnFor(key: string): Column {
  const last = key.slice(key.lastIndexOf('.') + 1);
  if (/(^d|D)ate$/.test(last)) return { key, kind: 'date' };
  if (/(^|[a-z])(id|Id)$/.test(last)) return { key, kind: 'id' };
  return { key, kind: 'text' };
}

// Most cells are printable ASCII: one native regex test spares them the per-character loops.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const width = (s: string) => (PRINTABLE_ASCII.test(s) ? s.length : displayWidth(s));
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Text with no control character (most, accents and arrows too) needs no sanitising.
const oneLine = (s: string) => (CONTROL.test(s) ? sanitize(s) : s);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** A cell's text: one line, no control characters (data never moves the cursor), dates in the zone. */
export function cellText(column: Column, value: unknown, zone: Zone): string {
  if (column.cell) return oneLine(column.cell(value));
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return column.kind === 'date' && ISO_INSTANT.test(value) ? formatInstant(value, zone) : oneLine(value);
  if (value instanceof Date) return formatInstant(value.toISOString(), zone);
  if (typeof value === 'object') return oneLine(JSON.stringify(value));
  return String(value);
}

/** A random (version 4) UUID: the only ids shown as a prefix. */
const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const isRandomUuid = (s: string) => s.length === 36 && RANDOM_UUID.test(s);

/**
 * The shortest prefix length, at least `min`, that tells the values apart (all of a value when
 * no prefix does).
 */
export function uniquePrefixLength(values: Iterable<string>, min = ID_PREFIX): number {
  const distinct = [...new Set(values)];
  const longest = distinct.reduce((m, v) => Math.max(m, v.length), 0);
  for (let n = min; n < longest; n++) {
    if (new Set(distinct.map((v) => v.slice(0, n))).size === distinct.length) return n;
  }
  return Math.max(longest, 0);
}

export interface Layout {
  /** Indices of the columns shown, in display order. */
  shown: number[];
  /** Width of each column (by index); cells are cut or padded to it. */
  widths: number[];
  /** Prefix length of each shortened id column (by index): its random UUIDs are cut to it. */
  prefix: (number | undefined)[];
  /** The kind of each column (by index): ids and dates are never cut, a wider one makes its row give way. */
  kinds: ColumnKind[];
  /** Headings of the hidden columns. */
  hidden: string[];
  /** Whether cells are cut to their width (on a terminal); off it, longer cells overflow. */
  cut: boolean;
  /** Columns (by index) of which a cell was cut, so far: the note names them. */
  cutColumns: Set<number>;
}

const heading = (c: Column) => c.header ?? c.key;

/**
 * Widths for the columns from sampled cell texts. `total`: the terminal's width (undefined: not
 * a terminal, nothing is cut or hidden). Lines come out at most `total - 1` wide: a terminal
 * that wraps at its last column gets no blank line.
 */
export function planLayout(view: ListView, sample: string[][], total: number | undefined, wide = false): Layout {
  const cols = view.columns;
  const natural = cols.map((c, i) => sample.reduce((m, row) => Math.max(m, width(row[i] ?? '')), width(heading(c))));
  const all = cols.map((_, i) => i);
  const prefix: (number | undefined)[] = cols.map(() => undefined);
  const kinds = cols.map((c) => c.kind);
  const lineWidth = (ws: number[], shown: number[]) => shown.reduce((sum, i) => sum + ws[i]!, 0) + GAP * (shown.length - 1);
  // -o wide: every cell whole, the line as wide as it takes.
  if (total === undefined || wide) return { shown: all, widths: natural, prefix, kinds, hidden: [], cut: false, cutColumns: new Set() };
  const avail = total - 1;
  if (lineWidth(natural, all) <= avail) return { shown: all, widths: withHeadroom(cols, natural, all, prefix, avail), prefix, kinds, hidden: [], cut: true, cutColumns: new Set() };

  const full = natural.slice();
  cols.forEach((c, i) => {
    if (c.kind !== 'id') return;
    const ids = sample.map((row) => row[i] ?? '').filter((v) => v !== '');
    // A column of other ids keeps them whole (and its width: the longest sampled).
    if (!ids.every(isRandomUuid)) return;
    const n = uniquePrefixLength(ids);
    if (n >= natural[i]!) return;
    prefix[i] = n;
    full[i] = Math.max(n, width(heading(c)));
  });
  const min = cols.map((c, i) => (isWhole(c.kind) ? full[i]! : Math.min(full[i]!, Math.max(MIN_WIDTH[c.kind], width(heading(c))))));
  // Most important first: the priority list, then any column it leaves out, in display order.
  const byKey = new Map(cols.map((c, i) => [c.key, i]));
  const ranked = [...new Set([...(view.priority ?? []).map((k) => byKey.get(k)).filter((i): i is number => i !== undefined), ...all])];
  // The most important columns that fit, in order of importance: a narrow column (an id prefix)
  // still shows when a wider one ranked above it (a whole id, a comment) does not fit.
  const shown = new Set<number>();
  for (const i of ranked) if (shown.size === 0 || lineWidth(min, [...shown, i]) <= avail) shown.add(i);
  const order = all.filter((i) => shown.has(i));
  const widths = min.slice();
  let extra = avail - lineWidth(min, order);
  // Names, roles and types take their full width first, in order of importance; free text
  // shares what is left, each at most its own width, the narrow ones served first.
  for (const i of ranked) {
    if (!shown.has(i) || cols[i]!.kind === 'text' || extra <= 0) continue;
    const room = cols[i]!.kind === 'id' && prefix[i] === undefined ? ID_HEADROOM : 0;
    const add = Math.min(extra, full[i]! + room - widths[i]!);
    widths[i]! += add;
    extra -= add;
  }
  const texts = order.filter((i) => cols[i]!.kind === 'text').sort((a, b) => full[a]! - full[b]!);
  texts.forEach((i, k) => {
    if (extra <= 0) return;
    const add = Math.min(full[i]! - widths[i]!, Math.floor(extra / (texts.length - k)));
    widths[i]! += add;
    extra -= add;
  });
  const hidden = all.filter((i) => !shown.has(i)).map((i) => heading(cols[i]!));
  return { shown: order, widths: withHeadroom(cols, widths, order, prefix, avail), prefix, kinds, hidden, cut: true, cutColumns: new Set() };
}

/**
 * Room for the rows after the sample, out of what the line leaves free: a later `row 2999` after
 * a sample of `row 0`…`row 199` is not cut while the terminal has space for it. Free text, then
 * whole ids, then names get up to half their width again; the last column (never padded) all that
 * is left.
 */
function withHeadroom(cols: Column[], widths: number[], shown: number[], prefix: (number | undefined)[], avail: number): number[] {
  const out = widths.slice();
  let slack = avail - (shown.reduce((sum, i) => sum + out[i]!, 0) + GAP * (shown.length - 1));
  const last = shown[shown.length - 1]!;
  const order: ColumnKind[] = ['text', 'id', 'name', 'label'];
  for (const i of [...shown].sort((a, b) => order.indexOf(cols[a]!.kind) - order.indexOf(cols[b]!.kind))) {
    if (i === last || cols[i]!.kind === 'date' || prefix[i] !== undefined || slack <= 0) continue;
    const add = Math.min(slack, Math.max(4, Math.ceil(out[i]! / 2)));
    out[i]! += add;
    slack -= add;
  }
  if (slack > 0) out[last]! += slack;
  return out;
}

// renderLine's cells, their widths and whether each is printable ASCII, kept from line to line
// (a million rows made three arrays each): a line is rendered at a time.
const lineCells: string[] = [];
const lineWidths: number[] = [];
const lineAscii: boolean[] = [];
const SPACES = ' '.repeat(256);
const spaces = (n: number) => (n <= SPACES.length ? SPACES.slice(0, n) : ' '.repeat(n));

/** One line of the table from the texts of all the columns; `style` marks headings (which keep whole). */
function renderLine(layout: Layout, texts: string[], style?: (s: string) => string): string {
  const { shown, widths, kinds, cut } = layout;
  const n = shown.length;
  let excess = 0;
  // Each cell measured once (one native test of most, which are printable ASCII).
  for (let k = 0; k < n; k++) {
    const i = shown[k]!;
    let s = texts[i] ?? '';
    const p = style ? undefined : layout.prefix[i];
    if (p !== undefined && s.length > p && isRandomUuid(s)) s = s.slice(0, p);
    const ascii = PRINTABLE_ASCII.test(s);
    const sw = ascii ? s.length : displayWidth(s);
    if (cut && sw > widths[i]! && (style || isWhole(kinds[i]!))) excess += sw - widths[i]!;
    lineCells[k] = s;
    lineWidths[k] = sw;
    lineAscii[k] = ascii;
  }
  const given = excess > 0 ? giveWay(layout, lineWidths, excess, style !== undefined) : undefined;
  let line = '';
  for (let k = 0; k < n; k++) {
    const i = shown[k]!;
    let s = lineCells[k]!;
    let sw = lineWidths[k]!;
    const w = given ? given[k]! : widths[i]!;
    if (cut && sw > w && !style && !isWhole(kinds[i]!)) {
      s = lineAscii[k] ? `${s.slice(0, w - 1)}…` : truncate(s, w);
      sw = lineAscii[k] ? w : displayWidth(s);
      layout.cutColumns.add(i);
    }
    line += style ? style(s) : s;
    if (k !== n - 1) line += spaces(Math.max(0, w - sw) + GAP);
  }
  return line.trimEnd();
}

/** Ids, names and dates are never cut. */
const isWhole = (kind: ColumnKind) => kind === 'id' || kind === 'name' || kind === 'date';
// Cut cells keep one character and `…`.
const CUT_MIN = 2;

/**
 * The widths (by position in the line) of a row whose whole cells (ids, dates, headings) are
 * `excess` wider than their columns: they get their width, and the row takes it back from the
 * other cells, nearest first (after the first wide cell, then before it), so that the rest of the
 * line is back in its columns soon: free text and unused room first, labels last.
 */
function giveWay(layout: Layout, cellWidths: number[], excess: number, headings: boolean): number[] {
  const { shown, kinds } = layout;
  const n = shown.length;
  const widths = new Array<number>(n);
  let first = -1;
  for (let k = 0; k < n; k++) {
    const w = layout.widths[shown[k]!]!;
    const whole = headings || isWhole(kinds[shown[k]!]!);
    widths[k] = whole && cellWidths[k]! > w ? cellWidths[k]! : w;
    if (first < 0 && whole && cellWidths[k]! > w) first = k;
  }
  // The nearest cells first: after the first wide one, then before it, going away from it.
  // Free text gives down to its minimum, any other cell its unused room (a cell narrower than
  // its column); then labels down to theirs.
  for (let pass = 0; pass < 2 && excess > 0; pass++) {
    for (let step = 1; step < n && excess > 0; step++) {
      const k = first + step < n ? first + step : n - 1 - step;
      if (k < 0) break;
      const kind = kinds[shown[k]!]!;
      const cuttable = !headings && !isWhole(kind);
      if (pass === 1 && !cuttable) continue;
      const floor = pass === 1 || (cuttable && kind === 'text') ? CUT_MIN : Math.min(cellWidths[k]!, widths[k]!);
      const got = Math.max(0, Math.min(excess, widths[k]! - floor));
      widths[k]! -= got;
      excess -= got;
    }
  }
  return widths;
}

export interface TableWriterOptions {
  zone: Zone;
  /** The terminal's width; undefined when the table is not going to a terminal. */
  width?: number;
  /** Ids whole and no column hidden (-o wide, or columns chosen by --fields). */
  wide?: boolean;
  /** Bold headings. */
  color?: boolean;
  sampleRows?: number;
  sampleMs?: number;
  now?: () => number;
}

export interface TableWriter {
  /**
   * Text to print for one more record, given as its values of the view's columns, in order:
   * nothing while the sample fills, then the header and the sample, then its line.
   */
  add(values: readonly unknown[]): string;
  /** Lays out now whatever was sampled (a slow source should not keep the first rows back); answers the text to print. */
  flush(): string;
  /** The note for under the table (the zone, shortened ids and how far their prefixes are unique, hidden columns), wrapped to the terminal; empty when there is nothing to say. */
  note(): string;
}

export function tableWriter(view: ListView, opts: TableWriterOptions): TableWriter {
  const cols = view.columns;
  const sampleRows = opts.sampleRows ?? SAMPLE_ROWS;
  const sampleMs = opts.sampleMs ?? SAMPLE_MS;
  const now = opts.now ?? Date.now;
  let sample: string[][] | undefined = [];
  let started: number | undefined;
  let layout: Layout | undefined;
  // Rows in the sample, and after it (the prefixes were checked against the sample only).
  let sampled = 0;
  let later = 0;
  const texts = (values: readonly unknown[]) => cols.map((c, i) => cellText(c, values[i], opts.zone));
  const line = (t: string[]) => `${renderLine(layout!, t)}\n`;

  const flush = (): string => {
    if (!sample || sample.length === 0) return '';
    layout = planLayout(view, sample, opts.width, opts.wide);
    const paint = opts.color ? stdoutPaint() : undefined;
    const bold = paint ? (s: string) => paint.bold(s) : (s: string) => s;
    let text = `${renderLine(layout, cols.map(heading), bold)}\n`;
    for (const t of sample) text += line(t);
    sampled = sample.length;
    sample = undefined;
    return text;
  };

  return {
    add(values) {
      if (!sample) {
        later++;
        return line(texts(values));
      }
      started ??= now();
      sample.push(texts(values));
      return sample.length >= sampleRows || now() - started >= sampleMs ? flush() : '';
    },
    flush,
    note() {
      if (!layout) return '';
      const parts: string[] = [];
      if (layout.shown.some((i) => cols[i]!.kind === 'date')) parts.push(zoneNote(opts.zone));
      // What was done to fit: ids shortened, then each column cut or hidden, named.
      const done: string[] = [];
      if (layout.prefix.some((p, i) => p !== undefined && layout!.shown.includes(i))) {
        // Unique as far as they were checked: the whole list, or only its first rows.
        done.push(`Ids shortened to ${later === 0 ? 'unique prefixes' : `prefixes unique among the first ${sampled} rows`}`);
      }
      const cut = layout.shown.filter((i) => layout!.cutColumns.has(i)).map((i) => heading(cols[i]!));
      const fitted = [...(cut.length ? [`${cut.join(', ')} cut`] : []), ...(layout.hidden.length ? [`${layout.hidden.join(', ')} hidden`] : [])];
      if (fitted.length > 0) done.push(`To fit ${opts.width} columns, ${fitted.join(' and ')}`);
      if (done.length > 0) parts.push(`${done.join('. ')}. -o wide shows them whole.`);
      // Wrapped to the terminal, as the table is; `-o wide` kept on one line (a no-break space while wrapping).
      const text = parts.join(' ');
      return opts.width === undefined ? text : wrap(text.replaceAll('-o wide', '-o\u00a0wide'), opts.width - 1).join('\n').replaceAll('\u00a0', ' ');
    },
  };
}
