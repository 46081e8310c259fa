// Shared by the tests (not a test itself): a fresh migrated database, the
// browser host as the service wires it, with one Chromium, and a loopback site
// the egress lets through, and the service as its own process.
import { createServer, type RequestListener, type Server } from 'node:http';
import path from 'node:path';
import type { browser as proto } from '@wap/proto';
import {
  type FreshDatabase,
  freshServiceDatabase,
  quietLog,
  type ServiceProcess,
  spawnService,
  TEST_SERVICE_TOKEN,
} from '@wap/testkit';
import { WebSocketServer } from 'ws';
import { openBrowserHost } from './browser-host.js';
import { type BrowserHostConfig, env } from './config.js';
import { render } from './sessions/render.js';
import type { SessionBrowser } from './sessions/session-browser.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

// What another package's tests and benches drive a session browser with (`@wap/browser-host/test-support`).
export { env } from './config.js';
export { browserFace } from './domain/browser-face.js';
export { sessionSettings } from './domain/session-options.js';
export { SessionRecording } from './recording/recording.js';
export { chromiumVersion, launchSessionBrowser } from './sessions/session-browser.js';

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and openBrowserHost. */
export const spawnBrowserHost = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  spawnService('browser-host', databaseUrl, port, env);

/**
 * The host's settings as config.ts reads an environment that sets nothing of its own (its defaults, so a test
 * runs what production runs), with CDP on a free port, then `overrides`.
 */
export function testHostConfig(overrides: Partial<BrowserHostConfig> = {}): BrowserHostConfig {
  const parsed = env.parse({
    DATABASE_URL: 'postgresql://127.0.0.1/unused',
    NATS_URL: 'nats://127.0.0.1:4222',
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
  });
  return { ...parsed, CDP_PORT: 0, ...overrides };
}

export interface TestHost {
  host: ReturnType<typeof openBrowserHost>;
  /** The site's base URL on loopback. */
  base: string;
  /** Renders through the pool and the egress, as the Render RPC does once its checks pass. */
  run(req: proto.RenderRequest): ReturnType<typeof render>;
  close(): Promise<void>;
}

export async function startTestHost(
  site: RequestListener,
  recycleAfterPages = 10,
  overrides: Partial<BrowserHostConfig> = {},
): Promise<TestHost> {
  const server: Server = createServer(site);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const host = openBrowserHost(
    testHostConfig({
      BROWSER_POOL_SIZE: 1,
      PAGES_PER_BROWSER: 2,
      RECYCLE_AFTER_PAGES: recycleAfterPages,
      EGRESS_ALLOW: '127.0.0.0/8',
      SESSION_UIDS: 'off',
      ...overrides,
    }),
    undefined,
    undefined,
    quietLog(),
  );
  await host.start();
  const { pool, egress, captchaSolver } = host.deps;
  return {
    host,
    base,
    run: (req) =>
      pool.with((b, { faces }) => render(b, egress, req, new AbortController().signal, { faces, captchaSolver })),
    close: async () => {
      await host.stop();
      server.close();
    },
  };
}

/**
 * A session browser served unfiltered on a WebSocket of its own on loopback, for a tool that takes only
 * a URL (Playwright's connectOverCDP in a bench): each WebSocket is a connection of its own on the
 * browser's pipe. Never for a client: the host's CDP endpoint (cdp-server.ts) is the one that filters.
 */
export async function serveUnfiltered(browser: SessionBrowser): Promise<{ url: string; close(): void }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  wss.on('connection', (ws) => {
    const early: string[] = [];
    ws.on('message', (data) => early.push(data.toString()));
    void browser.openChannel().then((channel) => {
      channel.onmessage = (text) => ws.send(text);
      channel.onclose = () => ws.close();
      ws.removeAllListeners('message');
      ws.on('message', (data) => channel.send(data.toString()));
      ws.on('close', () => channel.close());
      for (const text of early.splice(0)) channel.send(text);
    });
  });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`, close: () => wss.close() };
}
