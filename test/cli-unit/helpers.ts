import { Writable } from 'node:stream';

/** A Writable that keeps what it is given, as text. */
export function sink(): Writable & { text(): string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { text(): string };
  w.text = () => chunks.join('');
  return w;
}

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[/;
