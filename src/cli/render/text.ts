// Terminal text helpers for the drawn outputs (tail's chat layout, stats' charts, promote plans):
// display width, padding, sanitising and word wrapping. Pure functions, no colour.

/** Cells a code point takes: East Asian wide ranges and emoji take two. */
function cells(cp: number): number {
  if (cp === 0x200b || cp === 0x200d || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd)
    ? 2
    : 1;
}

/** Width of plain text (no escape sequences) in terminal cells. */
export function displayWidth(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    // Below the combining marks every character takes one cell (most text: no look-up).
    if (unit < 0x300) w++;
    else {
      const cp = s.codePointAt(i)!;
      if (cp > 0xffff) i++;
      w += cells(cp);
    }
  }
  return w;
}

export const padEnd = (s: string, width: number) => s + ' '.repeat(Math.max(0, width - displayWidth(s)));
export const padStart = (s: string, width: number) => ' '.repeat(Math.max(0, width - displayWidth(s))) + s;

/** Cut to `width` cells, ending with `…` when something was cut. */
export function truncate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let end = 0;
  let w = 0;
  while (end < s.length) {
    const cp = s.codePointAt(end)!;
    const c = cells(cp);
    if (w + c > width - 1) break;
    w += c;
    end += cp > 0xffff ? 2 : 1;
  }
  return `${s.slice(0, end)}…`;
}

/**
 * Text from the server made safe to print: tabs become spaces, other control characters
 * (escape sequences included) become U+FFFD, so data never moves the cursor or recolours the
 * terminal. Line breaks are kept when `keepNewlines`, else they become spaces.
 */
export function sanitize(s: string, keepNewlines = false): string {
  const t = s.replace(/\r\n?/g, '\n').replace(/\t/g, '  ');
  // eslint-disable-next-line no-control-regex
  const ctrl = keepNewlines ? /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g : /[\u0000-\u001f\u007f-\u009f]/g;
  return (keepNewlines ? t : t.replace(/\n/g, ' ')).replace(ctrl, '\uFFFD');
}

/**
 * Word-wraps text to `width` cells: breaks at spaces, splits words longer than a line, keeps the
 * text's own line breaks (several blank lines become one). Never returns an empty array.
 */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  const paragraphs = sanitize(text, true).replace(/\n{3,}/g, '\n\n').split('\n');
  for (const para of paragraphs) {
    const words = para.split(/ +/).filter((x) => x !== '');
    if (words.length === 0) {
      out.push('');
      continue;
    }
    let line = '';
    let lineW = 0;
    for (let word of words) {
      let ww = displayWidth(word);
      if (lineW > 0 && lineW + 1 + ww <= w) {
        line += ` ${word}`;
        lineW += 1 + ww;
        continue;
      }
      if (lineW > 0) {
        out.push(line);
        line = '';
        lineW = 0;
      }
      // A word longer than the line is cut into line-sized pieces.
      while (ww > w) {
        let piece = '';
        let pw = 0;
        for (const ch of word) {
          const c = cells(ch.codePointAt(0)!);
          if (pw + c > w && pw > 0) break;
          piece += ch;
          pw += c;
        }
        out.push(piece);
        word = word.slice(piece.length);
        ww = displayWidth(word);
      }
      line = word;
      lineW = ww;
    }
    out.push(line);
  }
  while (out.length > 1 && out[out.length - 1] === '') out.pop();
  return out;
}

/** 1234567 → `1,234,567`. */
export const groupDigits = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** `1 message`, `2 messages`, `200,000 messages`. */
export const plural = (n: number, word: string) => `${groupDigits(n)} ${word}${n === 1 ? '' : 's'}`;
