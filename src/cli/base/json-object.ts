// A JSON object read from a file or a line, or why it is none: import's lines and chatflow files.

/** A plain object (not null, not an array), its values typed as the caller reads them. */
export const isObject = <T = unknown>(v: unknown): v is Record<string, T> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object `text` holds, or why it holds none (for a message naming the line or file). */
export function parseObject<T = unknown>(text: string): Record<string, T> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
  return isObject<T>(value) ? value : 'not a JSON object';
}
