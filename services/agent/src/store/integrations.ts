// The integrations table (docs/secrets.md): connected MCP servers with the
// tools they listed when they were checked.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';

export interface IntegrationTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface IntegrationRow {
  id: string;
  workspaceId: string;
  url: string;
  secretHandle: string;
  serverName: string;
  serverVersion: string;
  tools: IntegrationTool[];
  toolsHash: string;
  createdAt: Date;
  checkedAt: Date;
  changedAt: Date | null;
}

/** What a connect's check found of a server. */
export type CheckedServer = Pick<
  IntegrationRow,
  'url' | 'secretHandle' | 'serverName' | 'serverVersion' | 'tools' | 'toolsHash'
>;

export class IntegrationStore {
  constructor(private readonly db: AgentDatabase) {}

  /** A server that passed its check: a new row, or the same URL's row with its tools as they are now. */
  async upsert(workspaceId: string, s: CheckedServer): Promise<IntegrationRow> {
    const now = new Date();
    const fields = {
      secretHandle: s.secretHandle,
      serverName: s.serverName,
      serverVersion: s.serverVersion,
      tools: s.tools as unknown as Prisma.InputJsonValue,
      toolsHash: s.toolsHash,
      checkedAt: now,
      changedAt: null,
    };
    const row = await this.db.integration.upsert({
      where: { workspaceId_url: { workspaceId, url: s.url } },
      create: { id: randomUUID(), workspaceId, url: s.url, ...fields },
      update: fields,
    });
    return row as unknown as IntegrationRow;
  }

  async get(workspaceId: string, id: string): Promise<IntegrationRow | null> {
    return (await this.db.integration.findFirst({ where: { id, workspaceId } })) as unknown as IntegrationRow | null;
  }

  /** The workspace's integrations with these ids (those that exist). */
  async byIds(workspaceId: string, ids: string[]): Promise<IntegrationRow[]> {
    if (ids.length === 0) return [];
    return (await this.db.integration.findMany({
      where: { workspaceId, id: { in: ids } },
    })) as unknown as IntegrationRow[];
  }

  /** The workspace's integrations, oldest first. */
  async list(workspaceId: string): Promise<IntegrationRow[]> {
    return (await this.db.integration.findMany({
      where: { workspaceId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })) as unknown as IntegrationRow[];
  }

  /** Notes that a listing no longer matched the stored tools (the stored ones stay until a connect). */
  async markChanged(id: string): Promise<void> {
    await this.db.integration.updateMany({ where: { id, changedAt: null }, data: { changedAt: new Date() } });
  }

  /** False for none or another workspace's. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.db.integration.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }
}
