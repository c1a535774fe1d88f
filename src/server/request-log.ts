// The request log: one line a request, whatever became of it, and never a key. A key a client put
// in the URL is found however the URL spells it (percent-encoded in any case, `+` for a space),
// because each part is decoded before it is compared.

/** The URL with every path segment, query name or value that holds a key replaced by <redacted>. */
export function redactUrl(url: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return url;
  const holdsKey = (raw: string) => {
    let text = raw;
    try {
      text = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      // Malformed escapes: compared as sent.
    }
    return secrets.some((k) => text.includes(k));
  };
  const cut = (raw: string) => (holdsKey(raw) ? '<redacted>' : raw);
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(cut).join('/');
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? cut(pair) : `${cut(pair.slice(0, eq))}=${cut(pair.slice(eq + 1))}`;
    })
    .join('&');
  return `${path}?${query}`;
}
