// Optional API keys: `Authorization: Bearer <key>` (a bare key too, as Flowise accepts),
// compared in constant time. Keys are never logged or echoed.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function keyChecker(keys: readonly string[]): (header: string | undefined) => boolean {
  const digests = keys.map(digest);
  return (header) => {
    if (!header) return false;
    const given = digest(header.replace(/^Bearer\s+/i, '').trim());
    let ok = false;
    // Every key is compared, so the time taken does not tell which one came close.
    for (const d of digests) ok = timingSafeEqual(d, given) || ok;
    return ok;
  };
}
