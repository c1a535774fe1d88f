import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { setupColor } from '../../src/cli/base/color.js';
import { UsageError, UserError } from '../../src/cli/base/errors.js';
import { printError } from '../../src/cli/core/output.js';
import { Batches, ChunkWriter, csvField, resolveFormat, writeRecords } from '../../src/cli/render/records.js';
import { ANSI, sink } from './helpers.js';

const flows = [
  { id: 'a1', name: 'First, "quoted"', deployed: true, details: { name: 'd1', model: 'gpt' }, createdDate: '2026-01-02T03:04:05.000Z' },
  { id: 'b2', name: 'Second\nline', deployed: false, details: { name: 'd2' }, createdDate: '2026-02-03T10:20:30.000Z' },
];

beforeEach(async () => {
  for (const k of ['NO_COLOR', 'FORCE_COLOR', 'CHATFLOW_FORCE_TTY', 'TERM', 'COLUMNS']) vi.stubEnv(k, undefined);
  vi.stubEnv('TZ', 'UTC');
  await setupColor({});
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function render(records: unknown, opts: Parameters<typeof writeRecords>[1]) {
  const out = sink();
  const n = await writeRecords(records as Iterable<Record<string, unknown>>, opts, out);
  return { text: out.text(), n };
}

describe('resolveFormat', () => {
  it('--json, then -o, then the profile default, then json when not a TTY', () => {
    expect(resolveFormat({ json: true })).toBe('json');
    expect(resolveFormat({ output: 'csv' }, 'yaml')).toBe('csv');
    expect(resolveFormat({}, 'yaml')).toBe('yaml');
    expect(resolveFormat({})).toBe('json');
    vi.stubEnv('CHATFLOW_FORCE_TTY', '1');
    expect(resolveFormat({})).toBe('table');
  });
  it('rejects an unknown format, naming the allowed ones', () => {
    expect(() => resolveFormat({ output: 'xml' })).toThrow(UsageError);
    expect(() => resolveFormat({ output: 'xml' })).toThrow(/table, wide, json, ndjson, csv, yaml/);
  });
});

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField({ a: [1, 'x'] })).toBe('"{""a"":[1,""x""]}"');
  });
  it('writes a header and one row per record, nested values as JSON, ISO dates kept', async () => {
    const { text, n } = await render(flows, { format: 'csv' });
    expect(n).toBe(2);
    expect(text).toBe(
      'id,name,deployed,details,createdDate\r\n' +
        'a1,"First, ""quoted""",true,"{""name"":""d1"",""model"":""gpt""}",2026-01-02T03:04:05.000Z\r\n' +
        'b2,"Second\nline",false,"{""name"":""d2""}",2026-02-03T10:20:30.000Z\r\n',
    );
  });
});

describe('fields', () => {
  it('chooses and orders keys, with dotted keys, in every format', async () => {
    const fields = ['details.name', 'id'];
    expect((await render(flows, { format: 'csv', fields })).text).toBe('details.name,id\r\nd1,a1\r\nd2,b2\r\n');
    expect((await render(flows, { format: 'ndjson', fields })).text).toBe(
      '{"details.name":"d1","id":"a1"}\n{"details.name":"d2","id":"b2"}\n',
    );
    const json = JSON.parse((await render(flows, { format: 'json', fields })).text);
    expect(json).toEqual([{ 'details.name': 'd1', id: 'a1' }, { 'details.name': 'd2', id: 'b2' }]);
    expect((await render(flows, { format: 'yaml', fields })).text).toBe('- details.name: d1\n  id: a1\n- details.name: d2\n  id: b2\n');
    const table = (await render(flows, { format: 'table', fields, columns: ['name'] })).text;
    expect(table).toMatch(/details\.name.*id/);
    expect(table).not.toMatch(/deployed/);
  });
  it('an optional nested key missing from the first record is accepted', async () => {
    const { text } = await render(flows, { format: 'ndjson', fields: ['id', 'details.model'] });
    expect(text).toBe('{"id":"a1","details.model":"gpt"}\n{"id":"b2","details.model":null}\n');
  });
  it('an unknown field is a usage error listing the available ones', async () => {
    const err = await render(flows, { format: 'json', fields: ['id', 'nmae'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      'unknown field nmae; available: id, name, deployed, details, details.name, details.model, createdDate',
    );
    await expect(render(flows, { format: 'csv', fields: ['name.first'] })).rejects.toThrow(/unknown field name\.first/);
  });
  it('writes nothing to stdout before the error', async () => {
    const out = sink();
    await expect(writeRecords(flows, { format: 'json', fields: ['x'] }, out)).rejects.toThrow(UsageError);
    expect(out.text()).toBe('');
  });
});

describe('quiet and ndjson', () => {
  it('quiet prints ids one a line, whatever the format', async () => {
    for (const format of ['table', 'json', 'csv', 'yaml', 'ndjson'] as const) {
      expect((await render(flows, { format, quiet: true })).text).toBe('a1\nb2\n');
    }
    expect((await render(flows, { format: 'json', quiet: true, idField: 'details.name' })).text).toBe('d1\nd2\n');
  });
  it('ndjson: one compact object a line', async () => {
    const { text } = await render(flows, { format: 'ndjson' });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual(flows[1]);
  });
});

describe('json', () => {
  it('a list is an array, an empty list [], a single record an object', async () => {
    expect(JSON.parse((await render(flows, { format: 'json' })).text)).toEqual(flows);
    expect((await render([], { format: 'json' })).text).toBe('[]\n');
    expect(JSON.parse((await render(flows[0], { format: 'json', single: true })).text)).toEqual(flows[0]);
  });
  it('is pretty on a TTY', async () => {
    vi.stubEnv('CHATFLOW_FORCE_TTY', '1');
    const { text } = await render([{ id: 'x' }], { format: 'json' });
    expect(text).toBe('[\n  {\n    "id": "x"\n  }\n]\n');
  });
  it('streams 100,000 records honouring backpressure', async () => {
    const total = 100_000;
    let produced = 0;
    let consumed = 0;
    let maxAhead = 0;
    async function* source() {
      for (let i = 0; i < total; i++) {
        produced++;
        maxAhead = Math.max(maxAhead, produced - consumed);
        yield { id: `id-${i}`, name: `flow ${i}`, n: i };
      }
    }
    let bytes = 0;
    let first = '';
    let last = '';
    let pending = 0;
    const out = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        const s = chunk.toString();
        if (!first) first = s;
        last = s;
        bytes += s.length;
        consumed += (s.match(/"id":/g) ?? []).length;
        pending++;
        // a slow consumer: every write completes later
        setImmediate(() => {
          pending--;
          cb();
        });
      },
    });
    let sawFull = false;
    let maxBuffered = 0;
    const write = out.write.bind(out);
    out.write = ((chunk: string) => {
      const ok = write(chunk);
      if (!ok) sawFull = true;
      maxBuffered = Math.max(maxBuffered, out.writableLength);
      return ok;
    }) as typeof out.write;
    const n = await writeRecords(source(), { format: 'json' }, out);
    await new Promise<void>((resolve) => out.end(resolve));
    expect(n).toBe(total);
    expect(consumed).toBe(total);
    expect(pending).toBe(0);
    expect(sawFull).toBe(true);
    expect(maxBuffered).toBeLessThan(16 * 1024 + 200);
    expect(maxAhead).toBeLessThan(1000);
    expect(first.startsWith('[\n{"id":"id-0"')).toBe(true);
    expect(last).toBe('\n]\n');
    expect(bytes).toBeGreaterThan(total * 30);
  }, 30_000);
});

describe('ChunkWriter', () => {
  it('writes texts as whole UTF-8 in chunks, a text longer than a chunk and wide characters included', async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    });
    const writer = new ChunkWriter(out);
    const texts = ['a'.repeat(70_000), 'é→😀'.repeat(50_000), ...Array.from({ length: 3000 }, (_, i) => `row ${i} → ✓…\n`)];
    for (const text of texts) await writer.write(text);
    await writer.writeBytes(Buffer.from('bytes\n'));
    await writer.write('tail');
    await writer.flush();
    expect(chunks.length).toBeGreaterThan(3);
    // No character split between two writes, nothing lost or repeated.
    for (const chunk of chunks) expect(Buffer.from(chunk.toString()).equals(chunk)).toBe(true);
    expect(Buffer.concat(chunks).toString()).toBe(`${texts.join('')}bytes\ntail`);
  });
});

describe('table', () => {
  const long = [{ id: 'c3', name: 'x'.repeat(200), description: 'y'.repeat(200) }];

  it('fits a fixed terminal width on a TTY, truncating with …', async () => {
    vi.stubEnv('CHATFLOW_FORCE_TTY', '1');
    await setupColor({ noColor: true });
    const { text } = await render(long, { format: 'table', width: 40 });
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
    expect(text).toContain('…');
    expect(text).toContain('c3');
  });
  it('streams: a slow source gets its first rows out before it ends; an aborted one stops', async () => {
    await setupColor({ noColor: true });
    const out = sink();
    let release!: () => void;
    const wait = new Promise<void>((r) => (release = r));
    async function* slow() {
      yield { id: 'a1', name: 'first' };
      await wait;
      yield { id: 'b2', name: 'second' };
    }
    const done = writeRecords(slow(), { format: 'table' }, out);
    await vi.waitFor(() => expect(out.text()).toBe('id  name\na1  first\n'), { timeout: 5000 });
    release();
    expect(await done).toBe(2);
    expect(out.text()).toBe('id  name\na1  first\nb2  second\n');
    const stop = new AbortController();
    async function* endless() {
      for (let i = 0; ; i++) {
        if (i === 3) stop.abort();
        yield { id: `x${i}` };
      }
    }
    expect(await writeRecords(endless(), { format: 'ndjson', signal: stop.signal }, sink())).toBe(3);
  });
  it('a list given in batches prints as the same records one by one, in every format; an aborted one stops, its source closed', async () => {
    await setupColor({ noColor: true });
    const records = Array.from({ length: 7 }, (_, i) => ({ id: `r${i}`, name: `row ${i} →` }));
    async function* batches() {
      for (let i = 0; i < records.length; i += 3) yield records.slice(i, i + 3);
    }
    for (const format of ['table', 'json', 'csv', 'ndjson'] as const) {
      const one = await render(records, { format, width: 30 });
      const batched = await render(new Batches(batches()), { format, width: 30 });
      expect(batched).toEqual(one);
    }
    const stop = new AbortController();
    let closed = false;
    async function* endless() {
      try {
        for (let i = 0; ; i += 2) {
          if (i === 4) stop.abort();
          yield [{ id: `x${i}` }, { id: `x${i + 1}` }];
        }
      } finally {
        closed = true;
      }
    }
    expect(await writeRecords(new Batches(endless()), { format: 'table', signal: stop.signal }, sink())).toBe(4);
    expect(closed).toBe(true);
  });
  it('does not truncate when stdout is not a TTY', async () => {
    await setupColor({ noColor: true });
    const { text } = await render(long, { format: 'table', width: 40 });
    expect(text).not.toContain('…');
    expect(text).toContain('x'.repeat(200));
  });
  it('has no ANSI codes when colour is off, and has some when forced on', async () => {
    vi.stubEnv('CHATFLOW_FORCE_TTY', '1');
    vi.stubEnv('NO_COLOR', '1');
    await setupColor({});
    expect((await render(flows, { format: 'table', width: 60 })).text).not.toMatch(ANSI);
    expect((await render(flows[0], { format: 'table', single: true, width: 60 })).text).not.toMatch(ANSI);
    vi.stubEnv('NO_COLOR', undefined);
    await setupColor({ noColor: true });
    expect((await render(flows, { format: 'table', width: 60 })).text).not.toMatch(ANSI);
    vi.stubEnv('FORCE_COLOR', '1');
    await setupColor({});
    expect((await render(flows, { format: 'table', width: 60 })).text).toMatch(ANSI);
  });
  it('shows dates in local time, nested objects as short JSON, one line per row', async () => {
    await setupColor({ noColor: true });
    const { text } = await render(flows, { format: 'table', columns: ['id', 'name', 'details', 'createdDate'] });
    expect(text).toContain('2026-01-02 03:04');
    expect(text).not.toContain('2026-01-02T03');
    expect(text).toContain('{"name":"d1","model":"gpt"}');
    expect(text).toContain('Second line');
    expect(text).not.toMatch(/deployed/);
  });
  it('prints nothing for an empty list and returns 0', async () => {
    expect(await render([], { format: 'table' })).toEqual({ text: '', n: 0 });
  });
});

describe('printError', () => {
  it('one line on stderr, or JSON with --json; exit code returned', async () => {
    await setupColor({ noColor: true });
    const err = sink();
    expect(printError(new UsageError('bad flag'), {}, err)).toBe(2);
    expect(err.text()).toBe('chatflow: bad flag\n');
    const errJson = sink();
    expect(printError(new UserError('no such chatflow', 3), { format: 'json' }, errJson)).toBe(3);
    expect(JSON.parse(errJson.text())).toEqual({ error: { message: 'no such chatflow', exitCode: 3 } });
  });
  it('stack only with debug', async () => {
    await setupColor({ noColor: true });
    const plain = sink();
    printError(new Error('boom'), {}, plain);
    expect(plain.text()).not.toMatch(/at /);
    const debug = sink();
    printError(new Error('boom'), { debug: true }, debug);
    expect(debug.text()).toMatch(/\n\s+at /);
  });
  it("a server's escape sequences in a message are shown, not obeyed, as in every printed text", async () => {
    await setupColor({ noColor: true });
    const err = sink();
    printError(new UserError('the server says: \u001b[2Jgone\u0007', 1), {}, err);
    expect(err.text()).toBe('chatflow: the server says: \uFFFD[2Jgone\uFFFD\n');
  });
});
