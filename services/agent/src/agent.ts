// Builds the agent service from its config, database and NATS link: the one
// place its stores, clients, handlers and jobs are wired, shared by service.ts
// and the tests (docs/agent.md).
import { ledgerClient } from '@wap/billing';
import { type NatsLink, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { browser } from '@wap/proto';
import { BrowserHosts, createClient } from '@wap/rpc';
import { ModelRegistry } from './clients/models.js';
import { openSessionDriver } from './clients/session-driver.js';
import type { AgentConfig } from './config.js';
import { Runner } from './jobs/runner.js';
import type { ModelClient } from './model/types.js';
import { agentService } from './rpc/index.js';
import type { AgentDatabase } from './store/database.js';
import { RunStore } from './store/runs.js';

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
  const ledger = ledgerClient(config.BILLING_LEDGER_ADDR);
  const fallback = config.BROWSER_HOST_ADDR
    ? createClient(browser.BrowserService, config.BROWSER_HOST_ADDR, { defaultTimeoutMs: 60_000 })
    : undefined;
  const hosts = new BrowserHosts(nats, config.NATS_NAMESPACE, fallback, log);
  const models = new ModelRegistry(config, options.models);
  const runner = new Runner(
    store,
    nats,
    {
      store,
      ledger,
      hosts,
      models,
      log,
      filesKey: config.AGENT_FILES_KEY,
      openDriver: openSessionDriver,
      releaseControl: async (sessionId) => {
        await nats.nc.request(
          sessionStreamNames(config.NATS_NAMESPACE).liveInput(sessionId),
          JSON.stringify({ release: true }),
          {
            timeout: 5_000,
          },
        );
      },
    },
    {
      concurrency: config.AGENT_CONCURRENCY,
      pollMs: config.AGENT_POLL_MS,
      leaseMs: config.AGENT_LEASE_MS,
      namespace: config.NATS_NAMESPACE,
    },
    log,
  );
  const impl = agentService({
    config,
    store,
    ledger,
    log,
    allow: AllowList.parse(config.EGRESS_ALLOW),
    models: () => models.names(),
    wake: (runId) => runner.wake(runId),
  });
  return {
    deps: { config, db, nats, log, store, ledger, hosts, models, runner },
    impl,
    /** Starts what runs besides the RPCs: the host announcements and the runner. */
    start: async () => {
      hosts.start();
      runner.start();
    },
    /** Stops claiming, lets its runs go to another replica, and closes its clients. */
    stop: async () => {
      await runner.stop();
      await models.close();
      hosts.stop();
      fallback?.close();
      ledger.close();
    },
  };
}
