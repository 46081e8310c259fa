// Integrations as the RPCs and the run loop use them (docs/secrets.md):
// connecting checks a server with its secret and stores its tools; a run
// reaches only the integrations its submit named, checks at its start that
// each is still there with the same tools (integration_changed otherwise),
// and calls their tools with the secret as the bearer token.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@wap/errors';
import type { AllowList } from '@wap/netguard';
import { urlRefusal } from '@wap/netguard';
import { hostAllowed } from '../domain/secrets.js';
import type { GrantStore } from '../store/grants.js';
import type { IntegrationRow, IntegrationStore, IntegrationTool } from '../store/integrations.js';
import type { SecretStore } from '../store/secrets.js';
import { type McpDialer, toolsHash } from './mcp.js';

/** One granted integration at a run's start: its tools, or why the run cannot use it. */
export type RunIntegration =
  | { id: string; url: string; serverName: string; tools: IntegrationTool[] }
  | { id: string; error: ApiError };

export class Integrations {
  constructor(
    private readonly store: IntegrationStore,
    private readonly secrets: SecretStore,
    private readonly grants: GrantStore,
    private readonly dialer: McpDialer,
    private readonly allow: AllowList,
  ) {}

  /**
   * Checks the server with the secret `handle` as its bearer token
   * (initialize, then tools/list) and stores it with its tools; a URL already
   * connected is checked again and takes its tools as they are now.
   */
  async connect(workspaceId: string, url: URL, handle: string): Promise<IntegrationRow> {
    if (url.protocol !== 'https:')
      throw new ApiError('integration_check_failed', { endpoint: url.href, reason: 'not_https' });
    const refusal = urlRefusal(url, this.allow);
    if (refusal?.kind === 'address')
      throw new ApiError('integration_check_failed', { endpoint: url.href, reason: 'unreachable' });
    const token = await this.token(workspaceId, handle, url, (message) =>
      badRequest('secret', message.replace('{handle}', handle)),
    );
    const listing = await this.dialer.list(url, token);
    return this.store.upsert(workspaceId, {
      url: url.href,
      secretHandle: handle,
      serverName: listing.serverName,
      serverVersion: listing.serverVersion,
      tools: listing.tools,
      toolsHash: toolsHash(listing.tools),
    });
  }

  /**
   * At a run's start: each integration its submit named, listed again and
   * compared with the tools stored when it was connected and when the run was
   * submitted. integration_changed (`disconnected`) for one deleted since,
   * (`tools_changed`) for one whose tools differ (noted on the integration:
   * connecting again accepts them); integration_check_failed when it cannot be
   * listed; run_secret_undeliverable when its secret is gone.
   */
  async checkForRun(workspaceId: string, runId: string): Promise<RunIntegration[]> {
    const granted = (await this.grants.forRun(runId)).integrations;
    return Promise.all(
      granted.map(async (g): Promise<RunIntegration> => {
        try {
          const row = await this.granted(workspaceId, g.id);
          const listing = await this.dialer.list(new URL(row.url), await this.runToken(row));
          const hash = toolsHash(listing.tools);
          if (hash !== row.toolsHash || (g.toolsHash && hash !== g.toolsHash)) {
            await this.store.markChanged(row.id);
            throw new ApiError('integration_changed', { integrationId: row.id, change: 'tools_changed' });
          }
          return { id: row.id, url: row.url, serverName: row.serverName, tools: row.tools };
        } catch (err) {
          if (err instanceof ApiError) return { id: g.id, error: err };
          throw err;
        }
      }),
    );
  }

  /**
   * Calls a tool of an integration the run was granted. integration_changed
   * (`disconnected`) once it was deleted; bad_request for a tool it did not list.
   */
  async callTool(
    workspaceId: string,
    runId: string,
    integrationId: string,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const grant = await this.grants.forRun(runId);
    if (!grant.integrations.some((g) => g.id === integrationId))
      throw new ApiError('integration_changed', { integrationId, change: 'disconnected' });
    const row = await this.granted(workspaceId, integrationId);
    if (!row.tools.some((t) => t.name === tool))
      badRequest('tool', `${row.serverName || 'the server'} has no tool ${tool}`);
    return this.dialer.call(new URL(row.url), await this.runToken(row), tool, args);
  }

  private async granted(workspaceId: string, id: string): Promise<IntegrationRow> {
    const row = await this.store.get(workspaceId, id);
    if (!row) throw new ApiError('integration_changed', { integrationId: id, change: 'disconnected' });
    return row;
  }

  /** The bearer token of an integration a run uses: its secret gone is run_secret_undeliverable. */
  private runToken(row: IntegrationRow): Promise<string> {
    return this.token(row.workspaceId, row.secretHandle, new URL(row.url), () => {
      throw new ApiError('run_secret_undeliverable', { handle: row.secretHandle, reason: 'deleted' });
    });
  }

  /** The secret's value, if it is an env secret that may be sent to the URL's host. */
  private async token(
    workspaceId: string,
    handle: string,
    url: URL,
    refuse: (message: string) => never,
  ): Promise<string> {
    const secret = await this.secrets.open(workspaceId, handle);
    if (!secret) refuse('no secret of this workspace has the handle {handle}');
    if (secret.value.kind !== 'env') refuse('{handle} is not an env secret: a bearer token is stored with kind env');
    if (!hostAllowed(url.hostname, secret.view.domains))
      refuse(`{handle} may not be sent to ${url.hostname}: add it to the secret's domains`);
    return secret.value.value;
  }
}

function badRequest(path: string, message: string): never {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
}
