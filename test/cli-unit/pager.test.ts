// The pager: which command, a screenful held back, the rest handed over with backpressure, and a
// pager that quits early stopping the producer without an error.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openPager, pagerCommand, type Pager } from '../../src/cli/base/pager.js';
import { sink } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'chatflow-pager-'));
const lines = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `line ${from + i}\n`).join('');

async function write(pager: Pager, text: string): Promise<void> {
  if (!pager.write(text)) await Promise.race([once(pager, 'drain'), once(pager, 'close')]);
}
const finish = (pager: Pager) => new Promise<void>((resolve) => pager.end(resolve));

describe('which pager', () => {
  it('CHATFLOW_PAGER, then PAGER, then less -FRX; empty, cat and --no-pager mean none', () => {
    expect(pagerCommand({}, {})).toBe('less -FRX');
    expect(pagerCommand({}, { PAGER: 'more' })).toBe('more');
    expect(pagerCommand({}, { PAGER: 'more', CHATFLOW_PAGER: 'most -s' })).toBe('most -s');
    expect(pagerCommand({}, { PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({}, { PAGER: 'less', CHATFLOW_PAGER: '' })).toBeUndefined();
    expect(pagerCommand({ noPager: true }, { PAGER: 'less' })).toBeUndefined();
  });
});

describe('paging', () => {
  it('output shorter than the screen goes to the terminal, and no pager starts', async () => {
    const out = sink();
    const pager = await openPager({ command: `sh -c 'echo started > ${join(dir, 'never')}'`, rows: 10, out });
    await write(pager, lines(9));
    await finish(pager);
    expect(out.text()).toBe(lines(9));
    expect(pager.paging).toBe(false);
  });

  it('taller output goes whole to the pager, which is waited for', async () => {
    const out = sink();
    const file = join(dir, 'paged.txt');
    const pager = await openPager({ command: `cat > ${file}`, rows: 10, out });
    for (let i = 0; i < 2000; i++) await write(pager, lines(10, i * 10));
    await finish(pager);
    expect(pager.paging).toBe(true);
    expect(out.text()).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(lines(20_000));
    expect(pager.signal.aborted).toBe(false);
  });

  it('a pager that quits early (q) aborts the signal; later writes are dropped, not errors', async () => {
    const out = sink();
    const pager = await openPager({ command: 'head -n 3 > /dev/null', rows: 5, out });
    const errors: unknown[] = [];
    pager.on('error', (e) => errors.push(e));
    let i = 0;
    while (!pager.signal.aborted && i < 100_000) await write(pager, lines(100, i++ * 100));
    expect(pager.signal.aborted).toBe(true);
    expect(i).toBeLessThan(100_000);
    await write(pager, 'after\n');
    await finish(pager);
    expect(errors).toEqual([]);
    expect(out.text()).toBe('');
  });

  it('a pager that cannot start: a warning, and the output on the terminal', async () => {
    const out = sink();
    const warnings: string[] = [];
    const pager = await openPager({ command: 'no-such-pager-for-chatflow -R', rows: 2, out, onError: (m) => warnings.push(m) });
    await write(pager, lines(5));
    await finish(pager);
    expect(out.text()).toBe(lines(5));
    expect(warnings).toEqual(['cannot start the pager "no-such-pager-for-chatflow -R" (ENOENT); writing to the terminal']);
  });
});
