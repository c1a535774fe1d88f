// Drives the real shells with the real completion scripts. The scripts call `chatflow` from PATH:
// a temporary directory holds a `chatflow` shim that runs this checkout's bin/chatflow.js (built
// dist/: run `npm run build` first). Every run gets a clean environment with temporary XDG dirs.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(REPO, 'bin', 'chatflow.js');
export const SCRIPTS = { bash: join(REPO, 'completions', 'chatflow.bash'), zsh: join(REPO, 'completions', 'chatflow.zsh'), fish: join(REPO, 'completions', 'chatflow.fish') };
export type Shell = keyof typeof SCRIPTS;
export const SHELLS: Shell[] = ['bash', 'zsh', 'fish'];

export type Env = Record<string, string>;

const temps: string[] = [];
process.once('exit', () => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

export function checkBuilt(): void {
  const built = join(REPO, 'dist', 'bundle', 'main.cjs');
  if (!existsSync(built)) throw new Error(`${built} is missing: build first with npm run build`);
}

let shimDir: string | undefined;

/** A directory holding a `chatflow` that runs this checkout (made once per test file). */
export function shim(): string {
  if (shimDir) return shimDir;
  checkBuilt();
  shimDir = mkdtempSync(join(tmpdir(), 'chatflow-shim-'));
  temps.push(shimDir);
  const file = join(shimDir, 'chatflow');
  writeFileSync(file, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(file, 0o755);
  return shimDir;
}

/** The default completion deadline (for the tests of it). */
export const NO_SLACK: Env = { CHATFLOW_COMPLETE_DEADLINE_MS: '' };

export interface Home {
  dir: string;
  cacheDir: string;
  env: Env;
}

/**
 * Temporary HOME and XDG dirs, and PATH = the shim first; nothing inherited (no CHATFLOW_*).
 * CHATFLOW_COMPLETE_DEADLINE_MS is raised so that what is offered does not depend on the load of
 * the machine; the tests of the deadline itself pass `NO_SLACK` to get the default 1.5 s.
 */
export function home(extra: Env = {}): Home {
  const dir = mkdtempSync(join(tmpdir(), 'chatflow-complete-'));
  temps.push(dir);
  const sub = (name: string) => {
    const d = join(dir, name);
    mkdirSync(d);
    return d;
  };
  const cacheDir = sub('cache');
  const env: Env = {
    PATH: [shim(), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: dir,
    XDG_CONFIG_HOME: sub('config'),
    XDG_DATA_HOME: sub('data'),
    XDG_CACHE_HOME: cacheDir,
    TERM: 'dumb',
    CHATFLOW_COMPLETE_DEADLINE_MS: '15000',
    ...extra,
  };
  return { dir, cacheDir, env };
}

export interface Offer {
  /** The candidates the shell offers, in order. */
  values: string[];
  /** Candidate -> its description (bash shows them only when it lists several). */
  descriptions: Map<string, string>;
  stderr: string;
  exitCode: number;
  /** How long the completion took, once the shell was up: what a user waits for after TAB. */
  ms: number;
}

/** How bash splits a line into COMP_WORDS: white space, and `=` / `:` as words of their own. */
export function bashWords(line: string): string[] {
  const words = line.split(/\s+/).filter((w, i, all) => w !== '' || i === all.length - 1);
  return words.flatMap((w) => (w === '' ? [''] : (w.match(/[=:]+|[^=:]+/g) ?? [])));
}

const BASH_DRIVER = `
source "$1"; shift
COMP_LINE=$1; shift
COMP_POINT=\${#COMP_LINE}
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
started=$EPOCHREALTIME
_chatflow chatflow "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
ended=$EPOCHREALTIME
printf '%s\\n' "\${COMPREPLY[@]}"
echo "@@elapsed $started $ended"
`;

// compadd and _files stand in for zsh's completion builtins (which need a live line editor): they
// print what the script handed them, one `value<TAB>display` a line.
// compinit reads its dump (made by this file's first line) instead of scanning every function on
// zsh's path: ~0.1 s a line instead of ~2.5 s on a loaded machine, where a test of several lines
// ran past its minute.
const ZSH_DRIVER = `
autoload -Uz compinit && compinit -u -C -d "$1"; shift
source "$1"; shift
[[ $_comps[chatflow] == _chatflow ]] || { print -u2 "chatflow is not registered"; exit 3; }
compadd() {
  local arr=0 dn= n i
  local -a v d
  while (( $# )); do
    case $1 in
      -a) arr=1 ;;
      -d) shift; dn=$1 ;;
      --) shift; break ;;
      -*) ;;
      *) break ;;
    esac
    shift
  done
  if (( arr )); then for n in "$@"; do v+=("\${(@P)n}"); done; else v=("$@"); fi
  [[ -n $dn ]] && d=("\${(@P)dn}")
  (( \${#v} )) || return 1
  for i in {1..\${#v}}; do print -r -- "\${v[i]}"$'\\t'"\${d[i]}"; done
}
_files() { print -r -- ":files"; }
words=("$@")
CURRENT=$#
PREFIX=$argv[-1]
zmodload zsh/datetime
started=$EPOCHREALTIME
_chatflow
status_=$?
ended=$EPOCHREALTIME
print -r -- "@@elapsed $started $ended"
exit $status_
`;

const FISH_DRIVER = `source $argv[1]
set -l started (date +%s.%N)
complete -C $argv[2]
echo "@@elapsed $started "(date +%s.%N)`;

let zcompdump: string | undefined;
/** Where compinit keeps its dump for this test file (the lines of a file run one at a time). */
function zshDump(): string {
  if (!zcompdump) {
    const dir = mkdtempSync(join(tmpdir(), 'chatflow-zsh-'));
    temps.push(dir);
    zcompdump = join(dir, 'zcompdump');
  }
  return zcompdump;
}

/** What `shell` offers when TAB is pressed at the end of `line` (which starts with `chatflow`). */
export async function offer(shell: Shell, line: string, env: Env, timeoutMs = 20_000): Promise<Offer> {
  let file: string;
  let args: string[];
  if (shell === 'bash') {
    file = 'bash';
    args = ['--norc', '--noprofile', '-c', BASH_DRIVER, 'bash', SCRIPTS.bash, line, ...bashWords(line)];
  } else if (shell === 'zsh') {
    const words = line.split(/\s+/);
    file = 'zsh';
    args = ['-f', '-c', ZSH_DRIVER, 'zsh', zshDump(), SCRIPTS.zsh, ...words];
  } else {
    file = 'fish';
    args = ['--no-config', '-c', FISH_DRIVER, SCRIPTS.fish, line];
  }
  const r = await execa(file, args, { env, extendEnv: false, reject: false, timeout: timeoutMs, stdin: 'ignore' });
  if (r.timedOut) throw new Error(`${shell}: completing "${line}" did not finish in ${timeoutMs} ms`);
  const values: string[] = [];
  const descriptions = new Map<string, string>();
  let ms = Number.NaN;
  for (const row of String(r.stdout).split('\n')) {
    if (row === '') continue;
    const elapsed = /^@@elapsed (\S+) (\S+)$/.exec(row);
    if (elapsed) {
      ms = (Number(elapsed[2]!.replace(',', '.')) - Number(elapsed[1]!.replace(',', '.'))) * 1000;
      continue;
    }
    // zsh and fish: `value<TAB>description`; bash lists several as `value  (description)`.
    const tab = row.indexOf('\t');
    const listed = shell === 'bash' ? /^(.*?) {2,}\((.*)\)$/.exec(row) : null;
    const value = listed ? listed[1]! : tab < 0 ? row : row.slice(0, tab);
    values.push(value);
    const desc = listed ? listed[2]! : tab < 0 ? '' : row.slice(tab + 1);
    if (desc) descriptions.set(value, desc);
  }
  return { values, descriptions, stderr: String(r.stderr), exitCode: r.exitCode ?? -1, ms };
}

export interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  ms: number;
}

/** `node bin/chatflow.js ...args` in `env` (no shell). */
export async function chatflow(args: string[], env: Env, nodeArgs: string[] = []): Promise<Run> {
  checkBuilt();
  const started = performance.now();
  const r = await execa(process.execPath, [...nodeArgs, BIN, ...args], { env, extendEnv: false, reject: false, timeout: 20_000, stdin: 'ignore' });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1, ms: performance.now() - started };
}

/** `chatflow __complete -- <words>`: the candidates' values. */
export async function candidates(words: string[], env: Env): Promise<{ values: string[]; lines: string[]; run: Run }> {
  const run = await chatflow(['__complete', '--', ...words], env);
  const lines = run.stdout.split('\n').filter(Boolean);
  return { values: lines.map((l) => l.split('\t')[0]!), lines, run };
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never answers. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

