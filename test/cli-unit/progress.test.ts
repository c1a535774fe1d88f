// The progress line of export and import (src/cli/base/progress.ts), as a terminal shows it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/cli/base/progress.js';

afterEach(() => {
  vi.useRealTimers();
});

function terminal() {
  const lines: string[] = [];
  return { out: { write: (s: string) => lines.push(s), isTTY: true, columns: 100 }, last: () => lines.at(-1) ?? '' };
}

describe('progress on a terminal', () => {
  it('shows no rate and no ETA from the first instants of the work, then both', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const term = terminal();
    const progress = createProgress({ label: 'export', unit: 'records', out: term.out, env: {} });
    progress.setTotal(200_000);
    vi.advanceTimersByTime(120);
    progress.add(1);
    // One record in 0.12 s said 8/s and an ETA of seven hours.
    expect(term.last()).toContain('--/s');
    expect(term.last()).toContain('ETA --:--');
    vi.advanceTimersByTime(880);
    progress.add(99_999);
    expect(term.last()).toContain('100,000/s');
    expect(term.last()).toContain('ETA 0:01');
    progress.done();
  });
});
