// The service's own retention (`chatflow serve --retain 90d`): at start and then every hour, the
// messages of each chatflow older than its period go, with their feedback, through the store's
// date-bounded delete. A batch is one short transaction and the event loop is handed back between
// batches, so requests are served throughout (on SQLite a write waits for one batch at most).
import type { Store } from './store/types.js';

export interface RetentionPolicy {
  /** How long messages are kept, in milliseconds; absent: for ever (unless a chatflow says otherwise). */
  keepMs?: number;
  /** Per chatflow id: its own period in milliseconds, or null to keep its messages for ever. */
  chatflows?: Readonly<Record<string, number | null>>;
  /** Between runs (default an hour). */
  everyMs?: number;
  /** Messages a transaction (default 2000). */
  batch?: number;
  /** One line a chatflow pruned (and for a failed run); the CLI writes them to stderr. */
  log: (line: string) => void;
}

export interface Retention {
  /** Resolves when the next run (or the one under way) has finished: for tests and shutdown. */
  idle(): Promise<void>;
  /** Stops after the batch under way. */
  stop(): Promise<void>;
}

const HOUR = 3_600_000;

export function startRetention(store: Store, policy: RetentionPolicy): Retention {
  const batch = policy.batch ?? 2000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function pruneChatflow(chatflowid: string, keepMs: number): Promise<void> {
    const cutoff = new Date(Date.now() - keepMs);
    // Inclusive bound: the last millisecond before the cut-off.
    const end = new Date(cutoff.getTime() - 1).toISOString();
    let removed = 0;
    for (;;) {
      if (stopped) break;
      const n = await store.messages.delete({ chatflowid, end }, { limit: batch });
      removed += n;
      if (n < batch) break;
      // Let waiting requests run before the next batch.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (removed > 0) policy.log(`retention: removed ${removed} message${removed === 1 ? '' : 's'} of chatflow ${chatflowid} created before ${cutoff.toISOString()}`);
  }

  async function run(): Promise<void> {
    try {
      const overrides = policy.chatflows ?? {};
      const ids = new Set([...(await store.listChatflows()).map((c) => c.id), ...Object.keys(overrides)]);
      for (const id of ids) {
        const keepMs = id in overrides ? overrides[id] : policy.keepMs;
        if (keepMs != null && !stopped) await pruneChatflow(id, keepMs);
      }
    } catch (err) {
      // The next run tries again; the service keeps serving.
      policy.log(`retention: run failed: ${(err as Error).message}`);
    }
  }

  const schedule = () => {
    running = run().then(() => {
      if (!stopped) timer = setTimeout(schedule, policy.everyMs ?? HOUR).unref();
    });
  };
  setImmediate(schedule);

  return {
    idle: () => new Promise<void>((resolve) => setImmediate(() => void running.then(resolve))),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
