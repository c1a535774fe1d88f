// Interactive prompts (on stderr, so `-o json > file` still works), loaded only when one is shown.
import { EXIT, UsageError, UserError } from './errors.js';

/** Ctrl-C (or Esc-abort) in a prompt: the top level exits 130 without a message. */
export class Interrupted extends UserError {
  override name = 'Interrupted';
  constructor(message = 'interrupted') {
    super(message, EXIT.interrupted);
  }
}

let inputAllowed = true;

/** Records `--no-input` once (the top level), so callers need not pass it around. */
export function setPromptDefaults(opts: { input?: boolean }): void {
  if (opts.input !== undefined) inputAllowed = opts.input;
}

function ciSet(env: NodeJS.ProcessEnv): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** True only when stdin and stderr are terminals, `--no-input` was not given and CI is unset. */
export function canPrompt(opts: { input?: boolean } = {}, env: NodeJS.ProcessEnv = process.env): boolean {
  if ((opts.input ?? inputAllowed) === false) return false;
  if (ciSet(env)) return false;
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

const context = () => ({ input: process.stdin, output: process.stderr });

async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const name = (err as { name?: unknown } | null)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new Interrupted();
    throw err;
  }
}

export async function askText(
  message: string,
  opts: { default?: string; validate?: (value: string) => boolean | string | Promise<boolean | string> } = {},
): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const config: Parameters<typeof input>[0] = { message };
  if (opts.default !== undefined) config.default = opts.default;
  if (opts.validate) config.validate = opts.validate;
  return run(() => input(config, context()));
}

/** A masked prompt for a secret (API key): the answer is never echoed. */
export async function askSecret(message: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  return run(() =>
    password({ message, mask: '*', validate: (v: string) => (v.trim() ? true : 'a value is required') }, context()),
  );
}

export async function confirm(message: string, defaultValue = false): Promise<boolean> {
  const prompts = await import('@inquirer/prompts');
  return run(() => prompts.confirm({ message, default: defaultValue }, context()));
}

export type Choice<T> = { name: string; value: T; description?: string };

export async function select<T = string>(message: string, choices: ReadonlyArray<Choice<T> | string>): Promise<T> {
  const prompts = await import('@inquirer/prompts');
  const list = choices.map((c) => (typeof c === 'string' ? { name: c, value: c as T } : c));
  return run(() => prompts.select<T>({ message, choices: list }, context()));
}

/**
 * A required value: `value` when given; else asked with `prompt` when a prompt is possible;
 * else a usage error: `missing --name: pass it, or run in a terminal to be asked`.
 */
export async function requireValue(
  name: string,
  value: string | undefined | null,
  opts: { prompt: () => Promise<string>; flag?: string; input?: boolean },
): Promise<string> {
  if (value !== undefined && value !== null && value !== '') return value;
  const flag = opts.flag ?? `--${name}`;
  if (!canPrompt(opts.input === undefined ? {} : { input: opts.input })) {
    throw new UsageError(`missing ${flag}: pass it, or run in a terminal to be asked`);
  }
  return opts.prompt();
}
