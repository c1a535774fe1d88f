// The import's reading thread (reader.ts starts it): the file's chunks come in as they are read,
// and go back as the records of their whole lines (lines.ts), in order, so that the command's
// thread, which also writes them to the local database, neither decodes nor parses a line.
import { parentPort } from 'node:worker_threads';
import { LineReader, packRecords, type PackedRecords } from './lines.js';

/** To the thread: a chunk of the file (its memory handed over), or null at its end. From it: the records of the lines the chunk completed. */
export type FromReader = PackedRecords;

const port = parentPort!;
const reader = new LineReader();
port.on('message', (chunk: Uint8Array | null) => {
  const packed: FromReader = packRecords(chunk ? reader.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) : reader.end());
  port.postMessage(packed, [packed.json, packed.kind, packed.resource, packed.flow, packed.size, packed.end].map((a) => a.buffer as ArrayBuffer));
});
