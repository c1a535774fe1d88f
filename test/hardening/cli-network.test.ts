// The real CLI binary against a misbehaving network: connection refused, a server that never
// answers (--timeout 1), one that closes before answering or in the middle of the body, 503 then
// 200, invalid JSON. Each gives its documented exit code (5 unreachable or timed out, 1 server
// error or unreadable answer) and one clear line; GET and PUT are retried, POST never, so nothing
// is written twice: a tiny node:http server counts the requests.
// Then how a request gets there: HTTPS (a certificate trusted through NODE_EXTRA_CA_CERTS, or not)
// and a proxy named by HTTP_PROXY (NO_PROXY bypassing it).
// (test/client/ covers the client library; test/cli/errors.test.ts refused and timed-out GETs.)
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STACK_LINE, closedPort, runCli } from '../helpers/cli.js';
import { startConnectProxy } from '../helpers/proxy.js';

const VARIABLE = { id: '0e8b1a64-7b5a-4f5e-9d5e-2a7f6f1d9c11', name: 'NET', value: 'v', type: 'static', createdDate: '2026-01-01T00:00:00.000Z', updatedDate: '2026-01-01T00:00:00.000Z' };

type Behaviour = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

let server: Server;
let url: string;
let behaviour: Behaviour;
/** Requests received, by `METHOD path`. */
let counts: Record<string, number>;
const hung: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = `${req.method} ${req.url?.split('?')[0]}`;
    counts[key] = (counts[key] ?? 0) + 1;
    req.resume();
    req.on('end', () => behaviour(req, res, counts[key]!));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hung) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  counts = {};
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const LIST = ['variables', 'list']; // JSON on stdout: it is not a terminal
const CREATE = ['variables', 'create', '--name', 'NET', '--value', 'v'];
const UPDATE = ['variables', 'update', VARIABLE.id, '--value', 'v'];

/** Runs the CLI against the tiny server with a 1 s timeout; stderr must be one line, no stack. */
async function cli(args: string[], target = url) {
  const started = Date.now();
  const r = await runCli([...args, '--timeout', '1'], { url: target });
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  return { ...r, ms: Date.now() - started, lines };
}

function oneLine(r: { lines: string[]; stderr: string }): string {
  expect(r.lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(STACK_LINE);
  expect(r.lines[0]).toMatch(/^chatflow: /);
  return r.lines[0]!;
}

describe('the CLI against a misbehaving network', () => {
  it('connection refused: exit 5 naming the URL, for a read and a write', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    for (const args of [LIST, CREATE]) {
      const r = await cli(args, closed);
      expect(r.exitCode, r.stderr).toBe(5);
      expect(oneLine(r)).toContain(`cannot reach ${closed} (connection refused)`);
      expect(r.stdout).toBe('');
    }
  });

  it('a server that never answers: exit 5 after --timeout 1, sent once (a timeout is not retried)', async () => {
    behaviour = (_req, res) => hung.push(res);
    for (const [args, key] of [
      [LIST, 'GET /api/v1/variables'],
      [CREATE, 'POST /api/v1/variables'],
    ] as const) {
      const r = await cli([...args]);
      expect(r.exitCode, r.stderr).toBe(5);
      expect(oneLine(r)).toMatch(/^chatflow: variables (list|create): http:\/\/\S+ did not answer within 1s \(--timeout\)$/);
      expect(r.ms).toBeLessThan(8000);
      expect(counts[key]).toBe(1);
    }
  });

  it('a server that closes the connection without answering: GET is retried, POST sent once; exit 5', async () => {
    behaviour = (_req, res) => res.socket?.destroy();
    const list = await cli(LIST);
    expect(list.exitCode, list.stderr).toBe(5);
    expect(oneLine(list)).toMatch(/cannot reach .* \(the connection was closed\)/);
    expect(counts['GET /api/v1/variables']).toBe(3);

    const create = await cli(CREATE);
    expect(create.exitCode, create.stderr).toBe(5);
    expect(oneLine(create)).toMatch(/cannot reach .* \(the connection was closed\)/);
    expect(counts['POST /api/v1/variables']).toBe(1);
  });

  it('a server that closes in the middle of the body: exit 5, "lost the connection", nothing sent twice', async () => {
    behaviour = (req, res) => {
      const body = JSON.stringify(req.method === 'GET' ? [VARIABLE, VARIABLE] : VARIABLE);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body.slice(0, 40));
      setTimeout(() => res.socket?.destroy(), 50);
    };
    for (const [args, key] of [
      [LIST, 'GET /api/v1/variables'],
      [CREATE, 'POST /api/v1/variables'],
    ] as const) {
      const r = await cli([...args]);
      expect(r.exitCode, r.stderr).toBe(5);
      expect(oneLine(r)).toMatch(/lost the connection to .* while (reading|creating) variables/);
      expect(counts[key]).toBe(1);
    }
  });

  it('503 then 200: GET and PUT are retried and succeed; POST is not retried and fails with exit 1', async () => {
    behaviour = (req, res, attempt) => {
      if (attempt === 1) return json(res, 503, { statusCode: 503, success: false, message: 'the database is unavailable; try again shortly' });
      json(res, 200, req.method === 'GET' ? [VARIABLE] : VARIABLE);
    };
    const list = await cli(LIST);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([VARIABLE]);
    expect(list.stderr).toBe('');
    expect(counts['GET /api/v1/variables']).toBe(2);

    const update = await cli(UPDATE);
    expect(update.exitCode, update.stderr).toBe(0);
    expect(counts[`PUT /api/v1/variables/${VARIABLE.id}`]).toBe(2);

    const create = await cli(CREATE);
    expect(create.exitCode, create.stderr).toBe(1);
    expect(oneLine(create)).toBe('chatflow: the database is unavailable; try again shortly');
    expect(create.stdout).toBe('');
    expect(counts['POST /api/v1/variables']).toBe(1);
  });

  it('503 every time: GET gives up after 3 attempts with exit 1', async () => {
    behaviour = (_req, res) => json(res, 503, { statusCode: 503, success: false, message: 'the database is unavailable; try again shortly' });
    const r = await cli(LIST);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(oneLine(r)).toBe('chatflow: the database is unavailable; try again shortly');
    expect(counts['GET /api/v1/variables']).toBe(3);
  });

  it('invalid JSON in a 200 answer: exit 1 saying so, sent once', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "0e8b1a64", "name": NET');
    };
    for (const [args, key, said] of [
      [LIST, 'GET /api/v1/variables', /^chatflow: variables list: the server's answer to reading variables is not a readable list/],
      [CREATE, 'POST /api/v1/variables', /^chatflow: variables create: the server's answer to creating variables is not JSON$/],
    ] as const) {
      const r = await cli([...args]);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(oneLine(r)).toMatch(said);
      expect(r.stdout).toBe('');
      expect(counts[key]).toBe(1);
    }
  });

  it('--timeout is a deadline: a list that trickles bytes but no records ends with exit 5; one still flowing is not cut', async () => {
    const trickle = (res: ServerResponse, head: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(head);
      const timer = setInterval(() => res.write(' '), 200);
      res.once('close', () => clearInterval(timer));
      hung.push(res);
    };
    // Streamed (no --page), and a whole answer (--limit): both bounded, though bytes keep coming.
    behaviour = (req, res) => trickle(res, req.url?.includes('limit=') ? '{"data":[' : '[\n');
    for (const args of [LIST, [...LIST, '--limit', '5']]) {
      const r = await cli(args);
      expect(r.exitCode, r.stderr).toBe(5);
      expect(oneLine(r)).toMatch(/did not answer within 1s \(--timeout\)|stopped sending variables: nothing came for 1s \(--timeout\)/);
      expect(r.ms).toBeLessThan(8000);
    }
    // A record every 400 ms for about 2.4 s, past the 1 s timeout: flowing, so all of it arrives.
    behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[\n');
      let n = 0;
      const timer = setInterval(() => {
        n++;
        res.write(`${JSON.stringify({ ...VARIABLE, id: `${VARIABLE.id.slice(0, -1)}${n}` })}${n < 6 ? ',' : ''}\n`);
        if (n === 6) {
          clearInterval(timer);
          res.end(']\n');
        }
      }, 400);
    };
    const flowing = await cli(LIST);
    expect(flowing.exitCode, flowing.stderr).toBe(0);
    expect(JSON.parse(flowing.stdout)).toHaveLength(6);
  });
});

describe('how a request gets there', () => {
  const ok: Behaviour = (_req, res) => json(res, 200, [VARIABLE]);

  it('HTTPS: a certificate trusted through NODE_EXTRA_CA_CERTS works; an untrusted one is exit 5 naming the URL', async () => {
    const certFile = fileURLToPath(new URL('../helpers/tls/cert.pem', import.meta.url));
    const secure = createHttpsServer({ cert: readFileSync(certFile), key: readFileSync(new URL('../helpers/tls/key.pem', import.meta.url)) }, (req, res) => ok(req, res, 1));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    try {
      const trusted = await runCli([...LIST, '--timeout', '5'], { url: secureUrl, env: { NODE_EXTRA_CA_CERTS: certFile } });
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      expect(JSON.parse(trusted.stdout)).toEqual([VARIABLE]);
      const untrusted = await cli(LIST, secureUrl);
      expect(untrusted.exitCode, untrusted.stderr).toBe(5);
      expect(oneLine(untrusted)).toContain(`cannot reach ${secureUrl} (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate)`);
    } finally {
      secure.closeAllConnections();
      await new Promise((resolve) => secure.close(resolve));
    }
  });

  it('HTTP_PROXY: the request goes through the proxy (a CONNECT tunnel); NO_PROXY bypasses it', async () => {
    behaviour = ok;
    const proxy = await startConnectProxy();
    const { url: proxyUrl, tunnels } = proxy;
    try {
      const via = await runCli([...LIST, '--timeout', '5'], { url, env: { HTTP_PROXY: proxyUrl } });
      expect(via.exitCode, via.stderr).toBe(0);
      expect(JSON.parse(via.stdout)).toEqual([VARIABLE]);
      expect(tunnels).toEqual([new URL(url).host]);
      const direct = await runCli([...LIST, '--timeout', '5'], { url, env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
      expect(direct.exitCode, direct.stderr).toBe(0);
      expect(tunnels).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
