// What the AgentService handlers share: built once by the composition root (agent.ts).
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import type { AllowList } from '@wap/netguard';
import type { AgentConfig } from '../config.js';
import type { GateProposer } from '../domain/rules/propose.js';
import type { Integrations } from '../integrations/integrations.js';
import type { ModelClient } from '../model/types.js';
import type { GrantStore } from '../store/grants.js';
import type { IntegrationStore } from '../store/integrations.js';
import type { PauseStore } from '../store/pauses.js';
import type { RuleStore } from '../store/rules.js';
import type { RunStore } from '../store/runs.js';
import type { SecretStore } from '../store/secrets.js';

export interface AgentRpcDeps {
  config: AgentConfig;
  store: RunStore;
  /** The runs' pauses: answers, approvals, a person taking and handing back the wheel. */
  pauses: PauseStore;
  ledger: LedgerClient;
  log: Logger;
  /** Start URLs may point into these ranges (local test sites only). */
  allow: AllowList;
  /** The model names a run may choose. */
  models: () => string[];
  /** The client of a model `models()` names. */
  model: (name: string) => ModelClient | undefined;
  /** Tells the replica driving the run (or any idle one) to look at its row now. */
  wake(runId: string): void;
  secrets: SecretStore;
  grants: GrantStore;
  integrationStore: IntegrationStore;
  /** Connects integrations (checks them with the MCP client) and serves them to runs. */
  integrations: Integrations;
  rules: RuleStore;
  /** Asks the rules model (AGENT_RULES_MODEL) for gates, until `signal`; undefined without one: the pattern compiler alone decides. */
  proposer: ((signal: AbortSignal) => GateProposer) | undefined;
}
