import { describe, expect, it } from 'vitest';
import { buildQuery, resolveBaseUrl } from '../../src/client/core.js';
import { routePath } from '../../src/schema/paths.js';
import { ChatflowError, cleanServerMessage, httpError, serverMessage } from '../../src/client/errors.js';
import { ListParseError, frameJsonLines, parseJsonList } from '../../src/client/jsonStream.js';
import { asReported } from '../helpers/exit.js';

const enc = new TextEncoder();

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? enc.encode(p) : p;
}
async function collect(src: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const x of src) out.push(x);
  return out;
}

describe('query building', () => {
  it('repeats arrays, skips undefined, writes booleans, upper-cases sort orders', () => {
    expect(
      buildQuery({ chatType: ['INTERNAL', 'EXTERNAL'], chatId: undefined, feedback: true, hardDelete: false, order: 'desc', sortOrder: 'asc', page: 2 }),
    ).toBe('?chatType=INTERNAL&chatType=EXTERNAL&feedback=true&hardDelete=false&order=DESC&sortOrder=ASC&page=2');
    expect(buildQuery({})).toBe('');
    expect(buildQuery(undefined)).toBe('');
    expect(buildQuery({ startDate: '2026-01-01T00:00:00Z', memoryType: 'Buffer Memory' })).toBe(
      '?startDate=2026-01-01T00%3A00%3A00Z&memoryType=Buffer+Memory',
    );
  });

  it('encodes path ids', () => {
    expect(routePath('listMessages', 'a/b c')).toBe('/chatmessage/a%2Fb%20c');
  });
});

describe('base URL', () => {
  it('adds /api/v1 unless present', () => {
    expect(resolveBaseUrl('http://h:3000')).toEqual({ root: 'http://h:3000', api: 'http://h:3000/api/v1' });
    expect(resolveBaseUrl('http://h:3000/')).toEqual({ root: 'http://h:3000', api: 'http://h:3000/api/v1' });
    expect(resolveBaseUrl('http://h:3000/api/v1')).toEqual({ root: 'http://h:3000', api: 'http://h:3000/api/v1' });
    expect(resolveBaseUrl('https://h/flowise/api/v1/')).toEqual({ root: 'https://h/flowise', api: 'https://h/flowise/api/v1' });
  });
  it('refuses what is not an http(s) URL', () => {
    expect(() => resolveBaseUrl('localhost:3000')).toThrow(ChatflowError);
    expect(() => resolveBaseUrl('not a url')).toThrow(/invalid server URL/);
  });
});

describe('error mapping', () => {
  const err = (status: number, text: string, contentType = 'application/json') =>
    httpError({ status, contentType, text, method: 'GET', path: '/x', sentKey: true });

  it.each([
    [400, 2], [405, 2], [409, 2], [412, 2], [413, 2], [422, 2],
    [401, 4], [403, 4], [404, 3], [500, 1], [502, 1], [429, 1],
  ])('HTTP %i exits %i', (status, exitCode) => {
    const e = err(status, '{"statusCode":0,"success":false,"message":"boom"}');
    expect(e.kind).toBe('http');
    expect(asReported(e).exitCode).toBe(exitCode);
  });

  it('strips Flowise service prefixes and maps a 500 "not found" to 404', () => {
    const e = err(500, '{"statusCode":500,"success":false,"message":"Error: assistantsService.getAssistantById - Assistant X not found","stack":{}}');
    expect(asReported(e)).toMatchObject({ kind: 'http', status: 404, exitCode: 3, message: 'Assistant X not found' });
    expect(cleanServerMessage('Error: page cannot be negative!')).toBe('page cannot be negative!');
  });

  it('reads {error}, {message}, plain text, and ignores HTML pages', () => {
    expect(serverMessage('application/json', '{"error":"Unauthorized Access"}')).toBe('Unauthorized Access');
    expect(serverMessage('text/html', 'Variable not found in the database')).toBe('Variable not found in the database');
    expect(serverMessage('text/html', '<!DOCTYPE html><html>...</html>')).toBe('');
    expect(err(502, '<html><body>Bad gateway</body></html>', 'text/html').message).toBe('the server failed on GET /x (HTTP 502)');
  });

  it('gives one line', () => {
    expect(err(400, '{"message":"line one\\nline two"}').message).toBe('line one line two');
  });
});

describe('list parser', () => {
  it('parses line-per-element lists across chunk boundaries', async () => {
    const body = '[\n{"a":1},\n{"a":2},\n{"a":3}\n]';
    for (let size = 1; size <= body.length; size++) {
      const parts: string[] = [];
      for (let i = 0; i < body.length; i += size) parts.push(body.slice(i, i + size));
      expect(await collect(parseJsonList(chunks(...parts)))).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    }
  });

  it('keeps multi-byte UTF-8 split across chunks', async () => {
    const bytes = enc.encode('[\n{"s":"héllo 😀 中文"}\n]');
    const parts: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) parts.push(bytes.subarray(i, i + 1));
    expect(await collect(parseJsonList(chunks(...parts)))).toEqual([{ s: 'héllo 😀 中文' }]);
  });

  it('falls back to whole-body parsing: compact, pretty, {data}, empty', async () => {
    expect(await collect(parseJsonList(chunks('[{"a":1},', '{"a":2}]')))).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await collect(parseJsonList(chunks(JSON.stringify([{ a: 1, b: [1, 2] }], null, 2))))).toEqual([{ a: 1, b: [1, 2] }]);
    expect(await collect(parseJsonList(chunks('{"data":[{"a":1}],"total":9}')))).toEqual([{ a: 1 }]);
    expect(await collect(parseJsonList(chunks('[]')))).toEqual([]);
    expect(await collect(parseJsonList(chunks('[\n\n]')))).toEqual([]);
    expect(await collect(parseJsonList(chunks('[\r\n{"a":1}\r\n]\r\n')))).toEqual([{ a: 1 }]);
  });

  it('rejects a cut stream and what is not a list', async () => {
    await expect(collect(parseJsonList(chunks('[\n{"a":1},\n{"a":2},\n')))).rejects.toThrow(/ended early/);
    await expect(collect(parseJsonList(chunks('[\n{"a":1},\n{"a":')))).rejects.toThrow(ListParseError);
    await expect(collect(parseJsonList(chunks('{"a":1}')))).rejects.toThrow(ListParseError);
    await expect(collect(parseJsonList(chunks('<html></html>')))).rejects.toThrow(/not JSON/);
    await expect(collect(parseJsonList(chunks('')))).rejects.toThrow(ListParseError);
  });
});

describe('framed list copy (frameJsonLines)', () => {
  const framed = async (parts: (string | Uint8Array)[]) => {
    let bytes = Buffer.alloc(0);
    let count = 0;
    for await (const chunk of frameJsonLines(chunks(...parts), Buffer.from('<'), Buffer.from('>\n'), (e) => JSON.stringify(e.value))) {
      bytes = Buffer.concat([bytes, chunk.bytes]);
      count += chunk.count;
    }
    return [bytes.toString(), count];
  };
  const ours = '[\n{"id":"a","content":"→ é, \\"x\\""},\n{"id":"b","n":[1,2]}\n]';

  it("copies our service's lines byte for byte, however the body is cut (inside a character too)", async () => {
    const expected = ['<{"id":"a","content":"→ é, \\"x\\""}>\n<{"id":"b","n":[1,2]}>\n', 2];
    const body = enc.encode(ours);
    expect(await framed([ours])).toEqual(expected);
    for (let cut = 1; cut < body.length; cut++) expect(await framed([body.subarray(0, cut), body.subarray(cut)])).toEqual(expected);
    expect(await framed([...body].map((b) => Uint8Array.of(b)))).toEqual(expected);
  });

  it('an empty list, and a list of another shape, serialised element by element', async () => {
    expect(await framed(['[]'])).toEqual(['', 0]);
    expect(await framed(['[{"id":"a"},', '{"id":"b"}]'])).toEqual(['<{"id":"a"}>\n<{"id":"b"}>\n', 2]);
    expect(await framed(['{"data":[{"id":"a"}],"total":1}'])).toEqual(['<{"id":"a"}>\n', 1]);
  });

  it('a list cut short or with a line that is not one object is an error, not a shorter copy', async () => {
    await expect(framed(['[\n{"id":"a"},\n{"id":"b"}'])).rejects.toThrow(ListParseError);
    await expect(framed(['[\n{"id":"a"},\n{"id":'])).rejects.toThrow(ListParseError);
    await expect(framed(['[\n{"id":"a"},\n42\n]'])).rejects.toThrow(/not one JSON object/);
    await expect(framed(['[\n{"id":"a"}\n]\n{"id":"b"}\n'])).rejects.toThrow(/after the end/);
  });
});
