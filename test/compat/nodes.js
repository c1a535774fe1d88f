// The other Node versions users run (22 and 24), for test/compat/node-versions.test.ts and for
// .ci/run's install without a compiler: each package is fetched once from the npm registry (the
// `node-<os>-<arch>` packages hold the official binaries) into node_modules/.cache.
//
//   node test/compat/nodes.js     prints the path of each version's `node`, fetching what is missing
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'chatflow-test-node');
const PLATFORM = process.platform === 'win32' ? 'win' : process.platform;

/** The versions tested besides the one running the suite (20). */
export const NODE_VERSIONS = ['22.23.3', '24.21.0'];

/** `spec` from the registry, unpacked into the cache the first time; answers the package's directory. */
export async function fetched(spec) {
  const dir = join(CACHE, spec.replace(/[/@]/g, '_'));
  const pkg = join(dir, 'package');
  if (existsSync(pkg)) return pkg;
  const partial = `${dir}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  let packed;
  try {
    packed = await run('npm', ['pack', spec, '--silent', '--pack-destination', partial]);
  } catch (err) {
    throw new Error(`npm pack ${spec} failed (the registry must be reachable): ${err.stderr ?? err.message}`);
  }
  await run('tar', ['xzf', join(partial, packed.stdout.trim().split('\n').at(-1)), '-C', partial]);
  renameSync(partial, dir);
  return pkg;
}

/** The `node` binary of `version`. */
export const nodeBinary = async (version) => join(await fetched(`node-${PLATFORM}-${process.arch}@${version}`), 'bin', 'node');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const version of NODE_VERSIONS) console.log(await nodeBinary(version));
}
