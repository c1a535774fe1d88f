// The streamed table: widths from a sample, later rows fitted to them; columns give way by kind
// and priority; no line wider than the terminal; flat memory whatever the length.
import { describe, expect, it, vi } from 'vitest';
import { setupColor } from '../../src/cli/base/color.js';
import { timeZone } from '../../src/cli/base/dates.js';
import { displayWidth } from '../../src/cli/render/text.js';
import { getPath } from '../../src/cli/render/records.js';
import { planLayout, tableWriter, uniquePrefixLength, type ListView } from '../../src/cli/render/list-table.js';

const utc = timeZone({ utc: true });
const uuid = (i: number) => `${i.toString(16).padStart(8, '0')}-4b1d-4c7a-9f00-${String(i).padStart(12, '0')}`;

const MESSAGES: ListView = {
  columns: [
    { key: 'createdDate', kind: 'date' },
    { key: 'role', kind: 'label' },
    { key: 'sessionId', kind: 'id' },
    { key: 'chatType', kind: 'label' },
    { key: 'content', kind: 'text' },
    { key: 'id', kind: 'id' },
  ],
  priority: ['createdDate', 'role', 'content', 'id', 'sessionId', 'chatType'],
};
const message = (i: number) => ({
  id: uuid(i),
  role: i % 2 ? 'apiMessage' : 'userMessage',
  sessionId: uuid(1000 + Math.floor(i / 10)),
  chatType: 'EXTERNAL',
  content: `Question number ${i}: how do I reset my password, and where is the form to change my delivery address?`,
  createdDate: new Date(Date.UTC(2026, 9, 30, 8) + (i % 1000) * 60_000).toISOString(),
});

const values = (view: ListView, rec: object) => view.columns.map((c) => getPath(rec, c.key));

function render(view: ListView, records: object[], opts: Partial<Parameters<typeof tableWriter>[1]> = {}) {
  const w = tableWriter(view, { zone: utc, ...opts });
  let text = '';
  for (const r of records) text += w.add(values(view, r));
  text += w.flush();
  return { lines: text.trimEnd().split('\n'), note: w.note().replace(/\n/g, ' ') };
}

describe('unique prefixes', () => {
  it('eight characters, more when two sampled ids share them', () => {
    expect(uniquePrefixLength([uuid(1), uuid(2), uuid(3)])).toBe(8);
    expect(uniquePrefixLength(['abcdefgh-1', 'abcdefgh-2', 'x'])).toBe(10);
    expect(uniquePrefixLength(['short', 'tiny'])).toBe(5);
    expect(uniquePrefixLength([uuid(7), uuid(7)])).toBe(8);
  });
});

describe('fitting a terminal', () => {
  for (const cols of [60, 80, 120]) {
    it(`at ${cols} columns no line is wider than the terminal`, () => {
      const { lines } = render(MESSAGES, Array.from({ length: 50 }, (_, i) => message(i)), { width: cols });
      for (const line of lines) expect(displayWidth(line)).toBeLessThan(cols);
    });
  }

  it('at 80 columns: ids become prefixes, content is cut, roles and dates stay whole, the least important column hidden', () => {
    const { lines, note } = render(MESSAGES, [message(1), message(2)], { width: 80 });
    expect(lines[0]!.split(/ {2,}/)).toEqual(['createdDate', 'role', 'sessionId', 'content', 'id']);
    const cells = lines[1]!.split(/ {2,}/);
    expect(cells[0]).toBe('2026-10-30 08:01');
    expect(cells[1]).toBe('apiMessage');
    expect(cells[2]).toBe(uuid(1000).slice(0, 8));
    expect(cells[3]).toMatch(/^Question number 1: how .{3,}…$/);
    expect(cells[4]).toBe(uuid(1).slice(0, 8));
    expect(note).toBe('Times in UTC. Ids shortened to unique prefixes. To fit 80 columns, content cut and chatType hidden. -o wide shows them whole.');
  });

  it('only random UUIDs are shortened: other ids (names, time-ordered UUIDv7) stay whole, and the note says how far prefixes were checked', () => {
    const named = (i: number) => ({ ...message(i), id: `demo-support-bot-m${i}`, sessionId: `demo-support-bot-s${Math.floor(i / 10)}` });
    const v7 = (i: number) => ({ ...message(i), id: `019ab2c3-4d5e-7${String(i).padStart(3, '0')}-8f00-00000000000${i % 10}` });
    for (const [rec, cols] of [[named(1), 80], [v7(1), 120]] as const) {
      const { lines } = render(MESSAGES, [rec], { width: cols });
      expect(lines[1]).toContain(rec.id);
      for (const line of lines) expect(displayWidth(line)).toBeLessThan(cols);
    }
    const { note } = render(MESSAGES, Array.from({ length: 5 }, (_, i) => message(i)), { width: 80, sampleRows: 2 });
    expect(note).toContain('Ids shortened to prefixes unique among the first 2 rows. To fit 80 columns, content cut and chatType hidden. -o wide shows them whole.');
  });

  it('a later id wider than its column is printed whole; its row gives way elsewhere and still fits', () => {
    const named = (i: number) => ({ ...message(i), id: `demo-support-bot-m${i}`, sessionId: `demo-support-bot-s${Math.floor(i / 10)}` });
    for (const cols of [60, 80, 120]) {
      const { lines } = render(MESSAGES, [named(0), named(1), named(12345678)], { width: cols, sampleRows: 2 });
      const last = lines[3]!;
      if (lines[0]!.includes('id')) expect(last).toContain('demo-support-bot-m12345678');
      expect(last).not.toMatch(/demo-support-bot-[ms]\d*…/);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThan(cols);
    }
    // What gives way is the free text of that row, not the ids, dates or roles.
    const { lines } = render(MESSAGES, [named(0), named(1), named(12345678)], { width: 120, sampleRows: 2 });
    expect(lines[3]!.split(/ {2,}/)).toEqual(['2026-10-30 19:18', 'userMessage', 'demo-support-bot-s1234567', 'EXTERNAL', expect.stringMatching(/^Question number \d+…$/), 'demo-support-bot-m12345678']);
  });

  it('a list that fits keeps every column and every id whole', () => {
    const view: ListView = { columns: [{ key: 'id', kind: 'id' }, { key: 'name', kind: 'label' }, { key: 'value', kind: 'text' }] };
    const { lines, note } = render(view, [{ id: uuid(1), name: 'OPENAI_MODEL', value: 'gpt-4o-mini' }], { width: 80 });
    expect(lines[1]!.split(/ {2,}/)).toEqual([uuid(1), 'OPENAI_MODEL', 'gpt-4o-mini']);
    expect(note).toBe('');
  });

  it('at 60 columns the least important columns are hidden, and the note names them', () => {
    const { lines, note } = render(MESSAGES, [message(1), message(2)], { width: 60 });
    expect(lines[0]!.split(/ {2,}/)).toEqual(['createdDate', 'role', 'content']);
    expect(lines[1]).toMatch(/^2026-10-30 08:01 {2}apiMessage {2,}Question number 1: how .+…$/);
    expect(note).toContain('To fit 60 columns, content cut and sessionId, chatType, id hidden. -o wide shows them whole.');
  });

  it('at 240 columns everything is whole', () => {
    const { lines, note } = render(MESSAGES, [message(1)], { width: 240 });
    expect(lines[1]).toContain(uuid(1));
    expect(lines[1]).toContain(message(1).content);
    expect(note).toBe('Times in UTC.');
  });

  it('wide: nothing shortened, cut or hidden, however narrow the terminal (as kubectl -o wide)', () => {
    const { lines, note } = render(MESSAGES, [message(1)], { width: 80, wide: true });
    expect(lines[0]!.split(/ {2,}/)).toHaveLength(6);
    expect(lines[1]).toContain(uuid(1));
    expect(lines[1]).toContain(message(1).content);
    expect(lines[1]).not.toContain('…');
    expect(note).toBe('Times in UTC.');
  });

  it("a record's name is never cut: free text gives way first, then the least important columns, and the note names each", () => {
    const view: ListView = {
      columns: [{ key: 'id', kind: 'id' }, { key: 'name', kind: 'name' }, { key: 'value', kind: 'text' }, { key: 'type', kind: 'label' }, { key: 'updatedDate', kind: 'date' }],
      priority: ['name', 'id', 'value', 'type', 'updatedDate'],
    };
    const rec = { id: uuid(1), name: 'OPENAI_MODEL_NAME_LONG_ENOUGH_TO_MATTER', value: 'gpt-4o-2024-08-06 with a long description of why', type: 'static', updatedDate: '2026-11-27T08:20:00.000Z' };
    const { lines, note } = render(view, [rec, { ...rec, id: uuid(2), name: 'REGION', value: 'eu-west-1' }], { width: 80 });
    expect(lines[1]).toContain(rec.name);
    expect(lines[1]).toMatch(/gpt-4o.*…/);
    for (const line of lines) expect(displayWidth(line)).toBeLessThan(80);
    expect(note).toBe('Ids shortened to unique prefixes. To fit 80 columns, value cut and updatedDate hidden. -o wide shows them whole.');
    // Wrapped to the terminal, the note never breaks `-o wide` apart.
    for (let width = 40; width <= 100; width++) {
      const w = tableWriter(view, { zone: utc, width });
      w.add(values(view, rec));
      w.flush();
      for (const line of w.note().split('\n')) expect(line, `${width}`).not.toMatch(/-o$/);
    }
  });

  it('wide text cells (CJK, emoji) are measured in cells', () => {
    const view: ListView = { columns: [{ key: 'name', kind: 'label' }, { key: 'value', kind: 'text' }] };
    const { lines } = render(view, [{ name: 'UNICODE', value: '日本語のテキスト'.repeat(10) }, { name: 'E', value: '🎉'.repeat(40) }], { width: 40 });
    for (const line of lines) expect(displayWidth(line)).toBeLessThan(40);
  });

  it('the layout ranks columns: free text gives way before labels', () => {
    const view: ListView = { columns: [{ key: 'name', kind: 'label' }, { key: 'value', kind: 'text' }, { key: 'type', kind: 'label' }] };
    const sample = [['A_VERY_LONG_VARIABLE_NAME', 'x'.repeat(100), 'runtime']];
    const layout = planLayout(view, sample, 60);
    expect(layout.widths[0]).toBe(25);
    expect(layout.widths[2]).toBe(7);
    expect(layout.widths[1]).toBe(59 - 25 - 7 - 4);
  });
});

describe('streaming', () => {
  it('nothing is printed until the sample is in, then one line a record', () => {
    const w = tableWriter(MESSAGES, { zone: utc, width: 100, sampleRows: 3 });
    expect(w.add(values(MESSAGES, message(0)))).toBe('');
    expect(w.add(values(MESSAGES, message(1)))).toBe('');
    expect(w.add(values(MESSAGES, message(2))).trimEnd().split('\n')).toHaveLength(4);
    expect(w.add(values(MESSAGES, message(3))).split('\n')).toEqual([expect.stringContaining('08:03'), '']);
    expect(w.flush()).toBe('');
  });

  it('a slow source does not hold the first rows back', () => {
    let t = 0;
    const w = tableWriter(MESSAGES, { zone: utc, width: 100, sampleMs: 300, now: () => t });
    expect(w.add(values(MESSAGES, message(0)))).toBe('');
    t = 301;
    expect(w.add(values(MESSAGES, message(1))).trimEnd().split('\n')).toHaveLength(3);
  });

  it('later rows are fitted to the sampled widths and the room left: cut on a terminal, whole off it', () => {
    const view: ListView = { columns: [{ key: 'name', kind: 'label' }, { key: 'value', kind: 'text' }] };
    const rows = [{ name: 'A', value: 'short' }, { name: 'B', value: 'a much longer value that came later' }];
    const tty = render(view, rows, { width: 30, sampleRows: 1 });
    expect(tty.lines[2]).toBe(`B${' '.repeat(9)}a much longer valu…`);
    const piped = render(view, rows, { sampleRows: 1 });
    expect(piped.lines[2]).toBe('B     a much longer value that came later');
  });

  it('no control characters reach the terminal; headings are bold only with colour', async () => {
    const view: ListView = { columns: [{ key: 'value', kind: 'text' }] };
    const { lines } = render(view, [{ value: 'red\u001b[31mtext\nnext' }], { width: 80 });
    expect(lines[1]).toBe('red\uFFFD[31mtext next');
    vi.stubEnv('FORCE_COLOR', '1');
    try {
      await setupColor({});
      expect(render(view, [{ value: 'x' }], { color: true }).lines[0]).toMatch(/\u001b\[1m/);
      expect(render(view, [{ value: 'x' }], { color: false }).lines[0]).toBe('value');
    } finally {
      vi.unstubAllEnvs();
      await setupColor({});
    }
  });

  it('keeps no more than its sample: memory flat over 200,000 rows', () => {
    const w = tableWriter(MESSAGES, { zone: utc, width: 120 });
    const rec = values(MESSAGES, message(1));
    let bytes = 0;
    for (let i = 0; i < 1000; i++) bytes += w.add(rec).length;
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) bytes += w.add(rec).length;
    expect(bytes).toBeGreaterThan(200_000 * 100);
    // Without a sample's bound, 200,000 rows of cells would be well over 50 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 * 1024 * 1024);
  });
});
