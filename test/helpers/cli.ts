// Runs the built `bin/chatflow.js` as a user would, in a clean environment: nothing inherited
// from the test process (no CHATFLOW_*, NO_COLOR, CI, proxies), and a temporary HOME and XDG dirs.
// Build first (`npm run build`): the tests run the bundle in dist/, not src/.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const BIN = fileURLToPath(new URL('../../bin/chatflow.js', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/bundle/main.cjs', import.meta.url));

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[/;
/** A line of a stack trace. */
export const STACK_LINE = /^\s+at .+/m;

export type Env = Record<string, string | undefined>;

/** A temporary home: HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME below one directory. */
export interface CliHome {
  dir: string;
  configDir: string;
  dataDir: string;
  cacheDir: string;
  /** The environment variables that point there. */
  env: Env;
}

const created: string[] = [];
let cleanupRegistered = false;

function registerCleanup(): void {
  if (cleanupRegistered) return;
  cleanupRegistered = true;
  process.once('exit', () => {
    for (const d of created) rmSync(d, { recursive: true, force: true });
  });
}

/** A new empty home; removed when the test process exits. */
export function createHome(): CliHome {
  const dir = mkdtempSync(join(tmpdir(), 'chatflow-cli-'));
  created.push(dir);
  registerCleanup();
  const configDir = join(dir, 'config');
  const dataDir = join(dir, 'data');
  const cacheDir = join(dir, 'cache');
  for (const d of [configDir, dataDir, cacheDir]) mkdirSync(d);
  return {
    dir,
    configDir,
    dataDir,
    cacheDir,
    env: { HOME: dir, XDG_CONFIG_HOME: configDir, XDG_DATA_HOME: dataDir, XDG_CACHE_HOME: cacheDir },
  };
}

/** A copy of the built package (bin, dist; node_modules linked) whose files a test may change; removed at exit. */
export function copyPackage(): string {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'chatflow-package-'));
  created.push(dir);
  registerCleanup();
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(dir, part), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

export interface CliOptions {
  /** Added to the clean environment (an undefined value removes a variable). */
  env?: Env;
  /** Written to stdin, which is then closed (stdin is never a terminal). */
  input?: string;
  /** The server to talk to, as CHATFLOW_URL; without it the CLI uses its embedded service. */
  url?: string;
  /** Reuse a home across invocations (profiles, the embedded database); default: a fresh one. */
  home?: CliHome;
  /** CHATFLOW_FORCE_TTY=1 (stdout counts as a terminal: tables, colour) and COLUMNS=200. */
  tty?: boolean;
  /** Milliseconds before the process is killed (default 20000). */
  timeout?: number;
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The whole environment of an invocation: only what is listed here reaches the CLI. */
export function cliEnv(opts: Omit<CliOptions, 'input' | 'timeout'> = {}): Env {
  const home = opts.home ?? createHome();
  const env: Env = {
    PATH: process.env.PATH,
    ...home.env,
    // Tables show dates in local time: make that time UTC.
    TZ: 'UTC',
  };
  if (opts.url !== undefined) env.CHATFLOW_URL = opts.url;
  if (opts.tty) {
    env.CHATFLOW_FORCE_TTY = '1';
    env.COLUMNS = '200';
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function checkBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first with npm run build`);
}

/** Runs `node bin/chatflow.js ...args` to the end; never throws on a non-zero exit. */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  checkBuilt();
  const result = await execa(process.execPath, [BIN, ...args], {
    reject: false,
    extendEnv: false,
    env: cliEnv(opts),
    input: opts.input ?? '',
    stripFinalNewline: false,
    timeout: opts.timeout ?? 20_000,
  });
  if (result.timedOut) throw new Error(`chatflow ${args.join(' ')} did not finish in time\n${result.stderr}`);
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
  };
}

/** Starts `node bin/chatflow.js ...args` and leaves it running (for `serve`). */
export function spawnCli(args: string[], opts: Omit<CliOptions, 'input'> = {}): ResultPromise<{ reject: false }> {
  checkBuilt();
  return execa(process.execPath, [BIN, ...args], {
    reject: false,
    extendEnv: false,
    env: cliEnv(opts),
    stdin: 'ignore',
    stripFinalNewline: false,
    timeout: opts.timeout,
  }) as unknown as ResultPromise<{ reject: false }>;
}

/** Resolves with the first line of `stream` that matches, or rejects on timeout or end. */
export function waitForLine(stream: NodeJS.ReadableStream, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (fn: () => void) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      fn();
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        const m = line.match(pattern);
        if (m) return done(() => resolve(m));
      }
    };
    const onEnd = () => done(() => reject(new Error(`stream ended without a line matching ${pattern}: ${buffered}`)));
    const timer = setTimeout(() => done(() => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms: ${buffered}`))), timeoutMs);
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------- reading the output back

/** One JSON value per line. */
export function parseNdjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** RFC 4180: rows of fields; quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      // the \n ends the row
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** CSV with a header row, as objects keyed by the header. */
export function csvRecords(text: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(text);
  if (!head) return [];
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ''])));
}

/** East Asian wide characters and emoji: two terminal cells. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/**
 * The cells of a table, row by row (the header first when there is one), trimmed, ANSI codes
 * removed. Reads both a box-drawn table (cli-table3 borders) and a borderless one whose columns are
 * padded apart by two spaces or more (a column starts where, on every line, two blanks end).
 */
export function tableRows(text: string): string[][] {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  const lines = plain.split('\n').filter((l) => l.trim() !== '');
  if (lines.some((l) => l.startsWith('│'))) {
    return lines
      .filter((l) => l.startsWith('│'))
      .map((l) =>
        l
          .slice(1, l.lastIndexOf('│'))
          .split('│')
          .map((c) => c.trim()),
      );
  }
  // One slot per terminal cell: a wide (CJK, emoji) character takes two, the second left empty.
  const chars = lines.map((l) => Array.from(l).flatMap((ch) => (isWide(ch.codePointAt(0)!) ? [ch, ''] : [ch])));
  const width = Math.max(0, ...chars.map((c) => c.length));
  const blank = (i: number) => chars.every((c) => (c[i] ?? ' ') === ' ');
  const starts = [0];
  for (let i = 2; i < width; i++) if (!blank(i) && blank(i - 1) && blank(i - 2)) starts.push(i);
  return chars.map((c) => starts.map((s, k) => c.slice(s, starts[k + 1] ?? c.length).join('').trim()));
}
