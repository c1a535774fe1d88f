// An ingest of our service as one streamed request (its NDJSON form): records are written one at
// a time as their JSON texts and go out as they come, a chunk of lines at a time, at the pace the
// service takes them. The service commits them batch by batch; its answer, at the end or at a
// refusal, says how many were new, or which line it refused and what it had written before.

/** Lines gathered into one chunk of the body before it is handed on. */
const CHUNK_BYTES = 256 * 1024;
const NEWLINE = Buffer.from('\n');
/** Chunks waiting to be taken before a write waits for room. */
const CHUNKS_AHEAD = 4;

export class IngestStream {
  /** The service's answer; also when it came before the end (a refusal). */
  readonly answer: Promise<{ affected: number }>;
  private readonly lines: (string | Uint8Array)[] = [];
  private lineChars = 0;
  private readonly ready: Buffer[] = [];
  private ended = false;
  private settled: { error: unknown } | undefined;
  /** The request waiting for a chunk. */
  private wantMore: (() => void) | undefined;
  /** A write waiting for room. */
  private room: { go: () => void; stop: (err: unknown) => void } | undefined;

  constructor(send: (chunks: AsyncIterable<Uint8Array>) => Promise<{ affected: number }>) {
    this.answer = send(this.chunks());
    this.answer.then(
      () => this.stopped(new Error('the service answered before the end of the stream')),
      (err: unknown) => this.stopped(err),
    );
  }

  /**
   * Adds one record, its JSON text (one line), or that text's UTF-8 bytes. Waits when the service
   * is behind; rejects once the service has answered (a refusal: `answer` says why).
   */
  write(text: string | Uint8Array): Promise<void> | undefined {
    if (this.settled) return Promise.reject(this.settled.error);
    this.lines.push(text);
    // (Characters or bytes: a chunk's size need not be exact.)
    this.lineChars += text.length + 1;
    if (this.lineChars < CHUNK_BYTES) return undefined;
    this.pack();
    if (this.ready.length < CHUNKS_AHEAD) return undefined;
    return new Promise<void>((go, stop) => (this.room = { go, stop }));
  }

  /** Ends the stream: the service's answer. */
  end(): Promise<{ affected: number }> {
    this.pack();
    this.ended = true;
    this.wake();
    return this.answer;
  }

  private pack(): void {
    if (this.lines.length === 0) return;
    const parts: Uint8Array[] = [];
    for (const line of this.lines) parts.push(typeof line === 'string' ? Buffer.from(line) : line, NEWLINE);
    this.ready.push(Buffer.concat(parts));
    // (Emptied, not replaced: an array assigned to a long-lived object soon lives in V8's old
    // generation, and the lines it held would stay there, garbage, until a major collection.)
    this.lines.length = 0;
    this.lineChars = 0;
    this.wake();
  }

  private wake(): void {
    const want = this.wantMore;
    this.wantMore = undefined;
    want?.();
  }

  private stopped(error: unknown): void {
    this.settled = { error };
    const room = this.room;
    this.room = undefined;
    room?.stop(error);
  }

  private async *chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const chunk = this.ready.shift();
      if (chunk) {
        if (this.ready.length < CHUNKS_AHEAD) {
          const room = this.room;
          this.room = undefined;
          room?.go();
        }
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wantMore = resolve));
    }
  }
}
