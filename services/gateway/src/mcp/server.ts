// The MCP server at /mcp (docs/mcp.md): the official SDK's Streamable HTTP
// transport, stateless (every POST stands alone, so any gateway replica
// answers any request and nothing is kept between them), serving the
// registry's rows as tools through the same invoke path as REST.
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { ApiError, isApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type Router } from 'express';
import { principalOf } from '../http/auth.js';
import { JSON_BODY_TYPES } from '../http/input.js';
import type { Invoker } from '../invoke/invoke.js';
import type { IdentityStore, Principal } from '../oauth/identity.js';
import type { Capability } from '../registry/types.js';
import { mcpTools, structuredOf } from './tools.js';

/** A call that has not answered yet says so this often, when its client asked for progress. */
export const PROGRESS_EVERY_MS = 2_000;

export interface McpDeps {
  identity: IdentityStore;
  invoker: Invoker;
  rows: readonly Capability[];
  log: Logger;
  maxBodyBytes: number;
  version: string;
}

const INSTRUCTIONS =
  'Web access: scrape pages, crawl sites, search the web, and read browser sessions, billed from one credit balance. ' +
  'Every tool answers the same object as its REST route; a failed call is a result with isError whose text is the ' +
  'Error object ({ code, message, details }). Long work (a crawl) answers an id at once: read its status and results ' +
  'with their own tools, paging with the cursor they give.';

/**
 * The tool result of a failed call: the Error object (docs/errors.md) as its text. Not as
 * structured content: that is the tool's answer, checked by clients against its output schema
 * (the MCP SDK's client turns a result that does not match into a protocol error, hiding ours).
 */
function errorResult(err: unknown): CallToolResult {
  const body = toErrorBody(isApiError(err) ? err : new ApiError('internal'));
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

export function mcpRouter(deps: McpDeps): Router {
  const tools = mcpTools(deps.rows);
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const definitions = tools.map((t) => t.definition);

  /** One MCP server for one HTTP request: the caller's principal is this request's. */
  const serverFor = (principal: Principal, requestId: string) => {
    const server = new Server(
      { name: 'web-access', title: 'Web access', version: deps.version },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: definitions }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}`);
      const token = request.params._meta?.progressToken;
      let progress = 0;
      const ticker =
        token === undefined
          ? undefined
          : setInterval(() => {
              progress += 1;
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress, message: `${tool.row.name}: working` },
                })
                .catch(() => undefined);
            }, PROGRESS_EVERY_MS);
      try {
        const answer = await deps.invoker.invoke({
          row: tool.row,
          principal,
          surface: 'mcp',
          input: tool.split(request.params.arguments ?? {}),
          requestId,
          signal: extra.signal,
          setHeader: () => undefined,
          // Counted with its HTTP request, as every message is.
          admitted: true,
        });
        const structured = await structuredOf(answer, extra.signal);
        return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
      } catch (err) {
        if (!isApiError(err)) deps.log.error({ err, tool: tool.definition.name, requestId }, 'tool call failed');
        return errorResult(err);
      } finally {
        clearInterval(ticker);
      }
    });
    return server;
  };

  const router = express.Router();
  const json = express.json({ limit: deps.maxBodyBytes, type: JSON_BODY_TYPES, strict: false });
  const setHeader = (res: express.Response) => (name: string, value: string) => res.setHeader(name, value);
  // Every POST counts against the plan's requests per minute, the budget REST spends, before its body is
  // read: over it, 429 with the Error object and Retry-After, as on REST, and no JSON-RPC at all.
  const admitted: express.RequestHandler = async (req, res, next) => {
    try {
      const principal: Principal = await principalOf(deps.identity, req.rawHeaders, 'mcp');
      // Kept before the count, so the access log names the workspace of a refused request too.
      res.locals.principal = principal;
      await deps.invoker.admit(principal, setHeader(res));
      next();
    } catch (err) {
      next(err);
    }
  };
  router.post('/mcp', admitted, json, async (req, res, next) => {
    const principal = res.locals.principal as Principal;
    try {
      // A batch is as many requests as it has messages; the first was counted on arrival.
      const messages = Array.isArray(req.body) ? req.body.length : 1;
      for (let i = 1; i < messages; i++) await deps.invoker.admit(principal, setHeader(res));
    } catch (err) {
      next(err);
      return;
    }
    const requestId = (res.locals.requestId as string | undefined) ?? randomUUID();
    const server = serverFor(principal, requestId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      deps.log.error({ err, requestId }, 'MCP request failed');
      if (!res.headersSent)
        res
          .status(500)
          .json({ jsonrpc: '2.0', error: { code: ErrorCode.InternalError, message: 'internal' }, id: null });
    }
  });
  // Stateless: no stream is kept open for server-initiated messages, and there is no session to end.
  const notAllowed: express.RequestHandler = (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: ErrorCode.ConnectionClosed, message: 'POST only: this server keeps no sessions' },
        id: null,
      });
  };
  router.get('/mcp', notAllowed);
  router.delete('/mcp', notAllowed);
  return router;
}
