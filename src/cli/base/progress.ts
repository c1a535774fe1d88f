// Progress of long work (export, import) on stderr, never on stdout. On a terminal (stderr is a
// TTY, or CHATFLOW_FORCE_TTY=1) a one-line bar redrawn at most ten times a second; elsewhere
// nothing, unless `--progress` asks for it, and then a plain line every few seconds.

/** What a progress reporter writes to: process.stderr, or any stream in tests. */
export interface ProgressOut {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** Word before the bar: `export`, `import`. */
  label: string;
  /** Plural noun of what is counted: `records`. */
  unit: string;
  /** `--progress` (true), `--no-progress` (false), or neither (undefined: only on a terminal). */
  flag?: boolean;
  out?: ProgressOut;
  env?: NodeJS.ProcessEnv;
}

export interface Progress {
  /** Adds to the count; `fraction` (0..1), when known, drives the bar and the ETA. */
  add(n: number, fraction?: number): void;
  /** The expected count, when it becomes known (an ETA from counts). */
  setTotal(total: number | undefined): void;
  /** Runs `print` (which writes to stderr) with the bar out of the way. */
  interrupt(print: () => void): void;
  /** Removes the bar (a terminal) or writes the last line (`--progress` elsewhere). */
  done(): void;
}

const TTY_INTERVAL_MS = 100;
const PLAIN_INTERVAL_MS = 2000;
/**
 * A rate and an ETA from less work than this are noise: the first draw, a record in, said
 * `8/s  ETA 7:11:10` of an export that took a second. Until then (or the end) they read `--`.
 */
const SETTLED_SECONDS = 0.5;

const NO_PROGRESS: Progress = { add() {}, setTotal() {}, interrupt: (print) => print(), done() {} };

/** Whether progress is shown: the flag when given, else whether stderr is a terminal. */
export function progressWanted(flag: boolean | undefined, out: ProgressOut = process.stderr, env = process.env): boolean {
  if (flag !== undefined) return flag;
  return env.CHATFLOW_FORCE_TTY === '1' || out.isTTY === true;
}

const group = (n: number) => Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (x: number) => String(x).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

export function createProgress(opts: ProgressOptions): Progress {
  const out = opts.out ?? process.stderr;
  const env = opts.env ?? process.env;
  if (!progressWanted(opts.flag, out, env)) return NO_PROGRESS;
  const tty = env.CHATFLOW_FORCE_TTY === '1' || out.isTTY === true;
  const started = performance.now();
  let count = 0;
  let total: number | undefined;
  let fraction: number | undefined;
  let lastDraw = -Infinity;
  let shown = false;
  let finished = false;

  const columns = () => (out.columns && out.columns > 0 ? out.columns : Number(env.COLUMNS) || 80);
  const text = (): string => {
    const secs = (performance.now() - started) / 1000;
    const f = fraction ?? (total ? Math.min(1, count / total) : undefined);
    // (Work that is done has its true rate, however short it was.)
    const settled = secs >= SETTLED_SECONDS || (finished && secs > 0);
    // Fixed widths, so that the line does not jitter as the numbers grow.
    const counted = total !== undefined ? `${group(count).padStart(group(total).length)}/${group(total)}` : group(count).padStart(11);
    const eta = f !== undefined && f > 0 ? `ETA ${settled ? duration((secs * (1 - f)) / f) : '--:--'}` : duration(secs);
    const rate = settled ? group(count / secs) : '--';
    const tail = `${counted} ${opts.unit}  ${`${rate}/s`.padStart(10)}  ${eta.padEnd(11)}`;
    if (f === undefined) return `${opts.label}  ${tail}`.trimEnd();
    const pct = `${Math.floor(f * 100)}%`.padStart(4);
    if (!tty) return `${opts.label} ${pct}  ${tail}`.trimEnd();
    const width = Math.min(30, columns() - opts.label.length - pct.length - tail.length - 6);
    if (width < 10) return `${opts.label} ${pct}  ${tail}`.trimEnd();
    const full = Math.round(f * width);
    return `${opts.label} [${'█'.repeat(full)}${'░'.repeat(width - full)}] ${pct}  ${tail}`;
  };
  const clear = () => {
    if (tty && shown) out.write('\r\x1b[K');
    shown = false;
  };
  const draw = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastDraw < (tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    lastDraw = now;
    if (tty) {
      out.write(`\r${text().slice(0, columns() - 1).trimEnd()}\x1b[K`);
      shown = true;
    } else {
      out.write(`${text()}\n`);
    }
  };

  return {
    add(n, f) {
      count += n;
      if (f !== undefined) fraction = f;
      draw(false);
    },
    setTotal(t) {
      total = t;
    },
    interrupt(print) {
      clear();
      print();
      if (tty) lastDraw = -Infinity;
    },
    done() {
      finished = true;
      if (tty) clear();
      else draw(true);
    },
  };
}
