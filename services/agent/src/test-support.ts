// Shared by the agent service's tests (not a test itself): a fresh migrated
// database, the service run as its own process, as the fleet runs it, and the
// agent's stores with a claimed run in them, as the run loop's systems see it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type LedgerClient, ledgerClient } from '@wap/billing';
import { BrowserHosts } from '@wap/browser-hosts';
import { AllowList } from '@wap/netguard';
import {
  type FreshDatabase,
  freshServiceDatabase,
  quietLog,
  type ServiceProcess,
  spawnService,
  TEST_SERVICE_TOKEN,
  testNats,
  uniqueNamespace,
} from '@wap/testkit';
import { openSessionDriver } from './browser/session-driver.js';
import { releaseControlOver } from './clients/session-control.js';
import { localKek } from './domain/envelope.js';
import { Integrations } from './integrations/integrations.js';
import { McpDialer } from './integrations/mcp.js';
import type { SystemDeps } from './jobs/run-loop.js';
import { RunPolicy } from './jobs/run-policy.js';
import { BrowserSystem } from './jobs/systems/browser.js';
import { RunContext } from './jobs/systems/context.js';
import type { MeteringSystem } from './jobs/systems/metering.js';
import { type AgentDatabase, openAgentDatabase } from './store/database.js';
import { GrantStore, type NewGrants } from './store/grants.js';
import { IntegrationStore } from './store/integrations.js';
import { SecretIntents } from './store/intents.js';
import { PauseStore } from './store/pauses.js';
import { RuleStore } from './store/rules.js';
import { type NewRun, type RunRow, RunStore } from './store/runs.js';
import { SecretStore } from './store/secrets.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openAgent. */
export const spawnAgent = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  // The ledger is dialled only when a run is submitted or claimed: a process with none still starts and serves.
  spawnService('agent', databaseUrl, port, { BILLING_LEDGER_ADDR: '127.0.0.1:9', ...env });

/** A run as a submit stores it; `over` sets what the test is about. */
export const testRun = (workspaceId: string, over: Partial<NewRun> = {}): NewRun => ({
  workspaceId,
  requestId: randomUUID(),
  task: 'a task',
  startUrl: 'https://example.com/',
  profileId: undefined,
  outputSchema: undefined,
  model: 'scripted',
  maxCredits: 10,
  maxSteps: 5,
  ...over,
});

/** Submits a run of `workspaceId` with `files` handed files; answers its id. */
export async function submitTestRun(
  store: RunStore,
  workspaceId: string,
  files = 0,
  over: Partial<NewRun> = {},
): Promise<string> {
  const id = randomUUID();
  await store.submit(
    id,
    testRun(workspaceId, over),
    Array.from({ length: files }, (_, i) => ({
      handle: `file_${id}_${i}`,
      name: `f${i}.txt`,
      mimeType: 'text/plain',
      size: 1,
      sealed: new Uint8Array([1, 2, 3]),
    })),
  );
  return id;
}

/** The run as `replica` claims it, among those it may claim: a test's own. */
export const claimFor = async (store: RunStore, replica: string, id: string, leaseMs = 60_000) =>
  (await store.claim(replica, 100, leaseMs)).find((r) => r.id === id);

/** The key the tests' secrets are sealed with. */
export const TEST_SECRETS_KEY = 'k'.repeat(40);

/** The agent's stores on one database, as openAgent builds them; `extraCa` is what the MCP dialer trusts besides. */
export function testStores(db: AgentDatabase, extraCa: string[] = []) {
  const store = new RunStore(db);
  const secrets = new SecretStore(db, localKek(TEST_SECRETS_KEY));
  const intents = new SecretIntents(db, secrets);
  const grants = new GrantStore(db);
  const allow = AllowList.parse('127.0.0.0/8');
  const dialer = new McpDialer({ allow, extraCa, timeoutMs: 5_000 });
  const integrationStore = new IntegrationStore(db);
  const integrations = new Integrations(integrationStore, secrets, grants, dialer, allow);
  const rules = new RuleStore(db);
  return {
    store,
    pauses: new PauseStore(db),
    secrets,
    grants,
    rules,
    integrations: integrationStore,
    dialer,
    /** What a run's policy is read from. */
    policy: { secrets, intents, grants, integrations, rules },
  };
}

export type TestStores = ReturnType<typeof testStores>;

/**
 * A run of `workspaceId` as its loop has it once started: submitted with `grants`, claimed by
 * `replica`, on the browser session `sessionId` when there is one, its policy read.
 */
export async function startTestRun(
  stores: TestStores,
  workspaceId: string,
  options: {
    run?: Partial<NewRun>;
    grants?: NewGrants;
    replica?: string;
    leaseMs?: number;
    sessionId?: string;
    signal?: AbortSignal;
  } = {},
): Promise<RunContext> {
  const id = randomUUID();
  const { grants } = options;
  await stores.store.submit(
    id,
    testRun(workspaceId, options.run),
    [],
    grants && ((tx) => stores.grants.write(tx, id, grants)),
  );
  const replica = options.replica ?? 'replica-a';
  const row = await claimFor(stores.store, replica, id, options.leaseMs);
  if (!row) throw new Error('the test run was not claimed');
  const run = await contextFor(stores, row, replica, options);
  if (options.sessionId) await run.fenced.started(options.sessionId);
  return run;
}

/** The context the loop of `replica` builds for the run it claimed as `row`, its policy read. */
export async function contextFor(
  stores: TestStores,
  row: RunRow,
  replica: string,
  options: { leaseMs?: number; signal?: AbortSignal } = {},
): Promise<RunContext> {
  const run = new RunContext(row, stores.store.fenced(row.id, replica), {
    leaseMs: options.leaseMs ?? 60_000,
    log: quietLog('agent'),
    signal: options.signal ?? new AbortController().signal,
  });
  run.policy = await RunPolicy.load(stores.policy, row);
  return run;
}

/** A Chromium of the test's own, reached as a browser host's session is: a CDP WebSocket, one tab open. */
export interface TestSessionBrowser {
  webSocketUrl: string;
  close(): Promise<void>;
}

/** Starts /usr/bin/chromium headless with a DevTools port; `args` go to it as they are. */
export async function launchSessionBrowser(args: string[] = []): Promise<TestSessionBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'agent-test-chromium-'));
  const child = spawn(
    '/usr/bin/chromium',
    [
      '--headless=new',
      '--no-sandbox',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      ...args,
      'about:blank',
    ],
    // In the test's own process group, so a harness that ends the test's group ends the browser too.
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const webSocketUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /DevTools listening on (ws:\/\/\S+)/.exec(seen)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before listening: ${seen.slice(-500)}`)));
  });
  return {
    webSocketUrl,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      // Its helper processes end once the browser has, and may write a last file meanwhile.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

/** The index of the first element line holding `text`, as the model reads the page's list. */
export function elementIndex(elements: string, text: string): number {
  const line = elements.split('\n').find((l) => /\[\d+\]/.test(l) && l.includes(text));
  if (!line) throw new Error(`no element with ${text} in:\n${elements}`);
  return Number(/\[(\d+)\]/.exec(line)?.[1]);
}

/**
 * What the run loop's systems are tested against: a fresh database with the agent's stores, NATS in a
 * namespace of the test's own, a ledger client never dialled (for systems that hold nothing), and
 * browser systems on Chromiums of their own.
 */
export async function systemsFixture(options: { extraCa?: string[] } = {}) {
  const database = await freshDatabase();
  const db = openAgentDatabase(database.url);
  const stores = testStores(db, options.extraCa);
  const nats = await testNats('agent-systems-test', quietLog());
  const namespace = uniqueNamespace('agent');
  const ledger: LedgerClient = ledgerClient('127.0.0.1:9', TEST_SERVICE_TOKEN);
  const live: { browser: BrowserSystem; chromium: TestSessionBrowser }[] = [];
  /** What the run loop gives its systems, as the composition root builds it, on the fixture's stores and NATS. */
  const systemDeps = (opts: { filesKey?: string; approvalTimeoutMs?: number } = {}): SystemDeps => ({
    store: stores.store,
    pauses: stores.pauses,
    ledger,
    hosts: new BrowserHosts(nats, namespace, undefined, TEST_SERVICE_TOKEN, quietLog()),
    filesKey: opts.filesKey,
    policy: stores.policy,
    approvalTimeoutMs: opts.approvalTimeoutMs ?? 60_000,
    secretsKey: TEST_SECRETS_KEY,
    releaseControl: releaseControlOver(nats, namespace),
    openDriver: openSessionDriver,
  });
  /** Connects a run's browser system to a Chromium of its own (`args` its flags), ended by `release`. */
  const connect = async (browser: BrowserSystem, args?: string[]): Promise<TestSessionBrowser> => {
    const chromium = await launchSessionBrowser(args);
    live.push({ browser, chromium });
    await browser.connect(chromium.webSocketUrl);
    return chromium;
  };
  return {
    db,
    stores,
    nats,
    namespace,
    ledger,
    systemDeps,
    connect,
    /** The run's browser system; with `chromium`, driving a Chromium of its own (`args` its flags). */
    async browser(
      run: RunContext,
      metering: MeteringSystem,
      opts: { chromium?: boolean; args?: string[]; filesKey?: string } = {},
    ): Promise<BrowserSystem> {
      const browser = new BrowserSystem(run, metering, systemDeps(opts));
      if (opts.chromium) await connect(browser, opts.args);
      return browser;
    },
    /** The Chromium a browser system of the last test drives. */
    chromiumOf(browser: BrowserSystem): TestSessionBrowser | undefined {
      return live.find((l) => l.browser === browser)?.chromium;
    },
    /** Lets every browser of the last test go, and ends its Chromium. */
    async release(): Promise<void> {
      for (const { browser, chromium } of live.splice(0)) {
        await browser.letGo();
        await chromium.close();
      }
    },
    async close(): Promise<void> {
      ledger.close();
      await nats.drain();
      await stores.dialer.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}

export type SystemsFixture = Awaited<ReturnType<typeof systemsFixture>>;
