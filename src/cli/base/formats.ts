// The output formats' names, apart from their writers (./records.ts): the flag definitions (and so
// help and completion) need the names, not chalk and the table renderer.
export const FORMATS = ['table', 'wide', 'json', 'ndjson', 'csv', 'yaml'] as const;
export type Format = (typeof FORMATS)[number];

export function isFormat(value: unknown): value is Format {
  return typeof value === 'string' && (FORMATS as readonly string[]).includes(value);
}
