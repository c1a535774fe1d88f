// A body sent as NDJSON (ndjson.ts), apart from the ingest itself: routing.ts skips it when it
// validates a request (its batches are validated as they come), and ndjson.ts reads it.

/** A body sent as NDJSON, not yet read: what the route's handler is given in place of the array. */
export class StreamedBody {
  constructor(
    readonly chunks: AsyncIterable<Uint8Array>,
    /** The longest line, in bytes (the server's body limit: a record as large as an array of one may be). */
    readonly maxLine: number,
    /** The longest wait for the next bytes (a stalled client may not hold the ingest open); none when undefined. */
    readonly stallMs?: number,
  ) {}
}
