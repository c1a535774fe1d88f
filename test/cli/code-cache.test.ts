// The bundles' compiled code, cached by Node itself (bin/bundles.js): on Node 22.1+ in the user's
// own `$XDG_CACHE_HOME/chatflow/compile-cache`, never in the shared temporary directory (Node's
// default), and on Node 20 not at all. Whatever happens to the cache (damaged with its size and
// time kept, truncated, another user's directory, unwritable, a cache home others may write to),
// every command answers exactly as it did with a sound cache. Run on this Node and on 22 and 24
// (test/compat/nodes.js); the tests run as root (CI does), so another user is uid 65534, and an
// unwritable directory is one root meets without its capabilities (setpriv: CI's clone may sit in
// a directory no other user can enter).
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_VERSIONS, nodeBinary } from '../compat/nodes.js';
import { cliEnv, copyPackage, createHome, type CliHome } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const OTHER = 65534;
let server: TestServer;
/** A copy of the package, readable by the other user; its shipped caches (a build that had them) are damaged with the user's. */
let pkg: string;
beforeAll(async () => {
  server = await startTestServer();
  await execa(process.execPath, [join(copyPackageOnce(), 'bin', 'chatflow.js'), 'variables', 'create', '--name', 'REMOTE', '--value', '1', '--url', server.url], { extendEnv: false, env: cliEnv({}) });
}, 120_000);
afterAll(() => server?.dispose());

function copyPackageOnce(): string {
  if (!pkg) {
    pkg = copyPackage();
    chmodSync(pkg, 0o755);
  }
  return pkg;
}

/** Every file below `dir` (none when there is no such directory). */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name)]));
}
/** The directories of compiled code below a cache home: Node's (ours), and the hand-made cache's of earlier versions. */
const codeDirs = (cacheHome: string) => ['compile-cache', 'code-cache'].map((d) => join(cacheHome, 'chatflow', d));
/** The cache files a run may read: the user's, and any the package ships. */
const cacheFiles = (cacheHome: string) => [...codeDirs(cacheHome).flatMap(filesBelow), ...filesBelow(join(pkg, 'dist', 'bundle', 'code-cache'))];
/** `dir` and every directory below it. */
const dirsBelow = (dir: string): string[] =>
  existsSync(dir) ? [dir, ...readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? dirsBelow(join(dir, e.name)) : []))] : [];
/** Each file as it is now (to see that nothing wrote there). */
const snapshot = (files: string[]) => new Map(files.map((f) => [f, readFileSync(f).toString('base64')]));

/** `file` changed as `change` says, its size and time as they were (bit rot: nothing a size or time check sees). */
function keepingSizeAndTime(file: string, change: (bytes: Buffer) => Buffer): void {
  const { atime, mtime, size } = statSync(file);
  const bytes = change(readFileSync(file));
  writeFileSync(file, bytes);
  if (bytes.length !== size) truncateSync(file, bytes.length);
  utimesSync(file, atime, mtime);
}
const flipBytes = (bytes: Buffer) => {
  for (let i = 64; i < bytes.length; i += 997) bytes[i]! ^= 0x5a;
  return bytes;
};

interface Run {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

describe.each([process.versions.node, ...NODE_VERSIONS])('Node %s', (version) => {
  let node: string;
  beforeAll(async () => {
    copyPackageOnce();
    node = version === process.versions.node ? process.execPath : await nodeBinary(version);
  }, 300_000);
  // Node 22 has no SQLite here (the compat tests install better-sqlite3 13 for it): commands against a server only.
  const embedded = !version.startsWith('22.');
  /** Help, a list from a server (main.cjs), and the embedded default's list (server.cjs too). */
  const COMMANDS = [['--help'], ['variables', 'list', '-o', 'json', '--url', 'SERVER'], ...(embedded ? [['variables', 'list', '-o', 'json']] : [])];

  /** The commands, in `home`, as root or as root bound by file modes (`unprivileged`); the shared temporary directory is `home/tmp`. */
  async function runAll(home: CliHome, opts: { unprivileged?: boolean; env?: Record<string, string | undefined> } = {}): Promise<Run[]> {
    const runs: Run[] = [];
    for (const args of COMMANDS) {
      const argv = [join(pkg, 'bin', 'chatflow.js'), ...args.map((a) => (a === 'SERVER' ? server.url : a))];
      const [file, ...rest] = opts.unprivileged ? ['setpriv', '--inh-caps=-all', '--bounding-set=-all', node, ...argv] : [node, ...argv];
      const r = await execa(file!, rest, {
        reject: false,
        extendEnv: false,
        env: cliEnv({ home, env: { TMPDIR: join(home.dir, 'tmp'), ...opts.env } }),
        stdin: 'ignore',
        timeout: 60_000,
      });
      runs.push({ exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) });
    }
    return runs;
  }

  /** A home with its shared temporary directory. */
  function homeOf(): CliHome {
    const home = createHome();
    mkdirSync(join(home.dir, 'tmp'), { mode: 0o1777 });
    chmodSync(join(home.dir, 'tmp'), 0o1777);
    return home;
  }

  /** Every run answered as the first, sound one did: exit 0, the same output, nothing in the shared temporary directory. */
  function expectSame(home: CliHome, runs: Run[], first: Run[]): void {
    for (const [i, r] of runs.entries()) {
      expect(r.exitCode, `${COMMANDS[i]!.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r).toEqual(first[i]);
    }
    expect(readdirSync(join(home.dir, 'tmp'))).toEqual([]);
  }

  it('a first run caches in the user\'s own directory (Node 22+), never in the shared temporary one; Node 20 keeps none', async () => {
    const home = homeOf();
    const first = await runAll(home);
    expectSame(home, await runAll(home), first);
    expect(first[0]!.stdout).toMatch(/variables/);
    expect(JSON.parse(first[1]!.stdout)).toEqual([expect.objectContaining({ name: 'REMOTE' })]);
    const dir = join(home.cacheDir, 'chatflow', 'compile-cache');
    if (version.startsWith('20.')) {
      expect(codeDirs(home.cacheDir).flatMap(filesBelow)).toEqual([]);
      expect(existsSync(join(pkg, 'dist', 'bundle', 'code-cache'))).toBe(false);
    } else {
      expect(filesBelow(dir).length).toBeGreaterThan(0);
      for (const d of [join(home.cacheDir, 'chatflow'), dir]) expect(statSync(d).mode & 0o777).toBe(0o700);
    }
  });

  it('a cache damaged with its size and time kept, then truncated: every command answers the same', async () => {
    const home = homeOf();
    const first = await runAll(home);
    for (const f of cacheFiles(home.cacheDir)) keepingSizeAndTime(f, flipBytes);
    expectSame(home, await runAll(home), first);
    expectSame(home, await runAll(home), first);
    for (const f of cacheFiles(home.cacheDir)) keepingSizeAndTime(f, (b) => b.subarray(0, b.length >> 1));
    expectSame(home, await runAll(home), first);
  });

  it('a cache directory of another user\'s, with entries planted there, is never used', async () => {
    const donor = homeOf();
    const first = await runAll(donor);
    const home = homeOf();
    // Another user's chatflow/compile-cache, open to all, holding the entries of a sound cache and damaged ones.
    const planted = join(home.cacheDir, 'chatflow');
    mkdirSync(join(planted, 'compile-cache', 'planted'), { recursive: true });
    if (existsSync(join(donor.cacheDir, 'chatflow', 'compile-cache'))) cpSync(join(donor.cacheDir, 'chatflow', 'compile-cache'), join(planted, 'compile-cache'), { recursive: true });
    writeFileSync(join(planted, 'compile-cache', 'planted', 'entry'), 'planted');
    for (const f of filesBelow(planted).filter((f) => !f.endsWith('entry')).slice(1)) keepingSizeAndTime(f, flipBytes);
    for (const p of [planted, join(planted, 'compile-cache'), ...filesBelow(planted)]) {
      chownSync(p, OTHER, OTHER);
      chmodSync(p, statSync(p).isDirectory() ? 0o777 : 0o666);
    }
    const before = snapshot(filesBelow(planted));
    expectSame(home, await runAll(home), first);
    // (Node would have rewritten the damaged entries, and added its own, had it used them.)
    expect(snapshot(filesBelow(planted))).toEqual(before);
  });

  it('an unwritable cache directory (0500, for a user bound by file modes) holding a damaged cache: every command answers', async () => {
    const home = homeOf();
    const first = await runAll(home, { unprivileged: true });
    for (const f of cacheFiles(home.cacheDir)) keepingSizeAndTime(f, flipBytes);
    for (const d of codeDirs(home.cacheDir).flatMap(dirsBelow)) chmodSync(d, 0o500);
    expectSame(home, await runAll(home, { unprivileged: true }), first);
    expectSame(home, await runAll(home, { unprivileged: true }), first);
  });

  it('a cache home others may write to (~/.cache 0777): no cache is used, and every command answers', async () => {
    const home = homeOf();
    // ~/.cache, as without XDG_CACHE_HOME.
    const env = { XDG_CACHE_HOME: undefined };
    const cacheHome = join(home.dir, '.cache');
    mkdirSync(cacheHome, { mode: 0o700 });
    const first = await runAll(home, { env });
    for (const f of cacheFiles(cacheHome)) keepingSizeAndTime(f, flipBytes);
    chmodSync(cacheHome, 0o777);
    const before = snapshot(codeDirs(cacheHome).flatMap(filesBelow));
    expectSame(home, await runAll(home, { env }), first);
    expectSame(home, await runAll(home, { env }), first);
    expect(snapshot(codeDirs(cacheHome).flatMap(filesBelow))).toEqual(before);
  });
});
