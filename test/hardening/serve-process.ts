// `chatflow serve` as a child process (the built bin/chatflow.js), for the tests that kill it,
// restart it, or run several of them on one SQLite file.
import { Agent } from 'undici';
import { spawnCli, waitForLine, type CliHome } from '../helpers/cli.js';

export interface ServeProcess {
  /** Service root, e.g. http://127.0.0.1:40123. */
  url: string;
  api: string;
  pid: number;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends the signal and waits for the process to be gone. */
  stop(signal: NodeJS.Signals): Promise<{ exitCode?: number; signal?: string }>;
}

const running = new Set<ReturnType<typeof spawnCli>>();

/** Starts `serve --port 0 ...args` and waits for its "listening on" line. */
export async function startServe(args: string[], opts: { home: CliHome; env?: Record<string, string | undefined> }): Promise<ServeProcess> {
  const proc = spawnCli(['serve', '--port', '0', ...args], { home: opts.home, env: opts.env });
  running.add(proc);
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = proc.then(
    (r) => r,
    (r) => r,
  );
  let url: string;
  try {
    [, url] = (await waitForLine(proc.stdout!, /listening on (http:\/\/\S+)/, 30_000)) as unknown as [string, string];
  } catch (err) {
    proc.kill('SIGKILL');
    await done;
    throw new Error(`serve did not start: ${(err as Error).message}\n${stderr}`);
  }
  return {
    url,
    api: `${url}/api/v1`,
    pid: proc.pid!,
    stderr: () => stderr,
    async stop(signal) {
      proc.kill(signal);
      const r = await done;
      running.delete(proc);
      return { exitCode: r.exitCode, signal: r.signal };
    },
  };
}

/** Kills whatever a test left running (afterAll). */
export async function killAll(): Promise<void> {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await Promise.all([...running].map((p) => p.catch(() => undefined)));
  running.clear();
}

/** A connection pool of its own, with room for `connections` requests at once. */
export const agent = (connections: number) => new Agent({ connections, keepAliveTimeout: 1000 });
