// Colour is decided once a run, here: chalk itself ignores NO_COLOR, so each stream gets a chalk
// of the level decided here, or none. chalk is loaded only when a stream is to be coloured: its
// import asks the terminal (node:tty) and builds every style, some 2 ms of a start that a JSON
// answer into a pipe (what a script runs) never needs.
import type { ChalkInstance, ColorSupportLevel } from 'chalk';

type Env = NodeJS.ProcessEnv;

/** Each stream's chalk while it is coloured. */
let stdoutChalk: ChalkInstance | undefined;
let stderrChalk: ChalkInstance | undefined;

function forcedLevel(env: Env): ColorSupportLevel | undefined {
  const v = env.FORCE_COLOR;
  if (v === undefined) return undefined;
  if (v === '0' || v === 'false') return 0;
  if (v === '2' || v === '3') return Number(v) as ColorSupportLevel;
  return 1; // '', '1', 'true' and anything else: basic colours
}

function decide(
  tty: boolean,
  detected: ColorSupportLevel | undefined,
  opts: { noColor?: boolean },
  env: Env,
): ColorSupportLevel {
  if (opts.noColor) return 0;
  if (env.NO_COLOR) return 0;
  const forced = forcedLevel(env);
  if (forced !== undefined) return forced;
  if (env.TERM === 'dumb') return 0;
  if (!tty) return 0;
  return detected && detected > 0 ? detected : 1;
}

/**
 * Decides colour for stdout and stderr (core/output.ts, once a run, before anything is printed).
 * Off with `--no-color`, NO_COLOR (non-empty), TERM=dumb, or when the stream is not a TTY;
 * FORCE_COLOR (not 0) forces it on, CHATFLOW_FORCE_TTY=1 counts the streams as TTYs. Until it
 * has run, nothing is coloured.
 */
export async function setupColor(opts: { noColor?: boolean } = {}, env: Env = process.env): Promise<void> {
  const forceTty = env.CHATFLOW_FORCE_TTY === '1';
  const outTty = forceTty || process.stdout.isTTY === true;
  const errTty = forceTty || process.stderr.isTTY === true;
  stdoutChalk = stderrChalk = undefined;
  // (1 stands for whatever the terminal supports: off whatever it is, there is nothing to load.)
  if (decide(outTty, 1, opts, env) === 0 && decide(errTty, 1, opts, env) === 0) return;
  const { Chalk, supportsColor, supportsColorStderr } = await import('chalk');
  const outLevel = decide(outTty, supportsColor ? supportsColor.level : 0, opts, env);
  const errLevel = decide(errTty, supportsColorStderr ? supportsColorStderr.level : 0, opts, env);
  if (outLevel > 0) stdoutChalk = new Chalk({ level: outLevel });
  if (errLevel > 0) stderrChalk = new Chalk({ level: errLevel });
}

/** stdout's chalk when stdout is coloured, else none. */
export function stdoutPaint(): ChalkInstance | undefined {
  return stdoutChalk;
}

/** stderr's chalk when stderr is coloured, else none. */
export function stderrPaint(): ChalkInstance | undefined {
  return stderrChalk;
}

/** Whether stdout output is coloured. */
export function stdoutColor(): boolean {
  return stdoutChalk !== undefined;
}

/** Whether stderr output is coloured. */
export function stderrColor(): boolean {
  return stderrChalk !== undefined;
}

/** stdout is a terminal, or CHATFLOW_FORCE_TTY=1 says to act as if (tests through pipes). */
export function isStdoutTty(env: Env = process.env): boolean {
  return env.CHATFLOW_FORCE_TTY === '1' || process.stdout.isTTY === true;
}

/** Terminal width: process.stdout.columns, else COLUMNS, else 100. */
export function stdoutColumns(env: Env = process.env): number {
  const cols = process.stdout.columns;
  if (typeof cols === 'number' && cols > 0) return cols;
  const fromEnv = Number.parseInt(env.COLUMNS ?? '', 10);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}
