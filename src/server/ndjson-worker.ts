// The parsing thread of a streamed ingest (ndjson-thread.ts starts one a stream): the body's
// chunks come in as they arrive, its batches go back parsed and checked (ndjson-lines.ts), so
// that the service's own thread, which writes them, does nothing else with them.
import { parentPort, workerData } from 'node:worker_threads';
import type { RouteName } from '../schema/routes.js';
import { ServiceError } from './errors.js';
import { ROW_FORMS } from './ingest-rows.js';
import { LineSplitter, type Batch } from './ndjson-lines.js';
import { routeTable } from './route-table.js';
import { bodyValidator } from './routing.js';
import { invalidAnswer } from './validation.js';

export interface ThreadData {
  route: RouteName;
  /** The route's parameters (validated): a row's chatflow. */
  params: Record<string, string>;
  maxLine: number;
}

/**
 * To the thread: a chunk of the body (its memory handed over), or null at the body's end. From
 * it: a full batch; a chunk read (its size, the first line of the batch being read, the last line
 * read; `ended` once the body's end is); or a refusal of a line (its status and message).
 */
export type FromThread =
  | { batch: Batch }
  | { read: number; first: number; line: number; ended: boolean }
  | { refused: [status: number, message: string]; first: number };

const port = parentPort!;
const { route, params, maxLine } = workerData as ThreadData;
const validate = bodyValidator(route);
const form = ROW_FORMS[route];
const splitter = new LineSplitter(
  maxLine,
  (records) => (validate(records) ? undefined : invalidAnswer('body', validate.errors ?? [], routeTable[route].invalidStatus)),
  form && ((record, at) => form.row(params, record, at)),
);
const post = (message: FromThread, transfer: ArrayBufferLike[] = []) => port.postMessage(message, transfer as ArrayBuffer[]);

port.on('message', (chunk: Uint8Array | null) => {
  try {
    const full = chunk ? splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) : splitter.end();
    for (const batch of full) post({ batch }, [batch.lines.buffer, batch.records.buffer, batch.parts.buffer]);
    post({ read: chunk?.byteLength ?? 0, first: splitter.first, line: splitter.line, ended: chunk === null });
  } catch (err) {
    // (Anything else is a fault of ours: the thread's error, which the service answers as a 500.)
    if (!(err instanceof ServiceError)) throw err;
    post({ refused: [err.statusCode, err.message], first: splitter.first });
  }
});
