// What every command needs: the global options, a client for the chosen server (the embedded one
// started lazily when none is configured), and output in the chosen format.
import type { Command } from 'commander';
import type { ChatflowClient } from '../client/index.js';
import { checkPermissions, resolveConnection, getProfile, type Connection } from './config.js';
import { UsageError } from './exit.js';
import { printNote, printWarning, resolveFormat, writeRecords, type Format, type Rec, type RecordSource } from './output.js';

let warnedReadable = false;
/** A key taken from a config file that other users can read may be known to them: say so, once. */
export async function warnIfKeyFileReadable(): Promise<void> {
  if (warnedReadable) return;
  warnedReadable = true;
  const warning = await checkPermissions();
  if (warning) printWarning(warning);
}

export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  profile?: string;
  output?: string;
  json?: boolean;
  fields?: string;
  quiet?: boolean;
  color?: boolean;
  debug?: boolean;
  timeout?: string;
  input?: boolean;
}

interface Embedded {
  close(): Promise<void>;
}

/** Context of one invocation; `close()` releases the client and any embedded service. */
export class Context {
  private clientPromise?: Promise<ChatflowClient>;
  private embedded?: Embedded;
  private formatCache?: Format;

  constructor(readonly globals: GlobalOptions) {}

  /**
   * Options of the command and its ancestors, the nearest given value winning: `chatflow -o yaml
   * vars ls -o csv` is csv. (commander's optsWithGlobals lets the ancestors win.) A default never
   * overrides a value that was given.
   */
  static of(command: Command): Context {
    const chain: Command[] = [];
    for (let c: Command | null = command; c; c = c.parent) chain.unshift(c);
    const merged: Record<string, unknown> = {};
    const given = new Set<string>();
    for (const cmd of chain) {
      for (const [key, value] of Object.entries(cmd.opts())) {
        const isDefault = cmd.getOptionValueSource(key) === 'default';
        if (value === undefined || (isDefault && (given.has(key) || key in merged))) continue;
        merged[key] = value;
        if (!isDefault) given.add(key);
      }
    }
    return new Context(merged as GlobalOptions);
  }

  get debug(): boolean {
    return this.globals.debug === true;
  }

  /** The output format after flag, profile default and terminal detection. */
  async format(): Promise<Format> {
    if (!this.formatCache) {
      const profileDefault = this.globals.output || this.globals.json ? undefined : await this.profileOutput();
      this.formatCache = resolveFormat(this.globals, profileDefault);
    }
    return this.formatCache;
  }

  /** The format asked for by flag or profile (not guessed from the terminal): errors follow it. */
  async chosenFormat(): Promise<Format | undefined> {
    if (this.globals.json) return 'json';
    const chosen = this.globals.output || (await this.profileOutput());
    return chosen ? resolveFormat({ output: chosen }) : undefined;
  }

  private async profileOutput(): Promise<string | undefined> {
    try {
      return (await getProfile(this.globals.profile ?? process.env.CHATFLOW_PROFILE)).output;
    } catch {
      return undefined;
    }
  }

  timeoutMs(): number {
    const raw = this.globals.timeout ?? '30';
    const seconds = Number(raw);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`invalid --timeout "${raw}": give seconds, e.g. 30`);
    return Math.round(seconds * 1000);
  }

  connection(): Promise<Connection> {
    return resolveConnection({ flagUrl: this.globals.url, flagApiKey: this.globals.apiKey, flagProfile: this.globals.profile });
  }

  /** `bulk`: long work (export, import), for which an embedded service gets a thread of its own. */
  client(opts: { bulk?: boolean } = {}): Promise<ChatflowClient> {
    return (this.clientPromise ??= this.connect(opts.bulk === true));
  }

  /** Whether the client talks to the embedded service (known once `client()` has answered). */
  get usesEmbedded(): boolean {
    return this.embedded !== undefined;
  }

  private async connect(bulk: boolean): Promise<ChatflowClient> {
    const timeoutMs = this.timeoutMs();
    const conn = await this.connection();
    if (conn.apiKeySource === 'profile') await warnIfKeyFileReadable();
    const { createClient } = await import('../client/index.js');
    const onDebug = this.debug ? (line: string) => printNote(`debug: ${line}`) : undefined;
    if (conn.url) return createClient({ baseUrl: conn.url, apiKey: conn.apiKey, timeoutMs, onDebug });
    const { startEmbedded } = await import('./embedded.js');
    const embedded = await startEmbedded({ thread: bulk });
    this.embedded = embedded;
    onDebug?.(`embedded service on ${embedded.url} (database ${embedded.dbPath})`);
    return createClient({ baseUrl: embedded.url, apiKey: embedded.apiKey, timeoutMs, onDebug });
  }

  /** Writes records (or one record) to stdout in the chosen format; answers how many. */
  async print(records: AsyncIterable<object> | Iterable<object> | object, opts: { columns?: string[]; single?: boolean; idField?: string } = {}): Promise<number> {
    return writeRecords(records as RecordSource | Rec, {
      format: await this.format(),
      fields: this.globals.fields?.split(',').map((f) => f.trim()).filter(Boolean),
      quiet: this.globals.quiet,
      ...opts,
    });
  }

  /** A list: the records, or `No <things> found.` on stderr when there are none. */
  async printList(records: AsyncIterable<object> | Iterable<object>, what: string, columns?: string[]): Promise<void> {
    const n = await this.print(records, { columns });
    if (n === 0) printNote(`No ${what} found.`);
  }

  async close(): Promise<void> {
    const client = this.clientPromise ? await this.clientPromise.catch(() => undefined) : undefined;
    await client?.close();
    await this.embedded?.close();
    // The ids TAB offers may be gone, or new: the next completion asks the server again.
    if (client?.changedData) (await import('./complete.js')).forgetLiveValues();
  }
}
