// What a transport is to the request core (./core.ts) and the core to a transport (./transports.ts):
// the types both sides speak, in a module of their own so neither imports the other.

/** What the core passes to a transport's request (./transports.ts; undici's request() takes it as is). */
export interface RequestOptions {
  method: string;
  headers: Record<string, string>;
  /** A body whole, or streamed (an NDJSON ingest: sent as it comes, chunked). */
  body: string | Buffer | AsyncIterable<Uint8Array> | undefined;
  /** The longest wait for the answer's headers, from the request's start (a streamed body's last chunk). */
  headersTimeout: number;
  /** The longest wait for the next chunk of the body while the reader waits for it. */
  bodyTimeout: number;
  /** The whole answer's deadline. */
  signal?: AbortSignal;
}

/** What the core reads of an answer: a transport's (undici's ResponseData is one), or an in-process service's. */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: AnswerBody;
}

export interface AnswerBody extends AsyncIterable<Uint8Array> {
  readonly destroyed: boolean;
  text(): Promise<string>;
  /** Reads and drops the rest. */
  dump(): Promise<void>;
  destroy(error?: Error): unknown;
}

export type RequestFn = (url: string, options: RequestOptions) => Promise<Answer>;

export interface Transport {
  request: RequestFn;
  /** Closes the connections it keeps alive. */
  close(): Promise<void>;
}
