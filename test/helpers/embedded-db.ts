// The embedded default's database of a test home, and commands on it that must succeed.
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli, type CliHome } from './cli.js';

export const dbOf = (home: CliHome) => join(home.dataDir, 'chatflow', 'chatflow.db');

/** The command's stdout; it must exit 0 (its stderr is the failure's message). */
export async function ok(home: CliHome, args: string[]): Promise<string> {
  const r = await runCli(args, { home });
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The names of the variables, sorted. */
export const names = async (home: CliHome) => (JSON.parse(await ok(home, ['variables', 'list', '-o', 'json'])) as { name: string }[]).map((v) => v.name).sort();
