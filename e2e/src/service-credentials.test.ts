// Credentials on NATS and between the services (docs/decisions/0035-service-credentials.md), on a
// fleet of its own over a private Postgres and a NATS that asks for a user and password
// (PrivateInfra, as scripts/infra.sh configures it): the fleet serves with them (a scrape and a
// crawl through the gateway, crawl's JetStream frontier and the ledger, billed); every service
// refuses a gRPC call without the fleet's SERVICE_TOKEN, or with another, UNAUTHENTICATED, while
// its health answers; NATS refuses a connection without the password; a service given a wrong
// one says why; no log holds the token or the password.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { connect } from '@nats-io/transport-node';
import { SERVICES, type ServiceName } from '@wap/config';
import { isApiError } from '@wap/errors';
import { natsServers } from '@wap/events';
import type { Fleet } from '@wap/fleet';
import { agent, browser, crawl, health, ledger, monitor, sessions } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { PrivateInfra, startFleet, until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';

const infra = new PrivateInfra();
let fleet: Fleet;
let site: TestSite;
let key: string;
let workspaceId: string;

before(async () => {
  await infra.init();
  site = await startTestSite({ pages: 4, extras: false });
  fleet = await startFleet({ infra: infra.infra, env: { EGRESS_ALLOW: '127.0.0.0/8' } });
  ({ apiKey: key, workspaceId } = await fleet.workspace('pro'));
});

after(async () => {
  await fleet?.stop();
  await site?.close();
  await infra.destroy();
});

/** The RPCs each service serves besides health (the gateway serves none). */
const SERVED: Partial<Record<ServiceName, GenService<GenServiceMethods>>> = {
  'billing-ledger': ledger.LedgerService,
  crawl: crawl.CrawlService,
  agent: agent.AgentService,
  monitor: monitor.MonitorService,
  'session-recorder': sessions.SessionService,
  'browser-host': browser.BrowserService,
};

/** The gRPC status a call ended with: 0 when it was answered. */
async function statusOf(promise: Promise<unknown>): Promise<number | string> {
  try {
    await promise;
    return 0;
  } catch (err) {
    const cause = isApiError(err) ? (err.cause as { code?: number } | undefined) : undefined;
    return cause?.code ?? (isApiError(err) ? err.code : String(err));
  }
}

describe('credentials on NATS and between services', () => {
  test('the fleet serves with them: a scrape and a crawl answered, through JetStream, and billed', async () => {
    const before = await availableCredits(fleet.gatewayUrl, key);
    const scraped = await call<{ data: { markdown?: string } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      body: { url: `${site.url}/articles/1`, formats: ['markdown'] },
    });
    assert.equal(scraped.status, 200, JSON.stringify(scraped.body));
    assert.ok(scraped.body.data.markdown?.includes(site.article(1).title), scraped.body.data.markdown);
    const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { url: `${site.url}/`, limit: 50, scrapeOptions: { formats: ['markdown'] } },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    type Crawl = { status: string; outcome: string | null; completed: number; failed: number };
    let last: Crawl | undefined;
    await until(
      'the crawl to settle',
      async () => {
        const r = await call<{ crawl: Crawl }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${started.body.id}`, { key });
        last = r.body.crawl;
        return last?.status === 'settled';
      },
      120_000,
    );
    assert.equal(last?.outcome, 'completed', JSON.stringify(last));
    assert.equal(last?.completed, site.paths.length, JSON.stringify(last));
    await until('the ledger to bill the pages', async () => {
      const spent = before - (await availableCredits(fleet.gatewayUrl, key));
      return spent >= 1 + site.paths.length;
    });
  });

  test("every service refuses a call without the fleet's token, or with another, UNAUTHENTICATED; its health answers", async () => {
    const seen: Record<string, unknown> = {};
    for (const service of SERVICES) {
      const address = fleet.grpcAddress(service);
      const probe = createClient(health.Health, address);
      seen[`${service} health`] = await statusOf(probe.check({ service: '' }));
      probe.close();
      const served = SERVED[service];
      if (!served) continue;
      const unary = served.methods.find((m) => m.methodKind === 'unary');
      assert.ok(unary, `${service} has a unary RPC`);
      for (const [label, token] of [
        ['none', undefined],
        ['another', `${fleet.serviceToken.slice(0, -1)}${fleet.serviceToken.endsWith('x') ? 'y' : 'x'}`],
      ] as const) {
        const client = createClient(served, address, token === undefined ? {} : { token });
        // biome-ignore lint/suspicious/noExplicitAny: any unary RPC of the descriptor, with an empty request
        const rpc = (client as any)[unary.localName] as (request: object) => Promise<unknown>;
        seen[`${service} ${unary.name} token ${label}`] = await statusOf(rpc({}));
        client.close();
      }
    }
    const expected = Object.fromEntries(
      Object.keys(seen).map((k) => [k, k.endsWith(' health') ? 0 : 16 /* UNAUTHENTICATED */]),
    );
    assert.deepEqual(seen, expected);
    // The fleet's own token is let through to the handler.
    const client = createClient(ledger.LedgerService, fleet.grpcAddress('billing-ledger'), {
      token: fleet.serviceToken,
    });
    try {
      const credits = await client.credits({ workspaceId });
      assert.equal(credits.plan, ledger.Plan.PRO, 'the workspace the admin command opened on the ledger');
    } finally {
      client.close();
    }
  });

  test('NATS refuses a connection without its password or with a wrong one, and takes the right one', async () => {
    const { servers, user, pass } = natsServers(infra.infra.natsUrl);
    assert.ok(user && pass, 'the private NATS URL carries a user and password');
    for (const [label, options] of [
      ['none', { servers }],
      ['wrong', { servers, user, pass: `${pass}x` }],
    ] as const) {
      const refused = await connect({ ...options, reconnect: false }).then(
        async (nc) => {
          await nc.close();
          return 'connected';
        },
        (err: Error) => err.message,
      );
      assert.match(refused, /Authorization Violation/, label);
    }
    const nc = await connect({ servers, user, pass });
    await nc.close();
  });

  test('a service given a wrong NATS password says why in its log, without the password', async () => {
    const wrong = infra.infra.natsUrl.replace(/:[^:@/]+@/, ':not-the-password@');
    const replica = await fleet.replica('crawl', 'crawl-wrong-nats', { NATS_URL: wrong });
    try {
      await until('the replica to log its refused NATS connect', async () =>
        readFileSync(replica.logFile, 'utf8').includes('nats connect failed'),
      );
      const text = readFileSync(replica.logFile, 'utf8');
      assert.match(text, /Authorization Violation/);
      assert.ok(!text.includes('not-the-password'), 'the password is not logged');
    } finally {
      await replica.stop();
    }
  });

  test("no service's log holds the service token or NATS's password", () => {
    const { pass } = natsServers(infra.infra.natsUrl);
    for (const service of SERVICES) {
      const text = readFileSync(fleet.logFile(service), 'utf8');
      assert.ok(text.length > 0, `${service} logged`);
      assert.ok(!text.includes(fleet.serviceToken), `${service}'s log holds the service token`);
      assert.ok(!text.includes(pass as string), `${service}'s log holds NATS's password`);
    }
  });
});
