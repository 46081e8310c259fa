// Workspace rules (docs/secrets.md, docs/rules.md): each workspace's
// sentences as last compiled, and the model's proposals by normalised
// sentence, so that a sentence once decided classifies the same way for
// every workspace that writes it.
import type { CompiledRule } from '../domain/rules/compile.js';
import type { ProposalCache } from '../domain/rules/propose.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';

export interface RuleSetRow {
  rules: CompiledRule[];
  updatedAt: Date;
}

export class RuleStore {
  constructor(private readonly db: AgentDatabase) {}

  /** The workspace's rules as last set; null before the first set. */
  async get(workspaceId: string): Promise<RuleSetRow | null> {
    const row = await this.db.ruleSet.findUnique({ where: { workspaceId } });
    return row && { rules: row.rules as unknown as CompiledRule[], updatedAt: row.updatedAt };
  }

  /** Replaces every rule of the workspace. */
  async set(workspaceId: string, rules: CompiledRule[]): Promise<RuleSetRow> {
    const updatedAt = new Date();
    const json = rules as unknown as Prisma.InputJsonValue;
    await this.db.ruleSet.upsert({
      where: { workspaceId },
      create: { workspaceId, rules: json, updatedAt },
      update: { rules: json, updatedAt },
    });
    return { rules, updatedAt };
  }

  /** The proposals, kept in Postgres: the first decision for a key stays, whichever replica made it. */
  readonly proposals: ProposalCache = {
    get: async (key) => {
      const row = await this.db.ruleProposal.findUnique({ where: { key } });
      return (row?.rule as unknown as CompiledRule | undefined) ?? undefined;
    },
    put: async (key, rule) => {
      await this.db.ruleProposal.createMany({
        data: [{ key, rule: rule as unknown as Prisma.InputJsonValue }],
        skipDuplicates: true,
      });
    },
  };
}
