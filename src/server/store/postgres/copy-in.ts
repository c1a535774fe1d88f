// COPY … FROM STDIN: an ingest's rows in COPY's text format, one statement.
import { Submitted, type CopyConnection } from './submitted.js';

/** COPY … FROM STDIN of rows in COPY's text format: answers how many it wrote. */
export class CopyIn extends Submitted<number> {
  private count = 0;
  constructor(
    text: string,
    private readonly data: Buffer,
  ) {
    super(text);
  }
  override handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }
  override handleCommandComplete(msg: { text: string }): void {
    this.count = Number(/^COPY (\d+)/.exec(msg.text)?.[1] ?? 0);
  }
  protected result(): number {
    return this.count;
  }
}

/** A value in COPY's text format: \N for null; backslash, tab, newline and return escaped. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : String(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}
