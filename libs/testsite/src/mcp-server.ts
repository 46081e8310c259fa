// An MCP server for tests, built with the official SDK (McpServer over the
// Streamable HTTP transport), served over HTTPS with a test CA's certificate
// and a bearer token of its own. Its tools can be changed while it runs; it
// keeps the calls and the Authorization headers it received.
import { createServer, type Server } from 'node:https';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { TestTls } from './tls.js';

export interface FakeMcpTool {
  name: string;
  description: string;
  /** What a call answers (as text); default: the tool's name and its arguments. */
  reply?: (args: { text?: string }) => string;
}

export interface FakeMcp {
  /** The MCP endpoint: `https://127.0.0.1:<port>/mcp`. `/plain` on the same origin answers HTML, not MCP. */
  url: string;
  /** The tools it lists: change them to change the server. */
  tools: FakeMcpTool[];
  /** Every Authorization header it received, in order. */
  authorizations: string[];
  calls: { name: string; args: unknown }[];
  close(): Promise<void>;
}

export async function startFakeMcp(options: { tls: TestTls; token: string; tools: FakeMcpTool[] }): Promise<FakeMcp> {
  const fake: Omit<FakeMcp, 'url' | 'close'> = { tools: options.tools, authorizations: [], calls: [] };
  const server: Server = createServer({ cert: options.tls.cert, key: options.tls.key }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (path === '/plain') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not MCP</p>');
    if (path !== '/mcp') return void res.writeHead(404).end();
    fake.authorizations.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== `Bearer ${options.token}`)
      return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
    // Stateless: a server and a transport per request, built from the tools as they are now.
    const mcp = new McpServer({ name: 'fake-mcp', version: '1.0.0' });
    for (const tool of fake.tools) {
      mcp.registerTool(
        tool.name,
        { description: tool.description, inputSchema: { text: z.string().optional() } },
        async (args) => {
          fake.calls.push({ name: tool.name, args });
          const text = tool.reply?.(args) ?? `${tool.name}(${JSON.stringify(args)})`;
          return { content: [{ type: 'text' as const, text }] };
        },
      );
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(fake, {
    url: `https://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
