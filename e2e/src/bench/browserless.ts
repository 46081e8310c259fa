// Browserless (npm @browserless.io/browserless) on this machine's Debian
// Chromium, for side-by-side benches (/work/shared/design/peers.md): it looks
// for Chromium at its playwright-core's download path, so that path, under a
// directory of our own (PLAYWRIGHT_BROWSERS_PATH), is made a link to
// /usr/bin/chromium; the routes of browsers not here are disabled. Nothing
// is downloaded.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

export async function startBrowserless(chromiumPath: string): Promise<{ stop(): Promise<unknown> }> {
  process.env.PLAYWRIGHT_BROWSERS_PATH = mkdtempSync(path.join(tmpdir(), 'wap-bench-browsers-'));
  // Its own playwright-core, resolved from its package: the path it will look at.
  const fromBrowserless = createRequire(require.resolve('@browserless.io/browserless'));
  const playwright = fromBrowserless('playwright-core') as { chromium: { executablePath(): string } };
  const expected = playwright.chromium.executablePath();
  mkdirSync(path.dirname(expected), { recursive: true });
  symlinkSync(chromiumPath, expected);
  const { Browserless, BrowserlessRoutes } = (await import('@browserless.io/browserless')) as unknown as {
    Browserless: new () => {
      disableRoutes(...names: string[]): void;
      start(): Promise<void>;
      stop(): Promise<unknown>;
    };
    BrowserlessRoutes: Record<string, string>;
  };
  const server = new Browserless();
  // Only Chromium is here: the routes of Chrome, Edge, Firefox and WebKit would refuse to load.
  server.disableRoutes(
    ...Object.values(BrowserlessRoutes).filter((name) => /^(Chrome(?!ium)|Edge|Firefox|WebKit|Webkit)/.test(name)),
  );
  await server.start();
  return server;
}
