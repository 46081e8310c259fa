// Builds the agent service from its config, database and NATS link: the one
// place its stores, clients, handlers and jobs are wired, shared by service.ts
// and the tests (docs/agent.md).
import { readFileSync } from 'node:fs';
import { ledgerClient } from '@wap/billing';
import { BrowserHosts } from '@wap/browser-hosts';
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { browser } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { openSessionDriver } from './browser/session-driver.js';
import { modelProposer } from './clients/gate-proposer.js';
import { ModelRegistry } from './clients/models.js';
import { releaseControlOver } from './clients/session-control.js';
import type { AgentConfig } from './config.js';
import { localKek } from './domain/envelope.js';
import { Integrations } from './integrations/integrations.js';
import { McpDialer } from './integrations/mcp.js';
import { Runner } from './jobs/runner.js';
import type { ModelClient } from './model/types.js';
import { agentService, extractService, integrationService, ruleService, secretService } from './rpc/index.js';
import type { AgentDatabase } from './store/database.js';
import { GrantStore } from './store/grants.js';
import { IntegrationStore } from './store/integrations.js';
import { SecretIntents } from './store/intents.js';
import { PauseStore } from './store/pauses.js';
import { RuleStore } from './store/rules.js';
import { RunStore } from './store/runs.js';
import { SecretStore } from './store/secrets.js';

export type { AgentDatabase } from './store/database.js';

/** What a test adds: models of its own (scripted fakes are reached through AGENT_MODELS instead). */
export interface AgentOptions {
  models?: ModelClient[];
}

export function openAgent(
  config: AgentConfig,
  db: AgentDatabase,
  nats: NatsLink,
  log: Logger,
  options: AgentOptions = {},
) {
  const store = new RunStore(db);
  const pauses = new PauseStore(db);
  const token = config.SERVICE_TOKEN;
  const ledger = ledgerClient(config.BILLING_LEDGER_ADDR, token);
  const fallback = config.BROWSER_HOST_ADDR
    ? createClient(browser.BrowserService, config.BROWSER_HOST_ADDR, { defaultTimeoutMs: 60_000, token })
    : undefined;
  const hosts = new BrowserHosts(nats, config.NATS_NAMESPACE, fallback, token, log);
  const models = new ModelRegistry(config, options.models);
  const allow = AllowList.parse(config.EGRESS_ALLOW);
  // Secrets, their intents, runs' grants and integrations (docs/secrets.md).
  const secrets = new SecretStore(db, config.AGENT_SECRETS_KEY ? localKek(config.AGENT_SECRETS_KEY) : undefined);
  const intents = new SecretIntents(db, secrets);
  const grants = new GrantStore(db);
  const integrationStore = new IntegrationStore(db);
  const ca = config.AGENT_INTEGRATIONS_CA_FILE;
  const dialer = new McpDialer({ allow, extraCa: ca ? [readFileSync(ca, 'utf8')] : undefined });
  const integrations = new Integrations(integrationStore, secrets, grants, dialer, allow);
  const rules = new RuleStore(db);
  // The model that proposes gates for sentences no form matches: one of this deployment's, or none.
  const rulesModel = config.AGENT_RULES_MODEL;
  if (rulesModel && !models.names().includes(rulesModel))
    throw new Error(`AGENT_RULES_MODEL: ${rulesModel} is not a model of this deployment`);
  const proposer = rulesModel
    ? (signal: AbortSignal) => modelProposer(models.get(rulesModel) as ModelClient, { signal })
    : undefined;
  const runner = new Runner(
    store,
    nats,
    {
      store,
      pauses,
      ledger,
      hosts,
      models,
      log,
      filesKey: config.AGENT_FILES_KEY,
      policy: { secrets, intents, grants, integrations, rules },
      approvalTimeoutMs: config.AGENT_APPROVAL_TIMEOUT,
      secretsKey: config.AGENT_SECRETS_KEY,
      openDriver: openSessionDriver,
      releaseControl: releaseControlOver(nats, config.NATS_NAMESPACE),
    },
    {
      concurrency: config.AGENT_CONCURRENCY,
      pollMs: config.AGENT_POLL,
      leaseMs: config.AGENT_LEASE,
      namespace: config.NATS_NAMESPACE,
    },
    log,
  );
  const rpcDeps = {
    config,
    store,
    pauses,
    ledger,
    log,
    allow,
    models: () => models.names(),
    model: (name: string) => models.get(name),
    wake: (runId: string) => runner.wake(runId),
    secrets,
    grants,
    integrationStore,
    integrations,
    rules,
    proposer,
  };
  const impl = agentService(rpcDeps);
  return {
    deps: {
      config,
      db,
      nats,
      log,
      store,
      pauses,
      ledger,
      hosts,
      models,
      runner,
      secrets,
      intents,
      grants,
      integrations,
      rules,
    },
    impl,
    secretsImpl: secretService(rpcDeps),
    integrationsImpl: integrationService(rpcDeps),
    rulesImpl: ruleService(rpcDeps),
    extractImpl: extractService(rpcDeps),
    /** Starts what runs besides the RPCs: the host announcements and the runner. */
    start: async () => {
      hosts.start();
      runner.start();
    },
    /** Stops claiming, lets its runs go to another replica, and closes its clients. */
    stop: async () => {
      await runner.stop();
      await models.close();
      await dialer.close();
      hosts.stop();
      fallback?.close();
      ledger.close();
    },
  };
}
