// The import's reading thread (reader.ts starts it): the file's chunks come in as they are read,
// and go back as the records of their whole lines (lines.ts), in order, so that the command's
// thread, which also writes them to the local database, neither decodes nor parses a line.
import { parentPort } from 'node:worker_threads';
import { packRecords, readLine, splitLines, type PackedRecords } from './lines.js';

/** To the thread: a chunk of the file (its memory handed over), or null at its end. From it: the records of the lines the chunk completed. */
export type FromReader = PackedRecords;

const port = parentPort!;
let rest: Buffer | undefined;
port.on('message', (chunk: Uint8Array | null) => {
  let lines: string[];
  if (chunk) ({ lines, rest } = splitLines(rest, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  else {
    lines = rest ? [rest.toString('utf8')] : [];
    rest = undefined;
  }
  const packed: FromReader = packRecords(lines.map(readLine));
  port.postMessage(packed, [packed.json, packed.kind, packed.resource, packed.flow, packed.size, packed.end].map((a) => a.buffer as ArrayBuffer));
});
