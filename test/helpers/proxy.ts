// A forward proxy for tests: it answers CONNECT with a tunnel to the address asked for and records
// each tunnel's target, so a test can see whether a request went through it.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** `host:port` of each tunnel opened, in order. */
  tunnels: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const proxy = createServer((_req, res) => res.writeHead(502).end());
  proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
