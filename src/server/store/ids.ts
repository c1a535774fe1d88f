// The ids the store makes for messages ingested without one (and their chat): UUIDv7 (RFC 9562),
// still UUIDs to every client, but ordered by time. Random (v4) ids land all over an index, so
// that a bulk insert rewrites a page of the id index for nearly every row; ids made one after the
// other land at its end, as the rows do. (Records made by a create route keep v4, as docs/spec/SEMANTICS.md
// says: they come one at a time.)
import { randomFillSync } from 'node:crypto';

/** Random bytes drawn a block at a time: one call into the crypto library for 256 ids. */
const random = Buffer.alloc(16 * 256);
let used = random.length;

let lastMs = -1;
/** RFC 9562's method 1: 12 bits counting the ids of one millisecond, from a random start. */
let counter = 0;

export function newId(): string {
  if (used === random.length) {
    randomFillSync(random);
    used = 0;
  }
  const bytes = random.subarray(used, used + 16);
  used += 16;
  let ms = Date.now();
  if (ms > lastMs) {
    lastMs = ms;
    counter = bytes[6]! & 0x07; // a random start in the lower half leaves room to count
    counter = (counter << 8) | bytes[7]!;
  } else {
    // The same millisecond (or the clock went back): count on, borrowing the next millisecond
    // when the counter runs out, so that ids stay in the order they were made.
    ms = lastMs;
    if (++counter > 0xfff) {
      ms = ++lastMs;
      counter = 0;
    }
  }
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
