// `chatflow export --redact`: personal data masked in the exported records, so that a history can
// be shared for analysis. Exactly this is masked, in every record of every resource:
// - every e-mail address (local@domain.tld) inside any string value, at any depth (message content,
//   tool inputs and outputs, source documents, feedback comments, variable values, ...), replaced
//   by REDACTED_EMAIL, the rest of the text kept;
// - the whole value of every `leadEmail` field that is not null, whatever it holds.
// Nothing else is: names, phone numbers or addresses typed in free text stay as they are.

const REDACTED_EMAIL = '[email redacted]';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('@') ? value.replace(EMAIL, REDACTED_EMAIL) : value;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'leadEmail' && v != null ? REDACTED_EMAIL : redactValue(v)]),
    );
  }
  return value;
}

/**
 * A record's JSON text, redacted. Most records hold no `@` and no lead e-mail: they are given back
 * as they are, unparsed (JSON.stringify, which wrote them, never escapes `@`).
 */
export function redactJson(text: string): string {
  return text.includes('@') || /"leadEmail":(?!null)/.test(text) ? JSON.stringify(redactValue(JSON.parse(text))) : text;
}
