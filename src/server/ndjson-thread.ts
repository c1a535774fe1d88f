// A streamed ingest's parsing thread, seen from the service's thread: the body's chunks are sent
// to it as they come (ndjson-worker.ts), its batches come back parsed and checked, in order, and
// the service's thread only writes them. On SQLite a batch's write holds the service's thread
// (the driver is synchronous) and nothing of the body is read meanwhile: the thread must already
// hold the next batch's bytes then, so up to READ_AHEAD bytes are sent ahead of its reading.
import { Worker } from 'node:worker_threads';
import type { RouteName } from '../schema/routes.js';
import { ServiceError } from './errors.js';
import type { Batch } from './ndjson-lines.js';
import type { FromThread, ThreadData } from './ndjson-worker.js';
import { NDJSON_WORKER } from './ndjson-worker-file.js';
import type { StreamedBody } from './streamed-body.js';

/** Bytes of the body sent to the thread and not yet read by it: two batches of typical messages. */
const READ_AHEAD = 8 * 1024 * 1024;
/** Batches parsed and not yet taken: the body is not read further meanwhile. */
const READY = 2;

export class ParsingThread {
  /** The first line of the batch being read, and the last line read (as far as the thread has said). */
  first = 1;
  line = 0;
  private readonly worker: Worker;
  private sent = 0;
  private readonly ready: Batch[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(route: RouteName, params: unknown, private readonly body: StreamedBody) {
    this.worker = new Worker(NDJSON_WORKER, { workerData: { route, params: { ...(params as Record<string, string>) }, maxLine: body.maxLine } satisfies ThreadData });
    this.worker.on('message', (message: FromThread) => {
      if ('batch' in message) this.ready.push(message.batch);
      else if ('read' in message) {
        this.sent -= message.read;
        this.first = message.first;
        this.line = message.line;
        this.ended ||= message.ended;
      } else {
        this.first = message.first;
        this.fail(new ServiceError(...message.refused));
      }
      this.changed();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', () => this.fail(new Error('the parsing thread of a streamed ingest ended early')));
    void this.pump();
  }

  private changed() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((wake) => this.waiters.push(wake));
  }

  /** The first failure only: what comes after it is its consequence. */
  private fail(error: unknown) {
    if (!this.failure && !this.ended) this.failure = { error };
    this.changed();
  }

  /** Reads the body into the thread, as far ahead as it may. A failure to read comes after the batches of what was read. */
  private async pump(): Promise<void> {
    const { chunks, stallMs } = this.body;
    const iterator = chunks[Symbol.asyncIterator]();
    try {
      for (;;) {
        await this.until(() => this.stopped || (this.sent < READ_AHEAD && this.ready.length < READY));
        if (this.stopped) return;
        const next = await nextChunk(iterator, stallMs, () => this.line + 1);
        if (this.stopped) return;
        if (next.done) {
          this.worker.postMessage(null);
          return;
        }
        // (A copy, handed over: a transport may reuse a chunk's memory.)
        const copy = new Uint8Array(next.value.byteLength);
        copy.set(next.value);
        this.sent += copy.byteLength;
        this.worker.postMessage(copy, [copy.buffer]);
      }
    } catch (err) {
      await this.until(() => this.stopped || this.failure !== undefined || this.sent === 0);
      this.fail(err);
    }
  }

  /** The next batch, in the body's order; undefined after the last. Throws what ended the stream (a line's refusal, a read's failure). */
  async next(): Promise<Batch | undefined> {
    await this.until(() => this.ready.length > 0 || this.failure !== undefined || this.ended);
    const batch = this.ready.shift();
    if (batch) {
      this.changed();
      return batch;
    }
    if (this.failure) throw this.failure.error;
    return undefined;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.ended = true;
    this.changed();
    await this.worker.terminate();
  }
}

/** The next chunk, or a 408 when none comes within `stallMs`. */
async function nextChunk(iterator: AsyncIterator<Uint8Array>, stallMs: number | undefined, at: () => number): Promise<IteratorResult<Uint8Array>> {
  if (stallMs === undefined) return iterator.next();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServiceError(408, `the body brought nothing for ${Math.round(stallMs / 1000)}s: the ingest stopped at line ${at()}`)), stallMs);
  });
  try {
    return await Promise.race([iterator.next(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}
