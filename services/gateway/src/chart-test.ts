#!/usr/bin/env node
// `helm test`: what a user of the installed chart relies on, end to end through
// the gateway's Service. With the gateway's own environment (DATABASE_URL,
// BILLING_LEDGER_ADDR) it mints a key for a workspace of its own ("helm-test",
// reused run after run; the key is revoked at the end), then:
//   1. /readyz answers 200 (every service behind the gateway can serve);
//   2. GET /v1/credits answers for the key;
//   3. with CHART_TEST_SCRAPE=true, a page this pod serves on its own address is
//      scraped through POST /v1/scrape, its text comes back, and exactly one
//      credit is billed for it. The crawl service must be let through to the
//      pod network for that (EGRESS_ALLOW), which a production install is not.
// Exit 0 when all of it holds; a line per step either way.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseCredential } from './domain/credentials.js';

const gateway = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const scrapeToo = process.env.CHART_TEST_SCRAPE === 'true';
const podIp = process.env.POD_IP ?? '127.0.0.1';
const pagePort = Number(process.env.CHART_TEST_PAGE_PORT ?? 8081);
const deadline = Date.now() + Number(process.env.CHART_TEST_TIMEOUT_MS ?? 120_000);

const step = (text: string) => console.log(`chart-test: ${text}`);

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

async function api<T>(
  method: string,
  route: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: T; retryAfter: number }> {
  const res = await fetch(`${gateway}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(90_000),
  });
  const retryAfter = Number(res.headers.get('retry-after')) || 1;
  return { status: res.status, body: (await res.json()) as T, retryAfter };
}

async function admin<T>(...args: string[]): Promise<T> {
  const script = path.join(__dirname, 'admin.js');
  const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], { env: process.env });
  return JSON.parse(stdout) as T;
}

async function main(): Promise<void> {
  await until('/readyz to answer 200', async () => ((await fetch(`${gateway}/readyz`)).ok ? true : undefined));
  step(`${gateway}/readyz is 200`);

  const keyFile = path.join(process.env.TMPDIR ?? '/tmp', `chart-test-${randomUUID()}.key`);
  // A pod a moment old may not reach the ledger yet: a NetworkPolicy controller admits a new pod's
  // address to the ledger's ingress at its next sync (kube-router's takes a second or two), and until
  // then seeding fails with "no free capacity". Asked again until the deadline, as a client would.
  const seed = await until('a workspace and key seeded', () =>
    admin<{ apiKey: string; workspace: string }>('seed', '--key-file', keyFile, '--workspace', 'helm-test'),
  );
  const key = seed.apiKey;
  const parsed = parseCredential(key);
  const keyId = parsed?.kind === 'api_key' ? parsed.keyId : '';
  try {
    const before = await api<{ available: number }>('GET', '/v1/credits', key);
    if (before.status !== 200) throw new Error(`GET /v1/credits answered ${before.status}`);
    step(`GET /v1/credits: ${before.body.available} available to workspace "${seed.workspace}"`);
    if (!scrapeToo) return;

    const token = `chart-test-${randomUUID()}`;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>Chart test</title></head><body><main><h1>Installed</h1>` +
          `<p>This page was served inside the cluster and carries ${token}.</p></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(pagePort, '0.0.0.0', resolve));
    try {
      const url = `http://${podIp}:${pagePort}/installed`;
      // As a client should: a 503 (a service still connecting to another, right after an
      // install) is asked again after its Retry-After, a few times.
      const scrape = () =>
        api<{ data?: { markdown?: string } }>('POST', '/v1/scrape', key, {
          url,
          formats: ['markdown'],
          engine: 'fetch',
        });
      let scraped = await scrape();
      for (let i = 0; i < 5 && scraped.status === 503; i++) {
        step(`POST /v1/scrape answered 503, asking again in ${scraped.retryAfter} s`);
        await new Promise((resolve) => setTimeout(resolve, scraped.retryAfter * 1000));
        scraped = await scrape();
      }
      if (scraped.status !== 200 || !scraped.body.data?.markdown?.includes(token)) {
        throw new Error(`POST /v1/scrape of ${url} answered ${scraped.status}: ${JSON.stringify(scraped.body)}`);
      }
      step(`POST /v1/scrape of ${url} brought the page's text back`);
      const expected = before.body.available - 1;
      await until(`the credits to read ${expected}`, async () => {
        const after = await api<{ available: number }>('GET', '/v1/credits', key);
        return after.body.available === expected ? true : undefined;
      });
      step(`GET /v1/credits: ${expected} available, one credit billed for the page`);
    } finally {
      server.close();
    }
  } finally {
    if (keyId) await admin('key', 'revoke', keyId).catch(() => undefined);
  }
}

main().then(
  () => step('passed'),
  (err: unknown) => {
    console.error(`chart-test: failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
