// The bundles' compiled code, cached (bin/bundles.js): on Node 20 the build ships a V8 code cache
// of main.cjs and server.cjs made by running the common commands (scripts/train-code-cache.js), and
// a user cache is written at a first run's exit when the shipped one does not fit. A cache V8
// refuses (corrupt, another Node) is ignored: the command answers the same. Node 22+ caches
// compiled code itself (module.enableCompileCache), and these do not apply.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliEnv, copyPackage, createHome, type CliHome } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The shipped caches: main.cjs's for each kind of run, server.cjs's for a command and for a read (list, get). */
const hashOf = (bundle: string) => /chatflow-bundle=([0-9a-f]{16})\n$/.exec(readFileSync(join(ROOT, 'dist', 'bundle', bundle), 'latin1'))![1];
const SHIPPED = ['main.cjs-help', 'main.cjs-complete', 'main.cjs-command', 'main.cjs-read', 'server.cjs-command', 'server.cjs-read'].map(
  (b) => `${b}-${hashOf(b.replace(/-.*/, ''))}-${process.version}-${process.arch}.bin`,
);
/** Makes a code cache of a script as long as the wrapped bundle argv[1] that writes the file argv[2]: argv[3]. */
const PLANT = `
const fs = require('node:fs'), vm = require('node:vm');
const [bundle, planted, out] = process.argv.slice(1);
const source = fs.readFileSync(bundle, 'latin1');
const wrapped = '(function (exports, require, module, __filename, __dirname) { ' + source + '\\n})';
let evil = '(function (exports, require, module, __filename, __dirname) { require("node:fs").writeFileSync(' + JSON.stringify(planted) + ', "ran"); module.exports = { main: async () => 0 }; /*';
evil += ' '.repeat(wrapped.length - evil.length - 5) + '*/\\n})';
const script = new vm.Script(evil, { filename: bundle });
script.runInThisContext();
fs.writeFileSync(out, script.createCachedData());
`;
const nodeCaches = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** The first command after an install: a new database, answered in this process. */
async function firstCommand(pkg: string, home: CliHome) {
  const r = await execa(process.execPath, [join(pkg, 'bin', 'chatflow.js'), 'variables', 'set', 'CACHED', 'yes', '-o', 'json'], {
    reject: false,
    extendEnv: false,
    env: cliEnv({ home }),
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ name: 'CACHED', value: 'yes' });
  const listed = await execa(process.execPath, [join(pkg, 'bin', 'chatflow.js'), 'variables', 'list', '-o', 'json'], {
    reject: false,
    extendEnv: false,
    env: cliEnv({ home }),
  });
  expect(listed.exitCode, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'CACHED', value: 'yes' })]);
}

/** The caches of the user's (not the marks of their trials). */
const userCaches = (home: CliHome) => {
  const dir = join(home.cacheDir, 'chatflow', 'code-cache');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.bin')).sort() : [];
};

/** A few bytes flipped all through a file, as a damaged disk or a careless edit would (V8 crashes on it: exit 133 or 139). */
function damage(file: string): void {
  const bytes = readFileSync(file);
  for (let i = 2000; i < bytes.length; i += 997) bytes[i]! ^= 0x5a;
  writeFileSync(file, bytes);
}

const run = (pkg: string, home: CliHome, args: string[]) => execa(process.execPath, [join(pkg, 'bin', 'chatflow.js'), ...args], { reject: false, extendEnv: false, env: cliEnv({ home }) });

describe.skipIf(nodeCaches)('the code cache (Node 20)', () => {
  it('the build ships them (main.cjs for help, completion, a command and a read; server.cjs for a command and a read); with them first runs write no cache of their own', async () => {
    for (const name of SHIPPED) expect(existsSync(join(ROOT, 'dist', 'bundle', 'code-cache', name)), name).toBe(true);
    const home = createHome();
    await firstCommand(ROOT, home);
    for (const args of [['--help'], ['__complete', '--', 'va']]) {
      const r = await execa(process.execPath, [join(ROOT, 'bin', 'chatflow.js'), ...args], { reject: false, extendEnv: false, env: cliEnv({ home }) });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/variables/);
    }
    expect(userCaches(home)).toEqual([]);
  });

  it('a shipped cache V8 refuses is ignored: the same answers, and a cache of the user\'s is written and then used', async () => {
    const pkg = copyPackage();
    for (const name of SHIPPED) writeFileSync(join(pkg, 'dist', 'bundle', 'code-cache', name), 'not a code cache');
    const home = createHome();
    await firstCommand(pkg, home);
    const written = userCaches(home);
    expect(written).toEqual([expect.stringMatching(/^main-[0-9a-f]{16}-v.*\.bin$/), expect.stringMatching(/^server-[0-9a-f]{16}-v.*\.bin$/)]);
    // A spoiled cache of the user's is ignored too, and written anew.
    const mainCache = join(home.cacheDir, 'chatflow', 'code-cache', written[0]!);
    writeFileSync(mainCache, 'spoiled');
    await firstCommand(pkg, home);
    expect(readFileSync(mainCache).length).toBeGreaterThan(1000);
  });

  it('a damaged cache of the user\'s costs at most one run: never used again, written anew, and every later command answers', async () => {
    const pkg = copyPackage();
    for (const name of SHIPPED) writeFileSync(join(pkg, 'dist', 'bundle', 'code-cache', name), 'not a code cache');
    const home = createHome();
    await firstCommand(pkg, home); // writes the user's caches
    await firstCommand(pkg, home); // uses them: trusted
    const mainCache = join(home.cacheDir, 'chatflow', 'code-cache', userCaches(home)[0]!);
    damage(mainCache);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await run(pkg, home, ['--help'])).exitCode);
    // (The first run may crash in V8 on it; it is the only one.)
    expect(codes.slice(1)).toEqual([0, 0]);
    expect((await run(pkg, home, ['variables', 'list', '-o', 'json'])).exitCode).toBe(0);
  });

  it('a damaged shipped cache costs at most one run too', async () => {
    const pkg = copyPackage();
    // (main.cjs's read cache, the one `variables list` takes first: each damaged cache costs its one run.)
    damage(join(pkg, 'dist', 'bundle', 'code-cache', SHIPPED[3]!));
    const home = createHome();
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await run(pkg, home, ['variables', 'list', '-o', 'json'])).exitCode);
    expect(codes.slice(1)).toEqual([0, 0]);
  });

  it('a bundle edited in place (the same length) runs its own code, not the shipped cache of the old one', async () => {
    const pkg = copyPackage();
    const main = join(pkg, 'dist', 'bundle', 'main.cjs');
    const code = readFileSync(main, 'latin1');
    expect(code).toContain('No ${what} found');
    writeFileSync(main, code.replaceAll('No ${what} found', 'No ${what} HERE!'), 'latin1');
    const r = await run(pkg, createHome(), ['variables', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('No variables HERE!');
  });

  it('a cache planted by another user in a shared cache directory is never run', async () => {
    if (process.getuid?.() !== 0) return; // (only root can make another user's files; CI runs as root)
    const home = createHome();
    // A cache home every user may write to (sticky, as /tmp), where another user made chatflow/code-cache.
    chmodSync(home.cacheDir, 0o1777);
    const dir = join(home.cacheDir, 'chatflow', 'code-cache');
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    for (const d of [join(home.cacheDir, 'chatflow'), dir]) chownSync(d, 65534, 65534);
    // A script of main.cjs's length, compiled into a cache V8 takes for it, under every name the user's cache may have.
    const bundle = join(ROOT, 'dist', 'bundle', 'main.cjs');
    const { size, mtimeMs } = statSync(bundle);
    const planted = join(home.dir, 'PLANTED');
    const made = await execa(process.execPath, ['-e', PLANT, bundle, planted, join(home.dir, 'evil.bin')], { reject: false });
    expect(made.exitCode, made.stderr).toBe(0);
    const stem = `${process.version}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.bin`;
    for (const name of [`main-${stem}`, `main-${hashOf('main.cjs')}-${stem}`]) {
      writeFileSync(join(dir, name), readFileSync(join(home.dir, 'evil.bin')));
      chownSync(join(dir, name), 65534, 65534);
    }
    const r = await run(ROOT, home, ['variables', 'list', '-o', 'json']);
    expect(existsSync(planted)).toBe(false);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('without a shipped cache (a build by another Node) the user\'s is written', async () => {
    const pkg = copyPackage();
    rmSync(join(pkg, 'dist', 'bundle', 'code-cache'), { recursive: true });
    const home = createHome();
    await firstCommand(pkg, home);
    expect(userCaches(home)).toHaveLength(2);
  });
});
