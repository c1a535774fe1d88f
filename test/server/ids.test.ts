// Ids the store makes for messages are UUIDv7: valid UUIDs to any client, in the order they were
// made (so that a bulk insert of messages without ids appends to the id index instead of
// scattering over it).
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/server/store/ids.js';
import { UUID_V7 } from './fixtures.js';

describe('newId', () => {
  it('makes UUIDv7 ids that sort in the order they were made, also many in one millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time of making (or the next millisecond, counting on).
    const ms = parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(before + 5_000);
  });
});
