// A Flowise fixture in a process of its own (the benches' serve.mjs), so that its work is not the
// CLI's: it prints one JSON line when ready and one for each `stats` asked on its stdin.
import { spawn } from 'node:child_process';

export function startFixtureProcess(script, args) {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', script, ...args.map(String)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  const waiting = [];
  let buf = '';
  child.stdout.on('data', (c) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      const line = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      (waiting.shift() ?? ((l) => lines.push(l)))(line);
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
  return {
    ready: next(),
    stats: () => (child.stdin.write('stats\n'), next()),
    stop: () => new Promise((r) => (child.once('exit', r), child.stdin.end('quit\n'))),
  };
}
