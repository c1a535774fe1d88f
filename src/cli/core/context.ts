// What a handler gets besides its arguments and flags: the run's Output, and a client for the
// chosen server (made on first use, through core/connection.ts), released when the run ends.
import type { ChatflowClient } from '../../client/index.js';
import type { FlagValues } from './flag-def.js';
import type { DATA } from './flags.js';
import { openSession, resolveConnection, timeoutMs, type Connection, type Session } from './connection.js';
import type { ListView } from '../render/list-table.js';
import type { ListSource } from '../render/records.js';
import type { Output, PrintOptions } from './output.js';

/** The flags every run may carry (program-level and the command's own, nearest winning). */
export type GlobalFlags = FlagValues<typeof DATA>;

const dataChangedHooks: (() => unknown)[] = [];

/**
 * Registers what runs after a run whose requests changed data: a feature's cache that such a
 * change makes stale (the completion cache, registered by main.ts) drops itself here.
 */
export function onDataChanged(hook: () => unknown): void {
  dataChangedHooks.push(hook);
}

export class Context {
  private session?: Promise<Session>;
  private changed = false;

  constructor(
    readonly flags: GlobalFlags,
    readonly out: Output,
  ) {}

  timeoutMs(): number {
    return timeoutMs(this.flags.timeout);
  }

  /** The server the flags, environment and profile point to (flag > env > profile > embedded). */
  connection(): Promise<Connection> {
    return resolveConnection({ flagUrl: this.flags.url, flagApiKey: this.flags.apiKey, flagApiKeyFile: this.flags.apiKeyFile, flagProfile: this.flags.profile });
  }

  /**
   * Where the command's changes land, in words a confirmation and --dry-run end with (as kubectl
   * names its context): `on http://flowise:3000 (profile prod)`, `on the local database ~/…`.
   */
  async target(): Promise<string> {
    const conn = await this.connection();
    if (conn.url) {
      const from = conn.source === 'profile' ? ` (profile ${conn.profile})` : conn.source === 'env' ? ' (CHATFLOW_URL)' : '';
      return `on ${conn.url}${from}`;
    }
    const [{ defaultDbPath }, { shownPath }] = await Promise.all([import('../../server/default-db.js'), import('../base/dirs.js')]);
    return `on the local database ${shownPath(defaultDbPath())}`;
  }

  /** The client (made on first use).  */
  async client(): Promise<ChatflowClient> {
    return (await (this.session ??= this.open())).client;
  }

  /** Whether the client talks to the embedded service (known once `client()` has answered). */
  async usesEmbedded(): Promise<boolean> {
    return this.session ? (await this.session).embedded : false;
  }

  private async open(): Promise<Session> {
    const ms = this.timeoutMs();
    const conn = await this.connection();
    return openSession(conn, { timeoutMs: ms, trace: this.out.debug ? this.out.trace : undefined, warn: (w) => this.out.warn(w) });
  }

  print(records: ListSource | object, opts?: PrintOptions): Promise<number> {
    return this.out.print(records, opts);
  }

  printList(records: ListSource, what: string, columns?: ListView | string[]): Promise<number> {
    return this.out.printList(records, what, columns);
  }

  /** The run changed data other than through the client (`db restore`): onDataChanged's hooks run at its end too. */
  changedData(): void {
    this.changed = true;
  }

  async close(): Promise<void> {
    const session = this.session ? await this.session.catch(() => undefined) : undefined;
    await session?.close();
    if (this.changed || session?.client.changedData) for (const hook of dataChangedHooks) await hook();
  }
}
