// The records of an import's input (lines.ts), a chunk's lines at a time. Into the embedded
// database they are read on a thread of their own (reader-thread.ts), since the command's thread
// also writes them: the input's chunks are handed to it as they are read, at most READ_AHEAD of
// them not yet answered, and its answers come back in order. To a server the command's thread
// has nothing else to do, and reads them itself: a thread there bought little (8% at a million
// messages to PostgreSQL) for 55 MB more (its chunks' memory, freed only when V8 collects).
import { Worker } from 'node:worker_threads';
import { LineReader, unpackRecords, type LineRecord, type PackedRecords } from './lines.js';
import { READER_THREAD } from './reader-file.js';
import type { FromReader } from './reader-thread.js';

/** Chunks of the input (256 KB each) handed to the thread and not yet answered. */
const READ_AHEAD = 8;

interface Owed {
  /** The input's bytes read up to the end of this chunk. */
  bytes: number;
  answer: Promise<PackedRecords>;
}

/** The records of the input's lines, a chunk's at a time, with the bytes read so far (for progress); on a thread of their own when `apart`. */
export async function* readRecords(input: AsyncIterable<Buffer>, apart: boolean): AsyncGenerator<{ records: Iterable<LineRecord<string | Uint8Array>>; bytes: number }> {
  if (!apart) {
    const reader = new LineReader();
    let bytes = 0;
    for await (const chunk of input) {
      bytes += chunk.length;
      yield { records: reader.push(chunk), bytes };
    }
    yield { records: reader.end(), bytes };
    return;
  }
  yield* readApart(input);
}

async function* readApart(input: AsyncIterable<Buffer>): AsyncGenerator<{ records: Iterable<LineRecord<Uint8Array>>; bytes: number }> {
  const thread = new Worker(READER_THREAD);
  const owed: Owed[] = [];
  /** The answers still to come, in the order the chunks went. */
  const waiting: { resolve: (records: PackedRecords) => void; reject: (err: unknown) => void }[] = [];
  let failed: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    failed ??= { error };
    for (const w of waiting.splice(0)) w.reject(failed.error);
  };
  thread.on('message', (records: FromReader) => waiting.shift()?.resolve(records));
  thread.on('error', fail);
  thread.on('exit', () => fail(new Error("the import's reading thread ended early")));
  const send = (chunk: Uint8Array | null, bytes: number) => {
    const answer = new Promise<PackedRecords>((resolve, reject) => {
      if (failed) reject(failed.error);
      else waiting.push({ resolve, reject });
    });
    // (Awaited in order below; a failure meanwhile is not unhandled.)
    answer.catch(() => undefined);
    owed.push({ bytes, answer });
    if (failed) return;
    if (chunk) thread.postMessage(chunk, [chunk.buffer as ArrayBuffer]);
    else thread.postMessage(null);
  };
  try {
    let bytes = 0;
    for await (const chunk of input) {
      bytes += chunk.length;
      // (A copy, handed over: a read stream may reuse a chunk's memory.)
      send(new Uint8Array(chunk), bytes);
      if (owed.length > READ_AHEAD) {
        const first = owed.shift()!;
        yield { records: unpackRecords(await first.answer), bytes: first.bytes };
      }
    }
    send(null, bytes);
    while (owed.length) {
      const first = owed.shift()!;
      yield { records: unpackRecords(await first.answer), bytes: first.bytes };
    }
  } finally {
    await thread.terminate();
  }
}
