// Integrations (docs/secrets.md): MCP servers a run may call the tools of,
// connected with a secret as their bearer token and checked on connect, served
// by the agent service. Every row here is free (docs/billing.md).
import type { integrations } from '@wap/proto';
import { z } from 'zod';
import { capability } from '../types.js';
import { isoTime } from '../usage-shape.js';

const toolObject = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()).describe('The JSON Schema of its arguments, as the server listed it.'),
});

const integrationObject = z.object({
  id: z.string().describe('What a run names it by (`integrations` of POST /v1/agent).'),
  url: z.string().describe('The HTTPS MCP endpoint.'),
  secret: z.string().describe('The handle of the env secret sent as its bearer token.'),
  server: z.object({ name: z.string(), version: z.string() }).describe('What the server called itself.'),
  tools: z.array(toolObject).describe('Its tools as listed when it was last connected.'),
  createdAt: z.string(),
  checkedAt: z.string().describe('When it was last connected and its tools listed.'),
  changedAt: z
    .string()
    .nullable()
    .describe(
      'When a run found its tools changed since (the run was told integration_changed); connect again to accept them. Null while they match.',
    ),
});

function parseSchema(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const toIntegrationJson = (i: integrations.Integration | undefined) => ({
  id: i?.id ?? '',
  url: i?.url ?? '',
  secret: i?.secretHandle ?? '',
  server: { name: i?.serverName ?? '', version: i?.serverVersion ?? '' },
  tools: (i?.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: parseSchema(t.inputSchemaJson),
  })),
  createdAt: isoTime(i?.createdAt) ?? '',
  checkedAt: isoTime(i?.checkedAt) ?? '',
  changedAt: isoTime(i?.changedAt),
});

export const integrationsConnectRow = capability({
  name: 'integrations.connect',
  method: 'post',
  path: '/v1/integrations',
  tag: 'Integrations',
  summary: 'Connect an MCP server',
  description:
    "Checks the server now (MCP initialize, then tools/list, over the Streamable HTTP transport) with the `secret` env secret as its bearer token, and stores it with its tools. HTTPS only; private, loopback and metadata addresses are refused as for any fetch; the secret's domains must cover the server's host. integration_check_failed says why a server did not pass (`not_https`, `unreachable`, `auth_rejected`, `not_mcp`). A URL already connected is checked again and its tools taken as they are now. A run reaches it only if its submit names it (`integrations`). Free.",
  openWorld: true,
  backend: 'agent',
  bills: [],
  mcpTool: 'service_integrations_connect',
  request: {
    body: z.strictObject({
      url: z.string().min(1).max(2_048).describe('The HTTPS MCP endpoint, e.g. `https://mcp.example.com/mcp`.'),
      secret: z.string().min(1).max(64).describe('The handle of an env secret (POST /v1/secrets) holding its token.'),
    }),
  },
  example: { url: 'https://mcp.example.com/mcp', secret: 'example-mcp-token' },
  answer: { kind: 'json', status: 201 },
  response: z.object({ success: z.literal(true), integration: integrationObject }),
  errors: ['integration_check_failed'],
  handler: async ({ principal, upstreams, signal }, { body }) => {
    const out = await upstreams.integrations.connectIntegration(
      { workspaceId: principal.workspaceId, url: body.url, secretHandle: body.secret },
      { signal },
    );
    return { success: true as const, integration: toIntegrationJson(out.integration) };
  },
});

export const integrationsListRow = capability({
  name: 'integrations.list',
  method: 'get',
  path: '/v1/integrations',
  tag: 'Integrations',
  summary: "The workspace's MCP servers",
  description: 'Each connected server, its tools and the handle of its secret; oldest first. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_integrations_list',
  request: {},
  response: z.object({ success: z.literal(true), integrations: z.array(integrationObject) }),
  errors: [],
  handler: async ({ principal, upstreams, signal }) => {
    const out = await upstreams.integrations.listIntegrations({ workspaceId: principal.workspaceId }, { signal });
    return { success: true as const, integrations: out.integrations.map(toIntegrationJson) };
  },
});

export const integrationsDeleteRow = capability({
  name: 'integrations.delete',
  method: 'delete',
  path: '/v1/integrations/{id}',
  tag: 'Integrations',
  summary: 'Disconnect an MCP server',
  description:
    'A run holding a grant to it is told integration_changed (`disconnected`) at its next use. The credential stays in the secrets store. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_integrations_delete',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The integration id.') }) },
  response: z.object({ success: z.literal(true) }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params }) => {
    await upstreams.integrations.deleteIntegration(
      { workspaceId: principal.workspaceId, integrationId: params.id },
      { signal },
    );
    return { success: true as const };
  },
});
