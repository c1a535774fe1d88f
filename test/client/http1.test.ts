// The client's own HTTP/1.1 transport (src/client/http1.ts, the framing; src/client/transports.ts,
// the connections) against a real node:net server that writes its answers byte for byte as each
// test scripts them: chunked bodies split at awkward places, interim 1xx answers, bodiless
// answers, bodies ended by the close, keep-alive, cut connections, timeouts and aborts.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { AnswerParser } from '../../src/client/http1.js';
import type { Answer, RequestOptions, Transport } from '../../src/client/transport-types.js';
import { http1Transport } from '../../src/client/transports.js';
import { asReported } from '../helpers/exit.js';

interface Received {
  method: string;
  target: string;
  head: string;
  body: Buffer;
}
type Script = (socket: net.Socket, req: Received) => unknown;

const scripts = new Map<string, Script>();
const received: Received[] = [];
let connections = 0;
let server: net.Server;
let base: string;
let transport: Transport | undefined;

const pause = (ms = 15) => new Promise((r) => setTimeout(r, ms));
/** Writes the parts as separate TCP segments: the client reads each on its own. */
async function writeApart(socket: net.Socket, parts: string[]): Promise<void> {
  for (const part of parts) {
    socket.write(part);
    await pause();
  }
}

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++;
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let pieces: Buffer[] = [];
    let pieceBytes = 0;
    /** The bytes the request under way takes, once its head is in. */
    let need = 0;
    socket.on('error', () => undefined);
    socket.on('data', (data) => {
      pieces.push(data);
      pieceBytes += data.length;
      // (Joined once the request is whole: a body of many MB comes in hundreds of pieces.)
      if (buf.length + pieceBytes < need) return;
      buf = Buffer.concat([buf, ...pieces]);
      pieces = [];
      pieceBytes = 0;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        need = end + 4 + length;
        if (buf.length < need) return;
        need = 0;
        const [method = '', target = ''] = head.split(' ');
        const req = { method, target, head, body: buf.subarray(end + 4, end + 4 + length) };
        buf = buf.subarray(end + 4 + length);
        received.push(req);
        const script = scripts.get(new URL(target, 'http://x').pathname);
        if (script) void script(socket, req);
        else socket.write('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  received.length = 0;
  connections = 0;
  scripts.clear();
});

const options = (over: Partial<RequestOptions> = {}): RequestOptions => ({
  method: 'GET',
  headers: { accept: 'application/json' },
  body: undefined,
  headersTimeout: 2000,
  bodyTimeout: 2000,
  ...over,
});
const send = (path: string, over: Partial<RequestOptions> = {}): Promise<Answer> => {
  transport ??= http1Transport();
  return transport.request(`${base}${path}`, options(over));
};

describe('framing of an answer', () => {
  it('a chunked body split inside sizes, CRLFs, data and the head: whole, trailers ignored', async () => {
    scripts.set('/chunked', (s) =>
      writeApart(s, [
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r',
        '\nTransfer-Encoding: chunked\r\n\r',
        '\n1',
        '0;ext=1\r\n0123456789abcdef\r',
        '\n3\r\nxyz',
        '\r\n0\r\nX-Trailer: t\r\n',
        '\r\n',
      ]),
    );
    const answer = await send('/chunked');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(await answer.body.text()).toBe('0123456789abcdefxyz');
  });

  it('every split of a chunked answer in two parses alike (the parser alone)', () => {
    const wire = Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n1;a=b\r\n \r\nA\r\n0123456789\r\n0\r\nt: 1\r\n\r\n');
    for (let cut = 0; cut <= wire.length; cut++) {
      const pieces: Buffer[] = [];
      let status = 0;
      const parser = new AnswerParser('GET', { head: (code) => (status = code), body: (p) => pieces.push(Buffer.from(p)) });
      parser.execute(wire.subarray(0, cut));
      parser.execute(wire.subarray(cut));
      expect({ cut, status, body: Buffer.concat(pieces).toString(), done: parser.done }).toEqual({ cut, status: 200, body: 'hello 0123456789', done: true });
    }
  });

  it('skips interim 1xx answers', async () => {
    scripts.set('/interim', (s) =>
      writeApart(s, ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok']),
    );
    const answer = await send('/interim');
    expect(answer.statusCode).toBe(201);
    expect(answer.headers.link).toBeUndefined();
    expect(await answer.body.text()).toBe('ok');
  });

  it('no body after 204, 304 or a HEAD, whatever the length says; the connection serves the next request', async () => {
    scripts.set('/empty', (s, req) => {
      if (req.method === 'HEAD') s.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n');
      else if (req.target.includes('304')) s.write('HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\n');
      else s.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    for (const [path, method, status] of [['/empty', 'HEAD', 200], ['/empty?304', 'GET', 304], ['/empty', 'DELETE', 204]] as const) {
      const answer = await send(path, { method });
      expect(answer.statusCode).toBe(status);
      expect(await answer.body.text()).toBe('');
    }
    expect(connections).toBe(1);
  });

  it('a body without a length ends with the connection', async () => {
    scripts.set('/until-close', async (s) => {
      await writeApart(s, ['HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nfirst ', 'second']);
      s.end();
    });
    const answer = await send('/until-close');
    expect(await answer.body.text()).toBe('first second');
  });

  it('repeated headers as node:http gives them: joined, the first of single ones, set-cookie a list', async () => {
    scripts.set('/headers', (s) =>
      s.write('HTTP/1.1 200 OK\r\nVary: a\r\nvary:  b \r\nContent-Type: application/json\r\ncontent-type: text/html\r\nSet-Cookie: x=1\r\nSet-Cookie: y=2\r\nX-Total-Count: 7\r\ncontent-length: 0\r\n\r\n'),
    );
    const { headers } = await send('/headers');
    expect(headers).toMatchObject({ vary: 'a, b', 'content-type': 'application/json', 'set-cookie': ['x=1', 'y=2'], 'x-total-count': '7' });
  });

  it('a malformed answer is an error, which the client reports as not reaching the server', async () => {
    scripts.set('/garbage', (s) => s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'));
    scripts.set('/api/v1/variables', (s) => s.write('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    scripts.set('/lengths', (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nabc'));
    scripts.set('/overrun', (s) => s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n'));
    const answer = await send('/garbage');
    await expect(answer.body.text()).rejects.toMatchObject({ code: 'HPE_INVALID_CHUNK_SIZE' });
    await expect((await send('/overrun')).body.text()).rejects.toMatchObject({ code: 'HPE_STRICT' });
    await expect(send('/lengths')).rejects.toMatchObject({ code: 'HPE_UNEXPECTED_CONTENT_LENGTH' });
    const client = createClient({ baseUrl: base, retries: 0 });
    const e = await client.variables.list().catch((x: unknown) => x);
    await client.close();
    expect(asReported(e)).toMatchObject({ kind: 'network', exitCode: 5, code: 'HPE_INVALID_CONSTANT' });
  });
});

describe('the request', () => {
  it('names the host with its port, sends the given headers, and a body with its length (many MB whole)', async () => {
    scripts.set('/upload', (s, req) => s.write(`HTTP/1.1 200 OK\r\ncontent-length: ${String(req.body.length).length}\r\n\r\n${req.body.length}`));
    const big = Buffer.alloc(12 * 1024 * 1024, 'x');
    const answer = await send('/upload?a=1&b=%20', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(await answer.body.text()).toBe(String(big.length));
    const text = await send('/upload', { method: 'PUT', body: 'héllo' });
    expect(await text.body.text()).toBe('6');
    const [first, second] = received;
    expect(first!.head.split('\r\n')).toEqual([
      'POST /upload?a=1&b=%20 HTTP/1.1',
      'content-type: application/json',
      `Host: ${new URL(base).host}`,
      'Connection: keep-alive',
      `Content-Length: ${big.length}`,
    ]);
    expect(first!.body.equals(big)).toBe(true);
    expect(second!.body.toString()).toBe('héllo');
  });

  it('refuses a header value that would split the head (as node:http does)', async () => {
    await expect(send('/x', { headers: { authorization: 'Bearer k\r\nx-evil: 1' } })).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(received).toEqual([]);
  });
});

describe('connections', () => {
  const ok = (s: net.Socket) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');

  it('one connection carries requests one after the other (keep-alive)', async () => {
    scripts.set('/ok', ok);
    for (let i = 0; i < 3; i++) expect(await (await send('/ok')).body.text()).toBe('ok');
    expect(connections).toBe(1);
  });

  it('not reused after `connection: close`, after a body left unread, or once the server closed it', async () => {
    scripts.set('/ok', ok);
    scripts.set('/close', (s) => s.write('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok'));
    scripts.set('/long', (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part'));
    scripts.set('/bye', (s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    await (await send('/close')).body.text();
    await (await send('/ok')).body.text();
    expect(connections).toBe(2);
    const unread = await send('/long');
    unread.body.destroy();
    await (await send('/ok')).body.text();
    expect(connections).toBe(3);
    // The server ends a connection after answering: the idle connection is dropped, not reused.
    await (await send('/bye')).body.text();
    await pause();
    expect(await (await send('/ok')).body.text()).toBe('ok');
    expect(connections).toBe(4);
  });

  it('a connection answered before its request was written out carries no other until it is', async () => {
    // A server answering a POST as soon as its head is in (a 413 to a body too large), then
    // reading no more of it.
    const sockets: net.Socket[] = [];
    const early = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.once('data', (data) => {
        if (!data.toString('latin1').startsWith('POST')) return void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
        socket.pause();
        socket.write('HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\n\r\n');
      });
    });
    await new Promise<void>((r) => early.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(early.address() as net.AddressInfo).port}/`;
    transport = http1Transport();
    try {
      const refused = await transport.request(url, options({ method: 'POST', body: Buffer.alloc(64 * 1024 * 1024) }));
      expect(refused.statusCode).toBe(413);
      await refused.body.text();
      // Not queued behind the rest of the body on the first connection: a connection of its own.
      const next = await transport.request(url, options({ headersTimeout: 1000 }));
      expect(await next.body.text()).toBe('ok');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => early.close(r));
    }
  });

  it('an idle connection is let go a second before the keep-alive timeout the server announced', async () => {
    scripts.set('/short', (s) => s.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\nok'));
    scripts.set('/two', (s) => s.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=2\r\ncontent-length: 2\r\n\r\nok'));
    for (let i = 0; i < 2; i++) await (await send('/short')).body.text();
    expect(connections).toBe(2);
    for (let i = 0; i < 2; i++) await (await send('/two')).body.text();
    expect(connections).toBe(3);
    await pause(1200);
    await (await send('/two')).body.text();
    expect(connections).toBe(4);
  });

  it('a server closing in the middle of the body is an error, not a short answer', async () => {
    scripts.set('/cut-length', async (s) => {
      await writeApart(s, ['HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n', 'some']);
      s.end();
    });
    scripts.set('/cut-chunked', async (s) => {
      await writeApart(s, ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', '4\r\nsome\r\n']);
      s.destroy();
    });
    for (const path of ['/cut-length', '/cut-chunked']) {
      const answer = await send(path);
      await expect(answer.body.text()).rejects.toMatchObject({ code: 'ECONNRESET', message: 'aborted' });
    }
    scripts.set('/hang-up', (s) => s.end());
    await expect(send('/hang-up')).rejects.toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
  });

  it('connection errors are Node’s own', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect((transport = http1Transport()).request(`http://127.0.0.1:${port}/`, options())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const onSocket = http1Transport({ socketPath: '/nonexistent/chatflow.sock' });
    await expect(onSocket.request('http://localhost/', options())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('idle connections do not hold the process open', async () => {
    scripts.set('/ok', ok);
    const started = Date.now();
    expect(await inChild([`${base}/ok`])).toEqual(['200 ok']);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

/**
 * Sends GETs to `urls` one after the other from a process of its own (the built transport), with
 * `env`: each answer's status and text, or the error's code. The transport is not closed: the
 * process must end anyway, its idle connections left open.
 */
async function inChild(urls: string[], env = process.env): Promise<string[]> {
  const script = `
    const { http1Transport } = await import(${JSON.stringify(new URL('../../dist/client/transports.js', import.meta.url).href)});
    const t = http1Transport();
    const out = [];
    for (const url of ${JSON.stringify(urls)}) {
      try {
        const a = await t.request(url, { method: 'GET', headers: {}, headersTimeout: 5000, bodyTimeout: 5000 });
        out.push(a.statusCode + ' ' + (await a.body.text()));
      } catch (e) {
        out.push(e.code);
      }
    }
    console.log(JSON.stringify(out));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 10_000 });
  return JSON.parse(stdout) as string[];
}

describe('HTTPS (node:tls)', () => {
  it('trusts what Node trusts (NODE_EXTRA_CA_CERTS), names the host (SNI, not for an address), checks the name, keeps the connection', async () => {
    // A process of its own: the default CAs are read at start. (The certificate: test/helpers/tls,
    // for localhost and 127.0.0.1.)
    const tlsDir = new URL('../helpers/tls/', import.meta.url);
    const names: (string | false | null)[] = [];
    const servers = ['127.0.0.1', '127.0.0.2'].map((host) => {
      const server = https.createServer({ cert: readFileSync(new URL('cert.pem', tlsDir)), key: readFileSync(new URL('key.pem', tlsDir)) }, (_req, res) => res.end('ok'));
      return server;
    });
    servers[0]!.on('secureConnection', (socket) => names.push(socket.servername));
    const ports: number[] = [];
    for (const [i, server] of servers.entries()) {
      await new Promise<void>((r) => server.listen(0, i === 0 ? '127.0.0.1' : '127.0.0.2', r));
      ports.push((server.address() as net.AddressInfo).port);
    }
    const urls = [`https://localhost:${ports[0]}/`, `https://localhost:${ports[0]}/`, `https://127.0.0.1:${ports[0]}/`, `https://127.0.0.2:${ports[1]}/`];
    try {
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('cert.pem', tlsDir)) };
      expect(await inChild(urls, env)).toEqual(['200 ok', '200 ok', '200 ok', 'ERR_TLS_CERT_ALTNAME_INVALID']);
      // Two connections for three requests: the second to localhost reused the first's.
      expect(names).toEqual(['localhost', false]);
    } finally {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    }
  });
});

describe('deadlines', () => {
  it('no head within headersTimeout: UND_ERR_HEADERS_TIMEOUT, the connection dropped', async () => {
    let closed = false;
    scripts.set('/silent', (s) => s.on('close', () => (closed = true)));
    await expect(send('/silent', { headersTimeout: 100 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    await pause(50);
    expect(closed).toBe(true);
  });

  it('no next chunk within bodyTimeout while the reader waits: UND_ERR_BODY_TIMEOUT; a slow reader is not timed', async () => {
    scripts.set('/stall', (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nfirst'));
    scripts.set('/slow-reader', (s) => writeApart(s, ['HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nab', 'cd', 'ef']));
    const stalled = await send('/stall', { bodyTimeout: 100 });
    await expect(stalled.body.text()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    const slow = await send('/slow-reader', { bodyTimeout: 100 });
    const got: string[] = [];
    for await (const chunk of slow.body) {
      got.push(Buffer.from(chunk).toString());
      await pause(250);
    }
    expect(got.join('')).toBe('abcdef');
  });

  it('a body nobody reads holds the server back (the connection waits for the reader)', async () => {
    const total = 64 * 1024 * 1024;
    let flushed = 0;
    scripts.set('/big', async (s) => {
      s.write(`HTTP/1.1 200 OK\r\ncontent-length: ${total}\r\n\r\n`);
      const piece = Buffer.alloc(1024 * 1024, 'x');
      for (let sent = 0; sent < total && !s.destroyed; sent += piece.length) {
        if (!s.write(piece, () => (flushed += piece.length))) await once(s, 'drain').catch(() => undefined);
      }
    });
    const answer = await send('/big');
    await pause(300);
    expect(flushed).toBeLessThan(total / 2);
    let read = 0;
    for await (const chunk of answer.body) read += chunk.length;
    expect(read).toBe(total);
  });

  it('an abort before the head or during the body: an AbortError, the connection dropped', async () => {
    scripts.set('/silent', () => undefined);
    scripts.set('/partial', (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nfirst'));
    const shape = { name: 'AbortError', code: 'ABORT_ERR', message: 'The operation was aborted' };
    await expect(send('/silent', { signal: AbortSignal.timeout(50) })).rejects.toMatchObject(shape);
    await expect(send('/silent', { signal: AbortSignal.abort() })).rejects.toMatchObject(shape);
    const controller = new AbortController();
    const answer = await send('/partial', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(answer.body.text()).rejects.toMatchObject(shape);
    scripts.set('/ok', (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    await (await send('/ok')).body.text();
    expect(connections).toBe(3);
  });
});
