// Runs the built CLI in a pseudo-terminal of a given size, as a person at a terminal would:
// util-linux `script` gives it a real TTY on stdin, stdout and stderr (so the pager, widths and
// Ctrl-C behave as they do for a user), and keys are typed into it when the screen shows a pattern.
import { execa } from 'execa';
import { BIN, cliEnv, type CliOptions } from './cli.js';

export interface PtyOptions extends Omit<CliOptions, 'input' | 'tty'> {
  columns: number;
  rows?: number;
  /** Keys typed once the output so far matches `when` (in order), `delayMs` later: `q`, `\x03` for Ctrl-C. */
  keys?: { when: RegExp; text: string; delayMs?: number }[];
}

export interface PtyResult {
  exitCode: number;
  /** Everything the terminal showed (stdout and stderr together), line ends as `\n`. */
  screen: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `node bin/chatflow.js ...args` in a terminal of `columns` × `rows`, to its end. */
export async function runInPty(args: string[], opts: PtyOptions): Promise<PtyResult> {
  const command = `stty cols ${opts.columns} rows ${opts.rows ?? 40}; exec ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const env = cliEnv(opts);
  env.TERM ??= 'xterm-256color';
  const child = execa('script', ['-qec', command, '/dev/null'], {
    reject: false,
    extendEnv: false,
    env,
    stdin: 'pipe',
    stripFinalNewline: false,
    timeout: opts.timeout ?? 30_000,
  });
  const keys = [...(opts.keys ?? [])];
  let seen = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    while (keys.length > 0 && keys[0]!.when.test(seen)) {
      const key = keys.shift()!;
      setTimeout(() => child.stdin!.write(key.text), key.delayMs ?? 0);
    }
  });
  const result = await child;
  if (result.timedOut) throw new Error(`chatflow ${args.join(' ')} did not finish in a terminal in time:\n${seen}`);
  child.stdin!.destroy();
  return { exitCode: result.exitCode ?? -1, screen: String(result.stdout).replace(/\r\n/g, '\n') };
}
