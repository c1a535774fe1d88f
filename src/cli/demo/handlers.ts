// `chatflow demo` handler: fills a server (the embedded database by default) with sample data so
// every command can be tried at once; `--messages N` makes large data sets for benchmarks.
import { ChatflowError } from '../../client/index.js';
import type { demo as def } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { DEMO_ASSISTANTS, DEMO_CHATFLOWS, DEMO_VARIABLES, demoMessages, demoRatings, demoUpserts } from './data.js';
import { createProgress } from '../base/progress.js';
import { plural } from '../render/text.js';
import { parseNumber } from '../core/handler-common.js';

export async function demo(ctx: Context, opts: Flags<typeof def>): Promise<void> {
  const count = parseNumber('--messages', opts.messages, { integer: true, min: 0, max: 100_000_000 }) ?? 120;
  const client = await ctx.client();
  const end = Date.parse('2026-11-01T00:00:00.000Z');

  const names = new Set<string>();
  for await (const v of client.variables.stream()) names.add(v.name);
  for (const v of DEMO_VARIABLES) if (!names.has(v.name)) await client.variables.create(v);
  const assistants = new Set((await client.assistants.list()).items.map((a) => a.details.name));
  for (const a of DEMO_ASSISTANTS) if (!assistants.has(a.details.name)) await client.assistants.create(a);

  let added = 0;
  let rated = 0;
  const sizes = DEMO_CHATFLOWS.map((_, i) => (i === 0 ? count : 60));
  const progress = createProgress({ label: 'demo', unit: 'messages', flag: opts.progress });
  progress.setTotal(sizes.reduce((a, b) => a + b, 0));
  for (const [i, chatflowId] of DEMO_CHATFLOWS.entries()) {
    const n = sizes[i]!;
    for (const batch of demoMessages(chatflowId, n, end)) {
      added += (await client.messages.ingest(chatflowId, batch)).affected;
      progress.add(batch.length);
    }
    for (const r of demoRatings(chatflowId, n)) {
      try {
        await client.feedback.create(r);
        rated++;
      } catch (err) {
        // Already rated by an earlier run.
        if (!(err instanceof ChatflowError && err.status === 409)) throw err;
      }
    }
    await client.upsertHistory.ingest(chatflowId, demoUpserts(chatflowId, end));
  }
  progress.done();
  ctx.out.note(
    `demo data ready: ${plural(added, 'new message')}, ${plural(rated, 'new rating')} in ${DEMO_CHATFLOWS.join(', ')}; ` +
      `try: chatflow messages list ${DEMO_CHATFLOWS[0]}`,
  );
}
