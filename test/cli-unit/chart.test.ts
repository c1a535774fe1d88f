// The drawing helpers of stats, tail and the promote plans: bars, sparklines, wrapping, and the
// bounded distinct counter behind the session count.
import { describe, expect, it } from 'vitest';
import { bar, resample, sparkline, splitBar } from '../../src/cli/render/chart.js';
import { DistinctCounter } from '../../src/cli/stats/distinct.js';
import { displayWidth, sanitize, truncate, wrap } from '../../src/cli/render/text.js';

describe('chart', () => {
  it('draws bars in eighths of a cell, never wider than asked', () => {
    expect(bar(10, 10, 4)).toBe('████');
    expect(bar(5, 10, 4)).toBe('██');
    expect(bar(1, 16, 4)).toBe('▎');
    expect(bar(1, 1000, 4)).toBe('▏'); // any value above 0 shows
    expect(bar(0, 10, 4)).toBe('');
    expect(bar(20, 10, 4)).toBe('████');
  });

  it('draws sparklines scaled to the largest value, blank for 0', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(' ▁▂▄█');
    expect(sparkline([])).toBe('');
    expect(sparkline([0, 0])).toBe('  ');
  });

  it('resamples long series into at most N columns by summing', () => {
    expect(resample([1, 2, 3, 4, 5], 2)).toEqual({ values: [6, 9], per: 3 });
    expect(resample([1, 2], 10)).toEqual({ values: [1, 2], per: 1 });
  });

  it('splits a ratio bar, each non-zero share at least one cell', () => {
    expect(splitBar(2, 1, 9)).toEqual(['██████', '░░░']);
    expect(splitBar(100, 1, 5)).toEqual(['████', '░']);
    expect(splitBar(1, 100, 5)).toEqual(['█', '░░░░']);
    expect(splitBar(0, 0, 5)).toEqual(['', '']);
  });
});

describe('text', () => {
  it('wraps at spaces, splits long words, keeps line breaks, counts wide characters', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('a\nb\n\n\n\nc', 10)).toEqual(['a', 'b', '', 'c']);
    expect(wrap('', 10)).toEqual(['']);
    for (const line of wrap('日本語のテキストを折り返す', 6)) expect(displayWidth(line)).toBeLessThanOrEqual(6);
  });

  it('removes control characters and cuts with an ellipsis', () => {
    expect(sanitize('a\u001b[31mb\tc\nd')).toBe('a\uFFFD[31mb  c d');
    expect(sanitize('a\nb', true)).toBe('a\nb');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
  });

  it('counts terminal cells: wide characters two, combining marks none, astral characters whole', () => {
    expect(displayWidth('Open → é')).toBe(8);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('😀x')).toBe(3);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\ud800x')).toBe(2);
    expect(truncate('日本語テキスト', 5)).toBe('日本…');
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    expect(truncate('a😀b', 3)).toBe('a…');
    expect(truncate('Open Settings → Security', 16)).toBe('Open Settings →…');
  });
});

describe('DistinctCounter', () => {
  it('is exact up to its limit, then estimates within a few percent', () => {
    const small = new DistinctCounter(1000);
    for (let i = 0; i < 3000; i++) small.add(`s${i % 500}`);
    expect(small.size).toBe(500);
    expect(small.approximate).toBe(false);

    const big = new DistinctCounter(1000);
    for (let i = 0; i < 200_000; i++) big.add(`session-${i}`);
    for (let i = 0; i < 50_000; i++) big.add(`session-${i}`); // repeats change nothing
    expect(big.approximate).toBe(true);
    expect(Math.abs(big.size - 200_000) / 200_000).toBeLessThan(0.03);
  });
});
