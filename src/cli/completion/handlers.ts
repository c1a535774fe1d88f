// `chatflow completion <shell>` and `chatflow __complete` handlers.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { complete, formatCandidates } from './complete.js';
import { spawnRefresher } from './refresher.js';
import type { Shell } from './shells.js';
import type { complete as completeDef, completion } from './commands.js';
import type { Args, Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { writeOut } from '../base/stdout.js';

/** The script for a shell, from completions/ at the package root (this runs in dist/bundle/main.cjs). */
function completionScript(shell: Shell): Promise<string> {
  return readFile(new URL(`../../completions/chatflow.${shell}`, import.meta.url), 'utf8');
}

export async function script(ctx: Context, shell: Args<typeof completion>[0]): Promise<void> {
  ctx.out.write(await completionScript(shell));
}

export async function candidates(program: Command, words: Args<typeof completeDef>[0], opts: Flags<typeof completeDef>): Promise<void> {
  let out = '';
  try {
    const given = words;
    out = formatCandidates(await complete(program, given, { liveControl: { refresh: opts.refresh, spawnRefresh: () => void spawnRefresher(given).catch(() => undefined) } }));
    if (opts.refresh) out = '';
  } catch {
    out = '';
  }
  if (out) writeOut(out);
  // Do not wait for a server that did not answer, or an embedded service still starting.
  process.exit(0);
}
