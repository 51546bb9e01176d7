/**
 * A node's URL as logs, errors and /readyz may show it: scheme, host and port only. Credentials, paths and queries
 * are hidden, since providers put API keys there. Every chain family redacts its RPC URLs with this one function.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const hidden = parsed.pathname.length > 1 || parsed.search !== '' || parsed.username !== '';
    return `${parsed.protocol}//${parsed.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}
