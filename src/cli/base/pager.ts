// A pager for output taller than the screen, as git and gh page theirs: `$CHATFLOW_PAGER`, then
// `$PAGER`, then `less -FRX`; empty or `cat` means none, and so does `--no-pager`. Used only when
// stdout is a terminal (never into a pipe or a file).
//
// The output is held back until it is a screenful: a shorter one goes straight to the terminal,
// whatever the pager, and a pager starts only for more. Quitting the pager early (`q`), or Ctrl-C
// while it runs, aborts `signal`: the producer stops (a list closes its server request) and the
// command ends as if its output were complete, exit 0. Ctrl-C leaves the pager showing what came,
// as git does, until `q`.
//
// node:child_process and node:stream are imported when a pager opens: a command's start loads
// neither (the CLI ships as one bundle, whose static imports all load at start).
import type { ChildProcess, spawn as Spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

const DEFAULT_PAGER = 'less -FRX';

/** The pager command to run, or undefined for none. */
export function pagerCommand(opts: { noPager?: boolean } = {}, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (opts.noPager) return undefined;
  const command = (env.CHATFLOW_PAGER ?? env.PAGER ?? DEFAULT_PAGER).trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/** Whether output to `out` may be paged: only a real terminal (not one forced for tests). */
export const canPage = (out: { isTTY?: boolean } = process.stdout) => out.isTTY === true;

// A command with none of these runs without a shell (as git does), so that the shell is not one
// more process between the terminal's Ctrl-C and the pager.
const SHELL_CHARS = /[|&;<>()$`\\"'*?[\]#~=%{}\n]/;

function startPager(spawn: typeof Spawn, command: string, env: NodeJS.ProcessEnv): ChildProcess {
  // git's defaults for less and lv, unless the user has their own.
  const childEnv = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
  const stdio: ['pipe', 'inherit', 'inherit'] = ['pipe', 'inherit', 'inherit'];
  if (SHELL_CHARS.test(command)) return spawn('/bin/sh', ['-c', command], { stdio, env: childEnv });
  const [file, ...args] = command.split(/\s+/);
  return spawn(file!, args, { stdio, env: childEnv });
}

export interface PagerOptions {
  command: string;
  /** Lines on the screen: more than this, and the pager starts. Default: the terminal's rows, else 24. */
  rows?: number;
  /** The terminal, where output goes when it is short or the pager cannot start. */
  out?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
  /** Told when the pager cannot start (the output then goes to `out`). */
  onError?: (message: string) => void;
}

/** The terminal's stand-in while output may be paged: a Writable, and what the pager reports. */
export type Pager = Writable & {
  /** Aborted when the reader is gone (the pager quit, or Ctrl-C while it ran): stop producing. */
  readonly signal: AbortSignal;
  /** Whether a pager took the output. */
  readonly paging: boolean;
  readonly isTTY: true;
  readonly columns: number | undefined;
};

/**
 * A Writable in front of the terminal: the first screenful is held, then either written to the
 * terminal (the output ended) or handed to a pager with the rest. `end()`'s callback runs once
 * the pager has exited. Writes after the pager quit are dropped.
 */
export async function openPager(opts: PagerOptions): Promise<Pager> {
  const [{ Writable: WritableBase }, { spawn }] = await Promise.all([import('node:stream'), import('node:child_process')]);
  return new (terminalPager(WritableBase, spawn))(opts);
}

function terminalPager(WritableBase: typeof Writable, spawn: typeof Spawn) {
  return class TerminalPager extends WritableBase {
    /** It stands for the terminal: tables are laid out for the terminal's width. */
    readonly isTTY = true;
    private readonly abort = new AbortController();
    /** Aborted when the reader is gone (the pager quit, or Ctrl-C while it ran): stop producing. */
    readonly signal: AbortSignal = this.abort.signal;
    private held: Buffer[] = [];
    private lines = 0;
    /** Where output goes once the first screenful is decided: the pager's input, or the terminal. */
    private target?: NodeJS.WritableStream;
    private child?: ChildProcess;
    private exited?: Promise<void>;
    private ending = false;
    private readonly rows: number;
    private readonly out: NodeJS.WritableStream;
    private readonly onSigint = () => this.stop();

    constructor(private readonly opts: PagerOptions) {
      super();
      this.out = opts.out ?? process.stdout;
      const rows = opts.rows ?? (process.stdout.rows || Number(process.env.LINES) || 24);
      this.rows = Math.max(1, rows);
    }

    get columns(): number | undefined {
      return process.stdout.columns;
    }

    /** Whether a pager took the output. */
    get paging(): boolean {
      return this.child !== undefined;
    }

    private stop(): void {
      if (!this.abort.signal.aborted) this.abort.abort();
      // The pager keeps what it has; its input ends, so that it says (END) and waits for `q`.
      this.child?.stdin?.end();
    }

    private writeTo(target: NodeJS.WritableStream, chunk: Buffer, cb: (err?: Error | null) => void): void {
      if (target.write(chunk)) return cb();
      const done = () => {
        target.removeListener('drain', done);
        target.removeListener('close', done);
        cb();
      };
      target.once('drain', done);
      target.once('close', done);
    }

    /** Starts the pager; answers where output goes: its input, or the terminal when it cannot start. */
    private begin(): Promise<NodeJS.WritableStream> {
      const failed = (reason: string) => {
        this.opts.onError?.(`cannot start the pager "${this.opts.command}" (${reason}); writing to the terminal`);
        return this.out;
      };
      let child: ChildProcess;
      try {
        child = startPager(spawn, this.opts.command, this.opts.env ?? process.env);
      } catch (err) {
        return Promise.resolve(failed((err as Error).message));
      }
      return new Promise((resolve) => {
        child.once('error', (err: NodeJS.ErrnoException) => resolve(failed(err.code ?? err.message)));
        child.once('spawn', () => {
          this.child = child;
          // A pager that quits closes its input: writes fail with EPIPE, which only means "stop".
          child.stdin!.on('error', () => this.stop());
          process.on('SIGINT', this.onSigint);
          this.exited = new Promise<void>((done) =>
            child.once('exit', () => {
              process.removeListener('SIGINT', this.onSigint);
              if (!this.ending) this.stop();
              done();
            }),
          );
          resolve(child.stdin!);
        });
      });
    }

    override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
      if (this.signal.aborted) return cb();
      if (this.target) return this.writeTo(this.target, chunk, cb);
      this.held.push(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.lines++;
      if (this.lines < this.rows) return cb();
      const held = Buffer.concat(this.held);
      this.held = [];
      void this.begin().then((target) => {
        this.target = target;
        this.writeTo(target, held, cb);
      });
    }

    override _final(cb: (err?: Error | null) => void): void {
      this.ending = true;
      if (!this.target) {
        const held = Buffer.concat(this.held);
        this.held = [];
        return held.length > 0 ? this.writeTo(this.out, held, () => cb()) : cb();
      }
      if (!this.child) return cb();
      this.child.stdin!.end();
      void this.exited!.then(() => cb());
    }
  };
}
