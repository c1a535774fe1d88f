// COPY … TO STDOUT (FORMAT binary) of one text column: the rows' bytes joined in place.
import { ROW_SEPARATOR, type JoinedRows } from '../types.js';
import { Submitted } from './submitted.js';

const SEPARATOR = Buffer.from(ROW_SEPARATOR);

/** COPY … TO STDOUT (FORMAT binary): the CopyData gathered into one buffer, its rows read at the end. */
abstract class CopyOut<T> extends Submitted<T> {
  protected size = 0;
  constructor(
    text: string,
    protected data: Buffer,
  ) {
    super(text);
  }

  override handleCopyData(msg: { chunk: Buffer }): void {
    // The chunk is a view of pg's read buffer, which it reuses: copied at once.
    const { chunk } = msg;
    if (this.size + chunk.length > this.data.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.size + chunk.length));
      this.data.copy(grown, 0, 0, this.size);
      this.data = grown;
    }
    this.size += chunk.copy(this.data, this.size);
  }
}

/**
 * COPY … TO STDOUT (FORMAT binary) of one column: its rows' bytes joined by ROW_SEPARATOR in
 * place. No row becomes an object of its own.
 */
export class CopyOutText extends CopyOut<JoinedRows & { last: Buffer }> {
  constructor(text: string) {
    super(text, Buffer.allocUnsafe(1 << 16));
  }

  /**
   * The binary COPY format is a 19-byte header, then each row as its field count (1), its length
   * and its bytes; -1 ends it. Each row moves to just after the one before and a separator, which
   * takes fewer bytes than the 6 before it: the buffer is rewritten in place, front to back.
   */
  protected result(): JoinedRows & { last: Buffer } {
    const data = this.data;
    let count = 0;
    let at = 19;
    let end = 0;
    let last = 0;
    while (at + 2 <= this.size && data.readInt16BE(at) === 1) {
      const length = data.readInt32BE(at + 2);
      at += 6;
      if (count > 0) end += SEPARATOR.copy(data, end);
      last = end;
      data.copyWithin(end, at, at + length);
      end += length;
      at += length;
      count++;
    }
    return { count, joined: [data.subarray(0, end)], last: data.subarray(last, end) };
  }
}
