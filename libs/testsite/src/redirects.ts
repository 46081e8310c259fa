import type { IncomingMessage, ServerResponse } from 'node:http';

const CHAIN_STATUSES = [301, 302, 307, 308] as const;

/** Where a `/redirect/...` path sends the client, and with which status; undefined for an unknown path. */
export function redirectFor(
  rest: string,
  query: URLSearchParams,
  origin: string,
): { status: number; location: string } | undefined {
  const status = Number(query.get('status') ?? 302);
  const fixed: Record<string, { status: number; location: string }> = {
    '301': { status: 301, location: '/articles/0' },
    '302': { status: 302, location: '/articles/0' },
    '303': { status: 303, location: '/articles/0' },
    '307': { status: 307, location: '/articles/0' },
    '308': { status: 308, location: '/articles/0' },
    'loop/a': { status: 302, location: '/redirect/loop/b' },
    'loop/b': { status: 301, location: '/redirect/loop/a' },
    self: { status: 302, location: '/redirect/self' },
    relative: { status: 301, location: '../articles/2' },
    'absolute-same-site': { status: 301, location: `${origin}/articles/2` },
    private: { status: 302, location: 'http://10.0.0.1/' },
    metadata: { status: 302, location: 'http://169.254.169.254/latest/meta-data/' },
    'loopback-ipv6': { status: 302, location: `http://[::1]:${new URL(origin).port}/articles/0` },
    localhost: { status: 302, location: `http://localhost:${new URL(origin).port}/articles/0` },
    'encoded-ip': { status: 302, location: `http://2130706433:${new URL(origin).port}/articles/0` },
    ftp: { status: 302, location: 'ftp://example.com/file' },
    external: { status: 302, location: 'https://example.com/' },
    'no-location': { status: 302, location: '' },
  };
  const known = fixed[rest];
  if (known) return known;
  const chain = /^chain\/(\d+)$/.exec(rest);
  if (chain) {
    const n = Number(chain[1]);
    if (n < 1 || n > 100) return undefined;
    return {
      status: CHAIN_STATUSES[n % CHAIN_STATUSES.length] as number,
      location: n === 1 ? '/articles/1' : `/redirect/chain/${n - 1}`,
    };
  }
  // An open redirect, as many real sites have: the SSRF tests aim it anywhere.
  if (rest === 'to' && query.has('url') && status >= 300 && status < 400) {
    return { status, location: query.get('url') ?? '' };
  }
  return undefined;
}

export function sendRedirect(
  _req: IncomingMessage,
  res: ServerResponse,
  redirect: { status: number; location: string },
): void {
  const body = `<!doctype html><html><body><p>Moved to <a href="${encodeURI(redirect.location)}">here</a>.</p></body></html>`;
  const headers: Record<string, string | number> = {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (redirect.location !== '') headers.location = redirect.location;
  res.writeHead(redirect.status, headers);
  res.end(body);
}
