// The bundles' compiled code, cached (bin/bundles.js): on Node 20 the build ships a V8 code cache
// of main.cjs and server.cjs made by running the common commands (scripts/train-code-cache.js), and
// a user cache is written at a first run's exit when the shipped one does not fit. A cache V8
// refuses (corrupt, another Node) is ignored: the command answers the same. Node 22+ caches
// compiled code itself (module.enableCompileCache), and these do not apply.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliEnv, copyPackage, createHome, type CliHome } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The shipped caches: main.cjs's for each kind of run, server.cjs's for a command and for a read (list, get). */
const SHIPPED = ['main.cjs-help', 'main.cjs-complete', 'main.cjs-command', 'main.cjs-read', 'server.cjs-command', 'server.cjs-read'].map((b) => `${b}-${process.version}-${process.arch}.bin`);
const nodeCaches = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** The first command after an install: a new database, answered in this process (no local service). */
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

const userCaches = (home: CliHome) => {
  const dir = join(home.cacheDir, 'chatflow', 'code-cache');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

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
    expect(written).toEqual([expect.stringMatching(/^main-v.*\.bin$/), expect.stringMatching(/^server-v.*\.bin$/)]);
    // A spoiled cache of the user's is ignored too, and written anew.
    const mainCache = join(home.cacheDir, 'chatflow', 'code-cache', written[0]!);
    writeFileSync(mainCache, 'spoiled');
    await firstCommand(pkg, home);
    expect(readFileSync(mainCache).length).toBeGreaterThan(1000);
  });

  it('without a shipped cache (a build by another Node) the user\'s is written', async () => {
    const pkg = copyPackage();
    rmSync(join(pkg, 'dist', 'bundle', 'code-cache'), { recursive: true });
    const home = createHome();
    await firstCommand(pkg, home);
    expect(userCaches(home)).toHaveLength(2);
  });
});
