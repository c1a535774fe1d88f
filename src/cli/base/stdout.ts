// stdout for runs that write one answer and end (help, completion candidates) without making
// process.stdout: the stream loads Node's stream and socket machinery, a cost each of those starts
// would pay for a few kilobytes.
import { fstatSync, writeSync } from 'node:fs';
import { EXIT } from './errors.js';

/** A reader that stops early (`| head`) is not an error: stop quietly, as cat and grep do. */
export function quietOnEpipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
}

/** Writes the whole of `text` to stdout now. */
export function writeOut(text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') process.exit(EXIT.ok);
    // A non-blocking stdout that is full: the stream waits for it.
    if (code !== 'EAGAIN') throw err;
    quietOnEpipe();
    process.stdout.write(bytes.subarray(done));
  }
}

/** Whether stdout can be a terminal (a character device: a pipe or a file cannot), asked without making process.stdout. */
export function stdoutMayBeTerminal(): boolean {
  try {
    return fstatSync(1).isCharacterDevice();
  } catch {
    return false;
  }
}
