// `chatflow import` handler: the lines of an export (../export/lines.ts) into our service, through its ingest
// routes, in batches that are each one transaction. Ids and dates are kept and existing ids are
// skipped, so an import can be run again. A bad line stops the import before anything of its
// batch is sent (`--continue-on-error` skips it instead); the file is read as it goes, never whole.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ChatflowError, DEFAULT_BATCH, JsonText, type ChatflowClient } from '../../client/index.js';
import { MESSAGE_ROLES, RATINGS } from '../../schema/enums.js';
import type { importCommand } from './commands.js';
import type { Flags } from '../core/command.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError, messageOf } from '../base/errors.js';
import { isObject, parseObject } from '../base/json-object.js';
import { createProgress, type Progress } from '../base/progress.js';
import { groupDigits, plural } from '../render/text.js';
import { PER_CHATFLOW, RESOURCES, RESOURCE_OF_TAG, parseResources, type Resource } from '../export/lines.js';

type ImportFlags = Flags<typeof importCommand>;

type Data = Record<string, unknown>;

interface Line {
  resource: Resource;
  chatflowid: string | undefined;
  data: Data;
  /** `data`'s JSON as the line holds it, when it can be sent as it is (see dataText). */
  dataText?: string;
}

interface Batch {
  resource: Resource;
  chatflowid: string | undefined;
  /** Variables and assistants as objects (their names are looked at); other records as JSON text. */
  items: (Data | JsonText)[];
  /** The line number of each item. */
  lines: number[];
  bytes: number;
}

/** Batches sent at once (each is its own transaction: their order within one resource does not matter). */
const MAX_IN_FLIGHT = 2;
/** `--continue-on-error` reports this many bad lines one by one, then only counts them. */
const MAX_REPORTED = 100;

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const TAG_LIST = 'chatflow, variable, assistant, message, feedback or upsert-history';

/**
 * The text of `data` in a line as an export writes it (`data` its last key, nothing after it but
 * the closing brace), so that the record is sent as the line holds it instead of being written
 * again (JSON.stringify took as long as parsing the line). Undefined for any other line: one whose
 * text holds `"data"` anywhere else (a second key of that name: JSON keeps the last) or a `\u`
 * escape (which could spell one).
 */
function dataText(text: string, value: Data): string | undefined {
  const keys = Object.keys(value);
  if (keys[keys.length - 1] !== 'data' || !text.endsWith('}')) return undefined;
  let head = '{';
  for (let i = 0; i < keys.length - 1; i++) head += `${JSON.stringify(keys[i])}:${JSON.stringify(value[keys[i]!])},`;
  head += '"data":';
  if (!text.startsWith(head) || text.lastIndexOf('"data"') !== head.length - 7 || text.includes('\\u')) return undefined;
  return text.slice(head.length, -1);
}

/** The record a line holds, or why it cannot be imported. */
function parseLine(text: string): Line | string {
  const value = parseObject(text);
  if (typeof value === 'string') return value;
  const tag = value.resource;
  const resource = typeof tag === 'string' ? (RESOURCE_OF_TAG.get(tag) ?? (RESOURCES.find((r) => r === tag))) : undefined;
  if (!resource) return tag === undefined ? `no "resource" (one of ${TAG_LIST})` : `unknown resource ${JSON.stringify(tag)}: expected ${TAG_LIST}`;
  const data = value.data;
  if (!isObject(data)) return '"data" must be an object';
  if (!isText(data.id)) return 'data.id is missing: records are imported with their ids';
  let chatflowid: string | undefined;
  if (PER_CHATFLOW.has(resource)) {
    const given = value.chatflowid ?? data.chatflowid;
    if (given !== undefined && !isText(given)) return '"chatflowid" must be a non-empty string';
    chatflowid = given;
    if (chatflowid === undefined && resource !== 'feedback') return `a ${tag} line needs "chatflowid"`;
  }
  switch (resource) {
    case 'chatflows':
      if (!isText(data.name)) return 'data.name must be a non-empty string';
      if (!isText(data.flowData)) return 'data.flowData must be JSON text (as the server lists it)';
      break;
    case 'variables':
      if (!isText(data.name)) return 'data.name must be a non-empty string';
      break;
    case 'assistants':
      if (!isObject(data.details) || !isText(data.details.name)) return 'data.details must be an object with a name';
      break;
    case 'messages':
      if (!(MESSAGE_ROLES as readonly unknown[]).includes(data.role)) return `data.role must be ${MESSAGE_ROLES.join(' or ')}`;
      break;
    case 'feedback':
      if (!isText(data.messageId)) return 'data.messageId must be a non-empty string';
      if (!(RATINGS as readonly unknown[]).includes(data.rating)) return `data.rating must be ${RATINGS.join(' or ')}`;
      break;
    case 'upsert-history':
      break;
  }
  return { resource, chatflowid, data, dataText: dataText(text, value) };
}

/** The file's lines, a chunk at a time, with the bytes read so far (for progress). */
async function* readLines(input: NodeJS.ReadableStream): AsyncGenerator<{ lines: string[]; bytes: number }> {
  let rest: Buffer | undefined;
  let bytes = 0;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
    const lines: string[] = [];
    let start = 0;
    let nl: number;
    // A newline byte never occurs inside a UTF-8 sequence: splitting bytes is safe.
    while ((nl = buf.indexOf(10, start)) >= 0) {
      lines.push(buf.toString('utf8', start, nl > start && buf[nl - 1] === 13 ? nl - 1 : nl));
      start = nl + 1;
    }
    rest = start < buf.length ? buf.subarray(start) : undefined;
    yield { lines, bytes };
  }
  if (rest) yield { lines: [rest.toString('utf8')], bytes };
}

/**
 * Variables and assistants are one per name (a variable's `name`, an assistant's `details.name`):
 * the identity rule `variables sync`, `assistants sync` and `variables set` follow too. A record
 * whose name the target holds under the same id is there already (skipped, as the server skips an
 * existing id); under another id it is a clash: skipped too, never a second one of that name, and
 * said (`clash`). The others keep their ids. `known` maps the target's names to their ids, and
 * holds those this import has written.
 */
type NamedResource = 'variables' | 'assistants';
const isNamed = (resource: Resource): resource is NamedResource => resource === 'variables' || resource === 'assistants';
const NOUN: Record<NamedResource, string> = { variables: 'variable', assistants: 'assistant' };

function nameOf(resource: NamedResource, data: Data): string | undefined {
  if (resource === 'variables') return typeof data.name === 'string' ? data.name : undefined;
  let details = data.details;
  if (typeof details === 'string') {
    try {
      details = JSON.parse(details) as unknown;
    } catch {
      return undefined;
    }
  }
  const name = isObject(details) ? details.name : undefined;
  return typeof name === 'string' ? name : undefined;
}

async function knownNames(client: ChatflowClient, resource: NamedResource): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  const records = resource === 'variables' ? client.variables.stream() : client.assistants.stream();
  for await (const r of records as AsyncIterable<Data & { id: string }>) {
    const name = nameOf(resource, r);
    if (name !== undefined && !known.has(name)) known.set(name, r.id);
  }
  return known;
}

async function sendNamed(
  client: ChatflowClient,
  batch: Batch & { resource: NamedResource },
  known: Map<string, string>,
  clash: (line: number, why: string) => void,
): Promise<{ affected: number }> {
  const fresh: Data[] = [];
  const claimed: string[] = [];
  for (const [i, item] of (batch.items as Data[]).entries()) {
    const name = nameOf(batch.resource, item);
    const held = name === undefined ? undefined : known.get(name);
    if (name === undefined || held === undefined) {
      fresh.push(item);
      // Claimed before sending: a batch in flight beside this one must not send the name again.
      if (name !== undefined) {
        known.set(name, String(item.id ?? ''));
        claimed.push(name);
      }
    } else if (held !== item.id) {
      clash(batch.lines[i]!, `${NOUN[batch.resource]} ${JSON.stringify(name)}: the target has one of that name (id ${held}); skipped, one ${NOUN[batch.resource]} per name`);
    }
  }
  if (fresh.length === 0) return { affected: 0 };
  try {
    return await (batch.resource === 'variables' ? client.variables.ingest(fresh as never) : client.assistants.ingest(fresh as never));
  } catch (err) {
    for (const name of claimed) known.delete(name);
    throw err;
  }
}

interface Identity {
  known(resource: NamedResource): Promise<Map<string, string>>;
  clash(line: number, why: string): void;
}

function send(client: ChatflowClient, batch: Batch, identity: Identity): Promise<{ affected: number }> {
  const { items, chatflowid } = batch;
  switch (batch.resource) {
    case 'variables':
    case 'assistants': {
      const named = batch as Batch & { resource: NamedResource };
      return identity.known(named.resource).then((known) => sendNamed(client, named, known, (line, why) => identity.clash(line, why)));
    }
    case 'chatflows':
      return client.chatflows.ingest(items as never);
    case 'messages':
      return client.messages.ingest(chatflowid!, items as never);
    case 'feedback':
      return client.feedback.ingest(items as never);
    case 'upsert-history':
      return client.upsertHistory.ingest(chatflowid!, items as never);
  }
}

/**
 * A batch that could not be written because of its lines: the server refused it as invalid (the
 * whole batch is one transaction: nothing was written), or a record nests too deep to be sent
 * at all (JSON.stringify runs out of stack: a RangeError).
 */
const isRejection = (err: unknown): err is ChatflowError | RangeError =>
  err instanceof RangeError || (err instanceof ChatflowError && err.kind === 'http' && [400, 409, 413, 422].includes(err.status ?? 0));

const TOO_DEEP = 'nested too deep to be sent';

/** Which item of a batch cannot be serialised (found only once sending failed so). */
function unsendable(batch: Batch): number {
  return batch.items.findIndex((item) => {
    try {
      JSON.stringify(item);
      return false;
    } catch {
      return true;
    }
  });
}

/** The line a refusal names (the server names an item of the array as `[i]`), and why. */
function rejectionMessage(err: ChatflowError | RangeError, batch: Batch): string {
  if (err instanceof RangeError) {
    const line = batch.lines[unsendable(batch)];
    return line === undefined ? TOO_DEEP : `line ${line}: ${TOO_DEEP}`;
  }
  // The file's fields are the user's words here: the message as the server said it, no route.
  const said = messageOf(err);
  const m = /\[(\d+)\]\.?/.exec(said);
  const line = m ? batch.lines[Number(m[1])] : batch.lines.length === 1 ? batch.lines[0] : undefined;
  return line === undefined ? said : `line ${line}: ${said.replace(m?.[0] ?? '', '')}`;
}

const span = (lines: number[]) => (lines.length === 1 ? `line ${lines[0]}` : `lines ${lines[0]}–${lines[lines.length - 1]}`);

interface Tally {
  records: number;
  imported: number;
}

class Importer {
  readonly tally = new Map<Resource, Tally>(RESOURCES.map((r) => [r, { records: 0, imported: 0 }]));
  bad = 0;
  /** The first bad lines' numbers, for the summary. */
  readonly badLines: number[] = [];
  unselected = 0;
  private batch: Batch | undefined;
  private inFlight: Promise<void>[] = [];
  /** The resource and chatflow of the batches in flight. */
  private inFlightKey: string | undefined;
  private failure: unknown;
  /** Records skipped because the target has their name under another id. */
  clashes = 0;
  private readonly clashed = new Set<number>();
  private readonly names = new Map<NamedResource, Promise<Map<string, string>>>();
  /** The target's names (asked once, when the first records of the kind are sent), and clashes said. */
  private readonly identity: Identity = {
    known: (resource) => {
      let known = this.names.get(resource);
      if (!known) this.names.set(resource, (known = knownNames(this.client!, resource)));
      return known;
    },
    clash: (line, why) => {
      // (A refused batch is sent again record by record: a clash is said once.)
      if (this.clashed.has(line)) return;
      this.clashed.add(line);
      this.clashes++;
      if (this.clashes <= MAX_REPORTED) this.progress.interrupt(() => this.opts.warn(`line ${line}: ${why}`));
      if (this.clashes === MAX_REPORTED + 1) this.progress.interrupt(() => this.opts.warn('more names taken: only counting them from now on'));
    },
  };

  constructor(
    private readonly client: ChatflowClient | undefined,
    private readonly opts: { continueOnError: boolean; resources: Set<Resource>; warn: (msg: string) => void },
    private readonly progress: Progress,
  ) {}

  /** One line of the file; throws (exit 2) on a bad one unless errors are skipped. */
  async line(text: string, lineNo: number): Promise<void> {
    if (text.trim() === '') return;
    const parsed = parseLine(text);
    if (typeof parsed === 'string') return this.badLine(lineNo, parsed);
    if (!this.opts.resources.has(parsed.resource)) {
      this.unselected++;
      return;
    }
    const { resource, chatflowid, data, dataText } = parsed;
    // A record is held as the JSON it is sent as, never as the parsed object: a batch of 10,000
    // messages so takes a fraction of the memory (a million-message import held hundreds of MB
    // of them between collections). Variables and assistants stay objects: their names count.
    let item: Data | JsonText = data;
    if (!isNamed(resource)) {
      try {
        item = new JsonText(dataText ?? JSON.stringify(data));
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        return this.badLine(lineNo, TOO_DEEP);
      }
    }
    // `data` is part of the line: the line's size bounds the size of the record sent.
    const bytes = Buffer.byteLength(text) + 1;
    const { maxBytes, maxItems } = this.client?.batch ?? DEFAULT_BATCH;
    if (bytes > maxBytes) return this.badLine(lineNo, `too big to send (${bytes} bytes; a request carries at most ${maxBytes})`);
    const b = this.batch;
    // A batch holds one resource of one chatflow, and keeps the file's order: feedback is sent
    // only after the messages before it.
    // Within the client's bounds (a dry run has no client): a line's bytes bound its record's
    // JSON, so the client never splits a batch into several transactions.
    if (b && (b.resource !== resource || b.chatflowid !== chatflowid || b.items.length >= maxItems || b.bytes + bytes > maxBytes)) {
      await this.flush();
    }
    this.batch ??= { resource, chatflowid, items: [], lines: [], bytes: 0 };
    this.batch.items.push(item);
    this.batch.lines.push(lineNo);
    this.batch.bytes += bytes;
    this.tally.get(resource)!.records++;
  }

  private async badLine(lineNo: number, why: string): Promise<void> {
    if (!this.opts.continueOnError) {
      await this.settle();
      const from = this.batch?.lines[0] ?? lineNo;
      const written = !this.client
        ? ' (--dry-run: nothing was sent)'
        : `; nothing from line ${from} on was imported` +
          (from > 1 ? ` (the lines before ${from} were; importing again skips them)` : '');
      throw new UsageError(`line ${lineNo}: ${why}${written}; fix the line, or skip bad lines with --continue-on-error`);
    }
    this.bad++;
    if (this.badLines.length < 10) this.badLines.push(lineNo);
    if (this.bad <= MAX_REPORTED) this.progress.interrupt(() => this.opts.warn(`line ${lineNo}: skipped: ${why}`));
    if (this.bad === MAX_REPORTED + 1) this.progress.interrupt(() => this.opts.warn('more bad lines: only counting them from now on'));
  }

  /**
   * Sends the current batch while the next ones are read. Up to MAX_IN_FLIGHT batches of one
   * resource and chatflow go at once, so that the service never waits for the next request; a
   * batch of another resource waits for them all (feedback only after its messages).
   */
  async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = undefined;
    if (!batch) return;
    const key = `${batch.resource}\0${batch.chatflowid ?? ''}`;
    if (key !== this.inFlightKey) await this.settle();
    else if (this.inFlight.length >= MAX_IN_FLIGHT) await this.inFlight.shift();
    if (this.failure !== undefined) await this.settle();
    if (!this.client) {
      this.progress.add(batch.items.length);
      return;
    }
    this.inFlightKey = key;
    this.inFlight.push(
      this.deliver(this.client, batch).catch((err: unknown) => {
        this.failure ??= err;
      }),
    );
  }

  /** Waits for every batch in flight; rethrows the first failure. */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight);
    this.inFlight = [];
    this.inFlightKey = undefined;
    if (this.failure !== undefined) throw this.failure;
  }

  private async deliver(client: ChatflowClient, batch: Batch): Promise<void> {
    const tally = this.tally.get(batch.resource)!;
    try {
      // (Awaited first: `x += await y` reads x before waiting, and another batch may add meanwhile.)
      const { affected } = await send(client, batch, this.identity);
      tally.imported += affected;
    } catch (err) {
      if (!isRejection(err)) throw err;
      const what = `${batch.resource}${batch.chatflowid === undefined ? '' : ` of chatflow ${batch.chatflowid}`}`;
      if (!this.opts.continueOnError) {
        const refused = `${err instanceof RangeError ? 'could not send' : 'the server refused'} ${span(batch.lines)} (${what}): ${rejectionMessage(err, batch)}`;
        throw new UsageError(`${refused}; nothing of these lines was imported; fix the line, or skip bad lines with --continue-on-error`);
      }
      // Find the bad records: one request each, for this batch only.
      for (const [i, item] of batch.items.entries()) {
        const one: Batch = { ...batch, items: [item], lines: [batch.lines[i]!] };
        try {
          const { affected } = await send(client, one, this.identity);
          tally.imported += affected;
        } catch (e) {
          if (!isRejection(e)) throw e;
          tally.records--;
          await this.badLine(one.lines[0]!, e instanceof RangeError ? TOO_DEEP : messageOf(e).replace(/^\[0\]\.?/, ''));
        }
      }
    }
    this.progress.add(batch.items.length);
  }
}

/** What the server has acknowledged so far, per resource: `12 variables, 5000 messages`. */
function written(importer: Importer): string {
  const parts = RESOURCES.map((r) => [r, importer.tally.get(r)!.imported] as const).filter(([, n]) => n > 0);
  return parts.length ? parts.map(([r, n]) => `${groupDigits(n)} ${r}`).join(', ') : 'nothing';
}

export async function importFile(ctx: Context, file: string, opts: ImportFlags): Promise<number | void> {
  const resources = new Set(parseResources(opts.resources));
  let input: NodeJS.ReadableStream;
  let size: number | undefined;
  if (file === '-') input = process.stdin;
  else {
    try {
      size = (await stat(file)).size;
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    input = createReadStream(file, { highWaterMark: 256 * 1024 });
  }
  const client = opts.dryRun ? undefined : await ctx.client();
  const progress = createProgress({ label: opts.dryRun ? 'check' : 'import', unit: 'records', flag: opts.progress });
  const importer = new Importer(client, { continueOnError: opts.continueOnError === true, resources, warn: (msg) => ctx.out.warn(msg) }, progress);
  const started = performance.now();
  let lineNo = 0;
  // Ctrl-C: say what got in (batches the server acknowledged; one in flight may have too).
  const onSignal = () => {
    progress.done();
    ctx.out.note(
      `interrupted at line ${lineNo}: imported ${written(importer)}` +
        (opts.dryRun ? '' : ' (a batch in flight may be in too); running the import again skips what is there'),
    );
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', onSignal);
  try {
    for await (const { lines, bytes } of readLines(input)) {
      for (const text of lines) await importer.line(text, ++lineNo);
      if (size) progress.add(0, Math.min(1, bytes / size));
    }
    await importer.flush();
    await importer.settle();
  } finally {
    process.removeListener('SIGINT', onSignal);
    progress.done();
  }

  const rows = RESOURCES.filter((r) => resources.has(r)).map((resource) => {
    const { records, imported } = importer.tally.get(resource)!;
    return opts.dryRun ? { resource, records } : { resource, records, imported, existing: records - imported };
  });
  await ctx.print(rows, { idField: 'resource' });
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  const records = rows.reduce((n, r) => n + r.records, 0);
  const imported = rows.reduce((n, r) => n + (r.imported ?? 0), 0);
  // What got in and what was there already: a second import of a file imports nothing.
  const outcome = opts.dryRun
    ? `${plural(records, 'record')} would be sent ${await ctx.target()} (records already there are skipped)`
    : `${groupDigits(imported)} imported ${await ctx.target()}, ${groupDigits(records - imported)} skipped (already there)`;
  ctx.out.note(
    `${opts.dryRun ? 'checked' : 'read'} ${plural(lineNo, 'line')} in ${secs}s: ${outcome}` +
      (importer.bad ? `, ${plural(importer.bad, 'bad line')} skipped` : '') +
      (importer.clashes ? `, ${plural(importer.clashes, 'record')} skipped whose name the target has under another id` : '') +
      (importer.unselected ? `, ${plural(importer.unselected, 'line')} of other resources left out` : ''),
  );
  if (importer.bad) {
    const which = [...importer.badLines].sort((a, b) => a - b).join(', ') + (importer.bad > importer.badLines.length ? ', …' : '');
    throw new UserError(`${plural(importer.bad, 'bad line')} skipped (line ${which}); the rest was ${opts.dryRun ? 'checked' : 'imported'}`, EXIT.error);
  }
}
