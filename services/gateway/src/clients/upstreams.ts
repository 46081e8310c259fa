// The services behind the gateway (a registry row names the one it needs) and the variables of their addresses
// come from the platform's list of services (@wap/config's services.ts), a contract every service may read.

import type { BrowserClient } from '@wap/browser-hosts';
import { BACKENDS, type Backend } from '@wap/config';
import { agent, browser, crawl, health, integrations, ledger, monitor, rules, secrets, sessions } from '@wap/proto';
import { type Closable, createClient, type ServiceClient } from '@wap/rpc';
import type { GatewayConfig } from '../config.js';

type HealthClient = ServiceClient<(typeof health.Health)['method']> & Closable;
export type LedgerClient = ServiceClient<(typeof ledger.LedgerService)['method']> & Closable;
/** What the ledger answers for a workspace's credits. */
export type CreditsView = Awaited<ReturnType<LedgerClient['credits']>>;
export type CrawlClient = ServiceClient<(typeof crawl.CrawlService)['method']> & Closable;

export type { Backend, BrowserClient };
export type SessionsClient = ServiceClient<(typeof sessions.SessionService)['method']> & Closable;
export type MonitorClient = ServiceClient<(typeof monitor.MonitorService)['method']> & Closable;
export type AgentClient = ServiceClient<(typeof agent.AgentService)['method']> & Closable;
export type SecretsClient = ServiceClient<(typeof secrets.SecretService)['method']> & Closable;
export type IntegrationsClient = ServiceClient<(typeof integrations.IntegrationService)['method']> & Closable;
export type RulesClient = ServiceClient<(typeof rules.RuleService)['method']> & Closable;

/** The largest answer the crawl service may give (a scrape's or a results page's formats). */
export const MAX_CRAWL_ANSWER_BYTES = 128 * 1024 * 1024;

/** One gRPC channel per configured service behind the gateway. */
export class Upstreams {
  private readonly health = new Map<Backend, HealthClient>();
  private readonly closables: Closable[] = [];
  private readonly ledgerClient: LedgerClient | undefined;
  private readonly crawlClient: CrawlClient | undefined;
  private readonly browserClient: BrowserClient | undefined;
  private readonly sessionsClient: SessionsClient | undefined;
  private readonly monitorClient: MonitorClient | undefined;
  private readonly agentClient: AgentClient | undefined;
  private readonly secretsClient: SecretsClient | undefined;
  private readonly integrationsClient: IntegrationsClient | undefined;
  private readonly rulesClient: RulesClient | undefined;

  constructor(config: GatewayConfig) {
    const addresses = Object.fromEntries(BACKENDS.map((b) => [b.name, config[b.address]])) as Record<
      Backend,
      string | undefined
    >;
    // Every call but a health check carries the fleet's SERVICE_TOKEN (docs/decisions/0035-service-credentials.md).
    const token = config.SERVICE_TOKEN;
    for (const { name } of BACKENDS) {
      const address = addresses[name];
      if (!address) continue;
      const client = createClient(health.Health, address);
      this.health.set(name, client);
      this.closables.push(client);
    }
    if (addresses.crawl) {
      this.crawlClient = createClient(crawl.CrawlService, addresses.crawl, {
        token,
        defaultTimeoutMs: 60_000,
        // A page's answer carries every format asked: a document's rawHtml is its bytes in base64
        // (13 MB for a 10 MB upload), past grpc-js's 4 MiB default, which failed it as internal.
        channelOptions: { 'grpc.max_receive_message_length': MAX_CRAWL_ANSWER_BYTES },
      });
      this.closables.push(this.crawlClient);
    }
    if (addresses['browser-host']) {
      // A session opens within a browser launch when the warm pool is empty.
      this.browserClient = createClient(browser.BrowserService, addresses['browser-host'], {
        token,
        defaultTimeoutMs: 30_000,
      });
      this.closables.push(this.browserClient);
    }
    if (addresses.agent) {
      // A cancel waits for the run's loop to settle it (10 s at most); an events long poll for 30 s.
      this.agentClient = createClient(agent.AgentService, addresses.agent, { token, defaultTimeoutMs: 40_000 });
      // The agent service also keeps secrets, rules and integrations; a connect checks the server (15 s at most).
      this.secretsClient = createClient(secrets.SecretService, addresses.agent, { token });
      this.integrationsClient = createClient(integrations.IntegrationService, addresses.agent, {
        token,
        defaultTimeoutMs: 30_000,
      });
      this.rulesClient = createClient(rules.RuleService, addresses.agent, { token, defaultTimeoutMs: 30_000 });
      this.closables.push(this.agentClient, this.secretsClient, this.integrationsClient, this.rulesClient);
    }
    if (addresses.monitor) {
      this.monitorClient = createClient(monitor.MonitorService, addresses.monitor, { token });
      this.closables.push(this.monitorClient);
    }
    if (addresses['session-recorder']) {
      this.sessionsClient = createClient(sessions.SessionService, addresses['session-recorder'], { token });
      this.closables.push(this.sessionsClient);
    }
    if (addresses['billing-ledger']) {
      this.ledgerClient = createClient(ledger.LedgerService, addresses['billing-ledger'], { token });
      this.closables.push(this.ledgerClient);
    }
  }

  configured(backend: Backend): boolean {
    return this.health.has(backend);
  }

  get agent(): AgentClient {
    if (!this.agentClient) throw new Error('agent is not configured');
    return this.agentClient;
  }

  get secrets(): SecretsClient {
    if (!this.secretsClient) throw new Error('agent is not configured');
    return this.secretsClient;
  }

  get integrations(): IntegrationsClient {
    if (!this.integrationsClient) throw new Error('agent is not configured');
    return this.integrationsClient;
  }

  get rules(): RulesClient {
    if (!this.rulesClient) throw new Error('agent is not configured');
    return this.rulesClient;
  }

  get ledger(): LedgerClient {
    if (!this.ledgerClient) throw new Error('billing-ledger is not configured');
    return this.ledgerClient;
  }

  /** A browser host to ask what any replica answers (profiles): a live one as announced, once routing is set. */
  get browser(): BrowserClient {
    if (!this.browserClient) throw new Error('browser-host is not configured');
    return this.browserRoute?.() ?? this.browserClient;
  }

  private browserRoute: (() => BrowserClient | undefined) | undefined;

  /** Sends `browser` calls to the host `pick` names (the announced ones); BROWSER_HOST_ADDR when it names none. */
  routeBrowser(pick: () => BrowserClient | undefined): void {
    this.browserRoute = pick;
  }

  /** BROWSER_HOST_ADDR's own client, whatever the routing. */
  get configuredBrowser(): BrowserClient {
    if (!this.browserClient) throw new Error('browser-host is not configured');
    return this.browserClient;
  }

  get monitor(): MonitorClient {
    if (!this.monitorClient) throw new Error('monitor is not configured');
    return this.monitorClient;
  }

  get sessions(): SessionsClient {
    if (!this.sessionsClient) throw new Error('session-recorder is not configured');
    return this.sessionsClient;
  }

  get crawl(): CrawlClient {
    if (!this.crawlClient) throw new Error('crawl is not configured');
    return this.crawlClient;
  }

  /** Each configured service's own verdict on its readiness, asked in parallel. */
  async readiness(timeoutMs = 1_000): Promise<Record<string, boolean>> {
    const serving = health.HealthCheckResponse_ServingStatus.SERVING;
    const entries = await Promise.all(
      [...this.health].map(async ([name, client]) => {
        const ok = await client.check({ service: '' }, { timeoutMs }).then(
          (r) => r.status === serving,
          () => false,
        );
        return [name, ok] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  close(): void {
    for (const client of this.closables) client.close();
  }
}
