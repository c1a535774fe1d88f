// One Output per run: it decides the format once (flag, else the profile's default, else table
// on a terminal and json when piped), and owns stdout (records, raw text) and stderr (notes,
// warnings, the error line). Commands print only through it.
import type { ChalkInstance } from 'chalk';
import { setupColor, stderrColor, stderrPaint, stdoutColumns, stdoutColor, stdoutPaint } from '../base/color.js';
import { timeZone, type Zone } from '../base/dates.js';
import type { ListView } from '../render/list-table.js';
import { sanitize } from '../render/text.js';
import { put, resolveFormat, writeRecords, type Format, type ListSource, type Out, type Rec, type RecordSource } from '../render/records.js';
import type { FlagValues } from './flag-def.js';
import type { GENERAL, OUTPUT } from './flags.js';
import { EXIT, exitCodeOf, lineOf, type ErrorWords } from '../base/errors.js';
import { canPage, openPager, pagerCommand } from '../base/pager.js';

/** What an Output is opened from: the output and general flags (`color`, `pager`: false when --no-… is given). */
export type OutputFlags = FlagValues<typeof OUTPUT> & FlagValues<typeof GENERAL>;

export interface PrintOptions {
  /** Another format than the run's (tail prints ndjson for json when following). */
  format?: Format;
  columns?: ListView | string[];
  single?: boolean;
  idField?: string;
}

/**
 * Reports an error on `errOut`: `chatflow: <message>` (red with colour), or with a json format
 * `{"error":{"message":...,"exitCode":N}}`; the stack only with `debug`. Ctrl-C in a prompt prints
 * nothing. Returns the exit code for the error.
 */
export function printError(
  err: unknown,
  opts: { format?: Format; debug?: boolean; words?: ErrorWords } = {},
  errOut: NodeJS.WritableStream = process.stderr,
): number {
  const exitCode = exitCodeOf(err);
  if (exitCode === EXIT.interrupted) return exitCode;
  // A message may quote a server's text: made safe as every printed text is (render/text.ts).
  const message = sanitize(lineOf(err, opts.words), true).trim() || 'unknown error';
  const stack = opts.debug && err instanceof Error && err.stack ? err.stack : undefined;
  if (opts.format === 'json' || opts.format === 'ndjson') {
    const body: { message: string; exitCode: number; stack?: string } = { message, exitCode };
    if (stack) body.stack = stack;
    errOut.write(`${JSON.stringify({ error: body })}\n`);
    return exitCode;
  }
  const paint = stderrPaint();
  const line = `chatflow: ${message}`;
  errOut.write(`${paint ? paint.red(line) : line}\n`);
  if (stack) {
    let text = stack;
    let cause = (err as Error).cause;
    for (let i = 0; cause instanceof Error && i < 5; i++, cause = cause.cause) text += `\nCaused by: ${cause.stack ?? cause.message}`;
    errOut.write(`${paint ? paint.dim(text) : text}\n`);
  }
  return exitCode;
}

export class Output {
  /** The format records are printed in (`-o wide` is `table`, with `wide` set). */
  readonly format: Exclude<Format, 'wide'>;
  /** `-o wide`: tables keep ids whole and hide no column. */
  readonly wide: boolean;
  /** The format asked for (flag or profile), not guessed from the terminal: errors follow it. */
  readonly chosen: Format | undefined;
  readonly debug: boolean;
  private readonly fields: string[] | undefined;
  private readonly quiet: boolean;
  private readonly pager: boolean;
  private readonly utc: boolean;
  private localZone: Zone | undefined;

  /** The run's Output, colour decided first (so that even its errors are coloured as they should be). */
  static async open(flags: OutputFlags, profileDefault?: string): Promise<Output> {
    await setupColor({ noColor: flags.color === false });
    return new Output(flags, profileDefault);
  }

  readonly stdout: Out = process.stdout;
  readonly stderr: NodeJS.WritableStream = process.stderr;

  private constructor(flags: OutputFlags, profileDefault?: string) {
    this.debug = flags.debug === true;
    this.fields = flags.fields?.split(',').map((f) => f.trim()).filter(Boolean);
    this.quiet = flags.quiet === true;
    const explicit = flags.output || flags.json ? flags : profileDefault ? { output: profileDefault } : undefined;
    // A bad -o value is a usage error; a bad profile default must not make errors unreadable.
    this.chosen = explicit ? resolveFormat(explicit) : undefined;
    const format = this.chosen ?? resolveFormat({});
    this.wide = format === 'wide';
    this.format = format === 'wide' ? 'table' : format;
    this.utc = flags.utc === true;
    this.pager = flags.pager !== false;
  }

  /**
   * The one zone of the run: tables print dates in it, date filters are read in it. Asked of Intl
   * when first needed (its time zone data costs a start ~30 ms: JSON output never needs it).
   */
  get zone(): Zone {
    return (this.localZone ??= timeZone({ utc: this.utc }));
  }

  /** Whether stdout / stderr are coloured. */
  get color(): boolean {
    return stdoutColor();
  }

  /** stdout's chalk while stdout is coloured. */
  get paint(): ChalkInstance | undefined {
    return stdoutPaint();
  }

  get stderrColor(): boolean {
    return stderrColor();
  }

  /** The terminal's width, for drawn views. */
  get columns(): number {
    return stdoutColumns();
  }

  /** Writes records (or one record) in the format; answers how many. */
  print(records: ListSource | object, opts: PrintOptions = {}, out: Out = this.stdout, extra: { signal?: AbortSignal; onNote?: (note: string) => void } = {}): Promise<number> {
    const format = opts.format ?? (this.wide ? 'wide' : this.format);
    // Only tables print dates in the zone.
    const zone = format === 'table' || format === 'wide' ? { zone: this.zone } : {};
    return writeRecords(records as RecordSource | Rec, { format, fields: this.fields, quiet: this.quiet, ...zone, ...opts, ...extra }, out);
  }

  /**
   * A list: the records (through a pager when they are more than a screenful on a terminal), then
   * the table's note (the zone, what was shortened) or `No <things> found.` on stderr.
   */
  async printList(records: ListSource, what: string, columns?: ListView | string[]): Promise<number> {
    let note = '';
    const onNote = (text: string) => (note = text);
    const command = this.pagerCommand();
    let n: number;
    if (!command) n = await this.print(records, { columns }, this.stdout, { onNote });
    else {
      const pager = await openPager({ command, onError: (m) => this.warn(m) });
      try {
        n = await this.print(records, { columns }, pager, { signal: pager.signal, onNote });
      } finally {
        // The pager shows the rest and exits when the reader quits it (`q`).
        await new Promise<void>((resolve) => pager.end(resolve));
      }
      // The reader quit (`q`, Ctrl-C): what they saw was the output; nothing more to say.
      if (pager.signal.aborted) return n;
    }
    if (n === 0) this.note(`No ${what} found.`);
    else if (note) this.note(note);
    return n;
  }

  /**
   * Whether a list would be printed as the JSON text of each record, a line each, as it comes
   * (ndjson, no --fields, not --quiet, no pager): a list command may then hand over the server's
   * texts (printJsonLines) instead of records to serialise again.
   */
  get copiesJsonLines(): boolean {
    return this.format === 'ndjson' && !this.fields && !this.quiet && !(this.stdout === process.stdout && canPage(process.stdout));
  }

  /** A list given as its records' JSON lines, as bytes (see copiesJsonLines), then `No <things> found.` if empty. */
  async printJsonLines(chunks: AsyncIterable<{ bytes: Uint8Array; count: number }>, what: string): Promise<number> {
    let n = 0;
    for await (const { bytes, count } of chunks) {
      if (count > 0) await put(this.stdout, bytes);
      n += count;
    }
    if (n === 0) this.note(`No ${what} found.`);
    return n;
  }

  /** The pager to run for this run's stdout: only on a real terminal, and not with --no-pager. */
  private pagerCommand(): string | undefined {
    return this.stdout === process.stdout && canPage(process.stdout) ? pagerCommand({ noPager: !this.pager }) : undefined;
  }

  /** A drawn view (stats' chart): through the pager when it is taller than the screen, as a list is. */
  async writePaged(text: string): Promise<void> {
    const command = this.pagerCommand();
    if (!command) return void this.stdout.write(text);
    const pager = await openPager({ command, onError: (m) => this.warn(m) });
    pager.write(text);
    await new Promise<void>((resolve) => pager.end(resolve));
  }

  /** Text as it is on stdout (a raw answer, a script, a drawn view). */
  write(text: string): void {
    this.stdout.write(text);
  }

  /** A note on stderr (dim with colour): progress, hints. */
  note(msg: string): void {
    const paint = stderrPaint();
    this.stderr.write(`${paint ? paint.dim(msg) : msg}\n`);
  }

  /** A warning on stderr (yellow with colour): `chatflow: warning: <msg>`. */
  warn(msg: string): void {
    const line = `chatflow: warning: ${msg}`;
    const paint = stderrPaint();
    this.stderr.write(`${paint ? paint.yellow(line) : line}\n`);
  }

  /** `--debug` lines (requests, the embedded service), on stderr. */
  readonly trace = (line: string): void => {
    if (this.debug) this.note(`debug: ${line}`);
  };

  /** The command that runs, for errors in its words (set by core/run.ts). */
  words: ErrorWords | undefined;

  /** The error, in the chosen format; answers its exit code. */
  error(err: unknown): number {
    return printError(err, { format: this.chosen, debug: this.debug, ...(this.words ? { words: this.words } : {}) }, this.stderr);
  }
}
