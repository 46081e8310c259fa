// The MCP client integrations are reached with (docs/secrets.md): the official
// SDK's client over its Streamable HTTP transport, whose every request goes
// through one guarded undici dispatcher (libs/fetch): each socket's address is
// checked at connect time, so a name that resolves to a private or metadata
// address is refused whatever the URL said. HTTPS only, with Node's roots and
// any extra CA the operator trusts. The token travels only in the
// Authorization header; no error raised here carries the server's words.
import { createHash } from 'node:crypto';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@wap/errors';
import { createFetchAgent, type FetchAgent } from '@wap/fetch';
import type { AllowList, Resolver } from '@wap/netguard';
import { fetch as undiciFetch } from 'undici';
import type { IntegrationTool } from '../store/integrations.js';

export type CheckFailure = 'not_https' | 'unreachable' | 'not_mcp' | 'auth_rejected';

/** What a server said of itself and its tools when it was listed. */
export interface McpListing {
  serverName: string;
  serverVersion: string;
  tools: IntegrationTool[];
}

export interface McpDialerOptions {
  /** Ranges let through the address guard (EGRESS_ALLOW: local test servers only). */
  allow: AllowList;
  /** CA certificates (PEM) trusted besides Node's roots. */
  extraCa?: string[];
  /** A whole check or call, connection included. */
  timeoutMs?: number;
  resolve?: Resolver;
}

/** Pages of tools/list read at most, and tools kept at most: a server is not a firehose. */
const MAX_PAGES = 10;
const MAX_TOOLS = 200;

export class McpDialer {
  private readonly agent: FetchAgent;
  private readonly timeoutMs: number;

  constructor(options: McpDialerOptions) {
    this.agent = createFetchAgent({
      allow: options.allow,
      resolve: options.resolve,
      extraCa: options.extraCa,
      connectionsPerOrigin: 4,
    });
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /**
   * Initializes a session with the server and lists its tools; the check a
   * connect makes and the one a run makes at its start. integration_check_failed
   * with why: `not_https`, `unreachable` (no connection, TLS refused, a guarded
   * address, no answer in time), `auth_rejected` (401 or 403), `not_mcp`.
   */
  async list(url: URL, token: string): Promise<McpListing> {
    return this.session(url, token, async (client, options) => {
      const server = client.getServerVersion();
      const tools: IntegrationTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
        const answer = await client.listTools(cursor ? { cursor } : {}, options);
        for (const t of answer.tools.slice(0, MAX_TOOLS - tools.length))
          tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema });
        cursor = answer.nextCursor;
        if (!cursor) break;
      }
      return { serverName: server?.name ?? '', serverVersion: server?.version ?? '', tools };
    });
  }

  /** Calls one tool; a tool's own failure comes back as its result (`isError`), not as a throw. */
  async call(url: URL, token: string, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return this.session(url, token, async (client, options) => {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, options);
      return result as CallToolResult;
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async session<T>(
    url: URL,
    token: string,
    work: (client: Client, options: { timeout: number; signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    if (url.protocol !== 'https:') throw checkFailed(url, 'not_https');
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const fetchVia: FetchLike = (input, init) =>
      undiciFetch(input, {
        ...(init as object),
        dispatcher: this.agent.dispatcher,
        signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
      }) as unknown as Promise<Response>;
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: fetchVia,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    const client = new Client({ name: 'wap-agent', version: '1.0.0' });
    const options = { timeout: this.timeoutMs, signal: deadline };
    try {
      await client.connect(transport, options);
      return await work(client, options);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw checkFailed(url, failureOf(err));
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

/** Why a session with a server failed, in the words of integration_check_failed. */
export function failureOf(err: unknown): CheckFailure {
  if (err instanceof StreamableHTTPError) return err.code === 401 || err.code === 403 ? 'auth_rejected' : 'not_mcp';
  if (err instanceof UnauthorizedError) return 'auth_rejected';
  if (err instanceof McpError) return err.code === ErrorCode.RequestTimeout ? 'unreachable' : 'not_mcp';
  const name = (err as { name?: string } | null)?.name;
  // fetch's TypeError ("fetch failed": refused, reset, DNS, TLS, a guarded address) and aborts at the deadline.
  if (err instanceof TypeError || name === 'AbortError' || name === 'TimeoutError') return 'unreachable';
  return 'not_mcp';
}

const checkFailed = (url: URL, reason: CheckFailure) =>
  new ApiError('integration_check_failed', { endpoint: url.href, reason });

/** A stable digest of a tool list: the same tools in any order, with keys in any order, hash the same. */
export function toolsHash(tools: IntegrationTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(canonicalJson(sorted)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
