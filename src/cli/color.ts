// Colour is decided once, here: chalk itself ignores NO_COLOR, so its levels are set explicitly.
import chalk, { chalkStderr, supportsColor, supportsColorStderr, type ColorSupportLevel } from 'chalk';

type Env = NodeJS.ProcessEnv;

let configured = false;

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
 * Decides colour for stdout and stderr and sets `chalk.level` / `chalkStderr.level`.
 * Off with `--no-color`, NO_COLOR (non-empty), TERM=dumb, or when the stream is not a TTY;
 * FORCE_COLOR (not 0) forces it on, CHATFLOW_FORCE_TTY=1 counts the streams as TTYs.
 */
export function setupColor(opts: { noColor?: boolean } = {}, env: Env = process.env): void {
  const forceTty = env.CHATFLOW_FORCE_TTY === '1';
  const outLevel = decide(forceTty || process.stdout.isTTY === true, supportsColor ? supportsColor.level : 0, opts, env);
  const errLevel = decide(
    forceTty || process.stderr.isTTY === true,
    supportsColorStderr ? supportsColorStderr.level : 0,
    opts,
    env,
  );
  chalk.level = outLevel;
  chalkStderr.level = errLevel;
  configured = true;
}

/** Runs `setupColor({})` unless it already ran: so output is never coloured against NO_COLOR. */
export function ensureColor(): void {
  if (!configured) setupColor({});
}

/** Whether stdout output is coloured (after `setupColor`). */
export function stdoutColor(): boolean {
  ensureColor();
  return chalk.level > 0;
}

/** Whether stderr output is coloured (after `setupColor`). */
export function stderrColor(): boolean {
  ensureColor();
  return chalkStderr.level > 0;
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
