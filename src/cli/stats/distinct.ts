// Counting distinct strings in bounded memory: exact up to a limit, then a HyperLogLog estimate
// (16,384 registers: about 1% error, 16 KiB) so a count over millions of sessions stays small.

/** cyrb53: a fast 53-bit string hash, good enough for cardinality estimation. */
function hash53(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const P = 14;
const M = 1 << P;
const REST_BITS = 53 - P;

export class DistinctCounter {
  private exact: Set<string> | undefined = new Set();
  private registers: Uint8Array | undefined;

  constructor(private readonly exactLimit = 100_000) {}

  add(value: string): void {
    if (this.exact) {
      this.exact.add(value);
      if (this.exact.size > this.exactLimit) {
        this.registers = new Uint8Array(M);
        for (const v of this.exact) this.addHashed(v);
        this.exact = undefined;
      }
      return;
    }
    this.addHashed(value);
  }

  private addHashed(value: string): void {
    const h = hash53(value);
    const index = Math.floor(h / 2 ** REST_BITS);
    const rest = h % 2 ** REST_BITS;
    // Position of the leftmost 1 in the remaining bits (1-based), or all of them + 1.
    const rank = rest === 0 ? REST_BITS + 1 : REST_BITS - Math.floor(Math.log2(rest));
    if (rank > this.registers![index]!) this.registers![index] = rank;
  }

  /** True once the count is an estimate. */
  get approximate(): boolean {
    return this.exact === undefined;
  }

  get size(): number {
    if (this.exact) return this.exact.size;
    const regs = this.registers!;
    let sum = 0;
    let zeros = 0;
    for (const r of regs) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / M);
    let estimate = (alpha * M * M) / sum;
    if (estimate <= 2.5 * M && zeros > 0) estimate = M * Math.log(M / zeros);
    return Math.round(estimate);
  }
}
