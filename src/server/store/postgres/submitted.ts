/**
 * A query pg sends as it is (a "submittable"): one simple-protocol query string, answered when
 * PostgreSQL is ready for the next. The COPY statements (copy-in.ts, copy-out-*.ts) use it: pg's
 * own queries would decode each row read into a string and a row object, and cannot send COPY
 * data at all.
 */
export abstract class Submitted<T> {
  protected error: Error | undefined;
  readonly done: Promise<T>;
  private settle!: (error: Error | undefined) => void;

  constructor(private readonly text: string) {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve(this.result()));
    });
  }
  protected abstract result(): T;
  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }
  handleError(err: Error): void {
    // A failed statement is followed by ReadyForQuery; a lost connection is not.
    this.error ??= err;
    this.settle(err);
  }
  handleReadyForQuery(): void {
    this.settle(this.error);
  }
  handleCommandComplete(_msg: { text: string }): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(_msg: { chunk: Buffer }): void {}
  handleCopyInResponse(_connection: CopyConnection): void {}
}

export interface CopyConnection {
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}
