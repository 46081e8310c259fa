// A bounded, seeded fuzz of the gateway's surfaces the OpenAPI document does
// not describe, so schemathesis never reaches them: the MCP server (/mcp,
// JSON-RPC over Streamable HTTP) and the OAuth endpoints (/oauth/*,
// /.well-known/*). Every request is drawn from fixed tables with a seeded
// generator, so a run is the same everywhere; each answer is held to what a
// client of that surface parses: never a 5xx, never a stack trace, and a body
// in the surface's own shape (the Error object, JSON-RPC, an RFC 6749 error).
import { ERRORS, isErrorCode } from '@wap/errors';

export interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const rpc = (fields: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...fields });

/** JSON-RPC messages and things that only look like them. */
const MCP_BODIES: readonly string[] = [
  '',
  'not json',
  '{',
  'null',
  '1',
  '"tools/list"',
  '[]',
  '[1,2,3]',
  '{}',
  '{"jsonrpc":"2.0"}',
  JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/list' }),
  rpc({ id: 1, method: 'tools/list' }),
  rpc({ id: 1e308, method: 'tools/list' }),
  rpc({ id: -1.5, method: 'ping' }),
  '{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
  rpc({ id: 'i'.repeat(100_000), method: 'ping' }),
  rpc({ id: {}, method: 'ping' }),
  rpc({ id: [1], method: 'ping' }),
  rpc({ id: true, method: 'ping' }),
  rpc({ id: null, method: 'ping' }),
  rpc({ id: 'x\u0000y', method: 'ping' }),
  rpc({ id: 2, method: 'no/such/method' }),
  rpc({ id: 3, method: 42 }),
  rpc({ id: 4, method: 'm'.repeat(100_000) }),
  rpc({ id: 5, method: 'tools/list', params: 'not an object' }),
  rpc({ id: 6, method: 'tools/list', params: [1, 2] }),
  rpc({ id: 7, method: 'tools/list', params: { cursor: { not: 'a string' } } }),
  rpc({ id: 8, method: 'tools/call' }),
  rpc({ id: 9, method: 'tools/call', params: { name: 42 } }),
  rpc({ id: 10, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
  rpc({ id: 11, method: 'tools/call', params: { name: 'service_credits_get', arguments: null } }),
  rpc({ id: 12, method: 'tools/call', params: { name: 'service_credits_get', arguments: [] } }),
  rpc({ id: 13, method: 'tools/call', params: { name: 'service_credits_get', arguments: 'x' } }),
  rpc({ id: 14, method: 'tools/call', params: { name: 'service_credits_get', arguments: { extra: 1 } } }),
  rpc({ id: 15, method: 'tools/call', params: { name: 'service_crawl_status', arguments: { id: '\u0000' } } }),
  rpc({ id: 16, method: 'tools/call', params: { name: 'service_crawl_status', arguments: { id: 'z'.repeat(5000) } } }),
  rpc({ id: 17, method: 'tools/call', params: { name: 'service_usage_get', arguments: { from: 'yesterday' } } }),
  rpc({ id: 18, method: 'tools/call', params: { name: 'service_scrape_page', arguments: { url: 'javascript:1' } } }),
  `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"service_credits_get","arguments":{"a":${deep(50_000)}}}}`,
  rpc({ id: 20, method: 'tools/call', params: { name: 'service_credits_get', _meta: { progressToken: {} } } }),
  rpc({ id: 21, method: 'initialize', params: { protocolVersion: 42, capabilities: 'all', clientInfo: null } }),
  rpc({ id: 22, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: {} } }),
  rpc({ id: 23, method: 'resources/list' }),
  rpc({ id: 24, method: 'prompts/get', params: { name: 'x' } }),
  rpc({ id: 25, method: 'logging/setLevel', params: { level: 'loudest' } }),
  rpc({ id: 26, method: 'completion/complete', params: {} }),
  rpc({ method: 'notifications/initialized' }),
  rpc({ method: 'notifications/no-such-thing', params: { x: 1 } }),
  rpc({ method: 'notifications/cancelled', params: { requestId: { x: 1 } } }),
  rpc({ id: 27, result: { not: 'a request' } }),
  rpc({ id: 28, error: { code: 'x', message: 1 } }),
  JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))),
  JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'junk', null, { jsonrpc: '2.0' }]),
  `\ufeff${rpc({ id: 29, method: 'ping' })}`,
];

const MCP_CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
];
const MCP_ACCEPTS = [
  'application/json, text/event-stream',
  'application/json',
  'text/event-stream',
  '*/*',
  'text/html',
  '',
];

/** Requests for /mcp, `count` of them, from `random`; `key` is a valid credential. */
export function mcpCases(random: () => number, key: string, count: number): FuzzCase[] {
  const auths = [`Bearer ${key}`, `Bearer ${key}`, `Bearer ${key}`, '', 'Bearer', 'Bearer oat_nobody', 'Basic eDp5'];
  const cases: FuzzCase[] = [];
  for (let i = 0; i < count; i++) {
    const headers: Record<string, string> = {};
    const auth = pick(random, auths);
    if (auth) headers.authorization = auth;
    const type = pick(random, MCP_CONTENT_TYPES);
    if (type) headers['content-type'] = type;
    const accept = pick(random, MCP_ACCEPTS);
    if (accept) headers.accept = accept;
    if (random() < 0.15) headers['mcp-session-id'] = pick(random, ['nope', 'x'.repeat(2000), '\t']);
    if (random() < 0.15) headers['mcp-protocol-version'] = pick(random, ['2025-06-18', '9999-99-99', 'v'.repeat(500)]);
    const method = random() < 0.9 ? 'POST' : pick(random, ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']);
    cases.push({ method, path: '/mcp', headers, ...(method === 'GET' ? {} : { body: pick(random, MCP_BODIES) }) });
  }
  return cases;
}

/** Values a client may put where an OAuth parameter belongs, as a JSON value. */
const ODD_VALUES: readonly unknown[] = [
  '',
  'x',
  '00000000-0000-4000-8000-000000000000',
  'not-a-uuid',
  'x'.repeat(10_000),
  'a\u0000b',
  42,
  -1,
  1e308,
  true,
  null,
  [],
  ['a', 'b'],
  ['http://127.0.0.1:9/a\u0000b', 'https://example.com/'],
  {},
  { nested: { deeper: [1] } },
];

/** A parameter as a form would send it: repeated keys become arrays on the server, so they are here too. */
function formOf(params: Record<string, unknown>): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const item of v) out.append(k, String(item));
    else if (v !== undefined) out.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  return out.toString();
}

const OAUTH_PARAMS: Record<string, readonly string[]> = {
  '/oauth/register': ['redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'client_name'],
  '/oauth/token': ['client_id', 'grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'resource'],
  '/oauth/revoke': ['token', 'token_type_hint'],
  '/oauth/authorize': ['request', 'step', 'email', 'password', 'decision', 'workspace'],
};
const AUTHORIZE_QUERY = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
  'scope',
];

/**
 * Requests for the OAuth endpoints. `known` are real values to mix in (a registered
 * client, its redirect URI, a signed sign-in step), so the draws get past the first check.
 */
export function oauthCases(random: () => number, known: Record<string, unknown>, count: number): FuzzCase[] {
  const valueFor = (name: string) =>
    known[name] !== undefined && random() < 0.5 ? known[name] : pick(random, ODD_VALUES);
  const cases: FuzzCase[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.2) {
      const query = new URLSearchParams();
      for (const name of AUTHORIZE_QUERY) {
        if (random() < 0.2) continue;
        const v = valueFor(name);
        for (const item of Array.isArray(v) ? v : [v]) query.append(name, String(item));
      }
      cases.push({ method: 'GET', path: `/oauth/authorize?${query}`, headers: {} });
      continue;
    }
    if (roll < 0.25) {
      const path = pick(random, [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource/nothing',
        '/oauth/nothing',
      ]);
      cases.push({ method: pick(random, ['GET', 'POST', 'PUT', 'DELETE']), path, headers: {} });
      continue;
    }
    const path = pick(random, Object.keys(OAUTH_PARAMS));
    const params: Record<string, unknown> = {};
    for (const name of OAUTH_PARAMS[path] ?? []) if (random() < 0.8) params[name] = valueFor(name);
    const asForm = random() < 0.5;
    const broken = random() < 0.1;
    const body = broken
      ? pick(random, ['{', 'a=%zz&b', deep(10_000), '\u0000', 'x'.repeat(20_000)])
      : asForm
        ? formOf(params)
        : JSON.stringify(params);
    const type = broken
      ? pick(random, ['application/json', 'application/x-www-form-urlencoded', 'text/plain'])
      : asForm
        ? 'application/x-www-form-urlencoded'
        : pick(random, ['application/json', 'application/json', 'text/plain', '']);
    cases.push({
      method: random() < 0.95 ? 'POST' : pick(random, ['GET', 'PATCH']),
      path,
      headers: type ? { 'content-type': type } : {},
      body,
    });
  }
  return cases;
}

const STACK = /\n\s+at .+:\d+:\d+/;

const isErrorObject = (v: unknown): boolean => {
  const e = v as { code?: unknown; message?: unknown };
  return typeof v === 'object' && v !== null && isErrorCode(e.code) && e.message === ERRORS[e.code].message;
};
const isRpcMessage = (v: unknown): boolean => {
  const m = v as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (typeof v !== 'object' || v === null || m.jsonrpc !== '2.0') return false;
  if (m.error !== undefined) return Number.isInteger(m.error.code) && typeof m.error.message === 'string';
  return m.result !== undefined || typeof (v as { method?: unknown }).method === 'string';
};
const isOAuthError = (v: unknown): boolean => {
  const e = v as { error?: unknown; error_description?: unknown };
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof e.error === 'string' &&
    /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(e.error) &&
    (e.error_description === undefined || typeof e.error_description === 'string')
  );
};

/** What is wrong with an answer to `c`, or undefined when a client of its surface could read it. */
export function problemWith(c: FuzzCase, a: FuzzAnswer): string | undefined {
  if (a.status >= 500) return `a ${a.status}`;
  if (STACK.test(a.text)) return 'a stack trace in the body';
  // Express answers OPTIONS itself: 200 with Allow, and the methods as text.
  if (c.method === 'OPTIONS' && a.status === 200) return undefined;
  const mcp = c.path === '/mcp';
  const json = /^application\/json/.test(a.contentType);
  if (a.status >= 300 && a.status < 400)
    return a.status === 302 && c.path.startsWith('/oauth/authorize') ? undefined : `a ${a.status}`;
  if (a.text === '') {
    // A notification or a response accepted by MCP; RFC 7009's empty 200 for a revocation.
    if (mcp && a.status === 202) return undefined;
    if (c.path === '/oauth/revoke' && a.status === 200) return undefined;
    return `an empty ${a.status}`;
  }
  if (/^text\/html/.test(a.contentType))
    return c.path.startsWith('/oauth/authorize') ? undefined : `HTML from ${c.path}`;
  if (/^text\/event-stream/.test(a.contentType)) {
    if (!mcp || a.status !== 200) return `an event stream from ${c.path}`;
    const events = a.text.split('\n').filter((l) => l.startsWith('data: '));
    if (events.length === 0) return 'an event stream without events';
    for (const e of events) {
      try {
        if (!isRpcMessage(JSON.parse(e.slice(6)))) return `an event that is not JSON-RPC: ${e.slice(0, 200)}`;
      } catch {
        return `an event that is not JSON: ${e.slice(0, 200)}`;
      }
    }
    return undefined;
  }
  if (!json) return `a body of ${a.contentType || 'no type'}`;
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    return 'a body that is not JSON';
  }
  if (a.status < 300) {
    if (!mcp) return undefined;
    const list = Array.isArray(body) ? body : [body];
    return list.length > 0 && list.every(isRpcMessage) ? undefined : 'a 2xx that is not JSON-RPC';
  }
  if (isErrorObject(body)) return undefined;
  if (mcp && isRpcMessage(body)) return undefined;
  if (!mcp && isOAuthError(body)) return undefined;
  return `a ${a.status} in no shape a client knows`;
}
