// `chatflow import` handler: the lines of an export (../export/lines.ts) into our service, through its ingest
// routes: each run of records of one resource (and chatflow) one streamed NDJSON request, which the
// service commits batch by batch as it arrives. Ids and dates are kept and existing ids are
// skipped, so an import can be run again. A bad line stops the import there, the lines before it
// written (`--continue-on-error` skips it instead); the file is read as it goes, never whole
// (into the embedded database its lines are decoded and parsed on a thread of their own,
// reader.ts), and nothing of it is held but a few chunks' records (and, with
// --continue-on-error, the records of one batch, to send them again without a refused one).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ChatflowError, DEFAULT_BATCH, type ChatflowClient, type IngestStream } from '../../client/index.js';
import type { importCommand } from './commands.js';
import type { Flags } from '../core/command.js';
import { MAX_INGEST_ITEMS } from '../../schema/limits.js';
import type { Context } from '../core/context.js';
import { EXIT, UsageError, UserError, messageOf } from '../base/errors.js';
import { createProgress, type Progress } from '../base/progress.js';
import { groupDigits, plural } from '../render/text.js';
import { RESOURCES, parseResources, type Resource } from '../export/lines.js';
import { TOO_DEEP, isNamed, nameOf, NOUN, type Data, type LineRecord, type NamedResource } from './lines.js';
import { readRecords } from './reader.js';

type ImportFlags = Flags<typeof importCommand>;

/**
 * The records of one resource (and chatflow) in a row of the file: one streamed request to the
 * service, which commits them batch by batch (client IngestStream).
 */
interface Run {
  resource: Resource;
  chatflowid: string | undefined;
  stream: IngestStream;
  /** Records written to it. */
  records: number;
  /**
   * Which line of the file each record is: where a record's line is not the one before it plus
   * one, its number in the stream (from 1) and its line, in pairs.
   */
  jumps: number[];
  lastLine: number;
  /** With --continue-on-error: each record's text and line, to be sent again without a refused one. */
  kept?: { text: string | Uint8Array; line: number; name?: string }[];
}

/** `--continue-on-error` reports this many bad lines one by one, then only counts them. */
const MAX_REPORTED = 100;

/**
 * Variables and assistants are one per name (a variable's `name`, an assistant's `details.name`):
 * the identity rule `variables sync`, `assistants sync` and `variables set` follow too. A record
 * whose name the target holds under the same id is there already (skipped, as the server skips an
 * existing id); under another id it is a clash: skipped too, never a second one of that name, and
 * said (`clash`). The others keep their ids. `known` maps the target's names to their ids, and
 * holds those this import has written.
 */
async function knownNames(client: ChatflowClient, resource: NamedResource): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  const records = resource === 'variables' ? client.variables.stream() : client.assistants.stream();
  for await (const r of records as AsyncIterable<Data & { id: string }>) {
    const name = nameOf(resource, r);
    if (name !== undefined && !known.has(name)) known.set(name, r.id);
  }
  return known;
}

/** The stream a run of `resource` goes in. */
function streamOf(client: ChatflowClient, resource: Resource, chatflowid: string | undefined): IngestStream {
  switch (resource) {
    case 'variables':
      return client.variables.ingestStream();
    case 'assistants':
      return client.assistants.ingestStream();
    case 'chatflows':
      return client.chatflows.ingestStream();
    case 'messages':
      return client.messages.ingestStream(chatflowid!);
    case 'feedback':
      return client.feedback.ingestStream();
    case 'upsert-history':
      return client.upsertHistory.ingestStream(chatflowid!);
  }
}

/** A stream the server refused because of a line (nothing of that line's batch is written). */
const isRejection = (err: unknown): err is ChatflowError => err instanceof ChatflowError && err.kind === 'http' && [400, 409, 413, 422].includes(err.status ?? 0);

/**
 * What the server said of a refused stream (ndjson.ts): the line of the stream it refused, why,
 * and the first line it did not write. Undefined when it named no line.
 */
function refusal(err: ChatflowError): { line: number; why: string; unwritten: number } | undefined {
  const said = messageOf(err);
  const m = /^line (\d+): (.*?); (?:nothing was written|.*nothing from line (\d+) on)$/s.exec(said);
  return m ? { line: Number(m[1]), why: m[2]!, unwritten: m[3] === undefined ? 1 : Number(m[3]) } : undefined;
}

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
  private run: Run | undefined;
  /** Records skipped because the target has their name under another id. */
  clashes = 0;
  /** The target's names of each named kind (asked when its first record comes), and those this import has sent. */
  private readonly names = new Map<NamedResource, Map<string, string>>();

  constructor(
    private readonly client: ChatflowClient | undefined,
    private readonly opts: { continueOnError: boolean; resources: Set<Resource>; warn: (msg: string) => void },
    private readonly progress: Progress,
  ) {}

  /** One line of the file, as read (lines.ts); throws (exit 2) on a bad one unless errors are skipped. */
  async line(record: LineRecord<string | Uint8Array>, lineNo: number): Promise<void> {
    if (record === null) return;
    if ('bad' in record) return this.badLine(lineNo, record.bad);
    if (!this.opts.resources.has(record.resource)) {
      this.unselected++;
      return;
    }
    const { resource, chatflowid, json } = record;
    if (json === undefined) return this.badLine(lineNo, TOO_DEEP);
    // `data` is part of the line: the line's size bounds the size of the record sent.
    const { maxBytes } = this.client?.batch ?? DEFAULT_BATCH;
    if (record.bytes > maxBytes) return this.badLine(lineNo, `too big to send (${record.bytes} bytes; a record carries at most ${maxBytes})`);
    // A run holds one resource of one chatflow, and keeps the file's order: feedback is sent
    // only after the messages before it. With --continue-on-error a run is one batch of the
    // service's at most, kept to be sent again without a line it refuses.
    const r = this.run;
    if (r && (r.resource !== resource || r.chatflowid !== chatflowid || (r.kept && r.records >= MAX_INGEST_ITEMS))) await this.endRun();
    let name: string | undefined;
    if (isNamed(resource) && this.client) {
      name = record.name;
      const known = await this.known(resource);
      const held = name === undefined ? undefined : known.get(name);
      if (held !== undefined) {
        this.tally.get(resource)!.records++;
        if (held !== record.id) this.clash(lineNo, `${NOUN[resource]} ${JSON.stringify(name)}: the target has one of that name (id ${held}); skipped, one ${NOUN[resource]} per name`);
        return;
      }
      if (name !== undefined) known.set(name, record.id);
    }
    this.tally.get(resource)!.records++;
    await this.write(resource, chatflowid, json, lineNo, name);
  }

  private async known(resource: NamedResource): Promise<Map<string, string>> {
    let known = this.names.get(resource);
    if (!known) {
      // (Asked before this run's stream starts: one request at a time on the connection.)
      known = await knownNames(this.client!, resource);
      this.names.set(resource, known);
    }
    return known;
  }

  private clash(line: number, why: string): void {
    this.clashes++;
    if (this.clashes <= MAX_REPORTED) this.progress.interrupt(() => this.opts.warn(`line ${line}: ${why}`));
    if (this.clashes === MAX_REPORTED + 1) this.progress.interrupt(() => this.opts.warn('more names taken: only counting them from now on'));
  }

  /** A record into the run of its resource and chatflow (a dry run counts it only). */
  private async write(resource: Resource, chatflowid: string | undefined, json: string | Uint8Array, line: number, name?: string): Promise<void> {
    if (!this.client) {
      this.progress.add(1);
      return;
    }
    const run = (this.run ??= {
      resource,
      chatflowid,
      stream: streamOf(this.client, resource, chatflowid),
      records: 0,
      jumps: [],
      lastLine: -1,
      ...(this.opts.continueOnError ? { kept: [] } : {}),
    });
    run.records++;
    if (line !== run.lastLine + 1) run.jumps.push(run.records, line);
    run.lastLine = line;
    run.kept?.push({ text: json, line, ...(name === undefined ? {} : { name }) });
    this.progress.add(1);
    try {
      await run.stream.write(json);
    } catch {
      // The service answered before the end (a refusal): the run ends here, and says why.
      if (this.run === run) await this.endRun();
    }
  }

  /** The file's line of the run's record `n` (from 1). */
  private static lineOf(run: Run, n: number): number {
    let at = 0;
    for (let i = 0; i < run.jumps.length && run.jumps[i]! <= n; i += 2) at = i;
    return run.jumps[at + 1]! + (n - run.jumps[at]!);
  }

  private async badLine(lineNo: number, why: string): Promise<void> {
    if (!this.opts.continueOnError) {
      // What came before the line goes in (the run ends there), nothing after it.
      await this.endRun();
      const written = !this.client
        ? ' (--dry-run: nothing was sent)'
        : `; nothing from line ${lineNo} on was imported` + (lineNo > 1 ? ` (the lines before ${lineNo} were; importing again skips them)` : '');
      throw new UsageError(`line ${lineNo}: ${why}${written}; fix the line, or skip bad lines with --continue-on-error`);
    }
    this.bad++;
    if (this.badLines.length < 10) this.badLines.push(lineNo);
    if (this.bad <= MAX_REPORTED) this.progress.interrupt(() => this.opts.warn(`line ${lineNo}: skipped: ${why}`));
    if (this.bad === MAX_REPORTED + 1) this.progress.interrupt(() => this.opts.warn('more bad lines: only counting them from now on'));
  }

  /**
   * Ends the run in progress: its answer, the new records counted. A refusal stops the import,
   * naming the line and what was written; with --continue-on-error the refused line is skipped
   * and the run's other records are sent again (those written already are skipped by their ids).
   */
  async endRun(): Promise<void> {
    const run = this.run;
    this.run = undefined;
    if (!run) return;
    const tally = this.tally.get(run.resource)!;
    try {
      tally.imported += (await run.stream.end()).affected;
      return;
    } catch (err) {
      const refused = isRejection(err) ? refusal(err) : undefined;
      if (!refused || refused.line > run.records) throw err;
      const what = `${run.resource}${run.chatflowid === undefined ? '' : ` of chatflow ${run.chatflowid}`}`;
      const line = Importer.lineOf(run, refused.line);
      if (!run.kept) {
        const from = Importer.lineOf(run, refused.unwritten);
        const written = `nothing from line ${from} on was imported` + (from > 1 ? ` (the lines before ${from} were; importing again skips them)` : '');
        throw new UsageError(`the server refused line ${line} (${what}): ${refused.why}; ${written}; fix the line, or skip bad lines with --continue-on-error`);
      }
      // The refused record out (its name no longer claimed), the rest again.
      const [gone] = run.kept.splice(refused.line - 1, 1);
      const known = gone?.name === undefined || !isNamed(run.resource) ? undefined : this.names.get(run.resource);
      if (known?.get(gone!.name!) !== undefined) known.delete(gone!.name!);
      tally.records--;
      await this.badLine(line, refused.why);
      for (const { text, line: at, name } of run.kept) await this.write(run.resource, run.chatflowid, text, at, name);
      this.progress.add(-run.kept.length);
      await this.endRun();
    }
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
  // Ctrl-C: say what got in (runs the server acknowledged; of the run being sent, the batches it committed).
  const onSignal = () => {
    progress.done();
    // ("imported nothing" read as nothing in, when batches of the run being sent were.)
    const acknowledged = written(importer);
    ctx.out.note(
      `interrupted at line ${lineNo}: ` +
        (opts.dryRun
          ? 'nothing was sent (--dry-run)'
          : `${acknowledged === 'nothing' ? '' : `imported ${acknowledged}; `}of the records being sent, each batch the service had committed (${groupDigits(MAX_INGEST_ITEMS)} records a batch) is in, the rest is not; running the import again skips what is there`),
    );
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', onSignal);
  try {
    const apart = client !== undefined && (await ctx.usesEmbedded());
    for await (const { records, bytes } of readRecords(input as AsyncIterable<Buffer>, apart)) {
      for (const record of records) await importer.line(record, ++lineNo);
      if (size) progress.add(0, Math.min(1, bytes / size));
    }
    await importer.endRun();
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
