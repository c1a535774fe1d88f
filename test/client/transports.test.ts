// The request core's transports (src/client/transports.ts): the default one over a Unix socket
// (no proxy applies to it), HTTPS over node:tls (a certificate not trusted is a network error
// naming the URL), and undici over a dispatcher a library user gives (here, one trusting the
// test's certificate). test/client/http1.test.ts covers the default transport's framing and
// connections byte by byte; test/client/flowise.test.ts covers HTTP_PROXY; test/client/stream.test.ts
// and test/hardening/cli-network.test.ts what a transport must give the core (streams, resets).
// The certificate in test/helpers/tls is a self-signed one for localhost and 127.0.0.1, made for
// these tests (openssl req -x509, 100 years); its key protects nothing else.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { asReported } from '../helpers/exit.js';

const TLS = new URL('../helpers/tls/', import.meta.url);
const cert = readFileSync(new URL('cert.pem', TLS));
const key = readFileSync(new URL('key.pem', TLS));

const VARIABLE = { id: 'v1', name: 'ON_SOCKET', value: 'x', type: 'static', createdDate: '2026-01-01T00:00:00.000Z', updatedDate: '2026-01-01T00:00:00.000Z' };
/** Host headers the servers received. */
const hosts: string[] = [];
const handler: http.RequestListener = (req, res) => {
  hosts.push(req.headers.host ?? '');
  if (req.url === '/api/v1/variables') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([VARIABLE]));
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such route"}');
};

let dir: string;
let socketPath: string;
let onSocket: http.Server;
let secure: https.Server;
let secureUrl: string;
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chatflow-transports-'));
  socketPath = join(dir, 'service.sock');
  onSocket = http.createServer(handler);
  await new Promise<void>((r) => onSocket.listen(socketPath, r));
  secure = https.createServer({ cert, key }, handler);
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.env = saved;
  for (const s of [onSocket, secure]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('a Unix socket (socketPath)', () => {
  it('carries the requests; the URL gives the Host header and the path', async () => {
    hosts.length = 0;
    const client = createClient({ baseUrl: 'http://chatflow.local:3000', socketPath, retries: 0 });
    try {
      expect((await client.variables.list()).items).toEqual([VARIABLE]);
      // Twice: the second request reuses the connection (keep-alive) and still reaches the socket.
      expect((await client.variables.list()).items).toEqual([VARIABLE]);
      expect(hosts).toEqual(['chatflow.local:3000', 'chatflow.local:3000']);
      const e = await client.assistants.get('nope').catch((x: unknown) => x);
      expect(asReported(e)).toMatchObject({ kind: 'http', status: 404, exitCode: 3 });
    } finally {
      await client.close();
    }
  });

  it('is not sent to a proxy named in the environment', async () => {
    process.env.HTTP_PROXY = 'http://127.0.0.1:9';
    const client = createClient({ baseUrl: 'http://localhost', socketPath, retries: 0 });
    try {
      expect((await client.variables.list()).items).toEqual([VARIABLE]);
    } finally {
      await client.close();
      delete process.env.HTTP_PROXY;
    }
  });

  it('a socket nobody listens on is "cannot reach", exit 5', async () => {
    const client = createClient({ baseUrl: 'http://localhost', socketPath: join(dir, 'none.sock'), retries: 0 });
    const e = await client.variables.list().catch((x: unknown) => x);
    expect(asReported(e)).toMatchObject({ kind: 'network', exitCode: 5, code: 'ENOENT' });
    expect((e as Error).message).toMatch(/^cannot reach http:\/\/localhost /);
  });
});

describe('HTTPS', () => {
  it('a certificate the system does not trust is a network error naming the URL', async () => {
    const client = createClient({ baseUrl: secureUrl, retries: 0 });
    const e = await client.variables.list().catch((x: unknown) => x);
    expect(asReported(e)).toMatchObject({ kind: 'network', exitCode: 5, code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    // (Node 24 appends its own advice to the reason: "; if the root CA is installed locally, try
    // running Node.js with --use-system-ca", passed on as it is.)
    expect((e as Error).message).toMatch(/^cannot reach \S+ \(DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate(; [^)]+)?\)$/);
    expect((e as Error).message).toContain(`cannot reach ${secureUrl} (`);
  });

  it('a dispatcher given by the caller (undici) is used: here one that trusts the certificate', async () => {
    const dispatcher = new Agent({ connect: { ca: cert } });
    const client = createClient({ baseUrl: secureUrl, dispatcher, retries: 0 });
    try {
      expect((await client.variables.list()).items).toEqual([VARIABLE]);
    } finally {
      await client.close();
      await dispatcher.close();
    }
  });
});
